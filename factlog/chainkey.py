"""Where the chain key comes from: never from the database it protects.

In order: the `UAC_CHAIN_KEY` environment variable (the key itself), the file named by
`UAC_CHAIN_KEY_FILE`, or `<home>/chain.key` when it exists. A key file must be readable by
its owner only (mode 0600 or stricter); anything else is refused, since a key that others
can read protects nothing. A key is at least 16 bytes; surrounding whitespace is ignored.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from factlog.errors import InputError

ENV_KEY = "UAC_CHAIN_KEY"
ENV_KEY_FILE = "UAC_CHAIN_KEY_FILE"
KEY_FILE = "chain.key"
MIN_KEY_BYTES = 16
MAX_KEY_BYTES = 4096


def _checked(key: bytes, where: str) -> bytes:
    key = key.strip()
    if len(key) < MIN_KEY_BYTES:
        raise InputError(f"chain key from {where} is too short (at least {MIN_KEY_BYTES} bytes)")
    return key


def read_key_file(path: Path) -> bytes:
    """A key file: a regular file, owner-only permissions, 16 to 4096 bytes."""
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read chain key file {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"chain key file {path} is not a regular file")
    if info.st_mode & 0o077:
        raise InputError(f"chain key file {path} is readable by others (mode {stat.S_IMODE(info.st_mode):04o});"
                         f" run: chmod 600 {path}")
    if info.st_size > MAX_KEY_BYTES:
        raise InputError(f"chain key file {path} is larger than {MAX_KEY_BYTES} bytes")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read chain key file {path}: {exc.strerror or exc}") from None
    return _checked(data, str(path))


def load_chain_key(home: Path) -> bytes | None:
    """The configured chain key, or None when the log is to be chained unkeyed."""
    env = os.environ.get(ENV_KEY)
    if env is not None and env != "":
        return _checked(env.encode("utf-8"), ENV_KEY)
    named = os.environ.get(ENV_KEY_FILE)
    if named:
        return read_key_file(Path(named).expanduser())
    default = home / KEY_FILE
    if default.exists() or default.is_symlink():
        return read_key_file(default)
    return None

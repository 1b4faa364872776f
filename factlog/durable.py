"""Durable file-system steps: every write is fsynced, every rename is followed by a fsync
of the directory that holds it, so that after a crash a name points either at the old
content or at the complete new content.

Calls go through `os.<name>` at call time (not `from os import ...`) so that tests can
inject a failure at any single step.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

TEMP_PREFIX = ".tmp-"
READ_ONLY_FILE = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
READ_ONLY_DIR = READ_ONLY_FILE | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Create `path` (which must not exist) with `data`, fsynced, then set its mode."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(path, mode)


def replace_file(path: Path, data: bytes) -> None:
    """Atomically make `path` hold `data`: temp file beside it, fsync, os.replace, fsync dir."""
    temp = path.with_name(f"{TEMP_PREFIX}{path.name}-{uuid.uuid4().hex}")
    try:
        write_file(temp, data)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def append_line(path: Path, line: str) -> None:
    """Append one line (O_APPEND, fsynced). A new file is made durable in its directory."""
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)


def remove_tree(path: Path) -> None:
    """Delete a tree even where published versions made it read-only.

    Entries that vanish meanwhile (another process removing the same tree) are fine.
    """
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
        return
    for dirpath, _dirnames, _filenames in os.walk(path):
        with contextlib.suppress(FileNotFoundError):
            os.chmod(dirpath, 0o755)
    shutil.rmtree(path, onerror=_ignore_missing)


def _ignore_missing(_func: Callable[..., object], _path: str,
                    exc_info: tuple[type[BaseException], BaseException, object]) -> None:
    if not isinstance(exc_info[1], FileNotFoundError):
        raise exc_info[1]


def remove_temp_entries(directory: Path) -> None:
    """Remove leftovers of interrupted writes (names starting with TEMP_PREFIX)."""
    for entry in directory.iterdir():
        if entry.name.startswith(TEMP_PREFIX):
            remove_tree(entry)


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive `flock` on `path` (created if missing) across threads and processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock

"""What the `uac` client and its warm worker share: where the worker listens, how messages
travel, and how each side proves it runs the same code for the same workspace.

    <home>/cache/warm/          folder 0700, owned by the user
    <home>/cache/warm/socket    the worker's Unix socket (0600)
    <home>/cache/warm/lock      held (flock) by the one live worker of the workspace
    <home>/cache/warm/log       the worker's stdout and stderr

A message is a 4-byte big-endian length and that many bytes (a JSON object, or raw output
bytes). Both ends check the peer's uid (SO_PEERCRED): only the workspace's own user talks
to its worker. Standard library only: the client path must stay light.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import struct
import sys
from contextlib import contextmanager
from typing import Any, Iterator, Union

PathLike = Union[str, "os.PathLike[str]"]

MODES = ("off", "auto", "on")
PACKAGES = ("factlog", "codegen", "users", "constraints", "runtime")
SOURCE_SUFFIXES = (".py", ".jinja2", ".json", ".yaml", ".jsonl")
MAX_MESSAGE = 1 << 30
SUN_PATH_MAX = 100  # a Unix socket path is at most 107 bytes: longer ones go through /proc/self/fd
# Environment the worker takes from each request: our own settings and what decides how the
# output looks (rich reads these; the terminal size travels as COLUMNS / LINES).
TERMINAL_ENV = ("TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
                "COLUMNS", "LINES")
FORWARDED_PREFIXES = ("UAC_", "OPENAI_")
# Read once when a workspace is opened: a worker serves only clients that agree on them.
OPEN_TIME_ENV = ("UAC_CHAIN_KEY", "UAC_CHAIN_KEY_FILE")


class WireError(Exception):
    """The peer hung up, sent something malformed, or is not ours."""


def warm_dir(home: PathLike) -> str:
    """Paths here are strings (os.path): the client does not load pathlib."""
    return os.path.join(home, "cache", "warm")


def socket_path(home: PathLike) -> str:
    return os.path.join(warm_dir(home), "socket")


def code_fingerprint() -> str:
    """A hash of the interpreter and of every source file of our packages (names and bytes):
    a worker serves only a client whose fingerprint equals its own."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    digest = hashlib.sha256(f"{os.path.realpath(sys.executable)}\0{sys.prefix}\0{sys.version}\0{root}\0".encode())
    for package in PACKAGES:
        for path in sorted(_sources(os.path.join(root, package))):
            digest.update(os.path.relpath(path, root).encode() + b"\0")
            try:
                with open(path, "rb") as handle:
                    digest.update(handle.read())
            except OSError:
                digest.update(b"\1unreadable")
            digest.update(b"\0")
    return digest.hexdigest()


def _sources(folder: str) -> Iterator[str]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                yield from _sources(entry.path)
        elif entry.name.endswith(SOURCE_SUFFIXES):
            yield entry.path


def open_time_digest(home: PathLike, environ: dict[str, str] | os._Environ[str]) -> str:
    """What a workspace's opening read from outside it (the chain key's variables and files,
    by identity): a worker whose `Memory` was opened under another one refuses."""
    digest = hashlib.sha256()
    for name in OPEN_TIME_ENV:
        digest.update(f"{name}={environ.get(name)}\0".encode())
    for path in (os.path.join(home, "chain.key"), environ.get("UAC_CHAIN_KEY_FILE")):
        if path:
            try:
                st = os.stat(path)
                digest.update(f"{path}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}\0".encode())
            except OSError:
                digest.update(f"{path}:missing\0".encode())
    return digest.hexdigest()


def forwarded_env(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """The variables a request carries: ours (UAC_*, the producer's OPENAI_*) and the terminal's."""
    return {k: v for k, v in environ.items() if k.startswith(FORWARDED_PREFIXES) or k in TERMINAL_ENV}


@contextmanager
def short_path(path: str) -> Iterator[str]:
    """`path` as a Unix socket address: itself, or, when too long, the same file reached
    through an open descriptor of its folder (Linux)."""
    if len(os.fsencode(path)) <= SUN_PATH_MAX:
        yield path
        return
    fd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{os.path.basename(path)}"
    finally:
        os.close(fd)


def supported() -> bool:
    return hasattr(socket, "AF_UNIX") and hasattr(socket, "SO_PEERCRED")


def peer_uid(sock: socket.socket) -> int:
    pid, uid, gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                        struct.calcsize("3i")))
    return int(uid)


def check_peer(sock: socket.socket) -> None:
    if peer_uid(sock) != os.getuid():
        raise WireError("the peer belongs to another user")


def send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(struct.pack(">I", len(payload)) + payload)


def send_json(sock: socket.socket, value: dict[str, Any]) -> None:
    send(sock, json.dumps(value).encode("utf-8"))


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise WireError("the peer hung up")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(sock: socket.socket) -> bytes:
    (size,) = struct.unpack(">I", _exactly(sock, 4))
    if size > MAX_MESSAGE:
        raise WireError("message too large")
    return _exactly(sock, size)


def receive_json(sock: socket.socket) -> dict[str, Any]:
    try:
        value = json.loads(receive(sock))
    except ValueError:
        raise WireError("malformed message") from None
    if not isinstance(value, dict):
        raise WireError("malformed message")
    return value

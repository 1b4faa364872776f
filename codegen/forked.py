"""One call run in a forked child, its answer pickled back through a pipe.

For work that reads what the parent holds and writes only its own caches (the mypy stage
of validation): the parent forks, goes on with other work, then takes the answer. The
answer is framed (length and sha256) and must be of the type the caller expects; a child
that cannot be started, crashes, is killed, sends a torn or corrupt answer, or is not done
by its deadline gives None, and the caller does the work itself.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
_HEAD = struct.Struct(">Q32s")  # answer length, its sha256
IN_CHILD = False  # true in a child of `fork_call`: it answers one call, then exits


class Forked(Generic[T]):
    """A child computing one answer of type `kind`; `answer()` waits for it (once)."""

    def __init__(self, pid: int, fd: int, kind: type[T], deadline: float) -> None:
        self.pid = pid
        self.kind = kind
        self.deadline = deadline
        self._fd: int | None = fd
        self.status = "running"  # then: done, failed, timeout, killed

    def answer(self) -> T | None:
        """The child's answer; None if there is none to trust (the child is stopped then)."""
        if self._fd is None:
            return None
        data = _read_all(self._fd, self.deadline)
        self._close_fd()
        exited = _reap(self.pid, self.deadline if data is not None else 0.0)
        if data is None or not exited:
            self.status = "timeout" if data is None else "failed"
            return None
        value = _decode(data)
        if not isinstance(value, self.kind):
            self.status = "failed"
            return None
        self.status = "done"
        return value

    def close(self) -> None:
        """Stop the child if its answer was not taken."""
        if self._fd is not None:
            self._close_fd()
            kill(self.pid)
            self.status = "killed"

    def _close_fd(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def fork_call(call: Callable[[], T], kind: type[T], seconds: float) -> Forked[T] | None:
    """Run `call()` in a forked child (None when none can be started); its answer must be a
    `kind` and come within `seconds`."""
    if not hasattr(os, "fork"):
        return None
    try:
        read_fd, write_fd = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the child: answer, and leave without running anything of the parent's
        status = 1
        global IN_CHILD
        IN_CHILD = True
        try:
            os.close(read_fd)
            _write_all(write_fd, encode(call()))
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    return Forked(pid, read_fd, kind, time.monotonic() + seconds)


def encode(value: object) -> bytes:
    """An answer as the child sends it."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEAD.pack(len(data), hashlib.sha256(data).digest()) + data


def _decode(frame: bytes) -> object:
    if len(frame) < _HEAD.size:
        return None
    size, digest = _HEAD.unpack_from(frame)
    data = frame[_HEAD.size:]
    if len(data) != size or hashlib.sha256(data).digest() != digest:
        return None
    try:
        return pickle.loads(data)
    except Exception:  # a frame that checks out but does not unpickle: no answer
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.close(fd)


def _read_all(fd: int, deadline: float) -> bytes | None:
    """Everything the child writes until it closes the pipe; None past the deadline."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _reap(pid: int, deadline: float) -> bool:
    """Whether the child exited cleanly (it is killed if not done by `deadline`)."""
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return False
        if done:
            return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        if time.monotonic() > deadline:
            kill(pid)
            return False
        time.sleep(0.001)


def kill(pid: int) -> None:
    """Stop a child of ours and reap it."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (OSError, ChildProcessError):
        pass

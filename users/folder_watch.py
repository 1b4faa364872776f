"""Whether a version folder changed since it was last checked, in O(1) per question.

The integrity check (`users.integrity`) stats every entry of a version folder before each
use; that is O(files) per query. On Linux a folder is also watched with inotify while it is
checked: the folder itself (entries added, removed or renamed; the folder moved or
deleted) and each of its entries (writes, truncation, chmod, utime, links, by whatever path
they were reached), so a later question costs one non-blocking read of the event queue and
one stat of the folder. Whatever is uncertain answers "changed", and the caller runs its
full check: no inotify (another system, no instance left), a watch that could not be
added, a queue overflow, a folder replaced by another one at the same path, or a process
forked from the one that armed the watches.

Events are queued by the kernel in the system call that changes the file, so a change
made after `arm` returned is in the queue before any later `unchanged` reads it.
"""

from __future__ import annotations

import os
import struct
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
_CHANGES = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
            | IN_DELETE_SELF | IN_MOVE_SELF)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then `len` bytes of name)
MAX_FOLDERS = 16  # folders watched at once; the least recently armed ones are dropped
MAX_WATCHES = 8192  # watches held at once: inotify counts them per system user, so stay modest


class _Folder:
    def __init__(self, identity: tuple[int, int], wds: set[int]) -> None:
        self.identity = identity  # device and inode of the folder when armed
        self.wds = wds
        self.clean = True


class FolderWatch:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._libc: Any = None
        self._fd: int | None = None
        self._pid = 0
        self._broken = not sys.platform.startswith("linux")
        self._folders: OrderedDict[str, _Folder] = OrderedDict()
        self._owners: dict[int, set[str]] = {}  # watch descriptor -> folders it belongs to
        self.armed = 0  # folders armed (for tests)

    def arm(self, folder: Path) -> None:
        """Call before a full check of `folder`: from now on, a change to it or its entries
        makes `unchanged(folder)` False. Never raises; on any problem the folder is simply
        not watched (and `unchanged` stays False)."""
        key = str(folder)
        with self._lock:
            self._forget(key)
            fd = self._open()
            if fd is None:
                return
            self._drain(fd)
            wds: set[int] = set()
            try:
                identity = self._identity(key)
                wds.add(self._add(fd, key, IN_ONLYDIR))  # first: an entry added later is an event
                with os.scandir(key) as entries:
                    paths = [entry.path for entry in entries]
                if len(paths) + 1 > MAX_WATCHES:
                    raise OSError("too many entries to watch: the caller's scan decides")
                while self._folders and len(self._owners) + len(paths) + 1 > MAX_WATCHES:
                    self._forget(next(iter(self._folders)))
                for path in paths:
                    wds.add(self._add(fd, path, IN_DONT_FOLLOW))
                if self._identity(key) != identity:
                    raise OSError("the folder was replaced while it was being watched")
            except OSError:
                self._release(wds)
                return
            for wd in wds:
                self._owners.setdefault(wd, set()).add(key)
            self._folders[key] = _Folder(identity, wds)
            self.armed += 1
            while len(self._folders) > MAX_FOLDERS:
                self._forget(next(iter(self._folders)))

    def unchanged(self, folder: Path) -> bool:
        """True only if `folder` was armed in this process and nothing has happened to it,
        its entries, or the path it was found at, since."""
        key = str(folder)
        with self._lock:
            watched = self._folders.get(key)
            if watched is None or self._fd is None or self._pid != os.getpid():
                return False
            self._drain(self._fd)
            if not watched.clean:
                return False
            try:
                return self._identity(key) == watched.identity
            except OSError:
                return False

    # -- inside the lock ----------------------------------------------------------------

    def _open(self) -> int | None:
        if self._broken:
            return None
        if self._fd is not None and self._pid == os.getpid():
            return self._fd
        if self._fd is not None:  # a forked copy: the queue is the parent's; start afresh
            self._reset()
        try:
            import ctypes

            if self._libc is None:
                self._libc = ctypes.CDLL(None, use_errno=True)
            fd = int(self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC))
        except (OSError, AttributeError):
            fd = -1
        if fd < 0:
            self._broken = True  # no inotify here: every question answers "changed"
            return None
        self._fd, self._pid = fd, os.getpid()
        return fd

    def _reset(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
        self._fd = None
        self._folders.clear()
        self._owners.clear()

    def _add(self, fd: int, path: str, flags: int) -> int:
        wd = int(self._libc.inotify_add_watch(fd, os.fsencode(path), _CHANGES | flags))
        if wd < 0:
            raise OSError(self._libc_errno(), f"cannot watch {path}")
        return wd

    def _libc_errno(self) -> int:
        import ctypes

        return ctypes.get_errno()

    def _drain(self, fd: int) -> None:
        """Read every queued event; mark the folders they concern as changed."""
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                self._mark_all()
                return
            if not data:
                return
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + length
                if mask & IN_Q_OVERFLOW:
                    self._mark_all()
                    continue
                for key in self._owners.get(wd, ()):
                    folder = self._folders.get(key)
                    if folder is not None:
                        folder.clean = False
                if mask & IN_IGNORED:  # the watch is gone (its file deleted): forget it
                    self._owners.pop(wd, None)

    def _mark_all(self) -> None:
        for folder in self._folders.values():
            folder.clean = False

    def _forget(self, key: str) -> None:
        folder = self._folders.pop(key, None)
        if folder is None:
            return
        for wd in folder.wds:
            owners = self._owners.get(wd)
            if owners is not None:
                owners.discard(key)
        self._release(folder.wds)

    def _release(self, wds: set[int]) -> None:
        """Remove the watches no armed folder uses any more."""
        if self._fd is None:
            return
        for wd in wds:
            if not self._owners.get(wd):
                self._owners.pop(wd, None)
                self._libc.inotify_rm_watch(self._fd, wd)

    @staticmethod
    def _identity(path: str) -> tuple[int, int]:
        st = os.stat(path, follow_symlinks=False)
        return (st.st_dev, st.st_ino)

    def after_fork(self) -> None:
        """In a forked child: drop the parent's queue (reading it would steal its events)."""
        self._lock = threading.Lock()
        self._reset()


WATCHED = FolderWatch()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=WATCHED.after_fork)

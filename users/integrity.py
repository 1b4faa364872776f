"""Before a version is imported, its folder must still hold exactly the files it was published with.

`check_version` compares the folder against `meta.json` (the sha256 of every file and of
the whole package) and refuses any difference: a changed, added or deleted file, or an
entry that is not a plain package file. Hashing a package on every query would be
wasteful, so a folder that passed is remembered by the identity of its entries (name,
inode, size, mtime and ctime of each): an unchanged identity is not hashed again. The
ctime is set by the kernel on every write, rename or `utime`, so restoring a file's mtime
does not hide an edit. Where the folder can be watched (`users.folder_watch`, Linux), a
folder that passed and has not changed since is recognised without reading its entries.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import threading
from collections.abc import Mapping
from pathlib import Path

from codegen.manifest_file import MANIFEST_FILE as MANIFEST_FILE  # its sha256 is in meta.json
from factlog.errors import InputError
from users.folder_watch import WATCHED
from users.manifest_parts import ChangedPart, referenced
from users.piece_store import tree_reader
from users.versions import VersionInfo

FILE_NAME = re.compile(r"[a-z_][a-z0-9_]*\.py", re.ASCII)  # the only files a package may hold
META_FILE = "meta.json"

Identity = tuple[tuple[str, int, int, int, int, int], ...]


class IntegrityError(InputError):
    """A stored version's files differ from what was published: it must not be imported."""


def files_digest(files: Mapping[str, bytes]) -> str:
    """The package hash recorded in `meta.json` (`files_sha256`): over sorted (name, bytes) pairs."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode("ascii") + b"\0" + files[name] + b"\0")
    return digest.hexdigest()


def package_digest(file_sha256: Mapping[str, str]) -> str:
    """`files_sha256` of a version that records per-file hashes: over its sorted (name,
    sha256) pairs, so it takes no second pass over the bytes. (Versions written before
    per-file hashes record `files_digest`; either is checked through what it covers: the
    per-file hashes, or for those older versions the bytes.)"""
    digest = hashlib.sha256(b"files\0")
    for name in sorted(file_sha256):
        digest.update(name.encode("ascii") + b"\0" + file_sha256[name].encode("ascii") + b"\0")
    return digest.hexdigest()


def file_hashes(files: Mapping[str, bytes]) -> dict[str, str]:
    """The per-file hashes recorded in `meta.json` (`file_sha256`)."""
    return {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}


class _CheckedFolders:
    """Folder → the identity of its entries when it last passed; `hashed` counts full checks."""

    def __init__(self) -> None:
        self._passed: dict[tuple[str, str], Identity] = {}
        self._lock = threading.Lock()
        self.hashed = 0

    def get(self, key: tuple[str, str]) -> Identity | None:
        with self._lock:
            return self._passed.get(key)

    def put(self, key: tuple[str, str], identity: Identity) -> None:
        with self._lock:
            self._passed[key] = identity

    def drop(self, key: tuple[str, str]) -> None:
        with self._lock:
            self._passed.pop(key, None)

    def drop_folder(self, path: str) -> None:
        with self._lock:
            for key in [k for k in self._passed if k[0] == path]:
                del self._passed[key]

    def keep_only(self, key: tuple[str, str]) -> None:
        """Forget what passed in the same folder under other metadata (`key[1]`)."""
        with self._lock:
            for other in [k for k in self._passed if k[0] == key[0] and k != key]:
                del self._passed[other]

    def clear(self) -> None:
        with self._lock:
            self._passed.clear()


CHECKED = _CheckedFolders()


def _identity(path: Path) -> Identity:
    entries = []
    with os.scandir(path) as found:
        for entry in found:
            st = entry.stat(follow_symlinks=False)
            entries.append((entry.name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode))
    return tuple(sorted(entries))


def _fail(info: VersionInfo, problem: str) -> IntegrityError:
    return IntegrityError(f"version {info.number} of {info.user} failed its integrity check: "
                          f"{problem}; run uac verify")


Hashes = dict[tuple[int, int, int, int] | str, str]  # (inode, size, mtime, ctime), or a tree blob's name -> sha256


def _sha256(path: Path, key: tuple[int, int, int, int], hashes: Hashes | None) -> str:
    """The file's sha256; with `hashes`, an inode unchanged since it was hashed is not read again
    (a file linked from many versions is read once per verify)."""
    if hashes is not None and key in hashes:
        return hashes[key]
    with open(path, "rb") as handle:
        sha = hashlib.file_digest(handle, "sha256").hexdigest()
    if hashes is not None:
        hashes[key] = sha
    return sha


def _problem(info: VersionInfo, identity: Identity, hashes: Hashes | None = None) -> str | None:
    """Why the folder does not match its metadata, or None. Reads and hashes every file
    (the package files, `manifest.json` and the manifest parts it names)."""
    sources: dict[str, tuple[int, int, int, int]] = {}
    manifest = False
    for name, ino, size, mtime, ctime, mode in identity:
        if name == META_FILE:
            continue
        key = (ino, size, mtime, ctime)
        if name == MANIFEST_FILE and info.manifest_sha256 is not None and stat.S_ISREG(mode):
            manifest = True
            continue
        if not FILE_NAME.fullmatch(name) or not stat.S_ISREG(mode):
            return f"{name} was added since it was published"
        sources[name] = key
    recorded = info.file_sha256
    if recorded:  # every byte is covered by its file's hash
        for name in sorted(set(recorded) | set(sources)):
            if name not in sources:
                return f"{name} was deleted since it was published"
            if name not in recorded:
                return f"{name} was added since it was published"
            try:
                sha = _sha256(info.path / name, sources[name], hashes)
            except OSError as exc:
                return f"{name} cannot be read ({exc.strerror})"
            if sha != recorded[name]:
                return f"{name} changed since it was published"
    else:  # a version written before per-file hashes: the package hash alone
        files: dict[str, bytes] = {}
        for name in sources:
            try:
                files[name] = (info.path / name).read_bytes()
            except OSError as exc:
                return f"{name} cannot be read ({exc.strerror})"
        if files_digest(files) != info.files_sha256:
            return "its files changed since it was published"
    if info.manifest_sha256 is None:
        return None
    return _manifest_problem(info, manifest, hashes)


def _manifest_problem(info: VersionInfo, manifest: bool, hashes: Hashes | None) -> str | None:
    """Whether `manifest.json` and every blob of its tree (`users.manifest_parts`) are as
    published."""
    if not manifest:
        return f"{MANIFEST_FILE} was deleted since it was published"
    try:
        data = (info.path / MANIFEST_FILE).read_bytes()
    except OSError as exc:
        return f"{MANIFEST_FILE} cannot be read ({exc.strerror})"
    if hashlib.sha256(data).hexdigest() != info.manifest_sha256:
        return f"{MANIFEST_FILE} changed since it was published"
    with tree_reader(info.path.parent) as blob:
        try:
            names = referenced(data, blob, str(info.path / MANIFEST_FILE))
        except ChangedPart as exc:
            return str(exc)
        except InputError:
            return f"{MANIFEST_FILE} cannot be read as a manifest"
        for sha in sorted(names):
            found = hashes.get(sha) if hashes is not None else None  # a blob named by many versions: read once
            if found is None:
                try:
                    found = hashlib.sha256(blob(sha)).hexdigest()
                except OSError:
                    return f"manifest piece {sha} is missing"
                if hashes is not None:
                    hashes[sha] = found
            if found != sha:
                return f"manifest piece {sha} changed since it was published"
    return None


def version_problem(info: VersionInfo, *, use_cache: bool = True, hashes: Hashes | None = None) -> str | None:
    """What is wrong with the stored files of `info`, or None when they are as published.
    `hashes` (shared by the calls of one verify) hashes each inode once while it is unchanged."""
    key = (str(info.path), info.files_sha256)
    if use_cache and CHECKED.get(key) is not None and WATCHED.unchanged(info.path):
        return None  # passed, and watched since: nothing in it changed (`users.folder_watch`)
    if use_cache:  # the watch, re-armed, vouches only for what this check verifies
        CHECKED.keep_only(key)
        WATCHED.arm(info.path)  # before the entries are read: a change from now on is seen
    try:
        identity = _identity(info.path)
    except OSError as exc:
        return f"its folder cannot be read ({exc.strerror})"
    if use_cache and CHECKED.get(key) == identity:
        return None
    CHECKED.hashed += 1
    problem = _problem(info, identity, hashes)
    if problem is not None:
        CHECKED.drop(key)
        return problem
    try:
        unchanged = _identity(info.path) == identity  # nothing moved while it was being read
    except OSError:
        unchanged = False
    if unchanged:
        CHECKED.put(key, identity)
    return None


def check_version(info: VersionInfo) -> None:
    """Raise `IntegrityError` (one line, exit 2 in the CLI) unless the version is as published."""
    problem = version_problem(info)
    if problem is not None:
        raise _fail(info, problem)


def tampered(info: VersionInfo, name: str) -> IntegrityError:
    """The error for a file found changed while it was being imported."""
    CHECKED.drop((str(info.path), info.files_sha256))
    return _fail(info, f"{name} changed since it was published")

"""Before a version is imported, its folder must still hold exactly the files it was published with.

`check_version` compares the folder against `meta.json` (the sha256 of every file and of
the whole package) and refuses any difference: a changed, added or deleted file, or an
entry that is not a plain package file. Hashing a package on every query would be
wasteful, so a folder that passed is remembered by the identity of its entries (name,
inode, size, mtime and ctime of each): an unchanged identity is not hashed again. The
ctime is set by the kernel on every write, rename or `utime`, so restoring a file's mtime
does not hide an edit. Where the folder can be watched (`users.folder_watch`, Linux), a
folder that passed and has not changed since is recognised without reading its entries.

A folder not yet checked (a version just published) costs what this process did not
write or check itself: a file that is a blob this process wrote or compared
(`users.blobs.BlobWriter.kept`), its identity unchanged since, is not hashed, nor is a
manifest row this process put or checked while the piece store's files kept their
identity (`users.piece_store.CHECKED_ROWS`). Anything changed behind its back has another
identity and is read. `uac verify` (`use_cache=False`) reads every byte.
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
from users.blobs import BlobStamp
from users.folder_watch import WATCHED
from users.manifest_parts import ChangedPart, part_pieces
from users.piece_store import CHECKED_ROWS, PIECES_FILE, db_stamp, tree_reader
from users.versions import VersionInfo

FILE_NAME = re.compile(r"[a-z_][a-z0-9_]*\.py", re.ASCII)  # the only files a package may hold
META_FILE = "meta.json"

Identity = tuple[tuple[str, int, int, int, int, int, int], ...]  # name, device, inode, size, mtime, ctime, mode


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
        """Forget every check (and the rows of piece stores known checked)."""
        with self._lock:
            self._passed.clear()
        CHECKED_ROWS.clear()
        PART_LISTS.clear()


CHECKED = _CheckedFolders()


def _identity(path: Path) -> Identity:
    entries = []
    with os.scandir(path) as found:
        for entry in found:
            st = entry.stat(follow_symlinks=False)
            entries.append((entry.name, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode))
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


def _problem(info: VersionInfo, identity: Identity, hashes: Hashes | None = None,
             blobs: Mapping[str, BlobStamp] | None = None, trust: bool = False) -> str | None:
    """Why the folder does not match its metadata, or None. Reads and hashes every file
    (the package files, `manifest.json` and the manifest parts it names), but with `blobs`
    (sha256 -> the identity of a blob this process wrote or checked, `users.blobs.BlobWriter`)
    a file that is that very blob, unchanged, is not read; with `trust`, the rows of the
    piece store this process put or checked are not read while unchanged (`_manifest_problem`)."""
    sources: dict[str, tuple[int, int, int, int]] = {}
    stamps: dict[str, BlobStamp] = {}
    manifest = False
    for name, dev, ino, size, mtime, ctime, mode in identity:
        if name == META_FILE:
            continue
        key = (ino, size, mtime, ctime)
        stamps[name] = (dev, ino, size, mtime, ctime)
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
            if blobs is not None and blobs.get(recorded[name]) == stamps[name]:
                continue  # the blob of exactly those bytes, unchanged since this process wrote or read it
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
    return _manifest_problem(info, manifest, hashes, trust)


class _PartLists:
    """User folder -> the pieces of each part blob of the tree checked last (a part's list
    is fixed by its name; it is used only for a part whose row is known unchanged)."""

    def __init__(self) -> None:
        self._lists: dict[str, dict[str, list[str]]] = {}
        self._lock = threading.Lock()

    def get(self, folder: Path) -> dict[str, list[str]]:
        with self._lock:
            return self._lists.get(str(folder), {})

    def put(self, folder: Path, lists: dict[str, list[str]]) -> None:
        with self._lock:
            self._lists[str(folder)] = lists

    def clear(self) -> None:
        with self._lock:
            self._lists.clear()


PART_LISTS = _PartLists()


def _manifest_problem(info: VersionInfo, manifest: bool, hashes: Hashes | None, trust: bool = False) -> str | None:
    """Whether `manifest.json` and every blob of its tree (`users.manifest_parts`) are as
    published. With `trust`, the rows this process put or checked while the piece store's
    files kept their identity (`users.piece_store.CHECKED_ROWS`) are not read again."""
    if not manifest:
        return f"{MANIFEST_FILE} was deleted since it was published"
    try:
        data = (info.path / MANIFEST_FILE).read_bytes()
    except OSError as exc:
        return f"{MANIFEST_FILE} cannot be read ({exc.strerror})"
    if hashlib.sha256(data).hexdigest() != info.manifest_sha256:
        return f"{MANIFEST_FILE} changed since it was published"
    folder = info.path.parent
    database = folder / PIECES_FILE
    before = db_stamp(database) if trust else None
    known = CHECKED_ROWS.rows(database, before) if trust else frozenset()
    lists = PART_LISTS.get(folder) if known else {}
    from_rows: set[str] = set()
    with tree_reader(folder, from_rows) as blob:
        try:
            parts = part_pieces(data, blob, str(info.path / MANIFEST_FILE),
                                {sha: lists[sha] for sha in known.intersection(lists)} if lists else None)
        except ChangedPart as exc:
            return str(exc)
        except InputError:
            return f"{MANIFEST_FILE} cannot be read as a manifest"
        names = set(parts).union(*parts.values())
        for sha in sorted(names - known):
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
    if trust:
        CHECKED_ROWS.checked(database, before, db_stamp(database), from_rows)
        PART_LISTS.put(folder, parts)
    return None


def version_problem(info: VersionInfo, *, use_cache: bool = True, hashes: Hashes | None = None,
                    blobs: Mapping[str, BlobStamp] | None = None) -> str | None:
    """What is wrong with the stored files of `info`, or None when they are as published.
    `hashes` (shared by the calls of one verify) hashes each inode once while it is unchanged.
    With `use_cache`, a folder that passed and kept its identity is not read again, nor are
    the piece store's rows this process put or checked while the store is unchanged, nor
    (`blobs`: the blobs this process wrote or checked, by sha256, with their identity then)
    files that are such blobs, unchanged (`_problem`). Without it every byte is read."""
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
    problem = _problem(info, identity, hashes, blobs if use_cache else None, use_cache)
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


def check_version(info: VersionInfo, blobs: Mapping[str, BlobStamp] | None = None) -> None:
    """Raise `IntegrityError` (one line, exit 2 in the CLI) unless the version is as published
    (`blobs`: see `version_problem`)."""
    problem = version_problem(info, blobs=blobs)
    if problem is not None:
        raise _fail(info, problem)


def tampered(info: VersionInfo, name: str) -> IntegrityError:
    """The error for a file found changed while it was being imported."""
    CHECKED.drop((str(info.path), info.files_sha256))
    return _fail(info, f"{name} changed since it was published")

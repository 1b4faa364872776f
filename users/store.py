"""The versioned per-user module store: `<home>/users/<user>/v000001/`, `v000002/`, ...

Layout of a user folder:

    current        the current version's name ("v000003"), replaced atomically
    events.jsonl   one line per publish or rollback (an audit log)
    .lock          flock'ed by writers, so concurrent publishers get distinct numbers
    .blobs/        every distinct file content once, named by its sha256 (`users.blobs`)
    pieces.sqlite  the blobs of the manifests' trees (parts and pieces of records), rows
                   named by their sha256 (`users.piece_store`, `users.manifest_parts`)
    v000001/       an immutable package: hard links to the blobs of its files and of
                   `manifest.json` (whose tree it names), plus its own meta.json; read-only
    .tmp-*         leftovers of interrupted writes: never read, removed by the next writer

A version costs disk in proportion to what changed: a file equal to one of an older
version is the same inode, a part of the manifest equal to one of an older version the same
row. The blobs a version links, its `meta.json` and the temp file of its new `current`
pointer are written, then fsynced in one concurrent batch (`users.blobs.durable`: about one
disk flush, however many files), while a second thread stores the manifest's new parts and
pieces in one transaction of the piece store; the blobs are renamed into place and linked
into the version's temp folder, the blob folder and the temp folder fsynced, and once the
transaction has committed the temp folder is renamed into place, so a crash leaves either
no new version (and perhaps blobs and rows nothing names and temp files, which `gc` or the
next publish removes) or a complete one; the `current` pointer moves (a rename of its
durable temp file) only after that.
A crash between the rename and the pointer update leaves a complete version that never
became current (history lists it; the next publish takes the number after it). Versions
written as plain copies (before blobs) read the same.

Readers take no lock: both the version directories and the pointer appear atomically.
`gc` (`users.gc`) removes versions beyond the retention and the blobs no version links.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import stat
import sys
import threading
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from codegen.loader import TamperedFile, keep_code, load_package, module_name_for, prune_code, unload_package
from factlog import durable as fsio
from factlog import limits
from factlog.errors import InputError, NotFound
from factlog.model import Fact, check_user_id
from users.blobs import BlobStamp, BlobWriter, durable, write_unsynced
from users.gc import GcReport, check_keep, collect, doomed
from users.integrity import (
    CHECKED,
    FILE_NAME,
    MANIFEST_FILE,
    META_FILE,
    Hashes,
    IntegrityError,
    check_version,
    file_hashes,
    package_digest,
    tampered,
    version_problem,
)
from users.manifest_parts import ChangedPart, PartCache, read_manifest, split, stored_parts
from users.piece_store import piece_store, tree_reader
from users.versions import (
    VERSION_NAME,
    PublishMeta,
    VersionInfo,
    check_version_number,
    version_name,
)

if TYPE_CHECKING:  # the manifest's code loads where a manifest is built or published
    from concurrent.futures import Future

    from codegen.manifest import Manifest, Part
    from users.events import VersionEvent
    from users.manifest_parts import Walks

MAX_FILES = limits.MAX_FILES  # the validator's caps (one owner: factlog.limits)
MAX_TOTAL_BYTES = limits.MAX_PACKAGE_BYTES
CODE_SLACK = 64  # compiled-code entries a user's code folder keeps beyond twice a version's files
CURRENT_FILE = "current"
EVENTS_FILE = "events.jsonl"
LOCK_FILE = ".lock"
FORGET_PREFIX = fsio.TEMP_PREFIX + "forget-"
FORGET_LOCK = ".forget.lock"  # in the store's root: shared by builders, exclusive for forget
EPOCH_FILE = ".epoch"  # in the store's root: a new random token on every forget


FileStamp = tuple[int, int, int, int, int]


def file_stamp(st: os.stat_result) -> FileStamp:
    """A file's identity: device, inode, size, mtime and ctime (ns). The kernel sets the
    ctime on every write, rename or `utime`, so content does not change under a same stamp."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class ForgottenMeanwhile(NotFound):
    """The user was forgotten after a checkpoint read their log: it must not publish."""


class EncodedFiles(Mapping[str, bytes]):
    """A package's files as UTF-8 bytes, each encoded when first asked for: a version
    reads the bytes only of files whose blobs it writes or compares."""

    def __init__(self, texts: Mapping[str, str], encoded: dict[str, bytes]) -> None:
        self._texts = texts
        self._bytes = encoded

    def __getitem__(self, name: str) -> bytes:
        data = self._bytes.get(name)
        if data is None:
            data = self._bytes[name] = self._texts[name].encode("utf-8")
        return data

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def check_files(files: Mapping[str, str], sizes: dict[str, tuple[str, int]] | None = None) -> EncodedFiles:
    """Refuse anything but a flat package of `[a-z_][a-z0-9_]*.py` files with `__init__.py`.
    An ASCII text's size in bytes is its length: only other texts are encoded here, unless
    `sizes` (name -> a text and its size, kept by the caller across calls) holds this very
    text object (a text once encoded is valid UTF-8; it is immutable)."""
    if not isinstance(files, Mapping) or not files:
        raise InputError("a package needs at least one file (__init__.py)")
    if len(files) > MAX_FILES:
        raise InputError(f"a package of {limits.package_size_problem(len(files), 0)}")
    encoded: dict[str, bytes] = {}
    total = 0
    for name, source in files.items():
        if not isinstance(name, str) or not FILE_NAME.fullmatch(name):
            raise InputError(
                f"file name {name!r} is not allowed: use [a-z_][a-z0-9_]*.py, no folders"
            )
        if not isinstance(source, str):
            raise InputError(f"the source of {name} must be a string")
        if source.isascii():
            total += len(source)
            continue
        known = sizes.get(name) if sizes is not None else None
        if known is not None and known[0] is source:
            total += known[1]
            continue
        try:
            encoded[name] = source.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"the source of {name} is not valid Unicode text") from None
        total += len(encoded[name])
        if sizes is not None:
            sizes[name] = (source, len(encoded[name]))
    if sizes is not None:
        for name in [name for name in sizes if name not in files]:
            del sizes[name]
    if "__init__.py" not in files:
        raise InputError("a package must include __init__.py")
    oversize = limits.package_size_problem(len(files), total)
    if oversize is not None:
        raise InputError(f"a package of {oversize}")
    return EncodedFiles(dict(files), encoded)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class VersionStore:
    """Immutable, numbered versions of each user's generated package under `root`."""

    def __init__(self, root: Path, *, code_dir: Path | None = None) -> None:
        """`code_dir`: where imported versions keep their compiled code (per user, by source
        hash; `codegen.loader.keep_code`), so another process does not compile them again."""
        self.root = Path(root)
        self.code_dir = code_dir
        # The modules this process validated and published (key: version folder and files
        # hash), so the version is not imported a second time; and manifests read or built,
        # by version folder, files hash and the manifest file's identity.
        self._modules: dict[tuple[str, str], ModuleType] = {}
        self._manifests: dict[tuple[str, str], tuple[object, Manifest]] = {}
        self._lock = threading.Lock()
        self._parts: dict[str, PartCache] = {}  # per user: the manifest parts published last
        self._blobs: dict[str, dict[str, BlobStamp]] = {}  # per user: blobs checked, by sha256
        self._sizes: dict[str, dict[str, tuple[str, int]]] = {}  # per user: the last texts' sizes (`check_files`)
        self.blob_puts = 0  # blobs handed to `BlobWriter.put` by publishes (written or compared)
        self.loads = 0  # versions imported by `load` (not those handed over at publish)
        # Versions read, by `meta.json` path: the file's identity when parsed and the result
        # (see `_read_info`), so a read costs an open and an fstat while nothing changed.
        self._infos: dict[str, tuple[FileStamp, VersionInfo]] = {}

    # -- paths ---------------------------------------------------------------------------

    def user_dir(self, user: str) -> Path:
        """The user's folder; the id is checked and the path must stay directly under root."""
        check_user_id(user)  # no separator, no `..`: only a symlink could lead elsewhere
        path = self.root / user
        try:
            link = stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:  # missing (or unreadable: refused where it is used)
            link = False
        if link:
            raise InputError(f"user folder for {user!r} would leave the store at {self.root.resolve()}")
        return path

    @contextlib.contextmanager
    def _locked(self, user: str) -> Iterator[Path]:
        """Hold the user's exclusive lock. Retries if `forget` moved the folder meanwhile."""
        folder = self.user_dir(user)
        while True:
            if not folder.is_dir():
                self.root.mkdir(parents=True, exist_ok=True)
                folder.mkdir(exist_ok=True)
                fsio.fsync_dir(self.root)  # the new user folder itself must survive a crash
            lock = folder / LOCK_FILE
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
            except FileNotFoundError:  # the folder was just moved away by `forget`
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    same = os.stat(lock).st_ino == os.fstat(fd).st_ino
                except FileNotFoundError:
                    same = False
                if same:
                    yield folder
                    return
            finally:
                os.close(fd)  # closing releases the lock

    # -- forget against builders --------------------------------------------------------

    @contextlib.contextmanager
    def in_use(self) -> Iterator[None]:
        """Hold while reading a user's log and writing what is derived from it (a version,
        alert state, index rows): `forget` waits until every holder is done, and nothing
        starts while it runs, so nothing derived from a forgotten log survives it."""
        with self._forget_lock(fcntl.LOCK_SH):
            yield

    @contextlib.contextmanager
    def forgetting(self) -> Iterator[None]:
        """Hold (exclusively) for the whole of erasing a user; see `in_use`."""
        with self._forget_lock(fcntl.LOCK_EX):
            yield

    @contextlib.contextmanager
    def _forget_lock(self, mode: int) -> Iterator[None]:
        path = self.root / FORGET_LOCK
        fd: int | None = None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:  # a read-only workspace: a lock can still be taken on an existing file
            with contextlib.suppress(OSError):
                fd = os.open(path, os.O_RDONLY)
        if fd is None:  # nothing can be forgotten (or published) where this cannot be created
            yield
            return
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def epoch(self) -> str:
        """A token that every `forget` (of any user) replaces. A checkpoint reads it before
        the log and publishes only if it is unchanged, checked under the user's lock."""
        try:
            return (self.root / EPOCH_FILE).read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return ""

    # -- reading -------------------------------------------------------------------------

    def users(self) -> list[str]:
        """Users with at least one published version."""
        if not self.root.is_dir():
            return []
        found = []
        for entry in self.root.iterdir():
            if entry.name.startswith(".") or not entry.is_dir() or entry.is_symlink():
                continue
            try:
                check_user_id(entry.name)
            except InputError:
                continue
            if any(VERSION_NAME.fullmatch(child.name) for child in entry.iterdir()):
                found.append(entry.name)
        return sorted(found)

    def _numbers(self, folder: Path) -> list[int]:
        if not folder.is_dir():
            return []
        numbers = []
        for entry in folder.iterdir():
            match = VERSION_NAME.fullmatch(entry.name)
            if match and (entry / META_FILE).is_file():
                numbers.append(int(match.group(1)))
        return sorted(numbers)

    def _read_info(self, user: str, path: Path) -> VersionInfo:
        """The version in folder `path`, from its `meta.json`: parsed once per process while
        the file keeps its identity (device, inode, size, mtime and ctime). A version folder
        is immutable and replaced only by a new folder, so its metadata's identity changes
        whenever its content does (an edit, a forget and a re-created user): then it is read
        and parsed again. The identity is taken before the content is read, so a change
        between the two leaves a stale identity, read again next time, never stale content
        under a new identity. NotFound when the file is gone."""
        meta = path / META_FILE
        key = str(meta)
        try:
            st = os.stat(meta)
            if not stat.S_ISREG(st.st_mode):
                raise NotFound(f"user {user!r} has no version {path.name}")
            stamp = file_stamp(st)
            with self._lock:
                cached = self._infos.get(key)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            with open(meta, "rb", buffering=0) as handle:
                raw = handle.readall()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise NotFound(f"user {user!r} has no version {path.name}") from None
        except OSError as exc:
            raise InputError(f"cannot read {meta}: {exc.strerror}") from None
        info = self._parse_info(user, path, raw)
        with self._lock:
            self._infos[key] = (stamp, info)
        return info

    def _known_info(self, info: VersionInfo) -> None:
        """Note the version just written (its `meta.json` is `info.meta_bytes()`, which reads
        back equal), so the next `current()` does not parse it again."""
        meta = info.path / META_FILE
        with contextlib.suppress(OSError):
            stamp = file_stamp(os.stat(meta))
            with self._lock:
                self._infos[str(meta)] = (stamp, info)

    def _parse_info(self, user: str, path: Path, raw: bytes) -> VersionInfo:
        try:
            data = json.loads(raw.decode("utf-8"))
        except ValueError as exc:
            raise InputError(f"cannot read {path / META_FILE}: {exc}") from None
        if not isinstance(data, dict):
            raise InputError(f"{path / META_FILE} does not hold a JSON object")
        return VersionInfo.from_meta_json(user, path, data)

    def get(self, user: str, number: int | str) -> VersionInfo:
        folder = self.user_dir(user)
        path = folder / version_name(check_version_number(number))
        try:
            return self._read_info(user, path)
        except NotFound:
            raise NotFound(f"user {user!r} has no version {number}") from None

    def history(self, user: str) -> list[VersionInfo]:
        """All versions, oldest first."""
        folder = self.user_dir(user)
        found = []
        for number in self._numbers(folder):
            with contextlib.suppress(NotFound):  # a version erased meanwhile (by a forget)
                found.append(self._read_info(user, folder / version_name(number)))
        return found

    def _current_number(self, folder: Path) -> int | None:
        try:
            with open(folder / CURRENT_FILE, "rb", buffering=0) as handle:
                raw = handle.readall()
        except FileNotFoundError:
            return None
        try:
            text = raw.decode("ascii").strip()
        except UnicodeDecodeError:
            text = repr(raw)
        return check_version_number(text)

    def current(self, user: str) -> VersionInfo | None:
        """The current version: the pointer is read (a few bytes) on every call, the version's
        metadata only when its identity changed (`_read_info`), so a publish or rollback by any
        process is seen by the next call, at the cost of an open and an fstat."""
        folder = self.user_dir(user)
        number = self._current_number(folder)
        if number is None:
            return None
        try:
            return self._read_info(user, folder / version_name(number))
        except NotFound:
            raise NotFound(f"user {user!r} has no version {number}") from None

    def events(self, user: str) -> list[VersionEvent]:
        """The publish / rollback log, oldest first (a torn last line from a crash is skipped)."""
        path = self.user_dir(user) / EVENTS_FILE
        if not path.is_file():
            return []
        from users.events import read_events  # pydantic: kept off the paths that do not need it

        return read_events(path.read_text(encoding="utf-8"), source=str(path))

    def files(self, user: str, number: int | str) -> dict[str, str]:
        """The package's source files (without meta.json)."""
        info = self.get(user, number)
        return {
            entry.name: entry.read_text(encoding="utf-8")
            for entry in sorted(info.path.iterdir())
            if entry.is_file() and FILE_NAME.fullmatch(entry.name)
        }

    def verify(self, user: str) -> list[tuple[int, str]]:
        """Re-hash every stored version's files, `manifest.json` and manifest parts against
        its meta; (version, problem) per mismatch. A changed blob is named for every version
        linking it; each inode is read once while unchanged."""
        problems = []
        hashes: Hashes = {}  # a file linked from many versions is read once
        for info in self.history(user):
            problem = version_problem(info, use_cache=False, hashes=hashes)
            if problem is not None:
                problems.append((info.number, problem))
        return problems

    def check(self, info: VersionInfo) -> None:
        """Refuse (`IntegrityError`) a version whose folder is not as published; cheap when
        nothing changed since the last check in this process, and for the files and manifest
        rows this process wrote or checked and that are unchanged since (see `users.integrity`)."""
        check_version(info, self._verified(info.user))

    def load(self, user: str, number: int | str | None = None) -> ModuleType:
        """Import a version (the current one by default) under a name unique to (user, version).

        Versions are published only after validation, so importing them is allowed, once
        their files are checked against the hashes recorded at publishing (`check`); the
        import itself compiles only bytes that match those hashes. No bytecode is written:
        the version folder stays exactly as published.
        """
        info = self.current(user) if number is None else self.get(user, number)
        if info is None:
            raise NotFound(f"user {user!r} has no published version")
        return self.load_info(info)

    def load_info(self, info: VersionInfo) -> ModuleType:
        """`load` of a version already read: the module this process published it with,
        if any (checked like an import would be), else an import of its folder."""
        self.check(info)
        with self._lock:
            kept = self._modules.get((str(info.path), info.files_sha256))
        if kept is not None:
            return kept
        saved = sys.dont_write_bytecode
        sys.dont_write_bytecode = True
        code = self.code_folder(info.user)
        if code is not None:
            keep_code(info.path, code)
        try:
            self.loads += 1
            module = load_package(info.path, module_name_for(info.user, info.name), info.file_sha256 or None)
        except TamperedFile as exc:
            raise tampered(info, exc.file) from None
        finally:
            sys.dont_write_bytecode = saved
            if code is not None:
                keep_code(info.path, None)
        if code is not None:  # code of older versions goes once it outnumbers this one's
            prune_code(code, set(info.file_sha256.values()), 2 * len(info.file_sha256) + CODE_SLACK)
        return module

    def code_folder(self, user: str) -> Path | None:
        """Where the user's compiled code is kept (None: nowhere); erased by `forget`."""
        return None if self.code_dir is None else self.code_dir / module_name_for(user, "code")

    def manifest(self, user: str, number: int | str,
                 facts: Callable[[], Mapping[int, Fact]] | None = None) -> Manifest:
        """The version's manifest: `manifest.json`, checked against its hash in `meta.json`
        and read once per process (while the file's identity stays the same). A version
        written before manifests has none: it is built once (per process) by importing the
        version and walking it, with the entity ids of its metadata, else of `facts`."""
        return self.manifest_of(self.get(user, number), facts)

    def manifest_of(self, info: VersionInfo, facts: Callable[[], Mapping[int, Fact]] | None = None) -> Manifest:
        """`manifest` of a version already read. The version is checked first (`check`):
        what is read of a tampered version is refused like an import of it."""
        self.check(info)
        key = (str(info.path), info.files_sha256)
        path = info.path / MANIFEST_FILE
        if info.manifest_sha256 is None:
            stamp: object = "built"
        else:
            try:
                st = path.stat()
            except OSError as exc:
                raise _manifest_problem(info, f"{MANIFEST_FILE} cannot be read ({exc.strerror})") from None
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        with self._lock:
            cached = self._manifests.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        manifest = self._read_manifest(info, path) if info.manifest_sha256 is not None \
            else self._build_manifest(info, facts)
        with self._lock:
            self._manifests[key] = (stamp, manifest)
        return manifest

    def summary(self, info: VersionInfo) -> tuple[dict[str, int], dict[int, str]]:
        """A version's record counts (attribute -> records) and quarantined facts (id ->
        reason): from its manifest, or from the metadata of a version written before
        manifests (which recorded both), so listing history imports nothing."""
        if info.manifest_sha256 is None:
            return dict(info.meta.record_counts), dict(info.meta.quarantined)
        manifest = self.manifest_of(info)
        return manifest.record_counts(), dict(manifest.quarantined)

    def _read_manifest(self, info: VersionInfo, path: Path) -> Manifest:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise _manifest_problem(info, f"{MANIFEST_FILE} cannot be read ({exc.strerror})") from None
        if hashlib.sha256(data).hexdigest() != info.manifest_sha256:
            raise _manifest_problem(info, f"{MANIFEST_FILE} changed since it was published")
        try:
            with tree_reader(info.path.parent) as blob:
                return read_manifest(data, blob, str(path))
        except ChangedPart as exc:
            raise _manifest_problem(info, str(exc)) from None

    def _build_manifest(self, info: VersionInfo, facts: Callable[[], Mapping[int, Fact]] | None) -> Manifest:
        """A version published before manifests: import it and walk it (the same walk)."""
        from codegen.manifest import build_manifest, identity_from_facts, identity_from_map

        if info.meta.entities:
            identity = identity_from_map(info.meta.entities)
        elif facts is not None:
            identity = identity_from_facts(facts())
        else:
            identity = None
        module = self.load_info(info)
        return build_manifest(vars(module), identity=identity, quarantined=info.meta.quarantined)

    # -- writing -------------------------------------------------------------------------

    def publish(self, user: str, files: Mapping[str, str], meta: PublishMeta, *,
                manifest: Manifest | None = None) -> VersionInfo:
        """Store a validated package as the user's next version and make it current.

        Input is checked before anything is written. If a step fails after the version
        directory appeared (fsync, pointer, event log), the error propagates and `current()`
        tells which version is current.
        """
        info = self._publish(user, files, meta, only_if_newer=False, manifest=manifest)
        assert info is not None
        return info

    def publish_if_newer(self, user: str, files: Mapping[str, str], meta: PublishMeta, *,
                         manifest: Manifest | None = None, module: ModuleType | None = None,
                         epoch: str | None = None, walks: Walks | None = None,
                         hashes: Mapping[str, str] | None = None) -> VersionInfo | None:
        """As `publish`, unless the current version already covers `meta.log_position` (a
        concurrent checkpoint got there first): then nothing is written and None returned, so
        the current version never moves back in the log. With `epoch` (read by the caller
        before it read the log), raises `ForgottenMeanwhile` if a forget ran since.

        `manifest` (the validator's) is stored as the version's `manifest.json`; `module`,
        the module the validator loaded from exactly these files, becomes the version's
        loaded module in this process (`load` returns it instead of importing again).
        `walks` (the validator's walk of each part, `ValidationSuccess.parts`) are stored
        with the manifest's parts (`stored_parts` reads them back), and let parts that did
        not change cost nothing (`users.manifest_parts.PartCache`). `hashes`: the sha256
        of each file's UTF-8 text, as the validator computed them for exactly these files
        (`ValidationSuccess.hashes`), so they are not computed again."""
        info = self._publish(user, files, meta, only_if_newer=True, epoch=epoch, manifest=manifest, walks=walks,
                             hashes=hashes)
        if info is not None and module is not None:
            with self._lock:
                self._modules[(str(info.path), info.files_sha256)] = module
        if info is not None and manifest is not None:
            st = (info.path / MANIFEST_FILE).stat()
            with self._lock:
                self._manifests[(str(info.path), info.files_sha256)] = (
                    (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns), manifest)
        return info

    def _publish(self, user: str, files: Mapping[str, str], meta: PublishMeta,
                 only_if_newer: bool, epoch: str | None = None,
                 manifest: Manifest | None = None, walks: Walks | None = None,
                 hashes: Mapping[str, str] | None = None) -> VersionInfo | None:
        self.user_dir(user)
        with self._lock:  # a copy: publishers of one user may check their files at once
            sizes = dict(self._sizes.get(user, {}))
        encoded = check_files(files, sizes)
        with self._lock:
            self._sizes[user] = sizes
        if not isinstance(meta, PublishMeta):
            raise InputError("meta must be a PublishMeta")
        from codegen.manifest import Manifest

        if manifest is not None and not isinstance(manifest, Manifest):
            raise InputError("manifest must be a Manifest")
        with self._locked(user) as folder:
            if epoch is not None and self.epoch() != epoch:
                if not self._numbers(folder):
                    self._erase(folder)  # the folder `_locked` made for a user now forgotten
                raise ForgottenMeanwhile(f"user {user!r} was forgotten while this version was "
                                         "being built; nothing was published")
            current = self.current(user)
            if only_if_newer and current is not None and current.meta.log_position >= meta.log_position:
                return None
            cache = self._part_cache(user)
            if cache.base != _base(current):  # what it knows stored is another version's tree
                cache.forget_stored()
            manifest_bytes, parts = (None, {}) if manifest is None else split(manifest, cache, walks)
            fsio.remove_temp_entries(folder)
            number = self._next_number(user, folder)
            file_sha256 = dict(sorted(hashes.items())) if hashes is not None and hashes.keys() == encoded.keys() \
                else file_hashes(encoded)
            info = VersionInfo(
                user=user,
                number=number,
                path=folder / version_name(number),
                created_at=_now(),
                parent=None if current is None else current.number,
                files_sha256=package_digest(file_sha256),
                meta=meta,
                file_sha256=file_sha256,
                manifest_sha256=None if manifest_bytes is None else hashlib.sha256(manifest_bytes).hexdigest(),
            )
            pointer = self._write_version(folder, info, encoded, manifest_bytes, parts, self._verified(user))
            self._known_info(info)
            if manifest_bytes is not None:
                cache.published(_base(info))
            try:
                self._commit(folder, "publish", info, info.parent, info.created_at, encoded, manifest_bytes)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(pointer)
                raise
            _point(folder, pointer)
            self._log(folder, "publish", info.number, info.parent, info.created_at)
        return info

    def _part_cache(self, user: str) -> PartCache:
        with self._lock:
            return self._parts.setdefault(user, PartCache())

    def _verified(self, user: str) -> dict[str, BlobStamp]:
        with self._lock:
            return self._blobs.setdefault(user, {})

    def stored_parts(self, info: VersionInfo | None, keys: Collection[object]) -> dict[object, Part]:
        """The walks the manifest of version `info` (the one a checkpoint builds on) keeps
        under these part keys (see `codegen.validate.Validator.validate`, `stored_parts`):
        those of the version this process published last are at hand; otherwise the
        manifest's part blobs are read and checked. A part that cannot be read whole is
        left out (walked again)."""
        if info is None or info.manifest_sha256 is None:
            return {}
        base = _base(info)
        cache = self._part_cache(info.user)
        wanted = [key for key in keys if isinstance(key, str)]
        if cache.base != base or any(key in cache.all_keys and key not in cache.keys for key in wanted):
            try:  # the walks are checked against hashes, whatever the version's files hold
                data = (info.path / MANIFEST_FILE).read_bytes()
            except OSError:
                return {}
            if hashlib.sha256(data).hexdigest() != info.manifest_sha256:
                return {}
            try:
                with tree_reader(info.path.parent) as blob:
                    stored, found, every = stored_parts(data, blob, str(info.path / MANIFEST_FILE), wanted)
            except InputError:
                return {}
            cache.known(base, stored, found, every)
        return {key: cache.keys[key][1] for key in wanted if key in cache.keys}

    def _write_version(self, folder: Path, info: VersionInfo, encoded: Mapping[str, bytes],
                       manifest: bytes | None = None, tree: Mapping[str, bytes] | None = None,
                       verified: dict[str, BlobStamp] | None = None) -> str:
        """Write the version's blobs, then its folder of links to them plus its own
        `meta.json`, under a temp name renamed into place (see `users.blobs`); returns the
        durable temp file holding the new `current` pointer, for `_point`. The blobs of a
        manifest's tree (`tree`: sha256 -> bytes) go to the user's piece store
        (`users.piece_store`) in one transaction, beside the files' writes and flushes. A
        file's blob this process checked before and found unchanged (`verified`, see
        `BlobWriter.kept`) is linked without being read again.

        Order (each step durable before the next): the new blobs, `meta.json` and the
        pointer's temp file, fsynced in one concurrent batch; the blobs renamed into place
        and linked into the temp folder; the blob folder and the temp folder fsynced; the
        tree's transaction committed (it runs beside all of these); the rename of the temp
        folder and an fsync of the user folder."""
        contents: dict[str, Callable[[], bytes]] = {name: partial(encoded.__getitem__, name) for name in encoded}
        if manifest is not None:
            contents[MANIFEST_FILE] = partial(bytes, manifest)
        blobs = BlobWriter(folder, verified)
        from concurrent.futures import ThreadPoolExecutor  # kept off the reading paths

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pieces") as pool:
            pieces = pool.submit(piece_store(folder).put, tree) if tree else None
            try:
                return self._write_files(folder, info, contents, blobs, verified, pieces)
            finally:
                if pieces is not None:
                    with contextlib.suppress(BaseException):  # `_write_files` waited for it unless it failed
                        pieces.result()
                self.blob_puts += len(tree or ())

    def _write_files(self, folder: Path, info: VersionInfo, contents: Mapping[str, Callable[[], bytes]],
                     blobs: BlobWriter, verified: dict[str, BlobStamp] | None, pieces: Future[int] | None) -> str:
        """`_write_version`'s files; the version appears once `pieces` (the tree's
        transaction, running meanwhile) has committed."""
        known = {**info.file_sha256, **({MANIFEST_FILE: info.manifest_sha256} if info.manifest_sha256 else {})}
        hashes: dict[str, str] = {}
        for name, data in sorted(contents.items()):
            sha = known.get(name) or hashlib.sha256(data()).hexdigest()
            hashes[name] = sha if blobs.kept(sha) else blobs.put(data(), sha)
        self.blob_puts += blobs.puts
        temp = folder / f"{fsio.TEMP_PREFIX}{info.name}-{uuid.uuid4().hex}"
        pointer = os.path.join(folder, f"{fsio.TEMP_PREFIX}{CURRENT_FILE}-{uuid.uuid4().hex}")
        try:
            temp.mkdir()
            write_unsynced(temp / META_FILE, info.meta_bytes(), fsio.READ_ONLY_FILE)
            write_unsynced(pointer, (info.name + "\n").encode("ascii"), 0o644)
            blobs.settle(also=(temp / META_FILE, pointer))  # every blob is durable before a version links it
            for name, sha in hashes.items():
                blobs.link(sha, os.path.join(temp, name), contents[name])
            if verified is not None:  # this version's blobs, as they are once linked
                kept = set(hashes.values())
                for sha in [sha for sha in verified if sha not in kept]:
                    del verified[sha]
                for sha in kept:
                    blobs.seen(sha)
            os.chmod(temp, fsio.READ_ONLY_DIR)
            durable([*blobs.folders(), temp])
            if pieces is not None:
                pieces.result()  # the tree's blobs are committed before the version naming them appears
            os.rename(temp, info.path)
        except BaseException:
            with contextlib.suppress(OSError):
                fsio.remove_tree(temp)
            with contextlib.suppress(OSError):
                os.unlink(pointer)
            raise
        try:
            fsio.fsync_dir(folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(pointer)
            raise
        return pointer

    def _next_number(self, user: str, folder: Path) -> int:
        """The number of the user's next version (called holding the user's lock): the one
        after the newest, so numbers are never reused."""
        return max(self._numbers(folder), default=0) + 1

    def _commit(self, folder: Path, action: Literal["publish", "rollback"], info: VersionInfo,
                previous: int | None, at: str, files: Mapping[str, bytes] | None = None,
                manifest: bytes | None = None) -> None:
        """Called holding the user's lock once a version is durable in its folder (publish)
        or chosen (rollback), just before `current` moves: a store shared by several machines
        records it there (`users.pg_versions`); raising leaves `current` where it was."""

    def _log(self, folder: Path, action: Literal["publish", "rollback"], version: int, previous: int | None,
             at: str) -> None:
        from users.events import VersionEvent

        event = VersionEvent(action=action, version=version, previous=previous, at=at)
        fsio.append_line(folder / EVENTS_FILE, event.line())

    def rollback(self, user: str, number: int | str) -> VersionInfo:
        """Make an existing version current again (recorded in events.jsonl).

        Numbers are never reused: the next publish still takes the number after the newest.
        """
        with self._locked(user) as folder:
            info = self.get(user, number)
            previous = self._current_number(folder)
            at = _now()
            self._commit(folder, "rollback", info, previous, at)
            fsio.replace_file(folder / CURRENT_FILE, (info.name + "\n").encode("ascii"))
            self._log(folder, "rollback", info.number, previous, at)
        return info

    def gc(self, user: str, keep: int | None = None) -> GcReport:
        """Remove the user's versions beyond the newest `keep` (None: keep all; the current
        one always stays), then every blob no version links and leftovers of interrupted
        writes (`users.gc`). Under the user's lock, so it never races a publish or rollback,
        and inside `in_use`, so a forget waits. A user without a folder has nothing to remove."""
        keep = check_keep(keep)
        with self.in_use():
            if not self.user_dir(user).is_dir():
                return GcReport(user, (), 0, 0, 0)
            with self._locked(user) as folder:
                remove = doomed(self._numbers(folder), self._current_number(folder), keep)
                self._drop(user, [folder / version_name(n) for n in remove])
                return collect(user, folder, remove)

    def _drop(self, user: str, paths: list[Path]) -> None:
        """Forget what this process holds of versions about to be removed."""
        names = {str(p) for p in paths}
        for path in paths:
            unload_package(module_name_for(user, path.name))
            CHECKED.drop_folder(str(path))
        with self._lock:
            for key in [k for k in self._modules if k[0] in names]:
                unload_package(self._modules.pop(key).__name__)
            for key in [k for k in self._manifests if k[0] in names]:
                del self._manifests[key]

    def forget(self, user: str) -> bool:
        """Erase the user's folder and unload their modules; False if there was nothing.

        The epoch changes first, under the user's lock, so a checkpoint that read the log
        before this forget cannot publish after it (callers hold `forgetting` as well, so
        such a checkpoint has normally finished before this runs).
        """
        existed = self.user_dir(user).exists()
        with self._locked(user) as folder:
            fsio.replace_file(self.root / EPOCH_FILE, (uuid.uuid4().hex + "\n").encode("ascii"))
            for number in self._numbers(folder):
                unload_package(module_name_for(user, version_name(number)))
            prefix = str(folder / "v")
            with self._lock:
                self._parts.pop(user, None)
                self._blobs.pop(user, None)
                self._sizes.pop(user, None)
                for key in [k for k in self._modules if k[0].startswith(prefix)]:
                    unload_package(self._modules.pop(key).__name__)
                for key in [k for k in self._manifests if k[0].startswith(prefix)]:
                    del self._manifests[key]
                for meta in [k for k in self._infos if k.startswith(prefix)]:
                    del self._infos[meta]
            self._erase(folder)
            code = self.code_folder(user)
            if code is not None and code.exists():  # after the versions: see `keep_code`
                fsio.remove_tree(code)
        return existed

    def _erase(self, folder: Path) -> None:
        """Move a user folder out of sight at once, then delete it (and any left by a crash)."""
        doomed = self.root / f"{FORGET_PREFIX}{uuid.uuid4().hex}"
        os.rename(folder, doomed)
        fsio.fsync_dir(self.root)
        for entry in self.root.iterdir():
            if entry.name.startswith(FORGET_PREFIX):
                fsio.remove_tree(entry)


def _point(folder: Path, pointer: str) -> None:
    """Make the durable temp file `pointer` the user's `current` (atomically), then durable."""
    try:
        os.replace(pointer, folder / CURRENT_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(pointer)
        raise
    fsio.fsync_dir(folder)


def _base(info: VersionInfo | None) -> object:
    """What names a version's manifest tree for `PartCache.base`: its folder and hash."""
    return None if info is None or info.manifest_sha256 is None else (str(info.path), info.manifest_sha256)


def _manifest_problem(info: VersionInfo, problem: str) -> IntegrityError:
    return IntegrityError(f"version {info.number} of {info.user} failed its integrity check: "
                          f"{problem}; run uac verify")

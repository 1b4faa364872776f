"""Content-addressed blobs of one user: each distinct file content stored once, read-only,
at `<user folder>/.blobs/<sha256>` (one flat folder: a publish fsyncs it once).

A version folder holds HARD LINKS to the blobs of its files, so it stays an ordinary
package folder (readers, the loader and integrity checks see plain files) and a blob's
link count says whether any version still uses it: a count of 1 is the store's own name
only, and `gc` removes such a blob unless a remaining version's manifest names it (the
parts of a manifest are named by hash, not linked: `users.manifest_parts`; they are rows of
the piece store, `users.piece_store`, or, as written before it, blobs here). Blobs
live inside the user folder: nothing is shared across users and `forget` erases them with
the folder.

Rules:
- A blob appears atomically (a temp file in the user folder, fsync, rename, fsync of its
  folder) and before any version that links it is renamed into place, so a crash leaves at most
  blobs no version links. The blobs of one version are written first and then fsynced all
  at once (`durable`: concurrent fsyncs, which the file system commits together), so a
  version costs about one disk flush however many blobs it adds.
- A blob is reused only when its bytes are exactly the bytes asked for: they are read and
  compared, or this process did so before (or wrote the blob) and the blob's identity
  (inode, size, mtime and ctime, which the kernel sets on every write) is unchanged since
  (`BlobWriter.kept`). A blob found changed is replaced by a fresh one, and the versions
  still linking the changed one fail their integrity check.
- Where a hard link is not possible (a file system without them, or a blob at its link
  limit that cannot be replaced), the version gets a plain read-only copy instead; the
  version reads the same, only the sharing is lost.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from factlog import durable as fsio

BLOBS_DIR = ".blobs"
_NO_LINKS = {errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EACCES}
SYNC_THREADS = 16  # fsyncs in flight at once (`durable`)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def blobs_dir(folder: Path) -> Path:
    """The blob store of the user whose folder is `folder`."""
    return folder / BLOBS_DIR


def blob_path(folder: Path, sha256: str) -> Path:
    return folder / BLOBS_DIR / sha256


BlobStamp = tuple[int, int, int, int, int]  # device, inode, size, mtime and ctime (ns)


def _stamp(path: str) -> BlobStamp | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _holds(path: str, data: bytes) -> bool:
    """Whether `path` is a regular file holding exactly `data` (size first, then the bytes)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def write_unsynced(path: Path | str, data: bytes, mode: int) -> None:
    """Create `path` (which must not exist) with `data` and set its mode; NOT fsynced: the
    caller makes it durable (`durable`) before anything names it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.chmod(path, mode)


def _fsync(path: Path | str) -> None:
    fd = os.open(path, os.O_RDONLY)  # a file or a folder; fsync needs no write access
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def durable(paths: Iterable[Path | str]) -> None:
    """fsync every file or folder in `paths`, concurrently (up to SYNC_THREADS at once):
    each is on disk when this returns; the file system commits the concurrent flushes
    together, so n files cost about one flush rather than n. The first failure is raised
    once every fsync has ended."""
    todo: Sequence[Path | str] = list(dict.fromkeys(paths))
    if len(todo) <= 1:
        for path in todo:
            _fsync(path)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(SYNC_THREADS, len(todo)), thread_name_prefix="fsync") as pool:
        for _ in pool.map(_fsync, todo):
            pass


class BlobWriter:
    """Puts the blobs of one version, then links them into its (temporary) folder.

    `put` writes what is missing under a temp name; `settle` makes them durable (with any
    other files the caller wrote, in one concurrent batch) and renames them into place;
    `folders` names the folders whose entries then need an fsync (the caller syncs them,
    with its own, before a version links the blobs; `sync` does both steps alone); `link`
    places a blob in the version folder. The caller holds the user's lock. (Paths are
    plain strings here: a version has hundreds of files.)"""

    def __init__(self, folder: Path, verified: dict[str, BlobStamp] | None = None) -> None:
        """`verified`: sha256 -> the identity of blobs whose bytes this process checked
        or wrote (kept by the caller across versions; `seen` updates it)."""
        self.folder = folder
        self.root = blobs_dir(folder)
        self._root = str(self.root)
        self._dirty: set[Path] = set()
        self._staged: dict[str, str] = {}  # blob path -> its temp file, written, not yet durable
        self.verified = {} if verified is None else verified
        self.written = 0  # blobs written (not found already stored)
        self.puts = 0  # calls of `put`

    def put(self, data: bytes, sha256: str | None = None) -> str:
        """Store `data` unless an identical blob exists; its sha256."""
        self.puts += 1
        sha256 = sha256 or digest(data)
        path = os.path.join(self._root, sha256)
        if path not in self._staged and not _holds(path, data):
            self._write(path, data)
        return sha256

    def kept(self, sha256: str) -> bool:
        """Whether the blob is as this process last checked or wrote it (`seen`): its
        identity is unchanged, so its bytes are, and `put` need not read them again."""
        known = self.verified.get(sha256)
        return known is not None and _stamp(os.path.join(self._root, sha256)) == known

    def seen(self, sha256: str) -> None:
        """Note the identity of a blob just put or found kept (after linking it: a link
        changes its ctime), for the next version's `kept`."""
        stamp = _stamp(os.path.join(self._root, sha256))
        if stamp is None:
            self.verified.pop(sha256, None)
        else:
            self.verified[sha256] = stamp

    def _write(self, path: str, data: bytes) -> None:
        """Write the blob's bytes under a temp name (cleaned like any temp entry) for `settle`."""
        if not self.root.is_dir():
            self.root.mkdir(exist_ok=True)
            self._dirty.add(self.folder)
        temp = os.path.join(self.folder, f"{fsio.TEMP_PREFIX}blob-{uuid.uuid4().hex}")
        try:
            write_unsynced(temp, data, fsio.READ_ONLY_FILE)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        self._staged[path] = temp
        self.written += 1

    def settle(self, also: Iterable[Path | str] = ()) -> None:
        """Make every blob written (and the files `also` names) durable, in one concurrent
        batch, then rename the blobs into place. Their folder's entries are not yet
        durable: see `folders`."""
        staged, self._staged = self._staged, {}
        try:
            durable([*staged.values(), *also])
            for path, temp in list(staged.items()):
                os.rename(temp, path)  # over a changed blob: versions linking it keep that inode
                del staged[path]
                self._dirty.add(self.root)
        except BaseException:
            for temp in staged.values():
                with contextlib.suppress(OSError):
                    os.unlink(temp)
            raise

    def folders(self) -> list[Path]:
        """The folders blobs (or the blob folder) were added to since the last call: fsync
        them before a version links the blobs."""
        dirty, self._dirty = sorted(self._dirty, key=lambda p: len(p.parts), reverse=True), set()
        return dirty

    def sync(self) -> None:
        """`settle`, then fsync the folders blobs (or the blob folder) were added to."""
        self.settle()
        durable(self.folders())

    def link(self, sha256: str, destination: str, data: Callable[[], bytes]) -> None:
        """Hard-link the blob at `destination` (a new name); a copy of `data()` where
        linking fails. A blob at the link limit is first replaced by a fresh inode of the
        same bytes (the versions linked to the full one keep it)."""
        path = os.path.join(self._root, sha256)
        for fresh in (False, True):
            try:
                os.link(path, destination)
                return
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
                if fresh or exc.errno != errno.EMLINK:
                    break
            self._write(path, data())
            self.sync()
        fsio.write_file(Path(destination), data(), fsio.READ_ONLY_FILE)


def blob_files(folder: Path) -> list[os.DirEntry[str]]:
    """Every stored blob of the user."""
    root = blobs_dir(folder)
    if not root.is_dir():
        return []
    with os.scandir(root) as found:
        return sorted(found, key=lambda e: e.name)

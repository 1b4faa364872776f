"""Where the blobs of a user's manifest trees live (`users.manifest_parts`: the part lists
and the pieces of records): content-addressed, each named by the sha256 of its bytes.

A full version has thousands of them (a piece holds 12 records), so they are rows of one
SQLite table in the user folder (`pieces.sqlite`), not files: a version stores its new
blobs in one transaction, made durable by one commit, however many there are.
`PieceStore` is what the version store asks of such a place (a server database can hold
the same table); `SqlitePieces` is the embedded one.

Rules:
- `put` stores a batch in one transaction and returns only once it is durable (rollback
  journal truncated and synced at commit, `synchronous=FULL`), so a version names its tree
  only after every blob of it is stored; a crash inside the transaction rolls it back
  whole (SQLite's journal, replayed by the next connection). A stored blob whose bytes
  differ from the bytes put under its name is replaced.
- Reading checks nothing itself: every reader checks each blob against its name
  (`users.manifest_parts`), so a changed row reads as a changed blob.
- Tree blobs written as files (`.blobs/<sha256>`, before this store) are read where the
  table has no row: `tree_reader` looks in both, the table first. `gc` removes rows and
  files that no remaining version's manifest names.
- Readers take no lock of ours: SQLite's own locks let a read see a commit whole or not
  at all; a busy database is waited for (`BUSY_MS`). A missing, empty or unreadable
  database reads as one without rows (every blob it should hold is then missing).
- A process remembers which rows it knows to hold their bytes (`CHECKED_ROWS`: rows it put,
  or read and checked) together with the identity of the database's files (device, inode,
  size, mtime and ctime of the database, its journal and its write-ahead log; the kernel
  sets the ctime on every write). While that identity is unchanged, or changed only by this
  process's own `put` (the identity before the write, taken under the write lock,
  matching the remembered one), those rows need not be read again; any other write
  to the files forgets them all. `uac verify` reads every row regardless.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from factlog.errors import InputError
from users.blobs import blobs_dir

PIECES_FILE = "pieces.sqlite"
PAGE_SIZE = 8192  # pieces of 0.1-3.5 KB (2.4 on average) never overflow a page; 16 KB wastes less, journals more
BUSY_MS = 60_000  # how long a reader or writer waits for another's lock

Blob = Callable[[str], bytes]  # sha256 -> the blob's bytes (OSError if it cannot be read)

_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)
_SCHEMA = "CREATE TABLE IF NOT EXISTS piece (sha BLOB PRIMARY KEY, data BLOB NOT NULL)"
_PUT = ("INSERT INTO piece (sha, data) VALUES (?, ?) "
        "ON CONFLICT (sha) DO UPDATE SET data = excluded.data WHERE data IS NOT excluded.data")


class PieceStore(Protocol):
    """A user's content-addressed tree blobs (sha256 hex -> bytes)."""

    def put(self, blobs: Mapping[str, bytes]) -> int:
        """Store every blob (replacing one stored with other bytes), durably, all or none;
        the number written."""
        ...

    def reader(self) -> contextlib.AbstractContextManager[Blob | None]:
        """A reader of stored blobs (`OSError` for a blob not stored), or None when the
        store holds nothing; one consistent view while the context lasts."""
        ...

    def sizes(self) -> dict[str, int]:
        """Every stored blob's name and size."""
        ...

    def remove(self, names: Collection[str]) -> None:
        """Remove these blobs (durably, all or none)."""
        ...


DbStamp = tuple[tuple[int, int, int, int, int] | None, ...]  # the database's, its journal's, its log's


def db_stamp(path: Path) -> DbStamp | None:
    """The identity of a database's files (None: no database); an absent journal or log is None."""
    found: list[tuple[int, int, int, int, int] | None] = []
    for name in (str(path), f"{path}-journal", f"{path}-wal"):
        try:
            st = os.lstat(name)
        except FileNotFoundError:
            if not found:
                return None
            found.append(None)
            continue
        except OSError:
            return None
        found.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(found)


class _CheckedRows:
    """Database path -> (the identity of its files, the rows known to hold the bytes their
    name hashes to while that identity lasts)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[DbStamp, set[str]]] = {}
        self._lock = threading.Lock()

    def rows(self, path: Path, stamp: DbStamp | None) -> frozenset[str]:
        """The rows known checked, if the files' identity is still `stamp`."""
        with self._lock:
            known = self._known.get(str(path))
            return frozenset(known[1]) if known is not None and stamp is not None and known[0] == stamp \
                else frozenset()

    def checked(self, path: Path, before: DbStamp | None, after: DbStamp | None, names: Collection[str]) -> None:
        """`names` were read and found to hold their bytes while the identity stayed `before`
        (== `after`): remember them (with what was known under that identity)."""
        if before is None or before != after:
            return
        with self._lock:
            known = self._known.get(str(path))
            if known is None or known[0] != before:
                known = self._known[str(path)] = (before, set())
            known[1].update(names)

    def wrote(self, path: Path, before: DbStamp | None, after: DbStamp | None, put: Collection[str] = ()) -> None:
        """This process committed a write (rows `put` now hold exactly their bytes) to files
        whose identity was `before` when its write lock was taken and `after` once it
        committed: what was known under `before` stays known. (None: forget the database.)"""
        with self._lock:
            known = self._known.pop(str(path), None)
            if after is None:
                return
            rows = known[1] if known is not None and before is not None and known[0] == before else set()
            rows.update(put)
            self._known[str(path)] = (after, rows)

    def clear(self) -> None:
        with self._lock:
            self._known.clear()


CHECKED_ROWS = _CheckedRows()


def _key(sha: str) -> bytes:
    if not _SHA256.fullmatch(sha):
        raise FileNotFoundError(f"{sha!r} is not a blob name")
    return bytes.fromhex(sha)


class SqlitePieces:
    """`PieceStore` as a table of `<user folder>/pieces.sqlite` (created by the first `put`).
    The caller of `put` and `remove` holds the user's lock; readers need none. A connection
    lives for one call (or one `reader` context): nothing is held across a fork or a forget."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / PIECES_FILE

    def _open(self, *, create: bool) -> sqlite3.Connection | None:
        """A connection, or None where there is no database (or, to read, no table)."""
        if not create and not self.path.is_file():
            return None
        uri = f"file:{self.path}?mode={'rwc' if create else 'rw'}"
        try:
            try:
                conn = sqlite3.connect(uri, uri=True, isolation_level=None)
            except sqlite3.OperationalError:
                if create:
                    raise
                conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            table = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'piece'").fetchone() is not None
            if create:
                conn.execute("PRAGMA journal_mode = TRUNCATE")  # a connection's own settings
                conn.execute("PRAGMA synchronous = FULL")
                if not table:  # a new (or empty) database: its page size and vacuum mode, then the table
                    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
                    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
                    conn.execute(_SCHEMA)
            elif not table:
                conn.close()
                return None
        except sqlite3.Error as exc:
            if create:
                raise InputError(f"{self.path}: cannot store manifest pieces ({exc})") from None
            return None
        return conn

    def put(self, blobs: Mapping[str, bytes]) -> int:
        if not blobs:
            return 0
        rows = [(_key(sha), data) for sha, data in blobs.items()]
        new = not self.path.exists()
        conn = self._open(create=True)
        assert conn is not None
        try:
            before = conn.total_changes
            conn.execute("BEGIN IMMEDIATE")
            locked = db_stamp(self.path)  # no other writer can commit from here to our commit
            conn.executemany(_PUT, rows)
            conn.execute("COMMIT")
            written = conn.total_changes - before
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            CHECKED_ROWS.wrote(self.path, None, None)
            raise InputError(f"{self.path}: cannot store manifest pieces ({exc})") from None
        finally:
            conn.close()
        CHECKED_ROWS.wrote(self.path, locked, db_stamp(self.path), put=blobs.keys())
        if new:  # the database's own name, before any version names what it holds
            from factlog.durable import fsync_dir

            fsync_dir(self.folder)
        return written

    @contextlib.contextmanager
    def reader(self) -> Iterator[Blob | None]:
        conn = self._open(create=False)
        if conn is None:
            yield None
            return
        try:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("BEGIN")  # one snapshot, one lock, for every blob read

            def read(sha: str) -> bytes:
                try:
                    row = conn.execute("SELECT data FROM piece WHERE sha = ?", (_key(sha),)).fetchone()
                except sqlite3.Error as exc:
                    raise OSError(f"{self.path}: {exc}") from None
                if row is None:
                    raise FileNotFoundError(sha)
                return bytes(row[0])

            yield read
        finally:
            conn.close()

    def sizes(self) -> dict[str, int]:
        conn = self._open(create=False)
        if conn is None:
            return {}
        try:
            return {bytes(sha).hex(): size for sha, size in conn.execute("SELECT sha, length(data) FROM piece")}
        except sqlite3.Error:
            return {}
        finally:
            conn.close()

    def remove(self, names: Collection[str]) -> None:
        if not names:
            return
        conn = self._open(create=True)
        assert conn is not None
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("DELETE FROM piece WHERE sha = ?", [(_key(sha),) for sha in names])
            conn.execute("COMMIT")
            conn.execute("PRAGMA incremental_vacuum")  # the freed pages go back to the file system
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise InputError(f"{self.path}: cannot remove manifest pieces ({exc})") from None
        finally:
            conn.close()
            CHECKED_ROWS.wrote(self.path, None, None)  # the vacuum writes after the commit: all is read again


def piece_store(folder: Path) -> PieceStore:
    """The tree blob store of the user whose folder is `folder`."""
    return SqlitePieces(folder)


@contextlib.contextmanager
def tree_reader(folder: Path, from_rows: set[str] | None = None) -> Iterator[Blob]:
    """Read the user's tree blobs by name: from the store, else from `.blobs/<sha256>` (tree
    blobs written as files); `OSError` where neither holds it. `from_rows` collects the
    names read from the store's rows."""
    files = blobs_dir(folder)

    def from_file(sha: str) -> bytes:
        _key(sha)  # a name, not a path
        return (files / sha).read_bytes()

    with piece_store(folder).reader() as stored:
        if stored is None:
            yield from_file
            return

        def read(sha: str) -> bytes:
            try:
                data = stored(sha)
            except FileNotFoundError:
                return from_file(sha)
            if from_rows is not None:
                from_rows.add(sha)
            return data

        yield read

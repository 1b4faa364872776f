"""Versions kept in PostgreSQL, so that any machine can load any user's current module.

PostgreSQL holds what is published (schema: `users/pg_sql/`, component `versions`):

    version_blobs     (user_id, sha256) -> bytes: the files, manifests and manifest trees
    versions          (user_id, number): meta.json as written, files name -> sha256, the
                      manifest's hash and its tree's blobs, the log position
    version_pointers  user_id -> the current version's number
    version_events    the publish / rollback lines (`users.events`)
    version_epoch     one token, replaced by every forget (`VersionStore.epoch`)
    alert_states      each user's alert state (`constraints.pg_alert_state`)

The home's own version store (`users.store.VersionStore`, `<home>/users/`) is this
machine's cache of it: a version is materialised there, by the same atomic writer a local
publish uses, from blobs whose sha256 is checked first; the loader then imports exactly the
bytes whose hashes the version records, as for any local version. A cached version whose
files were changed or lost fails that check (`check`) and is written again from PostgreSQL
(its folder removed and rewritten; a changed blob is replaced, never reused), so a tampered
cache is never imported. A cached version that PostgreSQL does not hold, or holds with
another identity (created at, files hash: a forget and a re-created user), is removed.

Rules:
- One writer at a time per user across machines: every publish, rollback and forget holds
  a transaction-level advisory lock on the user (besides the home's own lock) from before
  it reads the pointer until it commits. A publish then brings the cache in line with
  PostgreSQL (its current version materialised) and applies the local rules unchanged: it
  is refused when the current version already covers its log position (so one publish per
  log position, whichever machine got there first), and takes the number after PostgreSQL's
  newest. The version's blobs (only those PostgreSQL lacks), its row, the pointer and the
  event are written in one transaction, committed before the home's `current` moves; a
  failure leaves PostgreSQL as it was, and what the cache wrote is removed by the next sync.
- Readers read the pointer (one query) and use the cached version when it is the same one.
- `forget` deletes the user's rows (versions, blobs, pointer, events, alert state) and
  replaces the epoch in one transaction, then erases the cache.
- `gc` is refused: removing versions from PostgreSQL is not implemented yet.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from factlog import durable as fsio
from factlog.errors import InputError, NotFound
from factlog.model import check_user_id
from users.gc import GcReport
from users.integrity import MANIFEST_FILE, IntegrityError, package_digest
from users.manifest_parts import referenced
from users.piece_store import tree_reader
from users.store import CURRENT_FILE, VersionStore
from users.versions import VersionInfo, check_version_number, version_name

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg_pool import ConnectionPool

    from users.events import VersionEvent

COMPONENT = "versions"
SQL_FOLDER = Path(__file__).resolve().parent / "pg_sql"
VERSION_LOCK = 0x75616302  # pg_advisory_xact_lock(VERSION_LOCK, hashtext(user)): one writer per user
ALERT_LOCK = 0x75616303  # the same for a user's alert state (`constraints.pg_alert_state`)

Row = tuple[int, str, str, str | None]  # number, created_at, files_sha256, manifest_sha256: a version's identity
IDENTITY = "number, created_at, files_sha256, manifest_sha256"


def open_versions(url: str, root: Path, *, code_dir: Path | None = None) -> PgVersionStore:
    """The version store on the PostgreSQL database `url`, cached under `root` (the home's
    `users/` folder); the schema is brought up to date first."""
    from factlog.pg import migrate, open_pool

    pool = open_pool(url, name="uac-versions")
    try:
        migrate(pool, COMPONENT, SQL_FOLDER)
    except BaseException:
        pool.close()
        raise
    return PgVersionStore(root, pool, code_dir=code_dir, owns_pool=True)


def _row(found: tuple[Any, ...]) -> Row:
    return int(found[0]), str(found[1]), str(found[2]), None if found[3] is None else str(found[3])


@contextlib.contextmanager
def connection(pool: ConnectionPool) -> Iterator[Connection[Any]]:
    """A connection of `pool` (committed on exit, rolled back on an error); the server
    unreachable or lost meanwhile is `Unavailable` (one line; nothing was committed)."""
    import psycopg
    from psycopg_pool import PoolTimeout

    from factlog.pg import Unavailable, first_line

    try:
        with pool.connection() as conn:
            yield conn
    except (psycopg.OperationalError, PoolTimeout) as exc:
        raise Unavailable(f"PostgreSQL is unavailable: {first_line(exc)}") from None


def lock_user(conn: Connection[Any], key: int, user: str) -> None:
    """Take the transaction-level advisory lock `key` on `user` (released at commit)."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (key, user))


class PgVersionStore(VersionStore):
    """`VersionStore` whose versions live in PostgreSQL (`pool`), cached under `root`."""

    def __init__(self, root: Path, pool: ConnectionPool, *, code_dir: Path | None = None,
                 owns_pool: bool = False) -> None:
        super().__init__(root, code_dir=code_dir)
        self.pool = pool
        self._owns_pool = owns_pool
        self._held = threading.local()  # per thread: user -> the connection holding their lock
        self.fetched = 0  # versions materialised from PostgreSQL into the cache

    def close(self) -> None:
        if self._owns_pool:
            self.pool.close()

    # -- the user's lock, across machines ------------------------------------------------

    def _holding(self, user: str) -> Connection[Any] | None:
        held: dict[str, Connection[Any]] = getattr(self._held, "users", {})
        return held.get(user)

    @contextlib.contextmanager
    def _locked(self, user: str) -> Iterator[Path]:
        """The home's lock on the user, and PostgreSQL's; the cache brought in line with
        PostgreSQL (stale versions removed, the current one materialised) before yielding.
        The transaction commits on exit, unless `_commit` already did."""
        with super()._locked(user) as folder, connection(self.pool) as conn:
            lock_user(conn, VERSION_LOCK, user)
            self._sync(user, folder, conn)
            held: dict[str, Connection[Any]] = self._held.__dict__.setdefault("users", {})
            held[user] = conn
            try:
                yield folder
            finally:
                del held[user]

    def _next_number(self, user: str, folder: Path) -> int:
        conn = self._holding(user)
        assert conn is not None
        row = conn.execute("SELECT COALESCE(MAX(number), 0) FROM versions WHERE user_id = %s", (user,)).fetchone()
        newest = 0 if row is None else int(row[0])
        return max(newest, super()._next_number(user, folder) - 1) + 1

    def _commit(self, folder: Path, action: Literal["publish", "rollback"], info: VersionInfo,
                previous: int | None, at: str, files: Mapping[str, bytes] | None = None,
                manifest: bytes | None = None) -> None:
        from users.events import VersionEvent

        conn = self._holding(info.user)
        assert conn is not None
        if action == "publish":
            assert files is not None
            self._store_version(conn, folder, info, files, manifest)
        conn.execute("INSERT INTO version_pointers (user_id, number) VALUES (%s, %s) "
                     "ON CONFLICT (user_id) DO UPDATE SET number = EXCLUDED.number", (info.user, info.number))
        line = VersionEvent(action=action, version=info.number, previous=previous, at=at).line()
        conn.execute("INSERT INTO version_events (user_id, line) VALUES (%s, %s)", (info.user, line))
        conn.commit()

    def _store_version(self, conn: Connection[Any], folder: Path, info: VersionInfo,
                       files: Mapping[str, bytes], manifest: bytes | None) -> None:
        """The version's row, and the blobs of its files, manifest and tree PostgreSQL lacks."""
        user = info.user
        contents: dict[str, bytes | None] = {sha: None for sha in info.file_sha256.values()}
        tree: list[str] = []
        if manifest is not None and info.manifest_sha256 is not None:
            contents[info.manifest_sha256] = manifest
            with tree_reader(folder) as blob:
                tree = sorted(referenced(manifest, blob, str(info.path / MANIFEST_FILE)))
        have = {row[0] for row in conn.execute(
            "SELECT sha256 FROM version_blobs WHERE user_id = %s AND sha256 = ANY(%s)",
            (user, [*contents, *tree])).fetchall()}
        by_sha = {sha: name for name, sha in info.file_sha256.items()}
        rows: list[tuple[str, str, bytes]] = []
        for sha, data in contents.items():
            if sha not in have:
                rows.append((user, sha, files[by_sha[sha]] if data is None else data))
        missing = [sha for sha in tree if sha not in have]
        if missing:
            with tree_reader(folder) as blob:
                for sha in missing:
                    data = blob(sha)
                    if hashlib.sha256(data).hexdigest() != sha:  # never share a damaged cache's bytes
                        raise IntegrityError(f"the cached manifest piece {sha[:12]} of {user} changed; "
                                             "run uac verify")
                    rows.append((user, sha, data))
        if rows:
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO version_blobs (user_id, sha256, data) VALUES (%s, %s, %s) "
                                "ON CONFLICT DO NOTHING", rows)
        conn.execute(
            "INSERT INTO versions (user_id, number, created_at, files_sha256, log_position, meta, files, "
            "manifest_sha256, tree) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (user, info.number, info.created_at, info.files_sha256, info.meta.log_position, info.meta_bytes(),
             json.dumps(info.file_sha256, sort_keys=True), info.manifest_sha256, tree))

    def _log(self, folder: Path, action: Literal["publish", "rollback"], version: int, previous: int | None,
             at: str) -> None:
        """Events are PostgreSQL's (`_commit`): the home keeps none."""

    # -- the cache -----------------------------------------------------------------------

    def _remote(self, conn: Connection[Any], user: str) -> tuple[dict[int, Row], int | None]:
        rows = conn.execute(f"SELECT {IDENTITY} FROM versions WHERE user_id = %s", (user,)).fetchall()
        pointer = conn.execute("SELECT number FROM version_pointers WHERE user_id = %s", (user,)).fetchone()
        return {int(r[0]): _row(r) for r in rows}, \
            None if pointer is None or pointer[0] is None else int(pointer[0])

    def _cached(self, user: str, folder: Path, row: Row) -> VersionInfo | None:
        """The cached version of `row`, if the cache holds that very version: the same
        identity, and per-file hashes that make up PostgreSQL's files hash (so the hashes
        the files are checked against are PostgreSQL's, whatever the cached meta.json says)."""
        try:
            info = self._read_info(user, folder / version_name(row[0]))
        except (NotFound, InputError):
            return None
        if (info.number, info.created_at, info.files_sha256, info.manifest_sha256) != row:
            return None
        if info.file_sha256 and package_digest(info.file_sha256) != info.files_sha256:
            return None
        return info

    def _sync(self, user: str, folder: Path, conn: Connection[Any], want: set[int] | None = None) -> None:
        """Bring the cache of `user` in line with PostgreSQL (called holding both locks):
        remove cached versions PostgreSQL does not hold as they are, materialise the current
        one and those in `want` (None: every version), point `current` where PostgreSQL does."""
        remote, pointer = self._remote(conn, user)
        stale = [n for n in self._numbers(folder) if n not in remote or self._cached(user, folder, remote[n]) is None]
        if stale:
            self._remove(user, folder, stale)
        wanted = set(remote) if want is None else {n for n in want if n in remote}
        if pointer is not None:
            wanted.add(pointer)
        present = set(self._numbers(folder))
        for number in sorted(wanted - present):
            self._materialise(user, folder, conn, number)
        if self._current_number_or_none(folder) != pointer:
            if pointer is None:
                with contextlib.suppress(FileNotFoundError):
                    (folder / CURRENT_FILE).unlink()
            else:
                fsio.replace_file(folder / CURRENT_FILE, (version_name(pointer) + "\n").encode("ascii"))

    def _current_number_or_none(self, folder: Path) -> int | None:
        try:
            return self._current_number(folder)
        except InputError:  # an unreadable pointer: rewritten
            return -1

    def _remove(self, user: str, folder: Path, numbers: list[int]) -> None:
        paths = [folder / version_name(n) for n in numbers]
        self._drop(user, paths)
        with self._lock:
            for path in paths:
                self._infos.pop(str(path / "meta.json"), None)
        for path in paths:
            fsio.remove_tree(path)

    def _materialise(self, user: str, folder: Path, conn: Connection[Any], number: int) -> None:
        """Write version `number` from PostgreSQL into the cache, every blob's hash checked."""
        row = conn.execute("SELECT meta, files, manifest_sha256, tree FROM versions "
                           "WHERE user_id = %s AND number = %s", (user, number)).fetchone()
        if row is None:
            raise NotFound(f"user {user!r} has no version {number}")
        meta, files, manifest_sha, tree = bytes(row[0]), dict(row[1]), row[2], list(row[3])
        wanted = {*files.values(), *tree, *([manifest_sha] if manifest_sha else [])}
        blobs = {str(sha): bytes(data) for sha, data in conn.execute(
            "SELECT sha256, data FROM version_blobs WHERE user_id = %s AND sha256 = ANY(%s)",
            (user, sorted(wanted))).fetchall()}
        for sha in sorted(wanted):
            if sha not in blobs or hashlib.sha256(blobs[sha]).hexdigest() != sha:
                raise IntegrityError(f"version {number} of {user} in PostgreSQL failed its integrity check: "
                                     f"blob {sha[:12]} is {'missing' if sha not in blobs else 'changed'}")
        path = folder / version_name(number)
        info = VersionInfo.from_meta_json(user, path, json.loads(meta.decode("utf-8")))
        encoded = {name: blobs[sha] for name, sha in files.items()}
        pointer = self._write_version(folder, info, encoded, blobs[manifest_sha] if manifest_sha else None,
                                      {sha: blobs[sha] for sha in tree}, self._verified(user))
        Path(pointer).unlink(missing_ok=True)
        self._known_info(info)
        self.fetched += 1

    @contextlib.contextmanager
    def _synced(self, user: str) -> Iterator[tuple[Path, Connection[Any]]]:
        """The user's folder and the connection holding their lock: this thread's, if it
        holds it already (taking it again would wait for itself), else taken now."""
        conn = self._holding(user)
        if conn is not None:
            yield self.user_dir(user), conn
            return
        with self._locked(user) as folder:
            conn = self._holding(user)
            assert conn is not None
            yield folder, conn

    def _resync(self, user: str, want: set[int] | None = None) -> None:
        with self._synced(user) as (folder, conn):
            if want is None or want:
                self._sync(user, folder, conn, want)

    def _query(self, sql: str, args: tuple[object, ...]) -> list[tuple[Any, ...]]:
        with connection(self.pool) as conn:
            return conn.execute(sql, args).fetchall()

    # -- reading -------------------------------------------------------------------------

    def epoch(self) -> str:
        rows = self._query("SELECT token FROM version_epoch", ())
        return str(rows[0][0]) if rows else ""

    def users(self) -> list[str]:
        return [str(r[0]) for r in self._query("SELECT DISTINCT user_id FROM versions ORDER BY 1", ())]

    def current(self, user: str) -> VersionInfo | None:
        """PostgreSQL's current version (one query), from the cache when it holds it."""
        if self._holding(user) is not None:
            return super().current(user)
        folder = self.user_dir(user)
        rows = self._query("SELECT v.number, v.created_at, v.files_sha256, v.manifest_sha256 FROM version_pointers p "
                           "JOIN versions v ON v.user_id = p.user_id AND v.number = p.number "
                           "WHERE p.user_id = %s", (user,))
        if not rows:
            if folder.is_dir() and self._numbers(folder):
                self._resync(user)  # the cache holds versions PostgreSQL no longer has
            return None
        row = _row(rows[0])
        cached = self._cached(user, folder, row)
        if cached is None or self._current_number_or_none(folder) != row[0]:
            self._resync(user, set())
            cached = self._cached(user, folder, row)
        if cached is None:  # moved again meanwhile: whatever is current now
            return super().current(user)
        return cached

    def get(self, user: str, number: int | str) -> VersionInfo:
        n = check_version_number(number)
        folder = self.user_dir(user)
        conn = self._holding(user)
        if conn is not None:
            if n not in self._numbers(folder):
                self._sync(user, folder, conn, {n})
            return super().get(user, n)
        rows = self._query(f"SELECT {IDENTITY} FROM versions WHERE user_id = %s AND number = %s", (user, n))
        if not rows:
            raise NotFound(f"user {user!r} has no version {number}")
        cached = self._cached(user, folder, _row(rows[0]))
        if cached is not None:
            return cached
        self._resync(user, {n})
        return super().get(user, n)

    def history(self, user: str) -> list[VersionInfo]:
        check_user_id(user)
        self._resync(user, None)
        return super().history(user)

    def events(self, user: str) -> list[VersionEvent]:
        from users.events import read_events

        check_user_id(user)
        lines = [str(r[0]) for r in self._query(
            "SELECT line FROM version_events WHERE user_id = %s ORDER BY seq", (user,))]
        return read_events("\n".join(lines), source=f"the version events of {user} in PostgreSQL")

    def check(self, info: VersionInfo) -> None:
        """As `VersionStore.check`; a cached version found changed is written again from
        PostgreSQL and checked again (never imported as it was)."""
        try:
            super().check(info)
        except IntegrityError:
            self._refetch(info)
            super().check(info)

    def load_info(self, info: VersionInfo) -> ModuleType:
        try:
            return super().load_info(info)
        except IntegrityError:  # a file changed between the check and the import
            self._refetch(info)
            return super().load_info(info)

    def _refetch(self, info: VersionInfo) -> None:
        """Remove the cached version `info` and write it again from PostgreSQL."""
        with self._synced(info.user) as (folder, conn):
            if info.number in self._numbers(folder):
                self._remove(info.user, folder, [info.number])
            self._sync(info.user, folder, conn, {info.number})

    # -- writing -------------------------------------------------------------------------

    def gc(self, user: str, keep: int | None = None) -> GcReport:
        raise InputError("gc of a PostgreSQL version store is not supported yet: its versions are kept")

    def forget(self, user: str) -> bool:
        """Delete the user's rows in PostgreSQL (versions, blobs, pointer, events, alert
        state) and replace the epoch, in one transaction; then erase the cache."""
        check_user_id(user)
        with connection(self.pool) as conn:
            lock_user(conn, VERSION_LOCK, user)
            lock_user(conn, ALERT_LOCK, user)
            gone = 0
            for table in ("versions", "version_blobs", "version_pointers", "version_events", "alert_states"):
                gone += conn.execute(f"DELETE FROM {table} WHERE user_id = %s", (user,)).rowcount  # noqa: S608
            conn.execute("UPDATE version_epoch SET token = %s", (uuid.uuid4().hex,))
        local = super().forget(user)
        return local or gone > 0

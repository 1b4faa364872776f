"""The embedded default fact store: one SQLite database in WAL mode.

Durability: `synchronous=FULL`, so an append that returned is on disk. Concurrency: every
append takes the write lock up front (`BEGIN IMMEDIATE`), so ids stay unique and gap-free
across processes. Ids continue the user's high-water mark, which deleting facts cannot
lower, so an id is never reused. Erasure: `secure_delete` plus a WAL truncate after
`forget`, so a forgotten user's text does not linger in free pages or the WAL.

Keyed chain: given a chain key, facts are hashed with HMAC-SHA256 and the database
records the key's fingerprint (`log_meta`); a keyed log refuses writes without its key,
and `verify` without the key says it cannot check rather than calling every fact changed.
"""

from __future__ import annotations

import hmac
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from factlog import failure_rows
from factlog.chain_rules import KEY_HINT, chained, rechained, walked
from factlog.chain_rules import KEY_SETTING as _KEY_SETTING
from factlog.chain_rules import WRONG_KEY as _WRONG_KEY
from factlog.chain_rules import check_import_hash as _check_import_hash
from factlog.chain_rules import fact_to_row as _fact_to_row
from factlog.chain_rules import utc_now as _utc_now
from factlog.errors import InputError, NotFound
from factlog.fact_rows import FactReader
from factlog.field_types import check_and_record
from factlog.hashing import GENESIS, key_fingerprint
from factlog.limits import MAX_FACT_ID
from factlog.migrations import MIGRATIONS, migrate
from factlog.model import Fact, NewFact, check_user_id
from factlog.sources import erase as erase_bookkeeping
from factlog.sources import known_sources, record_sources
from factlog.store import Appended, ExtractionFailure, NewFailure, VerifyReport

_IDS_PER_QUERY = 500  # bound parameters per `IN (...)` query (SQLite allows 32,766)
_ROWS_PER_PAGE = 5000  # rows a log read holds as rows at once (each page becomes facts before the next)
_COLUMNS = (
    "user, id, recorded_at, text, kind, fields, key, valid_from, valid_to, retracts, "
    "session_id, message_index, role, session_ts, prev_hash, hash"
)


def _row_to_fact(row: sqlite3.Row | tuple[Any, ...]) -> Fact:
    return FactReader().fact(row)


class SqliteFactStore:
    """`FactStore` over SQLite. One connection per instance; safe to share across threads."""

    def __init__(self, path: Path | str, chain_key: bytes | None = None, *, read_only: bool = False) -> None:
        """`read_only`: open with SQLite's `mode=ro` (nothing is created, migrated or
        written; a missing file reads as an empty log)."""
        self.path = Path(path)
        self.read_only = read_only
        self._key = chain_key
        self._lock = threading.RLock()
        if read_only:
            self._db = _open_read_only(self.path)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=60, check_same_thread=False)
            self._db.execute("PRAGMA busy_timeout = 60000")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA secure_delete = ON")
            migrate(self._db)
        # False only for a log that could not be migrated (opened read-only by older code's
        # schema): it is read as before m002, without a mark or a recorded key.
        self._integrity = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'id_high_water'").fetchone() is not None
        recorded = self._recorded_fingerprint()
        if recorded is not None and not self._key_matches(recorded):
            self._db.close()
            raise InputError(_WRONG_KEY)

    # -- the chain key -------------------------------------------------------------

    def _recorded_fingerprint(self) -> str | None:
        if not self._integrity:
            return None
        row = self._db.execute("SELECT value FROM log_meta WHERE name = ?", (_KEY_SETTING,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def keyed(self) -> bool:
        """Whether the log is chained with a key (recorded in the database)."""
        with self._lock:
            return self._recorded_fingerprint() is not None

    def _write_key_locked(self) -> bytes | None:
        """The key to chain new facts with; inside the write transaction. An empty log with a
        key configured becomes keyed here; a log never changes mode once it holds facts."""
        recorded = self._recorded_fingerprint()
        if recorded is None:
            if self._key is None:
                return None
            if self._ever_written_locked():
                raise InputError("this log was chained without a key, but a chain key is configured: "
                                 "unset it, or export the log and import it into a new workspace that has the key")
            self._db.execute("INSERT INTO log_meta (name, value) VALUES (?, ?)",
                             (_KEY_SETTING, key_fingerprint(self._key)))
            return self._key
        if self._key is None:
            raise InputError(f"this log is chained with a key and none is configured: {KEY_HINT}")
        self._check_key(recorded)
        return self._key

    def _check_key(self, recorded: str) -> None:
        """Checked again under the write lock: the log may have been keyed since we opened it."""
        if not self._key_matches(recorded):
            raise InputError(_WRONG_KEY)

    def _key_matches(self, recorded: str) -> bool:
        return self._key is None or hmac.compare_digest(key_fingerprint(self._key), recorded)

    def _ever_written_locked(self) -> bool:
        if not self._integrity:
            return self._db.execute("SELECT 1 FROM facts LIMIT 1").fetchone() is not None
        row = self._db.execute(
            "SELECT EXISTS (SELECT 1 FROM facts) OR EXISTS (SELECT 1 FROM id_high_water)").fetchone()
        return bool(row[0])

    # -- writing -----------------------------------------------------------------

    def _check_writable(self) -> None:
        if self.read_only:
            raise InputError(f"the fact log {self.path} is open read-only: nothing was written")

    def append(self, user: str, facts: Sequence[NewFact], *, allow_retype: bool = True) -> list[Fact]:
        """Append in one transaction. Every append records its fields' types; with
        `allow_retype=False` (what `Memory` and `uac` pass unless told otherwise) a value that
        retypes its field is refused (`factlog.field_types`)."""
        return self.append_sourced(user, [(f, None) for f in facts], allow_retype=allow_retype).stored

    def append_sourced(self, user: str, items: Sequence[tuple[NewFact, str | None]], *, again: bool = False,
                       allow_retype: bool = True) -> Appended:
        """Append the facts whose source (`factlog.sources`) is not stored yet, and store
        their sources; with `again`, append every fact (sources already stored stay as they are)."""
        check_user_id(user)
        if not items:
            return Appended([], 0)
        self._check_writable()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                done = self._append_sourced_locked(user, items, again, allow_retype)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return done

    def _append_sourced_locked(self, user: str, items: Sequence[tuple[NewFact, str | None]], again: bool,
                               allow_retype: bool) -> Appended:
        known = known_sources(self._db, user, [s for _, s in items if s is not None])
        todo = [(f, s) for f, s in items if again or s is None or s not in known]
        stored = self._append_locked(user, [f for f, _ in todo]) if todo else []
        if stored:
            check_and_record(self._db, user, [f for f, _ in todo], stored[0].id, allow_retype)
        record_sources(self._db, user, [(s, fact.id) for (_, s), fact in zip(todo, stored)
                                        if s is not None and s not in known])
        return Appended(stored, len(items) - len(todo))

    def known_sources(self, user: str, sources: Sequence[str]) -> set[str]:
        check_user_id(user)
        with self._lock:
            return known_sources(self._db, user, list(sources))

    # -- extraction failures (`factlog.store.ExtractionFailure`) -----------------------

    def append_extraction(self, user: str, items: Sequence[tuple[NewFact, str | None]], *,
                          failure: NewFailure | None = None, resolves: int | None = None,
                          again: bool = False, allow_retype: bool = True) -> Appended:
        """Facts and the extraction's bookkeeping in one transaction (`FactStore`)."""
        check_user_id(user)
        self._check_writable()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if resolves is not None:
                    failure_rows.check_open(self._db, user, resolves)
                done = self._append_sourced_locked(user, items, again, allow_retype) if items else Appended([], 0)
                ids = [fact.id for fact in done.stored]
                now = _utc_now()
                if resolves is not None:
                    failure_rows.resolve(self._db, user, resolves, ids, now)
                if failure is not None:
                    failure_rows.record(self._db, user, failure, ids, now)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return done

    def extraction_failures(self, user: str, *, source: str | None = None,
                            include_resolved: bool = False) -> list[ExtractionFailure]:
        check_user_id(user)
        with self._lock:
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(extraction_failures)")}
            if not columns:
                return []  # a log older than m005 opened read-only: nothing recorded
            # a log older than m006 opened read-only: every failure is a whole session's
            ranges = failure_rows.RANGES if "first_message" in columns else "NULL, NULL"
            return failure_rows.listed(self._db, user, source, include_resolved, ranges)

    def _append_locked(self, user: str, facts: Sequence[NewFact]) -> list[Fact]:
        key = self._write_key_locked()
        head, _, prev_hash = self._tail_locked(user)
        retracted = self._retracted_ids(user, [f.retracts for f in facts if f.retracts is not None])
        stored = chained(user, facts, head, prev_hash, key, retracted,
                         lambda target: self._stored_retracts(user, target))
        self._db.executemany(f"INSERT INTO facts ({_COLUMNS}) VALUES ({', '.join('?' * 16)})",
                             [_fact_to_row(f) for f in stored])
        return stored

    def _retracted_ids(self, user: str, targets: list[int]) -> set[int]:
        if not targets:
            return set()
        marks = ",".join("?" * len(targets))
        rows = self._db.execute(
            f"SELECT retracts FROM facts WHERE user = ? AND retracts IN ({marks})", (user, *targets))
        return {r[0] for r in rows}

    def _stored_retracts(self, user: str, target: int) -> tuple[bool, int | None]:
        row = self._db.execute("SELECT retracts FROM facts WHERE user = ? AND id = ?", (user, target)).fetchone()
        return (False, None) if row is None else (True, row[0])

    def import_facts(self, facts: Sequence[Fact]) -> int:
        """Restore exported facts exactly (ids, times, hashes). Facts already present with
        the same hash are skipped, so an import can be repeated; anything else that does not
        continue a user's chain is refused and nothing is written.

        Into a keyed workspace, an export of an unkeyed log is re-chained: its plain chain is
        checked link by link (it must hold each user's log from fact 1, in order), then every
        fact is stored with its keyed hash. The other way round is refused: a keyed export
        can be checked only with its key."""
        self._check_writable()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                added = 0
                key = self._write_key_locked() if facts else None
                source_tail: dict[str, tuple[int, str]] = {}  # user -> (id, hash) last read
                for fact in facts:
                    check_user_id(fact.user)
                    if _check_import_hash(fact, key):
                        fact = rechained(fact, key, source_tail, self._stored_hash)
                    row = self._db.execute("SELECT hash FROM facts WHERE user = ? AND id = ?",
                                           (fact.user, fact.id)).fetchone()
                    if row is not None:
                        if row[0] != fact.hash:
                            raise InputError(f"fact {fact.user}/{fact.id} differs from the stored fact with that id")
                        continue
                    head, _, prev_hash = self._tail_locked(fact.user)
                    if fact.id != head + 1 or fact.prev_hash != prev_hash:
                        raise InputError(
                            f"fact {fact.user}/{fact.id} does not continue the stored log (head is {head})")
                    self._db.execute(f"INSERT INTO facts ({_COLUMNS}) VALUES ({', '.join('?' * 16)})",
                                     _fact_to_row(fact))
                    added += 1
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                self._db.execute("ROLLBACK")
                raise InputError(f"import refused by the database: {exc}") from None
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return added

    def _stored_hash(self, user: str, fact_id: int) -> str | None:
        row = self._db.execute("SELECT hash FROM facts WHERE user = ? AND id = ?", (user, fact_id)).fetchone()
        return None if row is None else str(row[0])

    def forget(self, user: str) -> int:
        """Erase the user: their facts and their id high-water mark go in one statement
        (the `forgetting_erases_user` trigger). The mark goes too, on purpose: keeping it
        would tell anyone reading the database that the user existed and how many facts
        they had. A later user of the same name starts again at id 1; nothing of the old
        one (facts, versions, index) is left to be confused with the new ids."""
        check_user_id(user)
        self._check_writable()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                gone = self._db.execute("SELECT COUNT(*) FROM facts WHERE user = ?", (user,)).fetchone()[0]
                self._db.execute("INSERT INTO forgetting (user) VALUES (?)", (user,))
                erase_bookkeeping(self._db, user)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(gone)

    # -- reading -----------------------------------------------------------------

    def _head_locked(self, user: str) -> tuple[int, str]:
        row = self._db.execute(
            "SELECT id, hash FROM facts WHERE user = ? ORDER BY id DESC LIMIT 1", (user,)).fetchone()
        return (0, GENESIS) if row is None else (int(row[0]), str(row[1]))

    def _high_water_locked(self, user: str) -> int:
        if not self._integrity:
            return 0
        row = self._db.execute("SELECT last_id FROM id_high_water WHERE user = ?", (user,)).fetchone()
        return 0 if row is None else int(row[0])

    def _tail_locked(self, user: str) -> tuple[int, int, str]:
        """(the highest id ever given to the user, the last stored id, its hash)."""
        last, last_hash = self._head_locked(user)
        return max(last, self._high_water_locked(user)), last, last_hash

    def head(self, user: str) -> int:
        check_user_id(user)
        with self._lock:
            return self._head_locked(user)[0]

    def high_water(self, user: str) -> int:
        """The highest id the user's log ever gave out (0 for an unknown or forgotten user)."""
        check_user_id(user)
        with self._lock:
            return self._high_water_locked(user)

    def knows(self, user: str) -> bool:
        """Whether the log holds, or once held (and did not forget), facts of `user`."""
        return self.high_water(user) > 0 or self.head(user) > 0

    def facts(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        """Read in pages of `_ROWS_PER_PAGE` rows (by id, each page under the lock), each
        page turned into facts before the next is read, so rows of the whole log are never
        held at once; the list is complete before it is returned. Facts are append-only and
        only `forget` deletes (all of a user's facts): if the last fact read is gone when
        the read ends, the user was forgotten meanwhile and the log is read again."""
        check_user_id(user)
        low = min(after, MAX_FACT_ID)
        high = min(upto if upto is not None else MAX_FACT_ID, MAX_FACT_ID)
        while True:
            read = self._facts_paged(user, low, high)
            if read is not None:
                return iter(read)

    def _facts_paged(self, user: str, low: int, high: int) -> list[Fact] | None:
        reader = FactReader()
        found: list[Fact] = []
        last = low
        while True:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM facts WHERE user = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?",
                    (user, last, high, _ROWS_PER_PAGE)).fetchall()
                if len(rows) < _ROWS_PER_PAGE and found:
                    still = self._db.execute("SELECT hash FROM facts WHERE user = ? AND id = ?",
                                             (user, found[-1].id)).fetchone()
                    if still is None or still[0] != found[-1].hash:
                        return None  # forgotten while it was read
            found.extend(reader.facts(rows))
            if len(rows) < _ROWS_PER_PAGE:
                return found
            last = found[-1].id

    def all_facts(self) -> Iterator[Fact]:
        reader = FactReader()
        found: list[Fact] = []
        with self._lock:
            cursor = self._db.execute(f"SELECT {_COLUMNS} FROM facts ORDER BY user, id")
            while rows := cursor.fetchmany(_ROWS_PER_PAGE):
                found.extend(reader.facts(rows))
        return iter(found)

    def get(self, user: str, fact_id: int) -> Fact:
        check_user_id(user)
        if isinstance(fact_id, bool) or not isinstance(fact_id, int) or not 1 <= fact_id <= MAX_FACT_ID:
            raise NotFound(f"user {user!r} has no fact {fact_id}")
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM facts WHERE user = ? AND id = ?",
                                   (user, fact_id)).fetchone()
        if row is None:
            raise NotFound(f"user {user!r} has no fact {fact_id}")
        return _row_to_fact(row)

    def facts_by_id(self, user: str, ids: Iterable[int]) -> list[Fact]:
        check_user_id(user)
        wanted = sorted({i for i in ids if isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= MAX_FACT_ID})
        found: list[Fact] = []
        reader = FactReader()
        with self._lock:
            for start in range(0, len(wanted), _IDS_PER_QUERY):
                batch = wanted[start:start + _IDS_PER_QUERY]
                marks = ",".join("?" * len(batch))
                found.extend(reader.facts(self._db.execute(
                    f"SELECT {_COLUMNS} FROM facts WHERE user = ? AND id IN ({marks}) ORDER BY id",
                    (user, *batch)).fetchall()))
        return found

    def users(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT user FROM facts ORDER BY user")]

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash every fact and walk each chain; name the first fact that does not match,
        or the first user whose newest facts are gone (below the id high-water mark).

        A keyed log needs its key: without it this raises `InputError` (it cannot check).
        With a key configured, a log that does not record being keyed fails: its chain may
        have been re-hashed by someone without the key."""
        if user is not None:
            check_user_id(user)
        where = " WHERE user = ?" if user else ""
        args = (user,) if user else ()
        with self._lock:
            key = self._verify_key_locked()
            if isinstance(key, VerifyReport):
                return key
            marks: dict[str, int] | None = None
            if self._integrity:
                marks = dict(self._db.execute(f"SELECT user, last_id FROM id_high_water{where}", args).fetchall())
            stray = self._db.execute(f"SELECT user FROM forgetting{where} ORDER BY user", args).fetchone()
            if stray is not None:
                return VerifyReport(0, False, stray[0], None,
                                    "a row in `forgetting` was left behind (the delete bypass is open)")
            cursor = self._db.execute(f"SELECT {_COLUMNS} FROM facts{where} ORDER BY user, id", args)
            return walked((_row_to_fact(row) for row in cursor), key, marks)

    def _verify_key_locked(self) -> bytes | None | VerifyReport:
        recorded = self._recorded_fingerprint()
        if recorded is not None and self._key is None:
            raise InputError(f"cannot verify: this log is chained with a key and none is configured: {KEY_HINT}")
        if recorded is not None:
            self._check_key(recorded)
        if recorded is None and self._key is not None and self._ever_written_locked():
            return VerifyReport(0, False, None, None,
                                "a chain key is configured but the log does not record being keyed: "
                                "it cannot be checked against the key (it may have been re-hashed without it)")
        return self._key

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _open_read_only(path: Path) -> sqlite3.Connection:
    if not path.exists():  # nothing written yet: an empty log, in memory
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        migrate(db)
        return db
    # Reading a WAL database needs its -shm file; where that cannot be created (a folder
    # nobody may write), the file is opened immutable: no one can be writing it either.
    unwritable = not path.with_name(path.name + "-shm").exists() and not os.access(path.parent, os.W_OK)
    db = sqlite3.connect(f"{path.resolve().as_uri()}?{'immutable=1' if unwritable else 'mode=ro'}", uri=True,
                         isolation_level=None, timeout=60, check_same_thread=False)
    db.execute("PRAGMA busy_timeout = 60000")
    try:
        applied = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    except sqlite3.DatabaseError as exc:
        db.close()
        raise InputError(f"cannot read the fact log {path}: {exc}") from None
    if all(m.__name__ in applied for m in MIGRATIONS):
        return db
    db.close()
    if os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        # A log written by older code: upgrade its schema once (it adds bookkeeping, never
        # changes a fact), then read it as usual.
        SqliteFactStore(path).close()
        return _open_read_only(path)
    if "m001_facts" not in applied:
        raise InputError(f"the fact log {path} is not a fact log this version can read")
    # Unwritable and older: read it as it is (the store checks which tables exist).
    return sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True, isolation_level=None,
                           check_same_thread=False)

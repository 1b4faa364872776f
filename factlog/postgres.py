"""The fact log in PostgreSQL (`open_store("postgresql://…")`): the same log as the SQLite store,
for many processes on many machines.

Schema: `factlog/pg_sql/NNNN_*.sql`, applied once per database by `factlog.pg.migrate`. The
database enforces append-only itself (plpgsql triggers): a fact is never updated, is deleted
only by `forget` (a row in `forgetting` erases its user in the same statement), and an insert
must continue the user's ids after the high-water mark and the hash chain after the last fact.

Concurrency: an append locks its user's `id_high_water` row (`SELECT … FOR UPDATE`, the row
created on first use with `INSERT … ON CONFLICT DO NOTHING`), so one user's appends are
serialised and get gap-free ids in commit order, while different users append in parallel.
Keying the chain (the first write with a chain key) takes an exclusive advisory lock; every
unkeyed write holds it shared, so a log never holds facts of both modes.

Faults: a broken connection (server restart, failover) is retried with backoff for
`retry_seconds`. A read, or a write that failed before its COMMIT was sent, is simply run
again. A write whose COMMIT got no answer is checked first: an append is found committed by
its first fact's hash (which covers its recording time and the chain before it) and is not
run again; a write with nothing to check it by raises `Unavailable`. Never a duplicate, never
a silent loss.
"""

from __future__ import annotations

import hmac
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence, TypeVar

import psycopg
from psycopg import errors as pg_errors

from factlog import failure_rows
from factlog.chain_rules import (
    KEY_HINT,
    KEY_SETTING,
    WRONG_KEY,
    chained,
    check_import_hash,
    fact_to_row,
    rechained,
    utc_now,
    walked,
)
from factlog.errors import InputError, NotFound
from factlog.fact_rows import FactReader
from factlog.field_types import check_and_record
from factlog.hashing import GENESIS, key_fingerprint
from factlog.limits import MAX_FACT_ID
from factlog.model import Fact, NewFact, check_user_id
from factlog.pg import Unavailable, first_line, migrate, open_pool, redacted
from factlog.pg_dialect import PgConnection
from factlog.sources import erase as erase_bookkeeping
from factlog.sources import known_sources, record_sources
from factlog.store import Appended, ExtractionFailure, NewFailure, VerifyReport

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

T = TypeVar("T")
Conn = psycopg.Connection[Any]

SQL_FOLDER = Path(__file__).with_name("pg_sql")
COMPONENT = "factlog"
KEYING_LOCK = 0x75616302  # advisory lock: exclusive to key the chain, shared by every unkeyed write
RETRY_SECONDS = float(os.environ.get("UAC_PG_RETRY_SECONDS", "30"))
_ROWS_PER_PAGE = 5000
_COLUMNS = (
    "user_id, id, recorded_at, text, kind, fields, key, valid_from, valid_to, retracts, "
    "session_id, message_index, role, session_ts, prev_hash, hash"
)
_INSERT = f"INSERT INTO facts ({_COLUMNS}) VALUES ({', '.join(['%s'] * 16)})"
_BY_USER = 'user_id COLLATE "C"'  # users sort by code point, as Python sorts them
_IMPORT_BATCH = 10_000  # rows an import sends in one pipeline
# Errors after which the same transaction may be run again: the connection broke or the server
# is going away (SQLSTATE class 08, 57P01-57P03), or the server rolled it back (class 40).
_RETRY_STATES = ("08", "57P01", "57P02", "57P03", "40")


def _probe(url: str) -> None:
    """One direct connection first, so that a server that is not there fails at once (the
    pool would keep trying until its timeout)."""
    try:
        psycopg.connect(url, connect_timeout=10).close()
    except psycopg.Error as exc:
        raise Unavailable(f"cannot reach PostgreSQL at {redacted(url)}: {first_line(exc)}") from None


def _transient(exc: psycopg.OperationalError) -> bool:
    state = exc.sqlstate
    return state is None or state.startswith(_RETRY_STATES)


@dataclass
class _ImportTail:
    """A user's log as an import goes: its mark, its last fact, the hashes of its imported ids
    that are stored (or on their way in)."""

    mark: int
    last_id: int
    last_hash: str
    stored: dict[int, str]


class PostgresFactStore:
    """`FactStore` over PostgreSQL; one connection pool per instance (closed by `close()`),
    safe to share across threads."""

    def __init__(self, url: str, chain_key: bytes | None = None, *, read_only: bool = False,
                 retry_seconds: float = RETRY_SECONDS, pool_size: int = 4) -> None:
        """`read_only`: nothing is created, migrated or written; every transaction is READ ONLY
        (a database without the schema reads as an empty log)."""
        self.url = url
        self.read_only = read_only
        self._key = chain_key
        self._retry_seconds = retry_seconds
        self._schema = not read_only
        _probe(url)
        self._pool: ConnectionPool = open_pool(url, max_size=pool_size, name="uac-facts")
        try:
            if not read_only:
                self._migrate()
            recorded = self._run(self._recorded_fingerprint, empty=None)
            if recorded is not None and not self._key_matches(recorded):
                raise InputError(WRONG_KEY)
        except BaseException:
            self._pool.close()
            raise

    def _migrate(self) -> None:
        try:
            migrate(self._pool, COMPONENT, SQL_FOLDER)
        except psycopg.OperationalError as exc:
            raise Unavailable(f"cannot prepare the fact log at {redacted(self.url)}: {first_line(exc)}") from None

    # -- transactions and retries -----------------------------------------------------

    def _run(self, work: Callable[[Conn], T], *, empty: T | None = None, snapshot: bool = False,
             committed: Callable[[Conn, T], bool] | None = None, write: bool = False,
             pipelined: bool = False) -> T:
        """`work` in one transaction, run again after a transient failure (see module). Reads
        of a read-only store return `empty` while the database has no schema; `snapshot`: one
        consistent view for the whole transaction (REPEATABLE READ). For a write,
        `committed(conn, result)` tells whether a result whose COMMIT got no answer was
        stored; without it such a write raises `Unavailable`. `pipelined`: in pipeline mode
        (a statement waits for the server only when its rows are read)."""
        deadline = time.monotonic() + self._retry_seconds
        delay = 0.05
        while True:
            sent = False
            result: T | None = None
            try:
                with self._pool.connection(timeout=max(0.1, deadline - time.monotonic())) as conn:
                    with conn.transaction():
                        modes = (["ISOLATION LEVEL REPEATABLE READ"] if snapshot else []) + \
                            (["READ ONLY"] if self.read_only else [])
                        if modes:
                            conn.execute(f"SET TRANSACTION {', '.join(modes)}")
                        if not self._schema:
                            if not self._has_schema(conn):
                                return empty  # type: ignore[return-value]
                            self._schema = True
                        if pipelined:
                            with conn.pipeline():  # statements whose rows are not read go out together
                                result = work(conn)
                        else:
                            result = work(conn)
                        sent = write
                    return result
            except psycopg.OperationalError as exc:
                if not _transient(exc):
                    raise
                if sent:
                    if committed is None:
                        raise Unavailable(f"lost PostgreSQL at {redacted(self.url)} while committing; the write may "
                                          f"or may not be stored (check before repeating it): {first_line(exc)}") \
                            from None
                    assert result is not None
                    if self._outcome(committed, result, deadline, exc):
                        return result
                if time.monotonic() + delay > deadline:
                    raise Unavailable(f"cannot reach PostgreSQL at {redacted(self.url)}: {first_line(exc)}") from None
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    def _outcome(self, committed: Callable[[Conn, T], bool], result: T, deadline: float,
                 cause: BaseException) -> bool:
        """Whether the write that produced `result` was committed, asked until `deadline`."""
        delay = 0.05
        while True:
            try:
                with self._pool.connection(timeout=max(0.1, deadline - time.monotonic())) as conn:
                    return committed(conn, result)
            except psycopg.OperationalError as exc:
                if not _transient(exc) or time.monotonic() + delay > deadline:
                    raise Unavailable(f"lost PostgreSQL at {redacted(self.url)} while committing and could not "
                                      f"check whether the write was stored: {first_line(cause)}") from None
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    @staticmethod
    def _has_schema(conn: Conn) -> bool:
        row = conn.execute("SELECT to_regclass('facts') IS NOT NULL").fetchone()
        return bool(row and row[0])

    # -- the chain key -------------------------------------------------------------

    @staticmethod
    def _recorded_fingerprint(conn: Conn) -> str | None:
        row = conn.execute("SELECT value FROM log_meta WHERE name = %s", (KEY_SETTING,)).fetchone()
        return None if row is None else str(row[0])

    def _key_matches(self, recorded: str) -> bool:
        return self._key is None or hmac.compare_digest(key_fingerprint(self._key), recorded)

    @property
    def keyed(self) -> bool:
        return self._run(self._recorded_fingerprint, empty=None) is not None

    def _write_key(self, conn: Conn) -> bytes | None:
        """The key to chain new facts with, inside the write transaction. An unkeyed write holds
        the keying lock shared, so the log cannot become keyed under it; an empty log with a
        key configured becomes keyed here, under the lock held exclusively."""
        if self._key is None:
            conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (KEYING_LOCK,))
            if self._recorded_fingerprint(conn) is not None:
                raise InputError(f"this log is chained with a key and none is configured: {KEY_HINT}")
            return None
        recorded = self._recorded_fingerprint(conn)
        if recorded is None:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (KEYING_LOCK,))
            recorded = self._recorded_fingerprint(conn)
        if recorded is None:
            if self._ever_written(conn):
                raise InputError("this log was chained without a key, but a chain key is configured: "
                                 "unset it, or export the log and import it into a new workspace that has the key")
            conn.execute("INSERT INTO log_meta (name, value) VALUES (%s, %s)",
                         (KEY_SETTING, key_fingerprint(self._key)))
            return self._key
        if not self._key_matches(recorded):
            raise InputError(WRONG_KEY)
        return self._key

    @staticmethod
    def _ever_written(conn: Conn) -> bool:
        row = conn.execute("SELECT EXISTS (SELECT 1 FROM facts) OR "
                           "EXISTS (SELECT 1 FROM id_high_water WHERE last_id > 0)").fetchone()
        return bool(row and row[0])

    # -- writing -----------------------------------------------------------------

    def _check_writable(self) -> None:
        if self.read_only:
            raise InputError(f"the fact log {redacted(self.url)} is open read-only: nothing was written")

    @staticmethod
    def _lock_user(conn: Conn, user: str) -> int:
        """Lock the user's high-water row for this transaction (creating it at 0 on first use);
        returns the mark. Every write of one user passes here first, so they are serialised."""
        while True:
            row = conn.execute("SELECT last_id FROM id_high_water WHERE user_id = %s FOR UPDATE",
                               (user,)).fetchone()
            if row is not None:
                return int(row[0])
            conn.execute("INSERT INTO id_high_water (user_id, last_id) VALUES (%s, 0) "
                         "ON CONFLICT (user_id) DO NOTHING", (user,))

    def append(self, user: str, facts: Sequence[NewFact], *, allow_retype: bool = True) -> list[Fact]:
        return self.append_sourced(user, [(f, None) for f in facts], allow_retype=allow_retype).stored

    def append_sourced(self, user: str, items: Sequence[tuple[NewFact, str | None]], *, again: bool = False,
                       allow_retype: bool = True) -> Appended:
        check_user_id(user)
        if not items:
            return Appended([], 0)
        self._check_writable()
        return self._run(lambda conn: self._append_sourced(conn, user, items, again, allow_retype),
                         write=True, committed=self._appended, pipelined=True)

    def _appended(self, conn: Conn, done: Appended) -> bool:
        """Whether an append whose COMMIT got no answer is stored: its first fact, with its hash.
        An append that stored no fact wrote nothing to lose or to repeat: it counts as stored."""
        if not done.stored:
            return True
        first = done.stored[0]
        row = conn.execute("SELECT hash FROM facts WHERE user_id = %s AND id = %s", (first.user, first.id)).fetchone()
        return row is not None and row[0] == first.hash

    def _append_sourced(self, conn: Conn, user: str, items: Sequence[tuple[NewFact, str | None]], again: bool,
                        allow_retype: bool, check: Callable[[Conn], None] | None = None) -> Appended:
        if not items:
            self._lock_user(conn, user)
            if check is not None:
                check(conn)
            return Appended([], 0)
        key, head, prev_hash = self._begin_append(conn, user)
        if check is not None:
            check(conn)
        db = PgConnection(conn)
        known = known_sources(db, user, [s for _, s in items if s is not None])
        todo = [(f, s) for f, s in items if again or s is None or s not in known]
        stored = self._insert(conn, key, user, head, prev_hash, [f for f, _ in todo]) if todo else []
        if stored:
            check_and_record(db, user, [f for f, _ in todo], stored[0].id, allow_retype)
        record_sources(db, user, [(s, fact.id) for (_, s), fact in zip(todo, stored)
                                  if s is not None and s not in known])
        return Appended(stored, len(items) - len(todo))

    def _begin_append(self, conn: Conn, user: str) -> tuple[bytes | None, int, str]:
        """The key to chain with, the user's last id ever given and the hash to continue, with
        the user locked. Unkeyed, the keying lock, the key check, the user's lock and the
        tail read go to the server together (one round trip in pipeline mode): the server
        runs them in order, so the tail is read once the lock is held."""
        meta: psycopg.Cursor[Any] | None = None
        if self._key is None:
            conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (KEYING_LOCK,))
            meta = conn.execute("SELECT value FROM log_meta WHERE name = %s", (KEY_SETTING,))
            key = None
        else:
            key = self._write_key(conn)
        locked = conn.execute("SELECT last_id FROM id_high_water WHERE user_id = %s FOR UPDATE", (user,))
        tail = conn.execute("SELECT id, hash FROM facts WHERE user_id = %s ORDER BY id DESC LIMIT 1", (user,))
        if meta is not None and meta.fetchone() is not None:
            raise InputError(f"this log is chained with a key and none is configured: {KEY_HINT}")
        row = locked.fetchone()
        if row is None:  # the user's first write: create the row, lock it, then read the tail
            mark = self._lock_user(conn, user)
            last, prev_hash = self._last(conn, user)
        else:
            mark = int(row[0])
            found = tail.fetchone()
            last, prev_hash = (0, GENESIS) if found is None else (int(found[0]), str(found[1]))
        return key, max(mark, last), prev_hash

    def _insert(self, conn: Conn, key: bytes | None, user: str, head: int, prev_hash: str,
                facts: Sequence[NewFact]) -> list[Fact]:
        targets = [f.retracts for f in facts if f.retracts is not None]
        retracted = {r[0] for r in conn.execute(
            "SELECT retracts FROM facts WHERE user_id = %s AND retracts = ANY(%s)", (user, targets))} \
            if targets else set()
        stored = chained(user, facts, head, prev_hash, key, retracted,
                         lambda target: self._stored_retracts(conn, user, target))
        conn.cursor().executemany(_INSERT, [fact_to_row(f) for f in stored])
        return stored

    @staticmethod
    def _last(conn: Conn, user: str) -> tuple[int, str]:
        row = conn.execute("SELECT id, hash FROM facts WHERE user_id = %s ORDER BY id DESC LIMIT 1",
                           (user,)).fetchone()
        return (0, GENESIS) if row is None else (int(row[0]), str(row[1]))

    @staticmethod
    def _stored_retracts(conn: Conn, user: str, target: int) -> tuple[bool, int | None]:
        row = conn.execute("SELECT retracts FROM facts WHERE user_id = %s AND id = %s", (user, target)).fetchone()
        return (False, None) if row is None else (True, row[0])

    def known_sources(self, user: str, sources: Sequence[str]) -> set[str]:
        check_user_id(user)
        wanted = list(sources)
        return self._run(lambda conn: known_sources(PgConnection(conn), user, wanted), empty=set())

    # -- extraction failures ---------------------------------------------------------

    def append_extraction(self, user: str, items: Sequence[tuple[NewFact, str | None]], *,
                          failure: NewFailure | None = None, resolves: int | None = None,
                          again: bool = False, allow_retype: bool = True) -> Appended:
        check_user_id(user)
        self._check_writable()

        def open_failure(conn: Conn) -> None:
            if resolves is not None:
                failure_rows.check_open(PgConnection(conn), user, resolves)

        def work(conn: Conn) -> Appended:
            done = self._append_sourced(conn, user, items, again, allow_retype, open_failure)
            ids = [fact.id for fact in done.stored]
            now = utc_now()
            if resolves is not None:
                failure_rows.resolve(PgConnection(conn), user, resolves, ids, now)
            if failure is not None:
                failure_rows.record(PgConnection(conn), user, failure, ids, now)
            return done

        def committed(conn: Conn, done: Appended) -> bool:
            if not done.stored:  # nothing to tell this write by: it may or may not be stored
                raise Unavailable(f"lost PostgreSQL at {redacted(self.url)} while recording an extraction; "
                                  "it may or may not be stored (run the ingest again)")
            return self._appended(conn, done)

        return self._run(work, write=True, committed=committed, pipelined=True)

    def extraction_failures(self, user: str, *, source: str | None = None,
                            include_resolved: bool = False) -> list[ExtractionFailure]:
        check_user_id(user)
        return self._run(lambda conn: failure_rows.listed(PgConnection(conn), user, source, include_resolved),
                         empty=[])

    # -- import and forget -------------------------------------------------------------

    def import_facts(self, facts: Sequence[Fact]) -> int:
        """Restore exported facts exactly, as `SqliteFactStore.import_facts` does (the same
        rules: repeatable, all or nothing, an unkeyed export re-chained into a keyed log)."""
        self._check_writable()
        if not facts:
            return 0
        for fact in facts:
            check_user_id(fact.user)
        return self._run(lambda conn: self._import(conn, facts), write=True)

    def _import(self, conn: Conn, facts: Sequence[Fact]) -> int:
        """The bulk path: per user, one lock, one read of its tail and one of the stored
        hashes of the ids imported; the new rows go in pipelined, a batch at a time (the
        database's triggers still check every row's id and chain)."""
        key = self._write_key(conn)
        ids_of: dict[str, list[int]] = {}
        for fact in facts:
            ids_of.setdefault(fact.user, []).append(fact.id)
        tails: dict[str, _ImportTail] = {}
        source_tail: dict[str, tuple[int, str]] = {}
        rows: list[tuple[Any, ...]] = []
        added = 0

        def stored_hash(user: str, number: int) -> str | None:
            tail = tails.get(user)
            return tail.stored.get(number) if tail is not None and number in tail.stored \
                else self._stored_hash(conn, user, number)

        try:
            with conn.transaction():  # a savepoint: a refusal by the database becomes an InputError
                for fact in facts:
                    if check_import_hash(fact, key):
                        fact = rechained(fact, key, source_tail, stored_hash)
                    tail = tails.get(fact.user)
                    if tail is None:
                        tail = tails[fact.user] = self._import_tail(conn, fact.user, ids_of[fact.user])
                    known = tail.stored.get(fact.id)
                    if known is not None:
                        if known != fact.hash:
                            raise InputError(f"fact {fact.user}/{fact.id} differs from the stored fact with that id")
                        continue
                    head = max(tail.last_id, tail.mark)
                    if fact.id != head + 1 or fact.prev_hash != tail.last_hash:
                        raise InputError(
                            f"fact {fact.user}/{fact.id} does not continue the stored log (head is {head})")
                    rows.append(fact_to_row(fact))
                    tail.stored[fact.id] = tail.last_hash = fact.hash
                    tail.last_id = tail.mark = fact.id
                    added += 1
                    if len(rows) >= _IMPORT_BATCH:
                        self._insert_rows(conn, rows)
                self._insert_rows(conn, rows)
        except (pg_errors.IntegrityError, pg_errors.RaiseException) as exc:
            raise InputError(f"import refused by the database: {first_line(exc)}") from None
        return added

    def _import_tail(self, conn: Conn, user: str, ids: list[int]) -> _ImportTail:
        """The user locked for the import: its mark, its last fact and the stored hashes of `ids`."""
        mark = self._lock_user(conn, user)
        last_id, last_hash = self._last(conn, user)
        stored = {int(r[0]): str(r[1]) for r in conn.execute(
            "SELECT id, hash FROM facts WHERE user_id = %s AND id = ANY(%s)", (user, ids))}
        return _ImportTail(mark, last_id, last_hash, stored)

    @staticmethod
    def _insert_rows(conn: Conn, rows: list[tuple[Any, ...]]) -> None:
        """Insert `rows` in order, one statement each, pipelined (`executemany`): not one
        multi-row statement (or COPY), whose rows' AFTER triggers, which raise the high-water
        mark, would fire only at its end, after the next rows' checks); then empty the list."""
        if rows:
            conn.cursor().executemany(_INSERT, rows)
            rows.clear()

    @staticmethod
    def _stored_hash(conn: Conn, user: str, fact_id: int) -> str | None:
        row = conn.execute("SELECT hash FROM facts WHERE user_id = %s AND id = %s", (user, fact_id)).fetchone()
        return None if row is None else str(row[0])

    def forget(self, user: str) -> int:
        """Erase the user (facts, mark, sources, field types, extraction failures) in one
        transaction, under the user's lock. PostgreSQL keeps deleted rows until VACUUM
        reclaims them (autovacuum does, soon after)."""
        check_user_id(user)
        self._check_writable()

        def work(conn: Conn) -> int:
            conn.execute("SELECT 1 FROM id_high_water WHERE user_id = %s FOR UPDATE", (user,))
            row = conn.execute("SELECT COUNT(*) FROM facts WHERE user_id = %s", (user,)).fetchone()
            conn.execute("INSERT INTO forgetting (user_id) VALUES (%s)", (user,))
            erase_bookkeeping(PgConnection(conn), user)
            return int(row[0]) if row else 0

        return self._run(work, write=True)

    # -- reading -----------------------------------------------------------------

    def head(self, user: str) -> int:
        check_user_id(user)
        return self._run(lambda conn: self._last(conn, user)[0], empty=0)

    def high_water(self, user: str) -> int:
        check_user_id(user)

        def work(conn: Conn) -> int:
            row = conn.execute("SELECT last_id FROM id_high_water WHERE user_id = %s", (user,)).fetchone()
            return 0 if row is None else int(row[0])

        return self._run(work, empty=0)

    def knows(self, user: str) -> bool:
        return self.high_water(user) > 0 or self.head(user) > 0

    def _paged(self, sql: str, args: Sequence[Any]) -> Callable[[Conn], list[Fact]]:
        """A read of many facts through a server-side cursor, a page of rows at a time."""
        def work(conn: Conn) -> list[Fact]:
            reader = FactReader()
            found: list[Fact] = []
            with conn.cursor(name="uac_facts_read") as cursor:
                cursor.execute(sql, args)
                while rows := cursor.fetchmany(_ROWS_PER_PAGE):
                    found.extend(reader.facts(rows))
            return found
        return work

    def facts(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        check_user_id(user)
        low = min(after, MAX_FACT_ID)
        high = min(upto if upto is not None else MAX_FACT_ID, MAX_FACT_ID)
        read = self._paged(f"SELECT {_COLUMNS} FROM facts WHERE user_id = %s AND id > %s AND id <= %s ORDER BY id",
                           (user, low, high))
        none: list[Fact] = []
        return iter(self._run(read, empty=none, snapshot=True))

    def all_facts(self) -> Iterator[Fact]:
        read = self._paged(f"SELECT {_COLUMNS} FROM facts ORDER BY {_BY_USER}, id", ())
        none: list[Fact] = []
        return iter(self._run(read, empty=none, snapshot=True))

    def get(self, user: str, fact_id: int) -> Fact:
        check_user_id(user)
        if isinstance(fact_id, bool) or not isinstance(fact_id, int) or not 1 <= fact_id <= MAX_FACT_ID:
            raise NotFound(f"user {user!r} has no fact {fact_id}")
        found = self.facts_by_id(user, [fact_id])
        if not found:
            raise NotFound(f"user {user!r} has no fact {fact_id}")
        return found[0]

    def facts_by_id(self, user: str, ids: Iterable[int]) -> list[Fact]:
        check_user_id(user)
        wanted = sorted({i for i in ids if isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= MAX_FACT_ID})
        if not wanted:
            return []

        def work(conn: Conn) -> list[Fact]:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM facts WHERE user_id = %s AND id = ANY(%s) ORDER BY id",
                                (user, wanted)).fetchall()
            return FactReader().facts(rows)

        return self._run(work, empty=[])

    def users(self) -> list[str]:
        def work(conn: Conn) -> list[str]:
            return [r[0] for r in conn.execute(f"SELECT user_id FROM facts GROUP BY user_id ORDER BY {_BY_USER}")]
        return self._run(work, empty=[])

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash every fact and walk each chain, in one snapshot of the log; the same report
        as `SqliteFactStore.verify`."""
        if user is not None:
            check_user_id(user)
        where = " WHERE user_id = %s" if user else ""
        args: tuple[str, ...] = (user,) if user else ()

        def work(conn: Conn) -> VerifyReport:
            key = self._verify_key(conn)
            if isinstance(key, VerifyReport):
                return key
            marks = {str(name): int(mark) for name, mark in conn.execute(
                f"SELECT user_id, last_id FROM id_high_water{where}", args) if mark > 0}
            stray = conn.execute(f"SELECT user_id FROM forgetting{where} ORDER BY {_BY_USER}", args).fetchone()
            if stray is not None:
                return VerifyReport(0, False, stray[0], None,
                                    "a row in `forgetting` was left behind (the delete bypass is open)")
            reader = FactReader()
            with conn.cursor(name="uac_verify") as cursor:
                cursor.execute(f"SELECT {_COLUMNS} FROM facts{where} ORDER BY {_BY_USER}, id", args)
                pages = iter(lambda: cursor.fetchmany(_ROWS_PER_PAGE), [])
                return walked((fact for rows in pages for fact in reader.facts(rows)), key, marks)

        return self._run(work, empty=VerifyReport(0, True), snapshot=True)

    def _verify_key(self, conn: Conn) -> bytes | None | VerifyReport:
        recorded = self._recorded_fingerprint(conn)
        if recorded is not None and self._key is None:
            raise InputError(f"cannot verify: this log is chained with a key and none is configured: {KEY_HINT}")
        if recorded is not None and not self._key_matches(recorded):
            raise InputError(WRONG_KEY)
        if recorded is None and self._key is not None and self._ever_written(conn):
            return VerifyReport(0, False, None, None,
                                "a chain key is configured but the log does not record being keyed: "
                                "it cannot be checked against the key (it may have been re-hashed without it)")
        return self._key

    def close(self) -> None:
        self._pool.close()

"""The embedded default fact store: one SQLite database in WAL mode.

Durability: `synchronous=FULL`, so an append that returned is on disk. Concurrency: every
append takes the write lock up front (`BEGIN IMMEDIATE`), so ids stay unique and gap-free
across processes. Erasure: `secure_delete` plus a WAL truncate after `forget`, so a
forgotten user's text does not linger in free pages or the WAL.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

from factlog.errors import InputError, NotFound
from factlog.hashing import GENESIS, canonical_json, content_hash
from factlog.migrations import MIGRATIONS, migrate
from factlog.model import Fact, NewFact, Provenance, check_user_id
from factlog.store import VerifyReport

_COLUMNS = (
    "user, id, recorded_at, text, kind, fields, key, valid_from, valid_to, retracts, "
    "session_id, message_index, role, session_ts, prev_hash, hash"
)


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _row_to_fact(row: sqlite3.Row | tuple[Any, ...]) -> Fact:
    (user, fid, recorded_at, text, kind, fields, key, vfrom, vto, retracts,
     session_id, message_index, role, session_ts, prev_hash, hash_) = row
    return Fact(
        user=user,
        id=fid,
        recorded_at=recorded_at,
        text=text,
        kind=kind,
        fields=json.loads(fields),
        key=key,
        valid_from=date.fromisoformat(vfrom) if vfrom else None,
        valid_to=date.fromisoformat(vto) if vto else None,
        retracts=retracts,
        provenance=Provenance(session_id, message_index, role, session_ts),
        prev_hash=prev_hash,
        hash=hash_,
    )


def _fact_to_row(fact: Fact) -> tuple[Any, ...]:
    p = fact.provenance
    return (
        fact.user, fact.id, fact.recorded_at, fact.text, fact.kind, canonical_json(fact.fields),
        fact.key, fact.valid_from.isoformat() if fact.valid_from else None,
        fact.valid_to.isoformat() if fact.valid_to else None, fact.retracts,
        p.session_id, p.message_index, p.role, p.session_ts, fact.prev_hash, fact.hash,
    )


class SqliteFactStore:
    """`FactStore` over SQLite. One connection per instance; safe to share across threads."""

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        """`read_only`: open with SQLite's `mode=ro` (nothing is created, migrated or
        written; a missing file reads as an empty log)."""
        self.path = Path(path)
        self._lock = threading.RLock()
        if read_only:
            self._db = _open_read_only(self.path)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout = 60000")
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.execute("PRAGMA secure_delete = ON")
        migrate(self._db)

    # -- writing -----------------------------------------------------------------

    def append(self, user: str, facts: Sequence[NewFact]) -> list[Fact]:
        check_user_id(user)
        if not facts:
            return []
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                stored = self._append_locked(user, facts)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return stored

    def _append_locked(self, user: str, facts: Sequence[NewFact]) -> list[Fact]:
        head, prev_hash = self._head_locked(user)
        retracted = self._retracted_ids(user, [f.retracts for f in facts if f.retracts is not None])
        recorded_at = _utc_now()
        stored: list[Fact] = []
        for offset, new in enumerate(facts, start=1):
            fid = head + offset
            if new.retracts is not None:
                self._check_retraction(user, new.retracts, fid, retracted, stored)
                retracted.add(new.retracts)
            fact = _with_hash(Fact(
                user=user, id=fid, recorded_at=recorded_at, text=new.text, kind=new.kind,
                fields=new.fields, key=new.key, valid_from=new.valid_from, valid_to=new.valid_to,
                retracts=new.retracts, provenance=new.provenance, prev_hash=prev_hash, hash="",
            ))
            prev_hash = fact.hash
            stored.append(fact)
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

    def _check_retraction(self, user: str, target: int, fid: int, retracted: set[int],
                          batch: list[Fact]) -> None:
        if target >= fid:
            raise InputError(f"cannot retract fact {target} of user {user!r}: it does not exist")
        earlier = next((f for f in batch if f.id == target), None)
        if earlier is None:
            row = self._db.execute(
                "SELECT retracts FROM facts WHERE user = ? AND id = ?", (user, target)).fetchone()
            if row is None:
                raise InputError(f"cannot retract fact {target} of user {user!r}: it does not exist")
            target_retracts = row[0]
        else:
            target_retracts = earlier.retracts
        if target_retracts is not None:
            raise InputError(f"fact {target} is itself a retraction; add the fact again instead")
        if target in retracted:
            raise InputError(f"fact {target} is already retracted")

    def import_facts(self, facts: Sequence[Fact]) -> int:
        """Restore exported facts exactly (ids, times, hashes). Facts already present with
        the same hash are skipped, so an import can be repeated; anything else that does not
        continue a user's chain is refused and nothing is written."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                added = 0
                for fact in facts:
                    check_user_id(fact.user)
                    if _with_hash(fact).hash != fact.hash:
                        raise InputError(f"fact {fact.user}/{fact.id}: content hash does not match its content")
                    row = self._db.execute("SELECT hash FROM facts WHERE user = ? AND id = ?",
                                           (fact.user, fact.id)).fetchone()
                    if row is not None:
                        if row[0] != fact.hash:
                            raise InputError(f"fact {fact.user}/{fact.id} differs from the stored fact with that id")
                        continue
                    head, prev_hash = self._head_locked(fact.user)
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

    def forget(self, user: str) -> int:
        check_user_id(user)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT OR IGNORE INTO forgetting (user) VALUES (?)", (user,))
                gone = self._db.execute("DELETE FROM facts WHERE user = ?", (user,)).rowcount
                self._db.execute("DELETE FROM forgetting WHERE user = ?", (user,))
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

    def head(self, user: str) -> int:
        check_user_id(user)
        with self._lock:
            return self._head_locked(user)[0]

    def facts(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        check_user_id(user)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM facts WHERE user = ? AND id > ? AND id <= ? ORDER BY id",
                (user, after, upto if upto is not None else 2**62),
            ).fetchall()
        return (_row_to_fact(r) for r in rows)

    def all_facts(self) -> Iterator[Fact]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM facts ORDER BY user, id").fetchall()
        return (_row_to_fact(r) for r in rows)

    def get(self, user: str, fact_id: int) -> Fact:
        check_user_id(user)
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM facts WHERE user = ? AND id = ?",
                                   (user, fact_id)).fetchone()
        if row is None:
            raise NotFound(f"user {user!r} has no fact {fact_id}")
        return _row_to_fact(row)

    def users(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT user FROM facts ORDER BY user")]

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash every fact and walk each chain; name the first fact that does not match."""
        if user is not None:
            check_user_id(user)
        query = f"SELECT {_COLUMNS} FROM facts" + (" WHERE user = ?" if user else "") + " ORDER BY user, id"
        with self._lock:
            cursor = self._db.execute(query, (user,) if user else ())
            checked = 0
            current_user: str | None = None
            expected_id, expected_prev = 1, GENESIS
            for row in cursor:
                fact = _row_to_fact(row)
                if fact.user != current_user:
                    current_user, expected_id, expected_prev = fact.user, 1, GENESIS
                problem = _chain_problem(fact, expected_id, expected_prev)
                if problem:
                    return VerifyReport(checked, False, fact.user, fact.id, problem)
                checked += 1
                expected_id, expected_prev = fact.id + 1, fact.hash
        return VerifyReport(checked, True)

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
    if any(m.__name__ not in applied for m in MIGRATIONS):
        db.close()
        raise InputError(f"the fact log {path} needs a schema upgrade, which a read-only open cannot do")
    return db


def _with_hash(fact: Fact) -> Fact:
    body = fact.body()
    return replace(fact, hash=content_hash(body))


def _chain_problem(fact: Fact, expected_id: int, expected_prev: str) -> str | None:
    if fact.id != expected_id:
        return f"expected fact id {expected_id}, found {fact.id} (a fact is missing)"
    if fact.prev_hash != expected_prev:
        return "prev_hash does not match the hash of the fact before it"
    if content_hash(fact.body()) != fact.hash:
        return "content does not match its hash (the fact was changed after it was written)"
    return None

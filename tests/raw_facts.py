"""Write facts straight into the SQLite log, around the checks at the door.

Facts stored before the door's checks matched the compiler's limits still sit in old
logs; tests that need such a fact write the row themselves, continuing the user's id
sequence and hash chain exactly as `factlog.sqlite` does (so the triggers accept it and
`verify` passes).
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import date
from pathlib import Path

from factlog.hashing import GENESIS, content_hash
from factlog.model import Fact, JsonValue, Provenance
from factlog.sqlite import _fact_to_row

RECORDED_AT = "2024-06-01T12:00:00+00:00"
COLUMNS = ("user, id, recorded_at, text, kind, fields, key, valid_from, valid_to, retracts, "
           "session_id, message_index, role, session_ts, prev_hash, hash")


def raw_fact(user: str, fact_id: int, prev_hash: str, *, text: str = "a stored fact", kind: str | None = None,
             fields: dict[str, JsonValue] | None = None, key: str | None = None,
             valid_from: date | None = None, retracts: int | None = None) -> Fact:
    """A stored fact with its hash, with no input check at all."""
    fact = Fact(user, fact_id, RECORDED_AT, text, kind, dict(fields or {}), key, valid_from, None, retracts,
                Provenance(), prev_hash, "")
    return replace(fact, hash=content_hash(fact.body()))


def append_raw(db_path: Path, user: str, **parts: object) -> Fact:
    """Append one unchecked fact to `user`'s log in the database at `db_path`; returns it."""
    db = sqlite3.connect(db_path, isolation_level=None, timeout=60)
    try:
        db.execute("BEGIN IMMEDIATE")
        row = db.execute("SELECT id, hash FROM facts WHERE user = ? ORDER BY id DESC LIMIT 1", (user,)).fetchone()
        fact_id, prev_hash = (1, GENESIS) if row is None else (int(row[0]) + 1, str(row[1]))
        fact = raw_fact(user, fact_id, prev_hash, **parts)  # type: ignore[arg-type]
        db.execute(f"INSERT INTO facts ({COLUMNS}) VALUES ({', '.join('?' * 16)})", _fact_to_row(fact))
        db.execute("COMMIT")
        return fact
    finally:
        db.close()

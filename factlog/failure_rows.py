"""The extraction-failure bookkeeping of the log (`FactStore.append_extraction`,
`extraction_failures`): its rules and its SQL, written once for SQLite and run on PostgreSQL
through `factlog.pg_dialect.PgConnection`, as `factlog.sources` and `factlog.field_types` are.

A failure is one per (source, session, message range): recording the same range again counts
one more attempt, keeps the facts both cited, and opens it again. Resolving names an open one.
"""

from __future__ import annotations

import json

from factlog.errors import NotFound
from factlog.sql_conn import SqlConnection
from factlog.store import ExtractionFailure, NewFailure

RANGES = "first_message, last_message"


def check_open(db: SqlConnection, user: str, number: int) -> None:
    """NotFound unless `number` is an open failure of the user."""
    if db.execute("SELECT 1 FROM extraction_failures WHERE user = ? AND id = ? AND resolved_at IS NULL",
                  (user, number)).fetchone() is None:
        raise NotFound(f"user {user!r} has no open extraction failure {number}")


def resolve(db: SqlConnection, user: str, number: int, ids: list[int], now: str) -> None:
    db.execute("UPDATE extraction_failures SET resolved_at = ?, resolved_by = ? WHERE user = ? AND id = ?",
               (now, json.dumps(ids), user, number))


def record(db: SqlConnection, user: str, failure: NewFailure, ids: list[int], now: str) -> None:
    row = db.execute(
        "SELECT id, fact_ids FROM extraction_failures WHERE user = ? AND source = ? AND session_id = ? "
        "AND first_message IS ? AND last_message IS ?",
        (user, failure.source, failure.session_id, failure.first_message, failure.last_message)).fetchone()
    if row is not None:
        kept = sorted(set(json.loads(row[1])) | set(ids))
        db.execute(
            "UPDATE extraction_failures SET path = ?, reason = ?, raw = ?, failed_at = ?, attempts = attempts + 1, "
            "fact_ids = ?, resolved_at = NULL, resolved_by = '[]' WHERE user = ? AND id = ?",
            (failure.path, failure.reason, failure.raw, now, json.dumps(kept), user, row[0]))
        return
    number = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM extraction_failures WHERE user = ?",
                        (user,)).fetchone()[0]
    db.execute(
        "INSERT INTO extraction_failures (user, id, source, path, session_id, reason, raw, failed_at, attempts, "
        "fact_ids, first_message, last_message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
        (user, number, failure.source, failure.path, failure.session_id, failure.reason, failure.raw, now,
         json.dumps(ids), failure.first_message, failure.last_message))


def listed(db: SqlConnection, user: str, source: str | None, include_resolved: bool,
           ranges: str = RANGES) -> list[ExtractionFailure]:
    """The user's failures (of one source), open ones only unless `include_resolved`, in id
    order; `ranges` is "NULL, NULL" for a log whose failures are all whole sessions."""
    where = "user = ?" + (" AND source = ?" if source is not None else "") + \
        ("" if include_resolved else " AND resolved_at IS NULL")
    args = (user,) if source is None else (user, source)
    rows = db.execute(
        "SELECT user, id, source, path, session_id, reason, raw, failed_at, attempts, fact_ids, "
        f"resolved_at, resolved_by, {ranges} FROM extraction_failures WHERE {where} ORDER BY id", args).fetchall()
    return [ExtractionFailure(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], tuple(json.loads(r[9])),
                              r[10], tuple(json.loads(r[11])), r[12], r[13]) for r in rows]

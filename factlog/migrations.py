"""Numbered schema migrations for the embedded SQLite log (in the manner of simonw/llm).

Each migration runs once, in order, and is recorded in `_migrations`. Never edit a
migration that has shipped: add a new one.

Append-only is enforced by the database itself: triggers refuse UPDATE always, refuse
DELETE unless the user is listed in `forgetting` (which only `forget` does, inside its
transaction), and refuse an INSERT that breaks the user's id sequence or hash chain.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from factlog.hashing import GENESIS

Migration = Callable[[sqlite3.Connection], None]


def m001_facts(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE facts (
            user TEXT NOT NULL,
            id INTEGER NOT NULL CHECK (id >= 1),
            recorded_at TEXT NOT NULL,
            text TEXT NOT NULL,
            kind TEXT,
            fields TEXT NOT NULL,
            key TEXT,
            valid_from TEXT,
            valid_to TEXT,
            retracts INTEGER,
            session_id TEXT,
            message_index INTEGER,
            role TEXT,
            session_ts TEXT,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL,
            PRIMARY KEY (user, id)
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE TABLE forgetting (user TEXT PRIMARY KEY)")
    db.execute(
        """
        CREATE TRIGGER facts_no_update BEFORE UPDATE ON facts
        BEGIN SELECT RAISE(ABORT, 'facts are append-only: a stored fact is never updated'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER facts_no_delete BEFORE DELETE ON facts
        WHEN NOT EXISTS (SELECT 1 FROM forgetting WHERE user = OLD.user)
        BEGIN SELECT RAISE(ABORT, 'facts are append-only: only forget may erase a user'); END
        """
    )
    db.execute(
        f"""
        CREATE TRIGGER facts_sequence BEFORE INSERT ON facts
        WHEN NEW.id != COALESCE((SELECT MAX(id) FROM facts WHERE user = NEW.user), 0) + 1
          OR NEW.prev_hash != COALESCE(
               (SELECT hash FROM facts WHERE user = NEW.user AND id = NEW.id - 1), '{GENESIS}')
        BEGIN SELECT RAISE(ABORT, 'facts are append-only: id or hash chain does not continue'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER facts_retracts_existing BEFORE INSERT ON facts
        WHEN NEW.retracts IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM facts WHERE user = NEW.user AND id = NEW.retracts)
        BEGIN SELECT RAISE(ABORT, 'a retraction must name an existing fact'); END
        """
    )
    db.execute("CREATE INDEX facts_kind_key ON facts (user, kind, key)")


def m003_sources(db: sqlite3.Connection) -> None:
    """Where facts came from (idempotent ingestion) and the established field types (type
    drift at the door). Both are derived bookkeeping beside the log, erased by `forget`."""
    db.execute(
        """
        CREATE TABLE fact_sources (
            user TEXT NOT NULL,
            source TEXT NOT NULL,
            fact_id INTEGER NOT NULL,
            PRIMARY KEY (user, source)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        """
        CREATE TABLE field_types (
            user TEXT NOT NULL,
            kind TEXT NOT NULL,
            field TEXT NOT NULL,
            type TEXT NOT NULL,
            fact_ids TEXT NOT NULL,
            PRIMARY KEY (user, kind, field)
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE TABLE field_types_position (user TEXT PRIMARY KEY, position INTEGER NOT NULL)")


MIGRATIONS: tuple[Migration, ...] = (m001_facts, m003_sources)


def migrate(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    applied = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    for migration in MIGRATIONS:
        if migration.__name__ in applied:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have applied it between our read and our lock.
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", (migration.__name__,)).fetchone():
                db.execute("ROLLBACK")
                continue
            migration(db)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))",
                (migration.__name__,),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

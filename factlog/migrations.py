"""Numbered schema migrations for the embedded SQLite log (in the manner of simonw/llm).

Each migration runs once, in order, and is recorded in `_migrations`. Never edit a
migration that has shipped: add a new one.

Append-only is enforced by the database itself: triggers refuse UPDATE always, refuse
DELETE unless the user is listed in `forgetting`, and refuse an INSERT that breaks the
user's id sequence or hash chain.

Since m002_integrity: a per-user id high-water mark (`id_high_water`) that only an append
raises and nothing lowers, so an id is never given out twice even when the newest facts
were deleted behind the log's back; a row in `forgetting` erases the user at once and
removes itself in the same statement, so the delete bypass can neither be left behind nor
used for a partial delete; `log_meta` records whether the chain is keyed (HMAC).
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


def m002_integrity(db: sqlite3.Connection) -> None:
    # A bypass row left by anything but forget (which never leaves one) is dropped.
    db.execute("DELETE FROM forgetting")
    db.execute(
        """
        CREATE TABLE id_high_water (
            user TEXT PRIMARY KEY,
            last_id INTEGER NOT NULL CHECK (last_id >= 1)
        ) WITHOUT ROWID
        """
    )
    db.execute("INSERT INTO id_high_water (user, last_id) SELECT user, MAX(id) FROM facts GROUP BY user")
    db.execute("CREATE TABLE log_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
    db.execute("DROP TRIGGER facts_sequence")
    db.execute(
        f"""
        CREATE TRIGGER facts_sequence_hw BEFORE INSERT ON facts
        WHEN NEW.id != COALESCE((SELECT last_id FROM id_high_water WHERE user = NEW.user), 0) + 1
          OR NEW.prev_hash != COALESCE(
               (SELECT hash FROM facts WHERE user = NEW.user ORDER BY id DESC LIMIT 1), '{GENESIS}')
        BEGIN SELECT RAISE(ABORT,
            'facts are append-only: id or hash chain does not continue (ids are never reused)'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER facts_raise_high_water AFTER INSERT ON facts
        BEGIN
            UPDATE id_high_water SET last_id = NEW.id WHERE user = NEW.user;
            INSERT INTO id_high_water (user, last_id) SELECT NEW.user, NEW.id
                WHERE NOT EXISTS (SELECT 1 FROM id_high_water WHERE user = NEW.user);
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER facts_not_while_forgetting BEFORE INSERT ON facts
        WHEN EXISTS (SELECT 1 FROM forgetting WHERE user = NEW.user)
        BEGIN SELECT RAISE(ABORT, 'a user being forgotten takes no new facts'); END
        """
    )
    # The mark follows the log: set only to the id just appended, never lowered, and
    # erased only with its user.
    db.execute(
        """
        CREATE TRIGGER high_water_insert BEFORE INSERT ON id_high_water
        WHEN NEW.last_id IS NOT (SELECT MAX(id) FROM facts WHERE user = NEW.user)
        BEGIN SELECT RAISE(ABORT, 'the id high-water mark is set only by appending a fact'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER high_water_update BEFORE UPDATE ON id_high_water
        WHEN NEW.user IS NOT OLD.user OR NEW.last_id <= OLD.last_id
          OR NEW.last_id IS NOT (SELECT MAX(id) FROM facts WHERE user = NEW.user)
        BEGIN SELECT RAISE(ABORT, 'the id high-water mark never goes down: ids are never reused'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER high_water_delete BEFORE DELETE ON id_high_water
        WHEN NOT EXISTS (SELECT 1 FROM forgetting WHERE user = OLD.user)
        BEGIN SELECT RAISE(ABORT, 'the id high-water mark is erased only with its user (forget)'); END
        """
    )
    # Inserting a user into `forgetting` erases all of that user and removes the row again,
    # in one statement: no row survives it, so no later DELETE can use the bypass.
    db.execute(
        """
        CREATE TRIGGER forgetting_erases_user AFTER INSERT ON forgetting
        BEGIN
            DELETE FROM facts WHERE user = NEW.user;
            DELETE FROM id_high_water WHERE user = NEW.user;
            DELETE FROM forgetting WHERE user = NEW.user;
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER forgetting_all_or_nothing BEFORE DELETE ON forgetting
        WHEN EXISTS (SELECT 1 FROM facts WHERE user = OLD.user)
          OR EXISTS (SELECT 1 FROM id_high_water WHERE user = OLD.user)
        BEGIN SELECT RAISE(ABORT, 'forget erases all of a user or nothing'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER forgetting_no_update BEFORE UPDATE ON forgetting
        BEGIN SELECT RAISE(ABORT, 'forgetting rows are never updated'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER log_meta_fixed_update BEFORE UPDATE ON log_meta
        BEGIN SELECT RAISE(ABORT, 'log settings are fixed once written'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER log_meta_fixed_delete BEFORE DELETE ON log_meta
        BEGIN SELECT RAISE(ABORT, 'log settings are fixed once written'); END
        """
    )
    db.execute(
        """
        CREATE TRIGGER log_meta_keyed_while_empty BEFORE INSERT ON log_meta
        WHEN EXISTS (SELECT 1 FROM facts) OR EXISTS (SELECT 1 FROM id_high_water)
        BEGIN SELECT RAISE(ABORT, 'log settings are chosen while the log is empty'); END
        """
    )


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


def m004_field_value_types(db: sqlite3.Connection) -> None:
    """Live value-type counts per field, so a retraction costs its own fields
    (`factlog.field_types`), and retractions indexed by the fact they name. The established
    types are derived: they are emptied here and rebuilt from the log by the next append."""
    db.execute(
        """
        CREATE TABLE field_value_types (
            user TEXT NOT NULL,
            kind TEXT NOT NULL,
            field TEXT NOT NULL,
            type TEXT NOT NULL,
            live INTEGER NOT NULL CHECK (live >= 1),
            first_id INTEGER NOT NULL,
            PRIMARY KEY (user, kind, field, type)
        ) WITHOUT ROWID
        """
    )
    db.execute("ALTER TABLE field_types ADD COLUMN cited_exact INTEGER NOT NULL DEFAULT 1")
    db.execute("DELETE FROM field_types")
    db.execute("DELETE FROM field_types_position")
    db.execute("CREATE INDEX facts_retracts ON facts (user, retracts) WHERE retracts IS NOT NULL")


def m005_extraction_failures(db: sqlite3.Connection) -> None:
    """Sessions a model could not extract (`uac log --failed`): bookkeeping beside the log,
    erased by `forget` (it holds the model's raw answer). `fact_ids` and `resolved_by` are
    JSON lists of fact ids: the raw facts stored for the failure, and the facts of the retry
    that resolved it. One row per (user, source file, session): a failed retry counts in
    `attempts`."""
    db.execute(
        """
        CREATE TABLE extraction_failures (
            user TEXT NOT NULL,
            id INTEGER NOT NULL CHECK (id > 0),
            source TEXT NOT NULL,
            path TEXT NOT NULL,
            session_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            raw TEXT NOT NULL,
            failed_at TEXT NOT NULL,
            attempts INTEGER NOT NULL CHECK (attempts >= 1),
            fact_ids TEXT NOT NULL,
            resolved_at TEXT,
            resolved_by TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (user, id),
            UNIQUE (user, source, session_id)
        ) WITHOUT ROWID
        """
    )


def m006_failure_ranges(db: sqlite3.Connection) -> None:
    """An extraction failure names the chunk that failed: `first_message`, `last_message`
    (message indices, inclusive; both NULL for a whole session, as every older row is).
    One row per (user, source file, session, range): the table is rebuilt without the
    per-session UNIQUE, rows and ids kept."""
    db.execute(
        """
        CREATE TABLE extraction_failures_m006 (
            user TEXT NOT NULL,
            id INTEGER NOT NULL CHECK (id > 0),
            source TEXT NOT NULL,
            path TEXT NOT NULL,
            session_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            raw TEXT NOT NULL,
            failed_at TEXT NOT NULL,
            attempts INTEGER NOT NULL CHECK (attempts >= 1),
            fact_ids TEXT NOT NULL,
            resolved_at TEXT,
            resolved_by TEXT NOT NULL DEFAULT '[]',
            first_message INTEGER,
            last_message INTEGER,
            PRIMARY KEY (user, id),
            CHECK ((first_message IS NULL) = (last_message IS NULL)),
            CHECK (first_message IS NULL OR 0 <= first_message AND first_message <= last_message)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        "INSERT INTO extraction_failures_m006 (user, id, source, path, session_id, reason, raw, failed_at, "
        "attempts, fact_ids, resolved_at, resolved_by) SELECT user, id, source, path, session_id, reason, raw, "
        "failed_at, attempts, fact_ids, resolved_at, resolved_by FROM extraction_failures")
    db.execute("DROP TABLE extraction_failures")
    db.execute("ALTER TABLE extraction_failures_m006 RENAME TO extraction_failures")
    db.execute("CREATE UNIQUE INDEX extraction_failures_chunk ON extraction_failures "
               "(user, source, session_id, COALESCE(first_message, -1), COALESCE(last_message, -1))")


MIGRATIONS: tuple[Migration, ...] = (m001_facts, m002_integrity, m003_sources, m004_field_value_types,
                                     m005_extraction_failures, m006_failure_ranges)


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

"""PostgreSQL plumbing shared by every layer that keeps state in a server database.

    pool = open_pool(url)                     # a psycopg_pool.ConnectionPool, checked on checkout
    migrate(pool, "factlog", SQL_FOLDER)      # apply the component's numbered .sql files once

A component (the fact log, the version store, the worker queue, the HTTP API's tenants) keeps
its schema as numbered SQL files `NNNN_name.sql` in a folder of its own package, applied in
order, once, and recorded in `uac_migrations` (component, number, name) — in the manner of our
SQLite migrations: never edit one that has shipped, add the next. Migrations run under a
transaction-level advisory lock, so processes starting at once apply each file exactly once.

Connection problems reach the user as `Unavailable` (one line, the URL without its password).
psycopg is an optional dependency (`pip install 'user-as-code[postgres]'`); importing this
module without it is fine, opening a pool says what to install.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from factlog.errors import InputError, UacError

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

SCHEMES = ("postgresql", "postgres")
MIGRATION_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
LOCK_KEY = 0x75616301  # pg_advisory_xact_lock key of the migration runner ("uac" 1)


class Unavailable(UacError):
    """The database server cannot be reached (or refused us); nothing was written."""


def is_postgres_url(location: str) -> bool:
    return "://" in location and location.split("://", 1)[0].lower() in SCHEMES


def redacted(url: str) -> str:
    """The URL with any password replaced by `***`, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[-1]}"))


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise InputError("a PostgreSQL store needs psycopg: pip install 'user-as-code[postgres]'") from None
    return psycopg


def open_pool(url: str, *, min_size: int = 1, max_size: int = 8, timeout: float = 30.0,
              name: str = "uac") -> ConnectionPool:
    """A connection pool on `url`; every connection handed out was checked alive (so a pool
    outlives a server restart), and opening fails with `Unavailable` when the server does not
    answer within `timeout` seconds."""
    psycopg = _psycopg()
    from psycopg_pool import ConnectionPool, PoolTimeout

    if not is_postgres_url(url):
        raise InputError(f"not a PostgreSQL URL: {redacted(url)} (postgresql://user@host:port/database)")
    pool = ConnectionPool(url, min_size=min_size, max_size=max_size, timeout=timeout, name=name, open=False,
                          check=ConnectionPool.check_connection, kwargs={"connect_timeout": 10})
    try:
        pool.open(wait=True, timeout=timeout)
    except (PoolTimeout, psycopg.Error) as exc:
        pool.close()
        raise Unavailable(f"cannot reach PostgreSQL at {redacted(url)}: {first_line(exc)}") from None
    return pool


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def migration_files(folder: Path) -> list[tuple[int, str, Path]]:
    """(number, name, path) of the folder's migrations, in order; numbers must be 1, 2, 3 …"""
    found = sorted((int(m.group(1)), m.group(2), path) for path in folder.iterdir()
                   if (m := MIGRATION_FILE.match(path.name)))
    for expected, (number, _name, path) in enumerate(found, start=1):
        if number != expected:
            raise RuntimeError(f"migration {path.name}: expected number {expected:04d}")
    return found


def migrate(pool: ConnectionPool, component: str, folder: Path) -> list[str]:
    """Apply the component's migrations that this database has not run yet, each in its own
    transaction with its record; returns the names applied now."""
    applied: list[str] = []
    files = migration_files(folder)
    with pool.connection() as conn:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
            conn.execute("CREATE TABLE IF NOT EXISTS uac_migrations (component TEXT NOT NULL, "
                         "number INTEGER NOT NULL, name TEXT NOT NULL, "
                         "applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (component, number))")
        for number, name, path in files:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
                done = conn.execute("SELECT 1 FROM uac_migrations WHERE component = %s AND number = %s",
                                    (component, number)).fetchone()
                if done:
                    continue
                conn.execute(path.read_text(encoding="utf-8"))
                conn.execute("INSERT INTO uac_migrations (component, number, name) VALUES (%s, %s, %s)",
                             (component, number, name))
                applied.append(f"{number:04d}_{name}")
    return applied

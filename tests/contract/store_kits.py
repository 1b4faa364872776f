"""The store implementations the contract suite runs against, one factory each.

A factory gets a fresh folder (and a way to reach the test's PostgreSQL server, started only
when a factory asks for it) and returns a `StoreKit`: how to open (more connections to)
one new, empty store, where it lives (what `factlog.stores.open_store` takes, so child
processes open it too), and the store-specific hooks a test needs to break the store
behind its back (the way an attacker with access to the database would). Adding a store
implementation means adding one factory to `STORE_FACTORIES`; the tests stay as they are.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from factlog.store import FactStore
from factlog.stores import open_store


@dataclass
class StoreKit:
    name: str
    location: str  # what `open_store` (and a child process) opens
    change_text: Callable[[str, int, str], None]  # rewrite a stored fact's text, bypassing the store
    delete_fact: Callable[[str, int], None]  # delete one stored fact, bypassing the store
    opened: list[FactStore] = field(default_factory=list)

    def open(self, *, chain_key: bytes | None = None, read_only: bool = False) -> FactStore:
        """Another connection to the same store (closed when the test ends)."""
        store = open_store(self.location, chain_key=chain_key, read_only=read_only)
        self.opened.append(store)
        return store

    def close_all(self) -> None:
        for store in self.opened:
            store.close()
        self.opened.clear()


def sqlite_kit(folder: Path, server: Callable[[], Any]) -> StoreKit:
    path = folder / "facts.db"

    def bypass(sql: str, trigger: str, *params: object) -> None:
        db = sqlite3.connect(path, isolation_level=None)
        try:
            db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            db.execute(sql, params)
        finally:
            db.close()

    def change_text(user: str, fact_id: int, text: str) -> None:
        bypass("UPDATE facts SET text = ? WHERE user = ? AND id = ?", "facts_no_update", text, user, fact_id)

    def delete_fact(user: str, fact_id: int) -> None:
        bypass("DELETE FROM facts WHERE user = ? AND id = ?", "facts_no_delete", user, fact_id)

    return StoreKit("sqlite", str(path), change_text, delete_fact)


_databases = itertools.count(1)


def postgres_kit(folder: Path, server: Callable[[], Any]) -> StoreKit:
    """A new database on the test server (`tests/pg_server.py`); the hooks connect as the
    server's superuser with triggers switched off (`session_replication_role = replica`), as
    someone with full access to the database could."""
    import psycopg

    url: str = server().create_database(f"uac_kit_{os.getpid()}_{next(_databases)}")

    def bypass(sql: str, *params: object) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET session_replication_role = replica")
            conn.execute(sql, params)

    def change_text(user: str, fact_id: int, text: str) -> None:
        bypass("UPDATE facts SET text = %s WHERE user_id = %s AND id = %s", text, user, fact_id)

    def delete_fact(user: str, fact_id: int) -> None:
        bypass("DELETE FROM facts WHERE user_id = %s AND id = %s", user, fact_id)

    return StoreKit("postgres", url, change_text, delete_fact)


STORE_FACTORIES: list[Callable[[Path, Callable[[], Any]], StoreKit]] = [sqlite_kit, postgres_kit]

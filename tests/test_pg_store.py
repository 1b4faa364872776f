"""The PostgreSQL store beyond the contract suite: the database itself refuses what the store
never does (direct SQL), the bookkeeping statements' translation, and an append whose commit
got no answer is neither lost nor stored twice."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import psycopg
import pytest

from factlog.model import NewFact
from factlog.pg_dialect import translate
from factlog.postgres import PostgresFactStore


def test_translate_the_bookkeeping_statements() -> None:
    assert translate("SELECT 1 FROM fact_sources WHERE user = ? AND source IN (?,?)") == \
        "SELECT 1 FROM fact_sources WHERE user_id = %s AND source IN (%s,%s)"
    assert translate("INSERT OR REPLACE INTO field_types (user, kind, field, type) VALUES (?, ?, ?, ?)") == \
        "INSERT INTO field_types (user_id, kind, field, type) VALUES (%s, %s, %s, %s) " \
        "ON CONFLICT (user_id, kind, field) DO UPDATE SET type = EXCLUDED.type"
    assert translate("SELECT 1 FROM t WHERE first_message IS ?") == \
        "SELECT 1 FROM t WHERE first_message IS NOT DISTINCT FROM %s"
    with pytest.raises(ValueError):
        translate("SELECT '%' FROM facts")


@pytest.mark.parametrize("sql", [
    "UPDATE facts SET text = 'changed' WHERE user_id = 'alice' AND id = 1",
    "DELETE FROM facts WHERE user_id = 'alice' AND id = 2",
    "TRUNCATE facts",
    "UPDATE id_high_water SET last_id = 1 WHERE user_id = 'alice'",
    "DELETE FROM id_high_water WHERE user_id = 'alice'",
    "INSERT INTO facts (user_id, id, recorded_at, text, fields, prev_hash, hash) "
    "VALUES ('alice', 5, 'now', 'skips ids', '{}', 'x', 'y')",
    "INSERT INTO facts (user_id, id, recorded_at, text, fields, prev_hash, hash, retracts) "
    "VALUES ('alice', 3, 'now', 'r', '{}', (SELECT hash FROM facts WHERE user_id = 'alice' AND id = 2), 'y', 9)",
    "INSERT INTO log_meta (name, value) VALUES ('chain_key_fingerprint', 'x')",
])
def test_the_database_refuses_changes_behind_the_store(pg_url: str, sql: str) -> None:
    store = PostgresFactStore(pg_url)
    store.append("alice", [NewFact("one"), NewFact("two")])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.RaiseException):
            conn.execute(sql)
    assert [f.text for f in store.facts("alice")] == ["one", "two"]
    assert store.verify().ok
    store.close()


def _lose_answers(store: PostgresFactStore, monkeypatch: pytest.MonkeyPatch, *, commit: bool) -> list[int]:
    """The next write's connection breaks as its transaction ends: after its COMMIT took effect
    (`commit`), or with the transaction rolled back; either way the client sees an error."""
    real = store._pool.connection
    broken: list[int] = []

    @contextmanager
    def connection(*args: Any, **kwargs: Any) -> Iterator[psycopg.Connection[Any]]:
        with real(*args, **kwargs) as conn:
            if broken:
                yield conn
                return
            original = conn.transaction

            @contextmanager
            def transaction() -> Iterator[Any]:
                broken.append(1)
                with original() as tx:
                    yield tx
                    if not commit:
                        raise psycopg.OperationalError("server closed the connection unexpectedly")
                raise psycopg.OperationalError("server closed the connection unexpectedly")

            monkeypatch.setattr(conn, "transaction", transaction)
            try:
                yield conn
            finally:
                monkeypatch.setattr(conn, "transaction", original)

    monkeypatch.setattr(store._pool, "connection", connection)
    return broken


def test_an_append_committed_without_an_answer_is_not_repeated(pg_url: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    store = PostgresFactStore(pg_url, retry_seconds=5)
    store.append("alice", [NewFact("zero")])
    broken = _lose_answers(store, monkeypatch, commit=True)
    stored = store.append("alice", [NewFact("one"), NewFact("two")])
    assert broken and [f.id for f in stored] == [2, 3]
    assert [f.text for f in store.facts("alice")] == ["zero", "one", "two"]  # once, not twice
    assert store.verify().ok
    store.close()


def test_an_append_rolled_back_without_an_answer_is_run_again(pg_url: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store = PostgresFactStore(pg_url, retry_seconds=5)
    broken = _lose_answers(store, monkeypatch, commit=False)
    stored = store.append("alice", [NewFact("one")])
    assert broken and [f.id for f in stored] == [1]
    assert [f.text for f in store.facts("alice")] == ["one"]
    store.close()

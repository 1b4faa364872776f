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


def test_the_bulk_import_keeps_the_import_rules(pg_url: str, tmp_path: Any) -> None:
    """Many users interleaved in one import, more rows than one pipeline batch, a fact given
    twice, an import continuing a stored log, a gap refused, and an unkeyed export re-chained
    under a key."""
    from factlog import postgres
    from factlog.errors import InputError
    from factlog.hashing import content_hash
    from factlog.sqlite import SqliteFactStore

    def fresh(name: str) -> str:
        admin = pg_url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
        return pg_url.rsplit("/", 1)[0] + "/" + name

    source = SqliteFactStore(tmp_path / "facts.db")
    for n in range(30):
        for user in ("alice", "bob", "carol"):
            source.append(user, [NewFact(f"{user} {n}")])
    facts = list(source.all_facts())
    source.close()
    facts.sort(key=lambda f: (f.id, f.user))  # users interleaved
    target = PostgresFactStore(pg_url)
    original = postgres._IMPORT_BATCH
    postgres._IMPORT_BATCH = 7  # several batches, one ending mid-user
    try:
        assert target.import_facts(facts[:40]) == 40
        assert target.import_facts(facts[:40] + facts[40:] + [facts[50]]) == 50  # the repeat is skipped
        assert target.import_facts(facts) == 0
        assert target.verify().ok and [f.text for f in target.facts("bob")] == [f"bob {n}" for n in range(30)]
        gap = PostgresFactStore(fresh("uac_import_gap"))
        try:
            with pytest.raises(InputError, match=r"alice/2 does not continue the stored log \(head is 0\)"):
                gap.import_facts([f for f in facts if f.user != "alice" or f.id > 1])
            assert gap.users() == []  # all or nothing
        finally:
            gap.close()
    finally:
        postgres._IMPORT_BATCH = original
        target.close()
    key = b"k" * 32
    keyed = PostgresFactStore(fresh("uac_import_keyed"), chain_key=key)
    try:
        assert keyed.import_facts(facts) == 90  # re-chained under the key, link by link
        assert keyed.import_facts(facts) == 0
        stored = list(keyed.facts("carol"))
        assert [f.hash for f in stored] == [content_hash(f.body(), key) for f in stored]
        assert [f.prev_hash for f in stored[1:]] == [f.hash for f in stored[:-1]]
        assert keyed.verify().ok
    finally:
        keyed.close()

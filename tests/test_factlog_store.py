"""The fact log: append-only in the database itself, chained hashes, retraction, forget."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import pytest

from factlog.errors import InputError, NotFound
from factlog.hashing import GENESIS
from factlog.model import NewFact, Provenance, check_user_id
from factlog.sqlite import SqliteFactStore


def test_ids_are_per_user_and_chained(store: SqliteFactStore) -> None:
    a = store.append("alice", [NewFact("one"), NewFact("two")])
    b = store.append("bob", [NewFact("uno")])
    c = store.append("alice", [NewFact("three", kind="trip", fields={"destination": "Tokyo"}, key="t1",
                                       valid_from=date(2025, 1, 1),
                                       provenance=Provenance("s1", 3, "user", "2024-11-15 10:30:00"))])
    assert [f.id for f in a + c] == [1, 2, 3] and b[0].id == 1
    assert a[0].prev_hash == GENESIS and a[1].prev_hash == a[0].hash and c[0].prev_hash == a[1].hash
    stored = store.get("alice", 3)
    assert stored == c[0]
    assert stored.provenance.message_index == 3 and stored.fields == {"destination": "Tokyo"}
    assert [f.text for f in store.facts("alice", after=1)] == ["two", "three"]
    assert store.head("alice") == 3 and store.users() == ["alice", "bob"]
    assert store.verify().ok and store.verify().checked == 4


def test_database_refuses_update_delete_and_broken_sequence(store: SqliteFactStore) -> None:
    store.append("alice", [NewFact("one"), NewFact("two")])
    db = sqlite3.connect(store.path, isolation_level=None)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE facts SET text = 'changed' WHERE id = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM facts WHERE id = 2")
    with pytest.raises(sqlite3.IntegrityError, match="chain"):
        db.execute("INSERT INTO facts SELECT user, 5, recorded_at, text, kind, fields, key, valid_from, "
                   "valid_to, retracts, session_id, message_index, role, session_ts, prev_hash, hash "
                   "FROM facts WHERE id = 2")
    db.close()
    assert [f.text for f in store.facts("alice")] == ["one", "two"]
    assert store.verify().ok


def test_tampering_behind_our_back_is_named_by_verify(store: SqliteFactStore) -> None:
    store.append("alice", [NewFact(f"fact {i}") for i in range(1, 6)])
    store.append("bob", [NewFact("bob's fact")])
    db = sqlite3.connect(store.path, isolation_level=None)
    db.execute("DROP TRIGGER facts_no_update")
    db.execute("UPDATE facts SET text = 'I never said this' WHERE user = 'alice' AND id = 3")
    db.close()
    report = store.verify()
    assert not report.ok and report.user == "alice" and report.fact_id == 3
    assert "hash" in (report.reason or "")
    assert store.verify("bob").ok


def test_deleted_fact_breaks_the_chain_at_the_next_one(store: SqliteFactStore) -> None:
    store.append("alice", [NewFact(f"fact {i}") for i in range(1, 5)])
    db = sqlite3.connect(store.path, isolation_level=None)
    db.execute("DROP TRIGGER facts_no_delete")
    db.execute("DELETE FROM facts WHERE id = 2")
    db.close()
    report = store.verify("alice")
    assert not report.ok and report.fact_id == 3 and "missing" in (report.reason or "")


def test_retraction_rules(store: SqliteFactStore) -> None:
    store.append("alice", [NewFact("I live in Paris")])
    r = store.append("alice", [NewFact("Retracts fact 1", retracts=1)])[0]
    assert r.retracts == 1
    with pytest.raises(InputError, match="already retracted"):
        store.append("alice", [NewFact("again", retracts=1)])
    with pytest.raises(InputError, match="itself a retraction"):
        store.append("alice", [NewFact("undo", retracts=2)])
    with pytest.raises(InputError, match="does not exist"):
        store.append("alice", [NewFact("ghost", retracts=99)])
    assert store.head("alice") == 2


def test_a_bad_fact_in_a_batch_writes_nothing(store: SqliteFactStore) -> None:
    store.append("alice", [NewFact("first")])
    with pytest.raises(InputError):
        store.append("alice", [NewFact("good"), NewFact("bad", retracts=50), NewFact("good too")])
    assert store.head("alice") == 1 and store.verify().ok


@pytest.mark.parametrize("user", ["../x", "/etc", "", "a" * 65, "bob\x00", "al\nice", "аlice", "a/b",
                                  "..", ".hidden", "a..b", "Ａlice", "-x"])
def test_unsafe_user_ids_are_refused(user: str, store: SqliteFactStore) -> None:
    with pytest.raises(InputError, match="user id"):
        check_user_id(user)
    with pytest.raises(InputError):
        store.append(user, [NewFact("x")])
    assert store.users() == []


@pytest.mark.parametrize("kwargs, message", [
    ({"text": "x" * (64 * 1024 + 1)}, "64 KiB"),
    ({"text": "   "}, "empty"),
    ({"text": "bell\x07"}, "control"),
    ({"text": "x", "kind": "Trip!"}, "kind"),
    ({"text": "x", "key": "k"}, "needs a kind"),
    ({"text": "x", "kind": "trip", "fields": {"a": float("nan")}}, "finite"),
    ({"text": "x", "kind": "trip", "fields": {"": 1}}, "non-empty"),
    ({"text": "x", "valid_from": date(2025, 2, 1), "valid_to": date(2025, 1, 1)}, "before"),
    ({"text": "x", "retracts": 0}, "positive"),
])
def test_bad_facts_are_refused_with_a_clear_message(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        NewFact(**kwargs)  # type: ignore[arg-type]


def test_text_at_the_limit_is_accepted(store: SqliteFactStore) -> None:
    store.append("alice", [NewFact("é" * (32 * 1024))])
    assert store.head("alice") == 1


def test_forget_erases_the_user_and_leaves_no_text_behind(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "f.db")
    secret = "ZebraQuokka7731"
    store.append("alice", [NewFact(f"my secret word is {secret} number {i}") for i in range(300)])
    store.append("bob", [NewFact("bob stays")])
    assert store.forget("alice") == 300
    assert store.users() == ["bob"] and store.verify().ok
    with pytest.raises(NotFound):
        store.get("alice", 1)
    store.close()
    for path in tmp_path.iterdir():
        assert secret.encode() not in path.read_bytes(), f"{path.name} still holds forgotten text"

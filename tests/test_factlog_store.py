"""The fact log: append-only in the database itself, chained hashes, retraction, forget."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import pytest

from factlog.errors import InputError, NotFound
from factlog.model import NewFact
from factlog.sqlite import SqliteFactStore


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

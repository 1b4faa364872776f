"""The database itself refuses what the log must never hold, whoever writes to it.

Each test attacks one trigger of the facts table with raw sqlite3 (no store code in the
way), asserts the refusal, and checks that nothing changed: the rows are the same and the
chain still verifies. The tests state behaviour (what must be refused), not how the
triggers are written, so they hold when a migration adds or replaces triggers. The hand
mutations in tests/mutation/hand_mutations.py weaken each trigger in turn and show that
these tests notice.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterator

import pytest

from factlog.hashing import GENESIS
from factlog.model import NewFact
from factlog.sqlite import SqliteFactStore

COLUMNS = ("user", "id", "recorded_at", "text", "kind", "fields", "key", "valid_from", "valid_to", "retracts",
           "session_id", "message_index", "role", "session_ts", "prev_hash", "hash")
FAKE_HASH = "f" * 64


@pytest.fixture
def raw(store: SqliteFactStore) -> Iterator[sqlite3.Connection]:
    """alice has facts 1-3, bob facts 1-2, written by the store; then a raw connection."""
    store.append("alice", [NewFact("alice one"), NewFact("alice two")])
    store.append("bob", [NewFact("bob one")])
    store.append("alice", [NewFact("alice three")])
    store.append("bob", [NewFact("bob two")])
    db = sqlite3.connect(store.path, isolation_level=None)
    yield db
    db.close()


def rows(db: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return db.execute(f"SELECT {', '.join(COLUMNS)} FROM facts ORDER BY user, id").fetchall()


def fact_row(db: sqlite3.Connection, user: str, fid: int) -> dict[str, Any]:
    row = db.execute(f"SELECT {', '.join(COLUMNS)} FROM facts WHERE user = ? AND id = ?", (user, fid)).fetchone()
    assert row is not None
    return dict(zip(COLUMNS, row))


def next_row(db: sqlite3.Connection, user: str, **changes: Any) -> dict[str, Any]:
    """A row that would continue `user`'s log (next id, prev_hash = the head's hash), then `changes`."""
    head = db.execute("SELECT MAX(id) FROM facts WHERE user = ?", (user,)).fetchone()[0] or 0
    prev = fact_row(db, user, head)["hash"] if head else GENESIS
    row = {c: None for c in COLUMNS}
    row.update(user=user, id=head + 1, recorded_at="2026-01-01T00:00:00.000000+00:00", text="forged",
               fields="{}", prev_hash=prev, hash=FAKE_HASH)
    row.update(changes)
    return row


def insert(db: sqlite3.Connection, row: dict[str, Any]) -> None:
    db.execute(f"INSERT INTO facts ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
               [row[c] for c in COLUMNS])


def assert_refused(db: sqlite3.Connection, store: SqliteFactStore, sql: str, params: tuple[Any, ...] | list[Any],
                   match: str) -> None:
    before = rows(db)
    with pytest.raises(sqlite3.IntegrityError, match=match):
        db.execute(sql, params)
    assert rows(db) == before
    assert store.verify().ok


def assert_insert_refused(db: sqlite3.Connection, store: SqliteFactStore, row: dict[str, Any],
                          match: str | None) -> None:
    before = rows(db)
    with pytest.raises(sqlite3.IntegrityError, match=match):
        insert(db, row)
    assert rows(db) == before
    assert store.verify().ok


# --- no update ------------------------------------------------------------------------------


@pytest.mark.parametrize(("column", "value"), [
    ("text", "I never said this"), ("hash", FAKE_HASH), ("prev_hash", GENESIS), ("id", 9),
    ("user", "mallory"), ("fields", '{"x":1}'), ("retracts", 1), ("recorded_at", "1970-01-01"),
])
def test_no_column_of_a_stored_fact_can_be_updated(raw: sqlite3.Connection, store: SqliteFactStore,
                                                   column: str, value: object) -> None:
    assert_refused(raw, store, f"UPDATE facts SET {column} = ? WHERE user = 'alice' AND id = 2", (value,),
                   "append-only: a stored fact is never updated")


def test_update_is_refused_even_while_the_user_is_being_forgotten(raw: sqlite3.Connection,
                                                                  store: SqliteFactStore) -> None:
    """The forget marker never outlives the statement that sets it: it erases the whole user
    and itself at once, so there is no moment in which an UPDATE could use it."""
    raw.execute("BEGIN")
    raw.execute("INSERT INTO forgetting (user) VALUES ('alice')")
    assert raw.execute("SELECT COUNT(*) FROM facts WHERE user = 'alice'").fetchone()[0] == 0
    assert raw.execute("SELECT COUNT(*) FROM forgetting").fetchone()[0] == 0
    raw.execute("ROLLBACK")
    with pytest.raises(sqlite3.IntegrityError, match="never updated"):
        raw.execute("UPDATE facts SET text = 'rewritten' WHERE user = 'alice'")
    assert [f.text for f in store.facts("alice")] == ["alice one", "alice two", "alice three"]


# --- no delete but forget -------------------------------------------------------------------


@pytest.mark.parametrize("where", ["user = 'alice' AND id = 3", "user = 'alice' AND id = 2", "user = 'bob'", "1"])
def test_no_fact_can_be_deleted(raw: sqlite3.Connection, store: SqliteFactStore, where: str) -> None:
    assert_refused(raw, store, f"DELETE FROM facts WHERE {where}", (), "append-only: only forget may erase a user")


def test_forgetting_one_user_opens_no_other(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    try:
        raw.execute("INSERT INTO forgetting (user) VALUES ('bob')")
    except sqlite3.DatabaseError:
        pass  # a stricter schema may refuse a hand-written marker; alice must stay either way
    with pytest.raises(sqlite3.IntegrityError, match="only forget may erase"):
        raw.execute("DELETE FROM facts WHERE user = 'alice' AND id = 3")
    assert store.head("alice") == 3


@pytest.mark.parametrize("sql", [
    "DELETE FROM facts WHERE user = 'alice' AND id = 3",
    "DELETE FROM id_high_water WHERE user = 'alice'",
])
def test_while_one_user_is_forgotten_no_other_can_be_touched(raw: sqlite3.Connection, store: SqliteFactStore,
                                                            sql: str) -> None:
    """The forget marker exists only inside the statement that erases its user; a temporary
    trigger that runs inside that statement still cannot delete another user's facts or mark."""
    raw.execute(f"CREATE TEMP TRIGGER meddle BEFORE DELETE ON main.facts WHEN OLD.user = 'bob' BEGIN {sql}; END")
    before = rows(raw)
    with pytest.raises(sqlite3.IntegrityError, match="only forget may erase|erased only with its user"):
        raw.execute("INSERT INTO forgetting (user) VALUES ('bob')")
    assert rows(raw) == before
    assert store.high_water("alice") == 3 and store.verify().ok


def test_forget_still_erases_exactly_one_user(store: SqliteFactStore) -> None:
    store.append("alice", [NewFact("a1"), NewFact("a2")])
    store.append("bob", [NewFact("b1")])
    assert store.forget("alice") == 2
    assert store.users() == ["bob"] and store.verify().ok
    db = sqlite3.connect(store.path, isolation_level=None)
    try:
        assert db.execute("SELECT COUNT(*) FROM forgetting").fetchone()[0] == 0  # the door is shut again
        with pytest.raises(sqlite3.IntegrityError, match="only forget may erase"):
            db.execute("DELETE FROM facts WHERE user = 'bob'")
    finally:
        db.close()


# --- id sequence ----------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [2, 3, 100])
def test_an_id_gap_is_refused(raw: sqlite3.Connection, store: SqliteFactStore, offset: int) -> None:
    assert_insert_refused(raw, store, next_row(raw, "alice", id=3 + offset), "id or hash chain does not continue")


@pytest.mark.parametrize("offset", [2, 3, 100])
def test_an_id_gap_is_refused_even_when_its_prev_hash_looks_like_a_start(raw: sqlite3.Connection,
                                                                       store: SqliteFactStore, offset: int) -> None:
    """Nothing precedes the gap, so a chain check alone would expect GENESIS: the id check must refuse it."""
    row = next_row(raw, "alice", id=3 + offset, prev_hash=GENESIS)
    assert_insert_refused(raw, store, row, "id or hash chain does not continue")


@pytest.mark.parametrize("fid", [1, 2, 3])
def test_a_repeated_id_is_refused(raw: sqlite3.Connection, store: SqliteFactStore, fid: int) -> None:
    prev = GENESIS if fid == 1 else fact_row(raw, "alice", fid - 1)["hash"]
    assert_insert_refused(raw, store, next_row(raw, "alice", id=fid, prev_hash=prev), None)


@pytest.mark.parametrize("fid", [0, -1])
def test_ids_start_at_one(raw: sqlite3.Connection, store: SqliteFactStore, fid: int) -> None:
    assert_insert_refused(raw, store, next_row(raw, "carol", id=fid), None)


def test_a_new_users_log_starts_at_one(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    """carol has no facts: id 2 (or bob's next id, 3) is a gap, whatever other users hold."""
    assert_insert_refused(raw, store, next_row(raw, "carol", id=2), "id or hash chain does not continue")
    assert_insert_refused(raw, store, next_row(raw, "carol", id=3), "id or hash chain does not continue")
    assert_insert_refused(raw, store, next_row(raw, "bob", id=4), "id or hash chain does not continue")


def test_users_keep_separate_sequences_through_the_store(store: SqliteFactStore) -> None:
    """Interleaved appends: each user's ids and chain continue its own log, not the other's."""
    for round_ in range(3):
        store.append("alice", [NewFact(f"a{round_}.{i}") for i in range(2)])
        store.append("bob", [NewFact(f"b{round_}")])
    assert store.head("alice") == 6 and store.head("bob") == 3
    bob = list(store.facts("bob"))
    assert [f.prev_hash for f in bob] == [GENESIS, bob[0].hash, bob[1].hash]
    assert store.verify().ok and store.verify().checked == 9


# --- hash chain -----------------------------------------------------------------------------


@pytest.mark.parametrize("prev_hash", [GENESIS, FAKE_HASH, "", "0" * 63])
def test_a_broken_prev_hash_is_refused(raw: sqlite3.Connection, store: SqliteFactStore, prev_hash: str) -> None:
    assert_insert_refused(raw, store, next_row(raw, "alice", prev_hash=prev_hash), "id or hash chain does not continue")


def test_prev_hash_must_be_the_previous_fact_not_an_older_one(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    older = fact_row(raw, "alice", 2)["hash"]
    assert_insert_refused(raw, store, next_row(raw, "alice", prev_hash=older), "id or hash chain does not continue")


def test_prev_hash_must_come_from_the_same_users_log(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    """bob's next fact is 3; alice's fact 2 has the right id but is not bob's."""
    alices = fact_row(raw, "alice", 2)["hash"]
    assert_insert_refused(raw, store, next_row(raw, "bob", prev_hash=alices), "id or hash chain does not continue")


def test_a_new_users_first_fact_chains_from_genesis(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    for prev_hash in (FAKE_HASH, fact_row(raw, "alice", 1)["hash"]):
        assert_insert_refused(raw, store, next_row(raw, "carol", prev_hash=prev_hash),
                              "id or hash chain does not continue")


# --- retractions ----------------------------------------------------------------------------


@pytest.mark.parametrize("target", [4, 99, 0, -1])
def test_a_retraction_of_a_missing_fact_is_refused(raw: sqlite3.Connection, store: SqliteFactStore,
                                                   target: int) -> None:
    """4 is the retraction's own id: a fact cannot retract itself either."""
    assert_insert_refused(raw, store, next_row(raw, "alice", retracts=target),
                          "a retraction must name an existing fact")


def test_a_retraction_must_name_a_fact_of_the_same_user(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    """bob has no fact 3; alice does."""
    assert_insert_refused(raw, store, next_row(raw, "bob", retracts=3), "a retraction must name an existing fact")


# --- id high-water mark and forget (m002) ----------------------------------------------------


def test_the_mark_does_not_follow_deleted_facts_down(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    """Even when the newest facts were deleted behind the log's back, the mark cannot be
    lowered to the newest id still stored (that would give the deleted ids out again)."""
    raw.execute("DROP TRIGGER facts_no_delete")
    raw.execute("DELETE FROM facts WHERE user = 'alice' AND id = 3")
    with pytest.raises(sqlite3.IntegrityError, match="never goes down"):
        raw.execute("UPDATE id_high_water SET last_id = 2 WHERE user = 'alice'")
    assert store.high_water("alice") == 3


def test_a_mark_is_never_moved_to_another_user(raw: sqlite3.Connection, store: SqliteFactStore) -> None:
    """Not even to a user whose own mark is missing, with the id that user's log is at."""
    raw.execute("DROP TRIGGER high_water_delete")
    raw.execute("DELETE FROM id_high_water WHERE user = 'alice'")
    with pytest.raises(sqlite3.IntegrityError, match="never goes down"):
        raw.execute("UPDATE id_high_water SET user = 'alice', last_id = 3 WHERE user = 'bob'")
    assert store.high_water("bob") == 2 and store.high_water("alice") == 0


def test_a_forget_that_would_leave_the_mark_behind_is_refused(raw: sqlite3.Connection,
                                                              store: SqliteFactStore) -> None:
    """A temporary trigger that keeps the mark cannot turn forget into an erase of the facts
    alone: the forgetting row refuses to go while anything of the user remains."""
    raw.execute("CREATE TEMP TRIGGER keep_mark BEFORE DELETE ON main.id_high_water "
                "BEGIN SELECT RAISE(IGNORE); END")
    before = rows(raw)
    with pytest.raises(sqlite3.IntegrityError, match="all of a user or nothing"):
        raw.execute("INSERT INTO forgetting (user) VALUES ('alice')")
    assert rows(raw) == before
    assert store.high_water("alice") == 3 and store.verify().ok


def test_a_log_emptied_behind_its_back_cannot_be_declared_keyed(raw: sqlite3.Connection,
                                                                store: SqliteFactStore) -> None:
    """Whether the chain is keyed is chosen before the first fact; a log whose facts were all
    deleted still has its marks, so it is not new and its setting stays fixed."""
    raw.execute("DROP TRIGGER facts_no_delete")
    raw.execute("DELETE FROM facts")
    with pytest.raises(sqlite3.IntegrityError, match="while the log is empty"):
        raw.execute("INSERT INTO log_meta VALUES ('chain_key_fingerprint', 'x')")
    assert raw.execute("SELECT COUNT(*) FROM log_meta").fetchone()[0] == 0

"""Integrity of the fact log against someone who can write the database behind its back.

Anchors (each version records the log position and the hash there), ids that are never
reused (a high-water mark deletes cannot lower), a `forgetting` bypass that only a real
forget can use, a keyed (HMAC) chain, and `verify` of a user that does not exist.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pytest

from factlog.errors import InputError
from factlog.hashing import GENESIS, content_hash
from factlog.model import Fact, NewFact
from factlog.sqlite import SqliteFactStore, _fact_to_row, _row_to_fact
from runtime.memory import Memory
from users.versions import PublishMeta

KEY = b"k" * 32
OTHER_KEY = b"o" * 32


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def drop_triggers(db: sqlite3.Connection) -> None:
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        db.execute(f"DROP TRIGGER {name}")


def rehash(path: Path, user: str, key: bytes | None = None,
           edit: Callable[[Fact], Fact] = lambda f: f) -> None:
    """The forger: drops every trigger, edits facts and rewrites the user's whole chain so
    that every hash and prev_hash is consistent again (plain sha256 unless given a key)."""
    db = raw(path)
    drop_triggers(db)
    rows = db.execute("SELECT user, id, recorded_at, text, kind, fields, key, valid_from, valid_to, "
                      "retracts, session_id, message_index, role, session_ts, prev_hash, hash "
                      "FROM facts WHERE user = ? ORDER BY id", (user,)).fetchall()
    prev, forged = GENESIS, []
    for row in rows:
        fact = replace(edit(_row_to_fact(row)), prev_hash=prev)
        fact = replace(fact, hash=content_hash(fact.body(), key))
        prev = fact.hash
        forged.append(_fact_to_row(fact))
    db.execute("DELETE FROM facts WHERE user = ?", (user,))
    db.executemany(f"INSERT INTO facts VALUES ({', '.join('?' * 16)})", forged)
    db.close()


def ten_facts(store: SqliteFactStore, user: str = "alice") -> None:
    store.append(user, [NewFact(f"fact {i}") for i in range(1, 11)])


# -- ids are never reused --------------------------------------------------------------------

@pytest.mark.parametrize("attack", [
    "UPDATE id_high_water SET last_id = 3 WHERE user = 'alice'",
    "UPDATE id_high_water SET last_id = 50 WHERE user = 'alice'",
    "UPDATE id_high_water SET user = 'mallory' WHERE user = 'alice'",
    "DELETE FROM id_high_water WHERE user = 'alice'",
    "INSERT INTO id_high_water (user, last_id) VALUES ('mallory', 40)",
])
def test_the_high_water_mark_follows_the_log_only(store: SqliteFactStore, attack: str) -> None:
    ten_facts(store)
    db = raw(store.path)
    with pytest.raises(sqlite3.IntegrityError, match="high-water"):
        db.execute(attack)
    db.close()
    assert store.high_water("alice") == 10 and store.high_water("mallory") == 0
    assert store.verify().ok


def test_an_insert_below_the_mark_is_refused_by_the_database(store: SqliteFactStore) -> None:
    ten_facts(store)
    db = raw(store.path)
    db.execute("DROP TRIGGER facts_no_delete")
    db.execute("DELETE FROM facts WHERE user = 'alice' AND id = 10")
    with pytest.raises(sqlite3.IntegrityError, match="never reused"):
        db.execute("INSERT INTO facts SELECT user, 10, recorded_at, 'forged', kind, fields, key, valid_from, "
                   "valid_to, retracts, session_id, message_index, role, session_ts, hash, hash "
                   "FROM facts WHERE user = 'alice' AND id = 9")
    db.close()


# -- the forget bypass ------------------------------------------------------------------------

def test_a_forgetting_row_erases_the_whole_user_and_is_gone_at_once(store: SqliteFactStore) -> None:
    ten_facts(store)
    ten_facts(store, "bob")
    db = raw(store.path)
    db.execute("BEGIN")
    db.execute("INSERT INTO forgetting (user) VALUES ('alice')")
    # The bypass cannot be used for a partial delete, nor for anyone else, nor left behind.
    assert db.execute("SELECT COUNT(*) FROM forgetting").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM facts WHERE user = 'alice'").fetchone()[0] == 0
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM facts WHERE user = 'bob' AND id > 5")
    db.execute("COMMIT")
    db.close()
    assert store.head("bob") == 10 and store.verify().ok
    assert not store.knows("alice")


def test_a_forget_that_would_leave_facts_behind_is_refused(store: SqliteFactStore) -> None:
    """A temporary trigger that skips deleting the older facts cannot turn the bypass into
    a delete of only the newest ones: the forgetting row refuses to go while facts remain."""
    ten_facts(store)
    db = raw(store.path)
    db.execute("CREATE TEMP TRIGGER keep_old BEFORE DELETE ON main.facts WHEN OLD.id <= 7 "
               "BEGIN SELECT RAISE(IGNORE); END")
    with pytest.raises(sqlite3.IntegrityError, match="all of a user or nothing"):
        db.execute("INSERT INTO forgetting (user) VALUES ('alice')")
    db.close()
    assert store.head("alice") == 10 and store.verify("alice").ok


def test_forgetting_rows_cannot_be_edited_or_deleted_early(store: SqliteFactStore) -> None:
    ten_facts(store)
    db = raw(store.path)
    db.execute("DROP TRIGGER forgetting_erases_user")
    db.execute("INSERT INTO forgetting (user) VALUES ('alice')")
    with pytest.raises(sqlite3.IntegrityError, match="never updated"):
        db.execute("UPDATE forgetting SET user = 'bob'")
    with pytest.raises(sqlite3.IntegrityError, match="all of a user or nothing"):
        db.execute("DELETE FROM forgetting WHERE user = 'alice'")
    db.close()
    # A bypass row left behind blocks new facts for that user and is named by verify.
    with pytest.raises(sqlite3.IntegrityError, match="being forgotten"):
        store.append("alice", [NewFact("new")])
    report = store.verify()
    assert not report.ok and report.user == "alice" and "forgetting" in (report.reason or "")


def test_forget_erases_the_mark_so_nothing_tells_the_user_existed(store: SqliteFactStore) -> None:
    ten_facts(store)
    assert store.forget("alice") == 10
    db = raw(store.path)
    assert db.execute("SELECT COUNT(*) FROM id_high_water").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM forgetting").fetchone()[0] == 0
    db.close()
    assert store.append("alice", [NewFact("a new alice")])[0].id == 1
    assert store.verify().ok


# -- keyed chain ------------------------------------------------------------------------------

def test_a_fully_rehashed_chain_fails_keyed_verify(tmp_path: Path) -> None:
    plain = SqliteFactStore(tmp_path / "plain.db")
    keyed = SqliteFactStore(tmp_path / "keyed.db", chain_key=KEY)
    for store in (plain, keyed):
        ten_facts(store)
        assert store.verify().ok
    assert keyed.keyed and not plain.keyed
    fact = keyed.get("alice", 1)
    assert fact.hash == content_hash(fact.body(), KEY) != content_hash(fact.body())

    def lie(f: Fact) -> Fact:
        return replace(f, text="I never said this") if f.id == 3 else f

    for store in (plain, keyed):
        rehash(store.path, "alice", edit=lie)
    assert plain.verify().ok  # unkeyed, a forger who re-hashes everything goes unnoticed
    report = keyed.verify()
    assert not report.ok and report.fact_id == 1 and "keyed hash" in (report.reason or "")
    # Without the key, verify says it cannot check instead of calling everything changed.
    with pytest.raises(InputError, match="cannot verify.*chained with a key"):
        SqliteFactStore(tmp_path / "keyed.db").verify()
    plain.close()
    keyed.close()


def test_erasing_the_keyed_mark_does_not_help_the_forger(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db", chain_key=KEY)
    ten_facts(store)
    rehash(store.path, "alice")
    db = raw(store.path)
    db.execute("DELETE FROM log_meta")
    db.close()
    report = store.verify()
    assert not report.ok and "does not record being keyed" in (report.reason or "")
    store.close()


def test_the_recorded_key_is_fixed_in_the_database(tmp_path: Path) -> None:
    """(What a keyed store refuses through its API is in the store contract suite.)"""
    path = tmp_path / "facts.db"
    SqliteFactStore(path, chain_key=KEY).append("alice", [NewFact("one")])
    with pytest.raises(InputError, match="not the key this log was chained with"):
        SqliteFactStore(path, chain_key=OTHER_KEY)  # SQLite refuses it at opening already
    db = raw(path)
    for attack in ("DELETE FROM log_meta", "UPDATE log_meta SET value = 'x'"):
        with pytest.raises(sqlite3.IntegrityError, match="fixed once written"):
            db.execute(attack)
    db.close()


def test_an_unkeyed_log_cannot_be_declared_keyed_in_the_database(tmp_path: Path) -> None:
    path = tmp_path / "facts.db"
    SqliteFactStore(path).append("alice", [NewFact("one")])
    db = raw(path)
    with pytest.raises(sqlite3.IntegrityError, match="while the log is empty"):
        db.execute("INSERT INTO log_meta VALUES ('chain_key_fingerprint', 'x')")
    db.close()


def test_export_import_between_keyed_and_unkeyed_workspaces(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UAC_CHAIN_KEY", KEY.decode())
    keyed = Memory.open(tmp_path / "keyed")
    keyed.add("alice", "Flying to Tokyo")
    keyed.add("alice", "I like green tea")
    export = tmp_path / "alice.jsonl"
    keyed.export(export, "alice")
    same_key = Memory.open(tmp_path / "same-key")
    assert same_key.import_(export) == 2 and same_key.verify().ok
    assert [f.hash for f in same_key.log("alice")] == [f.hash for f in keyed.log("alice")]
    monkeypatch.delenv("UAC_CHAIN_KEY")
    unkeyed = Memory.open(tmp_path / "unkeyed")
    with pytest.raises(InputError, match="comes from a log chained with a key"):
        unkeyed.import_(export)
    assert unkeyed.users() == []
    unkeyed.add("bob", "plain")
    plain_export = tmp_path / "bob.jsonl"
    unkeyed.export(plain_export, "bob")
    monkeypatch.setenv("UAC_CHAIN_KEY", KEY.decode())
    keyed = Memory.open(tmp_path / "keyed")
    assert keyed.import_(plain_export) == 1  # re-chained under the key
    assert keyed.import_(plain_export) == 0  # and a repeat adds nothing
    [bob] = keyed.log("bob")
    [plain_bob] = unkeyed.log("bob")
    assert bob.body() | {"prev_hash": 0} == plain_bob.body() | {"prev_hash": 0}
    assert bob.hash == content_hash(bob.body(), KEY) != plain_bob.hash
    assert keyed.verify().ok


def test_a_plain_export_is_checked_before_it_is_rechained(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    plain = Memory.open(tmp_path / "plain")
    for text in ("one", "two", "three"):
        plain.add("bob", text)
    export = tmp_path / "bob.jsonl"
    plain.export(export, "bob")
    lines = export.read_text().splitlines(keepends=True)
    monkeypatch.setenv("UAC_CHAIN_KEY", KEY.decode())
    keyed = Memory.open(tmp_path / "keyed")
    changed = tmp_path / "changed.jsonl"
    changed.write_text(lines[0] + lines[1].replace('"two"', '"TWO"') + lines[2])
    with pytest.raises(InputError, match="bob/2: its hash does not match"):
        keyed.import_(changed)
    gap = tmp_path / "gap.jsonl"
    gap.write_text(lines[0] + lines[2])
    with pytest.raises(InputError, match="bob/3: re-chaining .* from fact 1"):
        keyed.import_(gap)
    assert keyed.users() == [] and keyed.import_(export) == 3 and keyed.verify().ok


def test_chain_key_file_must_be_private(tmp_path: Path, uac: Any) -> None:
    home = tmp_path / "h"
    home.mkdir()
    key_file = home / "chain.key"
    key_file.write_bytes(KEY + b"\n")
    key_file.chmod(0o644)
    r = uac("--home", str(home), "add", "alice", "hello")
    assert r.code == 2 and "readable by others" in r.err and "chmod 600" in r.err
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err
    assert not (home / "facts.db").exists() or not SqliteFactStore(home / "facts.db").users()
    key_file.chmod(0o600)
    assert uac("--home", str(home), "add", "alice", "hello").code == 0
    assert uac("--home", str(home), "verify").code == 0
    assert SqliteFactStore(home / "facts.db").keyed
    key_file.unlink()
    r = uac("--home", str(home), "verify")
    assert r.code == 2 and "cannot verify" in r.err and "Traceback" not in r.err


def test_chain_key_from_environment_and_key_file_setting(tmp_path: Path, uac: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "h"
    monkeypatch.setenv("UAC_CHAIN_KEY", "short")
    r = uac("--home", str(home), "add", "alice", "hello")
    assert r.code == 2 and "too short" in r.err
    monkeypatch.delenv("UAC_CHAIN_KEY")
    elsewhere = tmp_path / "secret" / "uac.key"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(KEY)
    elsewhere.chmod(0o640)
    monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(elsewhere))
    assert uac("--home", str(home), "add", "alice", "hello").code == 2
    elsewhere.chmod(0o600)
    assert uac("--home", str(home), "add", "alice", "hello").code == 0
    assert SqliteFactStore(home / "facts.db", chain_key=KEY).verify().ok


# -- anchors ----------------------------------------------------------------------------------

def seeded(home: Path) -> Memory:
    mem = Memory.open(home)
    for i in range(1, 6):
        mem.add("alice", f"Trip {i}", kind="trip", key=f"t{i}", fields={"destination": f"City {i}"})
    mem.checkpoint("alice")
    return mem


def test_versions_record_their_anchor(tmp_path: Path) -> None:
    mem = seeded(tmp_path / "h")
    info = mem.versions.current("alice")
    assert info is not None and info.meta.log_position == 5
    assert info.meta.log_hash == mem.facts.get("alice", 5).hash
    assert json.loads((info.path / "meta.json").read_text())["log_hash"] == info.meta.log_hash


def test_verify_names_the_version_whose_facts_were_deleted(tmp_path: Path, uac: Any) -> None:
    home = tmp_path / "h"
    seeded(home).close()
    db = raw(home / "facts.db")
    drop_triggers(db)  # everything: the mark too, so only the anchor is left to notice
    db.execute("DELETE FROM facts WHERE user = 'alice' AND id >= 4")
    db.execute("UPDATE id_high_water SET last_id = 3")
    db.close()
    r = uac("--home", str(home), "verify", "alice", "--json")
    assert r.code == 1
    report = json.loads(r.out)
    assert report["facts_ok"] is True  # the chain that is left is consistent
    assert report["version_problems"] == [{"user": "alice", "version": 1, "reason":
        "it was built from the log up to fact 5, which the log no longer holds (facts were deleted)"}]
    r = uac("--home", str(home), "verify")
    assert r.code == 1 and "version alice v1" in r.out and "fact 5" in r.out


def test_verify_names_the_version_whose_log_was_rewritten(tmp_path: Path, uac: Any) -> None:
    home = tmp_path / "h"
    seeded(home).close()
    rehash(home / "facts.db", "alice",
           edit=lambda f: replace(f, text="Trip to nowhere") if f.id == 2 else f)
    r = uac("--home", str(home), "verify", "--json")
    report = json.loads(r.out)
    assert r.code == 1 and report["facts_ok"] is True
    [problem] = report["version_problems"]
    assert problem["version"] == 1 and "the log was rewritten" in problem["reason"]


def test_old_metadata_without_an_anchor_still_loads(tmp_path: Path, uac: Any) -> None:
    home = tmp_path / "h"
    mem = seeded(home)
    info = mem.versions.current("alice")
    assert info is not None
    meta = info.path / "meta.json"
    data = json.loads(meta.read_text())
    del data["log_hash"]
    meta.chmod(0o644)
    meta.write_text(json.dumps(data))
    mem.close()
    assert PublishMeta.from_json(data).log_hash is None
    assert uac("--home", str(home), "verify").code == 0
    assert uac("--home", str(home), "query", "alice", "len(trips)").out.strip() == "5"
    with pytest.raises(InputError, match="log_hash"):
        PublishMeta.from_json({**data, "log_hash": "not a hash"})


# -- verify of nobody -------------------------------------------------------------------------

def test_verify_of_an_unknown_user_is_not_ok(tmp_path: Path, uac: Any) -> None:
    home = tmp_path / "h"
    seeded(home).close()
    for user in ("nobody", "alicee"):
        r = uac("--home", str(home), "verify", user)
        assert r.code == 2 and "no such user" in r.err and len(r.err.strip().splitlines()) == 1
    assert uac("--home", str(home), "verify", "alice").code == 0
    assert uac("--home", str(home), "forget", "alice", "--yes").code == 0
    assert uac("--home", str(home), "verify", "alice").code == 2


# -- migration of an existing workspace ---------------------------------------------------------

def m001_log(path: Path, facts: int = 3) -> None:
    """A log as today's code (m001 only) wrote it, by raw SQL."""
    from factlog.migrations import m001_facts

    db = raw(path)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    m001_facts(db)
    db.execute("INSERT INTO _migrations VALUES ('m001_facts', datetime('now'))")
    prev = GENESIS
    for i in range(1, facts + 1):
        fact = Fact(user="alice", id=i, recorded_at="2026-01-01T00:00:00+00:00", text=f"old fact {i}",
                    kind=None, fields={}, key=None, valid_from=None, valid_to=None, retracts=None,
                    provenance=NewFact("x").provenance, prev_hash=prev, hash="")
        fact = replace(fact, hash=content_hash(fact.body()))
        prev = fact.hash
        db.execute(f"INSERT INTO facts VALUES ({', '.join('?' * 16)})", _fact_to_row(fact))
    db.close()


def test_an_unmigrated_log_can_still_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log that cannot be migrated (a read-only workspace written by older code) reads and
    verifies as before m002."""
    import factlog.sqlite

    m001_log(tmp_path / "facts.db")
    monkeypatch.setattr(factlog.sqlite, "migrate", lambda db: None)
    store = SqliteFactStore(tmp_path / "facts.db", chain_key=KEY)
    assert store.head("alice") == 3 and store.high_water("alice") == 0 and store.knows("alice")
    assert not store.keyed and [f.id for f in store.facts("alice")] == [1, 2, 3]
    report = store.verify()
    assert not report.ok and "does not record being keyed" in (report.reason or "")
    assert SqliteFactStore(tmp_path / "facts.db").verify().ok


def test_a_workspace_written_before_m002_opens_migrates_and_verifies(tmp_path: Path, uac: Any) -> None:
    """A log built with only m001 (today's schema, written by raw SQL as today's code wrote
    it) opens with the new code, gets its high-water marks, and keeps verifying."""
    home = tmp_path / "h"
    home.mkdir()
    m001_log(home / "facts.db")
    db = raw(home / "facts.db")
    db.execute("INSERT INTO forgetting VALUES ('ghost')")  # a stray bypass row from before
    db.close()
    assert uac("--home", str(home), "verify").code == 0
    store = SqliteFactStore(home / "facts.db")
    assert store.high_water("alice") == 3
    assert store.append("alice", [NewFact("new fact")])[0].id == 4
    db = raw(home / "facts.db")
    assert [r[0] for r in db.execute("SELECT name FROM _migrations ORDER BY name")][:2] == \
        ["m001_facts", "m002_integrity"]
    assert db.execute("SELECT COUNT(*) FROM forgetting").fetchone()[0] == 0
    db.close()
    assert uac("--home", str(home), "checkpoint", "alice").code == 0
    assert uac("--home", str(home), "verify").code == 0


def test_verify_output_names_a_stripped_keyed_log(tmp_path: Path, uac: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "h"
    monkeypatch.setenv("UAC_CHAIN_KEY", KEY.decode())
    assert uac("--home", str(home), "add", "alice", "hello").code == 0
    rehash(home / "facts.db", "alice", edit=lambda f: replace(f, text="forged"))
    db = raw(home / "facts.db")
    db.execute("DELETE FROM log_meta")
    db.close()
    r = uac("--home", str(home), "verify")
    assert r.code == 1 and "FAILED: a chain key is configured but the log does not record being keyed" in r.out
    assert "None" not in r.out


def test_uac_verify_after_the_newest_facts_were_deleted(tmp_path: Path, uac: Any) -> None:
    home = tmp_path / "h"
    seeded(home).close()
    db = raw(home / "facts.db")
    db.execute("DROP TRIGGER facts_no_delete")
    db.execute("DELETE FROM facts WHERE user = 'alice' AND id >= 4")
    db.close()
    r = uac("--home", str(home), "verify")
    assert r.code == 1
    assert "FAILED at fact alice/4: the log once held facts up to id 5; facts 4-5 are missing" in r.out
    assert "FAILED version alice v1: it was built from the log up to fact 5" in r.out
    assert uac("--home", str(home), "add", "alice", "new").out.startswith("added fact 6 ")

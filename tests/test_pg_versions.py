"""Versions and alert state in PostgreSQL (`users.pg_versions`, `constraints.pg_alert_state`):
two homes on one database behave as two machines sharing one store."""

from __future__ import annotations

import multiprocessing
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest
from store_packages import PER_CHUNK, manifest, meta, package

from factlog.errors import InputError, NotFound
from runtime.memory import Memory
from users.checkpoint import Published, Unchanged
from users.pg_versions import PgVersionStore
from users.versions import PublishMeta

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _facts(mem: Memory, user: str = "alice") -> None:
    mem.add(user, "Flying to Tokyo", kind="trip",
            fields={"destination": "Tokyo", "departure_date": "2025-01-15", "cost_usd": 1200})
    mem.add(user, "Passport", kind="document",
            fields={"document_type": "passport", "expiry_date": "2025-01-20"})


def _pg(mem: Memory) -> PgVersionStore:
    store = mem.versions
    assert isinstance(store, PgVersionStore)
    return store


@pytest.fixture
def homes(tmp_path: Path, pg_url: str):  # type: ignore[no-untyped-def]
    one = Memory.open(tmp_path / "one", store=pg_url)
    two = Memory.open(tmp_path / "two", store=pg_url)
    yield one, two
    one.close()
    two.close()


def _hand_published(mem: Memory, chunks: int = 2, position: int = 1) -> None:
    """A package with a parted manifest (a tree of pieces), published without compiling."""
    mem.versions.publish("alice", package(chunks), meta(position), manifest=manifest(chunks))


@pytest.mark.slow  # a first checkpoint in a new home: mypy without a cache
def test_a_version_published_by_one_home_is_queried_by_another_without_compiling(homes) -> None:  # type: ignore[no-untyped-def]
    one, two = homes
    _facts(one)
    first = one.checkpoint_and_alert("alice", NOW)
    assert isinstance(first.result, Published)
    assert two.query("alice", "len(trips)").value == 1
    assert two.checkpoints.__dict__.get("_validator") is None  # nothing was compiled or validated there
    assert _pg(two).fetched == 1
    assert (two.workspace.users_dir / "alice" / "v000001" / "__init__.py").is_file()
    assert [e.action for e in two.versions.events("alice")] == ["publish"]
    assert two.versions.users() == ["alice"]
    # the alert state is PostgreSQL's: what one home announced, the other does not again
    assert first.alerts is not None and first.alerts.raised
    again = two.alerts("alice", NOW)
    assert not again.raised and again.still_active
    assert not (two.workspace.users_dir / "alice" / "alerts.json").exists()
    assert two.agent_manifest("alice").alerts_version == 1
    # the same log in the other home: its log position is published already
    if two.facts.head("alice") == 0:  # a fact log of its own: the same facts, the same log position
        _facts(two)
    assert isinstance(two.checkpoint("alice"), Unchanged)
    assert [v.number for v in one.versions.history("alice")] == [1]


FIRST_CITY = """
from constraints import Finding, constraint


@constraint(name="first_city", needs=("trips",))
def first_city(module, now):
    for t in module.trips[:1]:
        yield Finding("warning", f"{t.city} comes first", records=(t,))
"""


def test_an_alert_announced_by_one_home_is_not_announced_again_by_another(homes) -> None:  # type: ignore[no-untyped-def]
    one, two = homes
    for mem in (one, two):
        (mem.workspace.home / "constraints").mkdir()
        (mem.workspace.home / "constraints" / "first_city.py").write_text(FIRST_CITY)
    _hand_published(one)
    first = one.alerts("alice", NOW)
    assert [a.constraint for a in first.raised] == ["first_city"]
    again = two.alerts("alice", NOW)
    assert not again.raised and [a.constraint for a in again.still_active] == ["first_city"]
    assert not (two.workspace.users_dir / "alice" / "alerts.json").exists()
    assert two.agent_manifest("alice").alerts_version == 1


def test_the_other_home_sees_a_rollback_and_diffs_history(homes) -> None:  # type: ignore[no-untyped-def]
    one, two = homes
    _hand_published(one, 2, 1)
    one.versions.publish("alice", package(3), meta(2), manifest=manifest(3))
    assert two.query("alice", "len(trips)").value == 3 * PER_CHUNK
    one.rollback("alice", 1)
    assert two.versions.current("alice").number == 1  # type: ignore[union-attr]
    assert two.query("alice", "len(trips)").value == 2 * PER_CHUNK
    assert [v.number for v in two.versions.history("alice")] == [1, 2]
    assert {c.change for c in two.diff("alice", 1, 2).records} == {"added"}
    assert two.manifest("alice", 2).collections["trips"].size == 3 * PER_CHUNK
    assert [e.action for e in two.versions.events("alice")] == ["publish", "publish", "rollback"]
    assert two.versions.verify("alice") == []


def _publish(url: str, home: str, start: multiprocessing.synchronize.Event, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from users.pg_versions import open_versions

    store = open_versions(url, Path(home))
    start.wait()
    info = store.publish_if_newer("alice", {"__init__.py": f"X = {os.getpid()}\n"},
                                  PublishMeta(log_position=5, input_hash="0" * 64, producer="test"))
    out.put(None if info is None else info.number)
    store.close()


def test_concurrent_publishes_of_one_log_position_from_two_processes_make_one_version(
        tmp_path: Path, pg_url: str) -> None:
    ctx = multiprocessing.get_context("fork")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_publish, args=(pg_url, str(tmp_path / f"h{i}"), start, out)) for i in range(2)]
    for proc in procs:
        proc.start()
    start.set()
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    results = sorted([out.get(timeout=5), out.get(timeout=5)], key=lambda r: r or 0)
    assert results == [None, 1]
    mem = Memory.open(tmp_path / "reader", store=pg_url)
    assert [v.number for v in mem.versions.history("alice")] == [1]
    mem.close()


def test_a_tampered_cache_file_is_refetched_never_imported(homes) -> None:  # type: ignore[no-untyped-def]
    one, two = homes
    _hand_published(one)
    assert two.query("alice", "len(trips)").value == 2 * PER_CHUNK
    two.close()
    init = two.workspace.users_dir / "alice" / "v000001" / "__init__.py"
    os.chmod(init, 0o644)
    init.write_text("raise SystemExit('tampered code ran')\n")
    three = Memory.open(two.workspace.home, store=one.store_url)
    try:
        assert three.query("alice", "len(trips)").value == 2 * PER_CHUNK
        assert _pg(three).fetched == 1
        assert "tampered" not in init.read_text()
        assert three.versions.verify("alice") == []
    finally:
        three.close()


def test_a_missing_cache_file_is_refetched(homes) -> None:  # type: ignore[no-untyped-def]
    one, two = homes
    _hand_published(one)
    info = two.versions.current("alice")
    assert info is not None
    os.chmod(info.path, 0o755)
    (info.path / "trip_001.py").unlink()
    assert two.query("alice", "len(trips)").value == 2 * PER_CHUNK


def test_forget_removes_everything_in_postgresql_and_both_caches(homes) -> None:  # type: ignore[no-untyped-def]
    one, two = homes
    _hand_published(one)
    one.alerts("alice", NOW)
    assert two.query("alice", "len(trips)").value == 2 * PER_CHUNK
    with _pg(one).pool.connection() as conn:
        assert conn.execute("SELECT count(*) FROM alert_states").fetchone() == (1,)
    one.forget("alice")
    with _pg(one).pool.connection() as conn:
        for table in ("versions", "version_blobs", "version_pointers", "version_events", "alert_states"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
    assert two.versions.current("alice") is None
    assert not two.versions._numbers(two.workspace.users_dir / "alice")
    with pytest.raises(NotFound):
        two.module("alice")


def test_a_checkpoint_that_read_the_log_before_a_forget_elsewhere_does_not_publish(homes) -> None:  # type: ignore[no-untyped-def]
    from users.store import ForgottenMeanwhile

    one, two = homes
    epoch = two.versions.epoch()
    one.forget("bob")
    with pytest.raises(ForgottenMeanwhile):
        two.versions.publish_if_newer("bob", {"__init__.py": "X = 1\n"}, PublishMeta(log_position=1, input_hash="0" * 64, producer="t"),
                                      epoch=epoch)


def test_a_cached_meta_json_rewritten_to_match_tampered_code_is_not_trusted(homes) -> None:  # type: ignore[no-untyped-def]
    import hashlib
    import json

    one, two = homes
    _hand_published(one)
    folder = two.workspace.users_dir / "alice"
    assert two.versions.current("alice") is not None
    two.close()
    version = folder / "v000001"
    os.chmod(version, 0o755)
    evil = "raise SystemExit('tampered code ran')\n"
    for name in ("__init__.py", "meta.json"):
        (version / name).unlink()  # its blob keeps the published bytes
    (version / "__init__.py").write_text(evil)
    data = json.loads(one.versions.get("alice", 1).meta_bytes())
    data["file_sha256"]["__init__.py"] = hashlib.sha256(evil.encode()).hexdigest()
    (version / "meta.json").write_text(json.dumps(data))
    three = Memory.open(two.workspace.home, store=one.store_url)
    try:
        assert three.query("alice", "len(trips)").value == 2 * PER_CHUNK
        assert "tampered" not in (version / "__init__.py").read_text()
    finally:
        three.close()


def test_a_publish_that_fails_in_postgresql_leaves_it_as_it_was_and_the_cache_recovers(
        homes, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    one, _two = homes
    store = _pg(one)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the server went away")

    with monkeypatch.context() as patch:
        patch.setattr(PgVersionStore, "_store_version", broken)
        with pytest.raises(RuntimeError):
            _hand_published(one)
    with store.pool.connection() as conn:
        assert conn.execute("SELECT count(*) FROM versions").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM version_pointers").fetchone() == (0,)
    assert store.current("alice") is None
    _hand_published(one)  # the folder the failed publish left is removed, its number taken again
    assert [v.number for v in store.history("alice")] == [1]
    assert one.query("alice", "len(trips)").value == 2 * PER_CHUNK


def test_an_alert_state_is_not_written_for_a_user_without_versions(homes) -> None:  # type: ignore[no-untyped-def]
    from constraints import AlertDiff
    from constraints.pg_alert_state import PgAlertStates
    from constraints.state import AlertState

    one, _two = homes
    states = PgAlertStates(_pg(one).pool)
    with states.held("bob") as (state, save):  # a run that raced bob's forget
        save(AlertState(evaluated_at=NOW, version=1), AlertDiff((), (), ()))
    assert states.load("bob") == AlertState()


def test_gc_of_a_postgresql_store_is_refused(homes) -> None:  # type: ignore[no-untyped-def]
    one, _two = homes
    _hand_published(one)
    with pytest.raises(InputError, match="not supported"):
        one.gc("alice", 1)

"""Work a full checkpoint leaves to forked children: the compile state written behind the
compile (`codegen.state_write`) and the log summary made while the compile runs
(`users.log_summary.start_summary`). Each gives what the parent alone would have made; a
state is used only once written; a writer that dies, or finds the state moved on, leaves
the state as it was and the next compile rebuilds or follows it with the same bytes."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from fact_helpers import make_fact

import codegen.compile_state
import codegen.producer
import users.log_summary
from codegen import state_write
from codegen.compile import ListLog, compile_incremental, compile_package
from codegen.log_view import StoreLog
from factlog.model import Fact, NewFact
from runtime.memory import Memory
from users.checkpoint import Published
from users.log_summary import forget_kept, start_summary, summarize

USER = "ana"


def _log(n: int, start: int = 1) -> list[Fact]:
    kinds = ("trip", "pet", "book")
    facts = [make_fact(i, f"f{i}", kind=kinds[i % 3], key=f"k{i % 40}", fields={"n": i, "c": f"x{i % 7}"})
             for i in range(start, start + n)]
    facts += [make_fact(start + n, "a note on 2024-03-04")]
    return facts


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}


def test_a_state_written_behind_holds_the_rows_written_inline(tmp_path: Path) -> None:
    facts = _log(120)
    inline = compile_incremental("alice", tmp_path / "inline.sqlite", ListLog(facts), chunk_records=7)
    behind = compile_incremental("alice", tmp_path / "behind.sqlite", ListLog(facts), chunk_records=7, write_behind=0)
    assert inline.writing is None and behind.writing is not None
    assert behind.files == inline.files == compile_package("alice", facts, chunk_records=7).files
    assert behind.writing.wait() == "written"
    assert behind.writing.wait() == "written"  # once over, waiting again is a no-op
    assert _rows(tmp_path / "behind.sqlite") == _rows(tmp_path / "inline.sqlite")
    more = [*facts, *_log(30, start=len(facts) + 1)]
    followed = compile_incremental("alice", tmp_path / "behind.sqlite", ListLog(more), chunk_records=7)
    assert followed.rebuilt is None and followed.files == compile_package("alice", more, chunk_records=7).files


def test_a_compile_waits_for_the_write_of_its_state(tmp_path: Path) -> None:
    facts = _log(80)
    path = tmp_path / "s.sqlite"
    first = compile_incremental("alice", path, ListLog(facts), chunk_records=7, write_behind=0)
    assert first.writing is not None and first.writing.status == "running"
    more = [*facts, *_log(5, start=len(facts) + 1)]
    second = compile_incremental("alice", path, ListLog(more), chunk_records=7)  # no wait by the caller
    assert first.writing.status == "written"
    assert second.rebuilt is None and second.files == compile_package("alice", more, chunk_records=7).files


def test_a_small_rebuild_writes_its_state_itself(tmp_path: Path) -> None:
    compiled = compile_incremental("alice", tmp_path / "s.sqlite", ListLog(_log(20)), write_behind=1000)
    assert compiled.writing is None and _rows(tmp_path / "s.sqlite")["entities"]


def test_a_writer_that_dies_leaves_the_state_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    facts = _log(100)
    path = tmp_path / "s.sqlite"
    compile_incremental("alice", path, ListLog(facts[:40]), chunk_records=7)
    before = _rows(path)
    real = codegen.compile_state.replay

    def dies(db: codegen.compile_state.StateDb, writes: list[codegen.compile_state.Write]) -> None:
        real(db, writes[: len(writes) // 2])  # half of the rows, then the process is gone
        os._exit(9)

    monkeypatch.setattr(state_write, "replay", dies)
    other = [make_fact(i, "g", kind="other", fields={"x": i}) for i in range(1, 101)]  # another log: a rebuild
    rebuilt = compile_incremental("alice", path, ListLog(other), chunk_records=7, write_behind=0)
    assert rebuilt.writing is not None and rebuilt.writing.wait() == "failed"
    assert _rows(path) == before  # nothing of the half-written transaction
    monkeypatch.setattr(state_write, "replay", real)
    again = compile_incremental("alice", path, ListLog(other), chunk_records=7)
    assert again.rebuilt == "log does not continue the state"
    assert again.files == compile_package("alice", other, chunk_records=7).files
    assert compile_incremental("alice", path, ListLog(facts), chunk_records=7).files == \
        compile_package("alice", facts, chunk_records=7).files


def test_a_writer_leaves_a_state_another_process_moved_on(tmp_path: Path) -> None:
    facts = _log(60)
    path = tmp_path / "s.sqlite"
    db = codegen.compile_state.DeferredState()
    db.set_meta({"format": "x", "position": "1"})
    writes = list(db.writes)
    db.close()
    compile_incremental("alice", path, ListLog(facts), chunk_records=7)
    before = _rows(path)
    assert state_write.write(path, {}, writes) is False  # the state is no longer the one read
    assert _rows(path) == before
    assert state_write.start(path, {"stale": "1"}, writes, 10).wait() == "left"
    assert _rows(path) == before


def test_a_summary_made_by_a_child_is_the_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = Memory.open(tmp_path / "home")
    try:
        mem.facts.append(USER, [NewFact(f"f{i}", kind="trip", key=f"k{i % 9}", fields={"n": i}) for i in range(60)])
        mem.retract(USER, 5)
        forget_kept()
        path = tmp_path / "summary.sqlite"
        log = StoreLog(mem.facts, USER, mem.facts.head(USER))
        job = start_summary(path, log, "e", fork_min=10)
        assert job.forked and log.holds_all
        whole = summarize(None, log, "e")
        assert job.live == whole.live  # before the child is done: read off the log
        made = job.result()
        assert (made.position, made.live, made.retractions, made.live_sum) == \
            (whole.position, whole.live, whole.retractions, whole.live_sum)
        assert str(path) in users.log_summary._KEPT  # kept as if this process had written it
        mem.facts.append(USER, [NewFact("g", kind="pet", fields={"n": 1})])
        log = StoreLog(mem.facts, USER, mem.facts.head(USER))
        again = start_summary(path, log, "e", fork_min=10)
        assert not again.forked and not log.holds_all  # it follows the file: one new fact read
        assert again.result().live == summarize(None, log, "e").live
        # a child that gives no summary: the parent makes it
        forget_kept()
        path.unlink()
        monkeypatch.setattr(users.log_summary, "summarize", _exit_in_child(users.log_summary.summarize))
        log = StoreLog(mem.facts, USER, mem.facts.head(USER))
        failing = start_summary(path, log, "e", fork_min=10)
        assert failing.forked
        assert failing.result().live_sum == summarize(None, log, "e").live_sum
    finally:
        mem.close()


def _exit_in_child(real: object) -> object:
    parent = os.getpid()

    def run(*args: object, **kwargs: object) -> object:
        if os.getpid() != parent:
            os._exit(3)
        return real(*args, **kwargs)  # type: ignore[operator]
    return run


def test_a_checkpoint_with_its_summary_and_state_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[state_write.StateWrite] = []
    real_start = state_write.start

    def start(*args: object) -> state_write.StateWrite:
        write = real_start(*args)  # type: ignore[arg-type]
        started.append(write)
        return write

    monkeypatch.setattr(state_write, "start", start)
    mem = Memory.open(tmp_path / "behind")
    mem.facts.append(USER, [NewFact(f"f{i}", kind=("trip", "pet")[i % 2], key=f"k{i % 13}", fields={"n": i})
                            for i in range(50)])
    mem.retract(USER, 4)
    mem.close()
    shutil.copytree(tmp_path / "behind", tmp_path / "inline")
    homes: dict[str, tuple[object, ...]] = {}
    states: dict[str, dict[str, list[tuple[object, ...]]]] = {}
    for side, least in (("behind", 1), ("inline", 10**9)):
        monkeypatch.setattr(codegen.producer, "WRITE_BEHIND_FACTS", least)
        monkeypatch.setattr(users.log_summary, "FORK_MIN_FACTS", least)
        forget_kept()
        mem = Memory.open(tmp_path / side)
        try:
            result = mem.checkpoint(USER)
            assert isinstance(result, Published), result
            homes[side] = (mem.versions.files(USER, result.version.number), result.version.meta.input_hash,
                           result.version.meta.retractions)
            if side == "behind":  # the writer was waited for before the checkpoint returned
                assert [w.status for w in started] == ["written"]
                assert not [path for path in state_write._PENDING if path.startswith(str(tmp_path))]
            states[side] = _rows(next((tmp_path / side).rglob("compile.sqlite")))
            mem.facts.append(USER, [NewFact("one more", kind="pet", fields={"n": 1})])
            again = mem.checkpoint(USER)
            assert isinstance(again, Published), again
            assert mem.versions.files(USER, again.version.number) == compile_package(USER, list(mem.log(USER))).files
        finally:
            mem.close()
    assert len(started) == 1  # the +1 and the inline side write their state themselves
    assert homes["behind"] == homes["inline"]
    assert states["behind"] == states["inline"]

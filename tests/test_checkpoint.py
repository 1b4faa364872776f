"""Checkpoint: log → compile → validate → publish, through `Memory`, `users.checkpoint` and `uac`.

Real SQLite, real mypy, real imports. Each test works in its own copy of a seeded workspace
(tests/uac_home.py) so the mypy cache is warm.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from uac_home import PASSPORT, TEA, USER, clone_home, dropping_producer, hostile_producer, mistyped_producer, seed_v1

import runtime.checkpoint_service
import users.checkpoint
from factlog.model import Fact
from runtime.memory import Memory
from users.checkpoint import Failed, Producer, Published, Unchanged

Uac = Callable[..., Any]
STAGES = ("compile", "safety", "mypy", "import", "coverage")


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")


def version_dirs(mem: Memory, user: str = USER) -> list[str]:
    return sorted(p.name for p in mem.versions.user_dir(user).iterdir() if p.name.startswith("v"))


def stage_leftovers(mem: Memory) -> list[Path]:
    stage = mem.workspace.cache_dir / "stage"
    return list(stage.iterdir()) if stage.exists() else []


# -- through Memory --------------------------------------------------------------------------

def test_first_checkpoint_publishes_v1_then_unchanged_then_v2(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "fresh")
    try:
        assert isinstance(mem.checkpoint(USER), Unchanged)  # no facts: nothing to publish
        assert mem.versions.history(USER) == []
        seed_v1(mem)
        first = mem.checkpoint(USER)
        assert isinstance(first, Published), first
        assert first.version.number == 1 and first.version.parent is None
        assert first.new_facts == 4
        meta = first.version.meta
        assert meta.producer == "compiler" and meta.log_position == 4
        assert mem.manifest(USER, 1).record_counts() == {"trips": 2, "passport": 1, "notes": 1}
        assert set(STAGES) <= set(meta.timings) and all(t >= 0 for t in meta.timings.values())
        assert set(first.timings) == {*STAGES, "publish"}

        again = mem.checkpoint(USER)
        assert isinstance(again, Unchanged) and again.version is not None and again.version.number == 1
        assert "no new facts" in again.reason
        assert [v.number for v in mem.versions.history(USER)] == [1]
        assert version_dirs(mem) == ["v000001"]

        fact = mem.add(USER, "I also like oolong")
        second = mem.checkpoint(USER)
        assert isinstance(second, Published)
        assert second.version.number == 2 and second.version.parent == 1 and second.new_facts == 1
        assert second.version.meta.log_position == fact.id == 5
        assert mem.manifest(USER, 2).record_counts()["notes"] == 2
        history = mem.versions.history(USER)
        assert [(v.number, v.meta.log_position, v.meta.producer) for v in history] == [
            (1, 4, "compiler"), (2, 5, "compiler")]
        assert mem.versions.current(USER) == second.version
        assert [n.text for n in mem.query(USER, "notes").value] == [TEA, "I also like oolong"]  # type: ignore[union-attr]
    finally:
        mem.close()


def run_with(mem: Memory, producer: Producer) -> users.checkpoint.CheckpointResult:
    return users.checkpoint.checkpoint(mem.facts, mem.versions, mem.validator, USER,
                                       stage_root=mem.workspace.cache_dir / "stage", producer=producer)


@pytest.mark.parametrize("which, stage", [("hostile", "safety"), ("mistyped", "mypy"), ("dropping", "coverage")])
def test_failed_validation_keeps_current_version_and_log(mem: Memory, tmp_path: Path, which: str, stage: str) -> None:
    marker = tmp_path / "X"
    producer: Producer = {"hostile": hostile_producer(marker), "mistyped": mistyped_producer,
                          "dropping": dropping_producer}[which]
    mem.add(USER, "A fact the bad producer must not lose")
    before: list[Fact] = list(mem.log(USER))
    current = mem.versions.current(USER)
    assert current is not None and current.number == 2
    dirs = version_dirs(mem)

    result = run_with(mem, producer)

    assert isinstance(result, Failed), result
    assert result.stage == stage, result.message
    assert result.problems and stage in result.message
    assert result.current == current
    assert mem.versions.current(USER) == current
    assert version_dirs(mem) == dirs
    assert [e.action for e in mem.versions.events(USER)] == ["publish", "publish"]
    assert list(mem.log(USER)) == before
    assert mem.verify(USER).ok
    assert not marker.exists()
    assert stage_leftovers(mem) == []
    # Nothing was lost: the real compiler publishes every fact on the next try.
    retry = mem.checkpoint(USER)
    assert isinstance(retry, Published) and retry.version.number == 3
    assert "A fact the bad producer must not lose" in mem.query(USER, "[n.text for n in notes]").value  # type: ignore[union-attr, operator]


def test_mypy_failure_names_the_error(mem: Memory) -> None:
    mem.add(USER, "one more")
    result = run_with(mem, mistyped_producer)
    assert isinstance(result, Failed) and result.stage == "mypy"
    assert any("bad_count" in p.message or "assignment" in str(p) for p in result.problems), result.message


# -- through the CLI -----------------------------------------------------------------------

def test_cli_checkpoint_publishes_and_reports(uac: Uac, home: Path) -> None:
    assert uac("--home", str(home), "add", USER, "new note").code == 0
    r = uac("--home", str(home), "checkpoint", USER, "--now", "2026-12-01")
    assert r.code == 0, r.err
    assert "published" in r.out and "v3" in r.out
    r = uac("--home", str(home), "checkpoint", USER, "--json")
    assert r.code == 0
    assert json.loads(r.out)["outcome"] == "unchanged"


def test_cli_checkpoint_failure_exits_1_and_keeps_last_good_version(
        uac: Uac, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "X"
    real = users.checkpoint.checkpoint

    def bad_checkpoint(*args: Any, **kwargs: Any) -> users.checkpoint.CheckpointResult:
        return real(*args, **{**kwargs, "producer": hostile_producer(marker)})

    monkeypatch.setattr(runtime.checkpoint_service, "checkpoint", bad_checkpoint)
    assert uac("--home", str(home), "add", USER, "trigger").code == 0
    r = uac("--home", str(home), "checkpoint", USER)
    assert r.code == 1
    assert "FAILED" in r.err and "v2 stays current" in r.err
    assert "safety" in r.err and "import" in r.err  # the stage and the rule that failed
    r = uac("--home", str(home), "checkpoint", USER, "--json")
    assert r.code == 1
    data = json.loads(r.out)
    assert data["outcome"] == "failed" and data["stage"] == "safety" and data["current_version"] == 2
    assert data["problems"]
    assert not marker.exists()
    history = json.loads(uac("--home", str(home), "history", USER, "--json").out)
    assert [(v["version"], v["current"]) for v in history] == [(1, False), (2, True)]
    assert uac("--home", str(home), "verify", USER).code == 0
    assert json.loads(uac("--home", str(home), "query", USER, "len(trips)", "--json").out)["value"] == 3


HOSTILE_TEXT = "\"); import os; os.system('touch {pwned}') #"
HOSTILE_FIELD = "'''\"\"\" + __import__('os').system('touch {pwned}') # \\ \\n \\N{{BULLET}} \u2022\nline two\\"


def test_hostile_fact_text_is_data_not_code(uac: Uac, home: Path, tmp_path: Path) -> None:
    pwned = tmp_path / "PWNED"
    note = HOSTILE_TEXT.format(pwned=pwned)
    field = HOSTILE_FIELD.format(pwned=pwned)
    assert "\\N{BULLET}" in field and "\n" in field and '"""' in field
    h = ("--home", str(home))
    r = uac(*h, "add", USER, note)
    assert r.code == 0, r.err
    r = uac(*h, "add", USER, "a trip", "--kind", "trip", "--key", "evil", "--field", f"destination={field}",
            "--field", f"purpose={note}", "--field", "departure_date=2025-05-01", "--json")
    assert r.code == 0, r.err
    fact = json.loads(r.out)
    assert fact["fields"]["destination"] == field  # stored exactly

    r = uac(*h, "checkpoint", USER, "--json")
    assert r.code == 0, r.out + r.err
    assert json.loads(r.out)["outcome"] == "published"

    notes = json.loads(uac(*h, "query", USER, "[n.text for n in notes]", "--json").out)["value"]
    assert note in notes
    trip = json.loads(uac(*h, "query", USER, "[t for t in trips if t.fact_ids == [%d]][0]" % fact["id"],
                          "--json").out)["value"]
    assert trip["destination"] == field and trip["purpose"] == note
    assert trip["departure_date"] == "2025-05-01"
    assert not pwned.exists()
    # The note text reaches recall as the same text too.
    recalled = json.loads(uac(*h, "recall", USER, "touch PWNED os system", "--json").out)
    assert any(note in item["text"] for item in recalled["items"])
    assert not pwned.exists()


# -- retraction and rollback ------------------------------------------------------------------

def test_retracted_trip_leaves_the_next_version_and_diff_cites_the_retraction(uac: Uac, home: Path) -> None:
    h = ("--home", str(home))
    r = uac(*h, "retract", USER, "2", "--reason", "cancelled", "--json")
    assert r.code == 0, r.err
    retraction = json.loads(r.out)["id"]
    assert uac(*h, "checkpoint", USER).code == 0
    destinations = json.loads(uac(*h, "query", USER, "sorted(t.destination for t in trips)", "--json").out)
    assert destinations["value"] == ["Lisbon", "Tokyo"]
    assert json.loads(uac(*h, "query", USER, "len(trips)", "--version", "2", "--json").out)["value"] == 3

    d = json.loads(uac(*h, "diff", USER, "--json").out)
    assert (d["from"], d["to"]) == (2, 3)
    removed = [rec for rec in d["records"] if rec["change"] == "removed"]
    assert len(removed) == 1
    assert removed[0]["attribute"] == "trips" and "Chicago" in removed[0]["label"]
    assert removed[0]["retracted_by"] == [retraction]
    assert retraction in removed[0]["fact_ids"]
    text = uac(*h, "diff", USER).out
    assert f"retracted by {retraction}" in text and "- trips" in text


def test_rollback_then_query_history_and_next_checkpoint_takes_a_new_number(uac: Uac, home: Path) -> None:
    h = ("--home", str(home))
    r = uac(*h, "rollback", USER, "1")
    assert r.code == 0 and "v1 is current again" in r.out
    assert json.loads(uac(*h, "query", USER, "len(trips)", "--json").out)["value"] == 2
    assert json.loads(uac(*h, "query", USER, "passport.expiry_date", "--json").out)["value"] == PASSPORT["expiry_date"]
    history = json.loads(uac(*h, "history", USER, "--json").out)
    assert [(v["version"], v["current"]) for v in history] == [(1, True), (2, False)]

    r = uac(*h, "checkpoint", USER, "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["outcome"] == "published" and data["version"] == 3  # numbers are never reused
    history = json.loads(uac(*h, "history", USER, "--json").out)
    assert [(v["version"], v["parent"], v["current"]) for v in history] == [
        (1, None, False), (2, 1, False), (3, 1, True)]
    assert json.loads(uac(*h, "query", USER, "len(trips)", "--json").out)["value"] == 3

"""A workspace written before formats were versioned (tests/fixtures/workspace_2026_12.tar.gz,
never regenerated) still opens and works, through `Memory` and the CLI: every command
reads it, and those that write (alerts, checkpoint, rollback, export) update it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
from old_workspace import old_workspace

from runtime.memory import Memory

Uac = Callable[..., Any]
FIXTURE = old_workspace()
NOW = "2026-12-01"
MEDICATION = "medication_allergy:f24+f25"
PASSPORT = "passport_valid_for_trips:f16+f23"


@pytest.fixture
def old(tmp_path: Path) -> Path:
    home = tmp_path / "old"
    shutil.copytree(FIXTURE, home)
    return home


def run(uac: Uac, home: Path, *args: str) -> Any:
    r = uac("--home", str(home), *args, "--json")
    assert r.code == 0, (args, r.code, r.out, r.err)
    return json.loads(r.out)


def test_reading_commands(uac: Uac, old: Path) -> None:
    assert run(uac, old, "users") == [{"user": "ana", "facts": 2}, {"user": "sam", "facts": 27}]
    log = run(uac, old, "log", "sam")
    assert [f["id"] for f in log] == list(range(1, 28)) and log[-1]["kind"] == "passport"
    report = run(uac, old, "verify")
    assert report["ok"] and report["checked"] == 29 and report["version_problems"] == []

    history = run(uac, old, "history", "sam")
    assert [(v["version"], v["parent"], v["current"]) for v in history] == [(1, None, True), (2, 1, False)]
    mem = Memory.open(old, read_only=True)
    assert [(e.action, e.version, e.previous) for e in mem.versions.events("sam")] == [
        ("publish", 1, None), ("publish", 2, 1), ("rollback", 1, 2)]
    assert mem.versions.current("sam").number == 1  # type: ignore[union-attr]

    shown = run(uac, old, "show", "sam")
    assert shown["version"] == 1 and shown["log_position"] == 26 and "passport.py" in shown["files"]
    assert run(uac, old, "show", "ana")["record_counts"] == {"notes": 1, "trips": 1}

    diff = run(uac, old, "diff", "sam", "1", "2")
    assert diff["summary"]["records_changed"] == 1
    [change] = diff["records"]
    assert (change["attribute"], change["fact_ids"]) == ("passport", [27])
    assert [(f["field"], f["before"], f["after"]) for f in change["fields"]] == [
        ("number", "P8812734", "P9120455"), ("issue_date", "2017-03-04", "2026-11-21"),
        ("expiry_date", "2027-03-03", "2036-11-20")]

    assert run(uac, old, "query", "sam", "[t.destination for t in trips]")["value"] == [
        "Lisbon", "Chicago", "Mexico City", "Seattle", "Reykjavik", "Tokyo"]
    assert run(uac, old, "query", "sam", "passport.expiry_date", "--version", "2")["value"] == "2036-11-20"
    assert run(uac, old, "query", "ana", "trips[0].destination")["value"] == "Lisbon"

    recalled = run(uac, old, "recall", "sam", "when does my passport expire")
    assert recalled["items"][0]["fact_ids"] == [16, 26]


def test_alert_state_is_read_and_updated(uac: Uac, old: Path) -> None:
    state_path = old / "users" / "sam" / "alerts.json"
    before = json.loads(state_path.read_text())
    alerts = run(uac, old, "alerts", "sam", "--now", NOW)
    assert alerts["raised"] == [] and alerts["resolved"] == []  # the stored state was read: nothing is new
    assert [a["id"] for a in alerts["still_active"]] == [MEDICATION, PASSPORT]
    after = json.loads(state_path.read_text())
    assert after["format"] == 1 and after["evaluated_at"] == "2026-12-01T00:00:00+00:00"
    assert after["active"] == before["active"]  # raised_at / raised_version kept from the old file
    assert after["history"] == before["history"]


def test_checkpoint_rollback_and_export(uac: Uac, old: Path, tmp_path: Path) -> None:
    run(uac, old, "add", "sam", "Dentist on 2026-12-14 at Elm Street")
    published = run(uac, old, "checkpoint", "sam", "--now", NOW)
    assert published["outcome"] == "published" and published["version"] == 3
    assert published["log_position"] == 28
    alerts = published["alerts"]
    assert [a["id"] for a in alerts["resolved"]] == [PASSPORT]  # v3 holds the renewed passport (fact 27)
    assert [a["id"] for a in alerts["still_active"]] == [MEDICATION]
    state = json.loads((old / "users" / "sam" / "alerts.json").read_text())
    assert [h["resolved_version"] for h in state["history"]] == [2, 3]  # the old history is kept
    assert run(uac, old, "show", "sam")["parent"] == 1  # the rolled-back-to version was current

    assert run(uac, old, "rollback", "sam", "2")["version"] == 2
    mem = Memory.open(old, read_only=True)
    assert [(e.action, e.version) for e in mem.versions.events("sam")][-2:] == [("publish", 3), ("rollback", 2)]
    assert run(uac, old, "verify")["ok"]

    out = tmp_path / "export.jsonl"
    assert run(uac, old, "export", str(out))
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(lines) == 30 and all(line["format"] == 1 for line in lines)
    fresh = Memory.open(tmp_path / "fresh")
    assert fresh.import_(out) == 30 and fresh.verify().ok
    assert [f.hash for f in fresh.log("sam")] == [f.hash for f in mem.log("sam")]


def test_a_damaged_alert_state_is_one_line_and_left_as_it_is(uac: Uac, old: Path) -> None:
    state_path = old / "users" / "sam" / "alerts.json"
    damaged = state_path.read_text().replace('"severity": "critical"', '"severity": "dire"')
    state_path.write_text(damaged)
    r = uac("--home", str(old), "alerts", "sam", "--now", NOW)
    assert r.code == 2 and r.err.startswith("error: ") and r.err.count("\n") == 1, r
    assert "alerts.json" in r.err and "severity" in r.err
    assert state_path.read_text() == damaged

"""The checkpoint policy, `ingest --checkpoint`, and the watcher's clock tick."""

from __future__ import annotations

import json
import threading
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from runtime.memory import CheckpointReport, Memory
from runtime.watch import Watcher
from users.checkpoint import CheckpointPolicy, Published, Unchanged


@pytest.mark.parametrize("policy, new, age, due", [
    (CheckpointPolicy(), 0, 10.0, False),
    (CheckpointPolicy(), 1, 0.0, True),
    (CheckpointPolicy(every_facts=50), 49, 1.0, False),
    (CheckpointPolicy(every_facts=50), 50, 1.0, True),
    (CheckpointPolicy(every_facts=50, every_seconds=300), 3, 299.0, False),
    (CheckpointPolicy(every_facts=50, every_seconds=300), 3, 301.0, True),
    (CheckpointPolicy(every_facts=50), 3, None, True),  # no version yet: the first one is due
])
def test_policy(policy: CheckpointPolicy, new: int, age: float | None, due: bool) -> None:
    assert policy.due(new, age) is due


def test_checkpoint_if_due_follows_the_policy(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path)
    mem.add("alice", "first fact")
    assert isinstance(mem.checkpoint_if_due("alice", CheckpointPolicy(every_facts=5)).result, Published)
    for i in range(3):
        mem.add("alice", f"fact {i}")
    waiting = mem.checkpoint_if_due("alice", CheckpointPolicy(every_facts=5)).result
    assert isinstance(waiting, Unchanged) and "3 new facts" in waiting.reason
    assert isinstance(mem.checkpoint_if_due("alice", CheckpointPolicy(every_facts=3)).result, Published)


def test_ingest_with_checkpoint_publishes_and_reports(uac: Any, tmp_path: Path) -> None:
    records = tmp_path / "trips.jsonl"
    records.write_text(json.dumps({"id": "T1", "destination": "Oslo", "departure_date": "2024-05-01"}) + "\n")
    r = uac("ingest", "alice", str(records), "--kind", "trip", "--key-field", "id", "--checkpoint", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["checkpoint"]["outcome"] == "published"


def test_a_clock_tick_runs_constraints_without_a_new_version(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path)
    soon = date.today() + timedelta(days=20)
    mem.add("alice", "passport", kind="passport", key="passport", fields={"expiry_date": soon.isoformat()})
    first = mem.checkpoint_and_alert("alice")
    assert first.alerts is not None and first.alerts.raised
    (tmp_path / "users" / "alice" / "alerts.json").unlink()  # as if time had moved on since the last run
    reports: list[object] = []
    got = threading.Event()

    def report(user: str, outcome: object) -> None:
        reports.append(outcome)
        got.set()

    watcher = Watcher(mem, mem.workspace.facts_db, ["alice"], report, tick_s=None)
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run_until, args=(stop,))
    thread.start()
    assert got.wait(10)
    stop.set()
    thread.join(10)
    outcome = reports[0]
    assert isinstance(outcome, CheckpointReport) and isinstance(outcome.result, Unchanged)
    assert outcome.alerts is not None and [a.constraint for a in outcome.alerts.raised] == ["passport_expiry"]

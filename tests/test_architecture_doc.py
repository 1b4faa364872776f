"""docs/ARCHITECTURE.md's example constraint is real: loaded as a user constraint file, it
raises its alert over a checkpointed user, and it passes mypy --strict."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from mypy import api

from runtime.memory import Memory

DOC = Path(__file__).resolve().parent.parent / "docs" / "ARCHITECTURE.md"


def example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    return str(blocks[0])


def test_the_documented_constraint_raises_its_alert(home: Path) -> None:
    (home / "constraints").mkdir(parents=True)
    (home / "constraints" / "expensive.py").write_text(example(), encoding="utf-8")
    mem = Memory.open(home)
    try:
        trip = mem.add("ana", kind="trip", key="t1", fields={"destination": "Lima", "cost_usd": 7200.0})
        mem.add("ana", kind="trip", key="t2", fields={"destination": "Oslo", "cost_usd": 900.0})
        report = mem.checkpoint_and_alert("ana", datetime(2026, 12, 1, tzinfo=timezone.utc))
        assert report.alerts is not None and not report.alerts.errors
        raised = [a for a in report.alerts.raised if a.constraint == "expensive_trips"]
        assert [(a.message, a.fact_ids) for a in raised] == [("Lima cost $7,200", (trip.id,))]
    finally:
        mem.close()


def test_the_documented_constraint_type_checks(tmp_path: Path) -> None:
    source = tmp_path / "expensive.py"
    source.write_text(example(), encoding="utf-8")
    out, err, status = api.run(["--strict", "--no-incremental", "--follow-imports=silent", str(source)])
    assert status == 0, out + err

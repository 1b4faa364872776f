"""An alert that gets worse is news: a bill going from due soon (warning) to overdue
(critical) is reported as escalated, not as still active, and announced again."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable

from constraints import Alert, diff_alerts
from constraints.builtin import bills_due
from constraints.runner import evaluate_and_record
from runtime.memory import Memory

Uac = Callable[..., Any]
USER = "ezra"


def _alerts(uac: Uac, now: str) -> Any:
    r = uac("alerts", USER, "--now", now, "--json")
    assert r.code == 0, (r.out, r.err)
    return json.loads(r.out)


def _ids(alerts: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(a["id"].split(":")[0], a["severity"]) for a in alerts]


def test_a_bill_going_overdue_is_escalated_across_runs(uac: Uac) -> None:
    r = uac("add", USER, "power bill", "--kind", "bill", "--key", "B1", "--field", "payee=Power Co",
            "--field", "amount_usd=80.5", "--field", "due_date=2030-01-10")
    assert r.code == 0
    assert uac("checkpoint", USER, "--now", "2029-12-01").code == 0  # nothing due yet

    first = _alerts(uac, "2030-01-05")
    assert _ids(first["raised"]) == [("bills_due", "warning")] and first["escalated"] == []
    same = _alerts(uac, "2030-01-08")
    assert _ids(same["still_active"]) == [("bills_due", "warning")] and same["escalated"] == []

    overdue = _alerts(uac, "2030-01-11")
    assert _ids(overdue["escalated"]) == [("bills_due", "critical")]
    assert overdue["raised"] == [] and overdue["still_active"] == [] and overdue["resolved"] == []
    assert "1 day overdue" in overdue["escalated"][0]["message"]

    later = _alerts(uac, "2030-01-12")  # still critical: no longer news
    assert _ids(later["still_active"]) == [("bills_due", "critical")] and later["escalated"] == []


def test_the_cli_text_marks_an_escalated_alert(uac: Uac) -> None:
    assert uac("add", USER, "rent", "--kind", "bill", "--field", "payee=Landlord",
               "--field", "due_date=2030-01-10").code == 0
    assert uac("checkpoint", USER, "--now", "2029-12-01").code == 0
    assert uac("alerts", USER, "--now", "2030-01-09").code == 0
    text = uac("alerts", USER, "--now", "2030-01-12")
    assert text.code == 0
    line = next(x for x in text.out.splitlines() if "Landlord" in x)
    assert line.split()[:2] == ["WORSE", "critical"], text.out


def test_on_new_alert_announces_escalations(home: Path) -> None:
    mem = Memory.open(home)
    try:
        mem.add(USER, "bill", kind="bill", key="B1", fields={"payee": "Gas", "due_date": "2030-01-10"})
        heard: list[Alert] = []
        mem.checkpoint_and_alert(USER, datetime(2030, 1, 5, tzinfo=timezone.utc), on_new_alert=heard.append)
        assert [a.severity for a in heard] == ["warning"]
        mem.alerts(USER, datetime(2030, 1, 6, tzinfo=timezone.utc), on_new_alert=heard.append)
        assert [a.severity for a in heard] == ["warning"]  # nothing new
        diff = mem.alerts(USER, datetime(2030, 1, 11, tzinfo=timezone.utc), on_new_alert=heard.append)
        assert [a.severity for a in heard] == ["warning", "critical"]
        assert diff.news == diff.escalated and diff.raised == ()
    finally:
        mem.close()


def _alert(severity: str) -> Alert:
    return Alert("c:f1", "c", severity, "m", (1,), date(2030, 1, 1))  # type: ignore[arg-type]


def test_only_a_more_severe_alert_is_escalated() -> None:
    for before, after in (("info", "warning"), ("warning", "critical"), ("info", "critical")):
        d = diff_alerts([_alert(before)], [_alert(after)])
        assert [a.severity for a in d.escalated] == [after] and d.still_active == () and d.raised == ()
    for before, after in (("critical", "warning"), ("warning", "info"), ("warning", "warning")):
        d = diff_alerts([_alert(before)], [_alert(after)])
        assert d.escalated == () and [a.severity for a in d.still_active] == [after]


def test_escalation_keeps_when_the_alert_was_first_raised(tmp_path: Path) -> None:
    class Module:
        bills = [type("Bill", (), {"due_date": date(2030, 1, 10), "payee": "Co", "fact_ids": [1]})()]

    state = tmp_path / "alerts.json"
    evaluate_and_record(Module(), datetime(2030, 1, 5), [bills_due], state, 1)
    evaluate_and_record(Module(), datetime(2030, 1, 11), [bills_due], state, 2)
    stored = json.loads(state.read_text())
    assert [(a["alert"]["severity"], a["raised_version"]) for a in stored["active"]] == [("critical", 1)]

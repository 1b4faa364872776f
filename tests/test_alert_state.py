from __future__ import annotations

import json
import os
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from old_workspace import old_workspace

from constraints.alert_json import alert_json
from constraints.alert_state_file import AlertJson
from constraints.model import Alert
from constraints.state import HISTORY_LIMIT, ActiveAlert, AlertState, AlertStateError, ResolvedAlert
from factlog.errors import InputError

WHEN = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


def alert(n: int, due: date | None = None) -> Alert:
    return Alert(f"rule:f{n}", "rule", "warning", f"situation {n} — ünïcode", (n, n + 100), due)


def sample_state(version: int) -> AlertState:
    return AlertState(
        active=(ActiveAlert(alert(1, date(2025, 4, 1)), WHEN, version), ActiveAlert(alert(2), WHEN, None)),
        history=(ResolvedAlert(alert(3), WHEN, 1, WHEN.replace(hour=10), version),),
        evaluated_at=WHEN,
        version=version,
    )


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "alerts.json"
    sample_state(4).save(path)
    assert AlertState.load(path) == sample_state(4)


def test_missing_file_is_an_empty_state(tmp_path: Path) -> None:
    assert AlertState.load(tmp_path / "none.json") == AlertState()


@pytest.mark.parametrize("text", ["{not json", '{"format": 99}', '{"format": 1, "active": [{}]}', "[]"])
def test_unreadable_state_is_a_clear_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "alerts.json"
    path.write_text(text)
    with pytest.raises(AlertStateError, match="alerts.json"):
        AlertState.load(path)


def test_history_is_bounded(tmp_path: Path) -> None:
    history = tuple(ResolvedAlert(alert(i), WHEN, None, WHEN, None) for i in range(HISTORY_LIMIT + 5))
    path = tmp_path / "alerts.json"
    AlertState(history=history).save(path)
    kept = AlertState.load(path).history
    assert len(kept) == HISTORY_LIMIT and kept[-1] == history[-1]


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_crash_mid_write_keeps_the_old_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    path = tmp_path / "state" / "alerts.json"
    sample_state(1).save(path)

    def crash(*args: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, failing, crash)
    with pytest.raises(OSError, match="disk gone"):
        sample_state(2).save(path)
    monkeypatch.undo()

    assert AlertState.load(path) == sample_state(1)
    assert os.listdir(path.parent) == ["alerts.json"]  # no temporary file left behind


def test_a_crash_after_partial_write_keeps_the_old_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "state" / "alerts.json"
    sample_state(1).save(path)
    real_write = os.write

    def half_write(fd: int, data: bytes) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError("killed mid-write")

    monkeypatch.setattr(os, "write", half_write)
    with pytest.raises(OSError, match="killed mid-write"):
        sample_state(2).save(path)
    monkeypatch.undo()

    assert AlertState.load(path) == sample_state(1)
    assert os.listdir(path.parent) == ["alerts.json"]


FIXTURE = old_workspace() / "users" / "sam" / "alerts.json"


def test_the_state_written_before_formats_were_models_still_reads(tmp_path: Path) -> None:
    state = AlertState.load(FIXTURE)
    assert [a.alert.id for a in state.active] == ["medication_allergy:f24+f25", "passport_valid_for_trips:f16+f23"]
    assert state.active[1].alert.due == date(2027, 1, 20) and state.active[1].alert.fact_ids == (16, 23, 26)
    assert state.history[0].resolved_version == 2 and state.version == 1
    assert state.evaluated_at == datetime(2026, 12, 1, 10, 9, 8, 409289, tzinfo=timezone.utc)
    path = tmp_path / "alerts.json"
    state.save(path)
    assert AlertState.load(path) == state
    assert json.loads(path.read_text()) == json.loads(FIXTURE.read_text())  # same document, format 1


def test_state_as_stored_is_checked(tmp_path: Path) -> None:
    good = json.loads(FIXTURE.read_text())
    path = tmp_path / "alerts.json"
    for broken, needle in ((dict(good, extra=1), "extra"),
                           (dict(good, active=[dict(good["active"][0], raised_at="yesterday")]), "raised_at"),
                           (dict(good, history=[{**good["history"][0], "alert": {**good["history"][0]["alert"],
                                                                               "severity": "dire"}}]), "severity")):
        path.write_text(json.dumps(broken))
        with pytest.raises(AlertStateError, match=needle) as caught:
            AlertState.load(path)
        assert isinstance(caught.value, InputError) and "\n" not in str(caught.value)


def test_one_json_shape_for_an_alert() -> None:
    a = alert(1, date(2025, 4, 1))
    assert alert_json(a) == {"id": "rule:f1", "constraint": "rule", "severity": "warning",
                             "message": "situation 1 — ünïcode", "fact_ids": [1, 101], "due": "2025-04-01"}
    assert list(alert_json(a)) == ["id", "constraint", "severity", "message", "fact_ids", "due"]
    assert AlertJson.model_validate(alert_json(a)).alert() == a

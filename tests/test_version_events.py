"""`events.jsonl` lines as a format (`users.events.VersionEvent`, format 1)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from old_workspace import old_workspace

from users.events import VersionEvent, read_events
from users.store import VersionStore

FIXTURE = old_workspace() / "users"


def test_lines_written_before_formats_were_versioned_still_read() -> None:
    path = FIXTURE / "sam" / "events.jsonl"
    events = read_events(path.read_text(), source=str(path))
    assert [(e.action, e.version, e.previous) for e in events] == [
        ("publish", 1, None), ("publish", 2, 1), ("rollback", 1, 2)]
    assert events[0].at == "2026-12-01T10:09:02.528288+00:00" and events[0].format == 1


def test_a_new_line_is_the_old_line_plus_its_format() -> None:
    old = '{"action": "rollback", "at": "2026-12-01T10:09:07.555179+00:00", "previous": 2, "version": 1}'
    event = VersionEvent.parse(old, source="events.jsonl")
    assert json.loads(event.line()) == {**json.loads(old), "format": 1}
    assert "\n" not in event.line()


@pytest.mark.parametrize("line", [
    '{"action": "publish", "at": "2026-12-01T10:09:02', "",  # torn by a crash
    '{"action": "delete", "at": "2026-12-01T10:09:02+00:00", "previous": null, "version": 1}',
    '{"action": "publish", "at": "yesterday", "previous": null, "version": 1}',
    '{"action": "publish", "at": "2026-12-01T10:09:02+00:00", "previous": null, "version": "1"}',
    '{"action": "publish", "at": "2026-12-01T10:09:02+00:00", "previous": null, "version": 0}',
    '{"action": "publish", "at": "2026-12-01T10:09:02+00:00", "previous": null, "version": 1, "format": 2}',
    '{"action": "publish", "at": "2026-12-01T10:09:02+00:00", "previous": null, "version": 1, "by": "x"}',
])
def test_a_line_that_is_not_an_event_is_skipped(line: str) -> None:
    good = '{"action": "publish", "at": "2026-12-01T10:09:02+00:00", "previous": null, "version": 1}'
    assert [e.version for e in read_events(f"{good}\n{line}\n{good}", source="events.jsonl")] == [1, 1]


def test_the_store_reads_old_lines_and_appends_new_ones(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "users")
    store = VersionStore(tmp_path / "users")
    assert [e.action for e in store.events("sam")] == ["publish", "publish", "rollback"]
    store.rollback("sam", 2)
    lines = (tmp_path / "users" / "sam" / "events.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["format"] == 1 and json.loads(lines[-1])["previous"] == 1
    assert [(e.action, e.version) for e in store.events("sam")][-1] == ("rollback", 2)

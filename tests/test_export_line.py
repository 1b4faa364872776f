"""`uac export` lines as a format (`factlog.export_line.ExportLine`, format 1): an export
written before formats were versioned still imports, fact for fact, hash for hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factlog.errors import InputError
from runtime.memory import Memory

OLD_EXPORT = Path(__file__).parent / "fixtures" / "export_2026_12.jsonl"


def old_lines() -> list[dict[str, object]]:
    return [json.loads(line) for line in OLD_EXPORT.read_text("utf-8").splitlines()]


def test_an_old_export_imports_every_fact_id_and_hash(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "fresh")
    lines = old_lines()
    assert all("format" not in line for line in lines)
    assert mem.import_(OLD_EXPORT) == len(lines)
    by_user: dict[object, list[dict[str, object]]] = {}
    for line in lines:
        by_user.setdefault(line["user"], []).append(line)
    assert sorted(mem.users()) == sorted(by_user)  # type: ignore[type-var]
    for user, expected in by_user.items():
        assert [f.to_json() for f in mem.log(str(user))] == expected  # ids, hashes, chain links as written
    assert mem.verify().ok
    assert mem.import_(OLD_EXPORT) == 0  # nothing twice


def test_a_new_export_is_the_old_one_plus_its_format(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "fresh")
    mem.import_(OLD_EXPORT)
    again = tmp_path / "again.jsonl"
    mem.export(again)
    written = [json.loads(line) for line in again.read_text("utf-8").splitlines()]
    old = sorted(old_lines(), key=lambda line: (str(line["user"]), int(str(line["id"]))))
    assert sorted(written, key=lambda line: (line["user"], line["id"])) == [{**line, "format": 1} for line in old]
    other = Memory.open(tmp_path / "other")
    assert other.import_(again) == len(old) and other.verify().ok


@pytest.mark.parametrize(("change", "needle"), [
    ({"colour": "red"}, "colour"),  # unknown keys are refused, not ignored
    ({"id": "3"}, "id"),
    ({"recorded_at": "yesterday"}, "recorded_at"),
    ({"provenance": {"role": "robot"}}, "provenance.role"),
    ({"format": 2}, "newer release"),
])
def test_a_bad_line_is_refused_naming_it(tmp_path: Path, change: dict[str, object], needle: str) -> None:
    lines = old_lines()
    lines[1] = {**lines[1], **change}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(line) + "\n" for line in lines))
    mem = Memory.open(tmp_path / "fresh")
    with pytest.raises(InputError, match="line 2: ") as caught:
        mem.import_(bad)
    assert needle in str(caught.value) and "\n" not in str(caught.value)
    assert mem.users() == []

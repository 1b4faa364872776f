"""`uac demo`: the whole loop on the bundled example user, offline, twice in the same home."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from uac_home import clone_home

Uac = Callable[..., Any]
WARNING = "passport expires 26 days after your Tokyo return"


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    # A copy of the seeded workspace: a warm mypy cache, and another user (alice) to leave alone.
    return clone_home(tmp_path_factory, tmp_path / "home")


def check_demo_output(out: str) -> None:
    lines = out.splitlines()

    def first(pattern: str, after: int = 0) -> int:
        for i, line in enumerate(lines[after:], after):
            if re.search(pattern, line):
                return i
        raise AssertionError(f"{pattern!r} not in the demo output after line {after}:\n{out}")

    assert "published v1" in out and "published v2" in out
    spent = first(r"spent on trips in 2024")
    assert lines[first(r"→", spent)].strip() == "→ 2840.5"
    assert lines[first(r"→", first(r"longest trip"))].strip() == "→ Tokyo"
    assert lines[first(r"→", first(r"countries visited abroad"))].strip() == "→ Iceland, Japan, Mexico, Portugal"
    raised = first(r"NEW\s+warning\s+" + re.escape(WARNING))
    assert "(due 2027-01-20)" in lines[raised]
    first(r"NEW\s+critical\s+.*amoxicillin.*penicillin")
    renewed = first(r"a new fact: the passport was renewed")
    assert raised < renewed
    change = first(r"^\s+expiry_date: 2027-03-03 → 2036-11-20$", renewed)
    resolved = first(r"resolved\s+warning\s+" + re.escape(WARNING), renewed)
    assert change < resolved
    assert re.search(r"^~ passport .*\(facts \d+\)$", out, re.M)
    assert lines[first(r"^code: passport\.expiry_date = 2036-11-20")]


@pytest.mark.slow
def test_demo_runs_twice_in_its_own_workspace(uac: Uac, home: Path) -> None:
    demo = home / "demo"
    alice_before = json.loads(uac("--home", str(home), "log", "alice", "--json").out)

    first = uac("--home", str(home), "demo")
    assert first.code == 0, first.err
    check_demo_output(first.out)
    assert f"demo workspace: {demo}" in first.out
    history = json.loads(uac("--home", str(demo), "history", "sam", "--json").out)
    assert [v["version"] for v in history] == [1, 2]

    second = uac("--home", str(home), "demo")
    assert second.code == 0, second.err
    check_demo_output(second.out)
    # The demo reset sam in its workspace: same fact ids, versions 1 and 2 again.
    history = json.loads(uac("--home", str(demo), "history", "sam", "--json").out)
    assert [v["version"] for v in history] == [1, 2]
    log = json.loads(uac("--home", str(demo), "log", "sam", "--json").out)
    assert [f["id"] for f in log] == list(range(1, len(log) + 1))
    assert json.loads(uac("--home", str(demo), "verify", "--json").out)["ok"] is True
    assert uac("--home", str(demo), "query", "sam", "len(trips)").out.strip() == "6"
    # The main workspace is untouched: alice as before, no sam.
    assert json.loads(uac("--home", str(home), "log", "alice", "--json").out) == alice_before
    assert json.loads(uac("--home", str(home), "users", "--json").out) == [{"user": "alice", "facts": 6}]


def test_a_real_user_named_sam_survives_the_demo(uac: Uac, home: Path) -> None:
    assert uac("--home", str(home), "add", "sam", "my own memory, not a demo").code == 0
    assert uac("--home", str(home), "checkpoint", "sam").code == 0
    before = uac("--home", str(home), "log", "sam", "--json").out
    r = uac("--home", str(home), "demo", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["workspace"] == str(home / "demo")
    assert uac("--home", str(home), "log", "sam", "--json").out == before
    history = json.loads(uac("--home", str(home), "history", "sam", "--json").out)
    assert [v["version"] for v in history] == [1]


def test_the_demo_refuses_a_demo_folder_it_did_not_make(uac: Uac, home: Path) -> None:
    (home / "demo").mkdir()
    (home / "demo" / "notes.txt").write_text("mine")
    r = uac("--home", str(home), "demo")
    assert r.code == 2 and "not a demo workspace" in r.err
    assert sorted(p.name for p in (home / "demo").iterdir()) == ["notes.txt"]


def test_demo_json_reports_the_story(uac: Uac, home: Path) -> None:
    r = uac("--home", str(home), "demo", "--json")
    assert r.code == 0, r.err
    summary = json.loads(r.out)  # nothing but the JSON document on stdout
    assert summary["versions"] == [1, 2]
    spent = next(q for q in summary["queries"] if q["label"] == "spent on trips in 2024")
    assert spent["value"] == 2840.5
    raised = [a["constraint"] for a in summary["alerts_first"]["raised"]]
    resolved = [a["constraint"] for a in summary["alerts_after_renewal"]["resolved"]]
    assert "passport_valid_for_trips" in raised and resolved == ["passport_valid_for_trips"]
    assert summary["recall"]["items"][0]["source"] == "code"

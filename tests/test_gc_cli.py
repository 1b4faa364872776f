"""`uac gc [USER] [--keep N]`: removes versions beyond the retention (option, else the
`retention` setting) and unused blobs, reports what it removed; bad input is one line
(exit 2) and removes nothing. The old workspace (versions written as plain copies) takes
new versions on top, verifies, rolls back and collects."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import one_error_line
from old_workspace import old_workspace
from uac_home import USER, clone_home

from runtime.settings import SETTINGS_FILE

Uac = Callable[..., Any]


@pytest.fixture
def seeded(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "h")


def run(uac: Uac, home: Path, *args: str) -> Any:
    r = uac("--home", str(home), *args, "--json")
    assert r.code == 0, (args, r.code, r.out, r.err)
    return json.loads(r.out)


def numbers(uac: Uac, home: Path, user: str = USER) -> list[int]:
    return [v["version"] for v in run(uac, home, "history", user)]


def test_gc_keeps_the_newest_versions(uac: Uac, seeded: Path) -> None:
    # The clone was copied file by file (no hard links kept): its blobs are linked by nothing.
    assert run(uac, seeded, "gc", USER)[0]["versions"] == []
    assert run(uac, seeded, "gc", USER) == [{"user": USER, "versions": [], "blobs": 0, "bytes": 0, "temp": 0}]
    [report] = run(uac, seeded, "gc", USER, "--keep", "1")
    assert report["versions"] == [1] and report["bytes"] > 0
    assert numbers(uac, seeded) == [2]
    assert run(uac, seeded, "verify")["ok"]
    assert run(uac, seeded, "query", USER, "len(trips)")["value"] == 3
    r = uac("--home", str(seeded), "gc", USER)
    assert r.code == 0 and r.out.startswith(f"{USER}: removed no versions"), r.out


@pytest.mark.parametrize("args", [
    ("gc", USER, "--keep", "-1"), ("gc", USER, "--keep", "0"), ("gc", "--keep", "-3"),
    ("gc", USER, "--keep", "two"), ("gc", "nobody", "--keep", "1"), ("gc", "Bad User"),
])
def test_bad_input_is_one_line_and_removes_nothing(uac: Uac, seeded: Path, args: tuple[str, ...]) -> None:
    one_error_line(uac("--home", str(seeded), *args))
    assert numbers(uac, seeded) == [1, 2]


def test_the_retention_setting_applies_unless_keep_is_given(uac: Uac, seeded: Path) -> None:
    (seeded / SETTINGS_FILE).write_text(json.dumps({"retention": {"keep": 5}}))
    assert run(uac, seeded, "gc")[0]["versions"] == []
    (seeded / SETTINGS_FILE).write_text(json.dumps({"retention": {"keep": 1}}))
    assert run(uac, seeded, "gc", "--keep", "2")[0]["versions"] == []  # the option wins
    assert run(uac, seeded, "gc")[0]["versions"] == [1]
    assert numbers(uac, seeded) == [2]


def test_a_bad_retention_setting_is_one_line(uac: Uac, seeded: Path) -> None:
    (seeded / SETTINGS_FILE).write_text(json.dumps({"retention": {"keep": 0}}))
    one_error_line(uac("--home", str(seeded), "gc"), SETTINGS_FILE, "retention.keep")
    assert numbers(uac, seeded) == [1, 2]


def test_the_current_version_stays_after_a_rollback(uac: Uac, seeded: Path) -> None:
    run(uac, seeded, "add", USER, "I like oolong too")
    run(uac, seeded, "checkpoint", USER)
    run(uac, seeded, "rollback", USER, "1")
    assert run(uac, seeded, "gc", USER, "--keep", "1")[0]["versions"] == [2]
    assert numbers(uac, seeded) == [1, 3]
    assert run(uac, seeded, "show", USER)["version"] == 1 and run(uac, seeded, "verify")["ok"]


def test_the_old_workspace_takes_new_versions_verifies_rolls_back_and_collects(uac: Uac, tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(old_workspace(), old)
    run(uac, old, "add", "sam", "Dentist on 2026-12-14 at Elm Street")
    assert run(uac, old, "checkpoint", "sam", "--now", "2026-12-01")["version"] == 3
    v3 = old / "users" / "sam" / "v000003"
    assert (v3 / "trip.py").stat().st_nlink == 2  # a link to its blob, beside the old plain copies
    run(uac, old, "add", "sam", "I like green tea")
    assert run(uac, old, "checkpoint", "sam", "--now", "2026-12-01")["version"] == 4
    assert (v3 / "trip.py").stat().st_ino == (old / "users" / "sam" / "v000004" / "trip.py").stat().st_ino
    assert run(uac, old, "verify")["ok"]
    assert run(uac, old, "rollback", "sam", "2")["version"] == 2
    assert run(uac, old, "query", "sam", "passport.expiry_date")["value"] == "2036-11-20"
    [report] = run(uac, old, "gc", "sam", "--keep", "1")
    assert report["versions"] == [1, 3] and report["blobs"] > 0  # what only v3 linked
    assert all(blob.stat().st_nlink == 2 for blob in (old / "users" / "sam" / ".blobs").iterdir())
    assert numbers(uac, old, "sam") == [2, 4]
    assert run(uac, old, "verify")["ok"]
    assert run(uac, old, "diff", "sam", "2", "4")["to"] == 4
    assert run(uac, old, "rollback", "sam", "4")["version"] == 4
    assert run(uac, old, "query", "sam", "len(notes)")["value"] >= 1

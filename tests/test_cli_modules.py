"""The `uac` commands over typed modules: show, history, diff, query, alerts, recall.

Read-only commands share one copy of the seeded workspace (tests/uac_home.py: v1 with
trips Lisbon + Chicago, a passport and a note; v2 adds the Tokyo trip and a second note);
commands that change state (alerts keep state, checkpoints publish) get their own copy.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from uac_home import DENTIST, PASSPORT_WARNING, RENEWED, TEA, USER, clone_home

from runtime.memory import Memory

Uac = Callable[..., Any]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Read-only for the tests that use it."""
    return clone_home(tmp_path_factory, tmp_path_factory.mktemp("cli-modules") / "home")


@pytest.fixture
def own(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")


def run(uac: Uac, home: Path, *args: str) -> Any:
    return uac("--home", str(home), *args)


def ok_json(uac: Uac, home: Path, *args: str) -> Any:
    r = run(uac, home, *args, "--json")
    assert r.code == 0, (args, r.out, r.err)
    return json.loads(r.out)


def fact_ids(home: Path) -> set[int]:
    mem = Memory.open(home)
    try:
        return {f.id for f in mem.log(USER)}
    finally:
        mem.close()


def snapshot(home: Path) -> dict[str, bytes]:
    """Everything derived a command could write, plus the log itself."""
    files = {str(p.relative_to(home)): p.read_bytes() for p in sorted((home / "users").rglob("*")) if p.is_file()}
    mem = Memory.open(home)
    try:
        files["<log>"] = json.dumps([f.to_json() for f in mem.log(USER)]).encode()
    finally:
        mem.close()
    return files


# -- show, history ----------------------------------------------------------------------------

def test_show_table(uac: Uac, shared: Path) -> None:
    r = run(uac, shared, "show", USER)
    assert r.code == 0, r.err
    assert "alice v2 (log position 6, compiler)" in r.out
    rows = {line.split("│")[1].strip(): line for line in r.out.splitlines() if line.count("│") >= 3}
    assert {"Trip", "Passport", "Note", "trips", "passport", "notes"} <= set(rows)
    assert rows["trips"].split("│")[2].strip() == "list" and rows["trips"].split("│")[3].strip() == "3"
    assert rows["notes"].split("│")[3].strip() == "2"
    assert "P8812734" in rows["passport"]
    r = run(uac, shared, "show", USER, "--version", "1")
    assert r.code == 0 and "alice v1 (log position 4, compiler)" in r.out


def test_show_source_and_json(uac: Uac, shared: Path) -> None:
    mem = Memory.open(shared)
    try:
        files = mem.versions.files(USER, 2)
    finally:
        mem.close()
    r = run(uac, shared, "show", USER, "--source")
    assert r.code == 0
    for name, text in files.items():
        assert f"# ==== {name}" in r.out
        assert text.strip() in r.out
    assert "trips: list[Trip]" in r.out

    listing = ok_json(uac, shared, "show", USER)
    assert listing["version"] == 2 and listing["log_position"] == 6 and listing["producer"] == "compiler"
    assert listing["files"] == sorted(files)
    assert listing["record_counts"] == {"trips": 3, "passport": 1, "notes": 2}
    full = ok_json(uac, shared, "show", USER, "--source", "--version", "v000001")
    assert full["version"] == 1 and "__init__.py" in full["files"]
    assert "Log position: 4" in full["files"]["__init__.py"]


def test_history_json(uac: Uac, shared: Path) -> None:
    history = ok_json(uac, shared, "history", USER)
    assert [(v["version"], v["parent"], v["log_position"], v["current"]) for v in history] == [
        (1, None, 4, False), (2, 1, 6, True)]
    for v in history:
        assert v["producer"] == "compiler"
        assert {"compile", "safety", "mypy", "import", "coverage"} <= set(v["timings"])
    table = run(uac, shared, "history", USER).out
    assert "v2 *" in table and "v1 *" not in table


# -- diff ---------------------------------------------------------------------------------------

def test_diff_default_is_previous_against_current_citing_facts(uac: Uac, shared: Path) -> None:
    d = ok_json(uac, shared, "diff", USER)
    assert (d["from"], d["to"]) == (1, 2)
    assert d["summary"]["records_added"] == 2 and d["summary"]["records_removed"] == 0
    added = {rec["attribute"]: rec for rec in d["records"] if rec["change"] == "added"}
    assert "Tokyo" in added["trips"]["label"] and added["trips"]["fact_ids"] == [5]
    assert added["notes"]["fact_ids"] == [6]
    known = fact_ids(shared)
    cited = {i for rec in d["records"] for i in rec["fact_ids"]} | {i for c in d["classes"] for i in c["fact_ids"]}
    assert cited and cited <= known
    assert ok_json(uac, shared, "diff", USER, "1", "2") == d
    back = ok_json(uac, shared, "diff", USER, "2", "1")
    assert {rec["change"] for rec in back["records"]} == {"removed"}

    r = run(uac, shared, "diff", USER)
    assert r.code == 0
    assert r.out.splitlines()[0] == "diff alice v1 -> v2"
    assert re.search(r"^\+ trips .*Tokyo.*\(facts 5\)$", r.out, re.M), r.out


def test_diff_text_is_a_unified_diff(uac: Uac, shared: Path) -> None:
    r = run(uac, shared, "diff", USER, "--text")
    assert r.code == 0
    assert "--- v1/__init__.py" in r.out and "+++ v2/__init__.py" in r.out
    assert "-Log position: 4 (the whole log)" in r.out and "+Log position: 6 (the whole log)" in r.out
    assert re.search(r"^\+.*'Tokyo'", r.out, re.M)
    data = ok_json(uac, shared, "diff", USER, "--text")
    assert (data["from"], data["to"]) == (1, 2) and data["diff"].strip() == r.out.strip()
    assert ok_json(uac, shared, "diff", USER, "2", "2", "--text")["diff"] == ""


def test_diff_of_a_first_version_is_against_nothing(uac: Uac, own: Path) -> None:
    assert run(uac, own, "rollback", USER, "1").code == 0
    r = run(uac, own, "diff", USER)
    assert r.code == 0, r.err
    assert "v0 -> v1" in r.out and "against nothing" in r.out
    assert re.search(r"^\+ class Trip", r.out, re.M) and re.search(r"^\+ trips .*Lisbon", r.out, re.M), r.out
    data = ok_json(uac, own, "diff", USER, "--json")
    assert (data["from"], data["to"]) == (0, 1) and data["summary"]["records_removed"] == 0
    assert data["summary"]["records_added"] == 4 and data["summary"]["classes_added"] >= 2
    text = ok_json(uac, own, "diff", USER, "0", "1", "--text")
    assert "--- /dev/null" in text["diff"] and "+++ v1/__init__.py" in text["diff"]


# -- query ------------------------------------------------------------------------------------

def test_query_text_and_json(uac: Uac, shared: Path) -> None:
    r = run(uac, shared, "query", USER, "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)")
    assert r.code == 0 and r.out.strip() == "1860.5"
    data = ok_json(uac, shared, "query", USER, "[t for t in trips if t.destination == 'Tokyo']")
    assert data["expression"] == "[t for t in trips if t.destination == 'Tokyo']"
    assert isinstance(data["elapsed_ms"], (int, float))
    [tokyo] = data["value"]
    assert tokyo["departure_date"] == "2027-01-20" and tokyo["return_date"] == "2027-02-05"
    assert tokyo["cost_usd"] == 1480.0 and tokyo["is_international"] is True and tokyo["fact_ids"] == [5]
    assert ok_json(uac, shared, "query", USER, "passport.expiry_date")["value"] == "2027-03-03"
    notes = ok_json(uac, shared, "query", USER, "[n.text for n in notes]")["value"]
    assert notes == [TEA, DENTIST]
    assert ok_json(uac, shared, "query", USER, "len(trips)", "--version", "1")["value"] == 2
    assert ok_json(uac, shared, "query", USER, "len(trips)")["value"] == 3


@pytest.mark.parametrize("expression, message", [
    ("__import__('os').system('touch PWNED')", "forbidden"),
    ("open('/etc/passwd').read()", "open"),
    ("len(trips", "syntax"),
    ("trips[0].__class__", "forbidden"),
    ("nope + 1", "nope"),
])
def test_bad_query_exits_2_and_writes_nothing(uac: Uac, shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               expression: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    before = snapshot(shared)
    r = run(uac, shared, "query", USER, expression)
    assert r.code == 2, (r.out, r.err)
    assert r.err.startswith("error: query") and message in r.err
    assert r.out == ""
    assert snapshot(shared) == before
    assert not (tmp_path / "PWNED").exists()


# -- alerts -----------------------------------------------------------------------------------

def alert_ids(items: list[dict[str, Any]]) -> list[str]:
    return [a["id"] for a in items]


def test_alerts_raised_then_still_active_then_resolved(uac: Uac, own: Path) -> None:
    first = ok_json(uac, own, "alerts", USER, "--now", "2026-12-01")
    [warning] = [a for a in first["raised"] if a["constraint"] == "passport_valid_for_trips"]
    assert PASSPORT_WARNING in warning["message"]
    assert warning["severity"] == "warning" and warning["due"] == "2027-01-20"
    assert warning["fact_ids"] == [3, 5]
    assert first["still_active"] == [] and first["resolved"] == []
    assert {s["constraint"] for s in first["skipped"]} >= {"medication_allergy", "bills_due"}

    second = ok_json(uac, own, "alerts", USER, "--now", "2026-12-01")
    assert second["raised"] == []
    assert warning["id"] in alert_ids(second["still_active"])

    text = run(uac, own, "alerts", USER, "--now", "2026-12-01").out
    assert "active" in text and PASSPORT_WARNING in text and "[facts 3, 5]" in text

    args = ["--kind", "passport", "--key", "passport"] + [f"--field={k}={v}" for k, v in RENEWED.items()]
    assert run(uac, own, "add", USER, "renewed my passport", *args).code == 0
    report = ok_json(uac, own, "checkpoint", USER, "--now", "2026-12-01")
    assert report["outcome"] == "published" and report["version"] == 3
    assert warning["id"] in alert_ids(report["alerts"]["resolved"])
    assert warning["id"] not in alert_ids(report["alerts"]["raised"] + report["alerts"]["still_active"])

    after = ok_json(uac, own, "alerts", USER, "--now", "2026-12-01")
    assert warning["id"] not in alert_ids(after["raised"] + after["still_active"] + after["resolved"])


USER_CONSTRAINT = '''
from datetime import datetime
from typing import Iterator

from constraints import Finding, constraint


@constraint(name="pricey_trips", needs=("trips",))
def pricey_trips(module: object, now: datetime) -> Iterator[Finding]:
    """Trips that cost more than 1000 USD."""
    for trip in getattr(module, "trips"):
        if (trip.cost_usd or 0) > 1000:
            yield Finding("info", f"pricey trip to {trip.destination}", (trip,))
'''


def test_user_constraint_module_is_loaded_by_alerts(uac: Uac, own: Path) -> None:
    (own / "constraints").mkdir()
    (own / "constraints" / "mine.py").write_text(USER_CONSTRAINT, encoding="utf-8")
    data = ok_json(uac, own, "alerts", USER, "--now", "2026-12-01")
    mine = sorted((a["message"], a["fact_ids"], a["severity"]) for a in data["raised"] if a["constraint"] == "pricey_trips")
    assert mine == [("pricey trip to Lisbon", [1], "info"), ("pricey trip to Tokyo", [5], "info")]
    assert any(a["constraint"] == "passport_valid_for_trips" for a in data["raised"])  # built-ins still run
    assert data["errors"] == []


# -- recall -----------------------------------------------------------------------------------

CITATION = re.compile(r"\[facts ([\d, ]+)\]$")


def test_recall_cites_existing_facts(uac: Uac, shared: Path) -> None:
    known = fact_ids(shared)
    r = run(uac, shared, "recall", USER, "when does my passport expire before the Tokyo trip?")
    assert r.code == 0, r.err
    lines = [line for line in r.out.splitlines() if line and not line.startswith("# ")]  # not headers
    assert lines
    cited = set()
    for line in lines:
        match = CITATION.search(line)
        assert match, line
        cited |= {int(i) for i in match.group(1).split(", ")}
    assert cited <= known and {3, 5} & cited

    data = ok_json(uac, shared, "recall", USER, "when does my passport expire before the Tokyo trip?")
    assert data["context"].strip() == r.out.strip()
    assert data["items"] and all(set(item["fact_ids"]) <= known and item["fact_ids"] for item in data["items"])
    assert {item["source"] for item in data["items"]} <= {"fact", "record"}


def test_recall_expr_goes_first_and_gates_hold(uac: Uac, shared: Path) -> None:
    data = ok_json(uac, shared, "recall", USER, "passport expiry", "--expr", "passport.expiry_date")
    assert data["items"][0]["source"] == "code"
    assert data["items"][0]["text"] == "passport.expiry_date = 2027-03-03"
    assert data["context"].splitlines()[0].startswith("code: passport.expiry_date = 2027-03-03")
    assert set(data["items"][0]["fact_ids"]) <= {3}  # the passport's fact, if the answer cites one

    cited = ok_json(uac, shared, "recall", USER, "trips", "--expr", "[t for t in trips if t.cost_usd > 1000]")
    assert cited["items"][0]["source"] == "code" and cited["items"][0]["fact_ids"] == [1, 5]

    for question in ("passport trip Tokyo Lisbon Chicago tea dentist", "trip"):
        gated = ok_json(uac, shared, "recall", USER, question, "--expr", "len(trips)",
                        "--max-items", "2", "--max-chars", "200")
        assert 1 <= len(gated["items"]) <= 2
        assert len(gated["context"]) <= 200
        assert gated["items"][0]["text"] == "len(trips) = 3"
    tiny = ok_json(uac, shared, "recall", USER, "passport trip Tokyo", "--max-items", "8", "--max-chars", "60")
    assert len(tiny["context"]) <= 60 and "chars" in tiny["truncated_by"]


def test_recall_bad_expr_exits_2(uac: Uac, shared: Path) -> None:
    r = run(uac, shared, "recall", USER, "q", "--expr", "__import__('os')")
    assert r.code == 2 and "--expr" in r.err


# -- bad user ids and versions ---------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("show", "../x"), "user id"),
    (("show", "bob"), "no published version"),
    (("history", "a/b"), "user id"),
    (("diff", "../alice"), "user id"),
    (("query", "..", "len(trips)"), "user id"),
    (("alerts", "bob"), "no published version"),
    (("recall", "/etc", "q"), "user id"),
    (("show", USER, "--version", "9"), "no version 9"),
    (("show", USER, "--version", "abc"), "not a version number"),
    (("query", USER, "len(trips)", "--version", "9"), "no version 9"),
    (("query", USER, "len(trips)", "--version", "0"), "not a version number"),
    (("diff", USER, "1", "9"), "no version 9"),
    (("diff", USER, "x", "2"), "not a version number"),
    (("rollback", USER, "9"), "no version 9"),
    (("alerts", USER, "--now", "someday"), "--now"),
])
def test_bad_user_or_version_exits_2(uac: Uac, shared: Path, args: tuple[str, ...], message: str) -> None:
    before = snapshot(shared)
    r = run(uac, shared, *args)
    assert r.code == 2, (r.out, r.err)
    assert r.err.startswith("error: ") and message in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1
    assert snapshot(shared) == before
    assert not (shared / "users" / "bob").exists()


def test_broken_user_constraint_file_is_reported(uac: Uac, own: Path) -> None:
    (own / "constraints").mkdir()
    (own / "constraints" / "mine.py").write_text("from constraints import constraint\nthis is not python\n",
                                                 encoding="utf-8")
    r = run(uac, own, "alerts", USER, "--now", "2026-12-01", "--json")
    assert r.code == 1, r.err  # a constraint that did not run is a failure (issue 7) ...
    data = json.loads(r.out)
    assert any(a["constraint"] == "passport_valid_for_trips" for a in data["raised"])  # the others still run
    assert "mine.py" in r.out + r.err  # ... and the user hears which file did not load
    text = run(uac, own, "alerts", USER, "--now", "2026-12-01")
    assert text.code == 1 and "mine.py" in text.out + text.err

"""The agent manifest (`codegen.agent_manifest`): the golden text of the golden user, a
10-kind user within 2,000 characters, and a cut that always says what it left out.

On an intended change of the text, review the printed diff, then update the file with:
    UAC_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_agent_manifest.py
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest
from fact_helpers import import_package, make_fact
from test_golden import GOLDEN, golden_facts

from codegen.agent_manifest import agent_manifest, agent_manifest_data, short_type
from codegen.compile import compile_package
from codegen.manifest import Manifest, build_manifest
from factlog.model import Fact

EXPECTED = GOLDEN / "agent_manifest.txt"
UPDATE_COMMAND = "UAC_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_agent_manifest.py"
ALERTS = ("warning passport_expiry: Passport X1234567 expires 2031-04-30 (due 2031-01-30) [facts 1]",)

TEN_KINDS: list[tuple[str, dict[str, object]]] = [
    ("profile", {"full_name": "Ana Silva", "home_city": "Lisbon", "email": "a@x.org", "birth_date": "1990-02-03"}),
    ("passport", {"number": "X1", "country": "PT", "expiry_date": "2031-04-30"}),
    ("trip", {"destination": "Tokyo", "country": "Japan", "departure_date": "2024-03-10",
              "return_date": "2024-03-20", "cost_usd": 1450, "is_international": True}),
    ("allergy", {"allergen": "penicillin", "severity": "severe", "person": "Mia"}),
    ("medication", {"name": "ibuprofen", "dose": "200 mg", "start_date": "2024-01-02", "end_date": "2024-01-09"}),
    ("appointment", {"provider": "Dr. Lee", "location": "Clinic", "start": "2024-05-01T09:00"}),
    ("payment", {"payee": "ACME", "amount_usd": 12.5, "status": "done", "scheduled_date": "2024-02-01"}),
    ("bill", {"payee": "Power Co", "amount_usd": 80, "due_date": "2024-02-15", "recurring": True}),
    ("vehicle", {"make": "Toyota", "model": "Yaris", "plate": "AA-00-BB", "year": 2019,
                 "next_service_date": "2025-01-10"}),
    ("event", {"title": "Lunch", "location": "Cafe", "start": "2024-06-12T12:30"}),
]


def manifest_of(facts: list[Fact], directory: Path) -> Manifest:
    module = import_package(compile_package(facts[0].user, facts), directory)
    return build_manifest(vars(module))


def ten_kind_facts(per_kind: int = 3) -> list[Fact]:
    facts: list[Fact] = []
    for kind, fields in TEN_KINDS:
        for _ in range(per_kind):
            facts.append(make_fact(len(facts) + 1, f"a {kind}", kind, dict(fields), user="ten"))
    facts.append(make_fact(len(facts) + 1, "Call the plumber on 2024-06-01.", user="ten"))
    return facts


def test_golden_agent_manifest(tmp_path: Path) -> None:
    text = agent_manifest(manifest_of(golden_facts(), tmp_path), version=3, alerts=ALERTS) + "\n"
    if os.environ.get("UAC_UPDATE_GOLDEN") == "1":
        EXPECTED.write_text(text, encoding="utf-8")
    expected = EXPECTED.read_text(encoding="utf-8")
    diff = list(difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                     "golden/agent_manifest.txt", "generated"))
    if diff:
        print("".join(diff))
        print(f"\nThe agent manifest differs from tests/golden/agent_manifest.txt. If intended, run:\n"
              f"    {UPDATE_COMMAND}")
    assert not diff


def test_golden_user_shape_not_data(tmp_path: Path) -> None:
    """Sizes, types and date ranges are there; no record's values are (the passport number,
    the notes' text, the prompt injection in a note)."""
    text = agent_manifest(manifest_of(golden_facts(), tmp_path), version=3)
    assert "trips: list[Trip] (1)" in text and "passport: Passport | None = present" in text
    assert "departure_date 2024-03-10" in text and "cost_usd" in text
    assert "X1234567" not in text and "plumber" not in text and "import os" not in text
    assert "fact_ids: list[int]" in text.splitlines()[0] and "fact_ids," not in text
    assert text.startswith("v3: 6 collections, 9 records.")  # the golden notes: 3 (one with typed values)
    assert "INV-2041" not in text and "roofer" not in text and "home-7" not in text


def test_ten_kind_user_within_2000_characters_uncut(tmp_path: Path) -> None:
    manifest = manifest_of(ten_kind_facts(), tmp_path)
    assert len([c for c in manifest.collections.values() if c.size]) == 11  # ten kinds and the notes
    text = agent_manifest(manifest, version=12, alerts=ALERTS * 2)
    assert len(text) <= 2000, len(text)
    assert "[cut" not in text
    for kind in ("profile", "passport", "trips", "allergies", "medications", "appointments", "payments",
                 "bills", "vehicles", "events", "notes"):
        assert f"\n{kind}: " in text
    assert agent_manifest(manifest, version=12, alerts=ALERTS * 2) == text  # deterministic


def test_cut_says_what_it_left_out_at_every_limit(tmp_path: Path) -> None:
    manifest = manifest_of(ten_kind_facts(), tmp_path)
    alerts = [f"critical c{i}: something about record {i}" for i in range(30)]
    whole = agent_manifest(manifest, alerts=alerts, limit=100_000)
    assert "[cut" not in whole
    for limit in range(200, len(whole), 97):
        text = agent_manifest(manifest, alerts=alerts, limit=limit)
        assert len(text) <= limit, (limit, len(text))
        last = text.splitlines()[-1]
        assert last.startswith(f"[cut to {limit} characters: left out ") and last.endswith("has everything]"), last
        for line in text.splitlines()[1:-1]:
            assert line in whole.splitlines() or line.split(" ")[0].endswith(":")
    text = agent_manifest(manifest, alerts=alerts, limit=1200)
    last = text.splitlines()[-1]
    assert "alerts" in last  # alerts that did not fit are counted
    shown = [line for line in text.splitlines() if line.startswith("- critical")]
    assert f"{30 - len(shown)} alerts" in last
    # Every collection keeps at least its short line before any alert takes room.
    for name in manifest.collections:
        assert any(line.startswith(f"{name}:") for line in text.splitlines())


def test_short_types() -> None:
    assert short_type("str | None") == "str?"
    assert short_type("Optional[date]") == "date?"
    assert short_type("None | int") == "int?"
    assert short_type("int | str | None") == "(int|str)?"
    assert short_type("dict[str, int]") == "dict[str,int]"
    assert short_type("list[str]") == "list[str]"


def test_limit_below_minimum_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="below"):
        agent_manifest(Manifest(), limit=50)


def test_data_form_has_everything(tmp_path: Path) -> None:
    data = agent_manifest_data(manifest_of(golden_facts(), tmp_path), version=3, alerts=ALERTS)
    json.dumps(data)
    collections = data["collections"]
    assert isinstance(collections, dict)
    assert collections["trips"]["size"] == 1 and collections["trips"]["class"] == "Trip"
    assert collections["trips"]["date_ranges"]["departure_date"] == {"min": "2024-03-10", "max": "2024-03-10"}
    assert "fact_ids" not in collections["trips"]["fields"]
    assert data["alerts"] == list(ALERTS) and data["version"] == 3


def test_empty_module() -> None:
    text = agent_manifest(Manifest(), version=1)
    assert text.startswith("v1: 0 collections, 0 records.")

"""Structured facts -> compile -> write -> import: every value comes back, correctly typed."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import mypy.api
import pytest
from fact_helpers import import_package, make_fact, write_package
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.compile import compile_package
from factlog.model import JsonValue

AWKWARD_NAMES = ["date", "type", "id", "time", "datetime", "class", "first name", "e-mail", "2fa",
                 "__init__", "fact_ids", "list", "str", "field", "self", "_date", "café", "Ω", "None", "x y z"]


def _storable(text: str) -> bool:
    return all(ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cs") for ch in text)


field_name = st.sampled_from(AWKWARD_NAMES) | st.text(min_size=1, max_size=12).filter(lambda s: s.strip() and _storable(s) and "\n" not in s and "\t" not in s)
plain_text = st.text(max_size=20).filter(lambda s: _storable(s) and not re.fullmatch(r"[\d:. T-]*", s)) | st.sampled_from(
    ["'", '"""', "\\", "\\N{BULLET}", "\"); import os; os.system('x') #", "東京", "a\nb"])

# Each field type: (strategy of Python values, how the value is written in a fact)
FIELD_TYPES: dict[str, tuple[st.SearchStrategy[Any], Any]] = {
    "int": (st.integers(-10**12, 10**12), lambda v: v),
    "float": (st.floats(allow_nan=False, allow_infinity=False), lambda v: v),
    "bool": (st.booleans(), lambda v: v),
    "str": (plain_text, lambda v: v),
    "date": (st.dates(), lambda v: v.isoformat()),
    "datetime": (st.datetimes(), lambda v: v.isoformat()),
    "time": (st.times().map(lambda t: t.replace(microsecond=0)), lambda v: v.isoformat()),
    "list_str": (st.lists(plain_text, max_size=3), lambda v: list(v)),
    "list_int": (st.lists(st.integers(-5, 5), max_size=3), lambda v: list(v)),
}


@st.composite
def record_sets(draw: st.DrawFn) -> tuple[dict[str, str], list[dict[str, Any]]]:
    names = draw(st.lists(field_name, min_size=1, max_size=6, unique=True))
    types = {name: draw(st.sampled_from(sorted(FIELD_TYPES))) for name in names}
    records = []
    for _ in range(draw(st.integers(1, 5))):
        record: dict[str, Any] = {}
        for name in names:
            presence = draw(st.sampled_from(["value", "value", "none", "missing"]))
            if presence == "value":
                record[name] = draw(FIELD_TYPES[types[name]][0])
            elif presence == "none":
                record[name] = None
        records.append(record)
    return types, records


def _same(got: object, expected: object) -> bool:
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(map(_same, got, expected))
    return type(got) is type(expected) and got == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(record_sets())
def test_records_round_trip(tmp_path_factory: pytest.TempPathFactory, data: tuple[dict[str, str], list[dict[str, Any]]]) -> None:
    types, records = data
    facts = []
    for i, record in enumerate(records, start=1):
        fields: dict[str, JsonValue] = {
            name: None if value is None else FIELD_TYPES[types[name]][1](value) for name, value in record.items()
        }
        facts.append(make_fact(i, f"item {i}", kind="item", fields=fields))
    package = compile_package("alice", facts)
    module = import_package(package, tmp_path_factory.mktemp("pkg") / "pkg")
    renamed = package.renamed_fields.get("item", {})
    mentioned = {name for record in records for name in record}  # a field no fact names is absent
    assert len(module.items) == len(records)
    for i, (item, record) in enumerate(zip(module.items, records), start=1):
        assert item.fact_ids == [i]
        for name in mentioned:
            got = getattr(item, renamed.get(name, name))
            assert _same(got, record.get(name)), (name, got, record.get(name))


def test_generated_package_passes_mypy_strict(tmp_path: Path) -> None:
    awkward: dict[str, JsonValue] = {name: f"value of {name}" for name in AWKWARD_NAMES}
    facts = [
        make_fact(1, kind="trip", key="t1", fields={"destination": "Paris", "departure_date": "2024-01-15", "cost_usd": 10, "tags": []}),
        make_fact(2, kind="trip", key="t2", fields={"destination": "Rome", "tags": ["a", None], "meta": {"k": [1, "x"]}}),
        make_fact(3, kind="passport", fields={"number": "X1", "expiry_date": "2030-01-01"}),
        make_fact(4, kind="oddity", fields={**awkward, "date": "2024-01-01", "time": "10:00", "datetime": "2024-01-01T10:00"}),
        make_fact(5, kind="appointment", fields={"start": "2024-03-01T09:30", "person": "Bob"}),
        make_fact(6, "free text", fields={"dates": ["2024-01-01"]}),
        make_fact(7, kind="note", fields={"body": "a structured note"}),
    ]
    package_dir = write_package(compile_package("alice", facts), tmp_path / "uac_generated")
    consumer = tmp_path / "consumer.py"
    consumer.write_text(
        "from datetime import date\n"
        "from uac_generated import trips, passport, notes, appointments\n\n"
        "def spend() -> float:\n"
        "    return sum(t.cost_usd or 0.0 for t in trips if t.departure_date and t.departure_date.year == 2024)\n\n"
        "def expiry() -> date | None:\n"
        "    return passport.expiry_date if passport else None\n\n"
        "def first_note_dates() -> list[date]:\n"
        "    return notes[0].dates\n\n"
        "def who() -> list[str | None]:\n"
        "    return [a.person for a in appointments]\n",
        encoding="utf-8",
    )
    stdout, stderr, status = mypy.api.run(["--strict", "--cache-dir", str(tmp_path / "cache"), str(package_dir), str(consumer)])
    assert status == 0, stdout + stderr

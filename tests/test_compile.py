"""The deterministic compiler: naming, type inference, identity, layout, determinism."""

from __future__ import annotations

import random
import re
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

import pytest
from fact_helpers import import_package, make_fact

from codegen.compile import CHUNK_IDS, compile_package
from codegen.naming import field_names, kind_names, normalize_kind, plural, singular
from codegen.render import annotation
from codegen.schema import CONFLICT, infer_field
from factlog.errors import InputError
from factlog.model import Fact, JsonValue

# ---------------------------------------------------------------- naming


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("trip", "trips"), ("allergy", "allergies"), ("person", "people"), ("child", "children"),
        ("address", "addresses"), ("bus", "buses"), ("box", "boxes"), ("match", "matches"),
        ("day", "days"), ("movie", "movies"), ("status", "statuses"), ("analysis", "analyses"),
        ("leaf", "leaves"), ("news", "news"), ("loyalty_program", "loyalty_programs"),
        ("family_member", "family_members"), ("contact_person", "contact_people"),
    ],
)
def test_plural_and_back(word: str, expected: str) -> None:
    assert plural(word) == expected
    assert singular(expected) == word


@pytest.mark.parametrize("word", ["status", "address", "bus", "gas", "analysis", "news", "trip", "class"])
def test_singular_words_stay(word: str) -> None:
    assert singular(word) == word


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("trips", "trip"), ("allergies", "allergy"), ("loyalty_programs", "loyalty_program"),
     ("people", "person"), ("buses", "bus"), ("addresses", "address"), ("passport", "passport")],
)
def test_normalize_kind(kind: str, expected: str) -> None:
    assert normalize_kind(kind) == expected


def test_kind_names_canonical_and_inferred() -> None:
    names = kind_names(["trip", "allergy", "passport", "pet", "bus", "loyalty_program"])
    assert (names["trip"].class_name, names["trip"].attribute, names["trip"].singular) == ("Trip", "trips", False)
    assert (names["allergy"].class_name, names["allergy"].attribute) == ("Allergy", "allergies")
    assert (names["passport"].attribute, names["passport"].singular) == ("passport", True)
    assert (names["pet"].class_name, names["pet"].attribute, names["pet"].stem) == ("Pet", "pets", "pet")
    assert names["bus"].attribute == "buses"
    assert names["loyalty_program"].class_name == "LoyaltyProgram"


def test_kind_names_never_collide() -> None:
    names = kind_names(["note", "class", "trip_000", "none", "a_b", "a__b"])
    assert names["note"].class_name != "Note" and names["note"].attribute != "notes"
    assert names["class"].stem == "class_"  # a keyword cannot be a module name
    assert not re.search(r"_\d+$", names["trip_000"].stem)  # never looks like a chunk module
    assert names["none"].class_name == "None_"
    all_names = [n.class_name for n in names.values()] + ["Note"]
    assert len(set(all_names)) == len(all_names)
    stems = [n.stem for n in names.values()] + ["notes", "__init__"]
    assert len(set(stems)) == len(stems)


def test_field_names_kept_sanitized_and_reserved() -> None:
    names = field_names(["date", "type", "id", "time", "datetime", "field", "class", "first name",
                         "first_name", "e-mail", "2fa", "__init__", "café", "fact_ids", "list", "日本"])
    for kept in ("date", "type", "id", "time", "datetime", "field", "first_name"):
        assert names[kept] == kept
    assert names["class"] == "class_"
    assert names["first name"] == "first_name_2"
    assert names["e-mail"] == "e_mail"
    assert names["2fa"] == "f_2fa"
    assert names["__init__"] == "init"
    assert names["café"] == "cafe"
    assert names["fact_ids"] == "fact_ids_"
    assert names["list"] == "list_"
    assert names["日本"].isidentifier() and names["日本"].isascii()
    assert len(set(names.values())) == len(names)


# ---------------------------------------------------------------- type inference

IDENTITY = {"date": "date", "datetime": "datetime", "time": "time", "Any": "Any"}


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["2024-01-15", "2023-12-31"], "date"),
        (["2024-01-15T10:30:00", "2024-01-15 08:00"], "datetime"),
        (["2024-01-15", "2024-01-15T10:30"], "datetime"),
        (["10:30", "23:59:59"], "time"),
        ([1, 2, None], "int"),
        ([1, 2.5], "float"),
        ([True, False], "bool"),
        (["Paris", "2024-01-15"], "str"),
        (["2024-02-30"], "str"),
        (["2024-01-15T10:30:00+02:00"], "str"),
        ([["a", "b"], []], "list[str]"),
        ([[], []], "list[str]"),
        ([[1, None], [2.5]], "list[float | None]"),
        ([["2024-01-15"]], "list[date]"),
        ([{"a": 1}], "dict[str, Any]"),
        ([[[1], [2]]], "list[list[int]]"),
    ],
)
def test_type_inference(values: list[JsonValue], expected: str) -> None:
    inferred = infer_field(values)
    assert inferred is not None and inferred is not CONFLICT
    assert annotation(inferred, IDENTITY) == expected


@pytest.mark.parametrize("values", [[True, 1], [1, "a"], [[1], 2], [["a", 1]], [{"a": 1}, [1]]])
def test_irreconcilable_values(values: list[JsonValue]) -> None:
    assert infer_field(values) is CONFLICT


def _compile(facts: list[Fact]) -> Any:
    return compile_package("alice", facts)


def _load(facts: list[Fact], tmp_path: Path) -> Any:
    return import_package(compile_package("alice", facts), tmp_path / "pkg")


def test_irreconcilable_field_keeps_original_text(tmp_path: Path) -> None:
    facts = [make_fact(1, kind="pet", fields={"age": 3, "tag": True}), make_fact(2, kind="pet", fields={"age": "three"})]
    pets = _load(facts, tmp_path).pets
    assert [p.age for p in pets] == ["3", "three"]
    assert pets[0].tag is True and pets[1].tag is None


def test_required_and_optional_fields() -> None:
    facts = [make_fact(1, kind="pet", fields={"name": "Rex", "age": 3}), make_fact(2, kind="pet", fields={"name": "Tom"})]
    source = _compile(facts).files["pet.py"]
    assert re.search(r"^    name: str$", source, re.M)
    assert re.search(r"^    age: int \| None = None$", source, re.M)


def test_canonical_types_fit_or_fall_back(tmp_path: Path) -> None:
    facts = [
        make_fact(1, kind="trip", fields={"cost_usd": 100, "departure_date": "2024-01-15", "year_made": 1999}),
        make_fact(2, kind="vehicle", fields={"year": "nineteen"}),
        make_fact(3, kind="appointment", fields={"start": "2024-03-01"}),
    ]
    module = _load(facts, tmp_path)
    trip = module.trips[0]
    assert trip.cost_usd == 100.0 and isinstance(trip.cost_usd, float)
    assert trip.departure_date == date(2024, 1, 15)
    assert trip.destination is None  # canonical field absent from the facts: present, None
    assert module.vehicles[0].year == "nineteen"
    assert module.appointments[0].start == datetime(2024, 3, 1, 0, 0)


# ---------------------------------------------------------------- identity, retraction


def test_keyed_updates_by_valid_from_then_id(tmp_path: Path) -> None:
    facts = [
        make_fact(1, kind="trip", key="t1", fields={"destination": "Paris", "cost_usd": 100.0}),
        make_fact(2, kind="trip", key="t1", fields={"cost_usd": 150.0}, valid_from=date(2030, 1, 1)),
        make_fact(3, kind="trip", key="t1", fields={"cost_usd": 120.0, "purpose": "work"}),
        make_fact(4, kind="trips", key="t2", fields={"destination": "Rome"}),
        make_fact(5, kind="trip", fields={"destination": "Oslo"}),
        make_fact(6, kind="trip", fields={"destination": "Oslo"}),
    ]
    package = _compile(facts)
    trips = import_package(package, tmp_path / "pkg").trips
    assert [(t.destination, t.cost_usd, t.purpose, t.fact_ids) for t in trips] == [
        ("Paris", 150.0, "work", [1, 2, 3]),  # valid_from 2030 is the latest state
        ("Rome", None, None, [4]),
        ("Oslo", None, None, [5]),
        ("Oslo", None, None, [6]),
    ]
    assert package.entities == {"trip/t1": [1, 2, 3], "trip/t2": [4], "trip#5": [5], "trip#6": [6], }
    assert package.record_counts == {"trips": 4, "notes": 0}


def test_singular_kind_is_one_entity(tmp_path: Path) -> None:
    facts = [
        make_fact(1, kind="passport", key="old", fields={"number": "A1", "country": "FR"}),
        make_fact(2, kind="passport", fields={"number": "B2", "expiry_date": "2031-05-01"}),
    ]
    passport = _load(facts, tmp_path).passport
    assert (passport.number, passport.country, passport.expiry_date) == ("B2", "FR", date(2031, 5, 1))
    assert passport.fact_ids == [1, 2]


def test_retractions_remove_facts_and_updates(tmp_path: Path) -> None:
    facts = [
        make_fact(1, kind="trip", key="t1", fields={"destination": "Paris"}),
        make_fact(2, kind="trip", key="t1", fields={"destination": "Lyon"}),
        make_fact(3, "withdraw the correction", retracts=2),
        make_fact(4, kind="trip", key="t2", fields={"destination": "Rome"}),
        make_fact(5, "withdraw", retracts=4),
        make_fact(6, "a free-text note", valid_from=date(2024, 2, 1)),
    ]
    package = _compile(facts)
    module = import_package(package, tmp_path / "pkg")
    assert [(t.destination, t.fact_ids) for t in module.trips] == [("Paris", [1])]
    assert [(n.text, n.dates, n.fact_ids) for n in module.notes] == [("a free-text note", [date(2024, 2, 1)], [6])]
    assert package.log_position == 6
    assert _compile(facts[:1] + facts[3:5]).record_counts["trips"] == 1
    gone = _compile(facts[3:5])
    assert "trips" not in gone.record_counts and "trip.py" not in gone.files


def test_every_live_fact_is_cited_and_person_kept(tmp_path: Path) -> None:
    rng = random.Random(7)
    facts: list[Fact] = []
    for i in range(1, 301):
        choice = rng.random()
        if choice < 0.2:
            facts.append(make_fact(i, f"note {i}", fields={"dates": ["2024-01-02", "bad"]}))
        elif choice < 0.3 and i > 10:
            facts.append(make_fact(i, "retract", retracts=rng.randrange(1, i)))
        else:
            fields: dict[str, JsonValue] = {"allergen": f"a{i % 7}", "person": rng.choice(["me", "Bob"])}
            facts.append(make_fact(i, "allergy", kind="allergy", key=f"k{i % 40}", fields=fields))
    module = _load(facts, tmp_path)
    retracted = {f.retracts for f in facts if f.retracts} | {f.id for f in facts if f.retracts}
    live = {f.id for f in facts} - retracted
    cited = {i for r in [*module.allergies, *module.notes] for i in r.fact_ids}
    assert cited == live
    assert {a.person for a in module.allergies} <= {"me", "Bob"}


# ---------------------------------------------------------------- layout, determinism, header


def _log(n: int) -> list[Fact]:
    facts = []
    for i in range(1, n + 1):
        if i % 9 == 0:
            facts.append(make_fact(i, f"note {i}"))
        else:
            facts.append(make_fact(i, kind="trip", key=f"t{i}", fields={"destination": f"city {i}", "cost_usd": i / 4}))
    return facts


def test_same_facts_same_bytes_in_any_order() -> None:
    facts = _log(120) + [make_fact(121, retracts=5), make_fact(122, kind="trip", key="t3", fields={"cost_usd": 1.5})]
    first = _compile(facts)
    shuffled = list(facts)
    random.Random(1).shuffle(shuffled)
    second = _compile(shuffled)
    assert first.files == second.files
    assert first.input_hash == second.input_hash


def test_appending_changes_only_the_newest_chunk() -> None:
    base = _log(2 * CHUNK_IDS + 100)
    before = _compile(base).files
    after = _compile(base + _log(2 * CHUNK_IDS + 110)[len(base):]).files
    changed = {name for name in after if before.get(name) != after[name]}
    # 978 trips by ordinal: chunk 0 is full, chunk 1 open; class modules keep their bytes
    assert changed == {"__init__.py", "trip_001.py", "notes_000.py"}
    updated = _compile(base + [make_fact(len(base) + 1, kind="trip", key="t7", fields={"destination": "Oslo"})]).files
    changed = {name for name in updated if before.get(name) != updated[name]}
    assert changed == {"__init__.py", "trip_000.py"}
    assert all(source.count("\n    Trip(") <= CHUNK_IDS for source in after.values())


def test_header_in_every_file() -> None:
    package = _compile(_log(30))
    assert package.log_position == 30
    for name, source in package.files.items():
        assert re.fullmatch(r"[a-z_][a-z0-9_]*\.py", name)
        head = source.split('"""')[1]
        assert "user-as-code" in head and "Do not edit" in head and "User: alice" in head
        assert re.search(r"Log position: \d+|Compiled from: the field types", head)
        assert re.search(r"Input hash: sha256:[0-9a-f]{64}", head)
    assert f"Input hash: sha256:{package.input_hash}" in package.files["__init__.py"]
    assert "Log position: 30 " in package.files["__init__.py"]


def test_empty_log_and_bad_input() -> None:
    empty = compile_package("bob", [])
    assert set(empty.files) == {"__init__.py", "notes.py"}
    assert "notes: list[Note] = []" in empty.files["__init__.py"]
    with pytest.raises(InputError):
        compile_package("../etc", [])


def test_hostile_field_names_and_values_import(tmp_path: Path) -> None:
    fields: dict[str, JsonValue] = {
        "class": "x", "date": "2024-01-01", "time": "10:00", "field": 1, "str": "s", "self": 2,
        "fact_ids": [1], "_date": "2024-01-01T09:00", "e-mail": "a@b", "__class__": "c",
        "x\"\"\"y": "'''\"\"\"\\N{BULLET}", "os": "\"); import os; os.system('x') #",
    }
    package = _compile([make_fact(1, kind="contact", fields=fields)])
    contact = import_package(package, tmp_path / "pkg").contacts[0]
    renamed = package.renamed_fields["contact"]
    for original, value in fields.items():
        got = getattr(contact, renamed.get(original, original))
        if original == "date":
            assert got == date(2024, 1, 1)
        elif original == "time":
            assert got == time(10, 0)
        elif original == "_date":
            assert got == datetime(2024, 1, 1, 9, 0)
        else:
            assert got == value
    assert contact.fact_ids == [1]


def test_imports_are_aliased_only_when_a_field_would_shadow_them() -> None:
    plain = _compile([make_fact(1, kind="trip", fields={"departure_date": "2024-01-15"})]).files
    assert "from datetime import date\n" in plain["trip.py"] and " _date" not in plain["trip.py"]
    assert "from dataclasses import dataclass, field\n" in plain["trip.py"]
    fields: dict[str, JsonValue] = {"date": "2024-01-15", "_date": "2024-01-16", "field": 1, "when": "10:00"}
    shadowed = _compile([make_fact(1, kind="log", fields=fields)]).files
    assert "from datetime import date as _date_, time\n" in shadowed["log.py"]
    assert "from dataclasses import dataclass, field as _field\n" in shadowed["log.py"]
    assert "    date: _date_\n" in shadowed["log.py"] and "    _date: _date_\n" in shadowed["log.py"]
    assert "date(2024, 1, 15)" in shadowed["log_000.py"] and "_date_" not in shadowed["log_000.py"]


def test_project_validator_accepts_a_plain_package(tmp_path: Path) -> None:
    from codegen.validate import ValidationSuccess, Validator

    facts = _log(40) + [make_fact(41, kind="passport", fields={"number": "X1", "expiry_date": "2030-01-01"}),
                        make_fact(42, kind="event", fields={"title": "t", "start": "2024-01-01T10:00", "tags": ["a"]})]
    package = _compile(facts)
    validator = Validator(tmp_path / "cache")
    try:
        result = validator.validate(package.files, user="alice", version="v1", live_fact_ids={f.id for f in facts},
                                    stage_dir=tmp_path / "stage")
    finally:
        validator.close()
    assert isinstance(result, ValidationSuccess), result

"""Semantic diff between two hand-written packages shaped as CONTRACTS.md describes."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from sample_package import PASSPORT_PY, module_source

from codegen.loader import load_package, module_name_for
from users.diff import ModuleDiff, RecordChange, diff_modules, diff_versions, unified_text_diff
from users.store import VersionStore
from users.versions import PublishMeta

OLD = {
    "__init__.py": module_source("""
        from .loyalty_program import LoyaltyProgram as LoyaltyProgram
        from .loyalty_program import loyalty_programs as loyalty_programs
        from .note import Note as Note
        from .note import notes as notes
        from .passport import Passport as Passport
        from .passport import passport as passport
        from .trip import Trip as Trip
        from .trip import trips as trips
        """),
    "passport.py": PASSPORT_PY,
    "trip.py": module_source("""
        from dataclasses import dataclass, field
        from datetime import date


        @dataclass(frozen=True, kw_only=True)
        class Trip:
            destination: str
            departure_date: date
            cost_usd: float | None = None
            fact_ids: list[int] = field(default_factory=list)


        trips_000: list[Trip] = [
            Trip(destination="Oslo", departure_date=date(2024, 3, 1), fact_ids=[2]),
            Trip(destination="Rome", departure_date=date(2024, 5, 1), fact_ids=[3, 5]),
        ]
        trips_001: list[Trip] = [
            Trip(destination="Paris", departure_date=date(2024, 7, 1), fact_ids=[4]),
        ]
        trips: list[Trip] = [*trips_000, *trips_001]
        """),
    "loyalty_program.py": module_source("""
        from dataclasses import dataclass, field


        @dataclass(frozen=True, kw_only=True)
        class LoyaltyProgram:
            program: str
            fact_ids: list[int] = field(default_factory=list)


        loyalty_programs: list[LoyaltyProgram] = [LoyaltyProgram(program="Miles&More", fact_ids=[7])]
        """),
    "note.py": module_source("""
        from dataclasses import dataclass, field
        from datetime import date


        @dataclass(frozen=True, kw_only=True)
        class Note:
            text: str
            dates: list[date] = field(default_factory=list)
            fact_ids: list[int] = field(default_factory=list)


        notes: list[Note] = [Note(text="likes window seats", fact_ids=[6])]
        """),
}

NEW = {
    "__init__.py": module_source("""
        from .note import Note as Note
        from .note import notes as notes
        from .passport import Passport as Passport
        from .passport import passport as passport
        from .trip import Trip as Trip
        from .trip import trips as trips
        """),
    "note.py": OLD["note.py"],
    "passport.py": OLD["passport.py"].replace(
        "date(2030, 1, 1), fact_ids=[1]", "date(2031, 5, 2), fact_ids=[1, 10]"),
    "trip.py": module_source("""
        from dataclasses import dataclass, field
        from datetime import date


        @dataclass(frozen=True, kw_only=True)
        class Trip:
            destination: str
            departure_date: date
            cost_usd: int | None = None
            carrier: str | None = None
            fact_ids: list[int] = field(default_factory=list)


        trips: list[Trip] = [
            Trip(destination="Lisbon", departure_date=date(2024, 9, 1), fact_ids=[13]),
            Trip(destination="Oslo", departure_date=date(2024, 3, 1), fact_ids=[2]),
            Trip(destination="Rome", departure_date=date(2024, 5, 1), cost_usd=250, carrier="ITA",
                 fact_ids=[3, 5, 11]),
        ]
        """),
}


def load(tmp_path: Path, name: str, files: dict[str, str]) -> ModuleType:
    directory = tmp_path / name
    directory.mkdir()
    for file_name, source in files.items():
        (directory / file_name).write_text(source)
    return load_package(directory, module_name_for("diff-test", name))


@pytest.fixture
def diff(tmp_path: Path) -> ModuleDiff:
    return diff_modules(load(tmp_path, "old", OLD), load(tmp_path, "new", NEW), retractions={4: 12, 7: 14})


def record(diff: ModuleDiff, attribute: str, change: str) -> list[RecordChange]:
    return [r for r in diff.records if r.attribute == attribute and r.change == change]


def test_class_and_field_changes(diff: ModuleDiff) -> None:
    by_name = {c.name: c for c in diff.classes}
    assert set(by_name) == {"LoyaltyProgram", "Trip"}
    assert by_name["LoyaltyProgram"].change == "removed"
    assert by_name["LoyaltyProgram"].fact_ids == [7]
    trip = by_name["Trip"]
    assert trip.change == "changed"
    fields = {f.name: f for f in trip.fields}
    assert set(fields) == {"cost_usd", "carrier"}
    assert (fields["cost_usd"].change, fields["cost_usd"].before, fields["cost_usd"].after) == (
        "retyped", "float | None", "int | None")
    assert fields["cost_usd"].fact_ids == [3, 5, 11]  # the records that now carry the new type
    assert (fields["carrier"].change, fields["carrier"].after, fields["carrier"].fact_ids) == (
        "added", "str | None", [3, 5, 11])


def test_singular_record_changed_field_by_field(diff: ModuleDiff) -> None:
    [change] = [r for r in diff.records if r.attribute == "passport"]
    assert (change.change, change.entity) == ("changed", "passport")
    assert [(v.field, v.before, v.after) for v in change.fields] == [
        ("expiry_date", "2030-01-01", "2031-05-02")]
    assert change.fact_ids == [10]


def test_trips_added_removed_changed_and_unchanged(diff: ModuleDiff) -> None:
    [added] = record(diff, "trips", "added")
    assert (added.entity, added.fact_ids, added.retracted_by) == ("#13", [13], [])
    assert "Lisbon" in added.label
    [removed] = record(diff, "trips", "removed")
    assert (removed.entity, removed.fact_ids, removed.retracted_by) == ("#4", [4, 12], [12])
    [changed] = record(diff, "trips", "changed")
    assert changed.entity == "#3"  # Rome keeps its first fact, 3
    assert [(v.field, v.before, v.after) for v in changed.fields] == [
        ("cost_usd", None, 250), ("carrier", None, "ITA")]
    assert changed.fact_ids == [11]
    assert not [r for r in diff.records if "Oslo" in r.label]  # reordered, not changed
    assert not [r for r in diff.records if r.attribute.startswith("trips_")]  # chunks not doubled
    assert not [r for r in diff.records if r.attribute == "notes"]


def test_removed_class_records_cite_retraction(diff: ModuleDiff) -> None:
    [gone] = record(diff, "loyalty_programs", "removed")
    assert (gone.fact_ids, gone.retracted_by) == ([7, 14], [14])


def test_json_shape_and_rendering(diff: ModuleDiff) -> None:
    data = json.loads(json.dumps(diff.to_json()))
    assert data["summary"] == {
        "classes_added": 0, "classes_removed": 1, "classes_changed": 1,
        "records_added": 1, "records_removed": 2, "records_changed": 2,
    }
    rome = next(r for r in data["records"] if r["entity"] == "#3")
    assert set(rome) == {"attribute", "entity", "change", "label", "fields", "fact_ids", "retracted_by"}
    assert rome["fields"][0] == {"field": "cost_usd", "before": None, "after": 250}
    assert {f["name"] for f in data["classes"][1]["fields"]} == {"cost_usd", "carrier"}
    lines = diff.render_lines()
    assert "~ passport Passport(number='X1', expiry_date=2031-05-02)  (facts 10)" in lines
    assert "    expiry_date: 2030-01-01 → 2031-05-02" in lines
    assert any(line.startswith("- trips #4 Trip(destination='Paris'") and line.endswith("(facts 4; retracted by 12)")
               for line in lines)
    assert "    ~ cost_usd: float | None → int | None  (facts 3, 5, 11)" in lines
    assert "- class LoyaltyProgram  (facts 7)" in lines


def test_same_package_has_no_changes(tmp_path: Path) -> None:
    same = diff_modules(load(tmp_path, "a", OLD), load(tmp_path, "b", OLD))
    assert same.is_empty and same.render_lines() == ["no changes"]


def test_class_added_cites_its_records(tmp_path: Path) -> None:
    result = diff_modules(load(tmp_path, "new", NEW), load(tmp_path, "old", OLD))
    [loyalty] = [c for c in result.classes if c.name == "LoyaltyProgram"]
    assert (loyalty.change, loyalty.fact_ids) == ("added", [7])
    [back] = record(result, "trips", "added")
    assert back.entity == "#4" and back.fact_ids == [4]


def test_unified_text_diff() -> None:
    text = unified_text_diff(OLD, NEW, label_a="v000001", label_b="v000002")
    assert "--- v000001/passport.py\n+++ v000002/passport.py\n" in text
    assert "-passport: Passport | None = Passport(number=\"X1\", expiry_date=date(2030, 1, 1), fact_ids=[1])\n" in text
    assert "--- v000001/loyalty_program.py\n+++ /dev/null\n" in text
    assert "note.py" not in text  # unchanged files are not shown
    assert unified_text_diff(OLD, OLD) == ""
    assert unified_text_diff({}, {"a.py": "x = 1"}).endswith("+x = 1\n\\ No newline at end of file\n")


def trip_package(records: str) -> dict[str, str]:
    trip = module_source(f"""
        from dataclasses import dataclass, field


        @dataclass(frozen=True, kw_only=True)
        class Trip:
            destination: str
            fact_ids: list[int] = field(default_factory=list)


        trips: list[Trip] = [{records}]
        """)
    return {"__init__.py": module_source("from .trip import Trip as Trip\nfrom .trip import trips as trips\n"),
            "trip.py": trip}


def test_diff_versions_prefers_the_entity_map(tmp_path: Path) -> None:
    """Rome's first fact (3) was retracted: by smallest fact id it looks like a new trip, but
    the stored entity map knows it is the same booking."""
    versions = VersionStore(tmp_path / "users")
    old = trip_package('Trip(destination="Rome", fact_ids=[3, 5])')
    new = trip_package('Trip(destination="Roma", fact_ids=[5, 11])')
    versions.publish("alice", old, PublishMeta(5, "h1", "compiler", entities={"trip:BK1": [3, 5]}))
    versions.publish("alice", new, PublishMeta(11, "h2", "compiler", entities={"trip:BK1": [5, 11]},
                                                retractions={3: 11}))
    [change] = diff_versions(versions, "alice", 1, 2).records
    assert (change.entity, change.change, change.fact_ids, change.retracted_by) == (
        "trip:BK1", "changed", [11], [11])
    assert [(v.field, v.before, v.after) for v in change.fields] == [("destination", "Rome", "Roma")]

    without_map = diff_modules(versions.load("alice", 1), versions.load("alice", 2), retractions={3: 11})
    assert sorted((r.change, r.entity) for r in without_map.records) == [("added", "#5"), ("removed", "#3")]


def test_diff_of_compiled_versions(tmp_path: Path) -> None:
    """End to end with the deterministic compiler: entity map and retractions from the log."""
    from fact_helpers import make_fact

    from codegen.compile import compile_package

    first = [
        make_fact(1, "passport", "passport", {"number": "X1", "expiry_date": "2030-01-01"}, key="p"),
        make_fact(2, "trip Oslo", "trip", {"destination": "Oslo"}, key="T1"),
        make_fact(3, "trip Rome", "trip", {"destination": "Rome"}, key="T2"),
    ]
    second = first + [
        make_fact(4, "renewed", "passport", {"number": "X1", "expiry_date": "2031-05-02"}, key="p"),
        make_fact(5, "Rome is off", retracts=3),
        make_fact(6, "trip Lima", "trip", {"destination": "Lima", "seat": "12A"}, key="T3"),
    ]
    versions = VersionStore(tmp_path / "users")
    for facts in (first, second):
        package = compile_package("alice", facts)
        retractions = {f.retracts: f.id for f in facts if f.retracts is not None}
        versions.publish("alice", package.files, PublishMeta(
            package.log_position, package.input_hash, "compiler", record_counts=package.record_counts,
            entities=package.entities, retractions=retractions))
    result = diff_versions(versions, "alice", 1, 2)
    summary = {(r.attribute, r.change): (r.fact_ids, r.retracted_by) for r in result.records}
    assert summary == {
        ("passport", "changed"): ([4], []),
        ("trips", "removed"): ([3, 5], [5]),
        ("trips", "added"): ([6], []),
    }
    [trip] = result.classes
    assert [(f.name, f.change, f.fact_ids) for f in trip.fields] == [("seat", "added", [6])]

"""Typed views of the canonical kinds (constraints.views): they agree with the vocabulary,
read odd records as None, and make a misspelt field a type error for mypy."""

from __future__ import annotations

import ast
import types
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, get_args

import pytest
from conftest import REPO
from constraint_records import Trip, record_class, user_module
from mypy import api

from constraints import MissingInput, load_user_constraints, run_constraints, views
from constraints.builtin import BUILTIN
from constraints.views import (
    VIEWS,
    EventRecord,
    Field,
    PassportRecord,
    TripRecord,
    View,
)
from factlog.vocabulary import CANONICAL, PROVENANCE_FIELD


def view_fields(view: type[View[Any]]) -> dict[str, str]:
    return {name: value.TYPE_NAME for name, value in vars(view).items() if isinstance(value, Field)}


# --- the views agree with the vocabulary, which stays the one owner of the names -------


def test_one_view_per_canonical_kind_named_after_its_class() -> None:
    assert sorted(v.KIND for v in VIEWS) == sorted(CANONICAL)
    for view in VIEWS:
        domain = CANONICAL[view.KIND]
        assert view.__name__ == domain.class_name + "Record"
        assert view.ATTRIBUTE == domain.attribute


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v.KIND)
def test_view_fields_are_the_vocabulary_fields_with_their_types(view: type[View[Any]]) -> None:
    domain = CANONICAL[view.KIND]
    fields = view_fields(view)
    canonical = {name: kind for name, kind in fields.items() if name not in view.EXTRA}
    assert canonical == dict(domain.fields)  # every canonical field, same type, nothing invented
    assert list(canonical) == list(domain.fields)
    assert view.EXTRA <= set(fields) and not view.EXTRA & set(domain.fields)
    names = getattr(views, CANONICAL[view.KIND].class_name + "Field")
    assert get_args(names) == tuple(fields)  # the names `require`/`reads` accept, for mypy


def test_views_read_only_person_subject_and_status_beyond_the_vocabulary() -> None:
    assert {v.KIND: sorted(v.EXTRA) for v in VIEWS if v.EXTRA} == {
        "event": ["person", "status", "subject"], "passport": ["subject"], "document": ["subject"],
        "trip": ["subject"], "subscription": ["subject"], "medication": ["subject"], "allergy": ["subject"]}


def test_builtins_declare_canonical_attributes_and_view_fields() -> None:
    by_attribute = {v.ATTRIBUTE: v for v in VIEWS}
    for item in BUILTIN:
        for attribute in item.needs:
            assert attribute in by_attribute, (item.name, attribute)
        for attribute, names in item.fields.items():
            assert set(names) <= set(view_fields(by_attribute[attribute])), (item.name, attribute, names)


def test_builtins_read_no_field_by_name() -> None:
    source = (REPO / "constraints" / "builtin.py").read_text()
    calls = [node.func.id for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    assert not {"getattr", "hasattr", "setattr"} & set(calls)


# --- reading odd records at the boundary ------------------------------------------------


def test_a_missing_field_none_or_a_value_of_another_type_reads_as_none() -> None:
    Bare = record_class("trip", without=("departure_date", "country"))
    bare = TripRecord(Bare(destination="Lisbon"))
    assert bare.departure_date is None and bare.country is None and bare.destination == "Lisbon"
    odd = TripRecord(Trip(destination=42, departure_date="soon", return_date=3.5, is_international="yes",
                          cost_usd=True, carrier="   "))
    assert (odd.destination, odd.departure_date, odd.return_date, odd.is_international, odd.cost_usd,
            odd.carrier) == (None, None, None, None, None, None)


def test_values_are_converted_as_the_checks_compare_them() -> None:
    trip = TripRecord(Trip(destination="  Lisbon ", departure_date="2030-05-01T08:00", return_date=datetime(2030, 5, 3, 9),
                           cost_usd=12, is_international=False))
    assert trip.destination == "Lisbon"
    assert trip.departure_date == date(2030, 5, 1) and trip.return_date == date(2030, 5, 3)
    assert trip.cost_usd == 12.0 and isinstance(trip.cost_usd, float)
    assert trip.is_international is False
    Event = record_class("event")
    event = EventRecord(Event(start=date(2030, 5, 1), end=" 2030-05-01T10:30+02:00 "))
    assert event.start == datetime(2030, 5, 1)
    assert event.end is not None and event.end.utcoffset() == timedelta(hours=2)
    assert event.person is None  # a field beyond the vocabulary, absent here


def test_has_and_holds_tell_a_missing_field_from_a_none() -> None:
    Bare = record_class("trip", without=("country",))
    trip = TripRecord(Bare(departure_date=None))
    assert trip.has("departure_date") and not trip.holds("departure_date")
    assert not trip.has("country") and not trip.holds("country")
    assert trip.fact_ids == [] and trip.source.__class__ is Bare


def test_accessors_read_the_attribute_the_vocabulary_names() -> None:
    trip = Trip(destination="Lisbon", fact_ids=[3])
    Passport = record_class("passport")
    module = user_module(trips=(trip,), passport=Passport(number="X1"))
    assert [t.source for t in views.read_all(module, TripRecord)] == [trip]
    assert views.read_one(module, PassportRecord).number == "X1"
    assert [p.number for p in views.read_all(module, PassportRecord)] == ["X1"]  # a single record is a list of one
    assert views.read_present(user_module(), TripRecord) is None
    with pytest.raises(MissingInput, match="the module has no 'trips'"):
        views.read_all(user_module(trips=None), TripRecord)


def test_require_and_reads() -> None:
    Bare = record_class("trip", without=("departure_date",))
    with pytest.raises(MissingInput, match="trip records have no 'departure_date' field"):
        views.require([TripRecord(Bare())], "trip", "departure_date")
    views.require([], "trip", "departure_date")  # no records: nothing to complain about
    views.require([TripRecord(Trip())], "trip", "departure_date")  # present, if None
    with pytest.raises(MissingInput, match="the passport has no 'expiry_date'"):
        views.require_value(PassportRecord(record_class("passport")()), "the passport", "expiry_date")
    assert views.reads(TripRecord, "departure_date", "return_date") == ("trips", ("departure_date", "return_date"))


# --- a misspelt field is a type error -------------------------------------------------

SNIPPET = '''
from collections.abc import Iterator
from datetime import date, datetime

from constraints import Finding, constraint
from constraints.views import TripRecord, read_all, reads, require


@constraint(needs=(TripRecord.ATTRIBUTE,), fields=dict([reads(TripRecord, "{field}")]))
def soon(module: object, now: datetime) -> Iterator[Finding]:
    trips = read_all(module, TripRecord)
    require(trips, "trip", "{field}")
    for trip in trips:
        when: date | None = trip.{field}
        if when is not None and when >= now.date():
            yield Finding("info", f"trip on {{when}}", (trip.source,))
'''


def test_a_misspelt_field_is_a_mypy_error_and_the_right_one_passes(tmp_path: Path) -> None:
    (tmp_path / "good_views.py").write_text(SNIPPET.format(field="departure_date"))
    (tmp_path / "bad_views.py").write_text(SNIPPET.format(field="departure_dte"))
    stdout, stderr, status = api.run([
        "--strict", "--follow-imports=silent", "--no-error-summary", "--cache-dir", str(REPO / ".mypy_cache"),
        "--config-file", str(REPO / "pyproject.toml"),
        str(tmp_path / "good_views.py"), str(tmp_path / "bad_views.py"),
    ])
    assert status == 1, stdout + stderr
    lines = stdout.splitlines()
    assert not [line for line in lines if "good_views.py" in line], stdout
    bad = "\n".join(line for line in lines if "bad_views.py" in line)
    assert '"TripRecord" has no attribute "departure_dte"' in bad
    assert bad.count("error:") == 3, bad  # the attribute, and the names given to `reads` and `require`
    assert ":9:" in bad and ":12:" in bad and ":14:" in bad, bad


# --- user constraints may ask for the typed views too -----------------------------------


def test_a_user_constraint_can_read_through_the_typed_views(tmp_path: Path) -> None:
    folder = tmp_path / "constraints"
    folder.mkdir()
    (folder / "long_trips.py").write_text(
        "from constraints import Finding, constraint\n"
        "from constraints.views import TripRecord, read_all\n\n"
        "@constraint(needs=(TripRecord.ATTRIBUTE,))\n"
        "def long_trips(module, now):\n"
        "    for trip in read_all(module, TripRecord):\n"
        "        if trip.departure_date and trip.return_date and (trip.return_date - trip.departure_date).days > 20:\n"
        "            yield Finding('info', f'long trip to {trip.destination}', (trip.source,))\n"
    )
    loaded = load_user_constraints(tmp_path)
    assert not loaded.failures
    module = types.SimpleNamespace(trips=[
        Trip(destination="Lima", departure_date="2030-01-01", return_date=date(2030, 2, 1), fact_ids=[7]),
        Trip(destination="Oslo", departure_date=date(2030, 1, 1), return_date=date(2030, 1, 2), fact_ids=[8]),
    ])
    result = run_constraints(module, datetime(2029, 1, 1), loaded.constraints)
    assert [(a.id, a.message, a.fact_ids) for a in result.alerts] == [("long_trips:f7", "long trip to Lima", (7,))]


def test_a_view_cited_by_mistake_still_names_its_facts() -> None:
    from constraints import Finding, constraint

    @constraint(needs=("trips",))
    def cites_view(module: object, now: datetime) -> Any:
        for trip in views.read_all(module, TripRecord):
            yield Finding("info", "x", (trip,))

    module = user_module(trips=[Trip(destination="Lima", fact_ids=[4, 9])])
    assert [(a.id, a.fact_ids) for a in run_constraints(module, datetime(2030, 1, 1), [cites_view]).alerts] == [
        ("cites_view:f4", (4, 9))]
    assert PROVENANCE_FIELD == "fact_ids"  # the view's `fact_ids` property mirrors the provenance field

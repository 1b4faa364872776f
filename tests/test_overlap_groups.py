"""Overlapping trips are reported per group of trips connected by overlaps: one alert per
group, named by its earliest-booked trip, so N trips on the same days give one alert (not
N²/2) and the alert keeps its id as trips join, groups merge or split."""

from __future__ import annotations

import random
import types
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from constraint_records import Passport, Trip, days_from, user_module

from constraints import BUILTIN, Alert, run_constraints
from constraints.builtin import NAMED_TRIPS, overlapping_trips
from constraints.kept_results import KeptResults
from constraints.kept_state import KeptStates
from constraints.overlaps import Span, overlapping_groups, overlapping_pairs
from constraints.runner import diff_alerts, evaluate_and_record

NOW = datetime(2030, 6, 1, 9, 0)
day = days_from(NOW.date())


def trip(n: int, leave: int, back: int | None = None, place: str | None = None) -> object:
    return Trip(destination=place or f"City{n}", departure_date=day(leave),
                return_date=None if back is None else day(back), fact_ids=[n, n + 1000])


def found(*trips: object) -> list[Alert]:
    return list(overlapping_trips.check(user_module(trips=list(trips)), NOW))


def components(spans: list[Span[int]]) -> set[frozenset[int]]:
    """The groups by brute force: union-find over every overlapping pair."""
    parent = {s.item: s.item for s in spans}

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in overlapping_pairs(spans):
        parent[root(a.item)] = root(b.item)
    groups: dict[int, set[int]] = {}
    for s in spans:
        groups.setdefault(root(s.item), set()).add(s.item)
    return {frozenset(g) for g in groups.values() if len(g) > 1}


@pytest.mark.parametrize("seed", range(30))
def test_groups_are_the_components_of_the_overlapping_pairs(seed: int) -> None:
    rng = random.Random(seed)
    base = date(2030, 1, 1)
    spans = []
    for i in range(rng.randint(0, 40)):
        start = base + timedelta(days=rng.randint(0, 60))
        spans.append(Span(start, start + timedelta(days=rng.choice((0, 0, 1, 2, 3, 7))), i))
    groups = list(overlapping_groups(spans))
    assert {frozenset(s.item for s in g) for g in groups} == components(spans)
    for group in groups:
        assert [s.start for s in group] == sorted(s.start for s in group)
    assert [g[0].start for g in groups] == sorted(g[0].start for g in groups)


def test_many_trips_on_the_same_days_are_one_alert() -> None:
    trips = [trip(i, 10 + i % 3, 20) for i in range(1, 41)]
    [alert] = found(*trips)
    assert alert.id == "overlapping_trips:f1"
    assert alert.fact_ids == tuple(sorted([*range(1, 41), *range(1001, 1041)]))
    named = ", ".join(f"trip to City{n} ({day(10)} – {day(20)})" for n in (3, 6, 9, 12, 15))
    assert alert.message == f"40 trips overlap between {day(10)} and {day(20)}: {named} and {40 - NAMED_TRIPS} more"
    assert alert.due == day(10) and alert.severity == "warning"


def test_two_trips_read_as_before() -> None:
    [alert] = found(trip(7, 3, 10, "Tokyo"), trip(9, 8, 12, "Paris"))
    assert alert.message == f"trip to Tokyo ({day(3)} – {day(10)}) overlaps trip to Paris ({day(8)} – {day(12)})"
    assert alert.id == "overlapping_trips:f7" and alert.due == day(8)


def test_a_chain_is_one_group_and_a_gap_splits_it() -> None:
    a, b, c = trip(1, 1, 5), trip(2, 4, 9), trip(3, 8, 12)  # a-b and b-c overlap, a-c do not
    d, e = trip(4, 12, 14), trip(5, 13, 15)  # d starts on c's return day: a new group
    alerts = found(e, d, c, b, a)
    assert [(x.id, x.message.split(":")[0]) for x in alerts] == [
        ("overlapping_trips:f1", f"3 trips overlap between {day(1)} and {day(12)}"),
        ("overlapping_trips:f4", f"trip to City4 ({day(12)} – {day(14)}) overlaps trip to City5 ({day(13)} – {day(15)})")]
    assert found(a, c) == []


def test_the_id_stays_as_trips_join_merge_and_split() -> None:
    a, b = trip(10, 1, 5), trip(20, 4, 8)
    c, d = trip(30, 20, 25), trip(40, 22, 26)
    first = found(a, b, c, d)
    assert [x.id for x in first] == ["overlapping_trips:f10", "overlapping_trips:f30"]
    joined = found(a, b, c, d, trip(50, 2, 3))  # a later booking joins the first group
    diff = diff_alerts(first, joined)
    assert diff.raised == () and diff.resolved == () and len(diff.still_active) == 2
    assert joined[0].message.startswith("3 trips overlap")
    bridge = trip(60, 7, 21)  # overlaps b and c: the two groups merge, the older id stays
    merged = found(a, b, c, d, bridge)
    assert [x.id for x in merged] == ["overlapping_trips:f10"]
    assert [x.id for x in diff_alerts(first, merged).resolved] == ["overlapping_trips:f30"]
    assert found(b, c, d, bridge)[0].id == "overlapping_trips:f20"  # the anchor gone: the next oldest
    assert [x.id for x in found(a, b, c, d)] == ["overlapping_trips:f10", "overlapping_trips:f30"]  # split again


def test_an_earlier_departure_booked_later_does_not_rename_the_group() -> None:
    a, b = trip(10, 5, 9), trip(20, 6, 8)
    early = trip(90, 1, 6)  # departs first, booked last
    assert [x.id for x in found(a, b, early)] == ["overlapping_trips:f10"]


def test_records_without_provenance_come_after_those_with_it() -> None:
    bare = Trip(destination="Oslo", departure_date=day(1), return_date=day(5))
    [alert] = found(bare, trip(100, 2, 4))
    assert alert.id == "overlapping_trips:f100"
    [alone] = found(bare, Trip(destination="Rome", departure_date=day(2), return_date=day(3)))
    assert alone.id.startswith("overlapping_trips:h")


def random_trips(rng: random.Random, n: int) -> list[object]:
    return [trip(n + i, leave := rng.randint(-5, 40), leave + rng.choice((0, 1, 3, 6))) for i in range(rng.randint(0, 6))]


@pytest.mark.parametrize("seed", range(8))
def test_kept_runs_equal_full_runs_as_groups_merge_and_split(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    trips: list[object] = random_trips(rng, 1)
    n = 100
    kept, states, results = KeptResults(), KeptStates(), KeptResults()
    for step in range(25):
        roll = rng.random()
        if roll < 0.45:
            trips.extend(random_trips(rng, n))  # may bridge two groups
        elif roll < 0.8 and trips:
            del trips[rng.randrange(len(trips))]  # may split one
        elif trips:
            i = rng.randrange(len(trips))
            leave = rng.randint(-5, 40)
            trips[i] = Trip(destination="moved", departure_date=day(leave), return_date=day(leave + 2),
                            fact_ids=list(getattr(trips[i], "fact_ids")))
        n += 10
        now = datetime.combine(NOW.date() + timedelta(days=step // 8), datetime.min.time(), timezone.utc)
        module = types.SimpleNamespace(trips=list(trips))
        assert run_constraints(module, now, BUILTIN, kept) == run_constraints(module, now, BUILTIN)
        a = evaluate_and_record(module, now, BUILTIN, tmp_path / "a.json", step, kept=states, results=results)
        b = evaluate_and_record(module, now, BUILTIN, tmp_path / "b.json", step)
        assert a == b
        assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_the_passport_rule_judges_only_trips_not_seen_before() -> None:
    passport = Passport(country="US", expiry_date=day(100), fact_ids=[1])
    trips = [Trip(destination=f"C{i}", country="FR", departure_date=day(i), return_date=day(i + 3), fact_ids=[10 + i])
             for i in range(30)]
    kept = KeptResults()
    now = NOW.replace(tzinfo=timezone.utc)
    first = run_constraints(user_module(passport=passport, trips=trips), now, BUILTIN, kept)
    assert kept.judged == 30 and first == run_constraints(user_module(passport=passport, trips=trips), now, BUILTIN)
    trips = [*trips, Trip(destination="Lima", country="PE", departure_date=day(90), fact_ids=[99])]
    module = user_module(passport=passport, trips=trips)
    again = run_constraints(module, now + timedelta(hours=1), BUILTIN, kept)
    assert kept.judged == 31  # the new trip only
    assert again == run_constraints(module, now + timedelta(hours=1), BUILTIN)
    assert any(a.id == "passport_valid_for_trips:f1+f99" for a in again.alerts)

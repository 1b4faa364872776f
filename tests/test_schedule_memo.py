"""overlapping_schedule and overlapping_trips keep what they derive from each record
between runs (`constraints.record_memo`): their alerts are those of a run that derives
everything again, after any sequence of added, changed and removed records and of clocks
moving forward (naive or aware), and a run over a module sharing most records derives
only the new ones."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from constraint_records import Appointment, Event, Trip, user_module

from constraints import builtin
from constraints.builtin import overlapping_schedule, overlapping_trips
from constraints.model import Alert, Constraint
from constraints.record_memo import RecordMemo

START = datetime(2031, 3, 1, 8, 0)
PEOPLE = (None, "me", "Mia", "Sam")


def run(module: object, now: datetime, rule: Constraint = overlapping_schedule) -> list[Alert]:
    return list(rule.check(module, now))


def fresh(module: object, now: datetime, rule: Constraint = overlapping_schedule) -> list[Alert]:
    """The alerts as a run that keeps nothing finds them."""
    kept, trips = dict(builtin._MEMOS), builtin._TRIP_SPANS
    builtin._MEMOS.clear()
    builtin._TRIP_SPANS = RecordMemo(builtin._trip_span)
    try:
        return run(module, now, rule)
    finally:
        builtin._MEMOS.clear()
        builtin._MEMOS.update(kept)
        builtin._TRIP_SPANS = trips


def derived() -> int:
    return sum(memo.derived for memo in builtin._MEMOS.values())


def _record(rnd: random.Random, n: int) -> object:
    start = START + timedelta(hours=rnd.randrange(0, 96), minutes=rnd.choice((0, 30)))
    if rnd.random() < 0.15:
        start = start.replace(tzinfo=timezone.utc)
    end = None if rnd.random() < 0.2 else start + timedelta(minutes=rnd.choice((30, 60, 90)))
    person = rnd.choice(PEOPLE)
    if rnd.random() < 0.6:
        return Appointment(provider=f"Dr {n}", person=person, start=start, end=end, fact_ids=[n])
    return Event(title=f"event {n}", start=start.isoformat() if rnd.random() < 0.3 else start,
                 end=end, fact_ids=[n])


def test_kept_derivations_give_the_alerts_of_a_fresh_run() -> None:
    for seed in range(12):
        rnd = random.Random(seed)
        records = [_record(rnd, n) for n in range(40)]
        now = START
        aware = seed % 3 == 0
        for step in range(25):
            roll = rnd.random()
            if roll < 0.3:
                records.append(_record(rnd, 100 * seed + step + 1000))
            elif roll < 0.5 and records:
                records.pop(rnd.randrange(len(records)))
            elif roll < 0.7 and records:
                records[rnd.randrange(len(records))] = _record(rnd, step + 5000)
            else:
                now += timedelta(hours=rnd.randrange(0, 9))  # time passes: spans end, alerts go
            clock = now.replace(tzinfo=timezone.utc) if aware else now
            module = user_module(appointments=[r for r in records if isinstance(r, Appointment)],
                                 events=[r for r in records if isinstance(r, Event)])
            assert run(module, clock) == fresh(module, clock), (seed, step)


def test_a_run_over_mostly_the_same_records_derives_only_the_new_ones() -> None:
    rnd = random.Random(7)
    appointments = [r for r in (_record(rnd, n) for n in range(60)) if isinstance(r, Appointment)]
    builtin._MEMOS.clear()
    first = run(user_module(appointments=appointments), START)
    before = derived()
    assert before == len(appointments)
    added = Appointment(provider="Dr New", start=START + timedelta(hours=1), fact_ids=[999])
    second = run(user_module(appointments=[*appointments, added]), START)
    assert derived() - before == 1
    assert len(second) >= len(first)


def _trip(rnd: random.Random, n: int) -> object:
    departure = START.date() + timedelta(days=rnd.randrange(0, 40))
    back = None if rnd.random() < 0.3 else departure + timedelta(days=rnd.randrange(0, 6))
    return Trip(destination=f"city {n % 7}", departure_date=departure if rnd.random() < 0.9 else None,
                return_date=back, fact_ids=[n])


def test_kept_trip_spans_give_the_alerts_of_a_fresh_run() -> None:
    for seed in range(10):
        rnd = random.Random(seed)
        trips = [_trip(rnd, n) for n in range(30)]
        now = START
        for step in range(25):
            roll = rnd.random()
            if roll < 0.3:
                trips.append(_trip(rnd, 1000 + step))
            elif roll < 0.5 and trips:
                trips.pop(rnd.randrange(len(trips)))
            elif roll < 0.7 and trips:
                trips[rnd.randrange(len(trips))] = _trip(rnd, 5000 + step)
            else:
                now += timedelta(days=rnd.randrange(0, 4))  # days pass: trips end, groups split
            module = user_module(trips=list(trips))
            assert run(module, now, overlapping_trips) == fresh(module, now, overlapping_trips), (seed, step)
    before = builtin._TRIP_SPANS.derived
    run(user_module(trips=[*trips, _trip(rnd, 9999)]), now, overlapping_trips)
    assert builtin._TRIP_SPANS.derived - before == 1


def test_forgetting_drops_the_kept_records() -> None:
    rnd = random.Random(3)
    run(user_module(trips=[_trip(rnd, 1), _trip(rnd, 2)]), START, overlapping_trips)
    run(user_module(appointments=[Appointment(provider="Dr A", start=START, fact_ids=[1])]), START)
    builtin.drop_kept()
    assert not builtin._MEMOS and not builtin._TRIP_SPANS._kept

"""Median time to run all built-in constraints over a 10,000-record user module.

Run: .venv/bin/python benchmarks/bench_constraints.py   (target: <= 100 ms)
"""

from __future__ import annotations

import random
import statistics
import time
import types
from dataclasses import field, make_dataclass
from datetime import date, datetime, timedelta
from typing import Any

from constraints import BUILTIN, run_constraints
from factlog.vocabulary import CANONICAL, PROVENANCE_FIELD

NOW = datetime(2025, 3, 1, 9, 0)
RUNS = 21


def record_class(kind: str) -> Any:
    columns: list[Any] = [(name, Any, None) for name in CANONICAL[kind].fields]
    columns.append((PROVENANCE_FIELD, list[int], field(default_factory=list)))
    return make_dataclass(CANONICAL[kind].class_name, columns, frozen=True, kw_only=True)


def build_module(seed: int = 7) -> types.SimpleNamespace:
    rng = random.Random(seed)
    ids = iter(range(1, 1_000_000))
    today = NOW.date()

    def some_day(span: int) -> date:
        return today + timedelta(days=rng.randint(-span, span))

    Trip, Payment, Document, Appointment, Medication, Allergy, Bill, Event, Passport = map(
        record_class, ("trip", "payment", "document", "appointment", "medication", "allergy", "bill", "event", "passport")
    )
    countries = ["USA", "Japan", "France", "Brazil", "Kenya"]
    trips = []
    for _ in range(2500):
        departure = some_day(1500)
        trips.append(Trip(destination=f"City {rng.randint(1, 400)}", country=rng.choice(countries),
                          departure_date=departure, return_date=departure + timedelta(days=rng.randint(0, 6)),
                          fact_ids=[next(ids)]))
    payments = [
        Payment(payee=f"Payee {rng.randint(1, 600)}", amount_usd=float(rng.choice([50, 120, 1200])),
                reference=f"INV-{rng.randint(1, 3)}", status=rng.choice(["pending", "done", "done", "cancelled"]),
                requested_by=rng.choice(["me", "Bob"]), scheduled_date=some_day(60), fact_ids=[next(ids)])
        for _ in range(2000)
    ]
    documents = [
        Document(kind=rng.choice(["visa", "licence", "id card"]), number=f"D{n}", expiry_date=some_day(2000),
                 fact_ids=[next(ids)])
        for n in range(1500)
    ]
    appointments = []
    for _ in range(2500):
        start = NOW + timedelta(hours=rng.randint(-24 * 365, 24 * 365))
        appointments.append(Appointment(provider=f"Dr {rng.randint(1, 50)}", person=rng.choice([None, None, "Mia"]),
                                        start=start, end=start + timedelta(minutes=rng.choice([30, 60])),
                                        fact_ids=[next(ids)]))
    classes = [f"class {n}" for n in range(60)]
    medications = [
        Medication(name=f"drug {n}", drug_class=rng.choice(classes), person=rng.choice([None, "Mia"]),
                   end_date=some_day(400), fact_ids=[next(ids)])
        for n in range(1000)
    ]
    allergies = [Allergy(allergen=f"a{n}", drug_class=rng.choice(classes), fact_ids=[next(ids)]) for n in range(100)]
    bills = [Bill(payee=f"Utility {n}", amount_usd=80.0, due_date=some_day(60), fact_ids=[next(ids)]) for n in range(250)]
    events = [Event(title=f"Event {n}", start=NOW + timedelta(hours=rng.randint(0, 24 * 365)), fact_ids=[next(ids)])
              for n in range(149)]
    passport = Passport(number="X1", country="USA", expiry_date=today + timedelta(days=400), fact_ids=[next(ids)])
    return types.SimpleNamespace(passport=passport, trips=trips, payments=payments, documents=documents,
                                 appointments=appointments, medications=medications, allergies=allergies,
                                 bills=bills, events=events)


def main() -> None:
    module = build_module()
    count = sum(len(v) if isinstance(v, list) else 1 for v in vars(module).values())
    timings = []
    for _ in range(RUNS):
        started = time.perf_counter()
        result = run_constraints(module, NOW, BUILTIN)
        timings.append((time.perf_counter() - started) * 1000)
    assert not result.errors, result.errors
    by_constraint: dict[str, int] = {}
    for alert in result.alerts:
        by_constraint[alert.constraint] = by_constraint.get(alert.constraint, 0) + 1
    print(f"records: {count}; alerts: {len(result.alerts)} {by_constraint}; skipped: {[s.constraint for s in result.skipped]}")
    print(f"all built-in constraints: median {statistics.median(timings):.1f} ms over {RUNS} runs (target <= 100 ms)")
    for rule in BUILTIN:
        single = []
        for _ in range(5):
            started = time.perf_counter()
            run_constraints(module, NOW, [rule])
            single.append((time.perf_counter() - started) * 1000)
        print(f"  {rule.name:<26} median {statistics.median(single):6.1f} ms")


if __name__ == "__main__":
    main()

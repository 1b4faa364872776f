from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from constraint_records import (
    Allergy,
    Appointment,
    Bill,
    Deadline,
    Document,
    Event,
    Medication,
    Passport,
    Payment,
    Trip,
    Vehicle,
    days_from,
    record_class,
    user_module,
)

from constraints import BUILTIN, Constraint, Finding, constraint, evaluate_and_record, run_constraints
from constraints.builtin import (
    bills_due,
    conflicting_payments,
    deadlines_due,
    document_expiry,
    medication_allergy,
    overlapping_schedule,
    overlapping_trips,
    passport_expiry,
    passport_valid_for_trips,
    vehicle_service_due,
)
from constraints.model import Alert
from constraints.state import AlertState
from constraints.user_loader import load_user_constraints

NOW = datetime(2025, 3, 1, 9, 0)
TODAY = NOW.date()
day = days_from(TODAY)


def at(n: int, hour: int) -> datetime:
    return datetime.combine(day(n), datetime.min.time()).replace(hour=hour)


def alerts(rule: Constraint, module: object, now: datetime = NOW) -> list[Alert]:
    result = run_constraints(module, now, [rule])
    assert not result.errors and not result.skipped, (result.errors, result.skipped)
    return list(result.alerts)


def skip_reason(rule: Constraint, module: object) -> str:
    result = run_constraints(module, NOW, [rule])
    assert not result.alerts and not result.errors
    assert [s.constraint for s in result.skipped] == [rule.name]
    return result.skipped[0].reason


def us_passport(expiry: date, ids: list[int] | None = None) -> object:
    return Passport(number="X1", country="USA", expiry_date=expiry, fact_ids=ids or [1])


def ulaanbaatar(departure: date, back: date | None, **extra: object) -> object:
    return Trip(destination="Ulaanbaatar", country="Mongolia", departure_date=departure, return_date=back, fact_ids=[7], **extra)


# --- passport validity for trips ------------------------------------------------------


def test_passport_expiring_before_return_is_critical() -> None:
    module = user_module(passport=us_passport(day(40)), trips=[ulaanbaatar(day(35), day(45))])
    [alert] = alerts(passport_valid_for_trips, module)
    assert alert.severity == "critical"
    assert "5 days before your Ulaanbaatar return" in alert.message
    assert alert.fact_ids == (1, 7)
    assert alert.due == day(35)


def test_passport_short_validity_is_a_warning() -> None:
    module = user_module(passport=us_passport(day(71)), trips=[ulaanbaatar(day(35), day(45))])
    [alert] = alerts(passport_valid_for_trips, module)
    assert alert.severity == "warning"
    assert "passport expires 26 days after your Ulaanbaatar return" in alert.message


@pytest.mark.parametrize(
    "trip",
    [
        ulaanbaatar(day(35), day(45)),  # plenty of validity (passport below lasts 400 days)
        ulaanbaatar(day(-20), day(-10)),  # in the past
    ],
)
def test_passport_valid_or_trip_past_raises_nothing(trip: object) -> None:
    expiry = day(400) if trip.departure_date > TODAY else day(5)  # type: ignore[attr-defined]
    assert alerts(passport_valid_for_trips, user_module(passport=us_passport(expiry), trips=[trip])) == []


def test_domestic_trip_needs_no_passport_validity() -> None:
    domestic = Trip(destination="Denver", country="usa", departure_date=day(3), fact_ids=[8])
    flagged = Trip(destination="Boston", country="Mongolia", is_international=False, departure_date=day(3), fact_ids=[9])
    abroad = Trip(destination="Lyon", is_international=True, departure_date=day(3), fact_ids=[10])
    module = user_module(passport=us_passport(day(10)), trips=[domestic, flagged, abroad])
    assert [a.fact_ids for a in alerts(passport_valid_for_trips, module)] == [(1, 10)]


def test_passport_validity_skips_without_inputs() -> None:
    trips = [ulaanbaatar(day(35), day(45))]
    assert "passport" in skip_reason(passport_valid_for_trips, user_module(trips=trips))
    assert "passport" in skip_reason(passport_valid_for_trips, user_module(passport=None, trips=trips))
    no_expiry = Passport(number="X1", country="USA")
    assert "expiry_date" in skip_reason(passport_valid_for_trips, user_module(passport=no_expiry, trips=trips))
    Undated = record_class("trip", without=("departure_date",))
    undated = user_module(passport=us_passport(day(40)), trips=[Undated(destination="Ulaanbaatar", country="Mongolia")])
    assert "departure_date" in skip_reason(passport_valid_for_trips, undated)


# --- passport and document expiry -----------------------------------------------------


@pytest.mark.parametrize(
    ("days_left", "severity"), [(-3, "critical"), (0, "critical"), (20, "critical"), (45, "warning"), (80, "info")]
)
def test_passport_expiry_thresholds(days_left: int, severity: str) -> None:
    [alert] = alerts(passport_expiry, user_module(passport=us_passport(day(days_left))))
    assert alert.severity == severity
    assert alert.due == day(days_left)
    assert ("expired" in alert.message) == (days_left < 0)


def test_passport_expiry_far_away_and_missing() -> None:
    assert alerts(passport_expiry, user_module(passport=us_passport(day(91)))) == []
    assert "passport" in skip_reason(passport_expiry, user_module(trips=[]))


def test_document_expiry() -> None:
    visa = Document(kind="visa", number="V9", holder="Anna", expiry_date=day(50), fact_ids=[3])
    licence = Document(kind="driving licence", expiry_date=day(-1), fact_ids=[4])
    later = Document(kind="id card", expiry_date=day(365), fact_ids=[5])
    undated = Document(kind="birth certificate", fact_ids=[6])
    found = {a.fact_ids: a for a in alerts(document_expiry, user_module(documents=[visa, licence, later, undated]))}
    assert set(found) == {(3,), (4,)}
    assert found[(3,)].severity == "warning" and "Anna's visa V9 expires in 50 days" in found[(3,)].message
    assert found[(4,)].severity == "critical" and "expired 1 day ago" in found[(4,)].message


def test_document_expiry_leaves_out_a_policy_bought_for_one_trip() -> None:
    trip_policy = Document(kind="insurance", number="CM-889120", start_date=day(20), expiry_date=day(36), fact_ids=[3])
    annual = Document(kind="insurance", start_date=day(-330), expiry_date=day(35), fact_ids=[4])
    health = Document(kind="insurance", expiry_date=day(10), fact_ids=[5])  # no start: ongoing cover
    long_trip = Document(kind="insurance", start_date=day(-100), expiry_date=day(20), fact_ids=[6])
    travel = Document(kind="insurance", item="travel", expiry_date=day(30), fact_ids=[7])  # "my travel insurance"
    named = Document(kind="travel insurance", expiry_date=day(30), fact_ids=[8])
    documents = [trip_policy, annual, health, long_trip, travel, named]
    found = {a.fact_ids for a in alerts(document_expiry, user_module(documents=documents))}
    assert found == {(4,), (5,), (6,)}


def test_document_expiry_leaves_out_a_visa_granted_for_one_trip() -> None:
    e_visa = Document(kind="visa", holder="Jonas", start_date=day(23), expiry_date=day(32), fact_ids=[3])
    thirty_day = Document(kind="visa", start_date=day(5), expiry_date=day(34), fact_ids=[4])
    multi_year = Document(kind="visa", start_date=day(-700), expiry_date=day(40), fact_ids=[5])
    open_ended = Document(kind="visa", expiry_date=day(20), fact_ids=[6])  # no start: a visa held
    documents = [e_visa, thirty_day, multi_year, open_ended]
    found = {a.fact_ids for a in alerts(document_expiry, user_module(documents=documents))}
    assert found == {(5,), (6,)}


def test_document_expiry_skips_without_inputs() -> None:
    assert "documents" in skip_reason(document_expiry, user_module(passport=None))
    Plain = record_class("document", without=("expiry_date",))
    assert "expiry_date" in skip_reason(document_expiry, user_module(documents=[Plain(kind="visa")]))


# --- overlaps --------------------------------------------------------------------------


def test_overlapping_trips() -> None:
    a = Trip(destination="Tokyo", departure_date=day(3), return_date=day(10), fact_ids=[1])
    b = Trip(destination="Paris", departure_date=day(8), return_date=day(12), fact_ids=[2])
    c = Trip(destination="Rome", departure_date=day(12), return_date=day(14), fact_ids=[3])  # back-to-back
    [alert] = alerts(overlapping_trips, user_module(trips=[c, b, a]))
    assert alert.fact_ids == (1, 2) and alert.severity == "warning"
    assert "Tokyo" in alert.message and "Paris" in alert.message
    assert alert.due == day(8)


def test_past_or_separate_trips_do_not_overlap() -> None:
    past = [
        Trip(destination="Oslo", departure_date=day(-20), return_date=day(-10), fact_ids=[1]),
        Trip(destination="Bergen", departure_date=day(-15), return_date=day(-12), fact_ids=[2]),
    ]
    apart = [
        Trip(destination="Tokyo", departure_date=day(3), return_date=day(5), fact_ids=[3]),
        Trip(destination="Paris", departure_date=day(6), fact_ids=[4]),
    ]
    assert alerts(overlapping_trips, user_module(trips=past + apart)) == []
    assert "trips" in skip_reason(overlapping_trips, user_module(events=[]))


def test_a_trip_only_considered_or_cancelled_overlaps_nothing() -> None:
    booked = Trip(destination="Chicago", departure_date=day(12), return_date=day(16), booking_status="booked",
                  fact_ids=[1])
    considered = Trip(destination="Lima", departure_date=day(10), return_date=day(24), booking_status="planned",
                      fact_ids=[2])
    cancelled = Trip(destination="Oslo", departure_date=day(11), return_date=day(13), booking_status="cancelled",
                     fact_ids=[3])
    assert alerts(overlapping_trips, user_module(trips=[booked, considered, cancelled])) == []
    again = Trip(destination="Denver", departure_date=day(15), return_date=day(18), fact_ids=[4])
    [alert] = alerts(overlapping_trips, user_module(trips=[booked, considered, again]))
    assert alert.fact_ids == (1, 4)


def test_overlapping_schedule_same_person_only() -> None:
    dentist = Appointment(provider="Dr Lee", start=at(2, 10), end=at(2, 11), fact_ids=[1])
    call = Event(title="Team call", start=at(2, 10).replace(minute=30), end=at(2, 12), fact_ids=[2])
    kid = Appointment(provider="Dr Kim", person="Mia", start=at(2, 10), end=at(2, 11), fact_ids=[3])
    later = Appointment(provider="Dr Ray", start=at(2, 12), end=at(2, 13), fact_ids=[4])  # back-to-back
    [alert] = alerts(overlapping_schedule, user_module(appointments=[dentist, kid, later], events=[call]))
    assert alert.fact_ids == (1, 2)
    assert "Dr Lee" in alert.message and "Team call" in alert.message


def test_past_schedule_and_missing_inputs() -> None:
    a = Appointment(provider="Dr Lee", start=at(-2, 10), end=at(-2, 11), fact_ids=[1])
    b = Appointment(provider="Dr Kim", start=at(-2, 10), fact_ids=[2])
    assert alerts(overlapping_schedule, user_module(appointments=[a, b])) == []
    assert "appointments" in skip_reason(overlapping_schedule, user_module(trips=[]))


def test_schedule_with_aware_now_and_naive_records() -> None:
    a = Appointment(provider="Dr Lee", start=at(2, 10), end=at(2, 11), fact_ids=[1])
    b = Event(title="Lunch", start=at(2, 10), fact_ids=[2])
    aware = NOW.replace(tzinfo=timezone.utc)
    assert len(alerts(overlapping_schedule, user_module(appointments=[a], events=[b]), now=aware)) == 1


# --- health and finance ---------------------------------------------------------------


def test_medication_in_allergic_drug_class_is_critical() -> None:
    allergy = Allergy(allergen="penicillin", drug_class="Penicillins", fact_ids=[1])
    amoxicillin = Medication(name="amoxicillin", drug_class="penicillins", person="me", fact_ids=[2])
    [alert] = alerts(medication_allergy, user_module(medications=[amoxicillin], allergies=[allergy]))
    assert alert.severity == "critical" and alert.fact_ids == (1, 2)
    assert "amoxicillin" in alert.message and "penicillin" in alert.message


def test_medication_for_other_person_or_finished_is_fine() -> None:
    allergy = Allergy(allergen="penicillin", drug_class="penicillins", fact_ids=[1])
    for_mia = Medication(name="amoxicillin", drug_class="penicillins", person="Mia", fact_ids=[2])
    finished = Medication(name="amoxicillin", drug_class="penicillins", end_date=day(-1), fact_ids=[3])
    other = Medication(name="ibuprofen", drug_class="NSAIDs", fact_ids=[4])
    module = user_module(medications=[for_mia, finished, other], allergies=[allergy])
    assert alerts(medication_allergy, module) == []


def test_medication_allergy_skips_without_inputs() -> None:
    meds = [Medication(name="amoxicillin", drug_class="penicillins", fact_ids=[2])]
    assert "allergies" in skip_reason(medication_allergy, user_module(medications=meds))
    Bare = record_class("allergy", without=("drug_class",))
    reason = skip_reason(medication_allergy, user_module(medications=meds, allergies=[Bare(allergen="pollen")]))
    assert "drug_class" in reason


def test_conflicting_pending_payments() -> None:
    first = Payment(payee="Acme Corp", amount_usd=1200.0, reference="INV-1", status="pending", fact_ids=[1])
    second = Payment(payee="acme corp", amount_usd=12000.0, reference="INV-1", status="Pending", fact_ids=[2])
    [alert] = alerts(conflicting_payments, user_module(payments=[first, second]))
    assert alert.severity == "warning" and alert.fact_ids == (1, 2)
    assert "$1,200.00" in alert.message and "$12,000.00" in alert.message


def test_consistent_or_settled_payments_do_not_conflict() -> None:
    a = Payment(payee="Acme", amount_usd=50.0, reference="R1", requested_by="Bob", status="pending", fact_ids=[1])
    same = Payment(payee="Acme", amount_usd=50.0, reference="R1", requested_by="bob", status="pending", fact_ids=[2])
    done = Payment(payee="Acme", amount_usd=99.0, reference="R2", status="done", fact_ids=[3])
    assert alerts(conflicting_payments, user_module(payments=[a, same, done])) == []
    other = Payment(payee="Acme", amount_usd=50.0, reference="R1", requested_by="Eve", status="pending", fact_ids=[4])
    [alert] = alerts(conflicting_payments, user_module(payments=[a, other]))
    assert "requested by Bob vs Eve" in alert.message
    assert "payments" in skip_reason(conflicting_payments, user_module(bills=[]))


@pytest.mark.parametrize(
    ("rule", "attribute", "cls", "name"),
    [(bills_due, "bills", Bill, "payee"), (deadlines_due, "deadlines", Deadline, "title")],
)
def test_due_dates(rule: Constraint, attribute: str, cls: type, name: str) -> None:
    soon = cls(due_date=day(3), fact_ids=[1], **{name: "Power Co"})
    overdue = cls(due_date=day(-2), fact_ids=[2], **{name: "Visa form"})
    later = cls(due_date=day(30), fact_ids=[3], **{name: "Essay"})
    found = {a.fact_ids: a for a in alerts(rule, user_module(**{attribute: [soon, overdue, later]}))}
    assert {ids: a.severity for ids, a in found.items()} == {(1,): "warning", (2,): "critical"}
    assert "Power Co" in found[(1,)].message and "in 3 days" in found[(1,)].message
    assert "Visa form" in found[(2,)].message and "2 days" in found[(2,)].message
    assert attribute in skip_reason(rule, user_module())
    Undated = record_class(attribute.rstrip("s"), without=("due_date",))
    assert "due_date" in skip_reason(rule, user_module(**{attribute: [Undated()]}))


def test_vehicle_service_due() -> None:
    car = Vehicle(make="Volvo", model="V70", plate="AB-123", next_service_date=day(10), fact_ids=[1])
    van = Vehicle(make="Ford", next_service_date=day(60), fact_ids=[2])
    [alert] = alerts(vehicle_service_due, user_module(vehicles=[car, van]))
    assert alert.severity == "info" and "Volvo V70 (AB-123)" in alert.message and alert.due == day(10)
    assert alerts(vehicle_service_due, user_module(vehicles=[van])) == []
    assert "vehicles" in skip_reason(vehicle_service_due, user_module())


# --- running, ids and lifecycle -------------------------------------------------------


def busy_module(passport_expiry: date) -> object:
    return user_module(
        passport=us_passport(passport_expiry),
        trips=[ulaanbaatar(day(35), day(45))],
        medications=[Medication(name="amoxicillin", drug_class="penicillins", fact_ids=[2])],
        allergies=[Allergy(allergen="penicillin", drug_class="penicillins", fact_ids=[3])],
        bills=[Bill(payee="Power Co", due_date=day(2), fact_ids=[4])],
    )


def test_all_builtins_run_and_report_skips() -> None:
    result = run_constraints(busy_module(day(40)), NOW, BUILTIN)
    assert not result.errors
    raised = {a.constraint for a in result.alerts}
    assert raised == {"passport_valid_for_trips", "passport_expiry", "medication_allergy", "bills_due"}
    skipped = {s.constraint for s in result.skipped}
    assert raised.isdisjoint(skipped) and "document_expiry" in skipped
    ran = {"overlapping_trips", "drug_interactions", "schengen_90_180"}  # ran, found nothing
    assert ran.isdisjoint(raised | skipped) and len(raised) + len(skipped) + len(ran) == len(BUILTIN)
    severities = [a.severity for a in result.alerts]
    assert severities == sorted(severities, key=("critical", "warning", "info").index)


def test_ids_are_stable_across_runs_and_days() -> None:
    first = run_constraints(busy_module(day(40)), NOW, BUILTIN).alerts
    second = run_constraints(busy_module(day(40)), NOW + timedelta(days=1), BUILTIN).alerts
    assert [a.id for a in first] == [a.id for a in second]
    assert len({a.id for a in first}) == len(first)
    assert any(a.message != b.message for a, b in zip(first, second))  # "in N days" moves on


def test_a_failing_constraint_is_an_error_and_the_rest_run() -> None:
    @constraint(name="broken", needs=("trips",))
    def broken(module: object, now: datetime) -> Iterator[Finding]:
        yield Finding("info", "fine", ())
        raise RuntimeError("boom")

    result = run_constraints(busy_module(day(40)), NOW, [broken, medication_allergy])
    assert [(e.constraint, e.error) for e in result.errors] == [("broken", "RuntimeError: boom")]
    assert [a.constraint for a in result.alerts] == ["medication_allergy"]


def test_lifecycle_raised_still_active_resolved(tmp_path: Path) -> None:
    state_path = tmp_path / "alerts.json"
    announced: list[Alert] = []
    rules = [passport_valid_for_trips]

    first = evaluate_and_record(busy_module(day(40)), NOW, rules, state_path, version=1, on_new_alert=announced.append)
    assert [a.constraint for a in first.raised] == ["passport_valid_for_trips"]
    assert first.still_active == () and first.resolved == ()

    second = evaluate_and_record(busy_module(day(40)), NOW + timedelta(hours=1), rules, state_path, version=2,
                                 on_new_alert=announced.append)
    assert second.raised == () and [a.id for a in second.still_active] == [first.raised[0].id]

    renewed = busy_module(day(3650))
    renewed.passport = us_passport(day(3650), ids=[1, 40])  # type: ignore[attr-defined]
    third = evaluate_and_record(renewed, NOW + timedelta(days=1), rules, state_path, version=3,
                                on_new_alert=announced.append)
    assert third.raised == () and third.still_active == ()
    assert [a.id for a in third.resolved] == [first.raised[0].id]
    assert announced == list(first.raised)

    state = AlertState.load(state_path)
    assert state.active == () and state.version == 3
    [resolved] = state.history
    assert (resolved.raised_version, resolved.resolved_version) == (1, 3)
    assert resolved.resolved_at == NOW + timedelta(days=1)


def test_erroring_constraint_keeps_its_alerts_active(tmp_path: Path) -> None:
    state_path = tmp_path / "alerts.json"
    evaluate_and_record(busy_module(day(40)), NOW, [medication_allergy], state_path, version=1)

    @constraint(name="medication_allergy")
    def flaky(module: object, now: datetime) -> Iterator[Finding]:
        raise OSError("database away")
        yield  # a generator

    diff = evaluate_and_record(busy_module(day(40)), NOW, [flaky], state_path, version=2)
    assert diff.resolved == () and len(diff.still_active) == 1
    assert [e.constraint for e in diff.errors] == ["medication_allergy"]


# --- user constraints -----------------------------------------------------------------

USER_RULE = '''
from datetime import datetime
from typing import Iterator
from constraints import Finding, constraint

@constraint(name="too_many_trips", needs=("trips",))
def too_many_trips(module: object, now: datetime) -> Iterator[Finding]:
    """More than one upcoming trip."""
    upcoming = [t for t in module.trips if t.departure_date >= now.date()]
    if len(upcoming) > 1:
        yield Finding("info", f"{len(upcoming)} trips ahead", tuple(upcoming))
'''


def test_user_constraints_load_and_broken_ones_are_reported(tmp_path: Path) -> None:
    home = tmp_path / "workspace"
    folder = home / "constraints"
    folder.mkdir(parents=True)
    (folder / "my_rules.py").write_text(USER_RULE)
    (folder / "broken.py").write_text("def oops(:\n")
    (folder / "raises.py").write_text("raise SystemExit('no')\n")
    (folder / "Bad-Name.py").write_text(USER_RULE)
    (folder / "clash.py").write_text(USER_RULE.replace("too_many_trips", "bills_due"))
    (folder / "notes.txt").write_text("ignored")
    outside = tmp_path / "elsewhere.py"
    outside.write_text(USER_RULE.replace("too_many_trips", "outside_rule"))
    os.symlink(outside, folder / "linked.py")

    loaded = load_user_constraints(home)
    assert [c.name for c in loaded.constraints] == ["too_many_trips"]
    assert loaded.constraints[0].description == "More than one upcoming trip."
    failures = {f.name: f.error for f in loaded.failures}
    assert set(failures) == {"broken.py", "raises.py", "Bad-Name.py", "clash.py", "linked.py"}
    assert failures["broken.py"].startswith("SyntaxError")
    assert "outside" in failures["linked.py"] and "bills_due" in failures["clash.py"]

    trips = [ulaanbaatar(day(3), day(5)), Trip(destination="Paris", departure_date=day(9), fact_ids=[8])]
    [alert] = run_constraints(user_module(trips=trips), NOW, loaded.constraints).alerts
    assert alert.message == "2 trips ahead" and alert.fact_ids == (7, 8)


def test_no_user_folder_means_no_constraints(tmp_path: Path) -> None:
    loaded = load_user_constraints(tmp_path)
    assert loaded.constraints == () and loaded.failures == ()

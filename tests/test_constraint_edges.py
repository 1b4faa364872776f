"""Every threshold of the built-in constraints pinned at its exact boundary.

Each edge is tested on both sides (and on it) with literal day counts, not the module's
constants, so that a mutated threshold (180 -> 179 or 90, `<` -> `<=`, the passport margin
measured from the return instead of the departure, the critical cut-off 30 -> 29, ...)
fails a test. Messages are compared whole: they carry the arithmetic.
"""

from __future__ import annotations

from datetime import datetime, timedelta

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
    user_module,
)

from constraints import Alert, Constraint, MissingInput, builtin

NOW = datetime(2030, 6, 1, 9, 0)
TODAY = NOW.date()
day = days_from(TODAY)


def run(rule: Constraint, **attributes: object) -> list[Alert]:
    return list(rule.check(user_module(**attributes), NOW))


def brief(alerts: list[Alert]) -> list[tuple[str, str]]:
    return [(a.severity, a.message) for a in alerts]


# --- passport validity for trips: the 180-day rule ----------------------------------------


def trip(departure: int, back: int | None = None, **fields: object) -> object:
    values: dict[str, object] = {"destination": "Ulaanbaatar", "is_international": True, "fact_ids": [2]}
    values.update(fields)
    return Trip(departure_date=day(departure), return_date=None if back is None else day(back), **values)


def validity(expiry: int, *trips: object, **passport: object) -> list[tuple[str, str]]:
    values: dict[str, object] = {"number": "X1", "fact_ids": [1]}
    values.update(passport)
    return brief(run(builtin.passport_valid_for_trips, passport=Passport(expiry_date=day(expiry), **values),
                     trips=list(trips)))


RULE = "many countries require 180 days' validity after arrival"


@pytest.mark.parametrize(("margin", "alerted"), [(178, True), (179, True), (180, False), (181, False)])
def test_the_180_day_margin_counts_from_departure(margin: int, alerted: bool) -> None:
    """Expiry `margin` days after a departure in 10 days, return 5 days later."""
    found = validity(10 + margin, trip(10, 15))
    gap = margin - 5
    expected = [("warning", f"passport expires {gap} days after your Ulaanbaatar return (expiry {day(10 + margin)}); "
                            f"{RULE}")]
    assert found == (expected if alerted else [])


def test_the_margin_is_not_measured_from_the_return() -> None:
    # 185 days after departure but only 5 + 170 after a return 10 days later: no warning
    assert validity(195, trip(10, 20)) == []
    assert validity(189, trip(10, 20)) == [
        ("warning", f"passport expires 169 days after your Ulaanbaatar return (expiry {day(189)}); {RULE}")]


def test_the_margin_without_a_return_date() -> None:
    assert validity(10 + 179, trip(10)) == [
        ("warning", f"passport expires 179 days after your Ulaanbaatar return (expiry {day(189)}); {RULE}")]
    assert validity(10 + 180, trip(10)) == []


def test_expiry_on_the_return_day_is_a_warning_on_the_day() -> None:
    assert validity(15, trip(10, 15)) == [
        ("warning", f"passport expires on the day of your Ulaanbaatar return (expiry {day(15)}); {RULE}")]


def test_expiry_one_day_after_return_says_one_day() -> None:
    assert validity(16, trip(10, 15)) == [
        ("warning", f"passport expires 1 day after your Ulaanbaatar return (expiry {day(16)}); {RULE}")]


def test_expiry_before_return_is_critical_on_the_return_leg() -> None:
    found = run(builtin.passport_valid_for_trips, passport=Passport(expiry_date=day(14), fact_ids=[1]),
                trips=[trip(10, 15)])
    assert brief(found) == [("critical", f"passport expires 1 day before your Ulaanbaatar return (expiry {day(14)})")]
    assert found[0].due == day(10) and found[0].fact_ids == (1, 2)


def test_expiry_on_the_departure_day_is_the_return_leg() -> None:
    assert validity(10, trip(10, 15)) == [
        ("critical", f"passport expires 5 days before your Ulaanbaatar return (expiry {day(10)})")]


def test_expiry_before_departure_is_the_departure_leg() -> None:
    assert validity(9, trip(10, 15)) == [
        ("critical", f"passport expires 1 day before your Ulaanbaatar departure (expiry {day(9)})")]
    assert validity(8, trip(10, 15)) == [
        ("critical", f"passport expires 2 days before your Ulaanbaatar departure (expiry {day(8)})")]


def test_expired_versus_expires_turns_on_today() -> None:
    assert validity(0, trip(10, 15)) == [
        ("critical", f"passport expires 10 days before your Ulaanbaatar departure (expiry {day(0)})")]
    assert validity(-1, trip(10, 15)) == [
        ("critical", f"passport expired 11 days before your Ulaanbaatar departure (expiry {day(-1)})")]


def test_a_trip_returning_today_still_counts_and_yesterday_does_not() -> None:
    assert validity(1, trip(-3, 0)) == [
        ("warning", f"passport expires 1 day after your Ulaanbaatar return (expiry {day(1)}); {RULE}")]
    assert validity(1, trip(-3, -1)) == []
    assert validity(0, trip(0)) == [
        ("warning", f"passport expires on the day of your Ulaanbaatar return (expiry {day(0)}); {RULE}")]


def test_a_return_before_departure_counts_as_departure() -> None:
    assert validity(12, trip(10, 5)) == [
        ("warning", f"passport expires 2 days after your Ulaanbaatar return (expiry {day(12)}); {RULE}")]


def test_international_by_flag_or_by_country() -> None:
    domestic = trip(10, 15, is_international=False)
    assert validity(20, domestic) == []
    same = Trip(departure_date=day(10), country="mongolia", destination="Darkhan", fact_ids=[3])
    abroad = Trip(departure_date=day(10), country="Kazakhstan", destination="Almaty", fact_ids=[4])
    assert validity(20, same, country=" Mongolia ") == []
    assert validity(20, abroad, country="Mongolia") == [
        ("warning", f"passport expires 10 days after your Almaty return (expiry {day(20)}); {RULE}")]
    # no home country, no flag: the country table's holder (United States) is assumed
    assert validity(20, abroad) == [
        ("warning", f"passport expires 10 days after your Almaty return (expiry {day(20)}); {RULE}")]
    at_home = Trip(departure_date=day(10), country="USA", destination="Denver", fact_ids=[5])
    assert validity(20, at_home) == []


def test_passport_validity_names_what_is_missing() -> None:
    with pytest.raises(MissingInput, match="expiry_date"):
        run(builtin.passport_valid_for_trips, passport=Passport(number="X"), trips=[trip(10)])
    with pytest.raises(MissingInput, match="not a date"):
        run(builtin.passport_valid_for_trips, passport=Passport(expiry_date="soon"), trips=[trip(10)])
    assert validity(20, Trip(destination="Nowhere", is_international=True)) == []


# --- expiry thresholds: 30 critical, 60 warning, 90 info --------------------------------


@pytest.mark.parametrize(("days", "severity"), [
    (-1, "critical"), (0, "critical"), (1, "critical"), (29, "critical"), (30, "critical"),
    (31, "warning"), (59, "warning"), (60, "warning"),
    (61, "info"), (89, "info"), (90, "info"),
    (91, None), (200, None),
])
def test_expiry_thresholds_at_their_exact_days(days: int, severity: str | None) -> None:
    when = {-1: "expired 1 day ago", 0: "expires today", 1: "expires in 1 day"}.get(days, f"expires in {days} days")
    passport = run(builtin.passport_expiry, passport=Passport(expiry_date=day(days), fact_ids=[1]))
    document = run(builtin.document_expiry, documents=[Document(kind="visa", expiry_date=day(days), fact_ids=[2])])
    if severity is None:
        assert passport == [] and document == []
        return
    assert brief(passport) == [(severity, f"your passport {when} ({day(days)})")]
    assert brief(document) == [(severity, f"your visa {when} ({day(days)})")]
    assert passport[0].due == day(days) and document[0].due == day(days)


def test_document_expiry_wording() -> None:
    documents = [Document(kind="licence", holder="Ann", number="D-7", expiry_date=day(5), fact_ids=[1]),
                 Document(expiry_date=day(2), fact_ids=[2]), Document(kind="card", fact_ids=[3])]
    assert sorted(brief(run(builtin.document_expiry, documents=documents))) == [
        ("critical", f"Ann's licence D-7 expires in 5 days ({day(5)})"),
        ("critical", f"your document expires in 2 days ({day(2)})"),
    ]


# --- bills and deadlines: 7 days ahead, overdue is critical --------------------------------


@pytest.mark.parametrize(("days", "expected"), [
    (-2, ("critical", "is 2 days overdue")), (-1, ("critical", "is 1 day overdue")),
    (0, ("warning", "is due today")), (1, ("warning", "is due in 1 day")),
    (6, ("warning", "is due in 6 days")), (7, ("warning", "is due in 7 days")), (8, None), (30, None),
])
def test_bills_due_edges(days: int, expected: tuple[str, str] | None) -> None:
    found = run(builtin.bills_due, bills=[Bill(payee="Power Co", amount_usd=1234.5, due_date=day(days), fact_ids=[1])])
    if expected is None:
        assert found == []
        return
    severity, words = expected
    assert brief(found) == [(severity, f"bill from Power Co ($1,234.50) {words} ({day(days)})")]
    assert found[0].due == day(days)


def test_bill_without_amount_or_payee() -> None:
    assert brief(run(builtin.bills_due, bills=[Bill(due_date=day(3), amount_usd=None, fact_ids=[1])])) == [
        ("warning", f"bill from a payee (unknown amount) is due in 3 days ({day(3)})")]
    assert brief(run(builtin.bills_due, bills=[Bill(due_date=day(3), amount_usd=0, fact_ids=[1])])) == [
        ("warning", f"bill from a payee ($0.00) is due in 3 days ({day(3)})")]


@pytest.mark.parametrize(("days", "expected"), [
    (-1, ("critical", "passed 1 day ago")), (-3, ("critical", "passed 3 days ago")),
    (0, ("warning", "is due today")), (7, ("warning", "is due in 7 days")), (8, None),
])
def test_deadlines_due_edges(days: int, expected: tuple[str, str] | None) -> None:
    found = run(builtin.deadlines_due, deadlines=[Deadline(title="Taxes", due_date=day(days), fact_ids=[1])])
    if expected is None:
        assert found == []
        return
    severity, words = expected
    assert brief(found) == [(severity, f"deadline 'Taxes' {words} ({day(days)})")]


# --- vehicles: 14 days ahead --------------------------------------------------------------


@pytest.mark.parametrize(("days", "words"), [
    (-1, "was due 1 day ago"), (0, "is due today"), (1, "is due in 1 day"), (13, "is due in 13 days"),
    (14, "is due in 14 days"), (15, None),
])
def test_vehicle_service_edges(days: int, words: str | None) -> None:
    found = run(builtin.vehicle_service_due, vehicles=[
        Vehicle(make="Volvo", model="V70", plate="AB-123", next_service_date=day(days), fact_ids=[1])])
    if words is None:
        assert found == []
        return
    assert brief(found) == [("info", f"service for your Volvo V70 (AB-123) {words} ({day(days)})")]


# --- overlaps: trips by day, schedules by moment --------------------------------------------


def test_trips_ending_today_still_overlap_and_yesterday_do_not() -> None:
    a = Trip(destination="Rome", departure_date=day(-5), return_date=day(0), fact_ids=[1])
    b = Trip(destination="Oslo", departure_date=day(-2), return_date=day(3), fact_ids=[2])
    assert brief(run(builtin.overlapping_trips, trips=[a, b])) == [
        ("warning", f"trip to Rome ({day(-5)} – {day(0)}) overlaps trip to Oslo ({day(-2)} – {day(3)})")]
    a_past = Trip(destination="Rome", departure_date=day(-5), return_date=day(-1), fact_ids=[1])
    c = Trip(destination="Oslo", departure_date=day(-2), return_date=day(-1), fact_ids=[2])
    assert run(builtin.overlapping_trips, trips=[a_past, c]) == []


def test_back_to_back_trips_do_not_overlap_but_one_day_more_does() -> None:
    a = Trip(destination="Rome", departure_date=day(10), return_date=day(12), fact_ids=[1])
    b = Trip(destination="Oslo", departure_date=day(12), return_date=day(14), fact_ids=[2])
    assert run(builtin.overlapping_trips, trips=[a, b]) == []
    c = Trip(departure_date=day(11), fact_ids=[3])
    found = run(builtin.overlapping_trips, trips=[a, c])
    assert brief(found) == [("warning", f"trip to Rome ({day(10)} – {day(12)}) overlaps trip ({day(11)})")]
    assert found[0].due == day(11)


def test_schedule_ending_now_still_counts() -> None:
    start = NOW - timedelta(hours=1)
    a = Appointment(provider="Dr Lee", start=start, end=NOW, fact_ids=[1])
    b = Event(title="Lunch", start=start + timedelta(minutes=30), end=NOW, fact_ids=[2])
    assert brief(run(builtin.overlapping_schedule, appointments=[a], events=[b])) == [
        ("warning", "your appointment with Dr Lee (2030-06-01 08:00) overlaps Lunch (2030-06-01 08:30)")]
    a_done = Appointment(provider="Dr Lee", start=start, end=NOW - timedelta(minutes=1), fact_ids=[1])
    b_done = Event(title="Lunch", start=start + timedelta(minutes=30), end=NOW - timedelta(minutes=1),
                   fact_ids=[2])
    assert run(builtin.overlapping_schedule, appointments=[a_done], events=[b_done]) == []


# --- medication and allergies, payments -------------------------------------------------------


def test_medication_ending_today_is_current_and_yesterday_is_not() -> None:
    allergy = Allergy(allergen="penicillin", drug_class="Penicillins", fact_ids=[1])
    for end, alerted in ((day(0), True), (day(1), True), (day(-1), False), (None, True)):
        medication = Medication(name="Amoxil", drug_class="penicillins", end_date=end, fact_ids=[2])
        found = brief(run(builtin.medication_allergy, medications=[medication], allergies=[allergy]))
        expected = [("critical", "your medication Amoxil (penicillins) clashes with your allergy to penicillin")]
        assert found == (expected if alerted else []), end


def test_payments_conflict_only_with_two_pending_and_a_real_difference() -> None:
    one = Payment(payee="Acme", status="pending", amount_usd=100.0, fact_ids=[1])
    same = Payment(payee="ACME ", status="Pending", amount_usd=100.004, fact_ids=[2])
    other = Payment(payee="acme", status="pending", amount_usd=100.01, reference="R2", fact_ids=[3])
    assert run(builtin.conflicting_payments, payments=[one]) == []
    assert run(builtin.conflicting_payments, payments=[one, same]) == []  # equal to the cent
    found = run(builtin.conflicting_payments, payments=[one, other])
    assert brief(found) == [("warning", "2 pending payments to Acme disagree: amounts $100.00 vs $100.01")]
    assert found[0].id == "conflicting_payments:payee=acme"
    done = Payment(payee="Acme", status="done", amount_usd=5.0, fact_ids=[4])
    assert run(builtin.conflicting_payments, payments=[one, done]) == []


def test_one_day_trips_clash_on_the_same_day_only() -> None:
    a = Trip(destination="Rome", departure_date=day(10), fact_ids=[1])
    b = Trip(destination="Oslo", departure_date=day(10), fact_ids=[2])
    c = Trip(destination="Bern", departure_date=day(11), fact_ids=[3])
    assert brief(run(builtin.overlapping_trips, trips=[a, b, c])) == [
        ("warning", f"trip to Rome ({day(10)}) overlaps trip to Oslo ({day(10)})")]


def test_a_one_day_trip_on_a_longer_trips_days() -> None:
    long = Trip(destination="Rome", departure_date=day(10), return_date=day(12), fact_ids=[1])
    first_day = Trip(destination="Oslo", departure_date=day(10), fact_ids=[2])
    last_day = Trip(destination="Bern", departure_date=day(12), fact_ids=[3])
    assert brief(run(builtin.overlapping_trips, trips=[long, first_day, last_day])) == [
        ("warning", f"trip to Rome ({day(10)} – {day(12)}) overlaps trip to Oslo ({day(10)})")]


def test_a_return_before_departure_is_a_one_day_trip() -> None:
    odd = Trip(destination="Rome", departure_date=day(10), return_date=day(5), fact_ids=[1])
    same_day = Trip(destination="Oslo", departure_date=day(10), fact_ids=[2])
    assert brief(run(builtin.overlapping_trips, trips=[odd, same_day])) == [
        ("warning", f"trip to Rome ({day(10)}) overlaps trip to Oslo ({day(10)})")]

"""Constraints respect what conversations give: a planned or cancelled trip raises no
passport, insurance or Schengen alert; a trip, passport or document about someone else
("daughter") is never checked against the user's passport nor counted as the user's; a
stopped medication is not current."""

from __future__ import annotations

import pytest
from constraint_records import Document, Passport, user_module
from test_constraints import alerts, day
from test_table_constraints import StatusMedication, with_fields

from constraints.builtin import passport_valid_for_trips
from constraints.medicines import drug_interactions
from constraints.trip_rules import insurance_covers_trip, schengen_90_180

Trip = with_fields("trip", "subject")
SubjectPassport = with_fields("passport", "subject")
SubjectDocument = with_fields("document", "subject")


def tokyo(**extra: object) -> object:
    return Trip(destination="Tokyo", country="Japan", departure_date=day(20), return_date=day(27), fact_ids=[7],
                **extra)


def short_passport() -> object:
    return Passport(number="X1", country="USA", expiry_date=day(33), fact_ids=[1])


@pytest.mark.parametrize("extra", [{}, {"booking_status": "booked"}, {"booking_status": " Booked "},
                                   {"subject": "user"}, {"subject": "me"}])
def test_the_users_going_trip_is_checked_against_the_passport(extra: dict[str, object]) -> None:
    [alert] = alerts(passport_valid_for_trips, user_module(passport=short_passport(), trips=[tokyo(**extra)]))
    assert "passport expires" in alert.message and "Tokyo" in alert.message


@pytest.mark.parametrize("extra", [{"booking_status": "planned"}, {"booking_status": "cancelled"},
                                   {"booking_status": "Canceled"}, {"subject": "daughter"}])
def test_planned_cancelled_or_someone_elses_trips_are_not_checked(extra: dict[str, object]) -> None:
    assert alerts(passport_valid_for_trips, user_module(passport=short_passport(), trips=[tokyo(**extra)])) == []


def test_someone_elses_passport_is_not_checked_against_trips() -> None:
    theirs = SubjectPassport(number="X1", country="USA", expiry_date=day(33), subject="daughter", fact_ids=[1])
    assert alerts(passport_valid_for_trips, user_module(passport=theirs, trips=[tokyo()])) == []
    mine = SubjectPassport(number="X1", country="USA", expiry_date=day(33), subject="user", fact_ids=[1])
    assert len(alerts(passport_valid_for_trips, user_module(passport=mine, trips=[tokyo()]))) == 1


def paris(**extra: object) -> object:
    return Trip(destination="Paris", departure_date=day(10), return_date=day(150), fact_ids=[8], **extra)


def test_schengen_counts_only_the_users_going_trips() -> None:
    assert len(alerts(schengen_90_180, user_module(trips=[paris()]))) == 1
    assert len(alerts(schengen_90_180, user_module(trips=[paris(booking_status="booked", subject="user")]))) == 1
    for extra in ({"booking_status": "planned"}, {"booking_status": "cancelled"}, {"subject": "daughter"}):
        assert alerts(schengen_90_180, user_module(trips=[paris(**extra)])) == []


def lisbon(**extra: object) -> object:
    return Trip(destination="Lisbon", departure_date=day(20), return_date=day(30), fact_ids=[7], **extra)


def test_insurance_gaps_only_for_the_users_going_trips_and_policies() -> None:
    short = Document(kind="travel insurance", expiry_date=day(26), fact_ids=[3])
    passport = short_passport()
    assert len(alerts(insurance_covers_trip, user_module(passport=passport, documents=[short], trips=[lisbon()]))) == 1
    for extra in ({"booking_status": "planned"}, {"booking_status": "cancelled"}, {"subject": "son"}):
        module = user_module(passport=passport, documents=[short], trips=[lisbon(**extra)])
        assert alerts(insurance_covers_trip, module) == []
    theirs = SubjectDocument(kind="travel insurance", expiry_date=day(26), subject="daughter", fact_ids=[3])
    assert alerts(insurance_covers_trip, user_module(passport=passport, documents=[theirs], trips=[lisbon()])) == []


def test_a_stopped_medication_is_not_current() -> None:
    def meds(status: str) -> list[object]:
        return [StatusMedication(name="sertraline", status="current", fact_ids=[2]),
                StatusMedication(name="phenelzine", status=status, fact_ids=[3])]

    assert len(alerts(drug_interactions, user_module(medications=meds("current")))) == 1
    assert alerts(drug_interactions, user_module(medications=meds("stopped"))) == []

"""Constraints respect what conversations give: a planned or cancelled trip raises no
passport, insurance or Schengen alert; a trip, passport or document about someone else
("daughter") is never checked against the user's passport nor counted as the user's; a
stopped medication is not current."""

from __future__ import annotations

import pytest
from constraint_records import Document, Passport, user_module
from test_constraints import alerts, day, skip_reason
from test_table_constraints import StatusMedication, with_fields

from constraints.builtin import document_expiry, overlapping_trips, passport_valid_for_trips
from constraints.medicines import drug_interactions
from constraints.trip_rules import (
    insurance_covers_trip,
    others_passports_for_trips,
    schengen_90_180,
    visa_covers_trip,
)

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


# --- visas, other people's passports, overlaps -------------------------------------------------

Visa = with_fields("document", "start_date", "country", "subject")


def bengaluru(**extra: object) -> object:
    return Trip(destination="Bengaluru", country="India", departure_date=day(20), return_date=day(35), fact_ids=[7],
                **extra)


def test_a_visa_ending_before_the_return_raises() -> None:
    visa = Visa(kind="visa", country="India", number="EB-1", start_date=day(-10), expiry_date=day(30), fact_ids=[3])
    [alert] = alerts(visa_covers_trip, user_module(documents=[visa], trips=[bengaluru()]))
    assert alert.severity == "critical" and alert.fact_ids == (3, 7) and alert.due == day(20)
    assert alert.message == (f"your India visa EB-1 ends {day(30)}, 5 days before your Bengaluru return ({day(35)}); "
                             f"leave by {day(30)} or extend the visa")
    late = Visa(kind="visa", country="India", start_date=day(22), expiry_date=day(90), fact_ids=[3])
    [alert] = alerts(visa_covers_trip, user_module(documents=[late], trips=[bengaluru()]))
    assert f"starts {day(22)}, 2 days after your Bengaluru departure" in alert.message


@pytest.mark.parametrize("documents", [
    [Visa(kind="visa", country="India", expiry_date=day(60), fact_ids=[3])],  # covers the trip
    [Visa(kind="visa", country="India", expiry_date=day(30), fact_ids=[3]),  # another visa covers it
     Visa(kind="visa", country="india", start_date=day(0), expiry_date=day(200), fact_ids=[4])],
    [Visa(kind="visa", country="Vietnam", expiry_date=day(30), fact_ids=[3])],  # another country's
    [Visa(kind="visa", country="India", holder="Mia", expiry_date=day(30), fact_ids=[3])],  # someone else's
])
def test_covered_or_unrelated_visas_raise_nothing(documents: list[object]) -> None:
    assert alerts(visa_covers_trip, user_module(documents=documents, trips=[bengaluru()])) == []
    short = [Visa(kind="visa", country="India", expiry_date=day(30), fact_ids=[3])]
    for extra in ({"booking_status": "planned"}, {"subject": "son"}):
        assert alerts(visa_covers_trip, user_module(documents=short, trips=[bengaluru(**extra)])) == []


def test_a_schengen_visa_covers_schengen_countries() -> None:
    visa = Visa(kind="visa", country="Schengen Area", expiry_date=day(25), fact_ids=[3])
    paris = Trip(destination="Paris", departure_date=day(20), return_date=day(30), fact_ids=[7])
    [alert] = alerts(visa_covers_trip, user_module(documents=[visa], trips=[paris]))
    assert "Paris return" in alert.message


def test_visa_check_skips_without_documents_or_trips() -> None:
    assert "documents" in skip_reason(visa_covers_trip, user_module(trips=[bengaluru()]))
    visa = Visa(kind="visa", country="India", expiry_date=day(30), fact_ids=[3])
    assert "trips" in skip_reason(visa_covers_trip, user_module(documents=[visa]))


def cancun(subject: str) -> object:
    return Trip(destination="Cancún", country="Mexico", departure_date=day(20), return_date=day(27), fact_ids=[7],
                subject=subject)


def test_someone_elses_passport_against_their_trip() -> None:
    emma = SubjectDocument(kind="passport", holder="Emma", subject="Emma", expiry_date=day(10), fact_ids=[3])
    mine = Passport(number="X1", country="USA", expiry_date=day(3000), fact_ids=[1])
    [alert] = alerts(others_passports_for_trips, user_module(passport=mine, documents=[emma],
                                                             trips=[cancun("user"), cancun("Emma")]))
    assert alert.severity == "critical" and alert.fact_ids == (3, 7)
    assert alert.message == f"Emma's passport expires {day(10)}, 10 days before Emma's Cancún departure ({day(20)})"
    assert alerts(others_passports_for_trips, user_module(passport=mine, documents=[emma],
                                                          trips=[cancun("user"), cancun("Noah")])) == []
    valid = SubjectDocument(kind="passport", holder="Emma", subject="Emma", expiry_date=day(2000), fact_ids=[3])
    assert alerts(others_passports_for_trips, user_module(passport=mine, documents=[valid],
                                                          trips=[cancun("Emma")])) == []
    assert "documents" in skip_reason(others_passports_for_trips, user_module(trips=[cancun("Emma")]))


def test_a_relations_passport_by_name_against_the_trip_said_by_relation() -> None:
    # "your father Ramesh Iyer's passport" (subject father, holder the name) and "Papa's tickets" (subject father)
    father = SubjectDocument(kind="passport", holder="Ramesh Iyer", subject="father", expiry_date=day(10),
                             fact_ids=[3])
    mine = Passport(number="X1", country="USA", expiry_date=day(3000), fact_ids=[1])
    [alert] = alerts(others_passports_for_trips, user_module(passport=mine, documents=[father],
                                                             trips=[cancun("father")]))
    assert alert.fact_ids == (3, 7) and alert.message.startswith("Ramesh Iyer's passport expires")
    assert alerts(others_passports_for_trips, user_module(passport=mine, documents=[father],
                                                          trips=[cancun("mother")])) == []


def test_someone_elses_trip_overlaps_none_of_the_users() -> None:
    assert alerts(overlapping_trips, user_module(trips=[cancun("user"), cancun("Emma")])) == []
    assert len(alerts(overlapping_trips, user_module(trips=[cancun("user"), cancun("me")]))) == 1


def test_warranties_are_left_to_warranty_expiring() -> None:
    documents = [Document(kind="warranty", expiry_date=day(20), fact_ids=[3]),
                 Document(kind="visa", expiry_date=day(20), fact_ids=[4])]
    assert [a.fact_ids for a in alerts(document_expiry, user_module(documents=documents))] == [(4,)]


def test_another_persons_passport_country_decides_whether_their_trip_is_abroad() -> None:
    # "her Irish passport expires on the 11th", "Aoife is off to Boston": abroad for her, not for the user
    mine = Passport(number="X1", country="USA", expiry_date=day(3000), fact_ids=[1])
    boston = Trip(destination="Boston", country="United States", subject="Aoife", departure_date=day(20),
                  return_date=day(27), fact_ids=[7])
    irish = SubjectDocument(kind="passport", holder="Aoife", subject="Aoife", country="Ireland",
                            expiry_date=day(22), fact_ids=[3])
    [alert] = alerts(others_passports_for_trips, user_module(passport=mine, documents=[irish], trips=[boston]))
    assert alert.message.startswith("Aoife's passport expires") and "Boston return" in alert.message
    unsaid = SubjectDocument(kind="passport", holder="Aoife", subject="Aoife", expiry_date=day(22), fact_ids=[3])
    assert alerts(others_passports_for_trips, user_module(passport=mine, documents=[unsaid], trips=[boston])) == []
    american = SubjectDocument(kind="passport", holder="Aoife", subject="Aoife", country="USA", expiry_date=day(22),
                               fact_ids=[3])
    assert alerts(others_passports_for_trips, user_module(passport=mine, documents=[american], trips=[boston])) == []

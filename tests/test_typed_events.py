"""Events and appointments typed from conversation (`factlog.typed.events`), recurring ones
included; and `recurring_conflicts` raising, not raising and skipping over such records."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from constraint_records import user_module
from test_table_constraints import with_fields

from constraints.recurring import recurring_conflicts
from constraints.runner import run_constraints
from factlog.extract import RuleExtractor
from factlog.model import JsonValue, NewFact
from factlog.transcripts import Message, Session

TS = datetime(2025, 3, 3, 8, 12)  # a Monday


def facts(*turns: tuple[str, str], when: datetime = TS) -> list[NewFact]:
    messages = [Message(role, text, i) for i, (role, text) in enumerate(turns)]
    return RuleExtractor().extract(Session("s1", when, messages), user_only=False)


def schedule(*turns: tuple[str, str], when: datetime = TS) -> list[tuple[str | None, str | None, dict[str, JsonValue]]]:
    return [(f.kind, f.key, {k: v for k, v in f.fields.items() if k not in ("speaker", "subject")})
            for f in facts(*turns, when=when) if f.kind in ("event", "appointment")]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("ugh standup got moved. tuesdays 2-4pm now, every week, starting tmrw",
         [("event", "standup", {"title": "standup", "recurrence": "weekly", "weekday": "tuesday",
                                "start_time": "14:00", "end_time": "16:00", "start": "2025-03-04T14:00:00"})]),
        ("Effective this week, the Executive Committee meets every Thursday from 10:00 to 11:30 AM in the "
         "fourth-floor boardroom.",
         [("event", "executive committee", {"title": "Executive Committee", "recurrence": "weekly",
                                            "weekday": "thursday", "start_time": "10:00", "end_time": "11:30",
                                            "start": "2025-03-06T10:00:00", "location": "fourth-floor boardroom"})]),
        ("We have a standing meeting on Mondays at 10.",
         [("event", "standing meeting", {"title": "standing meeting", "recurrence": "weekly", "weekday": "monday",
                                         "start_time": "10:00", "start": "2025-03-03T10:00:00"})]),
        ("My physical therapy is every Friday morning, 8 to 9, through the end of June.",
         [("event", "physical therapy", {"title": "physical therapy", "recurrence": "weekly", "weekday": "friday",
                                         "start_time": "08:00", "end_time": "09:00", "start": "2025-03-07T08:00:00",
                                         "end": "2025-06-30"})]),
        ("also inr check is thurs 9am",
         [("event", "inr check", {"title": "inr check", "start": "2025-03-06T09:00:00"})]),
        ("ok. dentist appt is in 3 wks at 2pm",
         [("appointment", "dentist", {"start": "2025-03-24T14:00:00", "provider": "dentist"})]),
        ("Please move my dental cleaning from April 2 to April 9, same time, 8:30.",
         [("appointment", "dentist", {"start": "2025-04-09T08:30:00", "provider": "dentist"})]),
        ("no standup next tues, whole team is at the offsite",
         [("event", "standup/2025-03-04", {"title": "standup", "start": "2025-03-04", "status": "cancelled",
                                           "location": "offsite"})]),
    ],
)
def test_sentence_to_event(sentence: str, expected: list[object]) -> None:
    assert schedule(("user", sentence)) == expected


@pytest.mark.parametrize("sentence", [
    "booked denver for the conference. delta DL1482 next tues, leaves 2:45pm",  # the trip reader's
    "Actually let me check... yes, March 22, QF7Z3W.",
    "Following today's cardiology appointment with Dr. Alvarez, please update my record.",  # took place
    "Can you give me three stretches for a stiff lower back?",
])
def test_no_event(sentence: str) -> None:
    assert schedule(("user", sentence)) == []


def test_a_correction_updates_the_weekly_event() -> None:
    found = schedule(("user", "My physical therapy is every Friday morning, 8 to 9."),
                     ("user", "Actually wait, it's 8:30 to 9:30, they moved it."))
    assert [f[1] for f in found] == ["physical therapy", "physical therapy"]
    assert (found[-1][2]["start_time"], found[-1][2]["end_time"]) == ("08:30", "09:30")


def test_someone_elses_weekly_event_keeps_its_subject() -> None:
    [fact] = [f for f in facts(("user", "My husband Dave has his Rotary lunch every Thursday, noon to 1:30."))
              if f.kind == "event"]
    assert fact.key == "husband/rotary lunch" and fact.fields["person"] == "Dave" \
        and fact.fields["subject"] == "husband" and (fact.fields["start_time"], fact.fields["end_time"]) == \
        ("12:00", "13:30")


def test_every_sentence_is_still_a_fact_and_extraction_is_deterministic() -> None:
    turns = (("user", "standup is tues 2-4 every week, remember"), ("user", "and dentist thu 9am"))
    assert facts(*turns) == facts(*turns)
    assert {f.text for f in facts(*turns)} >= {"standup is tues 2-4 every week, remember", "and dentist thu 9am"}


# --- recurring_conflicts ----------------------------------------------------------------

Event = with_fields("event", "status", "subject", "person")
Trip = with_fields("trip", "subject")
Appointment = with_fields("appointment")
NOW = datetime(2025, 3, 12, 21, 0)  # a Wednesday
STANDUP = Event(title="standup", recurrence="weekly", weekday="tuesday", start_time="14:00", end_time="16:00",
                start=datetime(2025, 3, 4, 14, 0), fact_ids=[1])


def flight(**extra: object) -> object:
    fields: dict[str, object] = {"destination": "Denver", "carrier": "Delta", "departure_date": date(2025, 3, 18),
                                 "departure_time": "14:45", "booking_status": "booked", "fact_ids": [2]}
    return Trip(**(fields | extra))


def run(**attributes: object) -> tuple[list[str], list[str]]:
    result = run_constraints(user_module(**attributes), NOW, [recurring_conflicts])
    assert not result.errors
    return [a.message for a in result.alerts], [s.constraint for s in result.skipped]


def test_a_flight_during_a_weekly_event_raises_and_states_the_times() -> None:
    [message], _ = run(events=[STANDUP], trips=[flight()])
    assert message == ("your Delta flight to Denver departs Tuesday 2025-03-18 at 14:45 (at the airport from 12:45, "
                       "in the air until at least 15:45), during your weekly standup (Tuesdays 14:00-16:00)")


def test_a_dated_appointment_during_a_weekly_event_raises() -> None:
    dentist = Appointment(provider="dentist", start=datetime(2025, 3, 25, 15, 0), fact_ids=[3])
    [message], _ = run(events=[STANDUP], appointments=[dentist])
    assert "appointment with dentist on Tuesday 2025-03-25 15:00-16:00 overlaps your weekly standup" in message


@pytest.mark.parametrize("trip", [
    flight(booking_status="planned"),  # only thinking about it
    flight(subject="husband"),  # someone else's flight
    Trip(destination="Denver", departure_date=date(2025, 3, 18), departure_time="19:30", fact_ids=[2]),  # after
    Trip(destination="Denver", departure_date=date(2025, 3, 19), departure_time="14:45", fact_ids=[2]),  # Wednesday
    Trip(destination="Denver", departure_date=date(2025, 3, 11), departure_time="14:45", fact_ids=[2]),  # past
])
def test_no_conflict(trip: object) -> None:
    assert run(events=[STANDUP], trips=[trip])[0] == []


def test_a_cancelled_occurrence_or_someone_elses_weekly_event_does_not_raise() -> None:
    off = Event(title="Standup", start=datetime(2025, 3, 18), status="cancelled", fact_ids=[4])
    assert run(events=[STANDUP, off], trips=[flight()])[0] == []
    theirs = Event(title="Rotary lunch", recurrence="weekly", weekday="tuesday", start_time="14:00",
                   end_time="16:00", subject="husband", person="Dave", fact_ids=[5])
    assert run(events=[theirs], trips=[flight()]) == ([], ["recurring_conflicts"])


def test_skipped_without_weekly_events() -> None:
    assert run(trips=[flight()]) == ([], ["recurring_conflicts"])
    dated = Event(title="review", start=datetime(2025, 3, 18, 14, 0), fact_ids=[6])
    assert run(events=[dated], trips=[flight()]) == ([], ["recurring_conflicts"])

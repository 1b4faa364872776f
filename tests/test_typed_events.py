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


# --- phrasing families ------------------------------------------------------------------
# TS is Monday 2025-03-03; "start" is the first occurrence on or after the day a series starts.

@pytest.mark.parametrize(
    ("sentence", "key", "expected"),
    [
        ("I have choir every other Thursday at 7pm.", "choir",
         {"title": "choir", "recurrence": "biweekly", "weekday": "thursday", "start_time": "19:00",
          "start": "2025-03-06T19:00:00"}),
        ("Therapy is biweekly on Fridays at 3, starting March 14.", "therapy",
         {"title": "Therapy", "recurrence": "biweekly", "weekday": "friday", "start_time": "15:00",
          "start": "2025-03-14T15:00:00"}),
        ("I see my therapist every 2 weeks on Mondays at 5.", "therapist",
         {"title": "therapist", "recurrence": "biweekly", "weekday": "monday", "start_time": "17:00",
          "start": "2025-03-03T17:00:00"}),
        ("My yoga class is Mon/Wed/Fri 6-7am.", "yoga class",
         {"title": "yoga class", "recurrence": "weekly", "weekday": "monday, wednesday, friday", "start_time": "06:00",
          "end_time": "07:00", "start": "2025-03-03T06:00:00"}),
        ("Tennis lessons twice a week, Tuesdays and Thursdays 6 to 7 pm.", "tennis lessons",
         {"title": "Tennis lessons", "recurrence": "weekly", "weekday": "tuesday, thursday", "start_time": "18:00",
          "end_time": "19:00", "start": "2025-03-04T18:00:00"}),
        ("math tutoring tues and thurs 4-5pm until the end of may", "math tutoring",
         {"title": "math tutoring", "recurrence": "weekly", "weekday": "tuesday, thursday", "start_time": "16:00",
          "end_time": "17:00", "start": "2025-03-04T16:00:00", "end": "2025-05-31"}),
        ("Guitar lessons on Tuesday evenings 7 to 9.", "guitar lessons",
         {"title": "Guitar lessons", "recurrence": "weekly", "weekday": "tuesday", "start_time": "19:00",
          "end_time": "21:00", "start": "2025-03-04T19:00:00"}),
        ("Book club meets weekly on Saturdays at 10.", "book club",
         {"title": "Book club", "recurrence": "weekly", "weekday": "saturday", "start_time": "10:00",
          "start": "2025-03-08T10:00:00"}),
        ("We have standup every weekday at 9:30.", "standup",
         {"title": "standup", "recurrence": "weekly", "weekday": "monday, tuesday, wednesday, thursday, friday",
          "start_time": "09:30", "start": "2025-03-03T09:30:00"}),
        ("Signed up for a ceramics course, Thursdays 6-8pm, for 8 weeks starting March 6.", "ceramics course",
         {"title": "ceramics course", "recurrence": "weekly", "weekday": "thursday", "start_time": "18:00",
          "end_time": "20:00", "start": "2025-03-06T18:00:00", "end": "2025-04-30"}),
        ("Piano lessons every Wednesday at 4:30 until April 30.", "piano lessons",
         {"title": "Piano lessons", "recurrence": "weekly", "weekday": "wednesday", "start_time": "16:30",
          "start": "2025-03-05T16:30:00", "end": "2025-04-30"}),
        ("My pottery class is weekly on Saturdays at 10, no wait, 10:30, and it runs two hours.", "pottery class",
         {"title": "pottery class", "recurrence": "weekly", "weekday": "saturday", "start_time": "10:30",
          "end_time": "12:30", "start": "2025-03-08T10:30:00"}),
        ("Choir practice Thursday nights 7-9, every week, at St. Mark's Church.", "choir practice",
         {"title": "Choir practice", "recurrence": "weekly", "weekday": "thursday", "start_time": "19:00",
          "end_time": "21:00", "start": "2025-03-06T19:00:00", "location": "St. Mark's Church"}),
        ("I go to a spin class twice a week.", "spin class", {"title": "spin class", "recurrence": "twice weekly"}),
        ("My Thursday spin class is at 6am.", "spin class",
         {"title": "spin class", "recurrence": "weekly", "weekday": "thursday", "start_time": "06:00",
          "start": "2025-03-06T06:00:00"}),
        ("Rotary meets at noon on Tuesdays.", "rotary",
         {"title": "Rotary", "recurrence": "weekly", "weekday": "tuesday", "start_time": "12:00",
          "start": "2025-03-04T12:00:00"}),
        ("I volunteer at the animal shelter Sundays 1-4.", "animal shelter volunteering",
         {"title": "animal shelter volunteering", "recurrence": "weekly", "weekday": "sunday", "start_time": "13:00",
          "end_time": "16:00", "start": "2025-03-09T13:00:00", "location": "animal shelter"}),
        ("There's a recurring sprint review every other Friday 2-3pm starting March 14.", "sprint review",
         {"title": "sprint review", "recurrence": "biweekly", "weekday": "friday", "start_time": "14:00",
          "end_time": "15:00", "start": "2025-03-14T14:00:00"}),
        ("I coach little league Saturdays 9 to noon through June.", "little league",
         {"title": "little league", "recurrence": "weekly", "weekday": "saturday", "start_time": "09:00",
          "end_time": "12:00", "start": "2025-03-08T09:00:00", "end": "2025-06-30"}),
        ("Got two tickets for Hamilton on Wednesday, March 26 at 7:30pm!", "hamilton",
         {"title": "Hamilton", "start": "2025-03-26T19:30:00"}),
        ("Tuesday yoga at 7am, every single week, an hour long.", "yoga",
         {"title": "yoga", "recurrence": "weekly", "weekday": "tuesday", "start_time": "07:00", "end_time": "08:00",
          "start": "2025-03-04T07:00:00"}),
        ("My pottery class is every Tuesday, sorry, Wednesday, at 6.30pm.", "pottery class",
         {"title": "pottery class", "recurrence": "weekly", "weekday": "wednesday", "start_time": "18:30",
          "start": "2025-03-05T18:30:00"}),
        ("Every Saturday morning I go to Polish school with my daughter, 9 until 12.", "polish school",
         {"title": "Polish school", "recurrence": "weekly", "weekday": "saturday", "start_time": "09:00",
          "end_time": "12:00", "start": "2025-03-08T09:00:00"}),
        ("Lunch with Dana at midday on Friday.", "lunch", {"title": "Lunch", "start": "2025-03-07T12:00:00"}),
        ("I have an interview at Google on March 20 at 1pm.", "interview",
         {"title": "interview", "start": "2025-03-20T13:00:00", "location": "Google"}),
        ("Sunday service at 10 every week.", "service",
         {"title": "service", "recurrence": "weekly", "weekday": "sunday", "start_time": "10:00",
          "start": "2025-03-09T10:00:00"}),
        ("Board meeting on the second Tuesday of the month at 6pm.", "board meeting",
         {"title": "Board meeting", "recurrence": "monthly", "weekday": "second tuesday", "start_time": "18:00"}),
        ("My physical therapy is every Friday at 8:30 at Core Motion on 3rd Ave.", "physical therapy",
         {"title": "physical therapy", "recurrence": "weekly", "weekday": "friday", "start_time": "08:30",
          "start": "2025-03-07T08:30:00", "location": "Core Motion, 3rd Ave"}),
        # series that end
        ("My pottery class ended last week.", "pottery class", {"title": "pottery class", "status": "ended"}),
        ("We stopped the tutoring, way too expensive.", "tutoring", {"title": "tutoring", "status": "ended"}),
        ("I quit choir in January.", "choir", {"title": "choir", "status": "ended"}),
        ("The Spanish course is over, finally.", "spanish course", {"title": "Spanish course", "status": "ended"}),
        ("My pottery class ends on May 30.", "pottery class", {"title": "pottery class", "end": "2025-05-30"}),
        ("We cancelled the Spanish class for good, the teacher moved away.", "spanish class",
         {"title": "Spanish class", "status": "ended"}),
        ("i teach a guitar lesson every thurs 5-6pm", "guitar lesson",
         {"title": "guitar lesson", "recurrence": "weekly", "weekday": "thursday", "start_time": "17:00",
          "end_time": "18:00", "start": "2025-03-06T17:00:00"}),
        ("every other thurs we have a sync at 10", "sync",
         {"title": "sync", "recurrence": "biweekly", "weekday": "thursday", "start_time": "10:00",
          "start": "2025-03-06T10:00:00"}),
        # dated events and their lengths
        ("MRI on March 12 at 2:30pm, it takes 45 minutes.", "mri",
         {"title": "MRI", "start": "2025-03-12T14:30:00", "end": "2025-03-12T15:15:00"}),
        ("The Coldplay show is on the 14th at 8pm.", "coldplay show",
         {"title": "Coldplay show", "start": "2025-03-14T20:00:00"}),
        ("Got tickets for the Taylor Swift concert on April 12 at 7:30pm.", "taylor swift concert",
         {"title": "Taylor Swift concert", "start": "2025-04-12T19:30:00"}),
        # spoken and British clock times (factlog.spoken): "half six", "7ish"; tickets make it an evening outing
        ("Got two tickets for Arctic Monkeys on Thursday the 13th, starts 7ish.", "arctic monkeys",
         {"title": "Arctic Monkeys", "start": "2025-03-13T19:00:00"}),
        ("Choir every Thursday from half six till eight.", "choir",
         {"title": "Choir", "recurrence": "weekly", "weekday": "thursday", "start_time": "18:30", "end_time": "20:00",
          "start": "2025-03-06T18:30:00"}),
        ("The conference runs March 18 to 20 in Austin.", "conference",
         {"title": "conference", "start": "2025-03-18", "end": "2025-03-20", "location": "Austin"}),
        ("Haircut Friday 10am, 90 min.", "haircut",
         {"title": "Haircut", "start": "2025-03-07T10:00:00", "end": "2025-03-07T11:30:00"}),
        ("I have a 2 hour workshop on Friday at 1pm.", "workshop",
         {"title": "workshop", "start": "2025-03-07T13:00:00", "end": "2025-03-07T15:00:00"}),
        ("We're having a party on Saturday at 8!", "party", {"title": "party", "start": "2025-03-08T20:00:00"}),
        ("Cancel my piano lesson this Wednesday.", "piano lesson/2025-03-05",
         {"title": "piano lesson", "start": "2025-03-05", "status": "cancelled"}),
    ],
)
def test_phrasing_families(sentence: str, key: str, expected: dict[str, JsonValue]) -> None:
    assert schedule(("user", sentence)) == [("event", key, expected)]


@pytest.mark.parametrize(
    ("sentence", "key", "expected"),
    [
        # "next Tuesday" is next week's (factlog.relative_dates); said on Monday 3 March that is the 11th
        ("Dentist appointment next Tuesday at 3.", "dentist", {"start": "2025-03-11T15:00:00", "provider": "dentist"}),
        ("Dentist appointment this Tuesday at 3.", "dentist", {"start": "2025-03-04T15:00:00", "provider": "dentist"}),
        ("My dermatologist appointment is March 20 at 11:15.", "dermatologist",
         {"start": "2025-03-20T11:15:00", "provider": "dermatologist"}),
        ("Vet appt for the dog tmrw 4pm", "vet", {"start": "2025-03-04T16:00:00", "provider": "vet"}),
        ("dentist appt thurs 5:30", "dentist", {"start": "2025-03-06T17:30:00", "provider": "dentist"}),
        ("I've got the eye doctor Friday afternoon at 3.", "eye doctor",
         {"start": "2025-03-07T15:00:00", "provider": "eye doctor"}),
        ("I'm seeing the allergist on March 25th at 2pm.", "allergist",
         {"start": "2025-03-25T14:00:00", "provider": "allergist"}),
        ("The orthodontist moved Jake's appointment to Monday at 4.", "jake/orthodontist",
         {"start": "2025-03-10T16:00:00", "provider": "orthodontist", "person": "Jake"}),
        ("I have contacted Whirlpool and a technician is scheduled for Friday, March 7, between 8 and noon.",
         "whirlpool technician", {"start": "2025-03-07T08:00:00", "end": "2025-03-07T12:00:00",
                                  "provider": "Whirlpool technician"}),
        ("I see Dr. Patel on Thursday at 3:15.", "dr. patel", {"start": "2025-03-06T15:15:00", "provider": "Dr. Patel"}),
        ("The cable guy is coming between 1 and 5 on Friday.", "cable guy",
         {"start": "2025-03-07T13:00:00", "end": "2025-03-07T17:00:00", "provider": "cable guy"}),
        ("Physio on Monday 9am, 45 minutes.", "physio",
         {"start": "2025-03-10T09:00:00", "end": "2025-03-10T09:45:00", "provider": "physio"}),
        ("Mom's cardiologist appointment is Tuesday at 11, I'm driving her.", "mother/cardiologist",
         {"start": "2025-03-04T11:00:00", "provider": "cardiologist", "person": "mother"}),
        ("Dentist on the 13th at 10, no sorry, the 20th.", "dentist",
         {"start": "2025-03-20T10:00:00", "provider": "dentist"}),
        ("The dentist give me appointment on 23 April at 4:30 pm.", "dentist",
         {"start": "2025-04-23T16:30:00", "provider": "dentist"}),
    ],
)
def test_appointments(sentence: str, key: str, expected: dict[str, JsonValue]) -> None:
    assert schedule(("user", sentence)) == [("appointment", key, expected)]


@pytest.mark.parametrize("sentence", [
    "Maybe I'll sign up for yoga on Tuesdays at 6.",  # hypothetical
    "I'm thinking about joining the choir on Thursday nights.",
    "maybe also a haircut thursday at 4 if I can get one",
    "Is my piano lesson on Wednesday at 4?",  # questions
    "When is the dentist appointment?",
    "I used to have guitar lessons on Mondays.",  # a past habit
    "The meeting lasted 2 hours yesterday.",  # took place
    "I had a great time at choir on Thursday.",
    "The concert was amazing last night.",
    "I haven't finished the book for book club.",  # not a series ending
    "I need to schedule a dentist appointment sometime next month.",  # no day yet
    "booked austin for the offsite. united wed 9/17 dep 7:10am, back sat 9/20",  # the trip's purpose
    "Booked a painting course in Andalusia, Iberia, September 15 to October 20.",
    "Flying to Boston Thursday at 6am, back Sunday.",
    "It costs 240 dollars, 2 to 3 people.",
    "I'll call the dentist on Friday at 9.",  # a to-do, not an appointment
    "I bought tickets to Denver for March 13 at 9am.",  # a trip's tickets
    "can i still do the gym tmrw",
    "Dr. Brennan, the hematologist, wants to see me in six weeks.",  # no time: not booked yet
    "Also my flu shot is done, got it Saturday.",  # took place
    "Need to book a haircut for Saturday at 10.",
])
def test_not_an_event(sentence: str) -> None:
    assert schedule(("user", sentence)) == []


def test_a_series_named_first_then_detailed() -> None:
    found = schedule(("user", "So I finally signed up for a pottery class, which I've wanted forever."),
                     ("user", "It's on Tuesday evenings 7 to 9 at the Clay Loft, for 8 weeks starting March 4."))
    assert found == [("event", "pottery class", {
        "title": "pottery class", "recurrence": "weekly", "weekday": "tuesday", "start_time": "19:00",
        "end_time": "21:00", "start": "2025-03-04T19:00:00", "end": "2025-04-28", "location": "Clay Loft"})]


def test_the_next_occurrence_and_the_length_update_the_series() -> None:
    found = schedule(("user", "I have therapy every other Wednesday at 4 pm."), ("user", "It lasts one hour."),
                     ("user", "Next one is on 12 March."))
    assert [f[1] for f in found] == ["therapy"] * 3
    assert found[-1][2] == {"title": "therapy", "recurrence": "biweekly", "weekday": "wednesday",
                                 "start_time": "16:00", "end_time": "17:00", "start": "2025-03-12T16:00:00"}


def test_the_last_class_ends_the_series_named_before() -> None:
    found = schedule(("user", "I have a pottery class every Tuesday at 7pm."), ("user", "The last class is on April 29."))
    assert found[-1] == ("event", "pottery class", {"title": "pottery class", "end": "2025-04-29"})


def test_an_assistant_confirmation_gives_the_fuller_title() -> None:
    found = facts(("user", "ugh standup got moved. tuesdays 2-4pm now, every week, starting tmrw"),
                  ("assistant", "Got it: weekly team standup on Tuesdays, 2:00-4:00 PM, starting March 4."))
    events = [f for f in found if f.kind == "event"]
    assert [(f.key, f.fields["title"], f.fields["speaker"]) for f in events] == [
        ("standup", "standup", "user"), ("standup", "team standup", "assistant")]
    plain = facts(("user", "standup is tues 2-4 every week"), ("assistant", "Saved: weekly standup on Tuesdays."))
    assert [f.fields["title"] for f in plain if f.kind == "event"] == ["standup"]


def test_a_family_members_series_keeps_its_subject() -> None:
    [(kind, key, fields)] = schedule(("user", "My daughter Mia has swim lessons every Monday from 5 to 6 pm at the Y."))
    assert (kind, key, fields["person"], fields["weekday"], fields["start_time"]) == \
        ("event", "daughter/swim lessons", "Mia", "monday", "17:00")


# --- recurring_conflicts: biweekly, several weekdays, ended series, days away -------------

CHOIR = Event(title="city choir", recurrence="weekly", weekday="thursday", start_time="18:30", end_time="20:30",
              fact_ids=[7])


def trip(**extra: object) -> object:
    fields: dict[str, object] = {"destination": "Lisbon", "carrier": "TAP Air Portugal",
                                 "departure_date": date(2025, 3, 17), "return_date": date(2025, 3, 23),
                                 "booking_status": "booked", "fact_ids": [8]}
    return Trip(**(fields | extra))


def test_the_days_away_of_a_trip_miss_the_occurrences_between() -> None:
    [message], _ = run(events=[CHOIR], trips=[trip()])
    assert message == ("your TAP Air Portugal trip to Lisbon has you away from Monday 2025-03-17 to Sunday "
                       "2025-03-23, so you miss your weekly city choir (Thursdays 18:30-20:30) on Thursday 2025-03-20")


@pytest.mark.parametrize("away", [
    trip(departure_date=date(2025, 3, 14), return_date=date(2025, 3, 20)),  # back on the Thursday, no time
    trip(departure_date=date(2025, 3, 14), return_date=date(2025, 3, 20), return_time="09:00"),  # back by then
    trip(booking_status="planned"),  # not booked
    trip(subject="husband"),
    trip(return_date=None),  # no return: only the departure flight is compared
])
def test_days_away_that_do_not_clash(away: object) -> None:
    assert run(events=[CHOIR], trips=[away])[0] == []


def test_the_return_flight_landing_after_the_occurrence_starts_clashes() -> None:
    back_late = trip(departure_date=date(2025, 3, 14), return_date=date(2025, 3, 20), return_time="18:00")
    [message], _ = run(events=[CHOIR], trips=[back_late])
    assert "Thursday 2025-03-20 (return flight 18:00)" in message and "on Thursday 2025-03-20" in message


def test_several_weekdays_each_occur() -> None:
    lessons = Event(title="spanish lessons", recurrence="weekly", weekday="monday, wednesday, friday",
                    start_time="06:00", end_time="07:00", fact_ids=[9])
    early = flight(departure_date=date(2025, 3, 19), departure_time="07:10")  # a Wednesday
    [message], _ = run(events=[lessons], trips=[early])
    assert "departs Wednesday 2025-03-19 at 07:10 (at the airport from 05:10" in message and \
        "weekly spanish lessons (Mondays, Wednesdays, Fridays 06:00-07:00)" in message


def test_a_biweekly_series_counts_its_weeks_from_its_start() -> None:
    therapy = Event(title="therapy", recurrence="biweekly", weekday="wednesday", start_time="16:00",
                    end_time="17:00", start=datetime(2025, 3, 12, 16, 0), fact_ids=[10])
    on_week = Appointment(provider="dentist", start=datetime(2025, 3, 26, 16, 30), fact_ids=[11])
    off_week = Appointment(provider="dentist", start=datetime(2025, 3, 19, 16, 30), fact_ids=[12])
    [message], _ = run(events=[therapy], appointments=[on_week, off_week])
    assert message == ("appointment with dentist on Wednesday 2025-03-26 16:30-17:30 overlaps your every-other-week "
                       "therapy (Wednesdays 16:00-17:00, every other week from 2025-03-12)")
    unanchored = Event(title="therapy", recurrence="biweekly", weekday="wednesday", start_time="16:00", fact_ids=[13])
    assert run(events=[unanchored], appointments=[on_week])[0] == []  # its weeks are unknown


def test_an_ended_series_no_longer_clashes() -> None:
    ended = Event(title="standup", recurrence="weekly", weekday="tuesday", start_time="14:00", end_time="16:00",
                  status="ended", fact_ids=[14])
    assert run(events=[ended], trips=[flight()]) == ([], ["recurring_conflicts"])
    stopped = Event(title="Standups", status="ended", fact_ids=[15])  # "we stopped the standups": by head word
    assert run(events=[STANDUP, stopped], trips=[flight()]) == ([], ["recurring_conflicts"])
    someone_elses = Event(title="standup", status="ended", subject="husband", fact_ids=[16])
    assert len(run(events=[STANDUP, someone_elses], trips=[flight()])[0]) == 1


def test_a_series_past_its_end_day_does_not_clash() -> None:
    short = Event(title="standup", recurrence="weekly", weekday="tuesday", start_time="14:00", end_time="16:00",
                  end=datetime(2025, 3, 17), fact_ids=[17])
    assert run(events=[short], trips=[flight()])[0] == []
    last_day = Event(title="team standup", end=datetime(2025, 3, 11), fact_ids=[19])  # "the last one is March 11"
    assert run(events=[STANDUP, last_day], trips=[flight()])[0] == []
    monthly = Event(title="board", recurrence="monthly", weekday="tuesday", start_time="14:00", fact_ids=[18])
    assert run(events=[monthly], trips=[flight()]) == ([], ["recurring_conflicts"])


def test_a_cancelled_week_calls_off_that_weeks_occurrence() -> None:
    found = schedule(("user", "I have a pottery class every Tuesday at 7pm."), ("user", "Pottery is cancelled next week."))
    assert found[-1] == ("event", "pottery/2025-03-11", {"title": "Pottery", "start": "2025-03-11", "status": "cancelled"})
    [(_, key, fields)] = schedule(("user", "No pottery next week, the teacher is sick."))
    assert (key, fields["start"]) == ("pottery/2025-03-10", "2025-03-10")  # the week's Monday: its weekday unknown
    week = Event(title="pottery", start=datetime(2025, 3, 17), status="cancelled", fact_ids=[20])
    other_week = Event(title="pottery", start=datetime(2025, 3, 24), status="cancelled", fact_ids=[21])
    pottery = Event(title="pottery class", recurrence="weekly", weekday="tuesday", start_time="14:00",
                    end_time="16:00", fact_ids=[22])
    assert run(events=[pottery, week], trips=[flight()])[0] == []
    assert len(run(events=[pottery, other_week], trips=[flight()])[0]) == 1


def test_a_cancellation_or_an_ending_names_the_series_by_its_words() -> None:
    meeting = Event(title="team meeting", recurrence="weekly", weekday="tuesday", start_time="14:00",
                    end_time="16:00", fact_ids=[23])
    staff_off = Event(title="staff meeting", start=datetime(2025, 3, 18), status="cancelled", fact_ids=[24])
    assert len(run(events=[meeting, staff_off], trips=[flight()])[0]) == 1  # another meeting
    off = Event(title="Meetings", start=datetime(2025, 3, 18), status="cancelled", fact_ids=[25])
    assert run(events=[meeting, off], trips=[flight()])[0] == []


def test_the_class_named_again_updates_the_series_times() -> None:
    found = schedule(("user", "My pottery class is on Tuesdays."), ("user", "The class runs from 6 to 8."))
    assert found[-1][1] == "pottery class" and (found[-1][2]["start_time"], found[-1][2]["end_time"]) == \
        ("18:00", "20:00")


def test_leaving_for_days_misses_a_later_occurrence_that_day() -> None:
    morning = flight(departure_time="09:00", return_date=date(2025, 3, 21))
    [message], _ = run(events=[STANDUP], trips=[morning])
    assert "departs Tuesday 2025-03-18 at 09:00 (at the airport from 07:00, away until 2025-03-21)" in message
    assert run(events=[STANDUP], trips=[flight(departure_time="09:00")])[0] == []  # back the same day: landed
    assert run(events=[STANDUP], trips=[flight(departure_time="19:30", return_date=date(2025, 3, 21))])[0] == []

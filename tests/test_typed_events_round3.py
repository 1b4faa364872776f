"""Schedule phrasing families found by a cold writer's file (conversations_h-sched3.json), each
with phrasings NOT in that file: monthly series on a weekday of the month ("the last Thursday
of every month"), lines that go on about the event just named (its end, a pasted invite's
place, a corrected day, the clinician, terse answers to "Which days?" / "What time?"), bare
24-hour ranges, the day something was booked, someone taking the user along, clinician short
forms and named practices, a time said for the day the sentence before named, "same time";
and what must not be read. `recurring_conflicts` over monthly series."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from constraint_records import user_module
from test_table_constraints import with_fields
from typed_sessions import extracted, session

from constraints.recurring import recurring_conflicts
from constraints.runner import run_constraints
from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.typed.event_times import day_of, times_of
from factlog.typed.model import Context
from factlog.typed.recurrence import cadence, nth_weekday, weekdays_named
from factlog.typed.stance import is_tentative

TS = datetime(2025, 3, 3, 8, 12)  # a Monday
KINDS = ("event", "appointment")
Facts = list[tuple[str | None, str | None, dict[str, JsonValue]]]


def schedule(*turns: tuple[str, str], ts: datetime = TS) -> Facts:
    return extracted(KINDS, *turns, ts=ts)


def user(*sentences: str) -> list[tuple[str, str]]:
    return [("user", sentence) for sentence in sentences]


def last(found: Facts) -> dict[str, JsonValue]:
    """The merged fields of the last entity the facts touch (later facts win)."""
    assert found, "nothing extracted"
    key = found[-1][1]
    merged: dict[str, JsonValue] = {}
    for _, k, fields in found:
        if k == key:
            merged.update(fields)
    return merged


# --- monthly series on a weekday of the month --------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("Book group meets the last Thursday of every month, 7 to 9", "last thursday"),
    ("Rotary is on the 2nd Tuesday of the month at noon", "second tuesday"),
    ("the residents' association, third Wednesday of each month, 6:30pm", "third wednesday"),
    ("every first Saturday of the month we do the repair cafe 10-12", "first saturday"),
    ("Vestry meeting 4th Sunday monthly after the service", "fourth sunday"),
])
def test_which_weekday_of_the_month(text: str, expected: str) -> None:
    assert nth_weekday(text) == expected


@pytest.mark.parametrize("text", [
    "every second Tuesday at 6",  # every other week, not the month's second
    "monthly on Mondays",  # no ordinal: which Monday is unknown
    "the second time this month",
    "my first Monday at the new job",
])
def test_no_weekday_of_the_month(text: str) -> None:
    assert nth_weekday(text) is None


def test_every_second_weekday_stays_biweekly() -> None:
    text = "every second Thursday from 18 until 20 o'clock"
    assert cadence(text, weekdays_named(text)) == "biweekly"


@pytest.mark.parametrize(("text", "title", "weekday", "times"), [
    ("The quilting circle meets the last Thursday of every month, 1 to 3, at the library.", "quilting circle",
     "last thursday", ("13:00", "15:00")),
    ("Our film society (we started it in 2009, believe it or not, with six members) meets on the first Friday of "
     "the month at 7:30pm.", "film society", "first friday", ("19:30", None)),
    ("The guild meets the second Wednesday of each month from 10 to 12.", "guild", "second wednesday",
     ("10:00", "12:00")),
])
def test_monthly_series_read(text: str, title: str, weekday: str, times: tuple[str, str | None]) -> None:
    fields = last(schedule(*user(text)))
    assert (fields["title"], fields["recurrence"], fields["weekday"], fields.get("start_time"),
            fields.get("end_time")) == (title, "monthly", weekday, *times)


# --- stance: a degree qualified by an "if" aside is still asserted ---------------------------

@pytest.mark.parametrize(("text", "tentative"), [
    ("It goes on till about four, later if the speaker overruns.", False),
    ("Practice is an hour, or longer if the coach is in a mood.", False),
    ("We meet at 6, earlier if the match is at home.", False),
    ("We'll go to the concert if it isn't sold out.", True),
    ("If the class runs, it's Tuesdays at 7.", True),
])
def test_degree_if_is_no_condition(text: str, tentative: bool) -> None:
    assert is_tentative(text) is tentative


# --- lines that go on about the series or event just named -----------------------------------

@pytest.mark.parametrize(("second", "end"), [
    ("Runs through the end of June.", "2025-06-30"),
    ("It goes on until May 30.", "2025-05-30"),
    ("Ends: 27 May 2025", "2025-05-27"),
    ("That's for 6 wks.", "2025-04-14"),
    ("and it finishes on the 28th of April", "2025-04-28"),
])
def test_a_next_line_ends_the_series(second: str, end: str) -> None:
    fields = last(schedule(*user("Spanish club is every Tuesday 6 to 7:30pm.", second)))
    assert (fields["weekday"], fields.get("end")) == ("tuesday", end)


@pytest.mark.parametrize("second", ["It runs till late.", "The studio is open until 9pm.", "Runs till the end."])
def test_a_next_line_without_a_day_ends_nothing(second: str) -> None:
    assert "end" not in last(schedule(*user("Spanish club is every Tuesday 6 to 7:30pm.", second)))


def test_a_one_off_event_gets_no_series_end() -> None:
    found = schedule(*user("Parents' evening is on the 12th at 6pm.", "Runs till the end of June."))
    assert "end" not in last(found)


@pytest.mark.parametrize(("line", "where"), [
    ("Location: Room 4B", "Room 4B"),
    ("Venue: Oakfield Town Hall", "Oakfield Town Hall"),
    ("Where: Teams", "Teams"),
    ("Room: Conference Room 2", "Conference Room 2"),
    ("Place: the scout hut.", "the scout hut"),
])
def test_a_pasted_invite_gives_the_place(line: str, where: str) -> None:
    fields = last(schedule(*user("Weekly Planning Sync, every Monday 09:30-10:00", line)))
    assert (fields["title"], fields.get("location")) == ("Planning Sync", where)


def test_a_place_line_with_no_event_before_is_nothing() -> None:
    assert schedule(*user("Where: Room 4B")) == []


@pytest.mark.parametrize(("first", "fix", "start"), [
    ("Parents' evening is on the 12th at 6pm.", "No, the 14th.", "2025-03-14T18:00:00"),
    ("The gala dinner is the 20th at 7pm.", "Actually make that the 21st at 7:30.", "2025-03-21T19:30:00"),
    ("Quiz night is Thursday the 6th at 8pm.", "Sorry, the 7th, not the 6th.", "2025-03-07T20:00:00"),
    ("Tickets for the Proms on the 9th at 8pm.", "Wait no, it's at 7.", "2025-03-09T19:00:00"),
    ("Dinner at Luigi's on Friday at 7:30pm.", "Sorry, Saturday at 8, not 7:30.", "2025-03-08T20:00:00"),
])
def test_a_correction_moves_the_dated_event(first: str, fix: str, start: str) -> None:
    assert last(schedule(*user(first, fix)))["start"] == start


def test_a_correction_after_another_domain_leaves_the_event() -> None:
    found = schedule(*user("Quiz night is Thursday the 6th at 8pm.", "I'm flying to Boston on the 10th.",
                           "Sorry, the 11th."))
    assert [fields.get("start") for _, _, fields in found] == ["2025-03-06T20:00:00"]


@pytest.mark.parametrize(("first", "second", "provider", "location"), [
    ("derm appt friday at 10", "its dr shah on elm st", "Dr. Shah", "Elm St"),
    ("dentist thursday at 2", "It's with Dr. Osei.", "Dr. Osei", None),
    ("eye doctor appointment on the 14th at 9:15am", "with doctor Brennan", "Dr. Brennan", None),
    ("chiro appointment tmrw 9am", "its dr lee on 3rd ave", "Dr. Lee", "3rd Ave"),
    ("GP appointment Wednesday at 11", "oh it's with Dr Novak", "Dr. Novak", None),
])
def test_the_clinician_said_after_the_appointment(first: str, second: str, provider: str,
                                                 location: str | None) -> None:
    found = schedule(*user(first, second))
    assert {kind for kind, _, _ in found} == {"appointment"}
    fields = last(found)
    assert (fields["provider"], fields.get("location")) == (provider, location)


def test_a_clinician_line_without_an_appointment_is_nothing() -> None:
    assert schedule(*user("Choir is Thursdays at 7pm.", "its dr kim btw")) == [
        ("event", "choir", {"title": "Choir", "recurrence": "weekly", "weekday": "thursday", "start_time": "19:00",
                            "start": "2025-03-06T19:00:00"})]
    assert schedule(*user("its dr kim on 5th st")) == []


@pytest.mark.parametrize(("text", "provider"), [
    ("derm appt friday at 10", "dermatologist"),
    ("chiro appointment tmrw 9am", "chiropractor"),
    ("ortho appt on the 14th at 4:30", "orthodontist"),
    ("cleaning at Smile Dental on the 4th at 9am", "Smile Dental"),
    ("Physio appointment Thursday 3pm at Harbour Physio", "Harbour Physio"),
    ("annual check-up at Northside Medical Centre on the 20th at 10:40", "Northside Medical Centre"),
])
def test_clinician_short_forms_and_practices(text: str, provider: str) -> None:
    [(kind, _, fields)] = schedule(*user(text))
    assert (kind, fields.get("provider")) == ("appointment", provider)


# --- terse answers to the assistant's questions ------------------------------------------------

@pytest.mark.parametrize(("name", "days", "clock", "weekday", "times"), [
    ("add my spin class", "tue thu", "6 to 6:45am", "tuesday, thursday", ("06:00", "06:45")),
    ("put my swimming lessons in", "Mondays and Wednesdays", "5-6pm", "monday, wednesday", ("17:00", "18:00")),
    ("I want my climbing club in the calendar too", "wed/fri", "7 to 9pm", "wednesday, friday", ("19:00", "21:00")),
    ("add our salsa class", "on Thursdays", "8 to 9:30pm", "thursday", ("20:00", "21:30")),
    ("can you add my Italian course", "mon", "18:00-19:30", "monday", ("18:00", "19:30")),
])
def test_days_then_time_answered_tersely(name: str, days: str, clock: str, weekday: str,
                                         times: tuple[str, str]) -> None:
    found = schedule(("user", name), ("assistant", "Sure. Which days?"), ("user", days),
                     ("assistant", "What time?"), ("user", clock))
    fields = last(found)
    assert (fields["recurrence"], fields["weekday"], fields["start_time"], fields["end_time"]) == \
        ("weekly", weekday, *times)


def test_terse_days_with_no_event_named_are_nothing() -> None:
    assert schedule(("assistant", "Which days suit you?"), ("user", "mon wed"),
                    ("assistant", "What time?"), ("user", "7 to 8")) == []


# --- times and days --------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("from 18 until 20 o'clock", ["18:00", "20:00"]),
    ("from 14 to 16", ["14:00", "16:00"]),
    ("between 13 and 15", ["13:00", "15:00"]),
    ("19 to 21 o'clock", ["19:00", "21:00"]),
    ("from 18 to 20 May", []),  # days of a month
    ("ages 13 to 15", []),
    ("sleeps 14 to 16 people", []),
])
def test_bare_24_hour_ranges(text: str, expected: list[str]) -> None:
    assert times_of(text) == expected


@pytest.mark.parametrize("text", [
    "I have booked since Monday a yoga course",
    "signed up on Tuesday for the pottery course",
    "I registered last Friday for the class",
    "ever since Thursday my standup has been a pain",
    "booked it on the 2nd",
])
def test_the_day_something_was_booked_is_not_its_day(text: str) -> None:
    assert day_of(text, Context(TS)) is None


def test_a_booked_course_then_its_schedule() -> None:
    fields = last(schedule(*user("I have booked since Monday a pottery course at the Kunsthaus.",
                                 "It is every second Wednesday from 18 until 20 o'clock, the first is the 12 of March.")))
    assert (fields["title"], fields["recurrence"], fields["weekday"], fields["start_time"], fields["end_time"],
            fields["start"], fields.get("location")) == (
        "pottery course", "biweekly", "wednesday", "18:00", "20:00", "2025-03-12T18:00:00", "Kunsthaus")


@pytest.mark.parametrize(("first", "second", "title"), [
    ("We've joined a bouldering club!", "Tuesdays 7 to 9 at The Arch.", "bouldering club"),
    ("I started evening Italian classes.", "They're every Monday 6 to 8pm.", "Italian classes"),
    ("We signed up for ballroom dancing lessons.", "Fridays at 8pm.", "ballroom dancing lessons"),
    ("I took up Saturday morning parkrun training.", "every Saturday 9 to 10am", "parkrun training"),
    ("We started couples yoga!", "Every Sunday 10-11.", "couples yoga"),
])
def test_a_series_taken_up_then_its_days(first: str, second: str, title: str) -> None:
    fields = last(schedule(*user(first, second)))
    assert (fields.get("title"), fields["recurrence"]) == (title, "weekly")


@pytest.mark.parametrize(("text", "subject"), [
    ("My sister invited me to the ballet on the 14th at 7:30pm.", "user"),
    ("Sam got us tickets for the opera Friday at 8pm.", "user"),
    ("My boss is taking me to the conference dinner on the 20th at 7pm.", "user"),
    ("My colleague has invited me to the theatre on the 24 of March at 19:30.", "user"),
    ("My sister has ballet on the 14th at 5pm.", "sister"),
])
def test_someone_taking_the_user_along(text: str, subject: str) -> None:
    found = [f for f in RuleExtractor().extract(session(*user(text), ts=TS), user_only=False) if f.kind == "event"]
    assert [f.fields.get("subject") for f in found] == [subject]


@pytest.mark.parametrize(("first", "second", "start"), [
    ("Next Monday's team lunch is cancelled.", "I'll have the plumber come that morning at 9 instead.",
     "2025-03-10T09:00:00"),
    ("Staff meeting is off on Friday the 7th.", "The electrician comes at 8:30 instead.", "2025-03-07T08:30:00"),
    ("The staff training on Thursday the 6th is cancelled.", "The technician comes that afternoon at 2.",
     "2025-03-06T14:00:00"),
])
def test_a_time_for_the_day_the_sentence_before_named(first: str, second: str, start: str) -> None:
    found = schedule(*user(first, second))
    assert found and found[-1][0] == "appointment" and found[-1][2]["start"] == start


def test_a_time_with_no_day_and_no_same_day_cue_is_nothing() -> None:
    assert [kind for kind, _, _ in schedule(*user("Choir is off on Friday the 7th.", "The plumber comes at 9."))] == \
        ["event"]


@pytest.mark.parametrize(("text", "weekday"), [
    ("guitar is weds 4-5", "wednesday"),
    ("tennis is saturday 9 to 10am", "saturday"),
    ("ballet is thursday at 5", "thursday"),
    ("piano is on tues 5-6 at mrs lee's", "tuesday"),
    ("karate is Friday 6 to 7pm", "friday"),
])
def test_an_activity_on_its_weekday_is_weekly(text: str, weekday: str) -> None:
    fields = last(schedule(*user(text)))
    assert (fields.get("recurrence"), fields.get("weekday")) == ("weekly", weekday)


@pytest.mark.parametrize("text", ["tennis is saturday the 8th at 9am", "tennis was saturday at 9"])
def test_an_activity_on_a_dated_or_past_day_is_not_weekly(text: str) -> None:
    assert all("recurrence" not in fields for _, _, fields in schedule(*user(text)))


def test_moved_to_another_day_at_the_same_time() -> None:
    found = schedule(*user("swimming is wednesdays 6-7pm", "oh swimming moved to fridays from next week, same time"))
    fields = last(found)
    assert (fields["title"], fields["weekday"], fields["start_time"], fields["end_time"]) == \
        ("swimming", "friday", "18:00", "19:00")


# --- recurring_conflicts: monthly series -------------------------------------------------------

Event = with_fields("event", "status", "subject", "person")
Appointment = with_fields("appointment")
NOW = datetime(2026, 2, 10, 10, 0)
SOCIETY = Event(title="historical society", recurrence="monthly", weekday="first monday", start_time="14:00",
                end_time="16:00", fact_ids=[1])


def run(**attributes: object) -> list[str]:
    result = run_constraints(user_module(**attributes), NOW, [recurring_conflicts])
    assert not result.errors
    return [a.message for a in result.alerts]


@pytest.mark.parametrize(("when", "raises"), [
    (datetime(2026, 3, 2, 14, 30), True),  # the first Monday of March
    (datetime(2026, 3, 9, 14, 30), False),  # the second
    (datetime(2026, 3, 2, 10, 0), False),  # the first Monday, in the morning
    (datetime(2026, 4, 6, 15, 0), True),  # the first Monday of April
])
def test_a_monthly_series_on_the_first_monday(when: datetime, raises: bool) -> None:
    messages = run(events=[SOCIETY], appointments=[Appointment(provider="eye clinic", start=when, fact_ids=[2])])
    assert bool(messages) is raises
    if raises:
        assert "monthly historical society (first Monday of the month 14:00-16:00)" in messages[0]


def test_the_last_weekday_of_the_month() -> None:
    club = Event(title="book club", recurrence="monthly", weekday="last thursday", start_time="19:00",
                 end_time="21:00", fact_ids=[1])
    assert run(events=[club], appointments=[Appointment(start=datetime(2026, 2, 26, 19, 30), fact_ids=[2])])
    assert not run(events=[club], appointments=[Appointment(start=datetime(2026, 2, 19, 19, 30), fact_ids=[2])])


def test_a_monthly_series_without_its_weekday_of_the_month_is_not_compared() -> None:
    vague = Event(title="book club", recurrence="monthly", weekday="thursday", start_time="19:00", fact_ids=[1])
    assert run(events=[vague], appointments=[Appointment(start=datetime(2026, 2, 26, 19, 30), fact_ids=[2])]) == []
    assert date(2026, 2, 26).weekday() == 3


# --- an assistant speaking for someone named by title ------------------------------------------

def _subjects(*sentences: str) -> list[tuple[str | None, object]]:
    facts = RuleExtractor().extract(session(*user(*sentences), ts=TS), user_only=False)
    return [(f.kind, f.fields.get("subject")) for f in facts if f.kind in KINDS]


@pytest.mark.parametrize(("sentences", "subject"), [
    (("Ms Tanaka's leadership sync is Mondays 9 to 10.",), "Ms Tanaka"),
    (("Mrs Patel has her physio appointment on Tuesday at 3pm.",), "Mrs Patel"),
    (("I run Mr. Alvarez's calendar.", "His board call is every Friday at 10."), "Mr. Alvarez"),
    (("I look after Prof Nwosu's diary.", "Her staff meeting is every Wednesday from 2 to 3pm."), "Prof Nwosu"),
    (("Sir Kenneth also has his dentist appointment on the 12th at 11am.",), "Sir Kenneth"),
])
def test_a_titled_persons_schedule_is_theirs(sentences: tuple[str, ...], subject: str) -> None:
    found = _subjects(*sentences)
    assert found and {who for _, who in found} == {subject}


@pytest.mark.parametrize("sentence", [
    "I have a meeting with Mr Osei on Friday at 10am.",
    "My 1:1 with Mrs Patel is Thursdays at 2pm.",
    "I'm seeing Dr Mensah on the 11th at 8am.",
    "Standup is every weekday at 9, Ms Tanaka chairs it.",
])
def test_meeting_a_titled_person_is_the_users(sentence: str) -> None:
    found = _subjects(sentence)
    assert found and {who for _, who in found} == {"user"}


@pytest.mark.parametrize(("sentence", "subject"), [
    ("Mr Osei flies to Lagos on the 20th.", "Mr Osei"),
    ("Ms Tanaka's flight to Osaka is on the 12th.", "Ms Tanaka"),
    ("Prof Ilunga is flying to Nairobi on May 3.", "Prof Ilunga"),
    ("Mrs Gomez travels to Madrid on the 9th.", "Mrs Gomez"),
    ("Sir Alan is leaving for Rome on the 2nd.", "Sir Alan"),
    ("I'm flying to Lagos with Mr Osei on the 20th.", "user"),
    ("I fly to Lisbon on the 4th, Mrs Gomez is staying home.", "user"),
])
def test_whose_trip_a_titled_person_takes(sentence: str, subject: str) -> None:
    facts = RuleExtractor().extract(session(*user(sentence), ts=TS), user_only=False)
    assert [f.fields.get("subject") for f in facts if f.kind == "trip"] == [subject]


Trip = with_fields("trip", "subject")
BOARD = Event(title="board call", recurrence="biweekly", weekday="friday", start_time="10:00", end_time="11:30",
              start=datetime(2026, 3, 6, 10, 0), subject="Mr Osei", person="Mr Osei", fact_ids=[1])


def lagos(subject: str | None) -> object:
    return Trip(destination="Lagos", departure_date=date(2026, 3, 20), departure_time="11:25",
                return_date=date(2026, 3, 27), booking_status="booked", subject=subject, fact_ids=[2])


def test_a_principals_diary_is_compared_with_itself() -> None:
    [message] = run(events=[BOARD], trips=[lagos("Mr Osei")])
    assert message.startswith("Mr Osei's flight to Lagos departs Friday 2026-03-20 at 11:25")
    assert "during Mr Osei's every-other-week board call" in message
    assert run(events=[BOARD], trips=[lagos(None)]) == []  # the user's own trip: another calendar
    assert run(events=[BOARD], trips=[lagos("Ms Tanaka")]) == []


def test_a_relatives_calendar_is_still_not_compared() -> None:
    swim = Event(title="swim", recurrence="weekly", weekday="friday", start_time="10:00", end_time="11:00",
                 subject="daughter", person="Mia", fact_ids=[1])
    assert run(events=[swim], trips=[lagos("daughter")]) == []
    assert run(events=[swim], appointments=[Appointment(person="Mia", start=datetime(2026, 3, 13, 10, 0),
                                                        fact_ids=[2])]) == []


# --- loose hours, someone's place, meetings named by whom, "The school ..." ------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("dinner on Sunday around 6", ["18:00"]),
    ("date night every Friday, usually 7", ["19:00"]),
    ("the call is about 8:30pm", ["20:30"]),
    ("standup normally 9", ["09:00"]),
    ("roughly 10am on the 5th", ["10:00"]),
    ("it takes around 6 weeks", []),
    ("about 6 people", []),
    ("around 20% off", []),
])
def test_loose_hours(text: str, expected: list[str]) -> None:
    assert times_of(text) == expected


@pytest.mark.parametrize(("text", "subject"), [
    ("Lunch at my mum's on Saturday at 1pm.", "user"),
    ("Game night at my brother's Friday at 8pm.", "user"),
    ("Brunch over at my friend's on Sunday at 11.", "user"),
    ("Dinner round my nan's on Sunday at 5pm.", "user"),
    ("Dinner at my sister's on Sunday around 6.", "user"),
    ("My son's recital is at my mum's on Sunday at 3pm.", "son"),
    ("My sister's recital on Sunday at 3pm.", "sister"),
])
def test_at_someones_place_is_the_users_event(text: str, subject: str) -> None:
    found = [f for f in RuleExtractor().extract(session(*user(text), ts=TS), user_only=False) if f.kind == "event"]
    assert [f.fields.get("subject") for f in found] == [subject]


@pytest.mark.parametrize(("text", "title"), [
    ("weekly catch-up with Sam, Mondays at 10", "catch-up with Sam"),
    ("mentoring with Jo every second Thursday 16:00-17:00", "mentoring with Jo"),
    ("Fortnightly supervision with my clinical lead, Wednesdays 2-3pm", "supervision with clinical lead"),
    ("my catchup with my manager is Tuesdays 3pm", "catchup with manager"),
    ("Supervision is every other Wednesday 2-3pm.", "Supervision"),
])
def test_meetings_named_by_whom(text: str, title: str) -> None:
    fields = last(schedule(*user(text)))
    assert (fields["title"], fields["recurrence"] in ("weekly", "biweekly")) == (title, True)


@pytest.mark.parametrize(("text", "title"), [
    ("The school play is on Thursday at 6.30pm in the hall.", "school play"),
    ("My school reunion is on the 5th at 7pm.", "school reunion"),
    ("Our Sunday school picnic is on the 9th at noon.", "Sunday school"),
])
def test_a_school_event_is_not_the_school(text: str, title: str) -> None:
    assert last(schedule(*user(text)))["title"] == title


def test_monthly_volunteering_keeps_its_place() -> None:
    fields = last(schedule(*user("I volunteer at the food bank the last Saturday of every month from 9 to 1.")))
    assert (fields["title"], fields["location"], fields["weekday"]) == (
        "food bank volunteering", "food bank", "last saturday")


# --- moved days, two days running, the next occurrence's day, driving and staying ------------------

@pytest.mark.parametrize(("text", "start"), [
    ("The dentist moved my appointment from the 10th to the 17th, same time, 2pm.", "2025-03-17T14:00:00"),
    ("my haircut got pushed from the 5th to the 12th at 4pm", "2025-03-12T16:00:00"),
    ("They rescheduled the MRI from the 20th to the 27th at 8am.", "2025-03-27T08:00:00"),
    ("Book club moved from the 6th to the 13th, 7pm.", "2025-03-13T19:00:00"),
    ("We moved the team lunch from the 11th to the 18th at noon.", "2025-03-18T12:00:00"),
])
def test_a_move_keeps_the_new_day(text: str, start: str) -> None:
    assert last(schedule(*user(text)))["start"] == start


@pytest.mark.parametrize(("text", "end"), [
    ("Team offsite on the 22nd and 23rd in Lisbon.", "2025-03-23"),
    ("The conference is the 14th and 15th.", "2025-03-15"),
    ("Dinner on the 22nd and lunch on the 29th.", None),  # two events, not two days of one
    ("Workshop on the 10th and the 11th at the Hub.", "2025-03-11"),
    ("The festival is on the 28th and 30th.", None),  # not two days running
])
def test_two_days_running(text: str, end: str | None) -> None:
    assert schedule(*user(text))[0][2].get("end") == end


@pytest.mark.parametrize(("text", "start"), [
    ("I have therapy every other Monday at 5pm, next one is the 10th.", "2025-03-10T17:00:00"),
    ("Supervision is every second Thursday at 2, the first one is the 13th.", "2025-03-13T14:00:00"),
    ("Fortnightly book club on Wednesdays at 7pm, the next one is on the 12th.", "2025-03-12T19:00:00"),
    ("Biweekly 1:1 on Fridays at 11, next one is the 14th.", "2025-03-14T11:00:00"),
    ("Every other Tuesday I have choir at 7pm, starting the 11th.", "2025-03-11T19:00:00"),
])
def test_the_next_occurrence_anchors_a_biweekly_series(text: str, start: str) -> None:
    fields = last(schedule(*user(text)))
    assert (fields["recurrence"], fields["start"]) == ("biweekly", start)


@pytest.mark.parametrize(("text", "subject"), [
    ("The kids' swimming is Saturdays 9-10, I drive them and stay.", "user"),
    ("Ava has ballet Mondays 5-6, I take her and wait in the car.", "user"),
    ("My son has karate Tuesdays 6 to 7, I drive him and watch.", "user"),
    ("The kids' swimming is Saturdays 9-10, I drive them there.", "child"),
    ("My son has karate Tuesdays 6 to 7, his dad takes him.", "son"),
])
def test_driving_and_staying_is_the_users_time(text: str, subject: str) -> None:
    found = [f for f in RuleExtractor().extract(session(*user(text), ts=TS), user_only=False) if f.kind == "event"]
    assert [f.fields.get("subject") for f in found] == [subject]

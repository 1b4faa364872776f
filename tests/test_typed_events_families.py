"""Schedule phrasing families the first readers missed (`factlog.typed.events`,
`event_times`, `recurrence`, `event_names`): clock words ("half past six", "at seven"),
"7p to 7a", weekday ranges and letters ("fri-sun", "MWF", "weekends"), daily series, series
that start "next week" or end "20/5", clauses with an event each, whose event it is; what must
not be read; and `recurring_conflicts` over night shifts, daily and every-N-weeks series."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from constraint_records import user_module
from test_table_constraints import with_fields
from typed_sessions import extracted

from constraints.recurring import recurring_conflicts
from constraints.runner import run_constraints
from factlog.model import JsonValue
from factlog.typed.event_times import clock_digits, times_of
from factlog.typed.recurrence import cadence, day_first_date, minutes_long, series_end, starting, weekdays_named

TS = datetime(2025, 3, 3, 8, 12)  # a Monday
KINDS = ("event", "appointment")


def schedule(*turns: tuple[str, str], ts: datetime = TS) -> list[tuple[str | None, str | None, dict[str, JsonValue]]]:
    return extracted(KINDS, *turns, ts=ts)


def user(*sentences: str) -> list[tuple[str, str]]:
    return [("user", sentence) for sentence in sentences]


# --- times of day ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("choir at 7", ["19:00"]),  # an after-work activity: 7 to 9 without am/pm is evening
    ("yoga at 7am", ["07:00"]),
    ("standup at 9:15", ["09:15"]),
    ("at 19:00", ["19:00"]),
    ("at 7 in the evening", ["19:00"]),
    ("at seven thirty in the evening", ["19:30"]),
    ("Wednesdays at half past six in the evening", ["18:30"]),
    ("quarter to eight", ["07:45"]),
    ("spin is noon, 45 min", ["12:00"]),
    ("from 2 to 4", ["14:00", "16:00"]),
    ("from two to four", ["14:00", "16:00"]),
    ("7p to 7a", ["19:00", "07:00"]),
    ("11pm to 7am", ["23:00", "07:00"]),
    ("6:30 to 10:30 in the morning", ["06:30", "10:30"]),  # "morning" keeps 6:30 in the morning
    ("choir at 7 at the church, it goes till about nine", ["19:00", "21:00"]),
    ("doors at 6, show at seven", ["19:00"]),  # the show's time, not the doors'
    ("little league 9 to noon", ["09:00", "12:00"]),
])
def test_times(text: str, expected: list[str]) -> None:
    assert times_of(text) == expected


@pytest.mark.parametrize("text", ["I need 2 to 4 weeks", "at one point", "one of the two to three kids",
                                  "it sleeps 6 to 8 people"])
def test_numbers_that_are_not_times(text: str) -> None:
    assert times_of(text) == []


def test_clock_words_become_digits_only_as_times() -> None:
    assert clock_digits("meet at seven, for two weeks") == "meet at 7, for two weeks"
    assert clock_digits("seven o'clock") == "7:00"
    assert clock_digits("three kids and two dogs") == "three kids and two dogs"


# --- days, cadence, length, first and last day ----------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("7p to 7a fri-sun", ["friday", "saturday", "sunday"]),
    ("Mon-Fri", ["monday", "tuesday", "wednesday", "thursday", "friday"]),
    ("Thursday through Sunday", ["thursday", "friday", "saturday", "sunday"]),
    ("dialysis MWF", ["monday", "wednesday", "friday"]),
    ("lab TTh 2-4", ["tuesday", "thursday"]),
    ("on weekends", ["saturday", "sunday"]),
    ("Tuesday to Thursday, March 18", ["tuesday"]),  # days of one week, with a date: not a range
])
def test_weekdays(text: str, expected: list[str]) -> None:
    assert weekdays_named(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("standup is at 9:15 daily", "daily"),
    ("my standup is 9:15 every morning", "daily"),
    ("shifts fri-sun", "weekly"),
    ("on call every other weekend", "biweekly"),
    ("chemo every three weeks on Mondays", "every 3 weeks"),
])
def test_cadence(text: str, expected: str) -> None:
    assert cadence(text, weekdays_named(text)) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("half an hour", 30), ("a quarter of an hour", 15), ("for an hour", 60), ("90 minutes", 90),
    ("an hour and a half", 90),
])
def test_lengths(text: str, expected: int) -> None:
    assert minutes_long(text) == expected


def test_first_and_last_days() -> None:
    friday = date(2025, 9, 12)
    assert starting("Starting next week the group meets", friday) == date(2025, 9, 15)  # next week's Monday
    assert starting("from this week onwards", friday) == friday
    assert series_end("it ends 20/5", date(2025, 2, 10), None) == date(2025, 5, 20)
    assert series_end("right through till the end of May", date(2025, 4, 14), None) == date(2025, 5, 31)
    assert series_end("Thursdays 5pm, ends in June", date(2025, 3, 3), None) == date(2025, 6, 30)
    assert day_first_date("3/4", date(2025, 1, 1)) is None  # could be March 4: left to the US reading


# --- sentences to events -----------------------------------------------------------------

@pytest.mark.parametrize(("turns", "expected"), [
    (user("my shifts are 7p to 7a fri-sun on 4 West at St. Luke's"),
     [("event", "shifts", {"title": "shifts", "recurrence": "weekly", "weekday": "friday, saturday, sunday",
                           "start_time": "19:00", "end_time": "07:00", "start": "2025-03-07T19:00:00",
                           "location": "St. Luke's"})]),
    (user("client standup is at 9:15 daily, 15 min on zoom"),
     [("event", "client standup", {"title": "client standup", "recurrence": "daily", "start_time": "09:15",
                                   "end_time": "09:30", "location": "Zoom"})]),
    (user("uh okay so remind me choir is every other thursday at 7 starting next thursday"),
     [("event", "choir", {"title": "choir", "recurrence": "biweekly", "weekday": "thursday",
                          "start_time": "19:00", "start": "2025-03-13T19:00:00"})]),  # next week's (factlog.relative_dates)
    (user("My weekly one-to-one with my line manager has moved to Thursdays at 3pm, half an hour."),
     [("event", "one-to-one with line manager", {
         "title": "one-to-one with line manager", "recurrence": "weekly", "weekday": "thursday",
         "start_time": "15:00", "end_time": "15:30", "start": "2025-03-06T15:00:00"})]),
    (user("Starting next week the Budget Working Group will meet weekly on Wednesdays from 2 to 4 in Room 3B, "
          "for 8 weeks."),
     [("event", "budget working group", {
         "title": "Budget Working Group", "recurrence": "weekly", "weekday": "wednesday", "start_time": "14:00",
         "end_time": "16:00", "start": "2025-03-12T14:00:00", "end": "2025-05-06", "location": "Room 3B"})]),
    (user("Class starts next Tuesday at 6pm and runs for ten weeks"),
     [("event", "class", {"title": "Class", "recurrence": "weekly", "weekday": "tuesday", "start_time": "18:00",
                          "start": "2025-03-11T18:00:00", "end": "2025-05-19"})]),
    (user("dialysis MWF 6am to 10am"),
     [("event", "dialysis", {"title": "dialysis", "recurrence": "weekly", "weekday": "monday, wednesday, friday",
                             "start_time": "06:00", "end_time": "10:00", "start": "2025-03-03T06:00:00"})]),
    (user("I work 7 to 3 Monday through Friday"),
     [("event", "work", {"title": "work", "recurrence": "weekly",
                         "weekday": "monday, tuesday, wednesday, thursday, friday", "start_time": "07:00",
                         "end_time": "15:00", "start": "2025-03-03T07:00:00"})]),
    (user("Every Sunday I have church at 10:30"),
     [("event", "church", {"title": "church", "recurrence": "weekly", "weekday": "sunday", "start_time": "10:30",
                           "start": "2025-03-09T10:30:00"})]),
    (user("Team retro every second Friday at 4"),
     [("event", "team retro", {"title": "Team retro", "recurrence": "biweekly", "weekday": "friday",
                               "start_time": "16:00", "start": "2025-03-07T16:00:00"})]),
    (user("Weekly check-in call with the client, Mondays 10-10:30"),
     [("event", "check-in call", {"title": "check-in call", "recurrence": "weekly", "weekday": "monday",
                                  "start_time": "10:00", "end_time": "10:30", "start": "2025-03-03T10:00:00"})]),
    (user("My doctor finally convinced me to do Pilates.", "Wednesdays at half past six in the evening, for an hour.",
          "Starting next week, heaven help me."),
     [("event", "pilates", {"title": "Pilates", "recurrence": "weekly", "weekday": "wednesday",
                            "start_time": "18:30", "end_time": "19:30", "start": "2025-03-05T18:30:00"}),
      ("event", "pilates", {"title": "Pilates", "recurrence": "weekly", "weekday": "wednesday",
                            "start_time": "18:30", "end_time": "19:30", "start": "2025-03-12T18:30:00"})]),
    (user("Choir is off next Thursday"),  # said on a Monday: next week's Thursday (factlog.relative_dates)
     [("event", "choir/2025-03-13", {"title": "Choir", "start": "2025-03-13", "status": "cancelled"})]),
    (user("My Thursday choir is cancelled this week"),
     [("event", "choir/2025-03-06", {"title": "choir", "start": "2025-03-06", "status": "cancelled"})]),
    (user("I have pottery on Tuesdays at 7pm.", "Actually we're done with that, the studio closed."),
     [("event", "pottery", {"title": "pottery", "recurrence": "weekly", "weekday": "tuesday", "start_time": "19:00",
                            "start": "2025-03-04T19:00:00"}),
      ("event", "pottery", {"title": "pottery", "status": "ended"})]),
    (user("Good news, the therapist says my knee is fine and we're done with PT."),
     [("event", "pt", {"title": "PT", "status": "ended"})]),
    (user("Tickets for the Eagles tribute band on Wednesday the 12th, doors at 6, show at seven."),
     [("event", "eagles tribute band", {"title": "Eagles tribute band", "start": "2025-03-12T19:00:00"})]),
])
def test_sentences_to_events(turns: list[tuple[str, str]], expected: list[object]) -> None:
    assert schedule(*turns) == expected


def test_two_events_in_one_sentence_and_a_later_time_for_each() -> None:
    found = schedule(*user("my son noah has karate twice a week after school and i do spin at lunch on mondays",
                           "karate's tue and thu 5:30 to 6:30. spin is noon, 45 min"))
    assert [(key, fields.get("weekday"), fields.get("start_time"), fields.get("end_time"), fields.get("person"))
            for _, key, fields in found] == [
        ("son/karate", None, None, None, "Noah"), ("spin", "monday", None, None, None),
        ("son/karate", "tuesday, thursday", "17:30", "18:30", "Noah"), ("spin", "monday", "12:00", "12:45", None)]


@pytest.mark.parametrize(("turns", "key", "person"), [
    (user("I'm sorting out Dad's week.", "His dialysis is Mondays, Wednesdays and Fridays, 6:30 to 10:30 in the "
                                        "morning."), "father/dialysis", "father"),
    (user("Mom has dialysis Tuesdays, Thursdays and Saturdays at 6am"), "mother/dialysis", "mother"),
    (user("the kids' swim lessons are Saturday mornings 9 to 10"), "child/swim lessons", "child"),
    (user("Dave's Rotary lunch is every Thursday at noon"), "dave/rotary lunch", "Dave"),
    (user("My daughter Ananya's Bharatanatyam class is Saturday 4 to 6."), "daughter/bharatanatyam class",
     "Ananya"),
])
def test_someone_elses_schedule_keeps_its_subject(turns: list[tuple[str, str]], key: str, person: str) -> None:
    [(kind, found, fields)] = schedule(*turns)
    assert (kind, found, fields.get("person"), fields.get("recurrence")) == ("event", key, person, "weekly")


@pytest.mark.parametrize("turns", [
    user("I'm thinking about joining a choir on Thursdays at 7"),
    user("If I sign up, the class would be Mondays at 6"),
    user("Should I take the Tuesday 7pm spin class?"),
    user("I used to have choir on Thursdays"),
    user("I had my MRI yesterday at 2"),
    user("Also I need a dinner plan for tomorrow for 8 people, all vegetarian."),
    user("I pay our nanny Rosa $650 every Friday by Zelle from checking 3321."),
    user("They release the whole season weekly, on Tuesdays, so yes, the 28th."),
    user("My new cardiologist, Dr. Okafor, has put me on Eliquis 5 mg twice daily, starting tonight."),
    user("Also my flu shot is done, got it Saturday."),
    user("ok so my best friend's wedding is in phoenix and I'm flying out for it. southwest, sat the 1st at 8:30pm, "
         "booked."),
    user("Paid Greenway Landscaping $480 for the spring cleanup, invoice 1187, by check today."),
    user("We owe Bella Catering $2,750 for the party, invoice BC-221; I'll send it by ACH next Monday."),
    user("The school of my daughter, Brightwood Academy, ask me to pay the deposit for tuition, 2,400 dollar, "
         "until 15 August."),
    user("wisdom tooth out today. oral surgeon gave me tylenol #3, 1 tab every 4 hours as needed"),
])
def test_not_an_event(turns: list[tuple[str, str]]) -> None:
    assert schedule(*turns) == []


@pytest.mark.parametrize(("turns", "expected"), [
    ([("user", "Hi, I need to book a cleaning."),
      ("assistant", "You're booked for a cleaning with Dr. Lee on Tuesday, March 11 at 2:00 PM.")],
     [("appointment", "dr. lee", {"start": "2025-03-11T14:00:00", "provider": "Dr. Lee"})]),
    ([("user", "Can I move my appointment?"),
      ("assistant", "I've moved your appointment to Thursday, March 13 at 9:30 AM with Dr. Patel.")],
     [("appointment", "dr. patel", {"start": "2025-03-13T09:30:00", "provider": "Dr. Patel"})]),
    ([("user", "dentist thurs at 2"), ("assistant", "Noted: dentist on Thursday, March 6, at 2:00 PM.")],
     [("appointment", "dentist", {"start": "2025-03-06T14:00:00", "provider": "dentist"})]),  # a recap: once
])
def test_an_agent_booking_the_user_in(turns: list[tuple[str, str]], expected: list[object]) -> None:
    assert schedule(*turns) == expected


def test_and_before_another_event_and_a_date_after_a_comma() -> None:
    assert [key for _, key, _ in schedule(*user("spin class at 7 a.m. tomorrow and yoga at 6 p.m. on Friday"))] == [
        "spin class", "yoga"]
    assert schedule(*user("Dentist moved to Thursday, March 13 at 9:30 AM with Dr. Patel.")) == [
        ("appointment", "dr. patel", {"start": "2025-03-13T09:30:00", "provider": "Dr. Patel"})]


def test_an_appointment_with_its_price_is_still_one() -> None:
    assert schedule(*user("Dentist appointment on the 4th, copay is $40.")) == [
        ("appointment", "dentist", {"start": "2025-03-04", "provider": "dentist"})]


def test_schedule_lines_and_new_times() -> None:
    found = schedule(*user("Econ 101 Mon/Wed 10-11:15, Stats Tue/Thu 1-2:15"))
    assert [(key, fields["weekday"], fields["start_time"], fields["end_time"]) for _, key, fields in found] == [
        ("econ 101", "monday, wednesday", "10:00", "11:15"), ("stats", "tuesday, thursday", "13:00", "14:15")]
    assert schedule(*user("From now on standup is at 10 instead of 9:15")) == [
        ("event", "standup", {"title": "standup", "start_time": "10:00"})]  # the same entity as last week's series
    assert schedule(*user("I need a physio session next week")) == []


@pytest.mark.parametrize(("sentence", "key", "weekday", "start_time"), [
    ("I have Spanish on Tuesdays at 6", "spanish", "tuesday", "18:00"),
    ("We have Kumon Tuesdays 4-5", "kumon", "tuesday", "16:00"),
    ("Bharatanatyam is Saturdays 4 to 6", "bharatanatyam", "saturday", "16:00"),
    ("My son has hockey at 6am on Saturdays", "son/hockey", "saturday", "06:00"),
    ("Every Monday night is trivia at the pub, 8pm", "trivia", "monday", "20:00"),
    ("Counseling every Thursday at 5:30 pm through the end of the semester", "counseling", "thursday", "17:30"),
])
def test_titles_that_are_just_nouns(sentence: str, key: str, weekday: str, start_time: str) -> None:
    [(_, found, fields)] = schedule(*user(sentence))
    assert (found, fields["weekday"], fields["start_time"]) == (key, weekday, start_time)


def test_timetables_moves_and_headers() -> None:
    found = schedule(*user("Lectures: Intro to Psych MWF 9-9:50, Calc TTh 11-12:15"))
    assert [(key, fields["weekday"], fields.get("person")) for _, key, fields in found] == [
        ("intro to psych", "monday, wednesday, friday", None), ("calc", "tuesday, thursday", None)]
    found = schedule(*user("Soccer for Ethan: practice Tue/Thu 5-6:30pm, games Saturday mornings"))
    assert [(key, fields["weekday"]) for _, key, fields in found] == [
        ("ethan/soccer", "tuesday, thursday"), ("ethan/games", "saturday")]
    [(_, _, moved)] = schedule(*user("heads up my yoga class is now on Thursdays instead of Tuesdays, same time"))
    assert moved["weekday"] == "thursday"
    assert schedule(*user("Standup moved to 9:45 starting Monday")) == [
        ("event", "standup", {"title": "Standup", "start_time": "09:45", "start": "2025-03-10T09:45:00"})]


@pytest.mark.parametrize("sentence", ["I have time on Tuesdays at 3", "I'm free Tuesdays at 3",
                                      "Denver Tuesdays at 6 works for me?"])
def test_no_name_no_event(sentence: str) -> None:
    assert schedule(*user(sentence)) == []


@pytest.mark.parametrize(("turns", "start_time"), [
    ([("user", "pottery tuesdays 7 to 9"), ("assistant", "Got it: pottery on Tuesdays, 7:00-9:00 PM.")], "19:00"),
    ([("user", "yoga tuesdays at 7"), ("assistant", "Noted: yoga on Tuesdays at 7:00 AM.")], "07:00"),
    ([("user", "pottery tuesdays 7 to 9"), ("assistant", "Your dentist is at 7:00 PM.")], "07:00"),  # another event
])
def test_an_assistant_recap_settles_am_or_pm(turns: list[tuple[str, str]], start_time: str) -> None:
    assert schedule(*turns)[-1][2]["start_time"] == start_time


def test_an_assistant_naming_the_place_does_not_rename_the_event() -> None:
    found = schedule(("user", "Dialysis is Mondays, Wednesdays and Fridays, 6:30 to 10:30 in the morning."),
                     ("assistant", "Noted: dialysis on Mondays, Wednesdays and Fridays at the Riverside dialysis unit."))
    assert [fields["title"] for _, _, fields in found] == ["Dialysis"]


# --- recurring_conflicts: night shifts, daily and every-N-weeks series -----------------------

Event = with_fields("event", "status", "subject", "person")
Trip = with_fields("trip", "subject")
Appointment = with_fields("appointment")
NOW = datetime(2025, 1, 22, 10, 40)  # a Wednesdday
SHIFT = Event(title="shift", recurrence="weekly", weekday="friday, saturday, sunday", start_time="19:00",
              end_time="07:00", fact_ids=[1])


def flight(**extra: object) -> object:
    fields: dict[str, object] = {"destination": "Phoenix", "carrier": "Southwest", "departure_date": date(2025, 2, 1),
                                 "departure_time": "20:30", "booking_status": "booked", "fact_ids": [2]}
    return Trip(**(fields | extra))


def run(**attributes: object) -> tuple[list[str], list[str]]:
    result = run_constraints(user_module(**attributes), NOW, [recurring_conflicts])
    assert not result.errors
    return [a.message for a in result.alerts], [s.constraint for s in result.skipped]


def test_a_flight_during_a_night_shift_raises() -> None:
    [message], _ = run(events=[SHIFT], trips=[flight()])
    assert message == ("your Southwest flight to Phoenix departs Saturday 2025-02-01 at 20:30 (at the airport from "
                       "18:30, in the air until at least 21:30), during your weekly shift (Fridays, Saturdays, "
                       "Sundays 19:00-07:00)")


@pytest.mark.parametrize(("item", "raises"), [
    (flight(departure_date=date(2025, 2, 2), departure_time="05:00"), True),  # Saturday's shift runs past midnight
    (flight(departure_date=date(2025, 2, 3), departure_time="05:00"), True),  # ... and Sunday's into Monday
    (flight(departure_date=date(2025, 2, 4), departure_time="05:00"), False),  # Tuesday: no shift the night before
    (flight(departure_date=date(2025, 1, 30), departure_time="12:00"), False),  # Thursday noon
])
def test_the_hours_after_midnight_belong_to_the_night_before(item: object, raises: bool) -> None:
    assert bool(run(events=[SHIFT], trips=[item])[0]) is raises


def test_a_daily_series_meets_every_day() -> None:
    standup = Event(title="client standup", recurrence="daily", start_time="09:15", end_time="09:30", fact_ids=[3])
    [message], _ = run(events=[standup], trips=[flight(departure_date=date(2025, 1, 30), departure_time="09:00")])
    assert "during your daily client standup (09:15-09:30)" in message
    assert run(events=[standup], trips=[flight(departure_time="20:30")])[0] == []
    assert run(events=[standup], trips=[flight(departure_time="09:00")])[0] == []  # a Saturday: no standup
    walk = Event(title="dog walk", recurrence="daily", start_time="09:00", end_time="09:30", fact_ids=[3])
    assert run(events=[walk], trips=[flight(departure_time="09:00")])[0] != []  # every day, Saturdays too


def test_every_three_weeks_counts_from_the_first() -> None:
    chemo = Event(title="chemo", recurrence="every 3 weeks", weekday="monday", start_time="09:00",
                  end_time="13:00", start=datetime(2025, 1, 27, 9, 0), fact_ids=[4])
    dentist = Appointment(provider="dentist", start=datetime(2025, 2, 17, 10, 0), fact_ids=[5])
    [message], _ = run(events=[chemo], appointments=[dentist])
    assert "chemo every 3 weeks (Mondays 09:00-13:00 from 2025-01-27)" in message
    off_week = Appointment(provider="dentist", start=datetime(2025, 2, 10, 10, 0), fact_ids=[5])
    assert run(events=[chemo], appointments=[off_week])[0] == []


def test_an_ended_or_someone_elses_series_does_not_raise() -> None:
    ended = Event(title="Shift", status="ended", fact_ids=[6])
    assert run(events=[SHIFT, ended], trips=[flight()]) == ([], ["recurring_conflicts"])
    dads = Event(title="dialysis", recurrence="weekly", weekday="saturday", start_time="18:00", end_time="22:00",
                 subject="father", person="father", fact_ids=[7])
    assert run(events=[dads], trips=[flight()]) == ([], ["recurring_conflicts"])
    assert run(events=[SHIFT], trips=[flight(booking_status="planned")])[0] == []


def test_leaving_on_the_day_of_an_evening_occurrence_without_a_time() -> None:
    choir = Event(title="choir", recurrence="weekly", weekday="thursday", start_time="19:00", end_time="21:00",
                  fact_ids=[8])
    away = Trip(destination="Denver", departure_date=date(2025, 1, 30), return_date=date(2025, 2, 2),
                booking_status="booked", fact_ids=[9])
    [message], _ = run(events=[choir], trips=[away])
    assert "so you miss your weekly choir (Thursdays 19:00-21:00) on Thursday 2025-01-30" in message
    yoga = Event(title="yoga", recurrence="weekly", weekday="thursday", start_time="07:00", end_time="08:00",
                 fact_ids=[10])
    assert run(events=[yoga], trips=[away])[0] == []  # a morning class: the hour of leaving is unknown
    day_trip = Trip(destination="Denver", departure_date=date(2025, 1, 30), return_date=date(2025, 1, 30),
                    booking_status="booked", fact_ids=[9])
    assert run(events=[choir], trips=[day_trip])[0] == []


def test_a_later_session_names_the_series_generically() -> None:
    from factlog.extract import RuleExtractor
    from factlog.transcripts import Message, Session

    extractor = RuleExtractor()  # the sessions of one transcript see each other's entities

    def said(ts: datetime, text: str) -> list[tuple[str | None, dict[str, JsonValue]]]:
        facts = extractor.extract(Session("s", ts, [Message("user", text, 0)]), user_only=False)
        return [(f.key, {k: v for k, v in f.fields.items() if k not in ("subject", "speaker")}) for f in facts]

    assert said(datetime(2025, 3, 3, 9), "My pottery classes are Tuesdays 7 to 9pm.")[0][0] == "pottery classes"
    assert said(datetime(2025, 3, 10, 9), "The class moved to Thursdays, same time.") == [  # the times it had
        ("pottery classes", {"title": "pottery classes", "recurrence": "weekly", "weekday": "thursday",
                             "start_time": "19:00", "end_time": "21:00", "start": "2025-03-13T19:00:00"})]
    assert said(datetime(2025, 3, 12, 9), "class is at 6 now") == [
        ("pottery classes", {"title": "pottery classes", "start_time": "18:00"})]

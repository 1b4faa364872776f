"""One-off events and appointments, by family (helper h-events4, round 4): the phrasings of
its cold file (conversations_h-events4.json) are NOT used here; each family has at least five
others and the cases that must not be read.

Families: date words ("the Friday after next", "next week Thursday", "Sunday the 20th" months
away); dotted and dictated clock times ("7.45pm", "eight p m"); an assistant's recap of an event
the user's words did not give, or that completes it (time, place, whose, series end, title);
events the user goes to as a guest or a parent, and others' performances the user says they
will be at; reschedules ("they moved it to Friday the 20th", "it's now on the 14th"); "Where
is it?" answered with a place; a one-off event cancelled later is that event; "the night
before", a length said in the next line, "the wedding" named before; new event nouns.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest
from typed_sessions import extracted

from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.recognizers import recognize
from factlog.relative_dates import relative_day
from factlog.spoken import for_readers
from factlog.transcripts import Message, Session
from factlog.typed.event_times import times_of

TS = datetime(2026, 3, 3, 9, 0)  # a Tuesday
KINDS = ("event", "appointment")
Facts = list[tuple[str | None, str | None, dict[str, JsonValue]]]


def schedule(*turns: tuple[str, str], ts: datetime = TS) -> Facts:
    return extracted(KINDS, *turns, ts=ts)


def merged(found: Facts, key: str | None = None) -> dict[str, JsonValue]:
    """The merged fields of entity `key` (the last one the facts touch by default)."""
    assert found, "nothing extracted"
    key = key if key is not None else found[-1][1]
    fields: dict[str, JsonValue] = {}
    for _, k, f in found:
        if k == key:
            fields.update(f)
    return fields


def subjects(*turns: tuple[str, str], ts: datetime = TS) -> list[tuple[str | None, JsonValue]]:
    facts = RuleExtractor().extract(Session("s1", ts, [Message(r, t, i) for i, (r, t) in enumerate(turns)], {}),
                                    user_only=False)
    return [(f.kind, f.fields.get("subject")) for f in facts if f.kind in KINDS]


# --- date words (factlog.relative_dates, factlog.recognizers) ------------------------------

@pytest.mark.parametrize(("phrase", "expected"), [
    ("the friday after next", date(2026, 3, 13)),  # the coming Friday is the 6th
    ("tuesday after next", date(2026, 3, 17)),  # today is a Tuesday: the coming one is the 10th
    ("the sunday after next", date(2026, 3, 15)),
    ("next week thursday", date(2026, 3, 12)),
    ("wednesday next week", date(2026, 3, 11)),
    ("monday of next week", date(2026, 3, 9)),
])
def test_relative_weekday_phrases(phrase: str, expected: date) -> None:
    assert relative_day(phrase, TS.date()) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Her christening is the Sunday after next at 11", ["2026-03-15"]),
    ("the AGM is next week Thursday by 6pm", ["2026-03-12"]),
    ("Quiz night is Friday next week", ["2026-03-13"]),
    ("The gala is on Saturday the 20th", ["2026-06-20"]),  # the next 20th that is a Saturday
    ("The gala is on Sunday the 20th", []),  # September's is too far off: no day, not a wrong one
    ("Tuesday the 10th works", ["2026-03-10"]),
])
def test_weekday_dates_in_text(text: str, expected: list[str]) -> None:
    assert recognize(text, TS).dates == expected


def test_next_week_alone_stays_a_week_on() -> None:
    assert recognize("see you next week", TS).dates == ["2026-03-10"]


# --- dotted and dictated clock times --------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("drinks start 7.45pm", ["19:45"]),
    ("registration from 9.15am", ["09:15"]),
    ("dinner is at eight p m sharp", ["20:00"]),
    ("the call is at seven thirty p m", ["19:30"]),
    ("pickup 10 a m at the gate", ["10:00"]),
])
def test_clock_times(text: str, expected: list[str]) -> None:
    assert times_of(for_readers(text)) == expected


@pytest.mark.parametrize("text", ["it costs 4.50 now", "plan a m and b", "vitamin a m dose"])
def test_not_clock_times(text: str) -> None:
    assert times_of(for_readers(text)) == []


# --- an assistant's recap of what the user's words did not give -----------------------------

@pytest.mark.parametrize(("user", "assistant", "title", "start"), [
    ("Sammy's naming day is the weekend after the 14th, ugh, family stuff",
     "Noted: Sammy's naming day, Sunday 15 March at 11:00 AM at the Town Hall.", "Sammy's naming day",
     "2026-03-15T11:00:00"),
    ("put the Hendry arbitration in, invite below\nWhen: Wed 18 Mar 2026 09:30",
     "Added: Hendry arbitration, Wednesday 18 March, 9:30 AM.", "Hendry arbitration", "2026-03-18T09:30:00"),
    ("sis is doing her thesis defence thing, I'm going",
     "Got it: thesis defence, Friday 20 March at 2:00 PM.", "thesis defence", "2026-03-20T14:00:00"),
    ("the open house for the flat on Elm Rd",
     "Noted: open house, Saturday 7 March, 10:00-11:00 AM.", "open house", "2026-03-07T10:00:00"),
    ("Ramadan iftar at the mosque with the community",
     "Saved: community iftar, Thursday 12 March at 6:45 PM at the Al-Noor mosque.", "community iftar",
     "2026-03-12T18:45:00"),
])
def test_recap_gives_the_event(user: str, assistant: str, title: str, start: str) -> None:
    fields = merged(schedule(("user", user), ("assistant", assistant)))
    assert fields["title"] == title
    assert fields["start"] == start


@pytest.mark.parametrize(("user", "assistant"), [
    ("Doc gave me amoxicillin", "Noted: amoxicillin 500 mg, three times a day, March 4 to 10."),
    ("booked Lisbon!", "Noted: TAP to Lisbon, Friday 13 March at 7:10 AM."),
    ("paid the plumber", "Noted: $240 to the plumber, Friday 6 March at 5:00 PM."),
    ("thinking of a haircut", "Noted: haircut, sometime next week."),  # no day, no time
    ("old reunion pics", "Noted: reunion, Saturday 28 February at 7:00 PM."),  # before the session
])
def test_recaps_that_give_no_event(user: str, assistant: str) -> None:
    assert schedule(("user", user), ("assistant", assistant)) == []


def test_recap_does_not_repeat_the_users_event() -> None:
    found = schedule(("user", "The school concert is Thursday at 6:30."),
                     ("assistant", "Noted: school concert, Thursday 5 March at 6:30 PM."))
    assert len({key for _, key, _ in found}) == 1


@pytest.mark.parametrize(("user", "assistant", "field", "value"), [
    ("My cousin's engagement party is on the 21st. Starts at 7.", "Noted: engagement party, Saturday 21 March, "
     "7:00 PM at the Riverside Hotel.", "location", "Riverside Hotel"),
    ("The funeral is Friday.", "Noted: funeral, Friday 6 March at 10:30 AM at St Columba's.", "start",
     "2026-03-06T10:30:00"),
    ("salsa every thursday 8 to 9 at the hall, only till the summer break",
     "Noted: salsa, Thursdays 8:00-9:00 PM at the hall, until June 30.", "end", "2026-06-30"),
    ("spin class mondays 6 to 7am at Pulse, just for this term",
     "Noted: spin class, Mondays 6:00-7:00 AM at Pulse, until May 29.", "end", "2026-05-29"),
    ("5s footy every wednesday 8-9pm", "Noted: 5s footy league, Wednesdays 8:00-9:00 PM.", "title", "5s footy league"),
])
def test_recap_completes_the_event(user: str, assistant: str, field: str, value: JsonValue) -> None:
    assert merged(schedule(("user", user), ("assistant", assistant)))[field] == value


@pytest.mark.parametrize(("user", "assistant", "title"), [
    ("physio fridays 8 to 9", "Noted: weekly physio, Fridays 8:00-9:00 AM.", "physio"),
    ("spin mondays 12 to 12:45", "Noted: spin class, Mondays 12:00-12:45 PM.", "spin"),
    ("my son Leo has orchestra wednesdays 4 to 5:30", "Noted: Leo's orchestra, Wednesdays 4:00-5:30 PM.", "orchestra"),
    ("choir thursdays 7 to 9", "Noted: choir at St Mary's, Thursdays 7:00-9:00 PM.", "choir"),
])
def test_recap_adds_no_plain_or_owner_words(user: str, assistant: str, title: str) -> None:
    assert merged(schedule(("user", user), ("assistant", assistant)))["title"] == title


# --- a guest, a parent, someone watching -----------------------------------------------------

@pytest.mark.parametrize("text", [
    "My nephew's graduation is on March 12 at 10am.",
    "Tom's funeral is Friday at 2 at the crematorium.",
    "Parent-teacher conference for Maya is Thursday at 4:15.",
    "Our friend Dana's leaving do is on the 19th at 6pm.",
    "My brother's stag do is Saturday the 14th from 2pm.",
    "My daughter's recital is Saturday at 3, I'll be there with bells on.",
    "Leo has his football final on Sunday at 11, we're all going.",
    "My granddaughter's nativity play is on the 11th at 2. Wouldn't miss it.",
])
def test_the_users_event(text: str) -> None:
    assert subjects(("user", text)) and all(subject == "user" for _, subject in subjects(("user", text)))


@pytest.mark.parametrize("text", [
    "My daughter's recital is Saturday at 3, her dad is taking her.",
    "Leo's football final is Sunday at 11 but I can't go.",
    "My son's school play is on the 12th at 6 and I'm not going, I'm on nights.",
    "Priya has her dance show on Friday at 7; her aunt will take her.",
    "My son is going to Jake's birthday party on Saturday at 2.",  # a guest's event, but the son goes
])
def test_someone_elses_event(text: str) -> None:
    assert all(subject != "user" for _, subject in subjects(("user", text)))


@pytest.mark.parametrize(("text", "title"), [
    ("My son's school concert is Thursday at 6, I'm going.", "son's school concert"),
    ("Our niece Maeve's wedding is on the 28th at 1pm.", "Maeve's wedding"),
    ("Monday's budget review is at 10.", "budget review"),  # a day, not whose
    ("Grandad's 80th birthday party is Sunday at 1.", "Grandad's 80th birthday party"),
])
def test_title_keeps_whose(text: str, title: str) -> None:
    assert merged(schedule(("user", text)))["title"] == title


@pytest.mark.parametrize(("text", "title"), [
    ("I'm minding my nephew Finn Mondays and Wednesdays 3 to 6.", "minding Finn"),
    ("Babysitting Ava every Friday 6-11pm for my sister.", "babysitting Ava"),
    ("Minding the twins Tuesdays 8 to 1 while Claire works", "Minding"),
])
def test_minding_is_the_users(text: str, title: str) -> None:
    fields = merged(schedule(("user", text)))
    assert fields["title"] == title and fields.get("subject") in (None, "user")


# --- reschedules ---------------------------------------------------------------------------

@pytest.mark.parametrize(("second", "start"), [
    ("They moved it to Friday the 13th.", "2026-03-13T15:30:00"),
    ("Update: it's now on the 16th, same time.", "2026-03-16T15:30:00"),
    ("Clinic rang - rescheduled for Monday at 4.", "2026-03-09T16:00:00"),
    ("It's been moved to March 20 at 9am.", "2026-03-20T09:00:00"),
    ("They had to shift it to Thursday.", "2026-03-05T15:30:00"),
])
def test_moved_appointment(second: str, start: str) -> None:
    found = schedule(("user", f"Dentist appointment on Wednesday the 11th at 3:30pm. {second}"))
    assert merged(found)["start"] == start
    assert len({key for _, key, _ in found}) == 1


def test_shift_is_still_a_work_shift() -> None:
    fields = merged(schedule(("user", "My shift is 7 to 3 every Tuesday.")))
    assert fields["recurrence"] == "weekly" and fields["weekday"] == "tuesday"


def test_a_move_without_a_day_changes_nothing() -> None:
    fields = merged(schedule(("user", "Dentist appointment on Wednesday the 11th at 3:30pm. They moved to Denver.")))
    assert fields["start"] == "2026-03-11T15:30:00"


# --- where-answers -------------------------------------------------------------------------

@pytest.mark.parametrize(("answer", "place"), [
    ("St Luke's church hall.", "St Luke's church hall"),
    ("At the community centre on Bank St", "community centre on Bank St"),
    ("The Grange Hotel", "Grange Hotel"),
    ("It's at Hollybrook Primary.", "Hollybrook Primary"),
    ("the old scout hut behind the library", "old scout hut behind the library"),
])
def test_where_answer(answer: str, place: str) -> None:
    found = schedule(("user", "Poppy's christening is on Sunday the 15th at 11."), ("assistant", "Lovely! Where is it?"),
                     ("user", answer))
    assert merged(found)["location"] == place


def test_where_answer_with_a_day_is_no_place() -> None:
    found = schedule(("user", "Poppy's christening is on Sunday the 15th at 11."), ("assistant", "Where is it?"),
                     ("user", "Saturday at 3 actually"))
    assert merged(found).get("location") in (None, "") or "Saturday" not in str(merged(found).get("location"))


def test_where_question_about_no_event() -> None:
    found = schedule(("user", "I lost my passport."), ("assistant", "Oh no. Where is it?"), ("user", "The hotel safe."))
    assert found == []


# --- a one-off cancelled is that event; next to a day; a length; named before ----------------

def test_cancelled_one_off_is_the_same_entity() -> None:
    found = schedule(("user", "Jo's farewell party is Thursday the 12th at 7pm at the Crown."),
                     ("user", "Jo's farewell party on Thursday the 12th is cancelled."))
    assert len({key for _, key, _ in found}) == 1
    assert merged(found)["status"] == "cancelled"


def test_cancelled_occurrence_of_a_series_stays_its_own() -> None:
    found = schedule(("user", "Pottery class every Thursday 7-9."), ("user", "Pottery class is cancelled on the 12th."))
    assert len({key for _, key, _ in found}) == 2


@pytest.mark.parametrize(("text", "start"), [
    ("The wedding is Saturday the 14th, and the rehearsal dinner is the night before at 7.", "2026-03-13T19:00:00"),
    ("The gala is on the 20th. The after-party is the night after at 10pm.", "2026-03-21T22:00:00"),
    ("Conference dinner on Tuesday the 10th; the workshop is the next morning at 9.", "2026-03-11T09:00:00"),
    ("My op is on the 16th and the follow-up appointment is the day after at 11am.", "2026-03-17T11:00:00"),
    ("Graduation is March 27. The ceremony rehearsal is the day before at 2pm.", "2026-03-26T14:00:00"),
])
def test_next_to_a_day(text: str, start: str) -> None:
    assert merged(schedule(("user", text)))["start"] == start


@pytest.mark.parametrize("text", [
    "It's a 45 minute session.",
    "The appointment is 90 minutes long.",
    "Session lasts an hour.",
    "Appointment will be of 30 minutes only.",
    "The consultation takes 2 hours.",
])
def test_length_line_gives_the_end(text: str) -> None:
    fields = merged(schedule(("user", f"Physio with Dr Amin on Thursday the 5th at 2pm. {text}")))
    assert fields["start"] == "2026-03-05T14:00:00" and str(fields["end"]).startswith("2026-03-05T1")


def test_the_wedding_named_before() -> None:
    found = schedule(("user", "Flying to Cork for my old flatmate's wedding."), ("user", "The wedding is on the 21st."))
    assert merged(found)["title"] == "old flatmate's wedding"


@pytest.mark.parametrize(("text", "title"), [
    ("Company D&D on the 27th at 7pm.", "Company D&D"),
    ("Leaving do for Raj on Thursday at 6.", "Leaving do"),
    ("Pub quiz every Tuesday 8 to 10.", "Pub quiz"),
    ("Run club Saturdays 8am.", "Run club"),
    ("Custody hearing on the 19th at 9:30am.", "Custody hearing"),
    ("Netball Wednesdays 6-7.", "Netball"),
])
def test_new_event_nouns(text: str, title: str) -> None:
    assert merged(schedule(("user", text)))["title"] == title


@pytest.mark.parametrize("text", ["Eh, my choir is Thursdays 7 to 9.", "Wah, yoga every Monday 6 to 7pm.",
                                  "Gidday, bowls Wednesdays 1 to 3."])
def test_an_interjection_is_no_person(text: str) -> None:
    assert merged(schedule(("user", text))).get("subject", "user") == "user"


# --- pasted invites and clinics' text messages ----------------------------------------------

@pytest.mark.parametrize(("text", "title", "start", "end"), [
    ("Accepted:\n\nInvitation: Quarterly board review\nWhen: Thursday, March 12, 2026 2:00pm – 3:30pm (GMT)\n"
     "Where: Boardroom 3, Leeds office", "Quarterly board review", "2026-03-12T14:00:00", "2026-03-12T15:30:00"),
    ("Event: Sophie's 40th\nDate: Sat 21 Mar 2026\nTime: 19:00 - 23:00\nLocation: The Lighthouse Bar",
     "Sophie's 40th", "2026-03-21T19:00:00", "2026-03-21T23:00:00"),
    ("Subject: Site visit - Harbour St\nWhen: Mon 9 Mar 10:00-11:00\nWhere: 14 Harbour St",
     "Site visit - Harbour St", "2026-03-09T10:00:00", "2026-03-09T11:00:00"),
    ("What: Grant panel interview\nWhen: 17/03/2026, 09:30 to 10:15", "Grant panel interview", "2026-03-17T09:30:00",
     "2026-03-17T10:15:00"),
    ("Invitation: Lunch & learn @ Wed Mar 11, 2026 12pm - 1pm (EST)", "Lunch & learn", "2026-03-11T12:00:00",
     "2026-03-11T13:00:00"),
])
def test_pasted_invite(text: str, title: str, start: str, end: str) -> None:
    fields = merged(schedule(("user", text)))
    assert (fields["title"], fields["start"], fields["end"]) == (title, start, end)


@pytest.mark.parametrize("text", [
    "Subject: Invoice 4471 overdue\nDate: 3 March 2026\nPlease pay $240 by Friday.",  # an e-mail's date header
    "Subject: Weekly sync\nWhen: Every Monday 10:00-10:30\nStarts: 9 March 2026",  # a series: read as one
    "Subject: Your flight to Rome\nDate: Fri 13 Mar 2026",
])
def test_not_a_dated_invite(text: str) -> None:
    assert not any("recurrence" not in f and f.get("start") for _, _, f in schedule(("user", text)))


@pytest.mark.parametrize(("text", "provider", "start"), [
    ("Got this text: Smile Dental: Reminder - your appointment is on Tue 10/03 at 11:15am. Reply YES to confirm.",
     "Smile Dental", "2026-03-10T11:15:00"),
    ("Reminder from Pawprints Vets: Biscuit is booked in for vaccinations on Friday 13 March at 5.30pm.",
     "Pawprints Vets", "2026-03-13T17:30:00"),
    ("Harbour Physio: Hi Sam, see you Thu 12/03 at 8:15am with Dr Olsen. Reply C to cancel.", "Dr. Olsen",
     "2026-03-12T08:15:00"),
    ("BrightSmile Dental Care: appt confirmed for Mon 16/3 at 3:40pm.", "BrightSmile Dental Care",
     "2026-03-16T15:40:00"),
    ("Text from the vet: Milo's booster is on Wednesday the 18th at 10am.", "vet", "2026-03-18T10:00:00"),
])
def test_clinic_text(text: str, provider: str, start: str) -> None:
    found = [f for kind, _, f in schedule(("user", text)) if kind == "appointment"]
    assert found and found[-1]["provider"] == provider and found[-1]["start"] == start
    assert found[-1].get("subject", "user") == "user"  # a pet's appointment is the user's


@pytest.mark.parametrize(("text", "expected"), [
    ("Tue 10/03 at 11:15", date(2026, 3, 10)),  # 3 October is a Saturday: day first
    ("Fri 13/3", date(2026, 3, 13)),
    ("Tuesday 3/10", date(2026, 3, 10)),  # month first falls on the weekday: kept
])
def test_weekday_and_numeric_date(text: str, expected: date) -> None:
    from factlog.typed.event_times import day_of
    from factlog.typed.model import Context
    assert day_of(text, Context(TS)) == expected


def test_a_time_after_a_month_is_no_day() -> None:
    assert recognize("When: Mon 9 Mar 10:00-11:00", TS).dates == ["2026-03-09"]


# --- a one-off moved or called off in a later session ---------------------------------------

def two_sessions(first: str, second: str) -> Facts:
    extractor = RuleExtractor()
    found: Facts = []
    for number, (ts, text) in enumerate(((TS, first), (datetime(2026, 3, 5, 9, 0), second))):
        session = Session(f"s{number}", ts, [Message("user", text, 0)], {})
        found += [(f.kind, f.key, {k: v for k, v in f.fields.items() if k not in ("subject", "speaker")})
                  for f in extractor.extract(session, user_only=False) if f.kind in KINDS]
    return found


@pytest.mark.parametrize(("first", "second", "start"), [
    ("Dentist appointment Thursday the 12th at 3pm.", "The dentist's office called, they moved my appointment to the 19th.",
     "2026-03-19T15:00:00"),
    ("Dentist appointment Thursday the 12th at 3pm.", "My dental appointment got pushed to Monday at 4.",
     "2026-03-09T16:00:00"),
    ("Sarah's hen do is Saturday the 14th at 7pm.", "The hen do has been moved to the 21st.", "2026-03-21T19:00:00"),
    ("Physio with Dr Amin on the 10th at 9.", "Dr Amin rescheduled me for Wednesday 11th, same time.",
     "2026-03-11T09:00:00"),
    ("The school concert is on the 12th at 6pm and I'm going.", "The school concert was moved to the 19th.",
     "2026-03-19T18:00:00"),
])
def test_moved_in_a_later_session(first: str, second: str, start: str) -> None:
    found = two_sessions(first, second)
    assert len({key for _, key, _ in found}) == 1
    assert merged(found)["start"] == start


@pytest.mark.parametrize(("first", "second"), [
    ("Kevin's leaving do is Thursday the 12th at 6.", "Kevin's leaving do is off."),
    ("Book launch at Waterstones on the 18th at 7pm.", "The book launch has been cancelled."),
    ("Team dinner on Friday the 13th at 8.", "Team dinner's cancelled, boss is ill."),
    ("Mum's 70th birthday party is Sunday the 15th at 1.", "The birthday party is called off."),
    ("Quiz night at the club on the 20th at 7.30pm.", "They cancelled quiz night."),
])
def test_called_off_in_a_later_session(first: str, second: str) -> None:
    found = two_sessions(first, second)
    assert len({key for _, key, _ in found}) == 1
    assert merged(found)["status"] == "cancelled"


def test_a_series_called_off_is_not_a_one_off() -> None:
    found = two_sessions("Pottery class every Thursday 7-9.", "Pottery class is cancelled.")
    assert all(f.get("status") != "cancelled" or "start" not in f or f.get("recurrence") for _, _, f in found[1:]) or \
        merged(found).get("recurrence") == "weekly"


def test_a_name_is_no_length() -> None:
    fields = merged(schedule(("user", "Physio with Dr Amin on the 10th at 9.")))
    assert "end" not in fields


@pytest.mark.parametrize(("text", "kind"), [
    ("Eye test next Monday at 4.15pm at Specsavers.", "event"),
    ("Car's booked in at Kwik Fit on Wednesday at 8am for the MOT.", "event"),
    ("Court date is 23 March at 10am at Manchester Crown Court.", "event"),
    ("I have an appointment with my solicitor on the 20th at 2:30.", "appointment"),
    ("Flu jab at Boots on Saturday at 11:20.", "event"),
])
def test_more_one_off_nouns(text: str, kind: str) -> None:
    found = schedule(("user", text))
    assert found and found[-1][0] == kind and merged(found).get("start")


@pytest.mark.parametrize(("text", "place"), [
    ("Can you add Harriet's christening on 22/03 at 11? It's at St Michael's.", "St Michael's"),
    ("Book club social on the 9th at 7pm. It's in the Crown's back room.", "Crown's back room"),
    ("The school concert is Thursday at 6. It's at Hillview Academy.", "Hillview Academy"),
    ("Retirement do for Pat on Friday at 5. It'll be at The Anchor.", "Anchor"),
    ("Grandma's 90th party is Sunday at 1. It's at Nonna Rosa's.", "Nonna Rosa's"),
])
def test_its_at_line(text: str, place: str) -> None:
    assert merged(schedule(("user", text)))["location"] == place


def test_its_at_with_a_day_is_no_place() -> None:
    fields = merged(schedule(("user", "Choir concert on Friday at 7. It's at 8 actually.")))
    assert "location" not in fields


@pytest.mark.parametrize(("text", "title"), [
    ("Save the date: Priya & Sam's wedding, 6 June 2026, 2pm, Leeds Town Hall", "Priya & Sam's wedding"),
    ("I'm going to my nephew's bar mitzvah on Saturday the 28th at 10am.", "nephew's bar mitzvah"),
    ("remind me I've got my smear test on the 17th at 10.40", "smear test"),
    ("We're going to our friends' wedding on the 21st at 1pm.", "wedding"),
    ("Tom and Ana's engagement party is Saturday the 14th at 8pm.", "Tom and Ana's engagement party"),
])
def test_guest_titles(text: str, title: str) -> None:
    fields = merged(schedule(("user", text)))
    assert fields["title"] == title and fields.get("subject", "user") == "user"


@pytest.mark.parametrize("text", [
    "Should I go to Tom's wedding on the 14th at 2?",
    "Maybe I'll do the pub quiz on Thursday at 8 if I'm not tired.",
    "The wedding last Saturday at 2 was lovely.",
    "I was at a funeral on the 1st at 11.",
    "I'm not going to Kevin's leaving do on Friday at 6.",
    "my sister is thinking of having a baby shower on the 21st at 2",
])
def test_no_event_of_the_users(text: str) -> None:
    assert all(subject != "user" for _, subject in subjects(("user", text)))


@pytest.mark.parametrize("assistant", [
    "Noted: your flight to Rome, Friday 13 March at 7:10 AM.",
    "Noted: Netflix, $15.49 a month, next charge March 12 at 9:00 AM.",
])
def test_recap_of_no_event(assistant: str) -> None:
    assert schedule(("user", "hmm"), ("assistant", assistant)) == []

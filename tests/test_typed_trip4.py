"""Trip and travel-document phrasing families found by writing conversations cold
(conversations_h-trip4.json), each with phrasings that are not in that file and must-not
cases: what a trip is for (`purpose`) said with the trip, after it, or before it; an event's
own name or day is no destination or leg; itinerary routes by name, in lower case and on
e-ticket lines; "Passenger: SURNAME/NAME" lines; "Fri 6th"; a relative's "'s" that is "is";
a slashed expiry read the way its tense allows; carriers in any case; "me and the hubby";
a flight said as fixed is booked."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.model import JsonValue
from factlog.recognizers import recognize
from factlog.typed import Context, read_sentence
from factlog.typed.airports import route
from factlog.typed.common import given_names
from factlog.typed.document_dates import document_dates
from factlog.typed.places import any_place
from factlog.typed.prior import Prior
from factlog.typed.trips import purpose_of

TS = datetime(2026, 2, 10, 12, 0)  # a Tuesday


def read(*turns: str, ts: datetime = TS) -> list[dict[str, JsonValue]]:
    """Facts of the sentences in one session; a turn "assistant|..." is the assistant's."""
    context = Context(ts, prior=Prior())
    out: list[dict[str, JsonValue]] = []
    for turn in turns:
        speaker, _, text = turn.rpartition("|")
        context.speaker = speaker or "user"
        out += [{"fact": f.kind, "key": f.key, **f.fields} for f in read_sentence(text, context)]
    return out


def trips(*turns: str, ts: datetime = TS) -> list[dict[str, JsonValue]]:
    return [f for f in read(*turns, ts=ts) if f["fact"] == "trip"]


def merged(facts: list[dict[str, JsonValue]], key: str) -> dict[str, JsonValue]:
    """The entity `key` as its facts leave it."""
    state: dict[str, JsonValue] = {}
    for fact in facts:
        if fact["key"] == key:
            state.update(fact)
    return state


# --- what the trip is for, said with it --------------------------------------------------------

@pytest.mark.parametrize(("sentence", "purpose"), [
    ("Booked Iberia to Madrid for my internship, June 2 to August 28.", "internship"),
    ("Flying to Berlin for the Berlin Marathon on September 24.", "Berlin Marathon"),
    ("We fly Saudia to Jeddah for Umrah on March 3.", "Umrah"),
    ("I'm flying to Denver to visit my grandkids on May 2.", "visit grandkids"),
    ("Booked Delta to Austin for Priya's graduation, May 8 to May 11.", "Priya's graduation"),
    ("Booked Air France to Nice for our honeymoon, June 3 to June 14.", "honeymoon"),
    ("Booked KLM to Amsterdam for the ISMB congress, July 12 to 17.", "ISMB congress"),
    ("Flights to Dublin booked for my semester abroad, leaving January 8.", "semester abroad"),
])
def test_purpose_said_with_the_trip(sentence: str, purpose: str) -> None:
    found = trips(sentence)
    assert found and found[-1]["purpose"] == purpose


@pytest.mark.parametrize(("sentence", "purpose"), [
    ("my best mate's wedding is in Perth and I'm flying out for it on March 20", "best mate's wedding"),
    ("Client audit in Chicago Thursday, United out of Newark at 7am, booked.", "Client audit"),
    ("Registration for the ASCO conference came through.", "ASCO conference"),
    ("I'm running the Paris Half Marathon!", "Paris Half Marathon"),
    ("for my aunt Grace's 70th", "Grace's 70th"),
])
def test_purpose_phrasings(sentence: str, purpose: str) -> None:
    assert purpose_of(sentence) == purpose


@pytest.mark.parametrize("sentence", [
    "Flying to Rome on March 3, back March 10.",  # nothing said of what for
    "I went to Lisbon for my cousin's wedding last year.",  # travel done
    "What should I pack for the conference?",  # no trip
    "Is the flight to Oslo long?",
])
def test_no_purpose(sentence: str) -> None:
    assert all("purpose" not in f for f in trips(sentence))


def test_someone_elses_trip_keeps_its_own_purpose() -> None:
    found = trips("My sister is flying to Paris for a conference on May 3.")
    assert found and found[-1]["subject"] == "sister"


# --- said after the trip, or before it ------------------------------------------------------------

def test_purpose_said_after_the_trip() -> None:
    facts = trips("Booked Qantas to Sydney, March 3 to March 17.", "It's mainly for my niece's christening.")
    assert merged(facts, "sydney")["purpose"] == "niece's christening"


def test_purpose_said_after_in_pidgin() -> None:
    facts = trips("Booked Lufthansa to Munich, April 12 to April 20.", "Na for the trade fair I dey go.")
    assert merged(facts, "munich")["purpose"] == "trade fair"


def test_purpose_said_before_the_trip() -> None:
    facts = trips("Got my place in the Berlin Marathon!", "Flights booked to Berlin, September 24 to 30.")
    assert merged(facts, "berlin")["purpose"] == "Berlin Marathon"


def test_event_there_then_the_trip() -> None:
    facts = trips("My cousin's wedding is in Lisbon.", "Booked TAP to Lisbon, June 5 to June 12.")
    assert merged(facts, "lisbon")["purpose"] == "cousin's wedding"


def test_going_for_then_the_assistants_recap() -> None:
    facts = trips("Eh confirm going Osaka for my internship liao!",
                  "assistant|Noted: ANA to Osaka, departing June 2, 2026, returning August 30, 2026.")
    assert merged(facts, "osaka")["purpose"] == "internship"


@pytest.mark.parametrize("before", [
    "I'm running the Boston Marathon!",  # another place's event
    "My cousin's wedding is in Rome.",
    "If I go for the job interview I'd need flights.",  # a hypothesis
    "Should I go for the conference?",
    "My brother is going to Paris for a conference.",  # someone else's
])
def test_no_purpose_from_before(before: str) -> None:
    facts = trips(before, "Booked Delta to Tokyo, June 5 to June 12.")
    assert "purpose" not in merged(facts, "tokyo")


# --- an event's own name and day ------------------------------------------------------------------

def test_a_place_in_an_events_name_is_no_new_trip() -> None:
    facts = trips("Booked Lufthansa to Frankfurt, April 12 to April 28.", "Na for Hannover Messe I dey go.")
    assert {f["key"] for f in facts} == {"frankfurt"}
    assert merged(facts, "frankfurt")["purpose"] == "Hannover Messe"


@pytest.mark.parametrize("sentence", [
    "I booked Aer Lingus to Dublin for Maureen's 80th, which is on the 20th of May.",
    "Booked Delta to Rome for my cousin's wedding (June 20), flying out June 3.",
])
def test_the_events_day_is_no_departure(sentence: str) -> None:
    found = trips(sentence)
    assert found and found[-1].get("departure_date") in (None, "2026-06-03")


def test_a_booking_survives_never_about_the_past() -> None:
    found = trips("I booked Aer Lingus to Dublin, and when Harold and I were in Rome he said we'd never fly again.")
    assert found and found[-1]["destination"] == "Dublin"
    assert trips("I never fly to Dublin.") == []


# --- routes --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "legs"), [
    ("Outbound: EK 202 New York JFK - Dubai, Tue 3 Mar 2026", ("New York", "Dubai")),
    ("Depart: Toronto Pearson → Lisbon 14 May", ("Toronto", "Lisbon")),
    ("Return: QF 2 London Heathrow - Sydney", ("London", "Sydney")),
    ("AF 7  02MAY  CDG 10:30  JFK 12:45", ("Paris", "New York")),
    ("LH 568  28APR  FRA 10:15  LOS 16:05", ("Frankfurt", "Lagos")),
])
def test_itinerary_routes(line: str, legs: tuple[str, str]) -> None:
    assert route(line) == legs


@pytest.mark.parametrize("text", ["I love Paris - it is great", "Mon - Fri 9 to 5", "Coca-Cola - Pepsi",
                                  "Seats 14A - 14B", "the ABC 10:30 news"])
def test_no_route(text: str) -> None:
    assert route(text) is None


def test_named_itinerary_is_one_trip_with_its_return() -> None:
    facts = trips("Outbound: SQ 317 London Heathrow - Singapore, Sun 10 May 2026, dep 11:35",
                  "Return: SQ 322 Singapore - London Heathrow, Sun 31 May 2026, dep 23:55")
    assert {f["key"] for f in facts} == {"singapore"}
    assert merged(facts, "singapore")["return_date"] == "2026-05-31"


@pytest.mark.parametrize(("text", "place"), [
    ("booked air canada toronto to nice june 3", "Nice"),
    ("fiji airways sydney to nadi", "Nadi"),
    ("flying out of boston to lisbon", "Lisbon"),
])
def test_lowercase_routes(text: str, place: str) -> None:
    found = any_place(text)
    assert found is not None and found[0] == place


def test_a_nice_flight_is_no_place() -> None:
    assert any_place("had a nice flight") is None


# --- "Passenger: SURNAME/NAME" ---------------------------------------------------------------------

@pytest.mark.parametrize(("said", "names"), [
    ("OKONKWO/EMEKA MR", ["Emeka"]),
    ("KOWALSKA, ANNA", ["Anna"]),
    ("SMITH/JOHN MSTR", ["John"]),
    ("TAN/WEI LING MS", ["Wei", "Ling"]),
    ("Tom Alvarez", ["Tom", "Alvarez"]),
])
def test_given_names(said: str, names: list[str]) -> None:
    assert given_names(said) == names


def test_a_relatives_ticket_is_theirs() -> None:
    facts = trips("My daughter Adaeze is coming home for Christmas.", "Passenger: OKAFOR/ADAEZE MISS",
                  "BA 075  18DEC  LHR 10:15  LOS 17:20")
    assert facts and facts[-1]["subject"] == "daughter" and facts[-1]["destination"] == "Lagos"


def test_an_unknown_passenger_is_the_users_own_ticket() -> None:
    facts = trips("Passenger: OKONKWO/EMEKA MR", "LH 569  12APR  LOS 22:40  FRA 05:30+1")
    assert facts and facts[-1]["subject"] == "user" and facts[-1]["departure_date"] == "2026-04-12"


def test_two_passengers_travel_together() -> None:
    facts = trips("My wife Anna booked us both.", "Passenger 1: KOWALSKI/PIOTR MR", "Passenger 2: KOWALSKA/ANNA MRS",
                  "LO 26  04MAY  ORD 21:05  WAW 13:35")
    assert {f["subject"] for f in facts} == {"user", "wife"}


# --- "Fri 6th" ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "day"), [
    ("Fri 6th", "2026-03-06"),  # said on Friday 20 February: the 6ths before and after are Fridays
    ("fri 6th", "2026-03-06"),
    ("Thurs 26th", "2026-02-26"),
    ("Sat. 7th", "2026-02-07"),  # the nearer Saturday the 7th
    ("Friday 6th March", "2026-03-06"),
])
def test_weekday_and_ordinal(text: str, day: str) -> None:
    assert recognize(text, datetime(2026, 2, 20, 8)).dates == [day]


@pytest.mark.parametrize("text", ["I sat 3rd row back", "we came 2nd", "wed 4th", "mid-March"])
def test_no_weekday_day(text: str) -> None:
    assert recognize(text, datetime(2026, 2, 20, 8)).dates == []


# --- whose document: a relative's "'s" that is "is" -----------------------------------------------

@pytest.mark.parametrize("sentence", [
    "Mum's on at me to renew my passport, it expires 3 June 2026.",
    "Dad's been asking about my passport, it expires 3 June 2026.",
    "Sarah's on holiday, and my passport expires 3 June 2026.",
])
def test_is_not_owning(sentence: str) -> None:
    found = [f for f in read(sentence) if f["fact"] in ("passport", "document")]
    assert found and found[-1]["fact"] == "passport" and found[-1]["subject"] == "user"


@pytest.mark.parametrize(("sentence", "owner"), [
    ("Mum's passport expires on 3 June 2026.", "mother"),
    ("Dad's new passport expires on 3 June 2031.", "father"),
])
def test_a_parents_passport(sentence: str, owner: str) -> None:
    found = [f for f in read(sentence) if f["fact"] == "document"]
    assert found and found[-1]["subject"] == owner


# --- a slashed expiry read the way its tense allows -------------------------------------------------

@pytest.mark.parametrize(("sentence", "expiry"), [
    ("It expires 2/7/26.", "2026-07-02"),  # 7 February is past: 2 July
    ("Expires 03/09/2027.", "2027-03-09"),  # both ahead: as read
    ("It expired 2/7/26.", "2026-02-07"),  # told as past
    ("Expires 5/1/26.", "2026-05-01"),  # ahead as read
    ("Valid until 14.05.2026.", "2026-05-14"),  # one reading only
])
def test_slashed_expiry(sentence: str, expiry: str) -> None:
    context = Context(TS, prior=Prior())
    assert document_dates(sentence, context, "passport")["expiry_date"] == expiry


# --- carriers, companions, booked ------------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "carrier"), [
    ("booked fiji airways sydney to nadi july 3", "Fiji Airways"),
    ("booked british airways to rome july 3", "British Airways"),
    ("booked air new zealand to sydney july 3", "Air New Zealand"),
    ("Flying FlySafair to Durban on July 3.", "FlySafair"),
])
def test_carrier_in_any_case(sentence: str, carrier: str) -> None:
    found = trips(sentence)
    assert found and found[-1]["carrier"] == carrier


def test_a_lowercase_word_is_no_carrier() -> None:
    found = trips("booked a flight to rome july 3, united we stand")
    assert found and "carrier" not in found[-1]


@pytest.mark.parametrize(("sentence", "who"), [
    ("me and the hubby fly Emirates to Dubai, leaving 14 April", "husband"),
    ("The wife and I are flying to Lisbon on May 3.", "wife"),
    ("Me and my sister are off to Rome on May 3, booked.", "sister"),
])
def test_relation_travels_along(sentence: str, who: str) -> None:
    assert who in {f["subject"] for f in trips(sentence)}


def test_past_travel_together_is_no_companion() -> None:
    assert trips("Me and my sister went to Rome in 2019.") == []


@pytest.mark.parametrize(("sentence", "status"), [
    ("Mr Osei flies to Lagos on the 4th of June.", "booked"),
    ("I'm flying out to Denver on March 3.", "booked"),
    ("I'd love to be flying to Paris on March 3.", "planned"),
])
def test_flight_said_as_fixed(sentence: str, status: str) -> None:
    found = trips(sentence)
    assert found and found[-1].get("booking_status") == status


def test_if_i_fly_is_not_booked() -> None:
    found = trips("If I fly to Oslo on May 2 I'll need a coat.")
    assert all(f.get("booking_status") != "booked" for f in found)


# --- what for, in a word or a form's line; "to see", "I have a conference in" -------------------------

@pytest.mark.parametrize(("sentence", "purpose"), [
    ("Booked Delta to Chicago for work, leaving March 3.", "work"),
    ("Flying to Paris on business March 3.", "business"),
    ("Flying to Rome for a holiday on March 3.", "holiday"),
    ("I have a conference in Denver, flying out March 3 on United.", "conference"),
    ("Booked United to Miami to attend my niece's wedding on March 3.", "niece's wedding"),
    ("Booked Qantas to Sydney to see my parents, March 3 to March 20.", "see parents"),
])
def test_purpose_in_a_word(sentence: str, purpose: str) -> None:
    found = trips(sentence)
    assert found and found[-1]["purpose"] == purpose


@pytest.mark.parametrize(("said", "purpose"), [
    ("Purpose of visit: Tourism", "Tourism"),
    ("Purpose of travel: Business meetings", "Business meetings"),
    ("Purpose: conference", "conference"),
])
def test_a_forms_purpose_line(said: str, purpose: str) -> None:
    assert purpose_of(said) == purpose


@pytest.mark.parametrize("sentence", [
    "Flying to Rome on business class, March 3.",  # a cabin
    "The work on the kitchen starts when I fly back on March 3.",
    "I work from home, so I can fly to Rome on March 3.",
    "Paid for the flight on my business card.",
])
def test_no_word_purpose(sentence: str) -> None:
    assert purpose_of(sentence) is None


# --- a 24-hour clock in four digits; a day "on 17th" ---------------------------------------------------

@pytest.mark.parametrize(("sentence", "day", "clock"), [
    ("Depart 05 JUN 1745 on BA to London.", "2026-06-05", "17:45"),
    ("Flying to Oslo 12 March 0730 hrs.", "2026-03-12", "07:30"),
    ("Flying to Oslo on 12 March at 0730.", "2026-03-12", "07:30"),
])
def test_four_digit_clock(sentence: str, day: str, clock: str) -> None:
    found = trips(sentence)
    assert found and found[-1]["departure_date"] == day and found[-1]["departure_time"] == clock


@pytest.mark.parametrize("text", ["paid 1745 dollars", "room 1745", "flight BA 1745 on 5 June", "5 June 2026",
                                  "in the 1990s"])
def test_four_digits_that_are_no_clock(text: str) -> None:
    from factlog.spoken import for_readers

    assert for_readers(text) == text


def test_a_clock_is_no_year() -> None:
    assert recognize("05 JUN 1745", datetime(2026, 2, 20, 8)).dates == ["2026-06-05"]


def test_back_on_a_day_alone() -> None:
    found = trips("Flights booked to Tokyo, out on 3rd March and back on 17th.")
    assert found and found[-1]["return_date"] == "2026-03-17"


# --- a day-first writer; days texted short --------------------------------------------------------------

@pytest.mark.parametrize(("text", "days"), [
    ("flying out 3/4 and back 21/5", ["2026-04-03", "2026-05-21"]),  # 21/5 is day first: so is 3/4
    ("in 13/3, out 2/4", ["2026-03-13", "2026-04-02"]),
    ("3/4 to 4/5", ["2026-03-04", "2026-04-05"]),  # nothing says day first: as read
    ("12/25 to 1/2", ["2025-12-25", "2026-01-02"]),
])
def test_day_first_once_is_day_first_throughout(text: str, days: list[str]) -> None:
    assert recognize(text, datetime(2026, 2, 10, 8)).dates == days


@pytest.mark.parametrize(("sentence", "day"), [
    ("i fly to delhi tmrw on air india", "2026-02-11"),
    ("flying to boston 2moro, delta", "2026-02-11"),
    ("off to Rome tmr, booked Ryanair", "2026-02-11"),
])
def test_tomorrow_texted(sentence: str, day: str) -> None:
    found = trips(sentence)
    assert found and found[-1]["departure_date"] == day


def test_a_word_with_tmr_in_it_is_no_day() -> None:
    from factlog.spoken import for_readers

    assert for_readers("the tmrwz and tmrx codes") == "the tmrwz and tmrx codes"


# --- insurers by their own spelling; an expiry told as past -------------------------------------------

@pytest.mark.parametrize(("sentence", "provider"), [
    ("i bought travel insurance with nib for fiji from the third of july to the twelfth of july", "nib"),
    ("Got Cover-More travel insurance for Bali, 3 March to 17 March.", "Cover-More"),
    ("My travel insurance is with Southern Cross, 3 March to 17 March.", "Southern Cross"),
    ("Staysure travel insurance covers 3 March to 17 March.", "Staysure"),
])
def test_insurer_named(sentence: str, provider: str) -> None:
    found = [f for f in read(sentence) if f["fact"] == "document"]
    assert found and found[-1]["provider"] == provider


def test_a_pen_nib_is_no_insurer() -> None:
    assert [f["fact"] for f in read("My pen nib broke, and my passport expires 3 June 2027.")] == ["passport"]


# --- a return on "the Friday", "the following Monday" after the day said -------------------------------

@pytest.mark.parametrize(("sentence", "back"), [
    ("Flying to Paris on March 3, back the following Monday.", "2026-03-09"),
    ("Off to Leeds on the train, Tuesday the 7th of April, coming home on the Friday.", "2026-04-10"),
    ("Flying to Oslo on Thursday March 5, returning the following Tuesday.", "2026-03-10"),
])
def test_return_on_a_weekday_after(sentence: str, back: str) -> None:
    found = trips(sentence)
    assert found and found[-1]["return_date"] == back


def test_the_fridays_are_no_day() -> None:
    found = trips("Flying to Paris on March 3; I work Fridays.")
    assert found and "return_date" not in found[-1]

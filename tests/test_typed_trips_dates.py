"""Trips' dates and codes in the phrasings people use: a booked trip's dates lie ahead, a
relative day is when it was booked, a visa's date is not the trip's, codes the assistant
saves, a month said alone, occasions as purposes, companions only when named."""

from __future__ import annotations

from datetime import datetime

import pytest
from typed_sessions import extracted, session

from factlog.extract import RuleExtractor
from factlog.model import JsonValue

FEB = datetime(2026, 2, 27, 12, 0)


def trips(*turns: tuple[str, str], ts: datetime = FEB) -> list[tuple[str | None, str | None, dict[str, JsonValue]]]:
    return extracted(("trip",), *turns, ts=ts)


def merged(*turns: tuple[str, str], ts: datetime = FEB) -> dict[str, dict[str, JsonValue]]:
    out: dict[str, dict[str, JsonValue]] = {}
    for _, key, fields in trips(*turns, ts=ts):
        out.setdefault(str(key), {}).update(fields)
    return out


def test_a_booked_trip_moved_later_keeps_its_dates_ahead() -> None:
    trip = merged(("user", "booked Cancun, Aeromexico, conf AM62KD"),
                  ("user", "reunion got pushed to the fall so I changed the flights. now Sept 25 out, Oct 5 back"))
    assert (trip["cancun"]["departure_date"], trip["cancun"]["return_date"]) == ("2026-09-25", "2026-10-05")


def test_a_range_with_the_year_on_its_end_only() -> None:
    trip = merged(("assistant", "Updated: Aeromexico to Cancun, September 25 to October 5, 2026, "
                                "confirmation AM62KD."))
    assert (trip["cancun"]["departure_date"], trip["cancun"]["return_date"]) == ("2026-09-25", "2026-10-05")


@pytest.mark.parametrize("said", ["yep booked it yesterday", "booked it last week, confirmation LH9RT2",
                                  "I booked this morning"])
def test_when_it_was_booked_is_no_leg(said: str) -> None:
    trip = merged(("user", "I fly to Munich on Lufthansa in February"), ("user", said), ts=datetime(2026, 1, 5))
    assert "departure_date" not in trip["munich"] and "return_date" not in trip["munich"]


def test_travel_told_as_done_stays_past() -> None:
    trip = merged(("user", "I booked a flight to Lisbon on TAP."), ("user", "We flew back on Jan 3."))
    assert trip["lisbon"].get("return_date") in (None, "2026-01-03")


@pytest.mark.parametrize("said", [
    "Heads up: your visa is valid until 31 May, twelve days before your flight home.",
    "Your passport expires on October 1, in the middle of the trip.",
    "My e-visa ends May 20, before my flight back.",
])
def test_a_documents_validity_gives_the_trip_no_dates(said: str) -> None:
    trip = merged(("user", "Booked Qantas to Shanghai, March 1 to June 12."), ("assistant", said))
    assert (trip["shanghai"]["departure_date"], trip["shanghai"]["return_date"]) == ("2026-03-01", "2026-06-12")


def test_the_assistant_saving_a_code_read_aloud() -> None:
    trip = merged(("user", "booked TAP to Lisbon first of June to the thirtieth"),
                  ("assistant", "Do you have a booking code?"), ("user", "yep its T P four four X N"),
                  ("assistant", "Saved: TP44XN."))
    assert trip["lisbon"]["confirmation"] == "TP44XN"


def test_a_bare_saved_code_without_a_trip_is_nothing() -> None:
    assert trips(("assistant", "Saved: TP44XN.")) == []


def test_a_month_said_alone_anchors_bare_days() -> None:
    trip = merged(("user", "we were looking at Machu Picchu for March, flights to Lima around the 10th to the 24th, "
                           "but probably not"), ts=datetime(2026, 1, 25))
    assert (trip["lima"]["departure_date"], trip["lima"]["return_date"]) == ("2026-03-10", "2026-03-24")
    assert trip["lima"]["booking_status"] == "planned"


@pytest.mark.parametrize(("said", "purpose"), [
    ("Booked our anniversary trip to Greece on Aegean Airlines.", "anniversary"),
    ("My birthday trip to Rome is booked, ITA Airways.", "birthday"),
    ("Booked a work trip to Chicago on United.", "work"),
])
def test_an_occasion_trip_has_its_purpose(said: str, purpose: str) -> None:
    [fields] = [f for _, _, f in trips(("user", said)) if "purpose" in f]
    assert fields["purpose"] == purpose


def test_an_airline_before_and_i_is_no_companion() -> None:
    keys = {key for _, key, _ in trips(("user", "ok so I fly to Munich on uh the second of feb Lufthansa and I'm back "
                                                "April tenth"), ts=datetime(2026, 1, 5))}
    assert keys == {"munich"}


@pytest.mark.parametrize("said", [
    "I have booked myself on Singapore Airlines to Singapore for a conference, 3rd to 10th of June.",
    "Flying to Singapore 3-10 June on Singapore Airlines.",
    "Booked Singapore from the 3rd to the 10th of June.",
])
def test_a_range_with_its_month_after_the_second_day(said: str) -> None:
    trip = merged(("user", said), ts=datetime(2026, 2, 9))
    assert (trip["singapore"]["departure_date"], trip["singapore"]["return_date"]) == ("2026-06-03", "2026-06-10")


@pytest.mark.parametrize(("said", "who"), [
    ("I have booked Papa's tickets to Singapore.", "father"),
    ("Mom's flight to Denver is booked.", "mother"),
    ("Booked Nana's trip to Dublin.", "grandmother"),
])
def test_family_words_used_as_names_are_the_relation(said: str, who: str) -> None:
    facts = RuleExtractor().extract(session(("user", said), ts=FEB), user_only=False)
    assert [fact.fields["subject"] for fact in facts if fact.kind == "trip"][0] == who


def test_a_recap_asked_as_a_question_and_confirmed() -> None:
    trip = merged(("user", "Booked Thailand! Thai Airways on the 20th of June, back on the 4th of July."),
                  ("assistant", "So that's Thai Airways from Heathrow to Bangkok, 20 June to 4 July 2026?"),
                  ("user", "Yes, Bangkok then the islands."), ("user", "Confirmation's TG7WQ2 if you need it."))
    assert trip["thailand"]["destination"] == "Bangkok" and trip["thailand"]["confirmation"] == "TG7WQ2"


def test_a_recap_question_without_a_yes_is_nothing() -> None:
    trip = merged(("user", "Booked Thailand on Thai Airways."),
                  ("assistant", "So that's Bangkok, 20 June to 4 July?"), ("user", "No, Phuket."))
    assert trip["thailand"].get("departure_date") is None


@pytest.mark.parametrize("said", [
    "We were also thinking of a small Toronto trip but no, not doing that.",
    "I looked at flights to Toronto but decided against it.",
    "Was considering Toronto in May, ruled it out.",
])
def test_a_trip_considered_and_dropped_is_no_trip(said: str) -> None:
    assert trips(("user", said)) == []


@pytest.mark.parametrize(("said", "going", "back"), [
    ("Flying to Sydney twenty-first of March, returning the second of April.", "2026-03-21", "2026-04-02"),
    ("ok so I fly to Munich on uh the second of feb and I'm back April tenth", "2026-02-02", "2026-04-10"),
    ("I booked TAP to Lisbon uh first of June to the thirtieth", "2026-06-01", "2026-06-30"),
    ("We're off to Lisbon on the 14th of March, home on the 22nd.", "2026-03-14", "2026-03-22"),
])
def test_days_said_in_words_and_other_ways_to_leave(said: str, going: str, back: str) -> None:
    [trip] = merged(("user", said), ts=datetime(2026, 1, 5)).values()
    assert (trip["departure_date"], trip["return_date"]) == (going, back)


def test_back_from_a_place_is_a_past_trip_not_a_return() -> None:
    [trip] = merged(("user", "I'm back from Germany and booked Lisbon, June 1 to June 30."),
                    ts=datetime(2026, 4, 20)).values()
    assert (trip["departure_date"], trip["return_date"]) == ("2026-06-01", "2026-06-30")


def test_a_code_said_after_what_it_is_for() -> None:
    assert merged(("user", "Booking ref for the Paris flights is XJ7K2P."))["paris"]["confirmation"] == "XJ7K2P"


@pytest.mark.parametrize(("said", "cancelled"), [
    ("Ugh. We cancelled Paris.", True),
    ("They cancelled the museum tour in Paris.", False),
    ("We cancelled dinner, too tired.", False),
])
def test_a_trip_cancelled_by_its_place(said: str, cancelled: bool) -> None:
    facts = trips(("user", "Booked Air France to Paris, March 3 to 10."), ("user", said), ts=datetime(2026, 2, 1))
    assert any(fields.get("booking_status") == "cancelled" for _, _, fields in facts) == cancelled


@pytest.mark.parametrize("said", [
    "Tickets are bought: Rome, April 2 to April 9.",
    "Flights paid for, Rome April 2 to April 9.",
    "Trip to Rome is a go, April 2 to April 9.",
])
def test_booked_said_the_other_way_round(said: str) -> None:
    assert merged(("user", said))["rome"]["booking_status"] == "booked"


def test_tap_alone_is_a_carrier() -> None:
    trip = merged(("user", "My wife and I are flying to Lisbon on May 3, returning May 10, TAP."))
    assert trip["lisbon"]["carrier"] == "TAP" and trip["lisbon"]["booking_status"] == "booked"

"""Typed extraction from conversation (`factlog.typed` through `RuleExtractor`): sentence in,
typed facts out; session carry-over and corrections; determinism; negatives; and a chat
alone raising a passport alert end to end."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from uac_home import clone_home

from factlog.extract import RuleExtractor
from factlog.model import JsonValue, NewFact
from factlog.recognizers import recognize
from factlog.transcripts import Message, Session
from factlog.typed.places import country_of, find_place
from runtime.memory import Memory

TS = datetime(2025, 1, 10, 9, 0)  # a Friday


def session(*turns: tuple[str, str], metadata: dict[str, JsonValue] | None = None) -> Session:
    return Session("s1", TS, [Message(role, text, i) for i, (role, text) in enumerate(turns)], metadata or {})


def typed(*turns: tuple[str, str], metadata: dict[str, JsonValue] | None = None) -> list[NewFact]:
    facts = RuleExtractor().extract(session(*turns, metadata=metadata), user_only=False)
    return [f for f in facts if f.kind is not None]


def shape(facts: list[NewFact]) -> list[tuple[str | None, str | None, dict[str, JsonValue]]]:
    """(kind, key, fields without subject/speaker) of each fact."""
    return [(f.kind, f.key, {k: v for k, v in f.fields.items() if k not in ("subject", "speaker")}) for f in facts]


# --- sentence in, typed facts out ------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("My passport expires on March 5, 2025.",
         [("passport", "passport", {"expiry_date": "2025-03-05"})]),
        ("My US passport is valid until 2031-06-30.",
         [("passport", "passport", {"expiry_date": "2031-06-30", "country": "United States"})]),
        ("I booked a flight to Tokyo on Feb 20, returning March 2.",
         [("trip", "tokyo", {"destination": "Tokyo", "country": "Japan", "departure_date": "2025-02-20",
                             "return_date": "2025-03-02", "booking_status": "booked"})]),
        ("We're flying Delta to Paris next Friday at 9:40 AM and coming back at 6 pm.",
         [("trip", "paris", {"destination": "Paris", "country": "France", "departure_date": "2025-01-17",
                             "departure_time": "09:40", "return_time": "18:00", "carrier": "Delta",
                             "booking_status": "booked"})]),  # a carrier on a date: a booked flight
        ("I'm thinking about a trip to Tokyo in the spring.",
         [("trip", "tokyo", {"destination": "Tokyo", "country": "Japan", "booking_status": "planned"})]),
        ("We had to cancel our trip to Rome.",
         [("trip", "rome", {"destination": "Rome", "country": "Italy", "booking_status": "cancelled"})]),
        ("My Japanese visa expires on 4/30/2025.",
         [("document", "visa/japan", {"kind": "visa", "expiry_date": "2025-04-30", "country": "Japan"})]),
        ("My driver's license expires June 12, 2026.",
         [("document", "drivers_licence", {"kind": "drivers_licence", "expiry_date": "2026-06-12"})]),
        ("My travel insurance covers March 1 to March 20.",
         [("document", "insurance/travel", {"kind": "insurance", "expiry_date": "2025-03-20",
                                            "start_date": "2025-03-01", "item": "travel"})]),
        ("My CPR certification expires on August 1, 2025.",
         [("document", "certificate/cpr", {"kind": "certificate", "expiry_date": "2025-08-01", "item": "cpr"})]),
    ],
)
def test_sentence_to_typed_facts(sentence: str, expected: list[tuple[str, str, dict[str, JsonValue]]]) -> None:
    assert shape(typed(("user", sentence))) == expected


def test_typed_facts_keep_text_provenance_subject_speaker_and_session_metadata() -> None:
    [fact] = typed(("assistant", "Hello!"), ("user", "My passport expires on March 5, 2025."),
                   metadata={"business": "Passport Office"})
    assert fact.text == "My passport expires on March 5, 2025."
    assert (fact.provenance.session_id, fact.provenance.message_index, fact.provenance.role) == ("s1", 1, "user")
    assert fact.fields["subject"] == "user" and fact.fields["speaker"] == "user"
    assert fact.fields["session_metadata"] == {"business": "Passport Office"}


def test_someone_elses_passport_is_their_document() -> None:
    [fact] = typed(("user", "My daughter's passport expires June 1, 2026."))
    assert (fact.kind, fact.key) == ("document", "passport/daughter")
    assert fact.fields["holder"] == "daughter" and fact.fields["subject"] == "daughter"
    assert fact.fields["expiry_date"] == "2026-06-01"


def test_assistant_confirmation_is_a_fact_spoken_by_the_assistant() -> None:
    facts = typed(("user", "I need to book a flight to Japan."),
                  ("assistant", "Your flight to Tokyo is booked for February 20. Your confirmation number is QX7B2P."))
    assert {f.key for f in facts} == {"japan"}  # "a flight to Japan" then "to Tokyo": one trip
    confirmation = facts[-1]
    assert confirmation.fields["confirmation"] == "QX7B2P" and confirmation.fields["speaker"] == "assistant"
    assert confirmation.fields["booking_status"] == "booked" and confirmation.provenance.role == "assistant"
    assert facts[1].fields["destination"] == "Tokyo" and facts[1].fields["departure_date"] == "2025-02-20"


def test_warranty_expiry_from_purchase_date_and_term() -> None:
    [fact] = typed(("user", "I bought a Samsung fridge on March 3, 2024. It came with a 1-year warranty."))
    assert shape([fact]) == [("document", "warranty/samsung", {  # a branded item's warranty is the brand's
        "kind": "warranty", "purchase_date": "2024-03-03", "expiry_date": "2025-03-03", "item": "Samsung fridge",
        "provider": "Samsung"})]


# --- a session: carry-over and corrections ---------------------------------------------


def test_the_subject_carries_over_within_a_session() -> None:
    facts = typed(("user", "I renewed my passport. New expiry is March 5, 2035."))
    # the renewal clears the old passport's expiry; the next sentence gives the new one's
    assert shape(facts) == [("passport", "passport", {"expiry_date": None}),
                            ("passport", "passport", {"expiry_date": "2035-03-05"})]
    trip = typed(("user", "I'm flying to Osaka on March 3."), ("user", "I come back on the 12th of March at 4pm."))
    assert [f.key for f in trip] == ["osaka", "osaka"]
    assert shape(trip)[1][2] == {"return_date": "2025-03-12", "return_time": "16:00"}


def test_someone_elses_document_carries_over_as_theirs() -> None:
    facts = typed(("user", "My son's passport is with me."), ("user", "It expires on May 2, 2025."))
    assert shape(facts) == [("document", "passport/son", {"kind": "passport", "holder": "son",
                                                          "expiry_date": "2025-05-02"})]
    assert facts[0].fields["subject"] == "son"


def test_a_correction_supersedes_the_same_entity() -> None:
    facts = typed(("user", "My passport expires on March 5, 2025."), ("user", "Actually, it's the 12th."))
    assert shape(facts) == [("passport", "passport", {"expiry_date": "2025-03-05"}),
                            ("passport", "passport", {"expiry_date": "2025-03-12"})]
    trip = typed(("user", "Flight to Lisbon leaves April 2."), ("user", "Sorry, I meant April 4."))
    assert shape(trip)[-1] == ("trip", "lisbon", {"departure_date": "2025-04-04"})


def test_typed_sentences_keep_other_values_in_a_note() -> None:
    facts = RuleExtractor().extract(session(("user", "I'm flying to Miami on Feb 5."),
                                            ("user", "Returning Feb 9 on flight PA 891, seat 14C.")), user_only=True)
    returning = [f for f in facts if f.provenance.message_index == 1]
    assert [f.kind for f in returning] == [None, "trip"]
    assert returning[0].fields["identifiers"] == ["PA 891", "14C"]
    assert returning[1].fields["return_date"] == "2025-02-09" and returning[1].key == "miami"
    [only] = RuleExtractor().extract(session(("user", "My passport expires on March 5, 2025.")), user_only=True)
    assert only.kind == "passport"  # every value is held by a typed field: no note


# --- trips and documents as conversations state them (issue 11) -------------------------


def test_a_place_named_alone_waits_for_the_trips_values() -> None:
    facts = typed(("user", "Work is sending me to Singapore."), ("user", "Flying out December 2nd, 2025."),
                  ("user", "Confirmation SQ2RT8. It's for the client workshop."),
                  ("assistant", "Saved: confirmation SQ2RT8, purpose: client workshop."))
    assert [f.key for f in facts] == ["singapore"] * 4  # "It's for the client workshop." is the trip's too
    assert shape(facts)[0][2] == {"destination": "Singapore", "country": "Singapore", "departure_date": "2025-12-02"}
    assert facts[-1].fields["purpose"] == "client workshop" and facts[-1].fields["confirmation"] == "SQ2RT8"
    assert typed(("user", "Work is sending me to Singapore.")) == []  # a place alone: no trip's values yet


def test_booking_codes_carriers_and_dates_said_alone() -> None:
    facts = typed(("user", "Booked Italy! Thursday April 10 to Thursday April 24."), ("user", "ITA Airways."),
                  ("user", "Into Rome, out of Milan."), ("user", "No wait, it's into Milan and out of Rome."),
                  ("user", "The booking reference is AZ7K2M."))
    assert {f.key for f in facts} == {"italy"}
    merged = {k: v for f in facts for k, v in f.fields.items() if k not in ("subject", "speaker")}
    assert merged == {"destination": "Milan", "country": "Italy", "booking_status": "booked",
                      "departure_date": "2025-04-10", "return_date": "2025-04-24", "carrier": "ITA Airways",
                      "confirmation": "AZ7K2M"}


def test_the_hotels_confirmation_is_not_the_flights() -> None:
    facts = typed(("user", "Booked my flight to Miami for my cousin's wedding. Confirmation is PZ4Q9R."),
                  ("user", "The hotel is the Grand Oasis; the confirmation is 884120."),
                  ("assistant", "Reserved: Palmer House Hilton, check-in May 29, check-out May 30."),
                  ("assistant", "Confirmation 88213476."))
    assert [f.fields.get("confirmation") for f in facts] == [None, "PZ4Q9R"]
    assert facts[0].fields["subject"] == "user" and facts[0].fields["purpose"] == "cousin's wedding"


def test_who_travels_with_the_user_gets_the_trip_too() -> None:
    facts = typed(("user", "I have now booked a holiday for Emma and myself."),
                  ("user", "Cancún, Mexico, with American Airlines. We depart Friday, July 11 and return July 18."))
    assert {(f.key, f.fields["subject"]) for f in facts} == {("cancun", "user"), ("cancun/emma", "Emma")}
    assert typed(("user", "My son is flying to Denver on March 3."))[0].fields["subject"] == "son"


def test_a_country_after_its_city_keeps_the_city() -> None:
    facts = typed(("user", "Booked a painting course in Andalusia, Iberia, September 15 to October 20."),
                  ("assistant", "Noted: Iberia to Spain, September 15 to October 20, 2025."))
    assert {f.fields.get("destination") for f in facts} <= {"Andalusia", None} and {f.key for f in facts} == {
        "andalusia"}


def test_insurance_follow_ups_are_the_policys_not_the_trips() -> None:
    facts = typed(("user", "Got travel insurance for Italy. Travel Guard, the Preferred plan."),
                  ("assistant", "What are the coverage dates?"),
                  ("user", "April 10 to April 24, matches the trip exactly."))
    assert {f.kind for f in facts} == {"document"}
    merged = {k: v for f in facts for k, v in f.fields.items() if k not in ("subject", "speaker")}
    assert merged == {"kind": "insurance", "item": "travel", "country": "Italy", "provider": "Travel Guard",
                      "start_date": "2025-04-10", "expiry_date": "2025-04-24"}


def test_policy_numbers_and_the_insurers_own_line() -> None:
    facts = typed(("user", "I purchased a policy online this morning."),
                  ("assistant", "Could I have the policy number, please?"), ("user", "WN-88213407."),
                  ("assistant", "Cover starts on August 2, 2025 and ends on August 16, 2025."),
                  metadata={"business": "World Nomads"})
    merged = {k: v for f in facts for k, v in f.fields.items() if k not in ("subject", "speaker", "session_metadata")}
    assert merged == {"kind": "insurance", "number": "WN-88213407", "provider": "World Nomads",
                      "start_date": "2025-08-02", "expiry_date": "2025-08-16"}


def test_a_new_employers_insurance_is_another_policy() -> None:
    facts = typed(("user", "My company insurance, Cigna Global, it finish 31 December 2025."),
                  ("user", "From January I have new job but insurance start only 1 February."))
    assert [(f.key, f.fields.get("expiry_date"), f.fields.get("start_date")) for f in facts] == [
        ("insurance", "2025-12-31", None), ("insurance/new", None, "2025-02-01")]


def test_visa_validity_said_in_pieces() -> None:
    facts = typed(("user", "vietnam evisa approved!!"), ("user", "valid 1/15 to 2/3"))
    assert shape(facts) == [("document", "visa/vietnam", {"kind": "visa", "country": "Vietnam",
                                                          "expiry_date": "2025-02-03", "start_date": "2025-01-15"})]
    facts = typed(("user", "Good news, the Australian visitor visa came through."),
                  ("user", "Single stay, I must leave by March 4."), ("user", "Sorry, March 14."),
                  ("user", "Grant number is 0691-2284-7731."),
                  ("user", "Please also note that her school term ends on June 20."))
    merged = {k: v for f in facts if f.kind == "document" for k, v in f.fields.items()
              if k not in ("subject", "speaker")}  # the school term is a deadline of its own, not the visa's
    assert merged == {"kind": "visa", "country": "Australia", "expiry_date": "2025-03-14", "number": "0691-2284-7731"}


def test_warranty_from_a_recorded_purchase_and_its_maker() -> None:
    facts = typed(("user", "Please record a purchase: a Whirlpool French-door refrigerator from Home Depot, "
                           "delivered today, $2,199."),
                  ("user", "The manufacturer's warranty is two years, and I have the order number HD-W66418203."))
    assert shape(facts) == [("payment", "home depot/2025-01-10T09:00", {  # the purchase is a payment made, too
        "payee": "Home Depot", "amount_usd": 2199.0, "status": "done", "scheduled_date": "2025-01-10"}),
        ("document", "warranty/whirlpool", {
            "kind": "warranty", "purchase_date": "2025-01-10", "number": "HD-W66418203", "expiry_date": "2027-01-10",
            "provider": "Whirlpool", "item": "Whirlpool French-door refrigerator"}),
        ("payment", "home depot/2025-01-10T09:00", {"payee": "Home Depot", "reference": "HD-W66418203"})]


def test_two_warranties_in_one_sentence() -> None:
    facts = typed(("user", "Ace Plumbing put in a new Rheem 50-gallon on Thursday, the 9th. The tank has a six-year "
                           "Rheem warranty, but Ace's labor warranty is only one year."))
    assert [(f.key, f.fields["expiry_date"]) for f in facts] == [("warranty/rheem", "2031-01-09"),
                                                                 ("warranty/ace", "2026-01-09")]


def test_extraction_is_deterministic() -> None:
    turns = (("user", "I booked a flight to Tokyo on Feb 20 with JAL, confirmation ABC123."),
             ("assistant", "Your return is March 2 at 5:10 PM."), ("user", "My passport expires March 5, 2025."),
             ("user", "Actually it's the 12th."))
    runs = [json.dumps([f.__dict__ for f in RuleExtractor().extract(session(*turns), user_only=False)],
                       default=str, sort_keys=True) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


# --- negatives -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm going to call the bank tomorrow.",
        "I visited my mom last weekend.",
        "Japan requires six months of passport validity.",
        "My Visa card ends in 4432.",
        "The 4K TV was on sale.",
    ],
)
def test_no_typed_facts(sentence: str) -> None:
    assert typed(("user", sentence)) == []


def test_thinking_about_a_trip_is_not_booked() -> None:
    [trip] = typed(("user", "Thinking about Tokyo for a trip in April, haven't booked anything."))
    assert trip.fields["booking_status"] == "planned"


def test_the_assistants_travel_talk_is_not_a_trip() -> None:
    assert typed(("assistant", "Many travelers visit Kyoto in April for the cherry blossoms.")) == []


@pytest.mark.parametrize("text", ["a 4K TV for $1,200", "the 30K service is due", "my 30K-mile service",
                                  "streams in 8K video"])
def test_resolutions_and_mileage_are_not_money(text: str) -> None:
    assert recognize(text, TS).amounts_usd == ([1200.0] if "$" in text else [])


def test_places_lookup() -> None:
    assert country_of("Tokyo") == "Japan" and country_of("tokyo ") == "Japan" and country_of("Atlantis") is None
    assert find_place("flying to New York on Monday") == ("New York", "United States")


# --- end to end: chat alone raises the passport alert ------------------------------------

CHAT = {"sessions": [
    {"session_id": "passport-office", "timestamp": "2025-01-06T10:00:00", "metadata": {"business": "Passport Office"},
     "messages": [{"role": "user", "content": "Hi! Quick question about my US passport."},
                  {"role": "assistant", "content": "Sure, what would you like to know?"},
                  {"role": "user", "content": "It expires on March 5, 2025. Is that a problem?"}]},
    {"session_id": "airline", "timestamp": "2025-01-10T09:00:00", "metadata": {"business": "Delta Air Lines"},
     "messages": [{"role": "user", "content": "I just booked a flight to Tokyo on February 20."},
                  {"role": "assistant", "content": "Great, your confirmation number is DL7QX2."},
                  {"role": "user", "content": "I come back on March 2."}]},
]}


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")  # a warm mypy cache


@pytest.mark.slow  # a full checkpoint (mypy, import) and the constraints: several seconds
def test_chat_alone_raises_passport_valid_for_trips(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT), encoding="utf-8")
    mem.ingest_transcript("traveller", path)
    report = mem.checkpoint_and_alert("traveller", datetime(2025, 1, 12))
    assert report.alerts is not None
    [alert] = [a for a in report.alerts.raised if a.constraint == "passport_valid_for_trips"]
    assert alert.severity == "warning" and "Tokyo return (expiry 2025-03-05)" in alert.message
    ns = mem.namespace("traveller")
    [trip] = ns["trips"]
    assert (trip.country, trip.booking_status, trip.confirmation, trip.return_date.isoformat()) == \
        ("Japan", "booked", "DL7QX2", "2025-03-02")

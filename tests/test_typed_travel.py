"""Trips and travel documents from conversation, by phrasing family: booking state, cities
to countries, dates in many forms, carriers and codes, questions and plans that book
nothing, other people's documents, and sessions that refer back to an earlier session's
trip or warranty (`factlog.typed.prior`)."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.extract import RuleExtractor
from factlog.model import JsonValue, NewFact
from factlog.transcripts import Message, Session
from factlog.typed import Context, read_sentence
from factlog.typed.prior import Prior
from runtime.memory import Memory

TS = datetime(2026, 2, 10, 12, 0)  # a Tuesday


def read(*sentences: str, at: datetime = TS, prior: Prior | None = None) -> list[dict[str, JsonValue]]:
    """The typed fields of each fact the user's sentences state, in one session."""
    context = Context(at, prior=prior or Prior())
    out = []
    for sentence in sentences:
        out += [{"fact": f.kind, "key": f.key, **f.fields} for f in read_sentence(sentence, context)]
    return out


def trips(*sentences: str, at: datetime = TS, prior: Prior | None = None) -> list[dict[str, JsonValue]]:
    return [f for f in read(*sentences, at=at, prior=prior) if f["fact"] == "trip"]


def sessions(*turns: list[tuple[str, str]], business: str | None = None) -> list[list[NewFact]]:
    """Each session's typed facts, the sessions read in order by one extractor."""
    extractor = RuleExtractor()
    out = []
    for n, messages in enumerate(turns):
        session = Session(f"s{n + 1}", datetime(2026, 1, 5 + 10 * n, 9),
                          [Message(role, text, i) for i, (role, text) in enumerate(messages)],
                          {"business": business} if business else {})
        out.append([f for f in extractor.extract(session, user_only=False) if f.kind is not None])
    return out


# --- booking state -----------------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "I booked a flight to Amsterdam for March 3.",
    "Flights to Amsterdam are confirmed for March 3.",
    "Got our tickets to Amsterdam, we leave March 3!",
    "Just bought plane tickets to Amsterdam, March 3.",
    "Amsterdam is locked in: March 3.",
])
def test_booked_phrasings(sentence: str) -> None:
    [trip] = trips(sentence)
    assert trip["destination"] == "Amsterdam" and trip["country"] == "Netherlands"
    assert trip["booking_status"] == "booked" and trip["departure_date"] == "2026-03-03"


@pytest.mark.parametrize("sentence", [
    "I'm thinking about a trip to Lisbon in May.",
    "We might fly to Lisbon in May.",
    "Looking at flights to Lisbon for May.",
    "Maybe a trip to Lisbon in May, haven't booked anything.",
    "Considering a trip to Lisbon, nothing booked yet.",
    "would love to visit Lisbon someday",
])
def test_planned_phrasings(sentence: str) -> None:
    [trip] = trips(sentence)
    assert trip["destination"] == "Lisbon" and trip["booking_status"] == "planned"


def test_a_cancelled_trip_and_a_cancelled_leg_that_was_rebooked() -> None:
    assert trips("We had to cancel our trip to Rome.")[0]["booking_status"] == "cancelled"
    [moved] = trips("I booked Rome for March 3.", "They cancelled my return flight and moved me to the 12th.")[1:]
    assert "booking_status" not in moved and moved["return_date"] == "2026-03-12"


def test_a_named_place_then_only_the_plan() -> None:
    assert trips("how long is the flight to tokyo from lax") == []
    [trip] = trips("how long is the flight to tokyo from lax", "thinking about going in april maybe")
    assert trip == {**trip, "destination": "Tokyo", "country": "Japan", "booking_status": "planned"}


@pytest.mark.parametrize("sentence", [
    "How long is the flight to Tokyo?",
    "how long is the flight to Tokyo on March 3",
    "What's the weather like in Paris in April?",
    "Is it expensive to fly to Rome on May 2?",
    "Do I need a visa to travel to Vietnam?",
    "I travel to Asia twice a year for work.",
    "My coworker just came back from Phuket.",
    "I'm going to be late on March 3.",
])
def test_questions_habits_and_others_trips_book_nothing(sentence: str) -> None:
    assert trips(sentence) == []


# --- cities, countries, carriers ---------------------------------------------------------


@pytest.mark.parametrize(("sentence", "place", "country", "carrier"), [
    ("Booked KLM to Amsterdam for March 3.", "Amsterdam", "Netherlands", "KLM"),
    ("Booked Qantas to Sydney, out March 3.", "Sydney", "Australia", "Qantas"),
    ("EgyptAir to Cairo, booked for March 3.", "Cairo", "Egypt", "EgyptAir"),
    ("Booked Royal Air Maroc to Marrakech on March 3.", "Marrakech", "Morocco", "Royal Air Maroc"),
    ("I'm on UA 837 to Tokyo on March 3, booked.", "Tokyo", "Japan", "United"),
    ("Booked TAP Air Portugal into Lisbon on March 3 and home from Porto on the 14th.", "Lisbon", "Portugal",
     "TAP Air Portugal"),
])
def test_cities_countries_and_carriers(sentence: str, place: str, country: str, carrier: str) -> None:
    [trip] = trips(sentence)
    assert (trip["destination"], trip["country"], trip["carrier"]) == (place, country, carrier)


def test_a_domestic_trip_is_marked_so_unless_the_passport_is_foreign() -> None:
    assert trips("Booked a flight to Honolulu for March 3.")[0]["is_international"] is False
    assert "is_international" not in trips("Booked a flight to Paris for March 3.")[0]
    korean = Prior()
    korean.add(1, "passport", "passport", {"country": "South Korea"})
    assert "is_international" not in trips("Booked a flight to Honolulu for March 3.", prior=korean)[0]


# --- dates in many forms -----------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "going", "back"), [
    ("Booked Paris, out the 3rd back the 17th.", "2026-03-03", "2026-03-17"),
    ("Booked Paris from 6/3 to 6/17.", "2026-06-03", "2026-06-17"),
    ("Booked Paris, two weeks starting June 3.", "2026-06-03", "2026-06-17"),
    ("Booked Paris June 10 to 24.", "2026-06-10", "2026-06-24"),
    ("Booked Paris March 3-9.", "2026-03-03", "2026-03-09"),
    ("Booked a flight to Paris leaving March 3 for ten days.", "2026-03-03", "2026-03-13"),
    ("Booked Paris Dec 20, back Jan 6.", "2026-12-20", "2027-01-06"),
    ("Booked Paris in two weeks, back on the 27th.", "2026-02-24", "2026-02-27"),
])
def test_dates_in_many_forms(sentence: str, going: str, back: str) -> None:
    [trip] = trips(sentence)
    assert (trip["departure_date"], trip["return_date"]) == (going, back)


def test_a_return_given_alone_follows_the_departure() -> None:
    [first, second] = trips("Booked Paris for March 28.", "Back on the 9th.")
    assert first["departure_date"] == "2026-03-28" and second["return_date"] == "2026-04-09"


def test_a_bound_is_no_cost_and_a_price_is() -> None:
    assert "cost_usd" not in trips("Looking at flights to Lisbon, they were over $1,600.")[0]
    assert trips("Booked Lisbon for March 3, the flights cost $1,145.")[0]["cost_usd"] == 1145.0


# --- codes and read-backs ----------------------------------------------------------------


def test_codes_from_the_user_and_from_the_assistant() -> None:
    [booked, code] = sessions([("user", "Booked Bangkok on Thai Airways, July 7 to July 21."),
                               ("assistant", "What's your booking reference?"), ("user", "It's TG44RX.")])[0]
    assert booked.key == code.key == "bangkok" and code.fields["confirmation"] == "TG44RX"
    [_, read_back] = sessions([("user", "Booked Bangkok on Thai Airways, July 7 to July 21."),
                               ("assistant", "Saved: your confirmation number is TG44RX.")])[0]
    assert read_back.fields["confirmation"] == "TG44RX" and read_back.fields["speaker"] == "assistant"


# --- later sessions refer back -------------------------------------------------------------


def booked(**fields: JsonValue) -> Prior:
    prior = Prior()
    prior.add(1, "trip", "sydney", {"destination": "Sydney", "country": "Australia", "carrier": "Qantas",
                                    "departure_date": "2026-02-20", "return_date": "2026-03-12",
                                    "booking_status": "booked", "confirmation": "QF7Z3W", **fields})
    return prior


@pytest.mark.parametrize("sentences", [
    ("Qantas moved my return to March 22.",),
    ("Ugh, Qantas emailed.", "New return is March 22."),
    ("QF7Z3W: return is now March 22.",),
    ("My friend in Melbourne wants me to stay, so I moved my return to March 22.",),
    ("I changed my return flight to March 22.",),
])
def test_a_moved_return_updates_the_booked_trip(sentences: tuple[str, ...]) -> None:
    found = trips(*sentences, at=datetime(2026, 1, 20), prior=booked())
    assert found and all(f["key"] == "sydney" for f in found)
    assert found[-1]["return_date"] == "2026-03-22" and "destination" not in found[-1]


def test_pushed_back_a_week_counts_from_the_known_return() -> None:
    [trip] = trips("I pushed my return back exactly one week.", at=datetime(2026, 1, 20), prior=booked())
    assert trip["key"] == "sydney" and trip["return_date"] == "2026-03-19"
    [trip] = trips("We extended the trip by three days.", at=datetime(2026, 1, 20), prior=booked())
    assert trip["return_date"] == "2026-03-15"


@pytest.mark.parametrize(("sentences", "prior"), [
    (("New return is March 22.",), booked(booking_status="cancelled")),  # a cancelled trip is not meant
    (("New return is March 22.",), booked(return_date="2026-01-02")),  # a trip that is over
    (("I booked Melbourne for March 22.",), booked()),  # a new trip in the same country, no change named
    (("The weather in Sydney is lovely.",), booked()),
])
def test_no_earlier_trip_is_meant(sentences: tuple[str, ...], prior: Prior) -> None:
    assert all(f["key"] != "sydney" for f in trips(*sentences, at=datetime(2026, 1, 20), prior=prior))


def test_two_trips_ahead_and_no_name_is_ambiguous() -> None:
    prior = booked()
    prior.add(2, "trip", "tokyo", {"destination": "Tokyo", "country": "Japan", "booking_status": "booked",
                                   "departure_date": "2026-04-01", "return_date": "2026-04-10"})
    assert trips("New return is March 22.", at=datetime(2026, 1, 20), prior=prior) == []


# --- documents -----------------------------------------------------------------------------


def documents(*sentences: str, prior: Prior | None = None) -> list[dict[str, JsonValue]]:
    return [f for f in read(*sentences, prior=prior) if f["fact"] in ("document", "passport")]


def test_a_family_members_passport_keeps_holder_and_the_users_own_is_the_users() -> None:
    [son, mine] = documents("My son Daniel's passport expires on 9 April 2026.",
                            "Mine is valid until 3 May 2033.")
    # whose: the relation (subject, and the key, as the labels write it), named by the holder
    assert son == {**son, "fact": "document", "key": "passport/son", "holder": "Daniel", "subject": "son",
                   "kind": "passport", "expiry_date": "2026-04-09"}
    assert mine == {**mine, "fact": "passport", "key": "passport", "expiry_date": "2033-05-03", "subject": "user"}


@pytest.mark.parametrize(("sentence", "start", "end"), [
    ("My Egypt e-visa is valid from 1 March until 30 March.", "2026-03-01", "2026-03-30"),
    ("My Egypt visa: valid 3/1 to 3/30.", "2026-03-01", "2026-03-30"),
    ("Egyptian visa approved, good from March 1 through March 30.", "2026-03-01", "2026-03-30"),
])
def test_visa_validity(sentence: str, start: str, end: str) -> None:
    [visa] = documents(sentence)
    assert (visa["kind"], visa["country"], visa["start_date"], visa["expiry_date"]) == ("visa", "Egypt", start, end)


def test_the_business_on_the_line_states_the_users_policy() -> None:
    [policy, dates] = sessions([("user", "Hi, I bought a plan on your website."),
                                ("assistant", "I can see the Essential plan, policy number SW-30718842."),
                                ("assistant", "Your coverage starts June 3, 2026 and ends June 14, 2026.")],
                               business="SafetyWing")[0]
    assert policy.fields["number"] == "SW-30718842"
    assert (dates.fields["start_date"], dates.fields["expiry_date"]) == ("2026-06-03", "2026-06-14")
    assert dates.key == policy.key and dates.fields["provider"] == "SafetyWing"


def test_without_a_business_the_assistants_general_advice_is_no_policy() -> None:
    assert sessions([("user", "Should I get travel insurance?"),
                     ("assistant", "A policy usually covers cancellation; it starts June 3 if you buy now.")])[0] == []


@pytest.mark.parametrize(("sentence", "item", "provider", "expiry"), [
    ("save this: bought the LG OLED TV 3/14/24 at costco, 2 yr warranty from LG", "LG OLED TV", "LG", "2026-03-14"),
    ("I bought a Samsung washer on May 5, 2025. It has a one-year warranty from Samsung.", "Samsung washer",
     "Samsung", "2026-05-05"),
    ("I bought a Dyson V15 vacuum on 2 February 2024. It carries Dyson's one-year warranty.", "Dyson V15 vacuum",
     "Dyson", "2025-02-02"),
])
def test_warranty_from_purchase_and_term(sentence: str, item: str, provider: str, expiry: str) -> None:
    sentences = [part.strip() + "." for part in sentence.split(". ") if part.strip()] if ". " in sentence else [sentence]
    warranty = documents(*sentences)[-1]
    assert (warranty["item"], warranty["provider"], warranty["expiry_date"]) == (item, provider, expiry)


def test_an_extended_warranty_is_its_own_entity() -> None:
    found = documents("I bought a Dyson V15 vacuum on 2 February 2024.",
                      "It carries Dyson's one-year warranty, and I also purchased a two-year extended warranty "
                      "from SquareTrade.")
    assert {f["provider"]: f["expiry_date"] for f in found} == {"Dyson": "2025-02-02", "SquareTrade": "2026-02-02"}


def test_an_unqualified_warranty_is_the_one_an_earlier_session_stated() -> None:
    prior = Prior()
    prior.add(1, "document", "warranty/whirlpool", {"kind": "warranty", "item": "Whirlpool refrigerator",
                                                    "provider": "Whirlpool", "expiry_date": "2027-04-02"})
    prior.add(2, "document", "warranty/bosch", {"kind": "warranty", "item": "Bosch dishwasher", "provider": "Bosch"})
    [found] = documents("The ice maker on the Whirlpool stopped.", "Your warranty runs to April 2, 2027.",
                        prior=prior)
    assert found["key"] == "warranty/whirlpool"


def test_a_booking_reference_after_insurance_talk_is_the_trips() -> None:
    found = read("Booked Marrakech on Royal Air Maroc, June 12 to June 26.",
                 "My travel insurance covers those dates, it ends June 30.", "Booking reference is AT7RB5.")
    assert found[-1]["fact"] == "trip" and found[-1]["confirmation"] == "AT7RB5"
    assert all("number" not in f for f in found if f["fact"] == "document")


def test_this_year_and_next_year() -> None:
    [passport] = documents("My passport runs out on the 2nd of August this year.")
    assert passport["expiry_date"] == "2026-08-02"
    [passport] = documents("My passport expires March 3 next year.")
    assert passport["expiry_date"] == "2027-03-03"


def test_later_sessions_see_the_earlier_ones_in_one_transcript() -> None:
    first, second = sessions([("user", "Booked Sydney on Qantas, Feb 20 to March 12. Confirmation QF7Z3W.")],
                             [("user", "Qantas moved my return to March 22.")])
    assert {f.key for f in first} == {"sydney"}
    [moved] = second
    assert moved.key == "sydney" and moved.fields["return_date"] == "2026-03-22"


# --- whose, and what names a warranty --------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "My husband is flying to London for work, March 3 to March 10, British Airways.",
    "Noted: your husband's British Airways trip to London, March 3 to March 10.",
    "My daughter Emma's flight to London leaves March 3.",
])
def test_someone_elses_trip_keeps_its_traveller(sentence: str) -> None:
    assert all(f["subject"] != "user" for f in trips(sentence))


def test_a_date_is_no_companion_and_a_bare_code_after_code_is_the_booking() -> None:
    [trip] = trips("I buy the ticket to Lima! LATAM, I go 15 February and I come back 10 March. Code LA9XW2.")
    assert trip["key"] == "lima" and trip["confirmation"] == "LA9XW2"
    assert trips("Booked Lima, promo code SAVE20 worked.")[0].get("confirmation") is None


@pytest.mark.parametrize(("sentences", "expected"), [
    (("AppleCare+ on my MacBook Air runs out June 30, 2026.",),
     {"item": "MacBook Air", "provider": "AppleCare", "expiry_date": "2026-06-30"}),
    (("I purchased a Sony soundbar on January 18, 2025.",
      "It includes a one-year Sony warranty, and I added a three-year protection plan from Best Buy."),
     {"item": "Sony soundbar", "provider": "Best Buy", "expiry_date": "2028-01-18"}),
])
def test_what_names_a_warranty(sentences: tuple[str, ...], expected: dict[str, JsonValue]) -> None:
    warranty = documents(*sentences)[-1]
    assert warranty == {**warranty, **expected}


def test_a_warranty_bought_at_a_store_is_the_makers() -> None:
    [warranty] = documents("I bought a Bosch dishwasher at Costco on May 2, 2025, with a 2-year Bosch warranty.")
    assert warranty["provider"] == "Bosch" and warranty["expiry_date"] == "2027-05-02"


def test_the_assistant_naming_a_relations_passport_is_not_the_users() -> None:
    found = documents("Noted: your daughter's passport expires on July 2, 2026.")
    assert found and all(f["fact"] == "document" and f["holder"] == "daughter" for f in found)


def test_her_passport_is_the_person_named_before_and_never_the_users() -> None:
    [passport] = documents("My daughter Sofia is going to Paris with her school.", "Her passport expires on April 1.")
    assert passport == {**passport, "fact": "document", "holder": "Sofia", "expiry_date": "2026-04-01"}
    assert documents("Her passport expires on April 1.") == []  # whose, nothing says


def test_a_name_a_city_also_has_is_still_a_name_before_a_passport_or_a_trip() -> None:
    [passport] = documents("Noted: Sofia's passport expires on April 1, 2026.")
    assert passport["fact"] == "document" and passport["holder"] == "Sofia"
    assert trips("My daughter Sofia is flying to Paris on March 3.")[0]["subject"] == "Sofia"


def test_an_eta_is_a_visa_and_a_booking_after_it_is_the_trips() -> None:
    found = read("My Kenya eTA is approved, it's good from July 1 to August 1.",
                 "Booked Kenya Airways to Nairobi, July 10 to July 24, reference KQ2ZF6.")
    visa = [f for f in found if f["fact"] == "document"]
    assert visa and all(f["expiry_date"] == "2026-08-01" and "number" not in f for f in visa)
    assert [f["confirmation"] for f in found if f["fact"] == "trip"] == ["KQ2ZF6"]


def test_a_later_session_extending_the_trip_by_days() -> None:
    first, second = sessions([("user", "Booked Kenya Airways to Nairobi, July 10 to July 24, reference KQ2ZF6.")],
                             [("user", "The safari company offered more, so I extended my trip by ten days.")])
    assert second and second[-1].key == "nairobi" and second[-1].fields["return_date"] == "2026-08-03"


# --- the prior across ingests --------------------------------------------------------------


def test_separate_ingests_see_the_stored_trip_and_a_forgotten_user_starts_again(mem: Memory) -> None:
    mem.ingest_conversation("ana", {"session_id": "s1", "timestamp": "2026-01-05T09:00:00", "messages": [
        {"role": "user", "content": "Booked Sydney on Qantas, Feb 20 to March 12. Confirmation QF7Z3W."}]})
    moved = {"session_id": "s2", "timestamp": "2026-01-25T09:00:00", "messages": [
        {"role": "user", "content": "Qantas moved my return to March 22."}]}
    [fact] = [f for f in mem.ingest_conversation("ana", moved).facts if f.kind == "trip"]
    assert fact.key == "sydney" and fact.fields["return_date"] == "2026-03-22"
    mem.forget("ana")
    again = mem.ingest_conversation("ana", moved).facts
    assert again and [f for f in again if f.kind == "trip"] == []  # stored as a note: no trip to move


SYDNEY = {"session_id": "s1", "timestamp": "2026-01-05T09:00:00", "messages": [
    {"role": "user", "content": "Booked Sydney on Qantas, Feb 20 to March 12. Confirmation QF7Z3W."}]}
MOVED = {"session_id": "s2", "timestamp": "2026-01-25T09:00:00", "messages": [
    {"role": "user", "content": "Qantas moved my return to March 22."}]}
CHAT = {"session_id": "s0", "timestamp": "2026-01-04T09:00:00", "messages": [  # more facts than SYDNEY + MOVED
    {"role": "user", "content": line} for line in (
        "I like oolong tea.", "My cat is called Miso.", "I live near the river.", "I play chess on Sundays.",
        "My favourite colour is green.", "I am learning Portuguese.", "I run three times a week.")]}


def moved_trips(mem: Memory) -> list[str | None]:
    """The trips "Qantas moved my return" updates (read again each time: `again`)."""
    return [f.key for f in mem.ingest_conversation("ana", MOVED, again=True).facts if f.kind == "trip"]


def test_a_retracted_trip_is_no_longer_there_to_move(mem: Memory) -> None:
    mem.ingest_conversation("ana", SYDNEY)
    assert moved_trips(mem) == ["sydney"]  # the prior is now kept for ana, with the moved return
    for fact in [f for f in mem.log("ana") if f.kind == "trip"]:
        mem.retract("ana", fact.id, "not my trip")
    assert moved_trips(mem) == []


def test_a_user_forgotten_then_written_again_starts_from_nothing(mem: Memory) -> None:
    mem.ingest_conversation("ana", SYDNEY)
    assert moved_trips(mem) == ["sydney"]
    mem.forget("ana")
    mem.ingest_conversation("ana", CHAT)  # new facts after the forget: the log is longer than before
    assert moved_trips(mem) == []


def test_a_forget_by_another_process_is_seen(mem: Memory) -> None:
    mem.ingest_conversation("ana", SYDNEY)
    assert moved_trips(mem) == ["sydney"]
    other = Memory.open(mem.workspace.home)
    try:
        other.forget("ana")
        other.ingest_conversation("ana", CHAT)
    finally:
        other.close()
    assert moved_trips(mem) == []


@pytest.mark.parametrize(("sentence", "companion"), [
    ("My wife and I booked a flight to Rome for March 3.", "wife"),
    ("Booked Rome for March 3 with my son Leo.", "Leo"),
    ("Booked flights for me and my daughter to Paris, March 3.", "daughter"),
    ("I have now booked a holiday to Rome for Emma and myself, March 3.", "Emma"),
])
def test_who_travels_along_gets_the_trip_too(sentence: str, companion: str) -> None:
    assert {f["subject"] for f in trips(sentence)} == {"user", companion}


@pytest.mark.parametrize("sentence", [
    "Booked Southwest to Denver, July 25 to August 3, staying with my aunt.",
    "Booked Rome March 3, no wait, I mixed it up with my sister's dates.",
    "Flying to Miami June 13 for my cousin's wedding.",
    "I booked Rome for March 3 and my husband is staying home.",
    "I booked a flight to Rome on March 3 to visit my sister.",
])
def test_relations_named_but_not_travelling(sentence: str) -> None:
    assert {f["subject"] for f in trips(sentence)} == {"user"}


def test_a_purchase_month_without_a_day_gives_the_earliest_expiry_and_no_purchase_day() -> None:
    [warranty] = documents("I bought my TV in March 2023 and it has a 2-year warranty.")
    assert warranty == {**warranty, "item": "TV", "expiry_date": "2025-03-01"} and "purchase_date" not in warranty


@pytest.mark.parametrize(("sentence", "expiry"), [
    ("passport exp. 2026-05-04", "2026-05-04"),
    ("My passport is up for renewal on June 3rd.", "2026-06-03"),
    ("I renewed my passport last week; the new one expires in 2036, on March 5.", "2036-03-05"),
    ("The passport I have now is valid until 12 May 2026.", "2026-05-12"),
])
def test_passport_expiry_phrasings(sentence: str, expiry: str) -> None:
    [passport] = documents(sentence)
    assert passport["fact"] == "passport" and passport["expiry_date"] == expiry


def test_a_relation_who_booked_travels_unless_they_booked_for_the_user() -> None:
    assert trips("My sister booked a trip to Bali for June 3.")[0]["subject"] == "sister"
    assert trips("My sister booked me a flight to Bali for June 3.")[0]["subject"] == "user"


@pytest.mark.parametrize("sentence", [
    "Is my passport still valid for a trip to Mexico on April 3?",
    "Does my visa cover March 20?",
    "Please charge it to my Visa ending 2087, it renews on February 3.",
])
def test_questions_and_cards_state_no_document(sentence: str) -> None:
    assert documents(sentence) == []


def test_renewals_and_the_assistant_stating_the_users_flight() -> None:
    [car] = documents("My car insurance renews on April 1.")
    assert car == {**car, "kind": "insurance", "item": "car", "expiry_date": "2026-04-01"}
    context = Context(TS, speaker="assistant")
    [flight] = read_sentence("Your flight to Tokyo departs at 10:05 AM on March 3.", context)
    assert flight.fields["departure_time"] == "10:05" and flight.fields["speaker"] == "assistant"
    assert read_sentence("If a flight to Paris is delayed, you may be owed compensation.",
                         Context(TS, speaker="assistant")) == []


@pytest.mark.parametrize(("turns", "leg", "day"), [
    ([("user", "I booked a flight to Tokyo."), ("assistant", "When do you leave?"), ("user", "The 3rd.")],
     "departure_date", "2026-02-03"),  # the next 3rd after the session (January 5)
    ([("user", "I booked a flight to Tokyo."), ("assistant", "When are you coming back?"), ("user", "On March 12.")],
     "return_date", "2026-03-12"),
])
def test_a_bare_date_answering_when_is_the_trips(turns: list[tuple[str, str]], leg: str, day: str) -> None:
    [named, answered] = sessions(turns)[0]
    assert answered.key == named.key == "tokyo" and answered.fields[leg] == day


@pytest.mark.parametrize(("sentences", "item", "provider"), [
    (("The Samsung fridge we bought on 6/1/2024 came with a 1-year warranty.",), "Samsung fridge", "Samsung"),
    (("I bought a Bosch dishwasher on May 2, 2025.", "It has a one-year warranty."), "Bosch dishwasher", "Bosch"),
])
def test_a_branded_items_warranty_is_the_brands(sentences: tuple[str, ...], item: str, provider: str) -> None:
    warranty = documents(*sentences)[-1]
    assert (warranty["item"], warranty["provider"]) == (item, provider)


def test_no_brand_is_guessed_from_a_product_name_or_a_store() -> None:
    assert "provider" not in documents("I bought a MacBook Air on May 2, 2025.", "It has a one-year warranty.")[-1]
    assert "provider" not in documents("I bought a dishwasher at Costco on May 2, 2025, 2-year warranty.")[-1]


@pytest.mark.parametrize("sentence", [
    "We cancelled the Japan trip, work got crazy.",
    "Sadly we are not going to Tokyo anymore.",
    "The Tokyo trip is off.",
])
def test_a_later_session_cancelling_the_trip_cancels_that_trip(sentence: str) -> None:
    _, later = sessions([("user", "Booked Tokyo on ANA, March 3 to March 12. Confirmation NH7QX2.")],
                        [("user", sentence)])
    assert [(f.key, f.fields["booking_status"]) for f in later] == [("tokyo", "cancelled")]


def test_a_new_trip_in_the_same_country_is_its_own() -> None:
    _, later = sessions([("user", "Booked Tokyo on ANA, March 3 to March 12. Confirmation NH7QX2.")],
                        [("user", "I also booked Osaka for May 3.")])
    assert [f.key for f in later] == ["osaka"]


@pytest.mark.parametrize("place", ["San Juan, Puerto Rico", "Maui", "the Outer Banks"])
def test_us_territories_and_holiday_places_are_domestic(place: str) -> None:
    [trip] = trips(f"Booked a flight to {place} for March 3.")
    assert trip["country"] == "United States" and trip["is_international"] is False


def test_an_old_passport_is_not_the_one_held_and_hers_is_hers() -> None:
    [new] = documents("My old passport expired on May 1, 2020.", "The new one is valid until March 2, 2032.")
    assert new == {**new, "fact": "passport", "expiry_date": "2032-03-02"}
    [emma] = documents("Emma needs a new passport; hers expires June 3.")
    assert emma == {**emma, "fact": "document", "holder": "Emma", "expiry_date": "2026-06-03"}


@pytest.mark.parametrize(("sentences", "start", "end"), [
    (("My travel insurance is through AIG and covers March 1-20.",), "2026-03-01", "2026-03-20"),
    (("My policy covers me from March 1 until March 20.",), "2026-03-01", "2026-03-20"),
    (("Travel insurance with Allianz covers Feb 3 - Feb 20.",), "2026-02-03", "2026-02-20"),
])
def test_insurance_coverage_phrasings(sentences: tuple[str, ...], start: str, end: str) -> None:
    [policy] = documents(*sentences)
    assert (policy["kind"], policy["start_date"], policy["expiry_date"]) == ("insurance", start, end)


def test_coverage_that_stops_is_its_end() -> None:
    [policy] = documents("My insurance coverage stops on March 31 when I leave my job.")
    assert policy["expiry_date"] == "2026-03-31"

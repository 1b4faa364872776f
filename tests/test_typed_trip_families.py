"""Trip phrasing families found by writing conversations cold (conversations_h-trip3.json),
each with phrasings that are not in that file (other voices, other orders) and must-not
cases: where the flight leaves from is no destination; the flight home is the return; an
accent does not split a trip; someone else travelling, said in the third person; an onward
leg lengthens the trip; a booking said before its place; companions from earlier sessions;
a past "X and I were in" is no companion; "might go back" is another trip; a rule's date
is no document's (`factlog.typed.stance.states_requirement`)."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.extract import RuleExtractor
from factlog.model import JsonValue, NewFact
from factlog.transcripts import Message, Session
from factlog.typed import Context, read_sentence
from factlog.typed.prior import Prior
from factlog.typed.stance import states_requirement

TS = datetime(2026, 2, 10, 12, 0)  # a Tuesday


def read(*sentences: str, speaker: str = "user") -> list[dict[str, JsonValue]]:
    context = Context(TS, prior=Prior())
    context.speaker = speaker
    out = []
    for sentence in sentences:
        out += [{"fact": f.kind, "key": f.key, **f.fields} for f in read_sentence(sentence, context)]
    return out


def trips(*sentences: str, speaker: str = "user") -> list[dict[str, JsonValue]]:
    return [f for f in read(*sentences, speaker=speaker) if f["fact"] == "trip"]


def sessions(*turns: list[tuple[str, str]]) -> list[list[NewFact]]:
    extractor = RuleExtractor()
    out = []
    for n, messages in enumerate(turns):
        session = Session(f"s{n + 1}", datetime(2026, 1, 5 + 10 * n, 9),
                          [Message(role, text, i) for i, (role, text) in enumerate(messages)], {})
        out.append([f for f in extractor.extract(session, user_only=False) if f.kind == "trip"])
    return out


# --- where the flight leaves from is not where the user goes ---------------------------------


@pytest.mark.parametrize(("sentence", "destination"), [
    ("KLM, Amsterdam to Nairobi, on March 3.", "Nairobi"),
    ("Booked Iberia Madrid to Lima for March 3.", "Lima"),
    ("I leave Chicago on March 3 and fly on to Rome.", "Rome"),
    ("flying out of Dallas march 3, landing in Cancun", "Cancun"),
    ("We leave Denver March 3 for a week in Reykjavik.", "Reykjavik"),
    ("Qantas Sydney -> Tokyo on 3 March, all booked.", "Tokyo"),
])
def test_the_origin_is_no_destination(sentence: str, destination: str) -> None:
    found = trips(sentence)
    assert found and {trip["destination"] for trip in found} == {destination}


def test_a_city_before_a_place_that_is_no_destination_stays() -> None:
    [trip] = trips("Booked Air France to Paris - March 3, back March 10.")
    assert trip["destination"] == "Paris"


# --- the flight home is the return ---------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "Air Canada moved our flight home to March 20.",
    "My trip home is on March 20.",
    "The way home is March 20, via Frankfurt.",
    "Updated: Lufthansa home from Berlin on March 20.",
    "she flies home March 20",
])
def test_the_flight_home_is_the_return(sentence: str) -> None:
    found = trips("I booked Lufthansa to Berlin, leaving March 3.", sentence)
    assert found[-1].get("return_date") == "2026-03-20" and found[-1].get("departure_date") != "2026-03-20"
    assert {trip["key"] for trip in found} == {"berlin"}


# --- an accent does not split a trip -------------------------------------------------------


@pytest.mark.parametrize(("first", "second"), [
    ("Cancun", "Cancún"), ("Cancún", "Cancun"), ("Zurich", "Zürich"), ("Bogota", "Bogotá"), ("Sao Paulo", "São Paulo"),
])
def test_one_trip_whatever_the_accents(first: str, second: str) -> None:
    found = trips(f"Booked United to {first} on March 3.", f"Saved: United to {second}, departing March 3.")
    assert len({trip["key"] for trip in found}) == 1


# --- someone else travels, said in the third person (named with their title, as every reader names them) ---------------------------------------


@pytest.mark.parametrize(("sentence", "who"), [
    ("Mrs Kaur flies to Delhi on 3 March.", "Mrs Kaur"),
    ("Dr. Patel's flight to Mumbai leaves at 9 on March 3.", "Dr Patel"),
    ("Mr Brown is travelling to Paris on the 3rd of March for the board.", "Mr Brown"),
    ("Ms. Lindqvist will be flying to Oslo on March 3.", "Ms Lindqvist"),
    ("Liam, my youngest, is off to Madrid on March 3 with the school.", "Liam"),
])
def test_a_third_person_traveller_keeps_the_trip(sentence: str, who: str) -> None:
    found = trips(sentence)
    assert found and all(trip["subject"] == who for trip in found)


def test_the_assistants_recap_naming_the_traveller() -> None:
    [trip] = trips("Saved: Mr Okafor, Delta from Atlanta to Rome, departing March 3.", speaker="assistant")
    assert trip["subject"] == "Mr Okafor" and trip["destination"] == "Rome"


@pytest.mark.parametrize("sentence", [
    "I'm flying with Mr Osei to Rome on March 3.",
    "Work is flying me to Denver on March 3.",
    "Meeting Dr Patel in Rome, my flight is March 3.",
    "I booked Rome for March 3 and Mr Osei said he'd pay.",
    "Paris, the city of light, here I come on March 3, flights booked!",
])
def test_the_user_still_travels(sentence: str) -> None:
    found = trips(sentence)
    assert found and all(trip["subject"] == "user" for trip in found if "/" not in str(trip["key"]))


# --- an onward leg lengthens the trip --------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "I go on from Rome to Florence on March 8 and fly home from Florence on March 12.",
    "Then two days in Florence after Rome, back March 12.",
    "We added Florence: flying on from Rome to Florence March 8, home March 12.",
    "Updated: from Rome on to Florence on 8 March, returning 12 March.",
    "Leaving Rome for Florence on March 8, and back home on March 12.",
])
def test_an_onward_leg_is_the_same_trip(sentence: str) -> None:
    found = trips("I booked Delta to Rome, March 3 to March 8.", sentence)
    assert {trip["key"] for trip in found} == {"rome"}
    assert found[-1]["return_date"] == "2026-03-12"
    assert all(trip.get("departure_date") in (None, "2026-03-03") for trip in found)


# --- a booking said before its place ---------------------------------------------------------


@pytest.mark.parametrize("first", [
    "We finally booked our honeymoon!",
    "Booked the trip this morning.",
    "ok trip is booked",
    "I've booked our anniversary trip, finally.",
    "We just booked the holiday.",
])
def test_a_booking_said_before_its_place(first: str) -> None:
    [trip] = trips(first, "Air France, Boston to Paris, sometime in June.")
    assert trip["destination"] == "Paris" and trip["booking_status"] == "booked"


def test_a_past_trip_books_nothing_ahead() -> None:
    [trip] = trips("We went on a trip last year.", "Air France to Paris in June, maybe.")
    assert trip.get("booking_status") != "booked"


# --- companions ------------------------------------------------------------------------------


def test_an_earlier_sessions_companion_follows_the_trip() -> None:
    first, second = sessions([("user", "Maria and I booked Delta to Lisbon for May.")],
                             [("user", "We leave May 8 and fly home May 20. Confirmation is DL4KQ2.")])
    assert {f.key for f in first} == {"lisbon", "lisbon/maria"}
    maria = [f for f in second if f.key == "lisbon/maria"]
    assert maria and any(f.fields.get("return_date") == "2026-05-20" for f in maria)


@pytest.mark.parametrize("sentence", [
    "I booked Aer Lingus to Dublin for May 14, and when Harold and I were in Rome in 2019 it rained.",
    "Booked Delta to Paris for May 14; Maria and I went to Paris years ago.",
    "Flight to Oslo booked for May 14, Sam and I flew there once before.",
    "Booked KLM to Amsterdam on May 14 - Priya and I visited it in 2018.",
    "Booked United to Tokyo May 14; Ana and I had been to Kyoto before.",
])
def test_a_past_companion_travels_on_no_new_trip(sentence: str) -> None:
    found = trips(sentence)
    assert found and all("/" not in str(trip["key"]) for trip in found)


def test_a_companion_of_a_plan_still_travels() -> None:
    found = trips("Gary and I were looking at Lima for March 10 to March 24, nothing booked.")
    assert {trip["key"] for trip in found} == {"lima", "lima/gary"}


# --- "might go back" is another trip -----------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "I might go back in September too.",
    "Maybe we'll go again next year.",
    "If it goes well I might do another trip in the autumn.",
    "Perhaps a second trip in October, who knows.",
    "thinking I might come back in the summer",
])
def test_a_maybe_later_trip_leaves_the_booked_one_booked(sentence: str) -> None:
    found = trips("Booked Qatar Airways to Delhi, 9 March to 23 March.", sentence)
    assert all(trip.get("booking_status") in (None, "booked") for trip in found if trip["key"] == "delhi")


# --- a rule's date is no document's ------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "Your passport would need to be valid until 5 September 2026.",
    "It must be valid for six months after you arrive, so until 5 September.",
    "Thailand requires a passport valid until at least 5 September 2026.",
    "The passport has to remain valid until September 5.",
    "Your visa needs to be valid through September 5, 2026.",
])
def test_a_requirement_states_no_expiry(sentence: str) -> None:
    assert states_requirement(sentence)
    facts = read("My passport is valid until 20 July 2026.", sentence, speaker="user")
    expiries = {f.get("expiry_date") for f in facts if f["fact"] in ("passport", "document")}
    assert expiries == {"2026-07-20"}


@pytest.mark.parametrize("sentence", [
    "My passport is valid until 20 July 2026.",
    "The visa is valid from 1 March to 30 March.",
    "Passport valid till 2031, no worries.",
    "It's still valid until July.",
    "Her passport, valid until June 3, is in the drawer.",
])
def test_a_validity_stated_is_no_requirement(sentence: str) -> None:
    assert not states_requirement(sentence)


# --- pasted itineraries: airport codes, "04 MAR 10:15", legs --------------------------------


def test_every_airport_city_is_a_known_place() -> None:
    from factlog.typed.airports import CITIES
    from factlog.typed.places import country_of

    assert [code for code, city in CITIES.items() if country_of(city) is None] == []


@pytest.mark.parametrize(("lines", "expected"), [
    (["Depart: 14 MAR 09:40 LHR -> NRT JL044", "Return: 28 MAR 11:05 NRT -> LHR JL043"],
     {"destination": "Tokyo", "country": "Japan", "departure_date": "2026-03-14", "departure_time": "09:40",
      "return_date": "2026-03-28", "carrier": "Japan Airlines"}),
    (["OUTBOUND 02APR 18:25 JFK-CDG AF007", "INBOUND 09APR 10:30 CDG-JFK AF008"],
     {"destination": "Paris", "departure_date": "2026-04-02", "return_date": "2026-04-09"}),
    (["Flight 1: 5 MAY 07:00 BOS to DUB EI138", "Flight 2: 19 MAY 16:10 DUB to BOS EI139"],
     {"destination": "Dublin", "departure_date": "2026-05-05", "return_date": "2026-05-19"}),
    (["Seg 1 12MAR 22:15 SFO/ICN KE026", "Seg 2 13MAR 09:00 ICN/HAN KE681", "Seg 3 30MAR 23:50 HAN/ICN KE684",
      "Seg 4 31MAR 10:00 ICN/SFO KE025"],
     {"destination": "Hanoi", "country": "Vietnam", "departure_date": "2026-03-12", "return_date": "2026-03-30"}),
    (["Seg 1 12MAR 22:15 SFO/ICN KE026", "Seg 2 16MAR 09:00 ICN/HAN KE681", "Seg 3 30MAR 23:50 HAN/SFO KE684"],
     {"destination": "Seoul", "departure_date": "2026-03-12", "return_date": "2026-03-30"}),
    (["Leg 1: 15APR 13:40 YVR-PVG AC027", "Leg 2: 18APR 08:00 PVG-CAN CZ3524", "Leg 3: 27APR 17:35 CAN-YVR CZ329"],
     {"destination": "Shanghai", "departure_date": "2026-04-15", "departure_time": "13:40",
      "return_date": "2026-04-27"}),
])
def test_a_pasted_itinerary_is_one_trip(lines: list[str], expected: dict[str, JsonValue]) -> None:
    found = trips(*lines)
    assert len({trip["key"] for trip in found}) == 1
    merged: dict[str, JsonValue] = {}
    for trip in found:
        merged.update(trip)
    assert {name: merged.get(name) for name in expected} == expected


@pytest.mark.parametrize("sentence", [
    "CAN you SIN-gle me out?",
    "The MAN from DEL Monte says yes",
    "Our team is LHR-based now.",
    "Call me at 9 re: the ABC - XYZ merger.",
    "PTO approved: MON-FRI next week.",
])
def test_capital_words_are_no_route(sentence: str) -> None:
    assert trips(sentence) == []


# --- when the booking was made is no day of the trip ------------------------------------------


@pytest.mark.parametrize("sentence", [
    "Dad booked the flights today, we fly to Hanoi on March 14.",
    "I bought the tickets yesterday: Delta to Hanoi, March 14.",
    "booked it this morning!! hanoi march 14",
    "We reserved the seats last night, Hanoi on the 14th of March.",
    "Paid for the Hanoi flights just now, leaving March 14.",
])
def test_the_booking_day_is_no_departure(sentence: str) -> None:
    found = trips(sentence)
    assert found and all(trip.get("departure_date") in (None, "2026-03-14") for trip in found)
    assert any(trip.get("departure_date") == "2026-03-14" for trip in found)


# --- one document read across a pasted form and its recap --------------------------------------


def documents(*turns: tuple[str, str]) -> list[dict[str, JsonValue]]:
    context = Context(TS, prior=Prior())
    out = []
    for speaker, sentence in turns:
        context.speaker = speaker
        out += [{"fact": f.kind, "key": f.key, **f.fields} for f in read_sentence(sentence, context)
                if f.kind == "document"]
    return out


@pytest.mark.parametrize("turns", [
    [("user", "My visa is valid until 2026-04-25."), ("assistant", "Saved: China M visa, valid until 25 April 2026.")],
    [("user", "Visa valid from: 2026-04-10"), ("assistant", "Noted: your India e-visa, valid from 10 April 2026.")],
    [("user", "got my visa, good till may 30"), ("assistant", "Noted: Vietnam e-visa valid until May 30, 2026.")],
    [("user", "The insurance runs 18 jun - 3 jul."),
     ("assistant", "Noted: World Nomads travel insurance, 18 June to 3 July 2026.")],
    [("user", "insurance covers 1 May to 20 May"), ("assistant", "Saved: Allianz travel insurance, May 1 to May 20, 2026.")],
])
def test_a_recap_of_the_document_just_read_is_the_same_document(turns: list[tuple[str, str]]) -> None:
    found = documents(*turns)
    assert found and len({doc["key"] for doc in found}) == 1


def test_a_different_policy_after_a_bare_one_stays_apart() -> None:
    found = documents(("user", "The insurance runs 18 jun - 3 jul."),
                      ("user", "My car insurance with GEICO renews on 1 September 2026."))
    assert len({doc["key"] for doc in found}) == 2


# --- travel told as done is no trip ahead ------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "I was in Rome last year and loved it.",
    "We went to Paris in 2019 for our anniversary.",
    "I just got back from Lisbon, exhausted.",
    "When I lived in Berlin I flew Lufthansa a lot.",
    "We spent two weeks in Tokyo back in 2022.",
])
def test_a_past_trip_is_no_trip(sentence: str) -> None:
    assert trips(sentence) == []


@pytest.mark.parametrize("sentence", [
    "I flew to Lisbon yesterday and fly home on March 3.",
    "We went ahead and booked Rome for March 3.",
    "Visited the travel agent and booked Lisbon, March 3 to March 10.",
    "Flew in to Boston last night, my flight to Rome is on March 3.",
    "I was in two minds but booked Paris for March 3.",
])
def test_a_trip_ahead_beside_a_past_verb_stays(sentence: str) -> None:
    assert trips(sentence)


# --- the return flight's end is home ------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "My return flight to Boston is on March 12.",
    "Flying home to Chicago on the 12th.",
    "The flight back to New York leaves at 10:00 on March 12.",
    "returning to Toronto march 12",
    "Back into Denver on March 12, late.",
])
def test_the_return_flights_end_is_no_destination(sentence: str) -> None:
    found = trips("I booked Delta to Rome for March 3.", sentence)
    assert {trip["key"] for trip in found} == {"rome"} and found[-1].get("return_date") == "2026-03-12"


# --- someone said by pronoun ----------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "He flies to Lagos on March 4.",
    "She's off to Rome on March 4.",
    "They are flying to Denver on March 4.",
    "and he is heading to Madrid on March 4",
    "She leaves for Oslo on March 4.",
])
def test_a_pronouns_trip_is_not_the_users(sentence: str) -> None:
    assert all(trip["subject"] != "user" for trip in trips(sentence))
    found = trips("My husband has a work trip.", sentence)
    assert all(trip["subject"] != "user" for trip in found)


# --- a weekday said alone ----------------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "going", "back"), [
    ("My boss is flying to Chicago on Monday.", "2026-02-16", None),
    ("I fly to Rome on Friday and back on Tuesday.", "2026-02-13", "2026-02-17"),
    ("Flying out Thursday to Denver, returning Sunday.", "2026-02-12", "2026-02-15"),
    ("Booked Madrid, leaving Wednesday.", "2026-02-11", None),
    ("I fly to Rome next Friday.", "2026-02-20", None),
])
def test_a_weekday_alone_is_the_next_one(sentence: str, going: str, back: str | None) -> None:
    [trip] = [t for t in trips(sentence) if "/" not in str(t["key"])]
    assert trip["departure_date"] == going and trip.get("return_date") == back


def test_a_weekly_habit_names_no_day() -> None:
    assert all("departure_date" not in trip for trip in trips("I fly to Rome on Mondays."))


# --- a purpose said as someone's birthday by number ----------------------------------------------


@pytest.mark.parametrize(("sentence", "purpose"), [
    ("I booked Aer Lingus to Dublin for my sister Maureen's 80th, leaving May 14.", "Maureen's 80th"),  # by the name
    ("Flights to Rome booked for my dad's 70th birthday, May 14.", "dad's 70th birthday"),
    ("Booked Lisbon for my cousin's 40th on May 14.", "cousin's 40th"),
    ("Booked Rome for the 3rd of May.", None),
    ("Booked Rome for May 14th.", None),
])
def test_a_numbered_birthday_is_the_purpose(sentence: str, purpose: str | None) -> None:
    [trip] = [t for t in trips(sentence) if "/" not in str(t["key"])]
    assert trip.get("purpose") == purpose


def test_a_maybe_later_trip_is_its_own_planned_trip() -> None:
    found = trips("Booked Qatar Airways to Delhi, 9 March to 23 March.", "I might go back in September too.")
    assert {(t["key"], t.get("booking_status")) for t in found} == {("delhi", "booked"), ("india (again)", "planned")}


@pytest.mark.parametrize(("sentence", "who"), [
    ("My manager flies to Singapore on March 3.", "manager"),
    ("Our CEO is flying to Tokyo on March 3.", "ceo"),
    ("my client is heading to Madrid on March 3", "client"),
    ("My supervisor will be travelling to Oslo on March 3.", "supervisor"),
    ("My business partner leaves for Lisbon on March 3.", "business partner"),
])
def test_a_work_relation_travels(sentence: str, who: str) -> None:
    found = trips(sentence)
    assert found and all(trip["subject"] == who for trip in found)


@pytest.mark.parametrize("sentence", [
    "I'll be in Paris for a conference March 3 to 6.",
    "I will be in Lisbon from March 3 to March 6 for work.",
    "we'll be in Tokyo March 3-6",
])
def test_being_somewhere_on_days_is_a_trip(sentence: str) -> None:
    [trip] = trips(sentence)
    assert trip["departure_date"] == "2026-03-03" and trip["return_date"] == "2026-03-06"


@pytest.mark.parametrize("sentence", [
    "I'll be in meetings all day March 3.",
    "I'll be in touch on March 3.",
])
def test_being_in_no_place_is_no_trip(sentence: str) -> None:
    assert trips(sentence) == []


# --- "his passport" after someone named by title -------------------------------------------------


@pytest.mark.parametrize(("first", "holder"), [
    ("I look after Mr Osei's diary and travel.", "Mr Osei"),
    ("I'm Ms Lund's assistant.", "Ms Lund"),
    ("Dr. Patel asked me to sort her travel.", "Dr Patel"),
    ("Booking everything for Mrs Kaur this week.", "Mrs Kaur"),
    ("Mr Smith-Jones is our CEO.", "Mr Smith-Jones"),
])
def test_a_pronouns_passport_is_the_titled_persons(first: str, holder: str) -> None:
    found = [f for f in read(first, "Their passport expires on 9 March 2027.") if f["fact"] == "document"]
    found += [f for f in read(first, "His passport expires on 9 March 2027.") if f["fact"] == "document"]
    assert found and all(f["holder"] == holder and f["expiry_date"] == "2027-03-09" for f in found)


def test_a_pronouns_passport_with_nobody_named_is_nobodys() -> None:
    assert [f for f in read("His passport expires on 9 March 2027.") if f["fact"] in ("document", "passport")] == []


# --- a later session about the trip an earlier one booked -----------------------------------------


@pytest.mark.parametrize("later", [
    "Dates are March 3 to March 10, confirmation DL8KQ2.",
    "We leave March 3 and come back March 10.",
    "March 3 to March 10 it is.",
    "ok dates: march 3 - march 10",
    "Leaving March 3, back March 10.",
])
def test_the_dates_of_the_one_undated_trip(later: str) -> None:
    first, second = sessions([("user", "Booked Delta to Rome for March.")], [("user", later)])
    assert {f.key for f in second} == {"rome"}
    assert any(f.fields.get("departure_date") == "2026-03-03" for f in second)


def test_dates_with_two_trips_ahead_go_nowhere_unsaid() -> None:
    _, second = sessions([("user", "Booked Delta to Rome for March. Booked United to Oslo for May.")],
                         [("user", "Dates are March 3 to March 10.")])
    assert second == []


@pytest.mark.parametrize("later", [
    "Her return got pushed to March 12.",
    "His flight home moved to March 12.",
    "their return is now March 12",
    "They changed her return to March 12.",
    "Her flight back is March 12 now.",
])
def test_someone_elses_trip_changed_later(later: str) -> None:
    _, second = sessions([("user", "My daughter Emma is flying to Paris on March 3, back March 10.")],
                         [("user", later)])
    assert second and all(f.key == "paris" and f.fields["subject"] == "daughter" for f in second)
    assert second[-1].fields.get("return_date") == "2026-03-12"


@pytest.mark.parametrize("later", [
    "Actually we're not going anymore, refund came through.",
    "We're no longer going, work got in the way.",
    "Trip is off.",
    "We ended up cancelling the trip.",
    "I cancelled it this morning.",
])
def test_the_one_trip_ahead_cancelled_later(later: str) -> None:
    _, second = sessions([("user", "Booked Delta to Rome, March 3 to March 10.")], [("user", later)])
    assert second and second[-1].fields.get("booking_status") == "cancelled"


@pytest.mark.parametrize("sentence", [
    "My sister lives in Mexico City and I might visit her in the fall.",
    "Flights to New York and I still need a hotel.",
    "I booked Panama City and I'm so excited, March 3.",
    "Booked Hong Kong and I fly on March 3.",
    "Cape Town and I have unfinished business, flying March 3.",
])
def test_the_end_of_a_place_name_is_no_companion(sentence: str) -> None:
    assert all("/" not in str(trip["key"]) for trip in trips(sentence))


def test_an_old_trips_companion_does_not_follow_a_new_trip_there() -> None:
    first, second = sessions([("user", "Maria and I flew to Lisbon, 2 Jan to 4 Jan, booked.")],
                             [("user", "Booked TAP to Lisbon for June 3, just me.")])
    assert all("/" not in str(f.key) for f in second)


@pytest.mark.parametrize("later", ["Daniel Osei's passport expires on 9 March 2027.",
                                   "Osei's passport expires on 9 March 2027."])
def test_a_person_named_with_a_title_keeps_it_however_named_later(later: str) -> None:
    found = [f for f in read("I look after Mr Osei's diary and travel.", later) if f["fact"] == "document"]
    assert found and all(f["holder"] == f["subject"] == "Mr Osei" for f in found)
    # a different surname is someone else
    other = [f for f in read("I look after Mr Osei's diary.", "Daniel Mensah's passport expires on 9 March 2027.")
             if f["fact"] == "document"]
    assert all(f["holder"] != "Mr Osei" for f in other)


@pytest.mark.parametrize(("sentence", "purpose"), [
    ("Flying to Toronto on Oct 16 for a site visit.", "site visit"),
    ("I'm off to Edinburgh on March 13 for a client audit.", "client audit"),
    ("Flying to Austin on May 2 for the product launch.", "product launch"),
    ("Booked Denver for the 3rd, for a launch party.", "launch party"),
    ("Heading to Lisbon on May 2 for my cousin's christening.", "cousin's christening"),
    ("We fly to Leeds on June 4 for the plant inspection.", "plant inspection"),
])
def test_what_a_trip_is_for(sentence: str, purpose: str) -> None:
    [trip] = trips(sentence)
    assert trip["purpose"] == purpose


@pytest.mark.parametrize("sentence", [
    "Flying to Rome on May 2 for a week.", "Flying to Rome on May 2 for the weekend.",
    "Flying to Rome on May 2 for 300 dollars.",
])
def test_a_length_or_a_price_is_no_purpose(sentence: str) -> None:
    assert all("purpose" not in trip for trip in trips(sentence))

"""Whose fact it is, across readers: families of phrasings (several voices each, and what must
NOT be taken as someone else's or as the user's). The relation vocabulary is
`factlog.relations`; the shared subject rules `factlog.typed.common.whose` / `named_owner`."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.transcripts import Message, Session

NOW = datetime(2026, 3, 2, 10, 0)
Turn = tuple[str, str]  # (role, text)


def typed(*sessions: list[Turn]) -> list[list[tuple[str, dict[str, JsonValue]]]]:
    """(kind, fields) of the typed facts of each session, read in order with one extractor (so
    later sessions know the earlier ones)."""
    extractor = RuleExtractor()
    out = []
    for number, turns in enumerate(sessions):
        messages = [Message(role, text, i) for i, (role, text) in enumerate(turns)]
        stamp = NOW.replace(day=NOW.day + number)
        facts = extractor.extract(Session(f"s{number + 1}", stamp, messages), user_only=False)
        out.append([(str(f.kind), dict(f.fields)) for f in facts if f.kind is not None])
    return out


def of_kind(kind: str, *turns: Turn) -> list[dict[str, JsonValue]]:
    return [fields for k, fields in typed(list(turns))[0] if k == kind]


def relatives(*turns: Turn) -> dict[str, dict[str, JsonValue]]:
    found: dict[str, dict[str, JsonValue]] = {}
    for fields in of_kind("relative", *turns):
        found.setdefault(str(fields.get("name", fields["relationship"])), {}).update(fields)
    return found


U, A = "user", "assistant"


# -- naming relatives ---------------------------------------------------------------------

@pytest.mark.parametrize("turns, name, fields", [
    ([(U, "Anna is my wife.")], "Anna", {"relationship": "wife"}),
    ([(U, "Oh and Priya's my sister-in-law, she's coming too.")], "Priya", {"relationship": "sister-in-law"}),
    ([(U, "i booked it for me and tom. tom is my hubby lol")], "Tom", {"relationship": "husband"}),
    ([(U, "my sis lily is allergic to everything")], "Lily", {"relationship": "sister"}),
    ([(U, "my bro marcus turned 19 yesterday")], "Marcus", {"relationship": "brother", "age": 19}),
    ([(U, "my nan dot is 90 next week")], "Dot", {"relationship": "grandmother"}),
    ([(U, "Our daughter Chloe (she's 14) needs a passport.")], "Chloe", {"relationship": "daughter", "age": 14}),
    ([(U, "My son Mateo, he has 6 years, goes to school now.")], "Mateo", {"relationship": "son", "age": 6}),
    ([(U, "My stepson Jake - he's 12 - lives with us.")], "Jake", {"relationship": "stepson", "age": 12}),
    ([(A, "Noted: your father takes warfarin. What's his name, for the record?"), (U, "Seamus. He's 81.")],
     "Seamus", {"relationship": "father", "age": 81}),
    ([(A, "Got it, your mum's on the list. What is her name?"), (U, "It's Margaret.")],
     "Margaret", {"relationship": "mother"}),
    ([(A, "And what's your daughter's name?"), (U, "Ava.")], "Ava", {"relationship": "daughter"}),
    ([(A, "Is Tomas your son?"), (U, "Yes, my son, he's 12.")], "Tomas", {"relationship": "son", "age": 12}),
    ([(A, "Is Grace your granddaughter?"), (U, "Yes, she is.")], "Grace", {"relationship": "granddaughter"}),
    ([(U, "My daughter Sofia is flying to Rome.")], "Sofia", {"relationship": "daughter"}),  # a city's name
    ([(U, "Our son Austin starts school in May.")], "Austin", {"relationship": "son"}),
    ([(U, "my son Ben (9) and my daughter Maya (5) both have colds")], "Maya", {"relationship": "daughter", "age": 5}),
    ([(U, "Ruby (she's 7) can't have penicillin."), (A, "Noted: Ruby, your daughter, is allergic to penicillin.")],
     "Ruby", {"relationship": "daughter", "age": 7}),  # the relation said after the age, by the assistant
])
def test_relatives_are_named_in_many_ways(turns: list[Turn], name: str, fields: dict[str, JsonValue]) -> None:
    found = relatives(*turns)
    assert name in found, found
    assert {k: found[name][k] for k in fields} == fields


@pytest.mark.parametrize("turns", [
    [(U, "Me, my husband Marc and the kids are going.")],  # "Me" is no one's name
    [(U, "my mom says hi")],  # "says" is no name
    [(U, "my brother just got back")],
    [(U, "my daughter and i are flying")],
    [(A, "What's his name?"), (U, "Thanks.")],
    [(A, "Noted. Anything else?"), (U, "Seamus.")],  # no name was asked for
    [(U, "Hello, my father asked me to pay the hostel fees.")],  # a greeting is no name
    [(U, "The school of my daughter, Brightwood Academy, wants the deposit.")],  # an institution
    [(U, "Her carer, Joy, my mum's carer really, comes on Tuesdays.")],  # the mother's carer, not the mother
    [(A, "Is Tomas your son?"), (U, "No, my nephew.")],
])
def test_no_relative_is_made_up(turns: list[Turn]) -> None:
    found = relatives(*turns)
    assert [n for n in found if n in ("Me", "Says", "Just", "And", "Thanks", "Seamus", "Hello", "Brightwood")] == []
    assert all(f.get("relationship") != "mother" for f in found.values())
    assert all(f.get("relationship") != "son" for n, f in found.items() if n == "Tomas")


# -- a family member said bare, as a name -------------------------------------------------

@pytest.mark.parametrize("turns, kind, subject", [
    ([(U, "Da has a chest infection, the doctor gave him clarithromycin 500 mg twice a day.")],
     "medication", "father"),
    ([(U, "Mam is on warfarin 3 mg every evening.")], "medication", "mother"),
    ([(U, "Nan takes amlodipine 5mg every morning.")], "medication", "grandmother"),
    ([(U, "Mum's passport expires on 3 June 2026.")], "document", "mother"),
    ([(U, "my passport is fine. moms runs out june 3 2026 tho")], "document", "mother"),
])
def test_bare_family_words_own_their_facts(turns: list[Turn], kind: str, subject: str) -> None:
    facts = of_kind(kind, *turns)
    assert facts and facts[-1]["subject"] == subject, facts


# -- titled names (an assistant speaking for the boss) ---------------------------------------

@pytest.mark.parametrize("turns, kind, subject", [
    ([(U, "Mr Osei takes lisinopril 20 mg each morning.")], "medication", "Mr Osei"),
    ([(U, "Mrs Patel was prescribed atorvastatin 20 mg at night.")], "medication", "Mrs Patel"),
    ([(U, "Ms Lee flies to Chicago on March 20, back March 24.")], "trip", "Ms Lee"),
    ([(U, "Mr. Okafor is flying to London on April 2 and returns April 9.")], "trip", "Mr. Okafor"),
    ([(U, "Dr Kim gave me amoxicillin 500 mg three times a day.")], "medication", "user"),  # a doctor, not the taker
])
def test_titled_names_are_someone_else(turns: list[Turn], kind: str, subject: str) -> None:
    facts = of_kind(kind, *turns)
    assert facts and facts[0]["subject"] == subject, facts


# -- a named relative owns what they have, in this session and the next -------------------

def test_a_named_relative_owns_a_subscription_across_sessions() -> None:
    first, second = typed([(U, "Dana (my wife) has the Peloton app, 12.99 a month.")],
                          [(U, "Dana says she's cancelling her Peloton before it renews on the 20th.")])
    assert [f["subject"] for k, f in first if k == "subscription"] == ["wife"]
    assert [f["subject"] for k, f in second if k == "subscription"] == ["wife"]


@pytest.mark.parametrize("sentence, subject", [
    ("Tom, my husband, pays $80 a month for Spotify family.", "husband"),
    ("Netflix is $15.49 a month.", "user"),  # a company is no person
    ("I pay $12 a month for Spotify.", "user"),
])
def test_named_owners_of_money(sentence: str, subject: str) -> None:
    facts = of_kind("subscription", (U, sentence))
    assert facts and facts[0]["subject"] == subject, facts


def test_a_name_known_from_an_earlier_session_is_that_relative() -> None:
    _, second = typed([(U, "My daughter Ava is 9.")], [(U, "Ava's passport expires on May 2, 2026.")])
    passports = [f for k, f in second if k == "document"]
    assert passports and passports[0]["subject"] == "daughter" and passports[0]["holder"] == "Ava"


# -- another person's document with its noun left out ------------------------------------

@pytest.mark.parametrize("turns, subject, expiry", [
    ([(U, "My passport expires on 17 August 2029."), (U, "My wife's expires on 3 June 2026.")], "wife", "2026-06-03"),
    ([(A, "Your passport is valid until August 17, 2029. Your mom's expires June 3, 2026.")], "mother", "2026-06-03"),
    ([(U, "My passport is good till 2031-03-11."), (U, "Chloe's runs out on October 2, 2026.")], "Chloe", "2026-10-02"),
])
def test_an_elided_document_of_someone_else(turns: list[Turn], subject: str, expiry: str) -> None:
    others = [f for f in of_kind("document", *turns) if f.get("kind") == "passport"]
    assert others and others[-1]["subject"] == subject and others[-1]["expiry_date"] == expiry, others
    mine = of_kind("passport", *turns)
    assert all(f.get("expiry_date") != expiry for f in mine), mine


def test_mine_after_someone_elses_stays_the_users() -> None:
    facts = typed([(U, "My son's passport expires on May 1, 2026."), (U, "Mine is valid until 2033-01-09.")])[0]
    assert ("passport", "2033-01-09") in [(k, f.get("expiry_date")) for k, f in facts]


# -- the user with someone, and the assistant's "you" ---------------------------------------

@pytest.mark.parametrize("sentence", [
    "My husband Sipho and I started salsa classes every Thursday 18:30 to 20:00.",
    "Sipho and I have salsa every Thursday 18:30 to 20:00.",
    "Me and my wife do pottery on Thursdays from 6 to 8pm.",
    "We both go to choir every Thursday at 7pm.",
])
def test_what_the_user_does_with_someone_is_the_users(sentence: str) -> None:
    events = of_kind("event", (U, sentence))
    assert events and events[0]["subject"] == "user", events


def test_my_husbands_own_class_stays_his() -> None:
    events = of_kind("event", (U, "My husband Sipho has karate every Thursday 18:30 to 20:00."))
    assert events and events[0]["subject"] == "husband"


@pytest.mark.parametrize("said", [
    "Noted for you: ibuprofen 400 mg three times a day, March 2-4, 2026.",
    "Noted: you start ibuprofen 400 mg three times a day from March 3.",
    "Got it - your ibuprofen is 400 mg three times a day until March 4.",
])
def test_the_assistant_noting_something_for_you_is_the_users(said: str) -> None:
    facts = of_kind("medication", (U, "My son Leo is on amoxicillin 250 mg twice a day."),
                    (U, "My dentist has me on ibuprofen for three days."), (A, said))
    mine = [f for f in facts if f["name"] == "ibuprofen"]
    assert mine and all(f.get("subject", "user") == "user" and f.get("person") in (None, "user") for f in mine)


# -- who travels ------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence, subject", [
    ("Harold's off to Leeds on Tuesday the 7th of April, coming home on the Friday.", "Harold"),
    ("Mum is flying to Delhi on April 7, back April 21.", "mother"),
    ("Priya flies to Chicago on April 7 and returns April 10.", "Priya"),
    ("United flies to Denver at 7am on April 7.", "user"),  # an airline, not a person
    ("We fly to Rome on April 7, back April 14.", "user"),
    ("Work is sending me to Austin on April 7.", "user"),
])
def test_who_travels(sentence: str, subject: str) -> None:
    trips = of_kind("trip", (U, sentence))
    assert trips and trips[0]["subject"] == subject, trips


def test_a_companions_own_change_leaves_the_users_trip() -> None:
    trips = of_kind("trip", (U, "I fly with my colleague Jonas to Hanoi on March 5, back March 20."),
                    (U, "Jonas comes only the first week, he flies back on March 13."))
    users = [f for f in trips if f["subject"] == "user"]
    jonas = [f for f in trips if f["subject"] == "Jonas"]
    assert users and all(f.get("return_date") != "2026-03-13" for f in users)
    assert jonas and jonas[-1].get("return_date") == "2026-03-13"


# -- beside whose: what a second person's message names only by reference or in their language --

@pytest.mark.parametrize("later", [
    "Paid this one on Monday from the Zenith account 7710, ref AL-2207.",
    "Paid on the 1st, ref AL-2207.",
    "Paid on Monday - ref: AL2207.",
    "Paid in full yesterday from our Zenith account 7710 (ref AL-2207).",
    "We paid this one last week, ref al-2207.",
])
def test_a_payment_named_only_by_its_reference_is_that_invoices(later: str) -> None:
    first, second = typed([(U, "Please pay Adeyemi Logistics $8,400 for invoice AL-2207 from the operating account "
                                "ending 3391 by Thursday.")], [(U, later)])
    paid = [f for k, f in second if k == "payment"]
    assert paid and paid[0]["payee"] == "Adeyemi Logistics", second


def test_an_unknown_reference_names_no_payee() -> None:
    _, second = typed([(U, "Please pay Adeyemi Logistics $8,400 for invoice AL-2207 by Thursday.")],
                      [(U, "Paid this one on Monday, ref ZX-9100.")])
    assert [f for k, f in second if k == "payment"] == []


@pytest.mark.parametrize("sentence, name", [
    ("The pediatrician has given my son amoxicilina 5 ml two times in the day.", "amoxicillin"),
    ("Mi madre toma warfarina 3 mg every night.", "warfarin"),
    ("My husband takes sertralina 50 mg in the morning.", "sertraline"),
    ("The doctor gave me ibuprofeno 400 mg when I need.", "ibuprofen"),
    ("My father takes metformina 500 mg twice a day.", "metformin"),
])
def test_a_generic_said_in_spanish_or_italian(sentence: str, name: str) -> None:
    facts = of_kind("medication", (U, sentence))
    assert facts and facts[0]["name"] == name, facts


@pytest.mark.parametrize("sentence", ["Marina takes the bus to school.", "Cristina is my sister.",
                                      "Valentina and Carolina are coming."])
def test_names_ending_in_a_are_no_drugs(sentence: str) -> None:
    assert of_kind("medication", (U, sentence)) == []

"""People from conversation (`factlog.typed.people`): relatives, where the user lives,
loyalty programs and preferences, in many phrasings, and what must NOT be read as one."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.transcripts import Message, Session
from factlog.typed import Context, read_sentence

NOW = datetime(2025, 3, 1, 10, 0)
PEOPLE = ("relative", "profile", "loyalty_program", "preference")


def people(*sentences: str, speaker: str = "user") -> list[tuple[str, dict[str, JsonValue]]]:
    """The people facts of the sentences, said in one session, in order (speaker left out)."""
    context = Context(NOW)
    found = []
    for sentence in sentences:
        context.speaker = speaker
        for fact in read_sentence(sentence, context):
            if fact.kind in PEOPLE:
                found.append((fact.kind, {k: v for k, v in fact.fields.items() if k != "speaker"}))
    return found


def one(kind: str, *sentences: str, speaker: str = "user") -> dict[str, JsonValue]:
    found = [fields for k, fields in people(*sentences, speaker=speaker) if k == kind]
    assert len(found) >= 1, (kind, sentences, people(*sentences, speaker=speaker))
    merged: dict[str, JsonValue] = {}
    for fields in found:
        merged.update(fields)
    return merged


# -- relatives --------------------------------------------------------------------------------

@pytest.mark.parametrize("sentences, expected", [
    (["My daughter Maya is 12."], {"name": "Maya", "relationship": "daughter", "age": 12}),
    # a lower-case "name" is a name only where the whole sentence is typed in lower case (a texter)
    (["my daughter maya is twelve"], {"name": "Maya", "relationship": "daughter", "age": 12}),
    (["My daughter maya is twelve"], None),
    (["Our son, Leo, just turned nine."], {"name": "Leo", "relationship": "son", "age": 9}),
    (["my 12-year-old son Leo needs a passport"], {"name": "Leo", "relationship": "son", "age": 12}),
    (["My husband Tom's birthday is June 3."], {"name": "Tom", "relationship": "husband", "birthday": "06-03"}),
    (["Tom, my husband, was born on March 3, 1980."],
     {"name": "Tom", "relationship": "husband", "birth_date": "1980-03-03"}),
    (["My wife's name is Priya."], {"name": "Priya", "relationship": "wife"}),
    (["My mom Linda is coming with us."], {"name": "Linda", "relationship": "mother"}),
    (["Grandpa's visiting, my grandpa Joe that is."], {"name": "Joe", "relationship": "grandfather"}),
    (["My daughter Emma is coming.", "She is eleven."], {"name": "Emma", "relationship": "daughter", "age": 11}),
    (["My son Sam is coming.", "Sam is 7 years old."], {"name": "Sam", "relationship": "son", "age": 7}),
    (["My sister Ana lives in Porto.", "Her birthday is the 4th of May."],
     {"name": "Ana", "relationship": "sister", "birthday": "05-04"}),
    (["Jen (my wife) handles the bills."], {"name": "Jen", "relationship": "wife"}),
    (["my son Theo, he's nine, turns ten on October 2, is allergic to penicillin"],
     {"name": "Theo", "relationship": "son", "age": 9, "birthday": "10-02"}),
    (["If my daughter Maya were 12 she could fly alone."], {"name": "Maya", "relationship": "daughter"}),
])
def test_relatives(sentences: list[str], expected: dict[str, JsonValue] | None) -> None:
    found = [fields for kind, fields in people(*sentences) if kind == "relative"]
    if expected is None:
        assert found == []
        return
    merged: dict[str, JsonValue] = {}
    for fields in found:
        merged.update(fields)
    assert merged == {**expected, "subject": "user"}


def test_several_children_with_their_ages() -> None:
    found = people("My kids Ava (8) and Ben (5) are coming too.")
    assert found == [("relative", {"name": "Ava", "relationship": "child", "age": 8, "subject": "user"}),
                     ("relative", {"name": "Ben", "relationship": "child", "age": 5, "subject": "user"})]


def test_the_assistant_confirming_a_relative() -> None:
    assert one("relative", "Noted: your husband Mike started warfarin 5 mg.", speaker="assistant") == \
        {"name": "Mike", "relationship": "husband", "subject": "user"}


def test_a_pronoun_of_the_other_gender_is_not_the_relative() -> None:
    assert people("My son Leo is coming.", "She is eleven.") == \
        [("relative", {"name": "Leo", "relationship": "son", "subject": "user"})]


@pytest.mark.parametrize("sentences", [
    ["My friend's daughter Mia is 5."],
    ["My daughter's friend Sarah is 12."],
    ["My boss Jim is 50."],
    ["My colleague Dana turned 40."],
    ["My son is 7 minutes late."],
    ["My husband Tom is 6 feet tall."],
    ["The gate is 12."],
    ["My husband's birthday party is June 3."],
    ["She is eleven."],  # no relative in the session
    ["my daughter is vegan friendly"],
])
def test_not_relatives(sentences: list[str]) -> None:
    """No relative but the ones the sentence names with their relation, and no age or birthday."""
    found = [f for kind, f in people(*sentences) if kind == "relative"]
    assert all(f.get("name") in ("Tom", None) and "age" not in f and "birthday" not in f for f in found), found


def test_another_persons_age_is_not_the_relatives() -> None:
    assert people("My son Leo and his friend Max, who is 10, play soccer.") == \
        [("relative", {"name": "Leo", "relationship": "son", "subject": "user"})]


# -- where the user lives ---------------------------------------------------------------------

@pytest.mark.parametrize("sentence, city", [
    ("I am Korean but I live in Seattle, I have green card.", "Seattle"),
    ("We're based in Austin.", "Austin"),
    ("we just moved to Denver last year", "Denver"),
    ("I currently live in New York City with two cats.", "New York City"),
    ("I live in Boise.", "Boise"),
    ("I'm based out of Chicago these days.", "Chicago"),
    ("We live here in Phoenix.", "Phoenix"),
])
def test_home_city(sentence: str, city: str) -> None:
    assert one("profile", sentence) == {"home_city": city, "subject": "user"}


def test_the_assistant_repeating_where_the_user_lives() -> None:
    assert one("profile", "Noted: you live in Seattle.", speaker="assistant")["home_city"] == "Seattle"


@pytest.mark.parametrize("sentence", [
    "I used to live in Boston.", "I lived in Chicago for five years.", "My sister lives in Denver.",
    "We're thinking of moving to Austin.", "I'm moving to Austin next month.", "Do you live in Seattle?",
    "I live in a small town.", "If I lived in Paris I would walk everywhere.", "I don't live in Seattle anymore.",
    "We are moving to Lisbon in two months.",
])
def test_not_home_cities(sentence: str) -> None:
    assert [f for kind, f in people(sentence) if kind == "profile"] == []


# -- loyalty programs --------------------------------------------------------------------------

@pytest.mark.parametrize("sentence, expected", [
    ("My Delta SkyMiles number is 2284719033.", {"program": "SkyMiles", "provider": "Delta", "number": "2284719033"}),
    ("my frequent flyer number with United is AB123456",
     {"program": "MileagePlus", "provider": "United", "number": "AB123456"}),
    ("I'm Gold Medallion with Delta, member number 9911223344.",
     {"program": "SkyMiles", "provider": "Delta", "number": "9911223344", "tier": "Gold"}),
    ("I'm a Marriott Bonvoy member.", {"program": "Marriott Bonvoy", "provider": "Marriott"}),
    ("Hilton Honors: 4455667788.", {"program": "Hilton Honors", "provider": "Hilton", "number": "4455667788"}),
    ("Can you add my AAdvantage # 7GH2291 to the booking?",
     {"program": "AAdvantage", "provider": "American Airlines", "number": "7GH2291"}),
    ("I have Platinum status on Marriott Bonvoy.", {"program": "Marriott Bonvoy", "tier": "Platinum"}),
    ("I'm a United MileagePlus member, Premier Gold, number is XK449210.",
     {"program": "MileagePlus", "tier": "Premier Gold", "number": "XK449210"}),
])
def test_loyalty_programs(sentence: str, expected: dict[str, JsonValue]) -> None:
    found = one("loyalty_program", sentence)
    assert {k: found.get(k) for k in expected} == expected and found["subject"] == "user"


def test_someone_elses_program_keeps_its_subject() -> None:
    found = one("loyalty_program", "My wife's SkyMiles number is 3344556677.")
    assert (found["subject"], found["number"]) == ("wife", "3344556677")


def test_the_assistant_confirming_a_number() -> None:
    found = one("loyalty_program", "Your SkyMiles number 2284719033 is on the reservation.", speaker="assistant")
    assert found["number"] == "2284719033"


@pytest.mark.parametrize("sentence", [
    "I'm thinking of joining Hilton Honors.", "Should I sign up for SkyMiles?", "I have 80,000 SkyMiles.",
    "Is Marriott Bonvoy worth it?", "I flew Delta to Atlanta.", "My Amex Gold card is due on the 5th.",
    "I'm not a member of Hilton Honors.", "I earned 5,000 miles on that trip.",
])
def test_not_loyalty_programs(sentence: str) -> None:
    assert [f for kind, f in people(sentence) if kind == "loyalty_program"] == []


# -- preferences --------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence, expected", [
    ("I'm vegetarian.", {"topic": "diet", "value": "vegetarian"}),
    ("i am vegan", {"topic": "diet", "value": "vegan"}),
    ("im vegetarian lol", {"topic": "diet", "value": "vegetarian"}),
    ("We keep kosher.", {"topic": "diet", "value": "kosher"}),
    ("I prefer aisle seats.", {"topic": "seat", "value": "aisle"}),
    ("I always prefer the window.", {"topic": "seat", "value": "window"}),
    ("I'm an aisle person.", {"topic": "seat", "value": "aisle"}),
    ("I'm a window seat kind of person.", {"topic": "seat", "value": "window"}),
    ("I've been vegan since 2019.", {"topic": "diet", "value": "vegan"}),
    ("We eat vegetarian at home.", {"topic": "diet", "value": "vegetarian"}),
    ("I'd rather have the aisle on long flights.", {"topic": "seat", "value": "aisle", "condition": "long flights"}),
    ("I prefer a king bed.", {"topic": "bed", "value": "king"}),
    ("I always fly Delta.", {"topic": "airline", "value": "Delta"}),
    ("I prefer nonstop flights.", {"topic": "stops", "value": "nonstop"}),
    ("I prefer direct flights, even if they cost more.", {"topic": "stops", "value": "nonstop"}),
    ("I prefer morning flights.", {"topic": "flight time", "value": "morning"}),
    ("I prefer email over phone calls.", {"topic": "contact", "value": "email"}),
    ("The best way to reach me is text.", {"topic": "contact", "value": "text"}),
])
def test_preferences(sentence: str, expected: dict[str, JsonValue]) -> None:
    assert one("preference", sentence) == {**expected, "subject": "user"}


def test_a_relatives_preference_keeps_its_subject() -> None:
    assert one("preference", "My husband prefers the window on long flights.") == \
        {"topic": "seat", "value": "window", "condition": "long flights", "subject": "husband"}
    assert one("preference", "My daughter Emma is coming.", "She's vegetarian.")["subject"] == "daughter"
    assert one("preference", "Daniel prefers an aisle seat on long flights.")["subject"] == "Daniel"


def test_two_people_two_preferences_in_one_sentence() -> None:
    found = people("Daniel prefers an aisle seat on long flights; I prefer the window.")
    assert [(f["subject"], f["value"], f.get("condition")) for _, f in found] == \
        [("Daniel", "aisle", "long flights"), ("user", "window", None)]


def test_the_assistant_confirming_a_preference() -> None:
    assert one("preference", "Noted: you prefer aisle seats.", speaker="assistant") == \
        {"topic": "seat", "value": "aisle", "subject": "user"}


@pytest.mark.parametrize("sentence", [
    "I hate aisle seats.", "I don't like the window.", "Is the window seat free?", "Do you prefer aisle or window?",
    "The restaurant is vegan.", "Do you have vegetarian options?", "I'm thinking of going vegan.",
    "I was vegetarian for years.", "I got an aisle seat on the flight.", "If you prefer the aisle, book early.",
    "Many travelers prefer the aisle.", "I used to prefer window seats.", "The window was open.",
    "We ordered the vegan pizza.", "Chipotle is vegan.", "Nobu is vegan-friendly.",
])
def test_not_preferences(sentence: str) -> None:
    assert [f for kind, f in people(sentence) if kind == "preference"] == []


# -- through the extractor ----------------------------------------------------------------------

def test_a_session_gives_people_facts_with_their_provenance_and_keeps_the_trip_topic() -> None:
    session = Session("s1", NOW, [
        Message("user", "My daughter Emma and I fly to Cancun on June 3. She is eleven.", 0),
        Message("assistant", "Noted: Emma is eleven.", 1),
        Message("user", "Back on June 10. I'm vegetarian, by the way.", 2),
    ])
    facts = RuleExtractor().extract(session, user_only=False)
    kinds = [(f.kind, f.key) for f in facts if f.kind is not None]
    assert ("relative", "relative/emma") in kinds and ("preference", "preference/diet") in kinds
    [emma] = [f for f in facts if f.key == "relative/emma" and "age" in f.fields][:1]
    assert emma.fields["age"] == 11 and emma.provenance.session_id == "s1"
    trips = [f for f in facts if f.kind == "trip"]
    assert any(f.fields.get("return_date") == "2025-06-10" for f in trips)  # the trip is still the topic

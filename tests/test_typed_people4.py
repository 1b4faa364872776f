"""Whose fact it is, across categories (round 4, helper h-people4): relations of relations,
bracketed and list-line relations, a spouse named without the word, a neighbour the user looks
after, pronouns in a later session, a relative's own payment, companions listed by name.
None of these sentences is in conversations_h-people4.json."""

from __future__ import annotations

from datetime import datetime

import pytest
from typed_sessions import TS, extracted

from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.relations import composed, family_word, gendered, plural_word, same_subject
from factlog.transcripts import Message, Session

Fact = tuple[str | None, str | None, dict[str, JsonValue]]


def _facts(kinds: tuple[str, ...], *sessions: list[tuple[str, str]]) -> list[list[Fact]]:
    """Each session's facts of `kinds` (with subject), one extractor across the sessions."""
    extractor = RuleExtractor()
    out: list[list[Fact]] = []
    for number, turns in enumerate(sessions):
        session = Session(f"s{number + 1}", datetime(2026, 3, 2 + 7 * number, 10, 0),
                          [Message(role, text, i) for i, (role, text) in enumerate(turns)], {})
        out.append([(f.kind, f.key, {k: v for k, v in f.fields.items() if k != "speaker"})
                    for f in extractor.extract(session, user_only=False) if f.kind in kinds])
    return out


def _relatives(*turns: tuple[str, str]) -> dict[str, tuple[JsonValue, JsonValue]]:
    """name (or relation) -> (relationship, age) of the relatives the turns give."""
    found: dict[str, tuple[JsonValue, JsonValue]] = {}
    for _, key, fields in extracted(("relative",), *turns):
        found[str(key).removeprefix("relative/")] = (fields.get("relationship"), fields.get("age"))
    return found


# -- the vocabulary ---------------------------------------------------------------------------


@pytest.mark.parametrize("word, family", [
    ("ex-husband", "ex-husband"), ("ex husband", "ex-husband"), ("Ex-hubby", "ex-husband"), ("ex-wife", "ex-wife"),
    ("exwife", "ex-wife"), ("apo", "grandchild"), ("bairn", "child"), ("wean", "child"),
])
def test_new_family_words(word: str, family: str) -> None:
    assert family_word(word) == family


@pytest.mark.parametrize("word", ["exam", "ex-boss", "apology", "expert", "barn"])
def test_words_that_are_no_relation(word: str) -> None:
    assert family_word(word) is None


@pytest.mark.parametrize("outer, inner, want", [
    ("wife", "mum", "mother-in-law"), ("hubby", "sister", "sister-in-law"), ("daughter", "kids", "grandchild"),
    ("son", "wife", "daughter-in-law"), ("partner", "son", "stepson"), ("mum", "brother", "uncle"),
    ("brother", "daughter", "niece"), ("dad", "mother", "grandmother"), ("daughter", "bairns", "grandchild"),
])
def test_a_relation_of_a_relation(outer: str, inner: str, want: str) -> None:
    assert composed(outer, inner) == want


@pytest.mark.parametrize("outer, inner", [("friend", "brother"), ("boss", "wife"), ("mum", "partner"),
                                          ("cousin", "son"), ("wife", "friend")])
def test_no_one_word_for_it(outer: str, inner: str) -> None:
    assert composed(outer, inner) is None


def test_gendered_and_plurals() -> None:
    assert (gendered("grandchild", True), gendered("grandchild", False), gendered("child", True),
            gendered("aunt", False)) == ("granddaughter", "grandson", "daughter", "aunt")
    assert (plural_word("bairns"), plural_word("weans")) == ("child", "child")
    assert same_subject("ex-husband", "ex hubby") and not same_subject("ex-husband", "husband")


# -- relatives named through another relative ------------------------------------------------------


@pytest.mark.parametrize("text, name, relation", [
    ("My husband's sister Ngozi is coming for Easter.", "ngozi", "sister-in-law"),
    ("My son's wife Priya does his paperwork.", "priya", "daughter-in-law"),
    ("my mum's brother Frank is 80 this year", "frank", "uncle"),
    ("Our brother's daughter Aisha starts college in May.", "aisha", "niece"),
    ("My wife's dad Ken has had a fall.", "ken", "father-in-law"),
    ("My partner Sam and his son Theo moved in.", "theo", "stepson"),
])
def test_relative_of_a_relative(text: str, name: str, relation: str) -> None:
    assert _relatives(("user", text)).get(name, (None, None))[0] == relation


def test_a_relative_named_in_an_earlier_session_owns_the_next_relation() -> None:
    first, second = _facts(("relative",), [("user", "My partner Aroha is a nurse.")],
                           [("user", "Aroha's sister Mere is getting married in June.")])
    assert ("relative", "relative/mere", {"name": "Mere", "relationship": "sister-in-law", "subject": "user"}) \
        in second


def test_grandchildren_listed_after_a_childs_children() -> None:
    found = _relatives(("user", "My daughter Rosa's kids, Mateo and Lucia (4), stay with me on Fridays."))
    assert found["mateo"] == ("grandchild", None) and found["lucia"] == ("grandchild", 4)
    found = _relatives(("user", "These are my son Dan's boys: Alfie, he's ten, and Reggie."))
    assert found["alfie"] == ("grandson", 10)


@pytest.mark.parametrize("text", [
    "My friend's brother Dan fixed the boiler.",
    "My boss's wife Carol sent a card.",
    "His daughter Mia plays netball.",  # no relative said before: whose "his" is unknown
    "My neighbour's son Jack cuts the grass.",
    "Our landlord's daughter Amy collects the rent.",
])
def test_no_relative_through_a_non_relative(text: str) -> None:
    assert _relatives(("user", text)) == {}


# -- bracketed and listed relations, a spouse by "married", "me and wife" ---------------------------------


@pytest.mark.parametrize("text, name, relation, age", [
    ("Kwesi (husband) does the school run.", "kwesi", "husband", None),
    ("Ama (our daughter, 12) has a cough.", "ama", "daughter", 12),
    ("Pickup is Marcus (my ex-husband) on Fridays.", "marcus", "ex-husband", None),
    ("Joy (mother-in-law) lives with us.", "joy", "mother-in-law", None),
    ("Me and wife Siew Lan going Penang in May.", "siew lan", "wife", None),
])
def test_bracketed_relation(text: str, name: str, relation: str, age: int | None) -> None:
    assert _relatives(("user", text)).get(name) == (relation, age)


@pytest.mark.parametrize("text", [
    "Dr Lee (cardiology) wants bloods.", "Apex (our supplier) invoiced us.", "Saturday (my birthday) is free.",
    "Tom and I went to a wedding in May.", "Jenny and I are not married.",
])
def test_no_relative_in_brackets_or_without_marriage(text: str) -> None:
    assert not _relatives(("user", text))


@pytest.mark.parametrize("text, relation", [
    ("Harold and I have been married forty years. He does the garden.", "husband"),
    ("I'm married to Grace and she keeps the diary.", "wife"),
    ("Rohan and I got married last spring, his family came.", "husband"),
    ("Harold and I have been married for ages.", "spouse"),
])
def test_spouse_named_without_the_word(text: str, relation: str) -> None:
    found = _relatives(("user", text))
    assert len(found) == 1 and next(iter(found.values()))[0] == relation


# -- whose health fact it is ---------------------------------------------------------------------------


def _meds(*turns: tuple[str, str]) -> list[tuple[str, JsonValue, JsonValue]]:
    return [(str(fields.get("name")), fields.get("subject"), fields.get("person"))
            for _, _, fields in _facts(("medication",), list(turns))[0]]


@pytest.mark.parametrize("line, subject, person", [
    ("- Kwesi (husband): apixaban 5 mg twice a day", "husband", "Kwesi"),
    ("- me: lisinopril 10 mg", "user", None),
    ("Ama: amoxicillin 250 mg three times a day", "daughter", "Ama"),
])
def test_a_list_line_names_whose(line: str, subject: str, person: str | None) -> None:
    meds = _meds(("user", "Ama is my daughter and Kwesi is my husband."), ("user", line))
    assert meds and meds[0][1:] == (subject, person)


def test_my_name_is_the_spouse_once_married_is_said() -> None:
    meds = _meds(("user", "My Percy takes warfarin 3 mg at night. Percy and I have been married since 1970, he's 88."))
    assert meds[0][1:] == ("husband", "Percy")
    meds = _meds(("user", "My Honda needs a service. I take warfarin 3 mg at night."))
    assert meds[0][1:] == ("user", None)  # "my Honda" is nobody


@pytest.mark.parametrize("cares, taking", [
    ("I'm looking after Mrs Reid next door.", "She takes warfarin 5 mg."),
    ("I've been keeping an eye on old Joe Pike since the flood.", "He's on warfarin 5 mg."),
    ("I check in on Nora Fenn most days.", "She is on sertraline 50 mg."),
])
def test_someone_the_user_looks_after(cares: str, taking: str) -> None:
    meds = _meds(("user", cares), ("user", taking))
    assert meds and meds[0][1] not in ("user", None)


def test_a_pronoun_in_the_next_session_is_the_earlier_sessions_person() -> None:
    first, second = _facts(("medication",), [("user", "My dad Ivor takes apixaban 5 mg twice a day.")],
                           [("user", "Took him to the walk-in clinic, they put him on clarithromycin 500 mg.")])
    assert second and all(fields["subject"] == "father" and fields["person"] == "Ivor" for _, _, fields in second)
    _, mine = _facts(("medication",), [("user", "My dad Ivor takes apixaban 5 mg twice a day.")],
                     [("user", "I started clarithromycin 500 mg today.")])
    assert mine and mine[0][2]["subject"] == "user"  # the user's own, said in the first person


def test_a_first_name_is_the_full_name_given_before() -> None:
    first, second = _facts(("allergy", "medication"),
                           [("user", "I'm keeping an eye on Tom Pike next door. He's allergic to penicillin.")],
                           [("user", "Tom's on amoxicillin 500 mg three times a day now.")])
    assert first and first[0][2]["person"] == "Tom Pike"
    assert second and second[0][2]["person"] == "Tom Pike"


# -- events: the user coaching a relative's team is the user's time -----------------------------------


@pytest.mark.parametrize("text, subject", [
    ("I coach my son Leo's under-11s football every Saturday 9 to 10.", "user"),
    ("I've agreed to run my niece's scouts every Tuesday 6-7pm.", "user"),
    ("My son Leo has football every Saturday 9 to 10.", "son"),
])
def test_whose_event(text: str, subject: str) -> None:
    events = [fields for _, _, fields in _facts(("event",), [("user", text)])[0]]
    assert events and events[0]["subject"] == subject


# -- payments: a relative's own, "cancel mine" --------------------------------------------------------------


def test_a_relatives_own_payment_is_theirs() -> None:
    first, second = _facts(("payment",), [("user", "My sister-in-law Dana asked us to pay Reed Plumbing invoice "
                                                    "RP-448, $900, from our joint checking on Friday.")],
                           [("user", "Dana had already paid Reed Plumbing herself on Monday, invoice RP-448.")])
    assert second and second[0][2]["subject"] == "sister-in-law" and second[0][2]["status"] == "done"
    assert second[0][1] != first[0][1]
    _, mine = _facts(("payment",), [("user", "Pay Reed Plumbing invoice RP-448, $900, on Friday.")],
                     [("user", "My husband already paid Reed Plumbing invoice RP-448 from his own card.")])
    assert mine and mine[0][2]["subject"] == "husband" and mine[0][2]["requested_by"] == "husband"


def test_paid_from_the_joint_account_is_no_own_payment() -> None:
    _, second = _facts(("payment",), [("user", "Pay Reed Plumbing invoice RP-448, $900, on Friday.")],
                       [("user", "My wife paid Reed Plumbing invoice RP-448 from our joint account.")])
    assert all(fields["subject"] == "user" for _, _, fields in second)


def test_cancel_mine_after_another_paid() -> None:
    first, second = _facts(("payment",), [("user", "Pay Reed Plumbing invoice RP-448, $900, on Friday.")],
                           [("user", "My husband already paid Reed Plumbing invoice RP-448 from his own card."),
                            ("user", "So cancel mine.")])
    assert any(key == first[0][1] and fields["status"] == "cancelled" for _, key, fields in second)


# -- trips: companions listed by name, a flight from abroad --------------------------------------------------


def test_companions_listed_by_name() -> None:
    trips = extracted(("trip",), ("assistant", "Noted: you, Ruby and Sam fly to Lisbon on May 3, back May 10."),
                      ts=TS)
    assert {key for _, key, _ in trips} == {"lisbon", "lisbon/ruby", "lisbon/sam"}


def test_a_flight_from_abroad_to_the_home_country_is_international() -> None:
    trips = extracted(("trip",), ("user", "Booked: flying out of Manchester to Boston on June 2, back June 16."))
    assert trips and trips[0][2].get("is_international") is True
    trips = extracted(("trip",), ("user", "Booked: flying out of Denver to Boston on June 2, back June 16."))
    assert trips and trips[0][2].get("is_international") is not True


def test_a_pronoun_payer_is_the_relative_just_spoken_of() -> None:
    _, second = _facts(("payment",), [("user", "Pay Reed Plumbing invoice RP-448, $900, on Friday.")],
                       [("user", "My sister rang. She already paid Reed Plumbing invoice RP-448 yesterday, "
                                 "by transfer from her own account.")])
    assert second and second[0][2]["subject"] == "sister" and second[0][2]["requested_by"] == "sister"


def test_looking_after_someones_diary_is_no_one_looked_after() -> None:
    docs = _facts(("document",), [("user", "I look after Mr Osei's diary now. Daniel Osei, MD. His passport "
                                           "number is 533918274 and it expires on 9 March 2027.")])[0]
    assert docs and {key for _, key, _ in docs} == {"passport/osei"}


@pytest.mark.parametrize("text, want", [
    ("It's me and my two, Ruby 10 and Sam 7.", {"ruby": ("child", 10), "sam": ("child", 7)}),
    ("Our three, Ava, Ben and Cal (4), are off school.", {"ava": ("child", None), "ben": ("child", None),
                                                          "cal": ("child", 4)}),
    ("my kids Noor 12 and Adam 9 have swimming", {"noor": ("child", 12), "adam": ("child", 9)}),
    ("My sons Leo and Max (6) both have colds.", {"leo": ("son", None), "max": ("son", 6)}),
    ("My girls, Ella and Rose, love it.", {"ella": ("daughter", None), "rose": ("daughter", None)}),
])
def test_children_listed_with_bare_ages(text: str, want: dict[str, tuple[str, int | None]]) -> None:
    assert _relatives(("user", text)) == want


@pytest.mark.parametrize("text", [
    "My two cents: Ruby and Sam should go.",  # no comma after the count: no children
    "We paid two, Visa and Amex, on the 3rd.",
    "my two favourite shows are Bluey and Succession",
    "It's my 3 and 4 o'clock meetings.",
    "Our four, at 10 and 11, then lunch.",
])
def test_a_count_is_no_children_without_names_after_a_comma(text: str) -> None:
    assert _relatives(("user", text)) == {}


def _subscription_subjects(*turns: tuple[str, str]) -> dict[str, JsonValue]:
    return {str(fields.get("vendor")): fields.get("subject") for _, _, fields in _facts(("subscription",),
                                                                                       list(turns))[0]}


@pytest.mark.parametrize("said, subject", [
    ("netflix 15.99 a month, thats Devs", "partner"),
    ("hulu 7.99 a month thats Devs he pays it", "partner"),
    ("Devs got his own Netflix, 15.99 a month", "partner"),
    ("netflix 15.99 a month, that's mine", "user"),
    ("netflix 15.99 a month, its Bills", "user"),  # no one called Bill was named
])
def test_a_possessive_typed_without_the_apostrophe(said: str, subject: str) -> None:
    subjects = _subscription_subjects(("user", "Me, my partner Dev and our kids."), ("user", said))
    assert list(subjects.values()) == [subject]


@pytest.mark.parametrize("text, relation, age", [
    ("My wife's mum is 84 and still drives.", "mother-in-law", 84),
    ("My husband's dad (79) is coming too.", "father-in-law", 79),
    ("Our daughter's son is 3 now.", "grandson", 3),
    ("My brother's son, who is 17, wants a job.", "nephew", 17),
    ("My mum's sister is 90 this year.", "aunt", 90),
])
def test_an_unnamed_relative_of_a_relative_with_an_age(text: str, relation: str, age: int) -> None:
    assert _relatives(("user", text)) == {relation: (relation, age)}


@pytest.mark.parametrize("text", [
    "My wife's mum lives in Leeds.",  # nothing said about her: no fact
    "If my wife's mum were 90 she'd still drive.",
    "My friend's dad is 80.",
    "My wife's car is 12 years old.",
    "My husband's boss is 45.",
])
def test_no_unnamed_relative_without_an_age_or_relation(text: str) -> None:
    assert _relatives(("user", text)) == {}

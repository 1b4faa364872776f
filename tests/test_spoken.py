"""The surface the typed readers see (`factlog.spoken`) and numbers in words
(`factlog.number_words`): dictated, shouted, bulleted and emoji text, with cases that
must stay as they are."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.number_words import ordinal_value, value_of
from factlog.spoken import for_readers
from factlog.typed import Context, read_sentence


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("twelve hundred and forty nine", 1249), ("a hundred and five", 105), ("two", 2), ("twenty-five", 25),
        ("two thousand five hundred", 2500), ("twenty five hundred", 2500), ("one hundred thousand", 100_000),
        ("half a million", 500_000), ("a thousand", 1000), ("three million", 3_000_000),
    ],
)
def test_cardinals(words: str, value: float) -> None:
    assert value_of(words) == value


@pytest.mark.parametrize("words", ["", "and", "some", "half a dozen eggs", "few hundred"])
def test_not_cardinals(words: str) -> None:
    assert value_of(words) is None


@pytest.mark.parametrize(
    ("word", "value"),
    [("first", 1), ("third", 3), ("twenty eighth", 28), ("twenty-first", 21), ("thirtieth", 30), ("thirty first", 31)],
)
def test_ordinals(word: str, value: int) -> None:
    assert ordinal_value(word) == value


@pytest.mark.parametrize("word", ["fourth fifth", "twenty", "thirty second hand", "twenty eleventh"])
def test_not_ordinals(word: str) -> None:
    assert ordinal_value(word) is None


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("so uh pay mike um two grand", "so pay mike two grand"),
        ("erm I think it's uh Tuesday", "I think it's Tuesday"),
        ("it was, like, a lot", "it was a lot"),
        ("the one ending four four one two", "the one ending 4412"),
        ("code oh seven nine", "code 079"),
        ("every Thursday from half six till eight", "every Thursday from 6:30 till 8"),
        ("half past seven", "7:30"),
        ("a quarter to seven", "6:45"),
        ("quarter past 9", "9:15"),
        ("dinner at seven o'clock", "dinner at 7:00"),
        ("starts 7ish.", "starts at 7."),
        ("around 7ish tonight", "around 7 tonight"),
        ("- Netflix $15.49 on the 3rd", "Netflix $15.49 on the 3rd"),
        ("2) pay the rent", "pay the rent"),
        ("> > From: Hulu", "From: Hulu"),
        ("started sertraline today 😬 50mg", "started sertraline today 50mg"),
        ("paid 👍🏽 ✅", "paid"),
        ("JUST BOUGHT A 4K TV AT BEST BUY FOR $1,099", "Just bought a 4K tv at best buy for $1,099"),
        ("MY CONFIRMATION IS NH4K2Q AND I FLY FRIDAY", "My confirmation is NH4K2Q and I fly friday"),
    ],
)
def test_what_the_readers_see(said: str, read: str) -> None:
    assert for_readers(said) == read


@pytest.mark.parametrize(
    "said",
    [
        "I'd like a refund", "half an hour later", "half the time", "she's 40ish", "about 5ish people",
        "my umbrella and the error", "Two of us, one two-bedroom", "I need to go to ANA at JFK", "one or two",
        "it is 20 °C", "1.5 million", "Dr. Lee said 3 to 4 weeks", "the -5 degrees",
    ],
)
def test_what_stays_as_said(said: str) -> None:
    assert for_readers(said) == said


def test_dictated_account_digits_reach_the_reader() -> None:
    context = Context(datetime(2026, 6, 1, 7, 20))
    facts = read_sentence("pay the plumber from the business checking the one ending four four one two", context)
    assert any(fact.kind == "account" and fact.fields.get("last4") == "4412" for fact in facts)

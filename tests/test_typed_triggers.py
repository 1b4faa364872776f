"""factlog.typed.triggers: a trigger set answers exactly as its patterns would, only faster."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factlog.typed import reader
from factlog.typed.triggers import Triggers, _without_lookarounds, lowercase_safe

SENTENCES = (
    "I booked a flight to Tokyo on March 3.", "MY PASSPORT EXPIRES ON JUNE 5", "Dr. Patel moved my appointment",
    "the electric bill is $84 and due the 15th", "Honestly the weather has been terrible.", "Chem 101 meets at 9",
    "I take 20 mg of lisinopril daily", "my Daughter Ava is 9", "£40 a month for the gym", "Ok.", "",
    "ÉTÉ À PARIS", "It's the İstanbul trip", "PT on Tuesdays", "standup every weekday at 9:30",
    # where RE2 is not asked: `re`'s Unicode \b and \s, `$` before a final newline
    "café\u00a0bill due", "naïve flight", "bill\vdue", "bill\x1cdue", "my flight\n", "the bill is due\n",
)


def plain(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str]:
    """What the trigger set replaces: one alternation, each pattern with its own flags."""
    def flags(p: re.Pattern[str]) -> str:
        return "i" if p.flags & re.I else ""
    return re.compile("|".join(f"(?{flags(p)}:{re.sub(r'[(][?]P<[a-z0-9_]+>', '(?:', p.pattern)})" for p in patterns))


TRIGGER_SETS = {"shared": reader._TRIGGERS, "health": reader._HEALTH, "schedule": reader._SCHEDULE,
                "people": reader._PEOPLE}


@pytest.mark.parametrize("name", sorted(TRIGGER_SETS))
@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_reader_trigger_set_answers_as_its_patterns(name: str, sentence: str) -> None:
    triggers = TRIGGER_SETS[name]
    assert triggers.search(sentence) == (plain(triggers.patterns).search(sentence) is not None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(("trip", "Flight", "MG", " ", "due", "$", "4", "Dr", "Ava", ".", "every", "Tues",
                                 "day", "allergic", "bill", "x", "PASSPORT", "-", "É", "\n", "\v", "\x1d", "é", "'ll ", "I")),
                max_size=12))
def test_any_text_gets_the_same_answer(parts: list[str]) -> None:
    text = "".join(parts)
    for triggers in TRIGGER_SETS.values():
        assert triggers.search(text) == (plain(triggers.patterns).search(text) is not None)


def test_escapes_keep_their_case_when_letters_are_lowered() -> None:
    # \W lowercased would be \w; \D would be \d: the escapes must stay as they are
    triggers = Triggers((re.compile(r"^\W*YES\b", re.I), re.compile(r"ID\D{2}OK", re.I)))
    assert triggers.search("... yes")
    assert triggers.search("id--ok")
    assert not triggers.search("xyes")
    assert not triggers.search("id12ok")


def test_a_class_of_capitals_finds_lowercase_when_the_pattern_ignores_case() -> None:
    assert Triggers((re.compile(r"\b[A-Z]{3}\d", re.I),)).search("abc1")


@pytest.mark.parametrize(("pattern", "safe"), [
    (re.compile(r"\btrip\b", re.I), True),
    (re.compile(r"\b[A-Z]\w+ school", re.I), True),
    (re.compile(r"\b(?-i:[A-Z])\w+ school", re.I), False),  # a case-sensitive part
    (re.compile(r"\bESTA\b"), False),  # no re.I
])
def test_only_patterns_that_ignore_case_everywhere_run_lowered(pattern: re.Pattern[str], safe: bool) -> None:
    assert lowercase_safe(pattern) is safe


def test_a_case_sensitive_part_still_needs_its_capital() -> None:
    triggers = Triggers((re.compile(r"\b(?-i:[A-Z])[a-z]+ school\b", re.I), re.compile(r"\bESTA\b")))
    assert triggers.search("Lincoln school")
    assert not triggers.search("high school")
    assert triggers.search("my ESTA")
    assert not triggers.search("my esta")


@pytest.mark.parametrize(("before", "after"), [
    (r"(?<![\w-])(?:klarna|affirm)(?![\w-])", r"(?:klarna|affirm)"),
    (r"foo(?=\s+(?:bar|[)]))baz", r"foobaz"),  # a ")" in a class inside the lookahead
    (r"a[(?=]b\Z", r"a[(?=]b\z"),  # "(?=" inside a class is no lookahead; RE2 writes \Z as \z
    (r"(?<!\bi'll )\bcancel\s+mine", r"\bcancel\s+mine"),
    (r"\(?=x", r"\(?=x"),  # an escaped bracket opens nothing
])
def test_lookarounds_are_dropped_for_the_prefilter(before: str, after: str) -> None:
    assert _without_lookarounds(before) == after


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(("cancel", " mine", "i'll ", "I'll ", "klarna", "-", "x", " ", "Dr", "É", "\n")),
                max_size=10))
def test_patterns_with_lookarounds_answer_as_re_does(parts: list[str]) -> None:
    patterns = (re.compile(r"(?<!\bi'll )\bcancel\s+mine\b", re.I), re.compile(r"(?<![\w-])klarna(?![\w-])", re.I),
                re.compile(r"\b(?-i:Dr)(?=\s|$)", re.I), re.compile(r"x\Z"))
    text = "".join(parts)
    assert Triggers(patterns).search(text) == (plain(patterns).search(text) is not None)

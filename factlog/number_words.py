"""Numbers written or dictated in words: "twelve hundred and forty nine", "a hundred and
five", "two grand", "half a million", ordinals ("the twenty-eighth") and digit runs read
out one by one ("four four one two").

`value_of(words)` is the one reader of a cardinal phrase; the patterns here find the
phrases (the recognisers in `factlog.recognizers` decide when one is money or a day).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
SCALES = {"hundred": 100, "thousand": 1_000, "grand": 1_000, "k": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
ORDINAL_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
}
ORDINAL_TENS = {"twentieth": 20, "thirtieth": 30}


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_UNIT = _alternation(UNITS)
_TEN = _alternation(TENS)
_SMALL = rf"(?:(?:{_TEN})(?:[\s-]+(?:{_UNIT}))?|{_UNIT}|a|an)"
_SCALE_WORD = r"(?:hundred|thousand|million|billion)"
# "a hundred and five", "twelve hundred and forty-nine", "two thousand five hundred", "twenty five"
CARDINAL = rf"(?:{_SMALL}(?:[\s-]+{_SCALE_WORD}(?:[\s-]+and)?(?:[\s-]+{_SMALL})?)*)"
# a price said as two pairs of digits: "fifteen fifty" 1550, "twelve oh five" 1205, "thirteen ninety-nine"
PAIR = rf"(?:(?:{_UNIT}|{_TEN})\s+(?:(?:{_TEN})(?:[\s-]+(?:{_UNIT}))?|oh[\s-](?:{_UNIT})))"
# "half a million", "half a mil"
HALF = r"(?:half\s+(?:a|an)\s+(?:million|mil|billion|thousand|grand))"
ORDINAL = rf"(?:(?:twenty|thirty)[\s-]+(?:{_alternation(ORDINAL_UNITS)})|{_alternation(ORDINAL_UNITS)}|" \
    rf"{_alternation(ORDINAL_TENS)})"
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
# three or more digits read out one by one: "ending four four one two", "oh seven"
DIGIT_RUN = re.compile(rf"\b{_DIGIT_WORD}(?:[\s,-]+{_DIGIT_WORD}){{2,}}\b", re.I)
_DIGITS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
           "six": "6", "seven": "7", "eight": "8", "nine": "9"}
_TOKEN = re.compile(r"[a-z]+")


def value_of(phrase: str) -> float | None:
    """The number a cardinal phrase says ("twelve hundred and forty nine" -> 1249,
    "half a million" -> 500000, "a hundred" -> 100), or None when it is not one."""
    tokens = [t for t in _TOKEN.findall(phrase.lower()) if t != "and"]
    if not tokens:
        return None
    if tokens[0] == "half":
        scale = {"mil": 1_000_000}.get(tokens[-1], SCALES.get(tokens[-1]))
        return scale / 2 if scale is not None and len(tokens) == 3 else None
    total, current, seen = 0.0, 0.0, False
    for token in tokens:
        if token in ("a", "an"):
            current += 1
        elif token in UNITS:
            current += UNITS[token]
        elif token in TENS:
            current += TENS[token]
        elif token == "hundred":
            current = (current or 1) * 100
        elif token in SCALES:
            total += (current or 1) * SCALES[token]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def pair_value(phrase: str) -> float | None:
    """The price a `PAIR` says in hundreds ("it's fifteen fifty now" -> 1550, "twelve oh five" ->
    1205), or None; which reading a pair has is the reader's to say (`pair_price`)."""
    if re.fullmatch(PAIR, phrase.strip(), re.I) is None:
        return None
    head, rest = phrase.strip().split(None, 1)
    high, low = value_of(head), value_of(re.sub(r"\boh\b", "", rest, flags=re.I))
    return high * 100 + low if high is not None and low is not None else None


def pair_price(phrase: str) -> float | None:
    """The price a `PAIR` says in dollars and cents ("thirteen ninety-nine a month" -> 13.99),
    or None, also when it could be either ("one fifty": $1.50 or $150)."""
    if re.fullmatch(PAIR, phrase.strip(), re.I) is None or re.search(r"\boh\b", phrase, re.I):
        return None
    head, rest = phrase.strip().split(None, 1)
    dollars, cents = value_of(head), value_of(rest)
    if dollars is None or cents is None or dollars < 10 and cents % 10 == 0:
        return None
    return dollars + cents / 100


def ordinal_value(phrase: str) -> int | None:
    """ "twenty-eighth" -> 28, "third" -> 3; None when it is no ordinal word."""
    tokens = _TOKEN.findall(phrase.lower())
    if len(tokens) == 1:
        return ORDINAL_UNITS.get(tokens[0], ORDINAL_TENS.get(tokens[0]))
    if len(tokens) == 2 and tokens[0] in TENS and tokens[1] in ORDINAL_UNITS and ORDINAL_UNITS[tokens[1]] < 10:
        return TENS[tokens[0]] + ORDINAL_UNITS[tokens[1]]
    return None


def digits_of(run: str) -> str:
    """ "four four one two" -> "4412" (a run `DIGIT_RUN` found)."""
    return "".join(_DIGITS[t] for t in _TOKEN.findall(run.lower()))

"""Money said in words, as people say it aloud or type it casually, for the payment reader:
"twelve hundred dollars", "move twelve hundred from joint", "it's fifteen fifty now",
"two thousand five hundred", "three grand", "a grand and a half", "2 grand".

A bare number said in words is money only next to a money cue: "dollars"/"bucks"/"grand",
"hundred"/"thousand" after a pay verb or "it's ... now" (a price), never a count ("twelve
hundred miles", "fifteen fifty-minute sessions"). Deterministic and standard library only.
"""

from __future__ import annotations

import re

_UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_UNIT = "|".join(sorted(_UNITS, key=len, reverse=True))
_TEN = "|".join(_TENS)
_UNDER_100 = rf"(?:(?:{_TEN})(?:[- ](?:{_UNIT}))?|{_UNIT})"  # "forty-five", "twelve"
_UNDER_1000 = rf"(?:(?:{_UNIT}|a)\s+hundred(?:\s+(?:and\s+)?{_UNDER_100})?|{_UNDER_100})"
_NUMBER = (rf"(?P<big>(?:{_UNDER_1000}|a)\s+thousand(?:\s+(?:and\s+)?{_UNDER_1000})?"
           rf"|(?:{_UNIT}|(?:{_TEN})(?:[- ](?:{_UNIT}))?)\s+hundred(?:\s+(?:and\s+)?{_UNDER_100})?)"
           rf"|(?P<pair>(?:{_UNIT}|{_TEN})\s+(?:(?:{_TEN})(?:[- ](?:{_UNIT}))?|(?:oh[- ])?(?:{_UNIT})))"
           rf"|(?P<small>{_UNDER_100})")
_ANY = re.sub(r"\(\?P<\w+>", "(?:", _NUMBER)  # the same number without its group names
_COUNTED = r"(?!\s*[- ]?(?:miles?|minutes?|minute|hours?|days?|weeks?|months?|years?|people|times|" \
    r"sessions?|pounds?|kilos?|feet|foot|steps|calories|words|pages|units|points|percent|k\b))"
_MONEY_AFTER = r"\s+(?:dollars?|bucks|usd)\b"
_PAY_BEFORE = r"\b(?:pay|paying|paid|sent|gave|send|sending|wire|wiring|transfer|transferring|move|moving|owe|" \
    r"zelle|venmo|" \
    r"give|cost|costs|charge|charged|make it|make that|it's|its|it is|now|up to|down to|total of|is)\s+"
_SPOKEN = re.compile(
    rf"(?P<g>\b(?:{_ANY})\b){_MONEY_AFTER}"
    rf"|(?P<grand>\b(?:{_ANY}|\d{{1,3}})\b)\s+grand\b(?P<half>\s+and\s+a\s+half)?"
    rf"|\b(?P<h>(?:a|one)\s+grand\s+and\s+a\s+half)\b"
    rf"|{_PAY_BEFORE}(?:(?!(?:{_ANY})\b)\w+\s+){{0,2}}(?P<p>\b(?:{_ANY})\b)(?!\s+grand\b){_COUNTED}"
    rf"(?P<dollars>{_MONEY_AFTER})?", re.I)


def _under_1000(text: str) -> int:
    words = text.replace("-", " ").split()
    total = 0
    for word in words:
        if word == "hundred":
            total = max(total, 1) * 100
        elif word in _UNITS:
            total += _UNITS[word]
        elif word in _TENS:
            total += _TENS[word]
        elif word == "a":
            total += 1
    return total


def spoken_number(text: str) -> int | None:
    """The value of a number said in words ("twelve hundred" 1200, "fifteen fifty" 1550,
    "two thousand five hundred" 2500, "forty-five" 45), or None."""
    text = " ".join(text.casefold().replace(" and ", " ").split())
    match = re.fullmatch(_NUMBER, text, re.I)
    if match is None:
        return None
    if match.group("pair"):  # "fifteen fifty", "twelve oh five": hundreds and the rest
        head, rest = text.split(" ", 1)
        return (_UNITS.get(head) or _TENS[head]) * 100 + _under_1000(rest.replace("oh", ""))
    if " thousand" in text:
        high, _, low = text.partition(" thousand")
        return _under_1000(high) * 1000 + _under_1000(low)
    return _under_1000(text)


def spoken_amounts(sentence: str) -> list[float]:
    """The money amounts the sentence says in words, in text order."""
    out: list[float] = []
    for match in _SPOKEN.finditer(sentence):
        if match.group("h"):
            out.append(1500.0)
            continue
        raw = match.group("g") or match.group("grand") or match.group("p")
        value = int(raw) if raw.isdigit() else spoken_number(raw)
        if value is None or value == 0:
            continue
        if match.group("grand"):
            value *= 1000
            if match.group("half"):
                value += 500
        elif match.group("p") and value < 100 and not match.group("dollars"):
            continue  # "pay ten" alone is too little to be sure it is money
        out.append(float(value))
    return out

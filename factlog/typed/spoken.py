"""Money said in words, as people say it aloud or type it casually, for the payment reader:
"twelve hundred dollars", "move twelve hundred from joint", "it's fifteen fifty now",
"two thousand five hundred", "three grand", "a grand and a half", "2 grand".

A bare number said in words is money only next to a money cue: "dollars"/"bucks"/"grand",
"hundred"/"thousand" after a pay verb or "it's ... now" (a price), never a count ("twelve
hundred miles", "fifteen fifty-minute sessions"). Deterministic and standard library only.
"""

from __future__ import annotations

import re

from factlog.number_words import CARDINAL, PAIR, pair_value, value_of

_ANY = rf"(?:{PAIR}|{CARDINAL})"  # "fifteen fifty" before "fifteen"
_COUNTED = r"(?!\s*[- ]?(?:miles?|minutes?|minute|hours?|days?|weeks?|months?|years?|people|times|" \
    r"sessions?|pounds?|kilos?|feet|foot|steps|calories|words|pages|units|points|percent|k\b))"
_MONEY_AFTER = r"\s+(?:dollars?|bucks|usd)\b"
_PAY_BEFORE = r"\b(?:pay|paying|paid|sent|gave|send|sending|wire|wiring|transfer|transferring|move|moving|owe|" \
    r"zelle|venmo|" \
    r"give|cost|costs|charge|charged|make it|make that|it's|its|it is|now|up to|down to|total of|is|" \
    r"wants|needs|asked for|asks for|asking for|quoted|owes|owed|came to|comes to)\s+"
_SPOKEN = re.compile(
    rf"(?P<g>\b(?:{_ANY})\b){_MONEY_AFTER}"
    rf"|(?P<grand>\b(?:{_ANY}|\d{{1,3}})\b)\s+grand\b(?P<half>\s+and\s+a\s+half)?"
    rf"|\b(?P<h>(?:a|one)\s+grand\s+and\s+a\s+half)\b"
    rf"|{_PAY_BEFORE}(?:(?!(?:{_ANY})\b)\w+\s+|(?:a|an)\s+(?!hundred|thousand)){{0,4}}(?P<p>\b(?!(?:a|an)\s+(?!hundred|thousand))(?:{_ANY})\b)(?!\s+grand\b){_COUNTED}"
    rf"(?P<dollars>{_MONEY_AFTER})?", re.I)


def spoken_number(text: str) -> int | None:
    """The value of a number said in words ("twelve hundred" 1200, "fifteen fifty" 1550,
    "two thousand five hundred" 2500, "forty-five" 45), or None (`factlog.number_words`)."""
    value = pair_value(text) or value_of(text)
    return int(value) if value is not None else None


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

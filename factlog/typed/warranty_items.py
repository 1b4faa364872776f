"""Which bought item a warranty sentence is about, when a session names several ("got a
Bosch washer and an LG dryer today. washer came with 2 years warranty, the dryer just 1").

`bought_items` splits one purchase into its items ("a Bosch washer and an LG dryer");
`documents` remembers each with its day (`Context.purchases`). A later sentence naming
one of them, by what it is ("washer") or by its brand ("the Bosch warranty"), is about that
one (`named_items`); a sentence naming two or more is read item by item (`by_item`), a
bare number after the first ("the dryer just 1") counting in the first one's unit.
"""

from __future__ import annotations

import re

from factlog.recognizers import NUMBER_WORDS

# "got a Bosch washer and an LG dryer at Home Depot today": the list after the verb
_LIST = re.compile(
    r"\b(?:bought|purchased|got|ordered|picked up)\s+(?:(?:a|an|the|my|our|new)\s+)?"
    r"(?P<items>[A-Za-z0-9][\w'-]*(?:\s+[\w'-]+){0,3}?(?:\s+and\s+(?:(?:a|an|the|my|our|new)\s+)?"
    r"[A-Za-z0-9][\w'-]*(?:\s+[\w'-]+){0,3}?)+)"
    r"(?=\s+(?:on|at|from|last|for|this|yesterday|today|in|together)\b|\s+\d{1,2}/\d|[,.;!]|$)", re.I)
_AND = re.compile(r"\s+and\s+(?:(?:a|an|the|my|our|new)\s+)?", re.I)
# the day of the purchase just told: "same day got a Breville espresso machine"
SAME_DAY = re.compile(r"\b(?:(?:the\s+)?same day|that (?:same )?day|at the same time|same time)\b", re.I)
_STORES = frozenset("costco walmart target amazon lowe's lowes home best ikea sears kohl's macy's".split())
_NUMBER = "|".join(["a", "an", "one", *NUMBER_WORDS])
_BARE = re.compile(rf"\b(?P<n>\d{{1,2}}|{_NUMBER})\b(?!\s*(?:/|st|nd|rd|th|am|pm|%))", re.I)
_UNIT = re.compile(r"\b(?:years?|yrs?|months?|mos?)\b", re.I)


def bought_items(sentence: str) -> tuple[list[str], int]:
    """The items of a purchase of two or more things and where the list ends; ([], 0) for
    one thing bought (or none)."""
    match = _LIST.search(sentence)
    if match is None:
        return [], 0
    parts = [" ".join(part.split()) for part in _AND.split(match.group("items")) if part.strip()]
    return (parts, match.end()) if len(parts) > 1 and all(len(part.split()) <= 4 for part in parts) else ([], 0)


def _names(item: str) -> list[str]:
    """The words that name an item: what it is (its last word) and its brand (a capitalised
    first word that is no store)."""
    words = item.split()
    names = [words[-1]]
    if len(words) > 1 and words[0][:1].isupper() and words[0].casefold() not in _STORES:
        names.append(words[0])
    return names


def named_items(sentence: str, items: list[str]) -> list[tuple[int, str]]:
    """(position, item) of each of `items` the sentence names, in order of mention; an item
    named by two words counts once, at its first."""
    found: list[tuple[int, str]] = []
    for item in items:
        starts = [m.start() for name in _names(item)
                  for m in re.finditer(rf"\b{re.escape(name)}(?:'s|’s|s)?\b", sentence, re.I)]
        if starts:
            found.append((min(starts), item))
    return sorted(found)


def by_item(sentence: str, items: list[str]) -> list[tuple[str, str]]:
    """The sentence cut at each named item: (item, its part), when it names two or more."""
    named = named_items(sentence, items)
    if len(named) < 2:
        return []
    starts = [position for position, _ in named]
    return [(item, sentence[start:end]) for (start, item), end in zip(named, [*starts[1:], len(sentence)])]


def bare_months(part: str, unit_of: str) -> int | None:
    """A length said as a bare number ("the dryer just 1"), in the unit `unit_of` (the
    first part) gives; None when the part says a unit itself or no number."""
    if _UNIT.search(part):
        return None
    unit = _UNIT.search(unit_of)
    number = _BARE.search(part)
    if unit is None or number is None:
        return None
    raw = number.group("n").lower()
    n = int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]
    return n * 12 if unit.group(0).lower().startswith("y") else n

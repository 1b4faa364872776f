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


# the assistant's question about a warranty, just before: "And the warranty?", "Does it have a warranty?",
# "How long is the guarantee on it?", "Any protection plan?"
_ASKS_WARRANTY = re.compile(r"\b(?:warrant(?:y|ies)|guarantee|protection plan|applecare|cover(?:age)?)\b[^.!?]*\?\s*$",
                            re.I)
_LENGTH = rf"(?:\d{{1,2}}|{'|'.join(['a', 'an', 'one', *NUMBER_WORDS])})[\s-]+(?:years?|yrs?|months?|mos?)\b"
# a bare length as the whole answer: "two years", "2 yrs", "just the one year", "3 years from Samsung",
# "it's 12 months, manufacturer's"
_TERSE = re.compile(rf"^\W*(?:(?:yeah|yes|yep|oh|um|uh|just|only|about|it's|its|it is|they gave|gave|comes with|"
                    rf"came with|got|the)\W+)*(?P<length>{_LENGTH})(?P<rest>[^?]*)$", re.I)
# what makes a length no warranty's: an age, a time ago, what is left, a question back
TERSE_LENGTH = _TERSE  # a trigger: a sentence that is only a length may answer a question about a warranty
_NOT_TERM = re.compile(r"^\W*(?:ago|old|since|back|left|later|before|each|every|a|per)\b|"
                       r"\b(?:no|none|not|don't|dunno|unsure|think|maybe|ago|old)\b", re.I)


# the maker said alone after the length: "1 yr whirlpool", "two years from LG", "2 years, Samsung's"
_BRAND_ONLY = re.compile(r"^\W*(?:(?:from|by|with|through|via)\s+)?(?:the\s+)?(?P<name>[A-Za-z][\w&-]*)(?:'s|’s)?"
                         r"(?=\s*[.,;!]|\s*$)")
_NOT_BRANDS = frozenset("total warranty manufacturer manufacturers manufacturer's extended standard parts labour labor "
                        "included free too also only each apiece then now yeah yes ok okay i think".split())


def terse_warranty(sentence: str, said: list[str]) -> str | None:
    """The sentence as a warranty sentence when it is only a length ("two years") answering a
    question about a warranty asked just before it (`said[-2]`, the session's sentence before
    this one): "two years warranty", which the document reader reads with the item just
    bought; None for anything else ("two years ago", "not sure, maybe two years", no question)."""
    if len(said) < 2 or not _ASKS_WARRANTY.search(said[-2]):
        return None
    match = _TERSE.match(sentence.strip())
    if match is None or _NOT_TERM.search(match.group("rest")) or len(match.group("rest").split()) > 6:
        return None
    number, unit = re.match(r"(\S+?)[\s-]+(\S+)$", match.group("length")).groups()  # type: ignore[union-attr]
    word = number.lower()
    n = int(word) if word.isdigit() else 1 if word in ("a", "an", "one") else NUMBER_WORDS[word]
    rest = match.group("rest")
    brand = _BRAND_ONLY.match(rest)
    if brand is not None and brand.group("name").casefold() not in _NOT_BRANDS:
        name = brand.group("name")
        name = name[:1].upper() + name[1:] if name.islower() else name
        return f"{n} {unit} warranty from {name}{rest[brand.end():]}"  # "1 yr whirlpool": Whirlpool's
    return f"{n} {unit} warranty{rest}"  # digits: a number word reads as no item


# an item named by what it is and then its brand: "My washing machine is Samsung", "our fridge is an LG"
_IS_BRAND = re.compile(r"\b(?i:my|our|the)\s+(?P<item>[a-z]+(?:\s+[a-z]+)?)\s+(?i:is)\s+(?:(?i:an?)\s+)?"
                       r"(?P<brand>[A-Z][\w&-]+(?:\s+&\s+[A-Z][\w&-]+)?)(?=\s*[,.;]|\s+(?:one|brand|model|and|bought)\b)")
# the day a purchase was made, said after it: "bought from Courts on 3 March 2023"
BOUGHT_ON = re.compile(r"\b(?:bought|purchased|got (?:it|them))\b[^.;]{0,40}?\bon\s+(?=\S)", re.I)


def branded_item(sentence: str) -> str | None:
    """ "Samsung washing machine" for "My washing machine is Samsung"."""
    match = _IS_BRAND.search(sentence)
    return f"{match.group('brand')} {match.group('item')}" if match is not None else None


# who gives the warranty, said as its subject: "Apple gave me 12 months warranty", "F&P gave it a 2 year
# warranty", "Samsung give 3 years warranty" (not "I gave", "My son gave")
MAKER_GAVE = re.compile(r"\b(?P<name>[A-Z][\w&-]+(?:\s+&\s+[A-Z][\w&-]+|\s+[A-Z][\w&-]+)?)\s+"
                        r"(?:gave|gives|give|offers?|offered|provides?|provided|includes?|included)\s+(?:(?:me|us|it|them|you)\s+)?(?:an?\s+)?"
                        r"(?:\d{1,2}|[a-z]+)[\s-]+(?:years?|yrs?|months?|mos?)\b[^.;]{0,20}?\b(?:warranty|guarantee)\b")

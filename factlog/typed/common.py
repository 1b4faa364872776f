"""Rules every domain reader shares: whose thing a sentence is about, which date belongs
to which cue ("leave March 3, back March 12"), booking state, confirmation numbers and
durations ("a 2-year warranty").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from factlog.model import JsonValue
from factlog.recognizers import NUMBER_WORDS, dates_and_times_at
from factlog.timeparse import try_date
from factlog.typed.model import Context
from factlog.typed.places import ADJECTIVES, place_name
from factlog.typed.stance import PLANNED

RELATIONS = (
    "daughter son wife husband partner spouse boyfriend girlfriend fiance fiancee fiancé fiancée mom mother "
    "mum dad father brother sister kid kids child children grandson granddaughter grandmother grandfather "
    "grandma grandpa aunt uncle niece nephew cousin friend boss colleague coworker roommate stepson "
    "stepdaughter mother-in-law father-in-law"
).split()
_RELATION = "|".join(sorted(map(re.escape, RELATIONS), key=len, reverse=True))
_POSSESSIVE = re.compile(
    rf"\b(?:my|our|your)\s+(?P<rel>{_RELATION})(?:'s|’s|s'|\s+(?P<name>[A-Z][a-z]+)(?:'s|’s))", re.I)
_NAME_POSSESSIVE = re.compile(r"\b(?P<name>[A-Z][a-z]{2,})(?:'s|’s)\s+(?!\w+\s+(?:rules|requirements|policy))")
_PERSON_DOES = re.compile(
    rf"\b(?:my|our|your)\s+(?P<rel>{_RELATION})(?:\s+[A-Z][a-z]+)?\s+(?:is|was|will be|has|had|'s|just|also)\b", re.I
)
_NOT_NAMES = frozenset(
    "i it that there what here let today tomorrow everyone nobody someone one who mom dad".split()
)

BOOKED = re.compile(
    r"\b(?:booked|have (?:my |our |the )?(?:plane |flight )?tickets|got (?:my |our |the )?tickets|"
    r"bought (?:my |our |the )?(?:plane |flight )?tickets|purchased|reserved|confirmed|confirmation|"
    r"all set|locked in|paid for|i book)\b",
    re.I,
)
CANCELLED = re.compile(r"\b(?:cancel+(?:ed|ing)?|called off|scrapped|no longer (?:going|flying|traveling)|"
                       r"(?:not|n't) (?:going|flying|traveling|travelling)(?: to [\w ]{1,30}?)? any ?more|"
                       r"(?:trip|vacation|holiday) is off)\b", re.I)
CONFIRMATION = re.compile(
    r"\b(?:(?:booking|reservation|confirmation)\s+)?"
    r"(?:confirmation|booking|reservation|record locator|locator|pnr|reference|ref\b|conf\b|code(?=\s+is|:)|"
    r"(?<!promo )(?<!discount )(?<!coupon )(?<!zip )(?<!postal )(?<!area )(?<!access )(?<!door )(?<!gate )"
    r"(?<!dress )(?<!country )code(?=\s+(?=[A-Z0-9]*\d)[A-Z0-9]{5,8}\b))"
    r"(?:\s+(?:number|code|no\.?|#|ref))?\s*(?:is|'s|’s|:|#|of|-)?\s*#?\s*(?P<code>[A-Z0-9][A-Z0-9-]{4,11})\b",
    re.I,
)
_DURATION = re.compile(
    rf"\b(?P<n>\d{{1,2}}|{'|'.join(['a', 'an', 'one', *NUMBER_WORDS])})[- ](?P<unit>year|yr|month|mo)s?\b", re.I
)
CORRECTION = re.compile(
    r"^\W*(?:(?:oh|um|uh|wait|sorry|no|oops|hmm|ah)\b[,!.]?\s*)*"
    r"(?:actually|sorry|correction|i meant|i mean|make that|scratch that|my mistake|my bad|wait)\b",
    re.I,
)
DAY_ONLY = re.compile(r"\bthe\s+(?P<dd>\d{1,2})(?:st|nd|rd|th)\b", re.I)


def subject_of(sentence: str, context: Context) -> str:
    """Whose thing the sentence is about: "user", or a relation or name ("my daughter's
    passport" -> "daughter", "Emma's visa" -> "Emma")."""
    match = _POSSESSIVE.search(sentence) or _PERSON_DOES.search(sentence)
    if match is not None:
        return match.group("rel").lower()
    named = _NAME_POSSESSIVE.search(sentence)
    if named is not None:
        name = named.group("name")
        if name.lower() not in _NOT_NAMES and place_name(name) is None and name.lower() not in ADJECTIVES:
            return name
    return "user"


def named_relation(sentence: str) -> str | None:
    """The name a sentence gives a relation's thing ("my son Daniel's passport" -> "Daniel"), or None."""
    match = _POSSESSIVE.search(sentence)
    name = match.group("name") if match is not None else None
    return name if name is not None and name.lower() not in _NOT_NAMES else None


@dataclass(frozen=True)
class Cue:
    name: str
    pattern: re.Pattern[str]


def dates_by_cue(sentence: str, context: Context, cues: tuple[Cue, ...],
                 extra: tuple[tuple[int, str], ...] = ()) -> dict[str, list[str]]:
    """The sentence's dates (and the `extra` (position, ISO date) a reader found itself),
    each listed under the last cue before it ("" when none is)."""
    return _by_cue(sentence, cues, sorted([*dates_and_times_at(sentence, context.timestamp)[0], *extra]))


def times_by_cue(sentence: str, context: Context, cues: tuple[Cue, ...]) -> dict[str, list[str]]:
    """Like `dates_by_cue`, for times of day (HH:MM)."""
    return _by_cue(sentence, cues, dates_and_times_at(sentence, context.timestamp)[1])


# the end of a range in one month: "June 10 to 24", "March 1-20"
SAME_MONTH_END = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\s*(?:to|-|–|through|thru|"
    r"until|till)\s*(?P<dd>\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:/|:|am|pm|a\.m|p\.m|(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|"
    r"aug|sep|oct|nov|dec)))", re.I)


# a range whose month follows its second day only: "3rd to 10th of June", "the 3rd to the 15th of June"
LEADING_DAY = re.compile(
    r"(?<![\d/])\b(?P<dd>\d{1,2})(?:st|nd|rd|th)?\s*(?:to|-|–|through|thru|till|until)\s*(?:the\s+)?"
    r"(?P<dd2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)


def leading_days(sentence: str, context: Context) -> tuple[tuple[int, str], ...]:
    """(position, ISO date) of each range start said as a day alone before a day with its
    month ("3rd to 10th of June" -> June 3 of that June)."""
    found = dates_and_times_at(sentence, context.timestamp)[0]
    out = []
    for match in LEADING_DAY.finditer(sentence):
        end = try_date(next((day for start, day in found if start >= match.start("dd2")), ""))
        if end is not None and int(match.group("dd")) < end.day:
            out.append((match.start("dd"), end.replace(day=int(match.group("dd"))).isoformat()))
    return tuple(out)


def same_month_ends(sentence: str, context: Context) -> tuple[tuple[int, str], ...]:
    """(position, ISO date) of each range end said as a day alone after a date of the same
    month ("March 1-20" -> March 20 of March 1's year)."""
    found = dates_and_times_at(sentence, context.timestamp)[0]
    out = []
    for match in SAME_MONTH_END.finditer(sentence):
        before = [day for start, day in found if start < match.start("dd")]
        start_day = try_date(before[-1]) if before else None
        if start_day is None:
            continue
        try:
            end = start_day.replace(day=int(match.group("dd")))
        except ValueError:
            continue
        if end > start_day:
            out.append((match.start("dd"), end.isoformat()))
    return tuple(out)


def _by_cue(sentence: str, cues: tuple[Cue, ...], found: list[tuple[int, str]]) -> dict[str, list[str]]:
    if not found:
        return {}
    marks = sorted((m.start(), cue.name) for cue in cues for m in cue.pattern.finditer(sentence))
    out: dict[str, list[str]] = {}
    for start, value in found:
        name = next((cue_name for begin, cue_name in reversed(marks) if begin < start), "")
        out.setdefault(name, []).append(value)
    return out


def booking_status(sentence: str) -> str | None:
    if CANCELLED.search(sentence):
        return "cancelled"
    if PLANNED.search(sentence):
        return "planned"
    if BOOKED.search(sentence):
        return "booked"
    return None


def confirmation_code(sentence: str) -> str | None:
    for match in CONFIRMATION.finditer(sentence):
        code = match.group("code")
        if any(ch.isdigit() for ch in code) or (code.isupper() and len(code) >= 5):
            return code.upper() if code.isalnum() else code
    return None


def duration_months(sentence: str) -> int | None:
    """The length of a warranty or term in months ("1-year" -> 12, "six month" -> 6)."""
    match = _DURATION.search(sentence)
    if match is None:
        return None
    raw = match.group("n").lower()
    n = int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]
    return n * 12 if match.group("unit").lower().startswith("y") else n


def add_months(start: date, months: int) -> date:
    year, month = divmod(start.month - 1 + months, 12)
    year += start.year
    for day in range(start.day, 27, -1):
        try:
            return date(year, month + 1, day)
        except ValueError:
            continue
    return date(year, month + 1, min(start.day, 28))


def corrected_day(old: str, sentence: str) -> str | None:
    """ "the 12th" applied to the date `old` (same month and year), or None."""
    match = DAY_ONLY.search(sentence)
    day = try_date(old)
    if match is None or day is None:
        return None
    try:
        return day.replace(day=int(match.group("dd"))).isoformat()
    except ValueError:
        return None


def conversation_fields(context: Context, subject: str, fields: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """`fields` plus who it is about (as `person_named` names them) and who said it."""
    named = person_named(subject, context)
    if named != subject:  # the same person wherever a reader wrote them: holder, person
        fields = {name: named if value == subject else value for name, value in fields.items()}
    return {**fields, "subject": named, "speaker": context.speaker}


# someone named with a title: "Mr Osei", "Ms. Lund", "Dr Daniel Osei"
_TITLED_NAME = re.compile(r"\b(?P<title>Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+(?:[A-Z][a-z]+\s+)?"
                          r"(?P<surname>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")


def person_named(name: str, context: Context) -> str:
    """The one name every reader gives a person: someone the session has named with a title
    keeps it however they are named later or earlier ("Osei", "Daniel Osei" -> "Mr Osei"),
    so their trips, passport and diary are one person's. Other names are kept as given."""
    if (" " not in name and not name[:1].isupper()) or _TITLED_NAME.fullmatch(name):
        return name  # "user", "son", "mother"; "Mr. Alvarez" as given
    surname = name.split()[-1]
    for said in reversed(context.said):
        for found in _TITLED_NAME.finditer(said):
            if found.group("surname") == surname:
                return f"{found.group('title')} {surname}"
    return name


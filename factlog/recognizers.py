"""Value recognisers for free text: dates, times, money, percentages, counts, emails,
phones and identifiers, found offline with regular expressions (dateparser only for
relative phrases such as "next Thursday" or "in two weeks").

`recognize(text, base)` returns `Values`; `Values.to_fields()` is the one documented shape
stored in a free-text fact's `fields` (keys present only when non-empty):

    {"dates": ["1985-03-15"],          # ISO dates; year-less and relative ones need `base`
     "times": ["14:30"],               # HH:MM, 24-hour
     "amounts_usd": [125000.0],
     "percentages": [0.5],             # as written: "0.5%" -> 0.5
     "counts": [{"value": 24, "unit": "sessions"}],
     "emails": ["a@b.com"],
     "phones": ["503-555-8924"],       # as written
     "identifiers": ["CLM-2024-894327"],
     "amounts_other": [{"value": 40.0, "currency": "EUR"}],   # euros and pounds, never converted
     "durations": [{"min": 8, "max": 12, "unit": "weeks"}]}   # ranges of days/weeks/months/years

Each recogniser blanks out what it matched so that later ones do not read it again
(a phone is not also an identifier, "$2,500" is not also a count).

Surface rules (how people type and dictate):
- money: "$1.2k", "1,250 bucks", "USD 300", "5 hundred dollars", "2 grand", words with a money
  word ("twelve hundred and forty nine bucks", "half a million dollars") or after a money verb
  ("owe like four hundred and fifty on the card", "paid 450 for it"); never "4K TV", "30K
  service", "2 kids", "room 405", a year, or words with neither ("twelve hundred from checking").
  "€1.200,50" is continental (dot thousands, comma decimals).
- dates: "3/4" is US month/day; "03.04.2026" (dots) is day.month.year; "4th of March", "March
  the fourth", "the twenty-eighth of February"; relative days, month ends and holidays follow
  `factlog.relative_dates` ("next Friday" is next week's). A bare "the 3rd" is left to the
  readers (`factlog.typed.common.DAY_ONLY`), whose meaning depends on the domain.
- times: "2-4pm" (the start takes the end's am/pm unless it would pass the end: "11-1pm"),
  "noon", "midnight", "19h30", "at 19h"; a bare "7", "7ish", "from 2 to 4" carry no am/pm and are
  the readers' (`factlog.typed.event_times`), after `factlog.spoken` writes "half six" as "6:30".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from typing import Callable, TypeVar

import dateparser

from factlog.model import JsonValue
from factlog.number_words import CARDINAL, HALF, ORDINAL, ordinal_value, value_of
from factlog.relative_dates import HOLIDAY, MONTH_END, RELATIVE_DAY, holiday, month_end, relative_day

T = TypeVar("T")

MAX_NUMBER = 1e15  # larger "amounts" or "counts" are noise (and may not be finite)
MAX_IDENTIFIER = 64

MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
    "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
    "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}
NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
WEEKDAYS = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
_NUMWORD = "|".join(["a", "an", "one", *NUMBER_WORDS])
_UNIT = r"(?:days?|weeks?|fortnights?)"  # "last year", "five years ago": too coarse to name a day
_YEAR = r"(?P<year>(?:19|20)\d\d)"  # not a 24-hour clock read as a year: "05 JUN 1745"

EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
PHONE = re.compile(
    r"(?<![\w-])(?:(?:\+?1[-. ])?(?:\(\d{3}\)\s?|\d{3}[-. ])\d{3}[-. ](?:\d{4}|[A-Z]{4,8})"
    r"|1[-. ]8\d\d[-. ][A-Z]{5,10})(?![\w-])"  # and toll-free words: 1-800-VELOCITY
)
# day.month.year, as written in most of Europe ("03.04.2026" is 3 April); "3/4" stays month/day
DOTTED_DATE = re.compile(r"(?<![\d.])(?P<dd>\d{1,2})\.(?P<mm>\d{1,2})\.(?P<year>\d{4})(?!\d|\.\d)")
ISO_DATE = re.compile(r"(?<![\d-])(?P<year>\d{4})-(?P<mm>\d{2})-(?P<dd>\d{2})(?![\d-])")
NUMERIC_DATE = re.compile(r"(?<![\d/.])(?P<mm>\d{1,2})/(?P<dd>\d{1,2})(?:/(?P<year>\d{4}|\d{2}))?(?![\d/])")
_THIS_YEAR = r"(?:,?\s+(?P<rel>this|next) year\b)"  # "the 2nd of August this year"
MONTH_DAY = re.compile(
    rf"\b(?:{_WEEKDAY},?\s+)?{_MONTH}\s+(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.]\d\d)"  # "9 Mar 10:00": a time
    rf"(?:,?\s+{_YEAR}\b|{_THIS_YEAR})?", re.I
)
DAY_MONTH = re.compile(
    rf"\b(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+{_YEAR}\b|{_THIS_YEAR})?", re.I)
# the year first ("valid until 2029, 1 February", "expires in 2033, March 3rd"), not a year closing a date
YEAR_FIRST = tuple(re.compile(rf"(?<!\d,\s)(?<!\d\s)(?<!\d,)\b{_YEAR},\s+{day}", re.I) for day in (
    rf"{_MONTH}\s+(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\b", rf"(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b"))
# "March the fourth", "the twenty-eighth of February", "4th of March", "March the 4th"
_TAIL = rf"(?:,?\s+{_YEAR}\b|{_THIS_YEAR})?"
ORDINAL_DATES = (
    re.compile(rf"\b(?:{_WEEKDAY},?\s+)?{_MONTH}\s+(?:the\s+)?(?P<ord>{ORDINAL})\b{_TAIL}", re.I),
    re.compile(rf"\b(?:the\s+)?(?P<ord>{ORDINAL})\s+of\s+{_MONTH}\b{_TAIL}", re.I),
    re.compile(rf"\bthe\s+(?P<ord>{ORDINAL})\s+{_MONTH}\b{_TAIL}", re.I),
    re.compile(rf"\b{_MONTH}\s+the\s+(?P<dd>\d{{1,2}})(?:st|nd|rd|th)\b{_TAIL}", re.I),
)
# cheap substring tests (on the lower-cased text) before the costlier patterns
_ORDINAL_HINTS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                  "eleventh", "twelfth", "teenth", "tieth", "the 1", "the 2", "the 3", "the 4", "the 5", "the 6",
                  "the 7", "the 8", "the 9")
_DAY_WORD_HINTS = ("end of", " eve", "christmas", "new year", "valentine", "patrick", "boxing")
_MONEY_HINTS = ("grand", "dollar", "buck", "usd")
_CLOCK_WORDS = ("noon", "midday", "midnight")
_MERIDIEMS = ("am", "pm", "a.m", "p.m")
# "Thursday the 21st", "Fri 6th", "Sat. 3rd" (a weekday's short form only before an ordinal day, capitalised
# where it is also a word: "I sat 3rd")
WEEKDAY_DAY = re.compile(rf"\b(?P<weekday>{_WEEKDAY}|(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?|"
                         rf"(?:tues|thurs|fri)\.?),?\s+(?:the\s+)?(?P<dd>\d{{1,2}})(?:st|nd|rd|th)\b", re.I)
RELATIVE = re.compile(
    rf"\b(?:{RELATIVE_DAY.pattern}"  # first: "next week Friday" is a Friday, not "next week"
    rf"|(?:the\s+day\s+(?:after|before)\s+)?(?:today|tonight|tomorrow|yesterday)"
    rf"|(?:next|this|last|coming)\s+(?:{_WEEKDAY}|week)"
    rf"|(?:in|within)\s+(?:{_NUMWORD}|\d{{1,3}})\s+{_UNIT}"
    rf"|(?:{_NUMWORD}|\d{{1,3}})\s+{_UNIT}\s+(?:ago|from\s+now))\b",
    re.I,
)
TIME = re.compile(
    r"(?<![\d:])(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>[ap])\.?m\b\.?"
    r"|(?<![\d:])(?P<h24>\d{1,2}):(?P<m24>\d{2})(?![\d:])",
    re.I,
)
# "19h", "19h30" (French style): with minutes, or after a word that introduces a time
HOUR_H = re.compile(r"(?<![\w:])(?P<hh>[01]?\d|2[0-3])h(?:(?P<mm>[0-5]\d))?\b", re.I)
_DIGIT_H = re.compile(r"\d[hH]")
CLOCK_WORD = re.compile(r"\b(?P<word>noon|midday|midnight)\b", re.I)
_TIME_WORD_BEFORE = re.compile(r"\b(?:at|from|until|till|by|before|after)\s+$", re.I)
# "2-4pm", "11 to 1pm", "10:30-11:15 am": the start takes the end's am/pm unless that puts it after the end
TIME_RANGE = re.compile(
    r"(?<![\w:/.$-])(?P<h1>\d{1,2})(?::(?P<m1>[0-5]\d))?\s*(?:-|–|—|to|until|till)\s*"
    r"(?P<h2>\d{1,2})(?::(?P<m2>[0-5]\d))?\s*(?P<ap>[ap])\.?m\b\.?",
    re.I,
)
_NUM = r"(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d+)?"
_SCALE = r"(?:\s?(?P<scale>k|hundred|thousand|grand|m|mm|million|b|bn|billion)\b)?"
AMOUNTS = (
    re.compile(rf"\$\s?{_NUM}{_SCALE}", re.I),
    re.compile(rf"(?<![\w.$,]){_NUM}{_SCALE}\s?(?:dollars|bucks|usd)\b", re.I),
    re.compile(rf"\bUSD\s?{_NUM}{_SCALE}", re.I),  # "USD 40"
    # bare "2.5k", but not retirement plans ("401k") nor "2.5k miles"
    re.compile(
        rf"(?<![\w.$,])(?!(?:401|403|457)k){_NUM}\s?(?P<scale>k)\b"
        r"(?![\s-]*(?:miles|mile|mi|km|steps|calories|words|people|users|tvs?|monitors?|displays?|screens?|"
        r"videos?|resolution|ultra|hdr|projectors?|cameras?|streaming|gaming|service|maintenance|"
        r"checkups?|inspections?|odometer|runs?|races?|subscribers?|followers?|views?)\b)",
        re.I,
    ),
)
# in words, with a money word after them: "twelve hundred and forty nine bucks", "two grand",
# "half a million dollars"; a number in words with no money word is not money ("two kids")
GRAND = re.compile(rf"(?<![\w.$,]){_NUM}\s?(?P<scale>grand)\b", re.I)  # "2 grand"
WORD_AMOUNT = re.compile(rf"(?<![\w-])(?P<words>{HALF}|{CARDINAL})[\s-]+(?P<unit>grand|dollars?|bucks?|usd)\b", re.I)
# no money word, but a money verb before: "I still owe like four hundred and fifty on the card",
# "paid 450 for it"; the number must end the clause or meet a small word ("2 kids", "3 days" are not money)
_MONEY_VERB_HINTS = ("owe", "paid", "pay", "cost", "charg", "spen")
VERB_AMOUNT = re.compile(
    rf"\b(?:owe[sd]?|owing|paid|pay|paying|costs?|costing|charged|spent|spend)\s+"
    rf"(?:(?:about|around|like|roughly|only|just|nearly|almost|me|him|her|them|you|us|another|back)\s+)*"
    rf"(?:(?P<words>{HALF}|{CARDINAL})|(?P<num>\d{{1,3}}(?:,\d{{3}})+|\d+)(?P<dec>\.\d{{1,2}})?)"
    r"(?=\s*[,.;!?)]|\s*$|\s+(?:on|for|to|in|at|by|from|and|but|so|total|in total|now|left|each|a|per|this|last|"
    r"next|today|yesterday|tomorrow|already|upfront|up front|cash)\b)",
    re.I,
)
# continental format: "€1.200,50", "1.200,50 €", "49,90 EUR" (dot thousands, comma decimals)
EURO_FORMAT = (
    re.compile(r"(?P<sign>€)\s?(?P<eu>\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+,\d{1,2})(?![\d.,])"),
    re.compile(r"(?<![\w.,])(?P<eu>\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+,\d{1,2})\s?(?P<sign>€|euros?\b|eur\b)", re.I),
)
OTHER_CURRENCY = (
    re.compile(rf"(?P<sign>[€£])\s?{_NUM}{_SCALE}", re.I),
    re.compile(rf"(?<![\w.$,]){_NUM}{_SCALE}\s?(?P<sign>euros?|eur|pounds? sterling|gbp)\b", re.I),
)
_CURRENCY = {"€": "EUR", "£": "GBP", "euro": "EUR", "euros": "EUR", "eur": "EUR", "gbp": "GBP",
             "pound sterling": "GBP", "pounds sterling": "GBP"}
DURATION_RANGE = re.compile(
    r"(?<![\w.$,/-])(?P<low>\d{1,4})\s*(?:[-–—]|to)\s*(?P<high>\d{1,4})\s*"
    r"(?P<unit>days?|weeks?|months?|years?)\b", re.I)
CENTS = re.compile(rf"(?<![\w.$,]){_NUM}\s+cents\b", re.I)
PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(?:%|percent\b)", re.I)
LABELLED_ID = re.compile(
    r"\b(?i:room|seat|row|gate|flight|suite|unit|apartment|apt|extension|ext|pin|code|number|no|#)\.?\s*"
    r"(?:(?i:is)\s+)?#?\s*(?P<id>[A-Z]{1,3}\s?\d{1,6}[A-Z]?|\d{1,6}[A-Z]?)(?![\w-])"
)
TOKEN = re.compile(r"(?<![\w@.$-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w@-])")
# "15th", "1990s", "512GB", "10mg", "30-year" are not identifiers; "12C" and "E7739482M" are
_NOT_ID = re.compile(r"\d+(?:[A-Za-z]{2,}|[a-z])|\d+(?:-[a-z]+)+")
COUNT = re.compile(
    rf"(?<![\w.$,/-])(?P<num>\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?|{'|'.join(NUMBER_WORDS)})"
    r"(?:\s+|(?=[A-Za-z]))(?P<unit>[A-Za-z][A-Za-z-]+)",
    re.I,
)
_NOT_UNIT = frozenset(
    "and or to of the a an in on at for with from by is are was were am pm st nd rd th x more "
    "than times percent dollars bucks cents usd now ago later each per so too total left instead "
    "before after but if would will could should can works work sounds be has have had do does did it ish".split()
)


@dataclass
class Values:
    dates: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    amounts_usd: list[float] = field(default_factory=list)
    percentages: list[float] = field(default_factory=list)
    counts: list[dict[str, JsonValue]] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    amounts_other: list[dict[str, JsonValue]] = field(default_factory=list)
    durations: list[dict[str, JsonValue]] = field(default_factory=list)

    def to_fields(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {}
        for name, values in vars(self).items():
            if values:
                out[name] = list(values)
        return out


def recognize(text: str, base: datetime | None = None) -> Values:
    """All values in `text`; `base` (the session time) resolves year-less and relative dates.
    A fresh `Values` each call (the scan itself is memoised)."""
    found = _scan(text, base)[0]
    fresh = Values(**{name: list(items) for name, items in vars(found).items()})
    fresh.counts = [dict(count) for count in found.counts]
    fresh.amounts_other = [dict(amount) for amount in found.amounts_other]
    fresh.durations = [dict(duration) for duration in found.durations]
    return fresh


def dates_and_times_at(text: str, base: datetime | None = None) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(start, ISO date) and (start, HH:MM) of each date and time in `text`, in text order:
    what `recognize` finds, with where (for readers that tell "leave March 3" from "back
    March 12"). Do not modify the lists."""
    _, dates, times = _scan(text, base)
    return dates, times


@lru_cache(maxsize=2048)
def _scan(text: str, base: datetime | None) -> tuple[Values, list[tuple[int, str]], list[tuple[int, str]]]:
    work = [text]  # one mutable string, blanked as recognisers consume spans
    values = Values()
    values.emails = _unique(_values(_take(work, EMAIL, lambda m: m.group(0))))
    values.phones = _unique(_values(_take(work, PHONE, lambda m: m.group(0))))
    dates = _dates_found(work, base)
    values.dates = _unique([d for _, d in dates])
    lower = text.lower()
    times = (_time_ranges(work) if _has(lower, _MERIDIEMS) else []) + _take(work, TIME, _time)
    if _DIGIT_H.search(text):
        times += _take(work, HOUR_H, _hour_h)
    if _has(lower, _CLOCK_WORDS):
        times += _take(work, CLOCK_WORD, _clock_word)
    times.sort()
    values.times = _unique(_values(times))
    values.durations = _values(_take(work, DURATION_RANGE, _duration))
    euros = EURO_FORMAT if "€" in text or "eur" in lower else ()
    other = [found for pattern in euros for found in _take(work, pattern, _euro_amount)]
    other += [found for pattern in OTHER_CURRENCY for found in _take(work, pattern, _other_amount)]
    values.amounts_other = _values(sorted(other, key=lambda item: item[0]))
    amounts = _take(work, CENTS, lambda m: _bounded(_number(m) / 100))
    for pattern in AMOUNTS:
        amounts += _take(work, pattern, _amount)
    if _has(lower, _MONEY_HINTS):
        amounts += _take(work, GRAND, _amount) + _take(work, WORD_AMOUNT, _word_amount)
    if _has(lower, _MONEY_VERB_HINTS):
        amounts += _take(work, VERB_AMOUNT, _verb_amount)
    values.amounts_usd = _unique(_values(sorted(amounts)))
    values.percentages = _unique(_values(_take(work, PERCENT, lambda m: _bounded(float(m.group(1))))))
    values.identifiers = _identifiers(work)
    values.counts = _values(_take(work, COUNT, _count))
    return values, dates, times


def _take(
    work: list[str], pattern: re.Pattern[str], convert: Callable[[re.Match[str]], T | None]
) -> list[tuple[int, T]]:
    """(position, value) of each match that converts (None results stay in the text); blank it out."""
    found: list[tuple[int, T]] = []
    text = work[0]
    for match in pattern.finditer(text):
        value = convert(match)
        if value is None:
            continue
        found.append((match.start(), value))
        start, end = match.span()
        text = text[:start] + " " * (end - start) + text[end:]
    work[0] = text
    return found


def _values(found: list[tuple[int, T]]) -> list[T]:
    return [value for _, value in found]


# a day said as an ordinal word after "to", "till", "back on" ... ("back on the twenty-first"); an
# ordinal beside a month ("the twenty-first of March") is read by ORDINAL_DATES
_SPOKEN_DAY = re.compile(rf"\b(?:to|till|until|through|thru|back(?:\s+on)?|returning(?:\s+on)?)\s+the\s+"
                         rf"(?P<w3>{ORDINAL})\b(?!\s+(?:one|time|week|day|night|leg|flight|half))", re.I)


def spoken_days(text: str) -> str:
    """`text` with each day said as a word after "to", "till", "back on" ... written in digits,
    padded to the same length (so positions still point into the original): "to the
    twenty-first" -> "to the 21st        "."""
    def digits(match: re.Match[str]) -> str:
        n = ordinal_value(match.group("w3"))
        if n is None:
            return match.group(0)
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        head = match.group(0)[:match.start("w3") - match.start(0)]
        return (head + f"{n}{suffix}").ljust(len(match.group(0)))
    return _SPOKEN_DAY.sub(digits, text)


def _dates_found(work: list[str], base: datetime | None) -> list[tuple[int, str]]:
    work[0] = spoken_days(work[0])
    found: list[tuple[int, str]] = []
    absolute_starts: list[int] = []
    lower = work[0].lower()
    ordinals = ORDINAL_DATES if _has(lower, _ORDINAL_HINTS) else ()
    # a writer who puts the day first once ("back 21/5") puts it first in "flying out 3/4" too
    day_first = "/" in lower and any(int(m.group("mm")) > 12 >= int(m.group("dd"))
                                     for m in NUMERIC_DATE.finditer(lower))
    for pattern in (ISO_DATE, DOTTED_DATE, *YEAR_FIRST, *ordinals, MONTH_DAY, DAY_MONTH, NUMERIC_DATE):
        for match in pattern.finditer(work[0]):
            day = _absolute(match, base, day_first=day_first and pattern is NUMERIC_DATE)
            if day is not None:
                found.append((match.start(), day.isoformat()))
                absolute_starts.append(match.start())
                _blank(work, match)
    if base is not None:
        worded = ((MONTH_END, month_end), (HOLIDAY, holiday)) if _has(lower, _DAY_WORD_HINTS) else ()
        for pattern, resolve in worded:
            for match in pattern.finditer(work[0]):
                day = resolve(match, base.date())
                if day is not None:
                    found.append((match.start(), day.isoformat()))
                    absolute_starts.append(match.start())
                    _blank(work, match)
        for match in WEEKDAY_DAY.finditer(work[0]):
            day = _weekday_day(match, base.date())
            if day is not None:
                found.append((match.start(), day.isoformat()))
                _blank(work, match)
        for match in RELATIVE.finditer(work[0]):
            # "next Thursday, November 21st": the absolute date that follows wins
            if any(0 <= start - match.end() <= 25 for start in absolute_starts):
                _blank(work, match)
                continue
            resolved = _relative(match.group(0).lower(), base.replace(tzinfo=None))
            if resolved is not None:
                found.append((match.start(), resolved))
                _blank(work, match)
    found.sort()
    return found


def _absolute(match: re.Match[str], base: datetime | None, *, day_first: bool = False) -> date | None:
    groups = match.groupdict()
    month_name = groups.get("month")
    month = MONTHS[month_name.lower().rstrip(".")] if month_name else int(groups["mm"])
    ordinal = groups.get("ord")
    day_of_month = ordinal_value(ordinal) if ordinal is not None else int(groups["dd"])
    if day_of_month is None:
        return None
    day = day_of_month
    if not month_name and (month > 12 >= day or day_first):
        month, day = day, month  # "31/5": only a day first reads as a date (British, Australian, Indian)
    year_text = groups.get("year")
    if groups.get("rel") is not None and base is not None:  # "this year", "next year"
        return _safe_date(base.year + (groups["rel"].lower() == "next"), month, day)
    if year_text is not None:
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        return _safe_date(year, month, day)
    if base is None:
        return None
    # no year given: the candidate nearest the session date
    candidates = [d for y in (base.year - 1, base.year, base.year + 1) if (d := _safe_date(y, month, day))]
    return min(candidates, key=lambda d: abs((d - base.date()).days), default=None)


def _weekday_day(match: re.Match[str], base: date) -> date | None:
    """ "Thursday the 21st", "Fri 6th": the day-of-month nearest `base` that falls on that weekday
    (from last month to four months on)."""
    weekday = [name[:3] for name in WEEKDAYS].index(match.group("weekday").lower()[:3])
    day = int(match.group("dd"))
    candidates = []
    for offset in range(-1, 5):  # "Saturday the 13th" in March: June's (a wrong weekday further off names none)
        year, month = divmod(base.year * 12 + base.month - 1 + offset, 12)
        candidate = _safe_date(year, month + 1, day)
        if candidate is not None and candidate.weekday() == weekday:
            candidates.append(candidate)
    # as near as a later one: the later ("Fri 6th" said on the 20th, when both the 6ths before and after are Fridays)
    return min(candidates, key=lambda d: (abs((d - base).days), d < base), default=None)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day) if 1000 <= year <= 2999 else None
    except ValueError:
        return None


@lru_cache(maxsize=4096)
def _relative(phrase: str, base: datetime) -> str | None:
    own = relative_day(phrase, base.date())
    if own is not None:
        return own.isoformat()
    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future", "RETURN_AS_TIMEZONE_AWARE": False}
    parsed = dateparser.parse(phrase.replace("tonight", "today"), languages=["en"], settings=settings)
    return parsed.date().isoformat() if parsed is not None else None


def _time(match: re.Match[str]) -> str | None:
    if match.group("h24") is not None:
        hour, minute = int(match.group("h24")), int(match.group("m24"))
    else:
        hour, minute = int(match.group("h")), int(match.group("m") or 0)
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match.group("ap").lower() == "p" else 0)
    return f"{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None


def _clock_word(match: re.Match[str]) -> str:
    return "00:00" if match.group("word").lower() == "midnight" else "12:00"


def _hour_h(match: re.Match[str]) -> str | None:
    before = match.string[max(0, match.start() - 8):match.start()]
    if match.group("mm") is None and _TIME_WORD_BEFORE.search(before) is None:
        return None  # "a 12h flight": hours, not a time
    return f"{int(match.group('hh')):02d}:{int(match.group('mm') or 0):02d}"


def _time_ranges(work: list[str]) -> list[tuple[int, str]]:
    """Both ends of each "2-4pm" (blanked), as (position, HH:MM)."""
    found: list[tuple[int, str]] = []
    for match in TIME_RANGE.finditer(work[0]):
        h1, h2 = int(match.group("h1")), int(match.group("h2"))
        m1, m2 = int(match.group("m1") or 0), int(match.group("m2") or 0)
        if not (1 <= h1 <= 12 and 1 <= h2 <= 12):
            continue
        pm = match.group("ap").lower() == "p"
        end = h2 % 12 + (12 if pm else 0)
        start = h1 % 12 + (12 if pm else 0)
        if (start, m1) >= (end, m2):  # "11-1pm": the start is on the other side of noon
            start = (start + 12) % 24
        if (start, m1) >= (end, m2):
            continue
        found += [(match.start(), f"{start:02d}:{m1:02d}"), (match.start("h2"), f"{end:02d}:{m2:02d}")]
        _blank(work, match)
    return found


def _word_amount(match: re.Match[str]) -> float | None:
    value = value_of(match.group("words"))
    if value is None:
        return None
    return _bounded(value * (1000 if match.group("unit").lower() == "grand" else 1))


def _verb_amount(match: re.Match[str]) -> float | None:
    if match.group("words") is not None:
        words = match.group("words")
        value = value_of(words)
        # "pay one on the 15th", "owe a lot": a lone small word is no amount
        return None if value is None or len(words.split()) == 1 and value < 20 else _bounded(value)
    raw = match.group("num")
    if "," not in raw and len(raw) == 4 and 1900 <= int(raw) <= 2099 and match.group("dec") is None:
        return None  # "spent 2019 in Lisbon": a year
    return _bounded(_number(match))


def _euro_amount(match: re.Match[str]) -> dict[str, JsonValue] | None:
    value = _bounded(float(match.group("eu").replace(".", "").replace(",", ".")))
    return None if value is None else {"value": value, "currency": "EUR"}


def _number(match: re.Match[str]) -> float:
    return float(match.group("num").replace(",", "") + (match.group("dec") or ""))


_SCALES = {"k": 1e3, "hundred": 1e2, "grand": 1e3,
           "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}


def _amount(match: re.Match[str]) -> float | None:
    scale = (match.group("scale") or "").lower()
    return _bounded(_number(match) * _SCALES.get(scale, 1.0))


def _other_amount(match: re.Match[str]) -> dict[str, JsonValue] | None:
    value = _amount(match)
    currency = _CURRENCY[match.group("sign").lower()]
    return None if value is None else {"value": value, "currency": currency}


def _duration(match: re.Match[str]) -> dict[str, JsonValue] | None:
    low, high = int(match.group("low")), int(match.group("high"))
    if low >= high:
        return None
    unit = match.group("unit").lower()
    return {"min": low, "max": high, "unit": unit if unit.endswith("s") else unit + "s"}


def _bounded(number: float) -> float | None:
    return number if number <= MAX_NUMBER else None


def _identifiers(work: list[str]) -> list[str]:
    found = [(m.start("id"), m.group("id")) for m in LABELLED_ID.finditer(work[0])]
    for start, value in found:
        _blank_span(work, start, start + len(value))
    for match in TOKEN.finditer(work[0]):
        token = match.group(0)
        if _is_identifier(token):
            found.append((match.start(), token))
            _blank(work, match)
    found.sort()
    return _unique([v for _, v in found])


def _is_identifier(token: str) -> bool:
    digits = sum(ch.isdigit() for ch in token)
    letters = sum(ch.isalpha() for ch in token)
    if digits == 0 or len(token) > MAX_IDENTIFIER:
        return False
    if letters:
        return digits + letters >= 3 and not _NOT_ID.fullmatch(token)
    return digits >= 5 if "-" not in token else digits >= 6


def _count(match: re.Match[str]) -> dict[str, JsonValue] | None:
    raw, unit = match.group("num").lower(), match.group("unit")
    if unit.lower() in _NOT_UNIT or unit[0].isupper() and unit[1:].islower():
        return None  # "1847 Maple Street", "2019 Honda": a proper noun, not a unit
    unit = unit.lower()
    if raw in NUMBER_WORDS:
        value = float(NUMBER_WORDS[raw])
    else:
        value = float(raw.replace(",", ""))
        if value > MAX_NUMBER:
            return None
        if raw.isdigit() and len(raw) == 4 and 1900 <= value <= 2099:
            return None  # a year, not a count
    return {"value": int(value) if value.is_integer() else value, "unit": unit}


def _has(lower: str, hints: tuple[str, ...]) -> bool:
    return any(hint in lower for hint in hints)


def _blank(work: list[str], match: re.Match[str]) -> None:
    _blank_span(work, *match.span())


def _blank_span(work: list[str], start: int, end: int) -> None:
    work[0] = work[0][:start] + " " * (end - start) + work[0][end:]


def _unique(items: list[T]) -> list[T]:
    out: list[T] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


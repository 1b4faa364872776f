"""How often a schedule sentence says something happens, on which weekdays, for how long
and until when: the recurrence half of `factlog.typed.events`.

- Weekdays: "tuesdays", "Tue", "thurs", "mon/wed/fri", "Tuesdays and Thursdays",
  "Monday, Wednesday and Friday", ranges ("fri-sun", "Mon-Fri", "Thursday through Sunday"),
  timetable letters ("MWF", "TTh"), "weekends" -> the weekday names in week order.
- Daily: "daily", "every day", "every morning" with no weekday -> "daily"; "every three weeks"
  -> "every 3 weeks".
- Cadence: "every other Thursday", "every second", "every two weeks", "biweekly",
  "fortnightly" -> "biweekly"; "monthly", "every first Monday", "the second Tuesday of the
  month" -> "monthly"; "every", "each", "weekly", a plural weekday ("Tuesdays",
  "Tuesday evenings"), "on Mondays", or two weekdays or more with no date -> "weekly";
  "twice a week" with no weekday -> "twice weekly".
- Length: "2 hours", "90 min", "an hour and a half", "one hour", "45-minute", "half an hour" -> minutes.
- First day: "starting next week" (next Monday, then the series' weekday), "from this week".
- Series end: "until / through the end of May", "through June", "ends in June" (the month's last day),
  "until May 30", "it ends 20/5" (day first when the first number cannot be a month),
  "for 8 weeks starting March 3" (the day before the ninth week starts: start + 8*7 - 1).
- Ended: "my pottery class ended last week", "we stopped the tutoring", "I quit choir",
  "the course is over": the whole series is off (not one occurrence).
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

from factlog.recognizers import NUMBER_WORDS, dates_and_times_at
from factlog.relative_dates import next_month_day
from factlog.timeparse import parse_date

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = "january february march april may june july august september october november december".split()
WEEKDAY = re.compile(
    r"(?<![\w-])(?P<day>mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?(?P<plural>s)?"
    r"(?P<part>\s+(?:mornings|afternoons|evenings|nights))?(?![\w-])\.?",
    re.I,
)
_WEEKDAY_DATE = re.compile(r",?\s*(?:the\s+\d{1,2}(?:st|nd|rd|th)\b|\d{1,2}/\d{1,2}\b|\d{1,2}(?:st|nd|rd|th)?\s+"
                           r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|"
                           r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d)", re.I)
_WORKDAYS = re.compile(r"\b(?:every|each)\s+weekday\b|\bweekdays\b|\bmonday\s+(?:to|through|thru|-)\s+friday\b|"
                       r"(?<![\w/-])M-F(?![\w/-])", re.I)
_WEEKEND = re.compile(r"\b(?:weekends|(?:every|each|other|on the|on)\s+weekend)\b", re.I)
# letters for days as timetables write them: "MWF", "M/W/F", "TTh", "T/Th", "TR"
_LETTER_DAYS = {"mwf": ("monday", "wednesday", "friday"), "m/w/f": ("monday", "wednesday", "friday"),
                "tth": ("tuesday", "thursday"), "t/th": ("tuesday", "thursday"), "tr": ("tuesday", "thursday"),
                "tuth": ("tuesday", "thursday"), "mw": ("monday", "wednesday"), "m/w": ("monday", "wednesday")}
_LETTERS = re.compile(r"(?<![\w/-])(?-i:MWF|M/W/F|TTh|T/Th|TR|TuTh|MW|M/W)(?![\w/-])")
_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?\b"
_DAY_WORD = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
# "fri-sun", "Mon-Fri", "Thursday through Sunday": every day from the first to the last
DAY_RANGE = re.compile(rf"(?<![\w-])(?P<first>{_DAY_WORD})\s*(?:-|–|to|through|thru)\s*(?P<last>{_DAY_WORD})(?![\w-])",
                       re.I)
_DAILY = re.compile(r"\bdaily\b|\b(?:every|each)\s+(?:single\s+)?(?:day|morning|evening|night)\b|"
                    r"\bseven days a week\b", re.I)
_BIWEEKLY = re.compile(rf"\b(?:every|each)\s+(?:other|second|2nd|two|2)\s+(?:weeks?\b|weekends?\b|(?={_DAY}))|"
                       r"\bbi-?weekly\b|\bfortnightly\b|\bevery\s+fortnight\b", re.I)
_WEEKLY = re.compile(rf"\b(?:every|each)\s+(?:single\s+)?(?:week\b|{_DAY})|"
                     r"\bweekly\b|\bstanding\b|\bon\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|\ba\s+week\b", re.I)
_MONTHLY = re.compile(r"\bmonthly\b|\bonce a month\b|\bof (?:the|each|every) month\b|\b(?:every|each) month\b|"
                      r"\b(?:every|each|the)\s+(?:first|1st|third|3rd|fourth|4th|last)\s+\w+day\b", re.I)
_EVERY_N_WEEKS = re.compile(r"\b(?:every|each)\s+(?P<n>three|four|five|six|[3-8])\s+weeks\b", re.I)
_TWICE = re.compile(r"\b(?:twice|two\s+times)\s+a\s+week\b", re.I)
_COUNT = rf"\d{{1,3}}|an?|one|{'|'.join(NUMBER_WORDS)}"
_HOURS = re.compile(rf"\b(?P<n>{_COUNT}|\d+\.5)[- ](?:(?P<half>and[- ]a[- ]half)[- ])?(?:hours?|hrs?|h)\b"
                    rf"(?:\s+and\s+(?P<m>\d{{1,2}})\s+min(?:ute)?s?)?", re.I)
# a number word needs a space or hyphen before its unit: "Dr Amin" is no "a min"
_MINUTES = re.compile(rf"\b(?:(?P<n>\d{{1,3}})[- ]?|(?P<w>{_COUNT})[- ])(?:minutes?|mins?)\b", re.I)
_UNTIL_END = re.compile(r"\b(?:(?:(?:through|thru|until|till|to|up)\s+)+the\s+end\s+of|through|thru|until|till|"
                        r"(?:ends?|ending|finishes|wraps up)\s+(?:at\s+the\s+end\s+of|in))\s+"
                        r"(?P<month>[A-Za-z]+)\b(?!\.?\s*\d)", re.I)
_UNTIL = re.compile(r"\b(?:through|thru|until|till|ends?(?:\s+on)?|ending(?:\s+on)?|last\s+one\s+is(?:\s+on)?)\s+"
                    r"(?P<rest>.*?)(?=,\s*(?!\d)|;|$)", re.I)  # its own clause: "until 20 o'clock, the first is ..."
_FOR_WEEKS = re.compile(rf"\bfor\s+(?:the\s+)?(?:next\s+)?(?P<n>{_COUNT})\s+(?P<unit>weeks?|wks?|months?)\b", re.I)
_STARTING = re.compile(r"\b(?:starting|from|beginning|begins|starts|effective|as of|"
                       r"(?:the\s+)?first(?:\s+(?:one|session|class|lesson|meeting))?\s+(?:is|will be)(?:\s+on)?|"
                       r"next one is(?:\s+on)?)\b(?P<rest>.*)", re.I)
ENDED = re.compile(
    r"\b(?:ended|has ended|is over|are over|was over|finished|wrapped up|(?:stopped|quit|dropped|discontinued)"
    r"(?:\s+(?:going\s+to|doing|taking|the|my|our|his|her))?|no longer (?:go(?:ing)? to|do|have|take|attend)|"
    r"(?:got|was|were|has been|have been)\s+(?:cancell?ed|discontinued)\s+(?:for good|permanently|altogether)|"
    r"(?:cancell?ed|dropped)\s+(?:it|the\s+\w+)?\s*(?:for good|permanently|altogether)|"
    r"(?:done|finished|through) with(?:\s+(?:the|my|our|his|her))?|no more|gave up(?:\s+(?:on\s+)?(?:the|my|our))?|"
    r"dropped out of(?:\s+(?:the|my|our))?|discharged (?:me\s+)?from(?:\s+(?:the|my|our))?)\b",
    re.I,
)


def number(raw: str) -> int:
    folded = raw.lower()
    if folded.isdigit():
        return int(folded)
    return 1 if folded in ("a", "an", "one") else NUMBER_WORDS.get(folded, 1)


def weekday_name(word: str) -> str:
    folded = word.casefold()[:3]
    return next(name for name in WEEKDAYS if name.startswith(folded))


def weekdays_named(sentence: str) -> list[str]:
    """The weekdays the sentence names, in week order ("mon/wed/fri" -> three), but not those
    that come with a date ("Saturday the 24th", "Tuesday, March 18", "wed 9/17": one day)."""
    found = {weekday_name(m.group("day")) for m in WEEKDAY.finditer(sentence)
             if not _WEEKDAY_DATE.match(sentence, m.end())}
    if _WORKDAYS.search(sentence):
        found |= set(WEEKDAYS[:5])
    if _WEEKEND.search(sentence):
        found |= {"saturday", "sunday"}
    for letters in _LETTERS.finditer(sentence):
        found |= set(_LETTER_DAYS[letters.group(0).lower()])
    for span in DAY_RANGE.finditer(sentence):
        if _WEEKDAY_DATE.match(sentence, span.end()):
            continue  # "Tuesday to Thursday, March 18": days of one week
        first = WEEKDAYS.index(weekday_name(span.group("first")))
        last = WEEKDAYS.index(weekday_name(span.group("last")))
        found |= {WEEKDAYS[(first + n) % 7] for n in range((last - first) % 7 + 1)}
    return [name for name in WEEKDAYS if name in found]


def cadence(sentence: str, weekdays: list[str]) -> str | None:
    """ "weekly", "biweekly", "twice weekly" (no weekday named), or None for a one-off."""
    if _MONTHLY.search(sentence):
        return "monthly"
    weeks = _EVERY_N_WEEKS.search(sentence)
    if weeks is not None:  # "chemo every three weeks"
        return f"every {number(weeks.group('n'))} weeks"
    if _BIWEEKLY.search(sentence):
        return "biweekly"
    if _TWICE.search(sentence) and not weekdays:
        return "twice weekly"
    if not weekdays:
        if _DAILY.search(sentence):
            return "daily"
        return "weekly" if re.search(r"\b(?:every|each)\s+(?:single\s+)?week\b|\bweekly\b", sentence, re.I) else None
    plural = any((m.group("plural") or m.group("part")) and not _WEEKDAY_DATE.match(sentence, m.end())
                 for m in WEEKDAY.finditer(sentence)) or \
        _WORKDAYS.search(sentence) is not None or _WEEKEND.search(sentence) is not None
    if _WEEKLY.search(sentence) or _TWICE.search(sentence) or plural or len(weekdays) > 1:
        return "weekly"
    return None


_NTH = {"first": "first", "1st": "first", "second": "second", "2nd": "second", "third": "third", "3rd": "third",
        "fourth": "fourth", "4th": "fourth", "last": "last"}
_NTH_WEEKDAY = re.compile(r"\b(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last)\s+"
                          rf"(?P<day>{_DAY_WORD})(?![\w-])", re.I)


def nth_weekday(sentence: str) -> str | None:
    """Which weekday of the month a monthly series is on ("the first Monday of every month",
    "every last Friday", "2nd Tuesday of the month") as "first monday", "last friday"; None
    when the sentence names none (or is not monthly: "every second Tuesday" is biweekly)."""
    if cadence(sentence, weekdays_named(sentence)) != "monthly":
        return None
    match = _NTH_WEEKDAY.search(sentence)
    if match is None:
        return None
    return f"{_NTH[match.group('nth').lower()]} {weekday_name(match.group('day'))}"


def minutes_long(sentence: str) -> int | None:
    """How long the sentence says something lasts ("2 hours", "90 min", "an hour and a half")."""
    half = re.search(r"\b(?:half an? hour|half-hour|half hour|(?:a\s+)?quarter of an hour)\b", sentence, re.I)
    if half is not None:
        return 15 if "quarter" in half.group(0).lower() else 30
    hours = _HOURS.search(sentence)
    if hours is not None:
        raw = hours.group("n")
        total = int(float(raw) * 60) if "." in raw else number(raw) * 60
        if hours.group("half") or re.match(r"\s+and\s+a\s+half\b", sentence[hours.end():], re.I):
            total += 30
        if hours.group("m"):
            total += int(hours.group("m"))
        return total if 0 < total <= 24 * 60 else None
    minutes = _MINUTES.search(sentence)
    if minutes is not None:
        total = number(minutes.group("n") or minutes.group("w"))
        return total if 0 < total <= 24 * 60 else None
    return None


def runs_for_weeks(sentence: str) -> bool:
    """The sentence gives a series' length in weeks ("runs for ten weeks", "for 8 weeks")."""
    weeks = _FOR_WEEKS.search(sentence)
    return weeks is not None and weeks.group("unit").lower().startswith("w")


def plus_minutes(clock: str, minutes: int) -> str | None:
    """ "16:00" + 45 -> "16:45"; None past midnight."""
    hours, mins = (int(part) for part in clock.split(":"))
    total = hours * 60 + mins + minutes
    return f"{total // 60:02d}:{total % 60:02d}" if total < 24 * 60 else None


def starting(sentence: str, today: date) -> date | None:
    """The day a series starts: "starting tmrw", "from March 4", "next one is on 9 April"."""
    match = _STARTING.search(sentence)
    if match is None:
        return None
    rest = match.group("rest")
    if re.match(r"\W*(?:tmrw|tmr|tomorrow|tmw)\b", rest, re.I):
        return today + timedelta(days=1)
    if re.match(r"\W*(?:today|tonight|this\s+week|now)\b", rest, re.I):
        return today
    if re.match(r"\W*next\s+week\b", rest, re.I):  # the week from next Monday on
        return today + timedelta(days=7 - today.weekday())
    day_first = day_first_date(rest, today)
    if day_first is not None:
        return day_first
    dates = dates_and_times_at(rest, _midday(today))[0]
    if dates:
        return parse_date(dates[0][1])
    nth = re.match(r"\W*(?:on\s+)?the\s+(?P<dd>\d{1,2})(?:st|nd|rd|th)\b", rest, re.I)  # "next one is the 9th"
    return None if nth is None else next_month_day(int(nth.group("dd")), today)


_DAY_FIRST = re.compile(r"(?<![\w/])(?P<d>\d{1,2})/(?P<m>\d{1,2})(?:/(?P<y>\d{2}|\d{4}))?(?![\w/])")


def day_first_date(text: str, today: date) -> date | None:
    """A day-first numeric date whose first number cannot be a month ("20/5" -> 20 May, the
    next one on or after `today` when no year is given); None otherwise ("3/4" stays US)."""
    match = _DAY_FIRST.search(text)
    if match is None or int(match.group("d")) <= 12:
        return None
    year = int(match.group("y")) if match.group("y") else today.year
    year += 2000 if year < 100 else 0
    try:
        found = date(year, int(match.group("m")), int(match.group("d")))
    except ValueError:
        return None
    if not match.group("y") and found < today:
        found = found.replace(year=found.year + 1)
    return found


def series_end(sentence: str, today: date, first: date | None) -> date | None:
    """The last day of a series: "until the end of June", "until May 30", "for 8 weeks"."""
    end = next((m for m in _UNTIL_END.finditer(sentence) if m.group("month").lower() in MONTHS), None)
    if end is not None:
        month = MONTHS.index(end.group("month").lower()) + 1
        year = today.year + (1 if month < today.month else 0)
        return date(year, month, calendar.monthrange(year, month)[1])
    weeks = _FOR_WEEKS.search(sentence)
    if weeks is not None:
        n = number(weeks.group("n"))
        begin = first or today
        if weeks.group("unit").lower().startswith("w"):
            return begin + timedelta(days=7 * n - 1)
        return None
    until = _UNTIL.search(sentence)
    if until is not None:
        day_first = day_first_date(until.group("rest"), today)
        if day_first is not None:
            return day_first
        dates = dates_and_times_at(until.group("rest"), _midday(today))[0]
        if dates:
            day = parse_date(dates[0][1])
            return day if day >= today else None
    return None


def _midday(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12)

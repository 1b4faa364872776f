"""Relative days against the session's date, with one rule each (`factlog.recognizers`
finds the phrases; these resolve them):

- "this Friday": the first Friday on or after today; "this coming Friday" / "coming
  Friday": the first Friday after today; "next Friday": the Friday of next week (weeks start
  on Monday), so on a Wednesday "next Friday" is nine days away, not two; "last Friday":
  the latest Friday before today; "next week Friday" / "Friday next week" / "Friday of next
  week": the Friday of next week too; "the Saturday after next": the Saturday after the coming
  one (the first Saturday after today, plus seven days).
- "in 3 days", "in two weeks", "a fortnight from now", "10 days ago": counted in days;
  "within 30 days" is a limit, not a day (left to the general parser, which names none).
- "end of the month" / "end of this month", "end of next month", "end of March", "end of
  the year": the last day of that month (year); a month name is the next such month (this
  one while it lasts).
- Holidays with a fixed day (Christmas Eve, Christmas Day, New Year's Eve, ...): the one nearest
  the session date, as for other dates without a year.
- "on the 25th" (`next_month_day`): that day this month, or next month once it is past.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from factlog.number_words import UNITS

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_COUNT = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,3})"
# what `factlog.recognizers.RELATIVE` does not already find ("next Friday", "in a fortnight" it does)
RELATIVE_DAY = re.compile(rf"this\s+coming\s+{_WEEKDAY}|(?:the\s+)?{_WEEKDAY}\s+after\s+next|"
                          rf"next\s+week\s+{_WEEKDAY}|{_WEEKDAY}\s+(?:of\s+)?next\s+week", re.I)
_MONTH_NAMES = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTH_NAMES.update({name[:3].lower(): number for name, number in list(_MONTH_NAMES.items())})
_MONTH_NAMES["sept"] = 9
MONTH_END = re.compile(
    r"\b(?:the\s+)?end\s+of\s+(?:(?P<rel>this|next|the|last)\s+(?P<unit>month|year)|"
    r"(?P<month>" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True)) + r")\b\.?)",
    re.I,
)
_HOLIDAYS = {
    "christmas eve": (12, 24), "christmas day": (12, 25), "boxing day": (12, 26),
    "new year's eve": (12, 31), "new years eve": (12, 31),
    "new year's day": (1, 1), "new years day": (1, 1), "halloween": (10, 31),
    "valentine's day": (2, 14), "valentines day": (2, 14), "st. patrick's day": (3, 17),
    "st patrick's day": (3, 17),
}  # not "Christmas" or "Halloween" alone: "Christmas shopping" names no day
HOLIDAY = re.compile(
    r"\b(?:" + "|".join(re.escape(name).replace("'", "['’]?") for name in
                        sorted(_HOLIDAYS, key=len, reverse=True)) + r")(?![\w'])",
    re.I,
)
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_AMOUNT = re.compile(rf"(?P<n>{_COUNT})\s+(?P<unit>day|week|fortnight)s?\b", re.I)


def relative_day(phrase: str, today: date) -> date | None:
    """The day a relative phrase names (see the module's rules), or None when it is none of
    the phrases ruled here (the caller may ask a general parser)."""
    words = phrase.lower().split()
    if words[-2:] == ["after", "next"] or words[-2:] == ["next", "week"]:  # "the Saturday after next"
        named = next((word for word in words if word in _DAYS), None)
        if named is not None:
            target = _DAYS.index(named)
            if words[-1] == "week":  # "Friday next week": as "next Friday"
                return today - timedelta(days=today.weekday()) + timedelta(days=7 + target)
            return today + timedelta(days=((target - today.weekday()) % 7 or 7) + 7)
    if words[-1] in _DAYS:
        target = _DAYS.index(words[-1])
        ahead = (target - today.weekday()) % 7
        if words[0] == "next":
            return today - timedelta(days=today.weekday()) + timedelta(days=7 + target)
        if words[0] == "last":
            return today - timedelta(days=(today.weekday() - target) % 7 or 7)
        if "coming" in words:
            return today + timedelta(days=ahead or 7)
        return today + timedelta(days=ahead)
    amount = _AMOUNT.search(phrase)
    if amount is None or words[0] == "within":  # "within 30 days (of the statement)": a limit, not a day
        return None
    raw = amount.group("n").lower()
    count = int(raw) if raw.isdigit() else 1 if raw in ("a", "an") else UNITS[raw]
    days = count * _UNIT_DAYS[amount.group("unit").lower()]
    return today - timedelta(days=days) if words[-1] == "ago" else today + timedelta(days=days)


def month_end(match: re.Match[str], today: date) -> date | None:
    """The last day of the month (or year) a `MONTH_END` match names."""
    rel = (match.group("rel") or "").lower()
    if match.group("unit") is not None and match.group("unit").lower() == "year":
        return date(today.year + {"next": 1, "last": -1}.get(rel, 0), 12, 31)
    if match.group("month") is not None:
        month = _MONTH_NAMES[match.group("month").lower()]
        year = today.year + (month < today.month)
    else:
        year, index = divmod(today.year * 12 + today.month - 1 + {"next": 1, "last": -1}.get(rel, 0), 12)
        month = index + 1
    return date(year, month, calendar.monthrange(year, month)[1])


def holiday(match: re.Match[str], today: date) -> date | None:
    """The day of a fixed-date holiday nearest `today`."""
    name = match.group(0).lower().replace("’", "'")
    found = _HOLIDAYS.get(name) or _HOLIDAYS.get(name.replace("'", "")) or _HOLIDAYS.get(name.replace("s ", "'s ", 1))
    if found is None:
        return None
    month, day = found
    candidates = [date(year, month, day) for year in (today.year - 1, today.year, today.year + 1)]
    return min(candidates, key=lambda d: abs((d - today).days))


def next_month_day(day: int, today: date) -> date | None:
    """The day-of-month `day` this month, or next month once it is past ("on the 25th"); None
    when neither month has it."""
    for ahead in (0, 1):
        year, month = divmod(today.year * 12 + today.month - 1 + ahead, 12)
        try:
            found = date(year, month + 1, day)
        except ValueError:
            continue
        if found >= today:
            return found
    return None

"""Reading fields from module records defensively.

Canonical fields are optional: a record class may lack a field entirely (structured facts
keep their own field names) or hold None. These helpers turn any value into the type a
check wants or None, so that one odd record is ignored rather than crashing a constraint;
`require` raises `MissingInput` when no record has a field at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time

from constraints.model import MissingInput
from factlog.timeparse import day_of, try_datetime


def records(module: object, attribute: str) -> list[object]:
    """The records under a list attribute (a single record counts as a one-item list)."""
    value = getattr(module, attribute, None)
    if value is None:
        raise MissingInput(f"the module has no {attribute!r}")
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    return [value]


def require(items: Iterable[object], what: str, *names: str) -> None:
    """Raise `MissingInput` when records exist but none of them has one of `names`."""
    items = list(items)
    if not items:
        return
    for name in names:
        if not any(hasattr(item, name) for item in items):
            raise MissingInput(f"{what} records have no {name!r} field")


def require_value(record: object, what: str, name: str) -> None:
    """Raise `MissingInput` when a single record lacks a field or holds None there."""
    if getattr(record, name, None) is None:
        raise MissingInput(f"{what} has no {name!r}")


def as_str(value: object) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    return None


def as_float(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def as_date(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return day_of(value.strip())
    return None


def as_datetime(value: object, now: datetime) -> datetime | None:
    """A datetime comparable with `now`: naive values take `now`'s zone, aware ones move to it."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time.min)
    elif isinstance(value, str):
        parsed = try_datetime(value.strip())
        if parsed is None:
            return None
        moment = parsed
    else:
        return None
    if (moment.tzinfo is None) == (now.tzinfo is None):
        return moment
    if moment.tzinfo is None:
        return moment.replace(tzinfo=now.tzinfo)
    return moment.astimezone().replace(tzinfo=None)


def fold(value: object) -> str | None:
    """A string normalised for comparison: stripped, case-folded; None if empty."""
    text = as_str(value)
    return text.casefold() if text else None


_THE_USER = frozenset({"", "me", "myself", "self", "user", "the user", "i"})


def person_of(record: object) -> str:
    """Who a record is about, case-folded: '' for the user (no `person`, None, "me", ...)."""
    who = fold(getattr(record, "person", None)) or ""
    return "" if who in _THE_USER else who


def label(record: object, *names: str, default: str) -> str:
    """The first non-empty string field among `names`, for messages."""
    for name in names:
        text = as_str(getattr(record, name, None))
        if text:
            return text
    return default

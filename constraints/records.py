"""Small helpers for reading module records: a field's raw value, moments comparable with
`now`, and who a record is about.

Fields of the canonical kinds are read, typed and converted, through the views of
`constraints.views`; these helpers work on what the views give.
"""

from __future__ import annotations

from datetime import datetime


def field_value(record: object, name: str) -> object:
    """A record's value for a field, None when the record lacks it."""
    return getattr(record, name, None)


def align(moment: datetime, now: datetime) -> datetime:
    """A datetime comparable with `now`: naive values take `now`'s zone, aware ones move to it."""
    if (moment.tzinfo is None) == (now.tzinfo is None):
        return moment
    if moment.tzinfo is None:
        return moment.replace(tzinfo=now.tzinfo)
    return moment.astimezone().replace(tzinfo=None)


def fold(text: str | None) -> str | None:
    """A string normalised for comparison (the views give it stripped): case-folded; None if None or empty."""
    return text.casefold() if text else None


_THE_USER = frozenset({"", "me", "myself", "self", "user", "the user", "i"})


def person_of(person: str | None) -> str:
    """Who a `person` field names, case-folded: '' for the user (None, "me", "myself", ...)."""
    if not person:
        return ""
    who = person.casefold()
    return "" if who in _THE_USER else who

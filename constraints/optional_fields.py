"""Reading fields a record may hold beyond the canonical vocabulary's current fields.

Conversations give documents a `start_date` and an `item`, and medications a `status`;
records compiled before those fields existed lack them. These readers take any record
(or typed view) and read such a field the way the typed views read theirs: a string is
stripped (blank reads as None), a date also accepts a datetime or an ISO string; a
missing field or a value of another type reads as None.
"""

from __future__ import annotations

from datetime import date, datetime

from constraints.records import field_value
from constraints.views import View
from factlog.timeparse import day_of


def _record(item: object) -> object:
    return item.source if isinstance(item, View) else item


def optional_text(item: object, name: str) -> str | None:
    value = field_value(_record(item), name)
    if isinstance(value, str):
        return value.strip() or None
    return None


def optional_day(item: object, name: str) -> date | None:
    value = field_value(_record(item), name)
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return day_of(value.strip())
    return None

"""A record value as JSON: the one rendering every reader of records shares (the manifest,
the semantic diff, recall). Dates ISO, Decimal and timedelta as text, enums by value,
records as objects (every field, in declaration order), sets sorted.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from factlog.model import JsonValue


def is_record(value: object) -> bool:
    """A dataclass instance (not a dataclass class)."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def to_json(value: object) -> JsonValue:
    """A record value as JSON: dates ISO, Decimal as text, enums by value, records as objects."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (timedelta, Decimal)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_json(item) for item in value), key=repr)
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if is_record(value):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}  # type: ignore[arg-type]
    return repr(value)

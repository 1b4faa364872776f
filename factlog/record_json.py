"""Record values as JSON: the one rendering every package uses (the diff, the query
output, the version manifest).

Dates and times are ISO text, a `timedelta` is an ISO 8601 duration (`P2DT3H`), a
`Decimal` is its text, an enum is its value, a record (dataclass instance) is an object of
its fields, lists/tuples/ranges are lists, sets are sorted lists, mapping keys are text.
A value of any other type shows as `<TypeName>`, never its repr (a repr can be anything).

A caller that must bound the work (query results are untrusted) passes a `Walk` whose
hooks spend a budget; without one nothing is spent (and nothing is called).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import KeysView, Mapping, ValuesView
from datetime import date, time, timedelta
from decimal import Decimal
from enum import Enum

from factlog.model import JsonValue


class Walk:
    """Hooks one rendering calls: on every value, every text and every integer."""

    def enter(self, depth: int) -> None:
        """Called once per value reached, `depth` levels down."""

    def text(self, text: str) -> str:
        """Every string of the output goes through here (and may be replaced)."""
        return text

    def integer(self, value: int) -> None:
        """Every integer of the output (a key or a value) is shown here first."""


def is_record(value: object) -> bool:
    """A record: a dataclass instance (not a dataclass class)."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def record_json(value: object, walk: Walk | None = None) -> JsonValue:
    """`value` (a record, a collection of them, or a plain value) as JSON data."""
    return _json(value, walk, 0)


def _json(value: object, walk: Walk | None, depth: int) -> JsonValue:
    if walk is not None:
        walk.enter(depth)
    depth += 1
    if isinstance(value, str):  # str-valued enums are their text
        return value if walk is None else walk.text(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list):
        return [_json(v, walk, depth) for v in value]
    if isinstance(value, Enum):
        return _json(value.value, walk, depth)
    if isinstance(value, int):
        if walk is not None:
            walk.integer(value)
        return int(value)
    scalar = scalar_text(value)
    if scalar is not None:
        return scalar if walk is None else walk.text(scalar)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # is_record, for mypy
        return {f.name: _json(getattr(value, f.name), walk, depth) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {_text(_key(k, walk), walk): _json(v, walk, depth) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return _sorted([_json(v, walk, depth) for v in value])
    if isinstance(value, (list, tuple, range, KeysView, ValuesView)):
        return [_json(v, walk, depth) for v in value]
    return f"<{type(value).__name__}>"


def _text(text: str, walk: Walk | None) -> str:
    return text if walk is None else walk.text(text)


def scalar_text(value: object) -> str | None:
    """Dates, times, durations and decimals as text; None for anything else."""
    if isinstance(value, (date, time)):  # datetime is a date
        return value.isoformat()
    if isinstance(value, timedelta):
        return iso_duration(value)
    if isinstance(value, Decimal):
        return str(value)
    return None


def iso_duration(delta: timedelta) -> str:
    """ISO 8601: `P2DT3H`, `PT1M30.5S`, `P0D`, `-P1D`."""
    sign = "-" if delta < timedelta(0) else ""
    delta = abs(delta)
    hours, rest = divmod(delta.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    second_text = f"{seconds + delta.microseconds / 1e6:g}" if delta.microseconds else str(seconds)
    clock = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M")) if n)
    if seconds or delta.microseconds:
        clock += f"{second_text}S"
    days = f"{delta.days}D" if delta.days or not clock else ""
    return f"{sign}P{days}{'T' + clock if clock else ''}"


def _key(key: object, walk: Walk | None) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, Enum):
        return _key(key.value, walk)
    scalar = scalar_text(key)
    if scalar is not None:
        return scalar
    if isinstance(key, tuple):
        return ", ".join(_key(k, walk) for k in key)
    if isinstance(key, int) and not isinstance(key, bool) and walk is not None:
        walk.integer(key)
    return str(key) if isinstance(key, (int, float, bool)) or key is None else repr(key)


def _sorted(items: list[JsonValue]) -> list[JsonValue]:
    """Mixed set members in a stable order: by kind, numbers by value, the rest by text."""
    numbers = sorted(i for i in items if isinstance(i, (int, float)) and not isinstance(i, bool))
    others = sorted(((type(i).__name__, str(i), i) for i in items
                     if not isinstance(i, (int, float)) or isinstance(i, bool)),
                    key=lambda entry: entry[:2])
    return ([i for kind, _, i in others if kind < "number"] + list(numbers)
            + [i for kind, _, i in others if kind > "number"])

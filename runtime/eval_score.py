"""Deterministic scoring of an analytical answer against its gold (`uac eval analytical`).

- `int`: exact (a float holding a whole number counts: `3.0` is `3`);
- `float`: within max(1 % of the gold, 0.01);
- `string`: case-insensitive containment either way (`"Book 12"` matches `"book 12 (2024)"`),
  never of an empty string;
- `set`: equal as sets after normalising each element; `list`: equal in order, normalised.

Normalising an element: text stripped and case-folded, a number rounded to 2 places (an
int and a float of the same value are equal), a date or time as ISO text, a tuple or list
element by element; a record (anything with `__dict__`) is not an answer and never matches.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import date, datetime, time
from decimal import Decimal
from typing import Literal

AnswerKind = Literal["int", "float", "string", "set", "list"]
ANSWER_KINDS: tuple[AnswerKind, ...] = ("int", "float", "string", "set", "list")
FLOAT_RELATIVE = 0.01
FLOAT_ABSOLUTE = 0.01

def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def normalise(value: object) -> object:
    """One element of a set or list answer, comparable with the gold's (see the module)."""
    if isinstance(value, str):
        return value.strip().casefold()
    number = _number(value)
    if number is not None:
        return round(number, 2)
    if isinstance(value, (date, datetime, time)):
        return value.isoformat()
    if isinstance(value, (tuple, list)):
        return tuple(normalise(item) for item in value)
    if value is None or isinstance(value, bool):
        return value
    return ("<unscorable>", id(value))  # equal to nothing else


def _elements(value: object) -> list[object] | None:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return None
    if isinstance(value, Mapping):
        return list(value.keys())
    return list(value)


def score(kind: AnswerKind, value: object, gold: object) -> bool:
    """Whether `value` (an answer of any type) matches `gold` (JSON data) under `kind`."""
    if kind == "int":
        number, expected = _number(value), _number(gold)
        return number is not None and expected is not None and number == expected
    if kind == "float":
        number, expected = _number(value), _number(gold)
        if number is None or expected is None:
            return False
        return abs(number - expected) <= max(FLOAT_RELATIVE * abs(expected), FLOAT_ABSOLUTE)
    if kind == "string":
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        if value is None or isinstance(value, (bool, list, tuple, set, frozenset, dict)):
            return False
        text = value.isoformat() if isinstance(value, (date, datetime, time)) else str(value)
        got, want = text.strip().casefold(), str(gold).strip().casefold()
        return bool(got) and bool(want) and (got in want or want in got)
    items, expected_items = _elements(value), _elements(gold)
    if items is None or expected_items is None:
        return False
    got_items = [normalise(item) for item in items]
    want_items = [normalise(item) for item in expected_items]
    if kind == "set":
        return _hashable(got_items) and _hashable(want_items) and set(got_items) == set(want_items)
    return got_items == want_items


def _hashable(items: list[object]) -> bool:
    try:
        set(items)
    except TypeError:
        return False
    return True

"""Turn a query result into JSON-ready data or into text for people.

Both spend the result budgets of `runtime.result_budget` as they go: at most `max_items`
values (shared references count each time they are reached), characters, nesting depth,
integer digits and time, so a result built to be huge fails fast with `ResultTooLarge`
(an `InputError`: one line, exit 2). Text that cannot be encoded (a lone surrogate such
as "\\ud800") is shown escaped, never passed on to crash the output stream.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum
from typing import Any

from runtime.result_budget import (
    MAX_RESULT_CHARS,
    MAX_RESULT_DEPTH,
    MAX_RESULT_VALUES,
    Budget,
    ResultTooLarge,
    check_int,
    check_result,
    too_large,
)

MAX_RENDER_ITEMS = MAX_RESULT_VALUES
RenderTooLarge = ResultTooLarge  # the name this module used to raise
_INLINE_CHARS = 100

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


def printable(text: str) -> str:
    """`text`, with anything UTF-8 cannot encode (lone surrogates) shown as `\\udXXX`."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class _Walk:
    """The budgets one rendering spends: values and time, depth, characters of text."""

    def __init__(self, max_items: int) -> None:
        self.budget = Budget(max_items)
        self.chars = 0

    def enter(self, depth: int) -> None:
        self.budget.spend()
        if depth > MAX_RESULT_DEPTH:
            raise too_large(f"nested over {MAX_RESULT_DEPTH} levels deep")

    def text(self, text: str) -> str:
        self.chars += len(text)
        if self.chars > MAX_RESULT_CHARS:
            raise too_large(f"over {MAX_RESULT_CHARS:,} characters")
        return printable(text)


def to_jsonable(value: object, *, max_items: int = MAX_RENDER_ITEMS) -> JsonValue:
    """Dates/times as ISO text, Decimal as text, records as objects, sets as sorted lists."""
    check_result(value, Budget(max_items))  # sized before anything is expanded
    return _json(value, _Walk(max_items), 0)


def _json(value: object, walk: _Walk, depth: int) -> JsonValue:
    walk.enter(depth)
    depth += 1
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return walk.text(value)
    if isinstance(value, Enum):
        return _json(value.value, walk, depth)
    if isinstance(value, int):
        check_int(value)
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    scalar = _scalar_text(value)
    if scalar is not None:
        return walk.text(scalar)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json(getattr(value, f.name), walk, depth)
                for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {walk.text(_key(k)): _json(v, walk, depth) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return _sorted([_json(v, walk, depth) for v in value])
    if isinstance(value, (list, tuple, range, type({}.keys()), type({}.values()))):
        return [_json(v, walk, depth) for v in value]
    return f"<{type(value).__name__}>"


def _scalar_text(value: object) -> str | None:
    if isinstance(value, (date, time)):  # datetime is a date
        return value.isoformat()
    if isinstance(value, timedelta):
        return _iso_duration(value)
    if isinstance(value, Decimal):
        return str(value)
    return None


def _iso_duration(delta: timedelta) -> str:
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


def _key(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, Enum):
        return _key(key.value)
    scalar = _scalar_text(key)
    if scalar is not None:
        return scalar
    if isinstance(key, tuple):
        return ", ".join(_key(k) for k in key)
    if isinstance(key, int) and not isinstance(key, bool):
        check_int(key)
    return str(key) if isinstance(key, (int, float, bool)) or key is None else repr(key)


def _sorted(items: list[JsonValue]) -> list[JsonValue]:
    """Mixed set members in a stable order: by kind, numbers by value, the rest by text."""
    numbers = sorted(i for i in items if isinstance(i, (int, float)) and not isinstance(i, bool))
    others = sorted(((type(i).__name__, str(i), i) for i in items
                     if not isinstance(i, (int, float)) or isinstance(i, bool)),
                    key=lambda entry: entry[:2])
    return ([i for kind, _, i in others if kind < "number"] + list(numbers)
            + [i for kind, _, i in others if kind > "number"])


def to_text(value: object, *, max_items: int = MAX_RENDER_ITEMS) -> str:
    """Readable text: scalars plainly, records as `Class: field=value ...`, collections as lines."""
    check_result(value, Budget(max_items))  # sized before anything is expanded
    return _text(value, _Walk(max_items), 0, 0)


def _text(value: object, walk: _Walk, indent: int, depth: int) -> str:
    walk.enter(depth)
    depth += 1
    if value is None:
        return "(none)"
    if isinstance(value, Enum):
        return _text(value.value, walk, indent, depth)
    if isinstance(value, float):
        return f"{value:.12g}" if math.isfinite(value) else str(value)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="minutes" if not value.second else "seconds")
    if isinstance(value, timedelta):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        check_int(value)
    if isinstance(value, (str, bool, int, date, time, Decimal)):
        return walk.text(str(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _record_text(value, walk, indent, depth)
    if isinstance(value, Mapping):
        return _lines([f"{_text(k, walk, 0, depth)}: {_text(v, walk, indent + 2, depth)}"
                       for k, v in value.items()], indent, "(empty)")
    if isinstance(value, (set, frozenset)):
        items = sorted((_text(v, walk, indent + 2, depth) for v in value))
    elif isinstance(value, (list, tuple, range, type({}.keys()), type({}.values()))):
        items = [_text(v, walk, indent + 2, depth) for v in value]
    else:
        return f"<{type(value).__name__}>"
    if isinstance(value, tuple):
        return f"({', '.join(items)})" if items else "()"
    inline = ", ".join(items)
    if len(inline) <= _INLINE_CHARS and "\n" not in inline:
        return inline or "(empty)"
    return _lines([f"- {item}" for item in items], indent, "(empty)")


def _record_text(record: Any, walk: _Walk, indent: int, depth: int) -> str:
    fields = [(f.name, getattr(record, f.name)) for f in dataclasses.fields(record)]
    return _fields_text(type(record).__name__, fields, getattr(record, "fact_ids", None), walk, indent, depth)


def _fields_text(class_name: str, fields: list[tuple[str, object]], facts: object, walk: _Walk,
                 indent: int, depth: int) -> str:
    shown = [f"{name}={_text(v, walk, indent + 2, depth)}" for name, v in fields
             if v is not None and name != "fact_ids"]
    ids = [_text(i, walk, 0, depth) for i in facts] if isinstance(facts, (list, tuple)) else []
    cite = f" [facts {', '.join(ids)}]" if ids else ""
    return f"{class_name}: {', '.join(shown)}{cite}"


def record_text(class_name: str, values: Mapping[str, object], fact_ids: list[int] | None, *,
                max_items: int = MAX_RENDER_ITEMS) -> str:
    """`to_text` of a record given as its class name, typed values and fact ids (a record
    read from a version's manifest): `Passport: number=X1, expiry_date=2030-01-01 [facts 1]`."""
    check_result([list(values.values()), fact_ids], Budget(max_items))
    walk = _Walk(max_items)
    walk.enter(0)
    return _fields_text(class_name, list(values.items()), fact_ids, walk, 0, 1)


def _lines(lines: list[str], indent: int, empty: str) -> str:
    if not lines:
        return empty
    pad = " " * indent
    return ("\n" if indent else "") + "\n".join(pad + line for line in lines)

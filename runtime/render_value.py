"""Turn a query result into JSON-ready data or into text for people.

Both walk at most `max_items` values (shared references count each time they
are reached), so a result built to be huge fails fast with `RenderTooLarge`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum
from typing import Any

MAX_RENDER_ITEMS = 100_000
_INLINE_CHARS = 100

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


class RenderTooLarge(ValueError):
    """The value has more parts than the renderer will walk."""


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit
        self.limit = limit

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise RenderTooLarge(f"result has over {self.limit:,} parts; narrow the query")


def to_jsonable(value: object, *, max_items: int = MAX_RENDER_ITEMS) -> JsonValue:
    """Dates/times as ISO text, Decimal as text, records as objects, sets as sorted lists."""
    return _json(value, _Budget(max_items))


def _json(value: object, budget: _Budget) -> JsonValue:
    budget.spend()
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, Enum):
        return _json(value.value, budget)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    scalar = _scalar_text(value)
    if scalar is not None:
        return scalar
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json(getattr(value, f.name), budget) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {_key(k): _json(v, budget) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((_json(v, budget) for v in value), key=_order)
    if isinstance(value, (list, tuple, range, type({}.keys()), type({}.values()))):
        return [_json(v, budget) for v in value]
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
    return str(key) if isinstance(key, (int, float, bool)) or key is None else repr(key)


def _order(item: JsonValue) -> tuple[str, str]:
    """Sort key for mixed set members: by kind, then by value text (numbers padded)."""
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        return ("number", f"{item:+032.6f}")
    return (type(item).__name__, str(item))


def to_text(value: object, *, max_items: int = MAX_RENDER_ITEMS) -> str:
    """Readable text: scalars plainly, records as `Class: field=value ...`, collections as lines."""
    return _text(value, _Budget(max_items), 0)


def _text(value: object, budget: _Budget, indent: int) -> str:
    budget.spend()
    if value is None:
        return "(none)"
    if isinstance(value, Enum):
        return _text(value.value, budget, indent)
    if isinstance(value, float):
        return f"{value:.12g}" if math.isfinite(value) else str(value)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="minutes" if not value.second else "seconds")
    if isinstance(value, timedelta):
        return str(value)
    if isinstance(value, (str, bool, int, date, time, Decimal)):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _record_text(value, budget, indent)
    if isinstance(value, Mapping):
        return _lines([f"{_text(k, budget, 0)}: {_text(v, budget, indent + 2)}"
                       for k, v in value.items()], indent, "(empty)")
    if isinstance(value, (set, frozenset)):
        items = sorted((_text(v, budget, indent + 2) for v in value))
    elif isinstance(value, (list, tuple, range, type({}.keys()), type({}.values()))):
        items = [_text(v, budget, indent + 2) for v in value]
    else:
        return f"<{type(value).__name__}>"
    if isinstance(value, tuple):
        return f"({', '.join(items)})" if items else "()"
    inline = ", ".join(items)
    if len(inline) <= _INLINE_CHARS and "\n" not in inline:
        return inline or "(empty)"
    return _lines([f"- {item}" for item in items], indent, "(empty)")


def _record_text(record: Any, budget: _Budget, indent: int) -> str:
    fields = [(f.name, getattr(record, f.name)) for f in dataclasses.fields(record)]
    shown = [f"{name}={_text(v, budget, indent + 2)}" for name, v in fields
             if v is not None and name != "fact_ids"]
    facts = getattr(record, "fact_ids", None)
    cite = f" [facts {', '.join(str(i) for i in facts)}]" if facts else ""
    return f"{type(record).__name__}: {', '.join(shown)}{cite}"


def _lines(lines: list[str], indent: int, empty: str) -> str:
    if not lines:
        return empty
    pad = " " * indent
    return ("\n" if indent else "") + "\n".join(pad + line for line in lines)

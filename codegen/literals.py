"""Python source for data values: every value becomes a literal that reads back as itself.

Strings are escaped here rather than with `repr`, so that the spelling is fixed (always
single quotes) and every character that could change how the source is read is escaped:
quotes, backslashes, line breaks, control and format characters (including bidi
overrides), surrogates and anything else `str.isprintable` rejects. Printable Unicode is
kept as is, so the generated module stays readable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time

_SIMPLE_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True)
class Aliases:
    """The names under which a module imported `date`, `datetime` and `time`."""

    date: str = "date"
    datetime: str = "datetime"
    time: str = "time"


_ESCAPE_TABLE = str.maketrans(_SIMPLE_ESCAPES)


def str_literal(text: str) -> str:
    if text.isprintable():
        if "'" not in text and "\\" not in text:
            return f"'{text}'"
        return f"'{text.translate(_ESCAPE_TABLE)}'"
    escaped = text.translate(_ESCAPE_TABLE)  # what is left unprintable needs a code escape
    if escaped.isprintable():
        return f"'{escaped}'"
    parts = ["'"]
    for ch in text:
        simple = _SIMPLE_ESCAPES.get(ch)
        if simple is not None:
            parts.append(simple)
        elif ch.isprintable():
            parts.append(ch)
        else:
            code = ord(ch)
            parts.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    parts.append("'")
    return "".join(parts)


def _clock(hour: int, minute: int, second: int, micro: int) -> list[int]:
    parts = [hour, minute]
    if second or micro:
        parts.append(second)
    if micro:
        parts.append(micro)
    return parts


def _call(name: str, args: list[int]) -> str:
    return f"{name}({', '.join(map(str, args))})"


def py_literal(value: object, aliases: Aliases = Aliases()) -> str:
    """Source text for `value`: None, bool, int, finite float, str, date, datetime and
    time (naive), and lists and string-keyed dicts of these. Anything else is refused."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write the non-finite number {value!r} as a literal")
        return repr(float(value))
    if isinstance(value, str):
        return str_literal(value)
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            raise ValueError("cannot write a time-zone-aware datetime as a literal")
        clock = _clock(value.hour, value.minute, value.second, value.microsecond)
        return _call(aliases.datetime, [value.year, value.month, value.day, *clock])
    if isinstance(value, date):
        return _call(aliases.date, [value.year, value.month, value.day])
    if isinstance(value, time):
        if value.tzinfo is not None:
            raise ValueError("cannot write a time-zone-aware time as a literal")
        return _call(aliases.time, _clock(value.hour, value.minute, value.second, value.microsecond))
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v, aliases) for v in value) + "]"
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError("only dicts with string keys can be written as literals")
            items.append(f"{str_literal(key)}: {py_literal(item, aliases)}")
        return "{" + ", ".join(items) + "}"
    raise ValueError(f"cannot write a value of type {type(value).__name__} as a literal")

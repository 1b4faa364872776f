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

from factlog.model import JsonValue
from factlog.record_json import Walk, record_json
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



def printable(text: str) -> str:
    """`text`, with anything UTF-8 cannot encode (lone surrogates) shown as `\\udXXX`."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class _Walk(Walk):
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

    def integer(self, value: int) -> None:
        check_int(value)


def to_jsonable(value: object, *, max_items: int = MAX_RENDER_ITEMS) -> JsonValue:
    """`factlog.record_json` within the result budgets (dates ISO, durations ISO 8601)."""
    check_result(value, Budget(max_items))  # sized before anything is expanded
    return record_json(value, _Walk(max_items))


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

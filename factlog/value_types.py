"""The type of a JSON value and how two types join: the rules the compiler infers field
types with (`codegen.schema`) and the door checks type drift with (`factlog.field_types`).

Value types: bool (never int), int, float, str, and strings in ISO form become `date`
(`YYYY-MM-DD`), `datetime` (naive `YYYY-MM-DD[T ]HH:MM[:SS[.ffffff]]`) or `time`
(`HH:MM[:SS]`). Joining: int+float -> float, date+datetime -> datetime, two different
string forms -> str, lists join item by item; anything else is CONFLICT.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from factlog.model import JsonValue
from factlog.timeparse import parse_date, parse_datetime, parse_time

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?", re.ASCII)
_TIME = re.compile(r"\d{2}:\d{2}(:\d{2})?", re.ASCII)
_STRINGY = frozenset({"str", "date", "datetime", "time"})
_WIDER = {frozenset({"int", "float"}): "float", frozenset({"date", "datetime"}): "datetime"}


@dataclass(frozen=True)
class PyType:
    """`base` is bool/int/float/str/date/datetime/time/dict/list; lists have `item`
    (None while only empty lists were seen) and `item_nullable`."""

    base: str
    item: PyType | None = None
    item_nullable: bool = False


CONFLICT = PyType("conflict")
SCALARS = {name: PyType(name) for name in ("bool", "int", "float", "str", "date", "datetime", "time", "dict")}
STR = SCALARS["str"]


def string_type(value: str) -> str:
    n = len(value)
    if n == 10 and _DATE.fullmatch(value):
        return _checked(parse_date, value, "date")
    if n >= 16 and _DATETIME.fullmatch(value):
        return _checked(parse_datetime, value, "datetime")
    if n in (5, 8) and _TIME.fullmatch(value):
        return _checked(parse_time, value, "time")
    return "str"


def _checked(parse: Callable[[str], object], value: str, name: str) -> str:
    try:
        parse(value)
    except ValueError:
        return "str"
    return name


def type_of(value: JsonValue) -> PyType | None:
    """The type of one non-null value (CONFLICT for a list of irreconcilable items)."""
    if value is None:
        return None
    if isinstance(value, str):
        return SCALARS[string_type(value)]
    if isinstance(value, bool):
        return SCALARS["bool"]
    if isinstance(value, int):
        return SCALARS["int"]
    if isinstance(value, float):
        return SCALARS["float"]
    if isinstance(value, dict):
        return SCALARS["dict"]
    item: PyType | None = None
    nullable = False
    for element in value:
        element_type = type_of(element)
        if element_type is None:
            nullable = True
        else:
            item = element_type if item is None else join(item, element_type)
    if item is CONFLICT:
        return CONFLICT
    return PyType("list", item, nullable)


def join(a: PyType, b: PyType) -> PyType:
    """The narrowest type holding both, or CONFLICT when they cannot be reconciled."""
    if a is b or a == b:
        return a
    if a.base == "list" and b.base == "list":
        item = a.item if b.item is None else b.item if a.item is None else join(a.item, b.item)
        if item is CONFLICT:
            return CONFLICT
        return PyType("list", item, a.item_nullable or b.item_nullable)
    if a.base in _STRINGY and b.base in _STRINGY:
        return SCALARS[_WIDER.get(frozenset({a.base, b.base}), "str")]
    wider = _WIDER.get(frozenset({a.base, b.base}))
    return SCALARS[wider] if wider else CONFLICT


def infer_field(values: Sequence[JsonValue]) -> PyType | None:
    """Join of all non-null values' types (CONFLICT if irreconcilable); None if all null."""
    result: PyType | None = None
    for value in values:
        value_type = type_of(value)
        if value_type is not None:
            result = value_type if result is None else join(result, value_type)
            if result is CONFLICT:
                break
    return result


def describe_type(t: PyType) -> str:
    """`float`, `list[str]`, ...: how a message names a type."""
    if t.base == "list":
        return f"list[{describe_type(t.item) if t.item else 'str'}]"
    if t.base == "dict":
        return "dict (JSON object)"
    return t.base


def widens(old: PyType, new: PyType) -> bool:
    """True when `new` (a join with `old`) keeps what code over `old` values relies on:
    the same type, int -> float (both numbers), date -> datetime, or lists of such items.
    Anything else (a CONFLICT, or a date/number field turning into text) is a retype."""
    if new is CONFLICT:
        return False
    if old == new or (old.base, new.base) in (("int", "float"), ("date", "datetime")):
        return True
    if old.base == "list" and new.base == "list":
        return old.item is None or (new.item is not None and widens(old.item, new.item))
    return False


def type_to_text(t: PyType) -> str:
    """A stable spelling for storage: `float`, `list[int]`, `list[str?]`, `conflict`."""
    if t.base != "list":
        return t.base
    item = type_to_text(t.item) if t.item is not None else ""
    return f"list[{item}{'?' if t.item_nullable else ''}]"


def type_from_text(text: str) -> PyType:
    if not text.startswith("list["):
        return CONFLICT if text == "conflict" else SCALARS.get(text, PyType(text))
    inner = text[5:-1]
    nullable = inner.endswith("?")
    inner = inner[:-1] if nullable else inner
    return PyType("list", type_from_text(inner) if inner else None, nullable)

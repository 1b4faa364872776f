"""Strict readers of decoded JSON, for persisted documents read on hot paths (no pydantic).

A reader takes a decoded JSON value and returns the typed value, or raises `Invalid`
naming where (`attempts.0.stage`) and what is wrong. Strict: a JSON `true` is not a
number, `"3"` is not a count, an object with a key the reader does not name is refused.
The one exception is an integer object key (`"12"`), which JSON can only write as text.

`format_body` is the rule every persisted format follows (`factlog.formats` uses it too):
a document without a `format` key is format 1, a newer format than the code reads is
refused. `read_document` runs a reader over a document's body and turns `Invalid` into
one `InputError` line naming the source.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

from factlog.errors import InputError

T = TypeVar("T")
K = TypeVar("K")
LEGACY_FORMAT = 1  # what a document without a `format` key is

Where = tuple[str | int, ...]
Reader = Callable[[object, Where], T]


class Invalid(ValueError):
    """A value a reader refused: where it is (keys and indexes) and why."""

    def __init__(self, where: Where, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message

    def line(self) -> str:
        where = ".".join(str(part) for part in self.where) or "document"
        return f"{where}: {self.message}"


def fail(where: Where, message: str) -> NoReturn:
    raise Invalid(where, message)


def format_body(data: object, *, source: str, current: int) -> tuple[dict[str, Any], int]:
    """The document's keys but `format`, and the format it was written in (1 without the
    key); InputError for a non-object, a format that is no format number, or a newer one."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: expected a JSON object")
    found = data.get("format", LEGACY_FORMAT)
    if not isinstance(found, int) or isinstance(found, bool) or found < 1:
        raise InputError(f"{source}: format {found!r} is not a format version")
    if found > current:
        raise InputError(f"{source}: format {found} was written by a newer release "
                         f"(this one reads up to format {current})")
    return {k: v for k, v in data.items() if k != "format"}, found


def read_document(data: object, *, source: str, current: int, read: Callable[[dict[str, Any]], T],
                  upgrade: Callable[[dict[str, Any], int], dict[str, Any]] | None = None) -> T:
    """`read(body)` of a persisted document (`format_body`; `upgrade` turns an older format's
    body into the current shape); one InputError line naming `source` if anything is wrong."""
    body, found = format_body(data, source=source, current=current)
    if found < current and upgrade is not None:
        body = upgrade(body, found)
    try:
        return read(body)
    except Invalid as bad:
        raise InputError(f"{source}: {bad.line()}") from None


# -- objects --------------------------------------------------------------------------------

def fields(value: object, where: Where, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object holding every `required` key and no key outside `required` and `optional`."""
    if not isinstance(value, dict):
        fail(where, "expected a JSON object")
    for name in required:
        if name not in value:
            fail((*where, name), "field required")
    if len(value) > len(required):
        allowed = set(required) | set(optional)
        for name in value:
            if name not in allowed:
                fail((*where, name), "unknown key (not permitted)")
    return value


# -- scalars --------------------------------------------------------------------------------

def integer(value: object, where: Where, minimum: int | None = None) -> int:
    if type(value) is not int:
        fail(where, "expected an integer")
    if minimum is not None and value < minimum:
        fail(where, f"expected an integer >= {minimum}")
    return value


def count(value: object, where: Where) -> int:
    return integer(value, where, 0)


def fact_id(value: object, where: Where) -> int:
    return integer(value, where, 1)


def number(value: object, where: Where, minimum: float | None = None) -> float:
    """A finite number (an integer is fine, a bool is not), as a float."""
    if type(value) is int:
        value = float(value)
    elif type(value) is not float or not math.isfinite(value):
        fail(where, "expected a finite number")
    if minimum is not None and value < minimum:
        fail(where, f"expected a number >= {minimum:g}")
    return value


def seconds(value: object, where: Where) -> float:
    return number(value, where, 0.0)


def text(value: object, where: Where, min_length: int = 0, max_length: int | None = None,
         pattern: re.Pattern[str] | None = None) -> str:
    if type(value) is not str:
        fail(where, "expected a string")
    if len(value) < min_length:
        fail(where, f"expected at least {min_length} character{'s' * (min_length != 1)}")
    if max_length is not None and len(value) > max_length:
        fail(where, f"expected at most {max_length} characters")
    if pattern is not None and not pattern.fullmatch(value):
        fail(where, f"does not match {pattern.pattern}")
    return value


def any_text(value: object, where: Where) -> str:
    return text(value, where)


def name(value: object, where: Where) -> str:
    """A non-empty string (an entity id, an attribute, a stage)."""
    return text(value, where, 1)


def boolean(value: object, where: Where) -> bool:
    if type(value) is not bool:
        fail(where, "expected true or false")
    return value


def json_value(value: object, where: Where) -> Any:
    """Any decoded JSON value, as it is."""
    return value


def int_key(value: object, where: Where, minimum: int = 1) -> int:
    """An integer object key: decimal digits (JSON writes `{12: ...}` as `{"12": ...}`)."""
    if type(value) is int:
        found = value
    elif type(value) is str and value.isascii() and value.isdigit() and len(value) <= 18:
        found = int(value)
    else:
        fail(where, "expected an integer key")
    if found < minimum:
        fail(where, f"expected an integer key >= {minimum}")
    return found


def fact_key(value: object, where: Where) -> int:
    return int_key(value, where, 1)


# -- containers -----------------------------------------------------------------------------

def optional(read: Reader[T]) -> Reader[T | None]:
    def read_optional(value: object, where: Where) -> T | None:
        return None if value is None else read(value, where)
    return read_optional


def list_of(read: Reader[T], max_length: int | None = None) -> Reader[list[T]]:
    def read_list(value: object, where: Where) -> list[T]:
        if type(value) is not list:
            fail(where, "expected a list")
        if max_length is not None and len(value) > max_length:
            fail(where, f"expected at most {max_length} items")
        return [read(item, (*where, i)) for i, item in enumerate(value)]
    return read_list


def dict_of(key: Reader[K], read: Reader[T]) -> Reader[dict[K, T]]:
    def read_dict(value: object, where: Where) -> dict[K, T]:
        if type(value) is not dict:
            fail(where, "expected a JSON object")
        return {key(k, (*where, k)): read(v, (*where, k)) for k, v in value.items()}
    return read_dict


def get(data: Mapping[str, Any], key: str, read: Reader[T], where: Where, default: Callable[[], T]) -> T:
    """`read` of an optional key's value, `default()` when the key is absent."""
    if key not in data:
        return default()
    return read(data[key], (*where, key))


def none() -> None:
    """The default of an optional key whose absence reads as None."""
    return None

"""Record lines written straight from an entity's merged JSON fields (and a note's text and
dates), for the compiler's hot path.

`entity_line(plan, fields, fact_ids)` is exactly `render.record_line(class_name, record)`
of the record made by coercing each field of the spec (`schema.coerce`, None values left
out, fact ids ascending): same text, same temporal names. It skips building the record:
a JSON string in a date, datetime or time field maps to its literal through a cache (the
same strings recur across records), every other value takes the literal the same rules
give. A value it does not know (or that cannot be written) raises `Unhandled`, and the
caller renders that record by the general path, so results and errors stay the general
path's. `note_line` is the same for a note (its text, dates and `factlog.note_fields` values).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Callable

from codegen.literals import py_literal, str_literal
from codegen.render import temporal_kinds
from codegen.schema import STR, ClassSpec, PyType, as_text
from factlog.model import JsonValue
from factlog.timeparse import parse_date, parse_datetime, parse_time
from factlog.vocabulary import NOTE_CLASS, PROVENANCE_FIELD

_PARSERS: dict[str, Callable[[str], object]] = {"date": parse_date, "datetime": parse_datetime, "time": parse_time}
_MAX_CACHED = 50_000
_TEMPORAL: dict[tuple[str, str], tuple[str, frozenset[str]]] = {}  # (field base, JSON string) -> literal, names
_DATES: dict[date, str] = {}  # a note's date -> its literal


class Unhandled(Exception):
    """A value the fast path leaves to the general one."""


@dataclass(frozen=True)
class LinePlan:
    """What writing a spec's record lines needs: per field (original name, `name=`, type,
    kept as text, the type's name when it is date, datetime or time, else ""), in the
    spec's order."""

    class_name: str
    fields: tuple[tuple[str, str, PyType, bool, str], ...]


def line_plan(spec: ClassSpec) -> LinePlan:
    return LinePlan(spec.names.class_name, tuple(
        (f.original, f"{f.name}=", f.type, f.as_text, f.type.base if f.type.base in _PARSERS else "")
        for f in spec.fields))


def _temporal(base: str, text: str, needed: set[str]) -> str:
    key = (base, text)
    known = _TEMPORAL.get(key)
    if known is None:
        value = _PARSERS[base](text)  # raises as `coerce` would; the caller falls back
        names: set[str] = set()
        temporal_kinds(value, names)
        known = (py_literal(value), frozenset(names))
        if len(_TEMPORAL) >= _MAX_CACHED:
            _TEMPORAL.clear()
        _TEMPORAL[key] = known
    needed |= known[1]
    return known[0]


def _literal(value: JsonValue, t: PyType, needed: set[str]) -> str:
    """The literal of `coerce`'s value of `value` in a field of type `t` (not as text)."""
    kind = type(value)
    base = t.base
    if kind is str:
        assert isinstance(value, str)
        return _temporal(base, value, needed) if base in _PARSERS else str_literal(value)
    if kind is int or kind is bool:
        return repr(float(value)) if base == "float" else py_literal(value)  # type: ignore[arg-type]
    if kind is float or value is None:
        return py_literal(value)  # a non-finite float raises; the caller falls back
    if kind is list:
        assert isinstance(value, list)
        if base == "list":
            item = t.item or STR
            return "[" + ", ".join([_literal(v, item, needed) for v in value]) + "]"
        return py_literal(value)  # a JSON list holds no temporal values
    if kind is dict:
        return py_literal(value)  # kept as given (and `temporal_kinds` does not look inside)
    raise Unhandled(kind.__name__)


def entity_line(plan: LinePlan, fields: Mapping[str, JsonValue], fact_ids: Sequence[int]) -> tuple[str, frozenset[str]]:
    """The record line of an entity with these merged fields (see module); raises on
    anything the general path must render."""
    line, needs = entity_line_needs(plan, fields, fact_ids)
    return line, frozenset(needs.split(",")) if needs else _NO_NEEDS


def entity_line_needs(plan: LinePlan, fields: Mapping[str, JsonValue], fact_ids: Sequence[int]) -> tuple[str, str]:
    """`entity_line` with the temporal names as the compiler keeps them: sorted, comma-separated."""
    needed: set[str] | None = None
    args = []
    get = fields.get
    for original, prefix, field_type, text, temporal in plan.fields:
        value = get(original)
        if value is None:
            continue
        kind = type(value)
        if text:
            args.append(prefix + str_literal(as_text(value)))
        elif kind is str:  # the common cases inline: a string, a temporal string seen before
            assert isinstance(value, str)
            if not temporal:
                args.append(prefix + str_literal(value))
                continue
            known = _TEMPORAL.get((temporal, value))
            if needed is None:
                needed = set()
            if known is None:
                args.append(prefix + _temporal(temporal, value, needed))
            else:
                args.append(prefix + known[0])
                needed |= known[1]
        elif kind is float and field_type.base == "float" and math.isfinite(value):  # type: ignore[arg-type]
            args.append(prefix + repr(value))
        elif kind is bool and field_type.base == "bool":
            args.append(prefix + ("True" if value else "False"))
        else:
            if needed is None:
                needed = set()
            args.append(prefix + _literal(value, field_type, needed))
    if len(fact_ids) == 1:
        args.append(f"{PROVENANCE_FIELD}=[{fact_ids[0]}]")
    else:
        args.append(f"{PROVENANCE_FIELD}=[{', '.join(map(str, fact_ids))}]")
    return f"{plan.class_name}({', '.join(args)})", _needs_text(needed) if needed else ""


_NEEDS_TEXT: dict[frozenset[str], str] = {}


def _needs_text(needs: set[str]) -> str:
    key = frozenset(needs)
    text = _NEEDS_TEXT.get(key)
    if text is None:
        text = _NEEDS_TEXT[key] = ",".join(sorted(key))
    return text


def note_line(text: str, dates: Sequence[date], extra: Sequence[tuple[str, JsonValue]],
              fact_id: int) -> tuple[str, frozenset[str]]:
    """`record_line(NOTE_CLASS, Record((("text", text), ("dates", list(dates)), *extra), (fact_id,)))`
    for the values `factlog.note_fields.note_extra` gives: strings, and lists of strings or floats."""
    literals = []
    for day in dates:
        if type(day) is not date:
            raise Unhandled(type(day).__name__)
        known = _DATES.get(day)
        if known is None:
            if len(_DATES) >= _MAX_CACHED:
                _DATES.clear()
            known = _DATES[day] = py_literal(day)
        literals.append(known)
    args = "".join(f", {name}={_extra_literal(value)}" for name, value in extra)
    line = (f"{NOTE_CLASS}(text={str_literal(text)}, dates=[{', '.join(literals)}]{args}, "
            f"{PROVENANCE_FIELD}=[{fact_id}])")
    return line, _DATE_NEEDS if literals else _NO_NEEDS


def _extra_literal(value: JsonValue) -> str:
    if type(value) is str:
        return str_literal(value)
    if type(value) is not list:
        raise Unhandled(type(value).__name__)
    items = []
    for item in value:
        if type(item) is str:
            items.append(str_literal(item))
        elif type(item) is float and math.isfinite(item):
            items.append(repr(item))
        else:
            raise Unhandled(type(item).__name__)
    return f"[{', '.join(items)}]"


_DATE_NEEDS = frozenset({"date"})
_NO_NEEDS: frozenset[str] = frozenset()

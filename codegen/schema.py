"""Stage 2: field types inferred from every value a field holds across a kind's records.

Value types: bool (never int), int, float, str, and strings in ISO form become `date`
(`YYYY-MM-DD`), `datetime` (naive `YYYY-MM-DD[T ]HH:MM[:SS[.ffffff]]`) or `time`
(`HH:MM[:SS]`). Date-times with a UTC offset stay `str`: the generated module may only
call `datetime(...)` with literal arguments, which cannot express a time zone. Lists are
`list[T]` (items may be None: `list[T | None]`; a field whose lists are all empty is
`list[str]`). JSON objects are `dict[str, Any]`, kept exactly as given.

Joining the types of all values: int+float -> float, date+datetime -> datetime (a date
means midnight), two different string forms -> str (the original strings), lists join item
by item. Anything else (int with str, bool with int, list with scalar, ...) cannot be
reconciled: the field becomes `str` and every value is kept as its original text (strings
as they are, other values as JSON).

A field is required (`T`) when every record has a non-null value for it, otherwise
`T | None = None`. Canonical fields (from the vocabulary) are always optional and always
present in their class, so that constraints can rely on them; they keep the canonical type
when all values fit it (the join with it is the canonical type), else fall back to `str`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Sequence

from codegen.live import Entity
from codegen.naming import KindNames, field_names
from factlog.model import JsonValue
from factlog.timeparse import parse_date, parse_datetime, parse_time
from factlog.value_types import CONFLICT as CONFLICT  # the type rules live in the fact log
from factlog.value_types import SCALARS as _SCALARS
from factlog.value_types import STR as STR
from factlog.value_types import PyType as PyType
from factlog.value_types import infer_field as infer_field
from factlog.value_types import join as join
from factlog.value_types import string_type as string_type
from factlog.value_types import type_of as type_of
from factlog.vocabulary import CANONICAL


@dataclass(frozen=True)
class FieldSpec:
    original: str  # the field name as the facts spell it
    name: str  # the Python field name
    type: PyType
    required: bool
    as_text: bool  # irreconcilable values: every value is kept as its original text


@dataclass(frozen=True)
class ClassSpec:
    names: KindNames
    fields: tuple[FieldSpec, ...]

    @property
    def renamed(self) -> dict[str, str]:
        return {f.original: f.name for f in self.fields if f.original != f.name}


def infer_class(names: KindNames, entities: Sequence[Entity]) -> ClassSpec:
    domain = CANONICAL.get(names.kind)
    canonical: Mapping[str, str] = domain.fields if domain else {}
    order = list(canonical)
    seen = set(order)
    for entity in entities:
        for name in entity.fields:
            if name not in seen:
                seen.add(name)
                order.append(name)
    python = field_names(order)
    specs = []
    for original in order:
        values = [e.fields.get(original) for e in entities]
        inferred = infer_field(values)
        if original in canonical:
            wanted = _SCALARS[canonical[original]]
            fits = inferred is None or join(inferred, wanted) == wanted
            field_type, required = (wanted if fits else STR), False
        else:
            fits = inferred is not CONFLICT
            field_type = inferred if inferred is not None and fits else STR
            required = all(v is not None for v in values)
        specs.append(FieldSpec(original, python[original], field_type, required, not fits))
    return ClassSpec(names, tuple(specs))


def as_text(value: JsonValue) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def coerce(value: JsonValue, spec: FieldSpec) -> object:
    """The Python value of a JSON value in a field of this spec."""
    if value is None:
        return None
    if spec.as_text:
        return as_text(value)
    return _coerce(value, spec.type)


def _coerce(value: JsonValue, t: PyType) -> object:
    if value is None:
        return None
    base = t.base
    if base == "date" and isinstance(value, str):
        return parse_date(value)
    if base == "datetime" and isinstance(value, str):
        return parse_datetime(value)
    if base == "time" and isinstance(value, str):
        return parse_time(value)
    if base == "float" and isinstance(value, int):
        return float(value)
    if base == "list" and isinstance(value, list):
        item = t.item or STR
        return [_coerce(v, item) for v in value]
    return value

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

import hashlib
import json
from dataclasses import dataclass
from typing import Mapping, Sequence

from codegen.compile_state import FieldStats
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
from factlog.value_types import type_from_text, type_to_text
from factlog.value_types import type_of as type_of
from factlog.vocabulary import CANONICAL, NOTE_FIELDS, NOTE_REQUIRED


@dataclass(frozen=True)
class FieldSpec:
    original: str  # the field name as the facts spell it
    name: str  # the Python field name
    type: PyType
    required: bool
    as_text: bool  # irreconcilable values: every value is kept as its original text
    empty_list: bool = False  # not required, a list defaulting to empty (never None): the notes' lists


@dataclass(frozen=True)
class ClassSpec:
    names: KindNames
    fields: tuple[FieldSpec, ...]

    @property
    def renamed(self) -> dict[str, str]:
        return {f.original: f.name for f in self.fields if f.original != f.name}


def contribution(ordinal: int, fields: Mapping[str, JsonValue]) -> tuple[tuple[str, int, str | None], ...]:
    """What one entity adds to its kind's schema inputs: (field, index among its fields,
    value type as text or None for a null)."""
    out = []
    for index, (name, value) in enumerate(fields.items()):
        out.append((name, index, _type_text(value)))
    return tuple(out)


_STRING_TYPES: dict[str, str] = {}  # a string value -> its type text (strings recur: cities, dates)
_SIMPLE = {bool: "bool", int: "int", float: "float"}


def _type_text(value: JsonValue) -> str | None:
    if value is None:
        return None
    simple = _SIMPLE.get(type(value))
    if simple is not None:
        return simple
    if isinstance(value, str) and len(value) <= 32:
        known = _STRING_TYPES.get(value)
        if known is None:
            if len(_STRING_TYPES) >= 100_000:
                _STRING_TYPES.clear()
            known = _STRING_TYPES[value] = string_type(value)
        return known
    value_type = type_of(value)
    return None if value_type is None else type_to_text(value_type)


def add_fields(stats: dict[str, FieldStats], ordinal: int, fields: Mapping[str, JsonValue]) -> None:
    """`add_contribution(stats, ordinal, contribution(ordinal, fields), 1)` for an entity
    whose ordinal is above every one added before (a build from scratch, in ordinal order):
    a field seen for the first time is first here."""
    index = 0
    for name, value in fields.items():
        entry = stats.get(name)
        if entry is None:
            entry = stats[name] = FieldStats(first=(ordinal, index))
        index += 1
        entry.present += 1
        if value is None:
            continue
        kind = type(value)
        value_type = _STRING_TYPES.get(value) if kind is str else _SIMPLE.get(kind)  # type: ignore[arg-type]
        if value_type is None:
            value_type = _type_text(value)
            if value_type is None:
                continue
        entry.nonnull += 1
        types = entry.types
        if value_type in types:
            types[value_type] += 1
        else:
            types[value_type] = 1


def add_contribution(stats: dict[str, FieldStats], ordinal: int,
                     items: tuple[tuple[str, int, str | None], ...], sign: int) -> set[str]:
    """Add (`sign=1`) or remove (`-1`) one entity's contribution; returns the fields whose
    first appearance was removed (their `first` must be found again)."""
    lost: set[str] = set()
    for name, index, value_type in items:
        entry = stats.get(name)
        if entry is None:
            entry = stats[name] = FieldStats()
        entry.present += sign
        if value_type is not None:
            entry.nonnull += sign
            count = entry.types.get(value_type, 0) + sign
            if count:
                entry.types[value_type] = count
            else:
                entry.types.pop(value_type, None)
        if sign > 0 and (entry.first is None or (ordinal, index) < entry.first):
            entry.first = (ordinal, index)
        elif sign < 0 and entry.first == (ordinal, index):
            lost.add(name)
        if entry.present <= 0:
            del stats[name]
            lost.discard(name)
    return lost


def spec_from_stats(names: KindNames, stats: Mapping[str, FieldStats], count: int) -> ClassSpec:
    """The class of a kind from its schema inputs (`count` live entities): canonical fields
    first, then the others in order of first appearance (entities by ordinal, each's fields
    in order); each field's type is the join of its values' types."""
    domain = CANONICAL.get(names.kind)
    canonical: Mapping[str, str] = domain.fields if domain else {}
    order = list(canonical)
    order += sorted((n for n in stats if n not in canonical), key=lambda n: stats[n].first or (0, 0))
    python = field_names(order)
    specs = []
    for original in order:
        entry = stats.get(original)
        inferred: PyType | None = None
        for text in sorted(entry.types) if entry else ():
            value_type = type_from_text(text)
            inferred = value_type if inferred is None else join(inferred, value_type)
        if original in canonical:
            wanted = _SCALARS[canonical[original]]
            fits = inferred is None or join(inferred, wanted) == wanted
            field_type, required = (wanted if fits else STR), False
        else:
            fits = inferred is not CONFLICT
            field_type = inferred if inferred is not None and fits else STR
            required = entry is not None and entry.nonnull == count
        specs.append(FieldSpec(original, python[original], field_type, required, not fits))
    return ClassSpec(names, tuple(specs))


def infer_class(names: KindNames, entities: Sequence[Entity]) -> ClassSpec:
    """The class of a kind from its entities (in ordinal order)."""
    stats: dict[str, FieldStats] = {}
    for ordinal, entity in enumerate(entities):
        add_contribution(stats, ordinal, contribution(ordinal, entity.fields), 1)
    return spec_from_stats(names, stats, len(entities))


def note_field_specs() -> tuple[FieldSpec, ...]:
    """The `Note` class's fields, as the vocabulary declares them (`NOTE_FIELDS`): the
    NOTE_REQUIRED ones required, the other lists empty by default, the others None."""
    specs = []
    for name, annotation in NOTE_FIELDS.items():
        field_type = type_from_text(annotation)
        required = name in NOTE_REQUIRED
        specs.append(FieldSpec(name, name, field_type, required, False,
                               not required and field_type.base == "list"))
    return tuple(specs)


def spec_digest(spec: ClassSpec) -> str:
    """sha256 of everything a class module's text is made from."""
    text = json.dumps([spec.names.kind, spec.names.class_name, spec.names.attribute, spec.names.stem,
                       spec.names.singular, [[f.original, f.name, type_to_text(f.type), f.required, f.as_text]
                                             + ([True] if f.empty_list else []) for f in spec.fields]])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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

"""Reading a loaded package as data: its record classes, its record collections, and
record values as JSON — what the semantic diff compares.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from factlog.identity import content_digest, first_cited
from factlog.model import JsonValue
from factlog.record_json import record_json
from factlog.vocabulary import PROVENANCE_FIELD

_QUALIFIER = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_])")


@dataclass(frozen=True)
class Collection:
    """A module-level record attribute: `trips: list[Trip]` or `passport: Passport | None`."""

    attribute: str
    singular: bool
    records: list[Any]


def annotation_text(annotation: object) -> str:
    """A field annotation as comparable text: `date | None`, whatever the module imported."""
    if isinstance(annotation, str):
        text = annotation
    elif isinstance(annotation, type):
        text = annotation.__qualname__
    else:
        text = str(annotation)
    return _QUALIFIER.sub("", text.replace("typing.", ""))


def record_classes(module: ModuleType) -> dict[str, dict[str, str]]:
    """Public dataclass classes: class name -> {field name: annotation text}."""
    classes = {}
    for name, value in vars(module).items():
        if not name.startswith("_") and isinstance(value, type) and dataclasses.is_dataclass(value):
            classes[name] = {f.name: annotation_text(f.type) for f in dataclasses.fields(value)}
    return classes


def _is_record(value: object) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def collections(module: ModuleType) -> dict[str, Collection]:
    """Public record attributes. Lists of records are collections (empty lists too); a record
    or None is a singular one. (Chunk lists are private, `_trips_000`, so none counts twice.)
    """
    found: dict[str, Collection] = {}
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, (type, ModuleType)):
            continue
        if isinstance(value, list) and all(_is_record(item) for item in value):
            found[name] = Collection(name, False, list(value))
        elif value is None or _is_record(value):
            found[name] = Collection(name, True, [] if value is None else [value])
    return found


def fact_ids(record: object) -> list[int]:
    ids = getattr(record, PROVENANCE_FIELD, None) or []
    return sorted({i for i in ids if isinstance(i, int) and not isinstance(i, bool)})


def field_names(record: object) -> list[str]:
    return [f.name for f in dataclasses.fields(record) if f.name != PROVENANCE_FIELD]  # type: ignore[arg-type]


def to_json(value: object) -> JsonValue:
    """A record value as JSON (`factlog.record_json`: dates ISO, durations ISO 8601)."""
    return record_json(value)


def same_value(before: object, after: object) -> bool:
    """Equal as data and of the same type name (classes differ per loaded version)."""
    return type(before).__name__ == type(after).__name__ and to_json(before) == to_json(after)


def label(record: object, limit: int | None = 3, width: int | None = 40) -> str:
    """`Trip(destination='Lisbon', departure_date=2024-05-01)`: the set fields (the first
    `limit` of them, each cut at `width` characters; None for all and whole), no provenance."""
    parts = []
    for name in field_names(record):
        value = getattr(record, name, None)
        if value is None or value == [] or value == {}:
            continue
        text = value_text(value)
        if width is not None and len(text) > width:
            text = text[:width] + "…"
        parts.append(f"{name}={text}")
        if len(parts) == limit:
            break
    return f"{type(record).__name__}({', '.join(parts)})"


def value_text(value: object) -> str:
    """Strings as their repr, dates ISO (also inside lists), everything else as JSON text."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return f"[{', '.join(value_text(v) for v in value)}]"
    return str(to_json(value))


def entity_ids(
    collection: Collection, entities: Mapping[str, Sequence[int]] | None
) -> list[tuple[str, Any]]:
    """Pair each record with its entity id.

    A singular attribute is one entity. Otherwise, with an entity map (entity id -> fact
    ids, from the version's metadata) the record belongs to the entity holding its smallest
    mapped fact id; without one its entity id is its smallest fact id: an updated entity
    keeps its first fact, so the id is stable across versions (unless that very first fact
    is retracted while later ones stay). A record without fact ids is identified by content.
    """
    if collection.singular:
        return [(collection.attribute, record) for record in collection.records]
    owner = {fact: entity for entity, ids in (entities or {}).items() for fact in ids}
    paired = []
    for record in collection.records:
        ids = fact_ids(record)
        mapped = [owner[i] for i in ids if i in owner]
        first = first_cited(ids)
        if mapped:
            paired.append((mapped[0], record))
        elif first is not None:
            paired.append((f"#{first}", record))
        else:
            paired.append((f"content:{content_digest(repr(to_json(record)))}", record))
    return paired

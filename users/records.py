"""Reading a version's records as data, from its manifest (`codegen.manifest`): its record
classes, its record collections, and record values — what the semantic diff compares.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

from codegen.manifest import Manifest, RecordInfo, build_manifest
from codegen.manifest import annotation_text as annotation_text
from factlog.identity import content_digest
from factlog.model import JsonValue
from factlog.record_json import record_json as to_json
from factlog.vocabulary import PROVENANCE_FIELD


@dataclass(frozen=True)
class Record:
    """One record of a manifest, with its values typed again (dates are dates)."""

    class_name: str
    values: dict[str, object]  # field -> value, declaration order, provenance left out
    fact_ids: list[int]  # distinct, ascending
    entity: str | None  # entity identity from the facts it cites, if known
    has_provenance: bool = True  # its class declares `fact_ids`

    def get(self, name: str) -> object:
        return self.values.get(name)


@dataclass(frozen=True)
class Collection:
    """A module-level record attribute: `trips: list[Trip]` or `passport: Passport | None`."""

    attribute: str
    singular: bool
    records: list[Record]


def module_manifest(module: ModuleType | Mapping[str, object]) -> Manifest:
    """The manifest of a loaded module (or namespace), without entity identities."""
    return build_manifest(vars(module) if isinstance(module, ModuleType) else module)


def record_classes(manifest: Manifest) -> dict[str, dict[str, str]]:
    """Public record classes: class name -> {field name: annotation text}."""
    return manifest.public_classes()


def _record(manifest: Manifest, info: RecordInfo) -> Record:
    cls = manifest.classes.get(info.record_class)
    has_ids = cls is None or any(name == PROVENANCE_FIELD for name, _ in cls.fields)
    return Record(info.record_class, manifest.typed_values(info), list(info.fact_ids), info.entity, has_ids)


def collections(manifest: Manifest) -> dict[str, Collection]:
    """Public record attributes. Lists of records are collections (empty lists too); a record
    or None is a singular one. (Chunk lists are private, `_trips_000`, so none counts twice.)
    """
    return {name: Collection(name, c.singular, [_record(manifest, r) for r in c.records])
            for name, c in manifest.collections.items()}


def fact_ids(record: Record) -> list[int]:
    return record.fact_ids


def field_names(record: Record) -> list[str]:
    return list(record.values)


def same_value(before: object, after: object) -> bool:
    """Equal as data and of the same type name (classes differ per loaded version)."""
    return type(before).__name__ == type(after).__name__ and to_json(before) == to_json(after)


def label(record: Record, limit: int | None = 3, width: int | None = 40) -> str:
    """`Trip(destination='Lisbon', departure_date=2024-05-01)`: the set fields (the first
    `limit` of them, each cut at `width` characters; None for all and whole), no provenance."""
    parts = []
    for name in field_names(record):
        value = record.get(name)
        if value is None or value == [] or value == {}:
            continue
        text = value_text(value)
        if width is not None and len(text) > width:
            text = text[:width] + "…"
        parts.append(f"{name}={text}")
        if len(parts) == limit:
            break
    return f"{record.class_name}({', '.join(parts)})"


def value_text(value: object) -> str:
    """Strings as their repr, dates ISO (also inside lists), everything else as JSON text."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return f"[{', '.join(value_text(v) for v in value)}]"
    return str(to_json(value))


def record_json(record: Record) -> dict[str, JsonValue]:
    """The record as JSON, every field (provenance last, as classes declare it)."""
    data = {name: to_json(value) for name, value in record.values.items()}
    if record.has_provenance:
        data[PROVENANCE_FIELD] = list(record.fact_ids)
    return data


def entity_ids(collection: Collection, use_identity: bool) -> list[tuple[str, Record]]:
    """Pair each record with its entity id.

    A singular attribute is one entity. Otherwise, with identities (both versions have
    them) a record is the entity its facts name; without, its entity id is its smallest
    fact id: an updated entity keeps its first fact, so the id is stable across versions
    (unless that very first fact is retracted while later ones stay). A record without
    fact ids is identified by content.
    """
    if collection.singular:
        return [(collection.attribute, record) for record in collection.records]
    paired = []
    for record in collection.records:
        ids = record.fact_ids
        if use_identity and record.entity is not None:
            paired.append((record.entity, record))
        elif ids:
            paired.append((f"#{ids[0]}", record))
        else:
            paired.append((f"content:{content_digest(repr(record_json(record)))}", record))
    return paired

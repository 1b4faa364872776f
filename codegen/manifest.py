"""The manifest of a version: what readers need of a module without importing it again.

The validator's coverage stage walks the loaded module once and produces both the coverage
report and the manifest (`walk_module`); the store keeps it next to the version
(`manifest.json`, hashed in `meta.json`). It holds:

- `classes`: every record class (the module's public dataclasses, and the class of every
  record found), its fields in declaration order with their annotation text;
- `collections`: each public record attribute (`trips: list[Trip]`, or a singular
  `passport: Passport | None`), its class and size, and its records in module order: each
  record's JSON (`factlog.record_json`, provenance apart), its fact ids and its
  entity identity (from the facts it cites: `record_identity`);
- `others`: the remaining public values (their type, a list's size, else their JSON);
- `date_ranges`: per collection, per field holding dates: the earliest and latest (ISO);
- `quarantined`: the facts the module declares it left out (`_quarantined` in
  `__init__.py`, see `declared_quarantine`) and those the caller named, with the reason.

Equal modules give equal bytes (`Format.dump` sorts keys; lists keep module order).
Readers get typed values back with `typed_values` (ISO dates become dates again, guided by
the field's annotation), so rendering from a manifest matches rendering the live record.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import operator
import re
import types
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import AbstractSet, Any, ClassVar, Protocol, Self, runtime_checkable

from codegen.coverage import CoverageReport, collect_cited, report
from codegen.gc_pause import gc_paused
from codegen.manifest_file import MANIFEST_FILE as MANIFEST_FILE
from codegen.record_shape import split_top_level
from factlog import strict_json as J
from factlog.errors import InputError
from factlog.identity import record_identity as identity_of_record
from factlog.model import Fact
from factlog.record_json import is_record
from factlog.record_json import record_json as to_json
from factlog.timeparse import parse_date, parse_datetime, parse_time
from factlog.vocabulary import NOTE_ATTRIBUTE, PROVENANCE_FIELD

QUARANTINE_NAME = "_quarantined"  # in __init__.py: {fact id: reason} the module left out
MAX_REASON = 1000  # characters of a quarantine reason

_QUALIFIER = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_])")

Identity = Callable[[Sequence[int]], "str | None"]  # a record's fact ids -> its entity id


class _Part:
    """A manifest's parts are plain frozen dataclasses (a manifest is read on query and recall
    paths, which load no pydantic): trusted code builds them, `Manifest.load` reads them
    strictly. `model_construct` and `model_copy` are the spellings its builders use."""

    @classmethod
    def model_construct(cls, **values: Any) -> Self:
        """An instance from checked values (the dataclass's own constructor)."""
        return cls(**values)

    def model_copy(self, *, update: Mapping[str, Any]) -> Self:
        """A copy with the fields in `update` replaced (`dataclasses.replace`)."""
        return dataclasses.replace(self, **update)  # type: ignore[type-var]


@dataclass(frozen=True)
class ClassInfo(_Part):
    fields: list[tuple[str, str]]  # (field name, annotation text), in declaration order
    public: bool = True  # a public name of the module (else only the class of some record)


@dataclass(frozen=True)
class RecordInfo:
    """One record. (A plain dataclass read by `_read_records`: a version holds thousands,
    built on every checkpoint.)"""

    record_class: str
    fact_ids: list[int]  # distinct, ascending
    entity: str | None  # entity identity; None when unknown (no facts given)
    values: dict[str, Any]  # field -> JSON of its value, provenance left out


@dataclass(frozen=True)
class CollectionInfo(_Part):
    singular: bool  # `passport: Passport | None` rather than a list
    record_class: str | None  # the class of its records (None for an empty one)
    size: int
    records: list[RecordInfo]
    # Sizes of the consecutive runs of records that came from one chunk list (summing to
    # `size`), in order; [] when the collection is one run.
    parts: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class DateRange(_Part):
    min: str  # ISO
    max: str


@dataclass(frozen=True)
class OtherValue(_Part):
    type: str  # the value's type name
    size: int | None = None  # for a list
    value: Any = None  # JSON of anything but a list


@dataclass(frozen=True)
class Manifest(_Part):
    FORMAT: ClassVar[int] = 2  # 2: collections have `parts`

    names: list[str] = field(default_factory=list)  # the module's public names (modules aside), in order
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    collections: dict[str, CollectionInfo] = field(default_factory=dict)
    others: dict[str, OtherValue] = field(default_factory=dict)
    date_ranges: dict[str, dict[str, DateRange]] = field(default_factory=dict)  # collection -> field -> range
    quarantined: dict[int, str] = field(default_factory=dict)  # fact id -> why it was left out
    format: int = FORMAT

    @classmethod
    def load(cls, data: object, *, source: str) -> Manifest:
        """A decoded `manifest.json` (any format this release reads; format 1 lacked `parts`:
        each collection reads as one run); one InputError line naming `source` if bad."""
        return J.read_document(data, source=source, current=cls.FORMAT, read=_read_manifest)

    @classmethod
    def parse(cls, text: str | bytes, *, source: str) -> Manifest:
        """Decode JSON text and `load` it."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, digits
            raise InputError(f"{source}: not valid JSON ({type(exc).__name__})") from None
        return cls.load(data, source=source)

    def dump(self, *, indent: int | None = None) -> str:
        """Compact JSON (non-ASCII escaped, so any string a module holds can be written).
        Deterministic: names sorted, a record's values in its class's field order, so
        equal modules give equal bytes. Built directly: a manifest holds every record, and
        one is written on every checkpoint."""
        data = {
            "classes": {name: {"fields": [list(f) for f in c.fields], "public": c.public}
                        for name, c in sorted(self.classes.items())},
            "collections": {name: {
                "parts": c.parts,
                "record_class": c.record_class,
                "records": records_data(c.records),
                "singular": c.singular, "size": c.size,
            } for name, c in sorted(self.collections.items())},
            "date_ranges": {attribute: {name: {"max": r.max, "min": r.min} for name, r in sorted(fields.items())}
                            for attribute, fields in sorted(self.date_ranges.items())},
            "format": self.format,
            "names": list(self.names),
            "others": {name: {"size": o.size, "type": o.type, "value": o.value}
                       for name, o in sorted(self.others.items())},
            "quarantined": {str(fact): reason for fact, reason in sorted(self.quarantined.items())},
        }
        return json.dumps(data, indent=indent, separators=(",", ":") if indent is None else None)

    def runs(self, name: str) -> list[list[RecordInfo]]:
        """The collection's records cut into its parts (one run when it has none)."""
        collection = self.collections[name]
        if not collection.parts:
            return [collection.records]
        runs, start = [], 0
        for size in collection.parts:
            runs.append(collection.records[start:start + size])
            start += size
        return runs

    def record_counts(self) -> dict[str, int]:
        """Module attribute -> records (what `meta.json` `record_counts` held), by name, the
        notes last (the compiler's order)."""
        return {name: self.collections[name].size
                for name in sorted(self.collections, key=lambda name: (name == NOTE_ATTRIBUTE, name))}

    def entities(self) -> dict[str, list[int]]:
        """Entity id -> fact ids of its records, for every record with an identity."""
        found: dict[str, list[int]] = {}
        for _, record in self.records():
            if record.entity is not None:
                found.setdefault(record.entity, []).extend(record.fact_ids)
        return found

    def records(self) -> Iterator[tuple[str, RecordInfo]]:
        """(attribute, record) for every record, in the module's order."""
        for name in self.names:
            collection = self.collections.get(name)
            for record in collection.records if collection is not None else ():
                yield name, record

    def public_classes(self) -> dict[str, dict[str, str]]:
        """Public record classes: class name -> {field name: annotation text}."""
        return {name: dict(c.fields) for name, c in self.classes.items() if c.public}

    @property
    def identified(self) -> bool:
        """Whether its records carry entity ids (from the facts they cite)."""
        return any(r.entity is not None for _, r in self.records())

    def typed_values(self, record: RecordInfo) -> dict[str, object]:
        """The record's values as the module held them, in declaration order (provenance
        left out): JSON back to dates, times, date-times, Decimals where the field's
        annotation names exactly one such type."""
        info = self.classes.get(record.record_class)
        annotations = dict(info.fields) if info is not None else {}
        order = [name for name, _ in info.fields if name in record.values] if info is not None else []
        order += [name for name in record.values if name not in annotations]
        return {name: revive(record.values[name], annotations.get(name, "")) for name in order}


# -- reading manifest.json (strict: `factlog.strict_json`) ----------------------------------

_RECORD_KEYS = {"entity": None, "fact_ids": None, "record_class": None, "values": None}.keys()


def _read_record(value: object, where: J.Where) -> RecordInfo:
    data = J.fields(value, where, ("record_class", "fact_ids", "entity", "values"))
    values = J.dict_of(J.any_text, J.json_value)(data["values"], (*where, "values"))
    return RecordInfo(J.any_text(data["record_class"], (*where, "record_class")),
                      J.list_of(J.integer)(data["fact_ids"], (*where, "fact_ids")),
                      J.optional(J.any_text)(data["entity"], (*where, "entity")), values)


def _read_records(value: object, where: J.Where) -> list[RecordInfo]:
    """Every record of a collection: the common shape checked inline (a manifest holds
    every record of the module), anything else read field by field for its error."""
    if type(value) is not list:
        J.fail(where, "expected a list")
    records = []
    for i, item in enumerate(value):
        if type(item) is dict and item.keys() == _RECORD_KEYS:
            record_class, ids, entity, values = item["record_class"], item["fact_ids"], item["entity"], item["values"]
            if type(record_class) is str and type(ids) is list and (entity is None or type(entity) is str) \
                    and type(values) is dict and all(type(n) is int for n in ids) \
                    and all(type(k) is str for k in values):
                records.append(RecordInfo(record_class, ids, entity, values))
                continue
        records.append(_read_record(item, (*where, i)))
    return records


def _read_field(value: object, where: J.Where) -> tuple[str, str]:
    pair = J.list_of(J.any_text)(value, where)
    if len(pair) != 2:
        J.fail(where, "expected [field name, annotation]")
    return pair[0], pair[1]


def _read_class(value: object, where: J.Where) -> ClassInfo:
    data = J.fields(value, where, ("fields",), ("public",))
    return ClassInfo(J.list_of(_read_field)(data["fields"], (*where, "fields")),
                     J.get(data, "public", J.boolean, where, lambda: True))


def _read_collection(value: object, where: J.Where) -> CollectionInfo:
    data = J.fields(value, where, ("singular", "record_class", "size", "records"), ("parts",))
    return CollectionInfo(J.boolean(data["singular"], (*where, "singular")),
                          J.optional(J.any_text)(data["record_class"], (*where, "record_class")),
                          J.integer(data["size"], (*where, "size")),
                          _read_records(data["records"], (*where, "records")),
                          J.get(data, "parts", J.list_of(J.integer), where, list))


def _read_range(value: object, where: J.Where) -> DateRange:
    data = J.fields(value, where, ("min", "max"))
    return DateRange(J.any_text(data["min"], (*where, "min")), J.any_text(data["max"], (*where, "max")))


def _read_other(value: object, where: J.Where) -> OtherValue:
    data = J.fields(value, where, ("type",), ("size", "value"))
    return OtherValue(J.any_text(data["type"], (*where, "type")),
                      J.get(data, "size", J.optional(J.integer), where, J.none), data.get("value"))


def _read_manifest(body: dict[str, Any]) -> Manifest:
    data = J.fields(body, (), (), ("names", "classes", "collections", "others", "date_ranges", "quarantined"))
    return Manifest(
        names=J.get(data, "names", J.list_of(J.any_text), (), list),
        classes=J.get(data, "classes", J.dict_of(J.any_text, _read_class), (), dict),
        collections=J.get(data, "collections", J.dict_of(J.any_text, _read_collection), (), dict),
        others=J.get(data, "others", J.dict_of(J.any_text, _read_other), (), dict),
        date_ranges=J.get(data, "date_ranges", J.dict_of(J.any_text, J.dict_of(J.any_text, _read_range)), (), dict),
        quarantined=J.get(data, "quarantined", J.dict_of(J.int_key, J.any_text), (), dict),
    )


def records_data(records: Sequence[RecordInfo]) -> list[dict[str, Any]]:
    """Records as `Manifest.dump` writes them."""
    return [{"entity": r.entity, "fact_ids": r.fact_ids, "record_class": r.record_class, "values": r.values}
            for r in records]


def records_json(records: Sequence[RecordInfo]) -> str:
    """A run of records as compact JSON, exactly as `Manifest.dump` writes that list (so a
    store can keep each part of a collection apart and join them back)."""
    return json.dumps(records_data(records), separators=(",", ":"))


# -- identity -------------------------------------------------------------------------------

def record_identity(fact_ids: Sequence[int], facts_by_id: Mapping[int, Fact]) -> str | None:
    """The entity a record stands for (`factlog.identity.record_identity`), or None when it
    cites no fact the log knows."""
    if not any(i in facts_by_id for i in fact_ids):
        return None
    return identity_of_record(fact_ids, facts_by_id)


@runtime_checkable
class Preloading(Protocol):
    """Facts by id that can read many at once (`codegen.log_view.FactsById`)."""

    def preload(self, ids: Iterable[int]) -> None: ...


_UNKNOWN = object()


class _FactIdentity:
    """Entity identity of records from the facts they cite; reads the facts of a run of
    records in one go when the mapping can (`Preloading`). `known`: records walked before
    against the same facts, whose identities are taken by their fact ids (an identity is
    a function of the facts a record cites, and a fact never changes)."""

    def __init__(self, facts_by_id: Mapping[int, Fact], known: Iterable[RecordInfo] = ()) -> None:
        self.facts = facts_by_id
        self.known: dict[tuple[int, ...], str | None] = {tuple(r.fact_ids): r.entity for r in known if r.fact_ids}

    def __call__(self, ids: Sequence[int]) -> str | None:
        if self.known:
            found = self.known.get(tuple(ids), _UNKNOWN)
            if found is not _UNKNOWN:
                return found  # type: ignore[return-value]
        facts = self.facts
        for i in ids:  # `record_identity`, without a generator per record
            if i in facts:
                return identity_of_record(ids, facts)
        return None

    def preload(self, ids: Iterable[int]) -> None:
        if isinstance(self.facts, Preloading):
            self.facts.preload(ids)

    def wanted(self, run: Sequence[object]) -> Iterator[int]:
        """The fact ids a walk of `run` will look up: those of records not known."""
        for item in run:
            ids = _cited_ids(item)
            if ids and tuple(sorted(set(ids))) not in self.known:
                yield from ids


def identity_from_facts(facts_by_id: Mapping[int, Fact], known: Iterable[RecordInfo] = ()) -> Identity:
    """Identity from the facts records cite; `known`: records walked before against the
    same facts (their identities are reused by fact ids)."""
    return _FactIdentity(facts_by_id, known)


def identity_from_map(entities: Mapping[str, Sequence[int]]) -> Identity:
    """Identity by an entity map (entity id -> fact ids; `meta.json` of versions written
    before manifests): the entity holding the record's smallest mapped fact id."""
    owner = {fact: entity for entity, ids in entities.items() for fact in ids}

    def identity(ids: Sequence[int]) -> str | None:
        return next((owner[i] for i in sorted(ids) if i in owner), None)
    return identity


# -- building -------------------------------------------------------------------------------

def annotation_text(annotation: object) -> str:
    """A field annotation as comparable text: `date | None`, whatever the module imported."""
    if isinstance(annotation, str):
        text = annotation
    elif isinstance(annotation, type):
        text = annotation.__qualname__
    else:
        text = str(annotation)
    return _QUALIFIER.sub("", text.replace("typing.", ""))


def declared_quarantine(namespace: Mapping[str, object]) -> dict[int, str] | str:
    """The module's `_quarantined` ({fact id: reason}), {} if absent, or what is wrong with it."""
    declared = namespace.get(QUARANTINE_NAME)
    if declared is None:
        return {}
    if type(declared) is not dict:
        return f"{QUARANTINE_NAME} must be a dict of fact id -> reason, not {type(declared).__name__}"
    for fact_id, reason in declared.items():
        if type(fact_id) is not int or fact_id < 1:
            return f"{QUARANTINE_NAME} keys must be fact ids (positive integers), not {fact_id!r:.40}"
        if type(reason) is not str or not 1 <= len(reason) <= MAX_REASON:
            return f"{QUARANTINE_NAME}[{fact_id}] must be a reason of 1-{MAX_REASON} characters"
    return dict(sorted(declared.items()))


Key = Hashable  # what a part is cached by (see `codegen.validate`: chunk and class module content)
Run = tuple["Key | None", Sequence[object]]  # one chunk list, in the order a collection joins them


@dataclass(frozen=True)
class Part:
    """The walk of one run of records (one chunk list): what the manifest and coverage
    need of it. A function of the records alone (and of the facts they cite, for entity
    ids), so it can be kept while the chunk's text and its class module stay the same."""

    records: list[RecordInfo]
    cited: frozenset[int]  # provenance ids, nested records' too
    dates: Mapping[str, tuple[str, str]]  # field holding dates -> (earliest, latest), ISO
    classes: Mapping[str, ClassInfo]  # the records' classes


def _cited_ids(record: object) -> list[int]:
    """The fact ids a record cites (its provenance field), for reading their facts ahead."""
    ids = getattr(record, PROVENANCE_FIELD, None)
    return [i for i in ids if isinstance(i, int)] if isinstance(ids, list) else []


_AS_IS = frozenset({type(None), str, int, bool})  # values a record's JSON holds as they are


class _Shape:
    """What the walk needs of a record class, worked out once per class: its name, whether
    it has a provenance field, and its other fields' names, read in one call."""

    def __init__(self, cls: type) -> None:
        names = [f.name for f in dataclasses.fields(cls)]
        self.name = cls.__name__
        self.provenance = PROVENANCE_FIELD in names
        self.names = tuple(name for name in names if name != PROVENANCE_FIELD)
        self._get = operator.attrgetter(*self.names) if len(self.names) > 1 else None

    def values(self, record: object) -> tuple[Any, ...]:
        """The record's values of `names`, in order (None for a field it lacks)."""
        if self._get is not None:
            try:
                return self._get(record)
            except AttributeError:
                pass
        return tuple(getattr(record, name, None) for name in self.names)


class _Builder:
    def __init__(self, identity: Identity | None) -> None:
        self.identity = identity
        self.classes: dict[str, ClassInfo] = {}
        self.collections: dict[str, CollectionInfo] = {}
        self.others: dict[str, OtherValue] = {}
        self.dates: dict[str, dict[str, list[str]]] = {}  # collection -> field -> ISO dates
        self.names: list[str] = []
        self.shapes: dict[type, _Shape] = {}
        self.cited: set[int] = set()
        self.seen: set[int] = set()

    def add_class(self, cls: type, public: bool) -> None:
        known = self.classes.get(cls.__name__)
        if known is not None and (known.public or not public):
            return
        fields = [(f.name, annotation_text(f.type)) for f in dataclasses.fields(cls)]
        self.classes[cls.__name__] = ClassInfo.model_construct(fields=fields, public=public)

    def record(self, attribute: str, value: object, depth: int) -> RecordInfo:
        """The record's entry, and (once per record object) its provenance for coverage:
        one pass over its fields does both."""
        cls = type(value)
        shape = self.shapes.get(cls)
        if shape is None:
            self.add_class(cls, False)
            shape = self.shapes[cls] = _Shape(cls)
        walk = id(value) not in self.seen
        if walk:
            self.seen.add(id(value))
        ids: list[int] = []
        if shape.provenance:
            item: Any = getattr(value, PROVENANCE_FIELD, None)
            kind: type = type(item)
            if kind is list or kind is tuple:
                ids = sorted({i for i in item if type(i) is int})
                if walk:
                    self.cited.update(ids)
            elif walk:
                collect_cited(item, self.cited, self.seen, depth + 1)
        values: dict[str, Any] = {}
        dates: dict[str, list[str]] | None = None
        for name, item in zip(shape.names, shape.values(value)):
            kind = type(item)
            if kind in _AS_IS:
                values[name] = item
            elif kind is date or kind is datetime:
                values[name] = text = item.isoformat()
                if dates is None:
                    dates = self.dates.setdefault(attribute, {})
                dates.setdefault(name, []).append(text)
            else:
                values[name] = to_json(item)
                if isinstance(item, date):  # a subclass
                    if dates is None:
                        dates = self.dates.setdefault(attribute, {})
                    dates.setdefault(name, []).append(item.isoformat())
                if walk and kind is not float:
                    collect_cited(item, self.cited, self.seen, depth + 1)
        entity = self.identity(ids) if self.identity is not None and ids else None
        return RecordInfo(shape.name, ids, entity, values)

    def part(self, attribute: str, run: Sequence[object]) -> Part:
        if isinstance(self.identity, _FactIdentity):  # the run's facts, in one read
            self.identity.preload(self.identity.wanted(run))
        walker = _Builder(self.identity)
        records = [walker.record(attribute, item, 1) for item in run]
        dates = {name: (min(found), max(found)) for name, found in walker.dates.get(attribute, {}).items() if found}
        return Part(records, frozenset(walker.cited), dates, walker.classes)

    def add_runs(self, name: str, value: list[object], runs: Sequence[Run], annotation: object,
                 known: Mapping[Key, Part], found: dict[Key, Part] | None,
                 used: dict[str, list[tuple[Key | None, Part]]] | None = None) -> bool:
        """Add a list collection joined from `runs`, each run's walk taken from `known`
        when its key is there. False (nothing added) if a run to walk holds a non-record.
        `used` gets, per collection, each run's key and walk, in order."""
        parts = [known.get(key) if key is not None else None for key, _ in runs]
        parts = [part if part is None or len(part.records) == len(run) else None  # a key names its run's walk
                 for part, (_, run) in zip(parts, runs)]
        if not _all_records(item for (_, run), part in zip(runs, parts) if part is None for item in run):
            return False
        self.names.append(name)
        self.seen.add(id(value))
        records: list[RecordInfo] = []
        sizes: list[int] = []
        dates = self.dates.setdefault(name, {})
        walks: list[tuple[Key | None, Part]] = []
        for (key, run), part in zip(runs, parts):
            if part is None:
                part = self.part(name, run)
                if key is not None and found is not None:
                    found[key] = part
            walks.append((key, part))
            records += part.records
            sizes.append(len(part.records))
            self.cited |= part.cited
            for field_name, (earliest, latest) in part.dates.items():
                dates.setdefault(field_name, []).extend((earliest, latest))
            for class_name, info in part.classes.items():
                self.classes.setdefault(class_name, info)
        self.collections[name] = CollectionInfo.model_construct(
            singular=False, record_class=records[0].record_class if records else _list_class(annotation),
            size=len(records), records=records, parts=sizes if len(sizes) > 1 else [])
        if used is not None and len(sizes) > 1:
            used[name] = walks
        return True

    def add(self, name: str, value: object, annotation: object) -> None:
        self.names.append(name)
        if isinstance(value, type):
            if dataclasses.is_dataclass(value):
                self.add_class(value, True)
            else:
                self.others[name] = OtherValue.model_construct(type="type", size=None, value=value.__name__)
            return
        if isinstance(value, list) and _all_records(value):
            self.seen.add(id(value))
            records = [self.record(name, item, 1) for item in value]
            self.collections[name] = CollectionInfo.model_construct(
                singular=False, record_class=records[0].record_class if records else _list_class(annotation),
                size=len(records), records=records, parts=[])
        elif value is None or is_record(value):
            records = [] if value is None else [self.record(name, value, 0)]
            self.collections[name] = CollectionInfo.model_construct(
                singular=True, record_class=records[0].record_class if records else None,
                size=len(records), records=records, parts=[])
        elif isinstance(value, list):
            collect_cited(value, self.cited, self.seen)
            self.others[name] = OtherValue.model_construct(type="list", size=len(value), value=None)
        else:
            collect_cited(value, self.cited, self.seen)
            self.others[name] = OtherValue.model_construct(type=type(value).__name__, size=None,
                                                           value=to_json(value))

    def manifest(self, quarantined: Mapping[int, str]) -> Manifest:
        return Manifest.model_construct(
            format=Manifest.FORMAT,
            names=self.names,
            classes=dict(sorted(self.classes.items())),
            collections=dict(sorted(self.collections.items())),
            others=dict(sorted(self.others.items())),
            date_ranges={attribute: {name: DateRange.model_construct(min=min(found), max=max(found))
                                     for name, found in sorted(fields.items())}
                         for attribute, fields in sorted(self.dates.items()) if fields},
            quarantined=dict(sorted(quarantined.items())),
        )


def _all_records(items: Iterable[object]) -> bool:
    """Whether every item is a record (`is_record`), decided once per type."""
    return all(_record_type(kind) for kind in set(map(type, items)))


def _record_type(kind: type) -> bool:
    """Whether instances of `kind` are records (`is_record` of an instance)."""
    return dataclasses.is_dataclass(kind) and not issubclass(kind, type)


def _list_class(annotation: object) -> str | None:
    match = re.fullmatch(r"list\[(\w+)\]", annotation_text(annotation)) if annotation is not None else None
    return match.group(1) if match else None


@gc_paused
def walk_module(namespace: Mapping[str, object], *, live_fact_ids: AbstractSet[int] | None = None,
                identity: Identity | None = None,
                quarantined: Mapping[int, str] | None = None,
                runs: Mapping[str, Sequence[Run]] | None = None,
                known_parts: Mapping[Key, Part] | None = None,
                found_parts: dict[Key, Part] | None = None,
                used_parts: dict[str, list[tuple[Key | None, Part]]] | None = None,
                ) -> tuple[CoverageReport, Manifest] | str:
    """One walk over a loaded module's public names (`vars(module)`): the coverage report
    against `live_fact_ids` (complete when None is given) and the manifest. Returns what
    is wrong instead when the module's `_quarantined` has the wrong shape.

    `runs` says, for a list collection, the chunk lists it joins (with a key each): when
    the list holds exactly their records, by identity and in order, the collection is
    built run by run (its `parts`), taking a run's walk from `known_parts` by its key and
    putting the runs walked afresh in `found_parts`, and every run's key and walk in
    `used_parts` (for a collection of more than one run: the ones with manifest `parts`).
    Any other value gets the general walk."""
    declared = declared_quarantine(namespace)
    if isinstance(declared, str):
        return declared
    left_out = {**(quarantined or {}), **declared}
    annotations = namespace.get("__annotations__")
    hints = annotations if isinstance(annotations, dict) else {}
    builder = _Builder(identity)
    for name, value in namespace.items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        joined = (runs or {}).get(name)
        if joined and isinstance(value, list) and _joins(value, joined) \
                and builder.add_runs(name, value, joined, hints.get(name), known_parts or {}, found_parts,
                                     used_parts):
            continue
        builder.add(name, value, hints.get(name))
    cited = builder.cited
    live = cited | set(left_out) if live_fact_ids is None else live_fact_ids
    if not left_out and cited == live:  # the usual case, in one pass over the sets
        return CoverageReport((), ()), builder.manifest(left_out)
    return report(cited, live, left_out.keys()), builder.manifest(left_out)


def _joins(value: list[object], runs: Sequence[Run]) -> bool:
    """Whether `value` holds exactly the items of `runs`, the same objects in the same order."""
    if len(value) != sum(len(run) for _, run in runs):
        return False
    return all(map(operator.is_, itertools.chain.from_iterable(run for _, run in runs), value))


def build_manifest(namespace: Mapping[str, object], *, identity: Identity | None = None,
                   quarantined: Mapping[int, str] | None = None) -> Manifest:
    """The manifest alone (of a version published before manifests, or of a namespace);
    a malformed `_quarantined` is ignored here (validation refuses it)."""
    walked = walk_module(namespace, identity=identity, quarantined=quarantined)
    if isinstance(walked, str):
        walked = walk_module({k: v for k, v in namespace.items() if k != QUARANTINE_NAME},
                             identity=identity, quarantined=quarantined)
        assert not isinstance(walked, str)
    return walked[1]


# -- reading --------------------------------------------------------------------------------

def _alternatives(annotation: str) -> list[str]:
    """The members of a union annotation, `None` left out: `date | None` -> [`date`]."""
    text = annotation.strip()
    optional = re.fullmatch(r"Optional\[(.*)\]", text)
    if optional:
        text = optional.group(1)
    return [p.strip() for p in split_top_level(text, "|") if p.strip() not in ("None", "NoneType", "")]


def _decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation:
        raise ValueError(text) from None


_PARSERS: dict[str, Callable[[str], object]] = {
    "date": parse_date, "datetime": parse_datetime, "time": parse_time,
    "Decimal": _decimal,
}


def revive(value: object, annotation: str) -> object:
    """A JSON value back as the type its annotation names, where that is unambiguous."""
    if value is None or not annotation:
        return value
    alternatives = _alternatives(annotation)
    if len(alternatives) != 1:
        return value
    wanted = alternatives[0]
    if isinstance(value, str):
        parse = _PARSERS.get(wanted)
        if parse is None:
            return float(value) if wanted == "float" and value in ("inf", "-inf", "nan") else value
        try:
            return parse(value)
        except ValueError:
            return value
    if isinstance(value, list) and wanted.startswith("list[") and wanted.endswith("]"):
        return [revive(item, wanted[5:-1]) for item in value]
    return value

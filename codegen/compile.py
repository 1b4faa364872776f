"""The deterministic compiler: a user's facts -> a generated package (no LLM).

Stages: `live` (which facts count, which entities they describe) -> `schema` (field types)
-> `render` (module sources). Same facts, same bytes.

Layout (so that validation, cached per file by content hash, redoes little work):
`<stem>.py` holds a kind's class (and, for a singular kind, its one value); its records
sit in chunk modules `<stem>_<nnn>.py`, where chunk n holds the entities whose first live
fact id lies in ids [500n+1, 500n+500]. Membership is stable: appending facts only touches
the newest chunk, updating an entity only its own chunk. Notes work the same way
(`notes.py`, `notes_<nnn>.py`). Each file's header gives the log position and input hash
of the facts it was compiled from (for `__init__.py`: the whole log), so an untouched
chunk keeps its bytes.

Quarantine (`codegen.quarantine`): a live fact that breaks the compiler's limits, and every
fact of an entity whose record cannot be rendered, is left out and listed in
`GeneratedPackage.quarantined` with its reason; everything else still compiles.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from codegen.literals import Aliases
from codegen.live import Entity, LiveFacts, NoteEntry, select_live
from codegen.naming import NOTES_STEM, KindNames, kind_names
from codegen.quarantine import fact_problem, short_reason
from codegen.render import Export, Header, Record, chunk_module, class_module, init_module, record_source
from codegen.schema import STR, ClassSpec, FieldSpec, PyType, coerce, infer_class
from factlog.limits import MAX_FILE_BYTES
from factlog.liveness import dead_ids
from factlog.model import Fact, check_user_id
from factlog.vocabulary import NOTE_ATTRIBUTE, NOTE_CLASS

CHUNK_IDS = 500  # fact ids per chunk, so at most 500 records per chunk module
MAX_CHUNK_BYTES = MAX_FILE_BYTES // 2  # a chunk over this is split in halves

NOTE_SPEC = ClassSpec(
    KindNames("note", NOTE_CLASS, NOTE_ATTRIBUTE, NOTES_STEM, False),
    (
        FieldSpec("text", "text", STR, True, False),
        FieldSpec("dates", "dates", PyType("list", PyType("date")), True, False),
    ),
)


@dataclass(frozen=True)
class GeneratedPackage:
    user: str
    files: dict[str, str]  # file name -> source
    log_position: int  # the last fact id compiled (0 for an empty log)
    input_hash: str  # sha256 over the live facts' hashes, in id order
    record_counts: dict[str, int]  # module attribute -> records ("notes" included)
    entities: dict[str, list[int]]  # entity id ("trip/<key>", "trip#7", "passport", "note#9") -> fact ids
    renamed_fields: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> original -> Python
    kinds: dict[str, KindNames] = field(default_factory=dict)  # normalized kind -> names
    quarantined: dict[int, str] = field(default_factory=dict)  # fact id -> why it was left out


def hash_of(hashes: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for item in hashes:
        digest.update(item.encode("ascii", "replace") + b"\n")
    return digest.hexdigest()


class _Headers:
    """Per-file headers: position and hash of the facts a file was compiled from."""

    def __init__(self, user: str, live: LiveFacts) -> None:
        self.user = user
        self.hashes = {f.id: f.hash for f in live.facts}

    def of(self, fact_ids: Iterable[int], contents: str) -> Header:
        ids = sorted(set(fact_ids))
        position = ids[-1] if ids else 0
        return Header(self.user, position, hash_of(self.hashes[i] for i in ids), "facts in this file", contents)


def _entity_record(spec: ClassSpec, entity: Entity) -> Record:
    values = []
    for f in spec.fields:
        value = coerce(entity.fields.get(f.original), f)
        if value is not None:
            values.append((f.name, value))
    return Record(tuple(values), tuple(entity.fact_ids))


def _note_record(note: NoteEntry) -> Record:
    return Record((("text", note.text), ("dates", list(note.dates))), (note.fact_id,))


def _chunks(
    spec: ClassSpec, items: Sequence[tuple[int, Record]], headers: _Headers, files: dict[str, str]
) -> list[tuple[str, str]]:
    """Write the chunk modules of one kind; items are (first fact id, record)."""
    groups: dict[int, list[Record]] = {}
    for first_id, record in items:
        groups.setdefault((first_id - 1) // CHUNK_IDS, []).append(record)
    names = spec.names
    result: list[tuple[str, str]] = []
    for index in sorted(groups):
        # the chunk lists are private (`_trips_000`): queries see only the joined `trips`
        _chunk(spec, f"{names.stem}_{index:03d}", f"_{names.attribute}_{index:03d}", groups[index],
               headers, files, result)
    return result


def _chunk(spec: ClassSpec, stem: str, list_name: str, records: Sequence[Record], headers: _Headers,
           files: dict[str, str], result: list[tuple[str, str]]) -> None:
    """One chunk module, or, when its records are too large together for one file (many
    long notes), its two halves as `<stem>_1` and `<stem>_2`, and so on: every fact the
    door accepts fits a file on its own, so no number of them blocks a checkpoint."""
    contents = f"{list_name}, {len(records)} record(s) of class {spec.names.class_name}"
    header = headers.of((i for r in records for i in r.fact_ids), contents)
    source = chunk_module(spec, list_name, records, header)
    if len(records) > 1 and len(source.encode("utf-8", "surrogatepass")) > MAX_CHUNK_BYTES:
        half = len(records) // 2
        for part, piece in enumerate((records[:half], records[half:]), start=1):
            _chunk(spec, f"{stem}_{part}", f"{list_name}_{part}", piece, headers, files, result)
        return
    files[f"{stem}.py"] = source
    result.append((stem, list_name))


class _EntitiesFailed(Exception):
    def __init__(self, reasons: dict[int, str]) -> None:
        super().__init__(f"{len(reasons)} fact(s) could not be compiled")
        self.reasons = reasons


def _failure(entity: Entity, error: Exception) -> dict[int, str]:
    reason = short_reason(f"{entity.ident} could not be compiled: {type(error).__name__}: {error}")
    return {i: reason for i in entity.fact_ids}


def _records(spec: ClassSpec, entities: Sequence[Entity]) -> list[tuple[int, Record]]:
    """Each entity's record; an entity whose values cannot be converted fails with all its
    facts (raised after trying every entity of the kind)."""
    failed: dict[int, str] = {}
    records = []
    for entity in entities:
        try:
            records.append((entity.first_id, _entity_record(spec, entity)))
        except Exception as error:  # anything one entity's values do must not stop the others
            failed.update(_failure(entity, error))
    if failed:
        raise _EntitiesFailed(failed)
    return records


def _culprits(spec: ClassSpec, entities: Sequence[Entity], records: Sequence[tuple[int, Record]],
              error: Exception) -> _EntitiesFailed:
    """Rendering a kind's modules failed: find the entities whose records cannot be
    rendered (tried one by one only now, so the usual path renders each record once)."""
    failed: dict[int, str] = {}
    for entity, (_, record) in zip(entities, records):
        try:
            record_source(spec.names.class_name, record, Aliases())
        except Exception as culprit:
            failed.update(_failure(entity, culprit))
    if not failed:
        raise error  # not one record's doing: a compiler bug, reported as such
    return _EntitiesFailed(failed)


def compile_package(user: str, facts: Sequence[Fact], *,
                    quarantine: Mapping[int, str] | None = None) -> GeneratedPackage:
    """Compile the user's facts (any order; each id once) into a package; facts that cannot
    be compiled are quarantined (left out, listed with their reasons). `quarantine` adds
    live facts known to fail validation (`codegen.quarantine.culprit_facts`)."""
    check_user_id(user)
    dead = dead_ids(facts)
    present = {f.id for f in facts}
    quarantined = {i: reason for i, reason in (quarantine or {}).items() if i in present and i not in dead}
    for fact in facts:
        if fact.id not in dead and (reason := fact_problem(fact)) is not None:
            quarantined[fact.id] = reason
    while True:  # each round quarantines at least one more entity, so this ends
        try:
            return _compile(user, facts, quarantined)
        except _EntitiesFailed as failed:
            quarantined.update(failed.reasons)


def _compile(user: str, facts: Sequence[Fact], quarantined: dict[int, str]) -> GeneratedPackage:
    live = select_live([f for f in facts if f.id not in quarantined] if quarantined else facts)
    headers = _Headers(user, live)
    names = kind_names(live.entities)
    files: dict[str, str] = {}
    exports: list[Export] = []
    renamed: dict[str, dict[str, str]] = {}
    counts: dict[str, int] = {}
    for kind in sorted(live.entities, key=lambda k: names[k].attribute):
        entities = live.entities[kind]
        spec = infer_class(names[kind], entities)
        if spec.renamed:
            renamed[kind] = spec.renamed
        counts[spec.names.attribute] = len(entities)
        records = _records(spec, entities)
        all_ids = [i for e in entities for i in e.fact_ids]
        class_doc = f"Records of kind {kind!r}; `fact_ids` cites the facts each one comes from."
        class_header = headers.of(all_ids, f"class {spec.names.class_name}")
        singular = records[0][1] if spec.names.singular else None
        try:
            files[f"{spec.names.stem}.py"] = class_module(spec, class_header, class_doc, singular)
            chunks = () if spec.names.singular else tuple(_chunks(spec, records, headers, files))
        except Exception as error:
            raise _culprits(spec, entities, records, error) from error
        exports.append(Export(spec, chunks))
    note_items = [(n.fact_id, _note_record(n)) for n in live.notes]
    note_header = headers.of((n.fact_id for n in live.notes), f"class {NOTE_CLASS}")
    note_doc = "A free-text fact that fits no class, with the dates it mentions."
    files[f"{NOTES_STEM}.py"] = class_module(NOTE_SPEC, note_header, note_doc, None)
    exports.append(Export(NOTE_SPEC, tuple(_chunks(NOTE_SPEC, note_items, headers, files))))
    counts[NOTE_ATTRIBUTE] = len(live.notes)
    position = max((f.id for f in facts), default=0)
    input_hash = hash_of(f.hash for f in live.facts)
    contents = ", ".join(e.spec.names.attribute for e in exports)
    init_header = Header(user, position, input_hash, "the whole log", contents)
    files["__init__.py"] = init_module(exports, init_header, quarantined)
    entity_map: dict[str, list[int]] = {e.ident: list(e.fact_ids) for k in live.entities for e in live.entities[k]}
    entity_map.update({f"note#{n.fact_id}": [n.fact_id] for n in live.notes})
    return GeneratedPackage(user, dict(sorted(files.items())), position, input_hash, counts, entity_map, renamed,
                            names, dict(sorted(quarantined.items())))


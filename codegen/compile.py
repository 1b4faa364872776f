"""The deterministic compiler: a user's facts -> a generated package (no LLM).

Stages: `live` (which facts count, which entities they describe) -> `schema` (field types)
-> `render` (module sources). Same facts, same bytes, whether compiled in full
(`compile_package`) or from the previous package plus the new facts (`compile_incremental`,
with the state of `codegen.compile_state`).

Layout (so that validation, cached per file by content hash, redoes little work):
`<stem>.py` holds a kind's class (and, for a singular kind, its one value); its records
sit in chunk modules `<stem>_<nnn>.py`. CHUNKING RULE (`chunk_index`, the only place it is
defined): an entity's ORDINAL is the order in which its identity
(`factlog.identity.kind_identity` of the normalized kind, key, id) first appears in the
whole log, counting every non-retraction fact of its kind, dead, retracted or quarantined
included; a note's ordinal is its place among the log's kind-less non-retraction facts.
Ordinals never change as facts are appended, retracted or quarantined (only `forget`,
which erases the user, resets them). Chunk n holds the records whose ordinal lies in
[n * CHUNK_RECORDS, (n + 1) * CHUNK_RECORDS), in ordinal order, and the joined list
(`trips`) is in ordinal order. So facts arriving interleaved across kinds, or sorted, give
the same few large chunks; new entities land in the newest (open) chunk, and updating an
entity touches only its own chunk. A chunk left without live records has no file; one too
large for a file is split in halves (`<stem>_<nnn>_1`, `_2`). Notes work the same way
(`notes.py`, `notes_<nnn>.py`).

Headers: a chunk's header gives the position (largest id) and input hash (sha256 over
its facts' hashes, in id order) of the facts in it; a class module's, the digest of its
class spec (a singular kind's, its facts); `__init__.py`'s, the log position compiled and
sha256 over the input hashes of every other file, in file name order. So an untouched
file keeps its bytes, and `__init__.py` is computed without reading every fact.

Quarantine (`codegen.quarantine`): a live fact that breaks the compiler's limits, and every
fact of an entity whose record cannot be rendered, is left out and listed in
`GeneratedPackage.quarantined` with its reason; everything else still compiles.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from codegen import state_write
from codegen.chunk_files import MAX_CHUNK_BYTES as MAX_CHUNK_BYTES  # a chunk over this is split in halves
from codegen.chunk_files import Writer
from codegen.compile_state import (
    CLASS_CHUNK,
    FORMAT,
    NOTES_KIND,
    DeferredState,
    EntityRow,
    KindRow,
    Member,
    NeedFull,
    NoteRow,
    StateDb,
)
from codegen.gc_pause import gc_paused
from codegen.naming import NOTES_STEM, KindNames, kind_names, normalize_kind
from codegen.quarantine import fact_problem, short_reason
from codegen.record_source import entity_line_needs, line_plan, note_line
from codegen.render import Export, Record, record_line
from codegen.schema import (
    ClassSpec,
    add_contribution,
    add_fields,
    coerce,
    contribution,
    note_field_specs,
    spec_digest,
    spec_from_stats,
)
from codegen.state_write import StateWrite
from factlog.identity import kind_identity
from factlog.liveness import effective_day
from factlog.log_access import LogAccess, prefix_problem
from factlog.model import Fact, check_user_id
from factlog.note_fields import note_dates, note_extra
from factlog.vocabulary import NOTE_ATTRIBUTE, NOTE_CLASS

CHUNK_RECORDS = 500  # records (entities or notes) per chunk module, by ordinal
CHUNK_IDS = CHUNK_RECORDS  # the former name
_ENTITY_ORIGIN = "entity"  # quarantined because its entity's record could not be rendered

NOTE_SPEC = ClassSpec(KindNames("note", NOTE_CLASS, NOTE_ATTRIBUTE, NOTES_STEM, False), note_field_specs())


def chunk_index(ordinal: int, chunk_records: int = CHUNK_RECORDS) -> int:
    """The chunk of the record with this ordinal (see the module docstring)."""
    return ordinal // chunk_records


@dataclass(frozen=True)
class GeneratedPackage:
    user: str
    files: dict[str, str]  # file name -> source
    log_position: int  # the last fact id compiled (0 for an empty log)
    input_hash: str  # `__init__.py`'s: sha256 over the other files' input hashes, in name order
    record_counts: dict[str, int]  # module attribute -> records ("notes" included)
    entities: dict[str, list[int]]  # entity id ("trip/<key>", "trip#7", "passport", "note#9") -> fact ids
    renamed_fields: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> original -> Python
    kinds: dict[str, KindNames] = field(default_factory=dict)  # normalized kind -> names
    quarantined: dict[int, str] = field(default_factory=dict)  # fact id -> why it was left out


class ListLog:
    """A log given as facts (any order; each id once)."""

    def __init__(self, facts: Sequence[Fact]) -> None:
        self._facts = sorted(facts, key=lambda f: f.id)
        self._by_id = {f.id: f for f in self._facts}

    @property
    def head(self) -> int:
        return self._facts[-1].id if self._facts else 0

    def after(self, position: int) -> Iterable[Fact]:
        return (f for f in self._facts if f.id > position)

    def get(self, fact_id: int) -> Fact | None:
        return self._by_id.get(fact_id)


# --- applying facts to the state --------------------------------------------------------


Contribution = tuple[int, tuple[tuple[str, int, str | None], ...]] | None


def _contribution(entity: EntityRow) -> Contribution:
    return (entity.ordinal, contribution(entity.ordinal, entity.merged())) if entity.live else None


class _Batch:
    """New facts applied to the state, in id order; `finish` writes the rows and returns
    what was touched."""

    def __init__(self, db: StateDb, lookup: Callable[[int], Fact | None], fresh: bool,
                 extra: Mapping[int, str], chunk_records: int, position: int, note_next: int,
                 persist: bool = True) -> None:
        self.db, self.lookup, self.fresh, self.extra, self.persist = db, lookup, fresh, extra, persist
        self.relined: dict[str, EntityRow] = {}  # entities whose record line was rendered again
        self._live_by_kind: dict[str, list[EntityRow]] | None = None
        self._all_by_kind: dict[str, list[EntityRow]] | None = None  # of a fresh build, until released
        self.chunk_records = chunk_records
        self.position, self.note_next = position, note_next
        self.kinds = db.kinds()
        self.live_before = {k for k, row in self.kinds.items() if row.live_count > 0}
        self.quarantine = db.quarantine()
        self.quarantine_changed = False
        self.entities: dict[str, EntityRow] = {}
        self.before: dict[str, Contribution] = {}
        self.dirty: set[str] = set()
        self.notes_added: dict[int, NoteRow] = {}
        self.notes_removed: dict[int, NoteRow] = {}
        self.early: set[int] = set()  # retracted before they arrived
        self.days: dict[str, str] = {}  # one string per effective day (many facts share one)

    def _kind(self, kind: str) -> KindRow:
        row = self.kinds.get(kind)
        if row is None:
            row = self.kinds[kind] = KindRow(kind)
        return row

    def _entity(self, ident: str) -> EntityRow | None:
        entity = self.entities.get(ident)
        if entity is None and not self.fresh:
            entity = self.db.entity(ident)
            if entity is not None:
                self.entities[ident] = entity
                self.before[ident] = _contribution(entity)
        return entity

    def apply(self, fact: Fact) -> None:
        if fact.id > self.position:
            self.position = fact.id
        if fact.retracts is not None:
            self._retract(fact.retracts, fact.id)
            return
        dead = fact.id in self.early or (not self.fresh and self.db.retracted(fact.id))
        problem = None if dead else fact_problem(fact)
        origin = "fact"
        if problem is None and not dead and fact.id in self.extra:
            problem, origin = self.extra[fact.id], _ENTITY_ORIGIN
        if fact.kind is None:
            ordinal = self.note_next
            self.note_next += 1
            if dead:
                return
            if problem is not None:
                self._quarantine(fact.id, problem, origin)
                return
            note = NoteRow(fact.id, ordinal, fact.text, note_dates(fact), fact.hash, extra=note_extra(fact))
            try:
                line, needs = note_line(note.text, note.dates, note.extra, fact.id)
            except Exception:  # the general path renders it, or raises its own error
                line, needs = record_line(NOTE_CLASS, _note_record(note))
            self.notes_added[fact.id] = note._replace(line=line, needs=_needs_text(needs))
            return
        kind = normalize_kind(fact.kind)
        ident = kind_identity(kind, fact.key, fact.id)
        entity = self._entity(ident)
        if entity is None:
            row = self._kind(kind)
            entity = self.entities[ident] = EntityRow(ident, kind, row.next_ordinal)
            row.next_ordinal += 1
            if not self.fresh:  # a fresh build counts every entity (`_count_fresh`)
                self.before[ident] = None
                self.dirty.add(ident)
        if dead:
            return
        if problem is not None:
            self._quarantine(fact.id, problem, origin)
            return
        day = effective_day(fact)
        entity.add(Member(fact.id, self.days.setdefault(day, day), fact.hash, fact.fields))
        entity.line_spec = ""
        if not self.fresh:
            self.dirty.add(ident)

    def apply_all(self, facts: Iterable[Fact]) -> None:
        """`apply` each fact, in id order (a fresh build takes the short way: `_apply_fresh`)."""
        if not self.fresh:
            for fact in facts:
                self.apply(fact)
            return
        self._apply_fresh(facts)

    def _apply_fresh(self, facts: Iterable[Fact]) -> None:
        """`apply` for a build from scratch, with what it looks up per fact kept at hand
        (the same rows, the same order of ordinals)."""
        entities, extra, early, days = self.entities, self.extra, self.early, self.days
        kinds: dict[str, tuple[KindRow, str]] = {}  # a fact's kind -> its row, the normalized kind
        position = self.position
        for fact in facts:
            fact_id = fact.id
            if fact_id > position:
                position = fact_id
            if fact.retracts is not None:
                self.position = position
                self._retract(fact.retracts, fact_id)
                continue
            dead = fact_id in early
            kind_text = fact.kind
            if kind_text is None:
                self.position = position
                self.apply(fact)
                continue
            problem = None if dead else fact_problem(fact)
            origin = "fact"
            if problem is None and not dead and fact_id in extra:
                problem, origin = extra[fact_id], _ENTITY_ORIGIN
            known = kinds.get(kind_text)
            if known is None:
                kind = normalize_kind(kind_text)
                known = kinds[kind_text] = (self._kind(kind), kind)
            row, kind = known
            ident = kind_identity(kind, fact.key, fact_id)
            entity = entities.get(ident)
            if dead or problem is not None:
                if entity is None:
                    entities[ident] = EntityRow(ident, kind, row.next_ordinal)
                    row.next_ordinal += 1
                if problem is not None:
                    self._quarantine(fact_id, problem, origin)
                continue
            valid_from = fact.valid_from
            day = valid_from.isoformat() if valid_from is not None else fact.recorded_at[:10]
            member = Member(fact_id, days.setdefault(day, day), fact.hash, fact.fields)
            if entity is None:
                entities[ident] = EntityRow(ident, kind, row.next_ordinal, [member])
                row.next_ordinal += 1
            else:
                entity.add(member)
        self.position = position

    def entities_of(self, kind: str, lo: int | None = None, hi: int | None = None) -> list[EntityRow]:
        """Live entities of `kind` (ordinal in [lo, hi) when given), by ordinal; a fresh
        build holds them all in memory, an update reads them from the state."""
        if not self.fresh:
            return list(self.db.entities_of(kind, lo, hi))
        if self._live_by_kind is None:
            self._live_by_kind = {}
            for entity in self.entities.values():  # made in ordinal order (of each kind)
                if entity.live:
                    self._live_by_kind.setdefault(entity.kind, []).append(entity)
        rows = self._live_by_kind.get(kind, [])
        if lo is None or hi is None:
            return rows
        return [e for e in rows[bisect_left(rows, lo, key=lambda e: e.ordinal):] if e.ordinal < hi]

    def release(self, kind: str) -> None:
        """A fresh build that keeps its state is done with the entities of `kind` (their
        chunks are rendered): write their rows and let them go, with their lines."""
        if not (self.fresh and self.persist):
            return
        if self._all_by_kind is None:
            self._all_by_kind = {}
            for entity in self.entities.values():
                self._all_by_kind.setdefault(entity.kind, []).append(entity)
        rows = self._all_by_kind.pop(kind, [])
        self.db.put_entities(sorted(rows, key=lambda e: e.ident))
        for entity in rows:
            del self.entities[entity.ident]
        if self._live_by_kind is not None:
            self._live_by_kind.pop(kind, None)

    def save_lines(self) -> None:
        """Write the entities (fresh; those not released yet) or their new record lines (update)."""
        if self.fresh:
            if self.persist:
                self.db.put_entities(self.entities[i] for i in sorted(self.entities))
        else:
            self.db.put_lines(self.relined.values())

    def _quarantine(self, fact_id: int, reason: str, origin: str) -> None:
        self.quarantine[fact_id] = (reason, origin)
        self.quarantine_changed = True

    def _retract(self, target: int, by: int) -> None:
        if target >= by:  # a log written out of order: the target has not arrived yet
            if target != by:
                self.early.add(target)
            return
        if self.quarantine.pop(target, None) is not None:
            self.quarantine_changed = True
            return
        fact = self.lookup(target)
        if fact is None or fact.retracts is not None:
            return  # unknown, or a retraction (dead already)
        if fact.kind is None:
            added = self.notes_added.pop(target, None)
            if added is None:
                note = None if self.fresh else self.db.note(target)
                if note is not None:
                    self.notes_removed[target] = note
            return
        entity = self._entity(kind_identity(normalize_kind(fact.kind), fact.key, fact.id))
        if entity is not None and any(m.id == target for m in entity.members):
            entity.members = [m for m in entity.members if m.id != target]
            entity.line_spec = ""
            self.dirty.add(entity.ident)

    def _count_fresh(self) -> None:
        """The schema inputs and live counts of a build from scratch: every entity is new,
        and they were made in ordinal order (what `finish` would add one by one)."""
        live_by_kind: dict[str, list[EntityRow]] = {}
        all_by_kind: dict[str, list[EntityRow]] = {}
        for entity in self.entities.values():  # made in ordinal order (of each kind)
            group = all_by_kind.get(entity.kind)
            if group is None:
                group = all_by_kind[entity.kind] = []
                live_by_kind[entity.kind] = []
            group.append(entity)
            if entity.live:
                live_by_kind[entity.kind].append(entity)
        for kind, entities in live_by_kind.items():
            row = self.kinds[kind]
            stats = row.fields
            for entity in entities:
                add_fields(stats, entity.ordinal, entity.merged())
            row.live_count += len(entities)
        self._live_by_kind = live_by_kind
        if self.persist:
            self._all_by_kind = all_by_kind

    def finish(self) -> tuple[dict[str, set[int]], set[int], set[str]]:
        """Write the rows; returns the touched chunks per kind, the touched note chunks, and
        the kinds whose fields' first appearance must be found again."""
        touched: dict[str, set[int]] = {}
        rescan: set[str] = set()
        if self.fresh:
            self._count_fresh()
        rows = [] if self.fresh else [self.entities[i] for i in sorted(self.dirty)]
        for entity in rows:
            touched.setdefault(entity.kind, set()).add(chunk_index(entity.ordinal, self.chunk_records))
            before, after = self.before.get(entity.ident), _contribution(entity)
            if before == after:
                continue
            row = self._kind(entity.kind)
            if before is not None:
                lost = add_contribution(row.fields, before[0], before[1], -1)
                if after is not None:  # still first where it stays in place
                    lost -= {name for name, index, _ in after[1] if (name, index) in
                             {(n, i) for n, i, _ in before[1]}}
                if lost:
                    rescan.add(entity.kind)
                row.live_count -= 1
            if after is not None:
                add_contribution(row.fields, after[0], after[1], 1)
                row.live_count += 1
        if not self.fresh:
            self.db.put_entities(rows)
        notes = set()
        for note in (*self.notes_added.values(), *self.notes_removed.values()):
            notes.add(chunk_index(note.ordinal, self.chunk_records))
        self.db.put_notes(self.notes_added.values())
        self.db.delete_notes(self.notes_removed)
        if self.quarantine_changed:
            self.db.set_quarantine(self.quarantine)
        if self.early:
            self.db.add_retracted(self.early)
        return touched, notes, rescan


def _rescan(batch: _Batch, row: KindRow) -> None:
    """Find again where each field of a kind first appears (after its first holder changed)."""
    for entry in row.fields.values():
        entry.first = None
    missing = set(row.fields)
    for entity in batch.entities_of(row.kind):
        for index, name in enumerate(entity.merged()):
            stats = row.fields.get(name)
            if stats is not None and stats.first is None:
                stats.first = (entity.ordinal, index)
                missing.discard(name)
        if not missing:
            return


# --- rendering --------------------------------------------------------------------------


class _EntitiesFailed(Exception):
    def __init__(self, reasons: dict[int, str]) -> None:
        super().__init__(f"{len(reasons)} fact(s) could not be compiled")
        self.reasons = reasons


def _failure(entity: EntityRow, error: Exception) -> dict[int, str]:
    reason = short_reason(f"{entity.ident} could not be compiled: {type(error).__name__}: {error}")
    return {m.id: reason for m in entity.members}


def _entity_record(spec: ClassSpec, entity: EntityRow) -> Record:
    merged = entity.merged()
    values = []
    for f in spec.fields:
        value = coerce(merged.get(f.original), f)
        if value is not None:
            values.append((f.name, value))
    return Record(tuple(values), entity.fact_ids())


def class_doc(kind: str) -> str:
    return f"Records of kind {kind!r}; `fact_ids` cites the facts each one comes from."


_NOTE_DOC = "A free-text fact that fits no class, with the values it states, who said it and in which session."


def _with_hashes(entity: EntityRow) -> list[str]:
    return [h for _, h in entity.cites()]


_NEEDS_TEXT: dict[frozenset[str], str] = {}


def _needs_text(needs: frozenset[str]) -> str:
    """The temporal names a line uses, as the state keeps them (sorted, comma-separated)."""
    text = _NEEDS_TEXT.get(needs)
    if text is None:
        text = _NEEDS_TEXT[needs] = ",".join(sorted(needs))
    return text


def _lined(batch: _Batch, spec: ClassSpec, digest: str, entities: Sequence[EntityRow]) -> None:
    """Render the record line of each entity whose line is not of this spec; an entity whose
    record cannot be rendered fails with all its facts (after trying every entity)."""
    failed: dict[int, str] = {}
    plan = line_plan(spec)
    for entity in entities:
        if entity.line_spec == digest:
            continue
        try:
            try:
                line, needs = entity_line_needs(plan, entity.merged(), entity.fact_ids())
            except Exception:  # the general path renders it, or raises its own error
                line, names = record_line(spec.names.class_name, _entity_record(spec, entity))
                needs = _needs_text(names)
        except Exception as error:  # anything one entity's values do must not stop the others
            failed.update(_failure(entity, error))
            continue
        entity.line, entity.needs, entity.line_spec = line, needs, digest
        if not batch.fresh:
            batch.relined[entity.ident] = entity
    if failed:
        raise _EntitiesFailed(failed)


def _note_record(note: NoteRow) -> Record:
    return Record((("text", note.text), ("dates", list(note.dates)), *note.extra), (note.fact_id,))


def _render_kind_chunks(writer: Writer, batch: _Batch, kind: str, spec: ClassSpec, digest: str,
                        entities: Sequence[EntityRow], chunk_records: int, indexes: Iterable[int] = (),
                        fresh: bool = False) -> None:
    """The chunks of `entities` (and `indexes`, which lose their files when left empty);
    `fresh`: the kind has no files yet."""
    _lined(batch, spec, digest, entities)
    groups: dict[int, list[EntityRow]] = {index: [] for index in indexes}
    for entity in entities:
        index = chunk_index(entity.ordinal, chunk_records)
        group = groups.get(index)
        if group is None:
            group = groups[index] = []
        group.append(entity)
    record = partial(_entity_record, spec)
    for index in sorted(groups):
        writer.chunk(kind, index, spec, groups[index], record, fresh)


@dataclass(frozen=True)
class _Rendered:
    names: dict[str, KindNames]
    specs: dict[str, ClassSpec]
    counts: dict[str, int]
    input_hash: str
    written: frozenset[str]
    files: dict[str, str] | None  # every file of the package when this compile wrote them all


def _render(user: str, db: StateDb, batch: _Batch, full: bool, chunk_records: int) -> _Rendered:
    touched, note_chunks, rescan = batch.finish()
    for kind in sorted(rescan):
        _rescan(batch, batch.kinds[kind])
    live_after = sorted(k for k, row in batch.kinds.items() if row.live_count > 0)
    names = kind_names(live_after)
    if not full:
        old = kind_names(batch.live_before)
        if any(old[k] != names[k] for k in batch.live_before if k in names):
            raise NeedFull("a kind's names changed")
    writer = Writer(user, db)
    specs: dict[str, ClassSpec] = {}
    for kind in live_after:
        row = batch.kinds[kind]
        spec = spec_from_stats(names[kind], row.fields, row.live_count)
        specs[kind] = spec
        digest = spec_digest(spec)
        whole = full or kind not in batch.live_before or digest != row.spec
        if names[kind].singular:
            if whole or kind in touched:
                entity = batch.entities_of(kind)[0]
                try:
                    record = _entity_record(spec, entity)
                    writer.class_file(kind, spec, class_doc(kind), (record, _with_hashes(entity)))
                except Exception as error:
                    raise _EntitiesFailed(_failure(entity, error)) from error
            batch.release(kind)
        elif whole:
            db.delete_files(kind)
            writer.class_file(kind, spec, class_doc(kind), None)
            _render_kind_chunks(writer, batch, kind, spec, digest, batch.entities_of(kind), chunk_records, fresh=True)
            batch.release(kind)
        else:
            for index in sorted(touched.get(kind, ())):
                lo = index * chunk_records
                _render_kind_chunks(writer, batch, kind, spec, digest, batch.entities_of(kind, lo, lo + chunk_records),
                                    chunk_records, (index,))
        row.spec = digest
    for kind in batch.live_before - set(live_after):
        db.delete_files(kind)
        batch.kinds[kind].spec = ""
    batch.save_lines()
    db.put_kinds(batch.kinds.values())
    if full:
        writer.class_file(NOTES_KIND, NOTE_SPEC, _NOTE_DOC, None)
    for index, notes in _note_chunks(db, batch, full, note_chunks, chunk_records):
        writer.chunk(NOTES_KIND, index, NOTE_SPEC, notes, _note_record, full and batch.fresh)
    exports = _exports(db, names, specs)
    quarantined = {i: reason for i, (reason, _) in batch.quarantine.items()}
    input_hash = writer.init(batch.position, exports, quarantined)
    by_attribute = sorted(live_after, key=lambda k: names[k].attribute)
    counts = {names[k].attribute: batch.kinds[k].live_count for k in by_attribute}
    counts[NOTE_ATTRIBUTE] = db.note_count()
    return _Rendered(names, specs, counts, input_hash, frozenset(writer.written), writer.written if full else None)


def _note_chunks(db: StateDb, batch: _Batch, full: bool, touched: set[int],
                 chunk_records: int) -> Iterator[tuple[int, Sequence[NoteRow]]]:
    """The note chunks to render with their notes, by index: every chunk in a fresh build
    (its notes are all in the batch), else the touched ones (read from the state)."""
    if full and batch.fresh:
        groups: dict[int, list[NoteRow]] = {}
        for note in sorted(batch.notes_added.values(), key=lambda n: n.ordinal):
            groups.setdefault(chunk_index(note.ordinal, chunk_records), []).append(note)
        yield from sorted(groups.items())
        return
    if full:
        touched = {chunk_index(n.ordinal, chunk_records) for n in db.notes_in()}
    for index in sorted(touched):
        lo = index * chunk_records
        yield index, db.notes_in(lo, lo + chunk_records)


def _exports(db: StateDb, names: Mapping[str, KindNames], specs: Mapping[str, ClassSpec]) -> list[Export]:
    chunks: dict[str, list[tuple[int, str, str]]] = {}
    for row in db.file_rows():
        if row.chunk != CLASS_CHUNK:
            chunks.setdefault(row.kind, []).append((row.chunk, row.name[:-3], row.list_name))
    exports = []
    for kind in sorted(specs, key=lambda k: names[k].attribute):
        found = () if names[kind].singular else tuple((s, n) for _, s, n in sorted(chunks.get(kind, [])))
        exports.append(Export(specs[kind], found))
    exports.append(Export(NOTE_SPEC, tuple((s, n) for _, s, n in sorted(chunks.get(NOTES_KIND, [])))))
    return exports


# --- entry points -----------------------------------------------------------------------


def _build(user: str, db: StateDb, log: LogAccess, position: int, fresh: bool, extra: Mapping[int, str],
           chunk_records: int, persist: bool = True) -> tuple[_Rendered, _Batch]:
    meta = db.meta()
    batch = _Batch(db, log.get, fresh, extra, chunk_records, position, int(meta.get("note_next", "0")), persist)
    batch.apply_all(log.after(position))
    rendered = _render(user, db, batch, fresh, chunk_records)
    db.set_meta({"format": FORMAT, "position": str(batch.position), "note_next": str(batch.note_next),
                 "chunk_records": str(chunk_records)})
    return rendered, batch


def _build_full(user: str, db: StateDb, log: LogAccess, quarantine: Mapping[int, str] | None,
                chunk_records: int, persist: bool = True) -> tuple[_Rendered, _Batch]:
    """Everything from the log's start; an entity whose record cannot be rendered is
    quarantined and the build starts again (each round quarantines at least one more)."""
    extra = dict(quarantine or {})
    while True:
        db.clear()
        try:
            return _build(user, db, log, 0, True, extra, chunk_records, persist)
        except _EntitiesFailed as failed:
            extra.update(failed.reasons)


def _package(user: str, db: StateDb, rendered: _Rendered, batch: _Batch) -> GeneratedPackage:
    entities: dict[str, list[int]] = {}
    for kind in sorted(rendered.specs):
        for entity in batch.entities_of(kind):
            entities[entity.ident] = sorted(m.id for m in entity.members)
    entities.update({f"note#{n.fact_id}": [n.fact_id] for n in db.notes_in()})
    renamed = {k: s.renamed for k, s in rendered.specs.items() if s.renamed}
    quarantined = {i: reason for i, (reason, _) in db.quarantine().items()}
    return GeneratedPackage(user, dict(sorted(db.sources().items())), int(db.meta()["position"]),
                            rendered.input_hash, rendered.counts, entities, renamed, rendered.names,
                            dict(sorted(quarantined.items())))


@gc_paused
def compile_package(user: str, facts: Sequence[Fact], *, quarantine: Mapping[int, str] | None = None,
                    chunk_records: int = CHUNK_RECORDS) -> GeneratedPackage:
    """Compile the user's facts (any order; each id once) into a package, in full; facts
    that cannot be compiled are quarantined (left out, listed with their reasons).
    `quarantine` adds live facts known to fail validation (`codegen.quarantine.culprit_facts`)."""
    check_user_id(user)
    db = StateDb(None)
    try:
        return _package(user, db, *_build_full(user, db, ListLog(facts), quarantine, chunk_records, persist=False))
    finally:
        db.close()


@dataclass(frozen=True)
class Compiled:
    """What `compile_incremental` produced."""

    files: dict[str, str]
    position: int
    input_hash: str
    rebuilt: str | None  # why the whole log was compiled, None when the state was followed
    rendered: frozenset[str]  # files written by this compile
    writing: StateWrite | None = None  # the state's write, when it runs behind (`codegen.state_write`)


def _usable(db: StateDb, log: LogAccess, epoch: str, chunk_records: int) -> str | None:
    """Why the state cannot be followed for this log, or None."""
    meta = db.meta()
    if meta and meta.get("chunk_records") != str(chunk_records):
        return "state of another format"
    reason = prefix_problem(meta, log, format=FORMAT, epoch=epoch)
    if reason is not None:
        return reason
    if any(origin == _ENTITY_ORIGIN for _, origin in db.quarantine().values()):
        return "entities quarantined by rendering"
    return None


@gc_paused
def compile_incremental(user: str, state_path: Path, log: LogAccess, *, epoch: str = "",
                        chunk_records: int = CHUNK_RECORDS, write_behind: int | None = None) -> Compiled:
    """The package of `log`, produced from the state at `state_path` plus the facts after
    its position (see `codegen.compile_state`); the same bytes as `compile_package`. The
    state is rebuilt from the whole log when it does not match it, cannot be read, or
    cannot follow the change; it is left alone when another process moved it past `log`.
    `write_behind`: a rebuild of a log of at least this many facts leaves the writing of
    the state to a forked child (`codegen.state_write`; the caller waits for
    `Compiled.state_write` when done); None: the state is written before this returns."""
    check_user_id(user)
    state_write.wait(state_path)  # this process's write of the state, if one runs, is over first
    try:
        return _compile_with(user, state_path, log, epoch, chunk_records, write_behind)
    except sqlite3.DatabaseError as error:
        if isinstance(error, sqlite3.OperationalError) and _busy(error):
            # another process holds the state too long: compile without it, leaving it alone
            package = compile_package(user, list(log.after(0)), chunk_records=chunk_records)
            return Compiled(package.files, package.log_position, package.input_hash, "state busy",
                            frozenset(package.files))
        # a corrupt or unreadable state: start it again
        state_path.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            state_path.with_name(state_path.name + suffix).unlink(missing_ok=True)
        return _compile_with(user, state_path, log, epoch, chunk_records, write_behind)


def _busy(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)


def _compile_with(user: str, state_path: Path, log: LogAccess, epoch: str, chunk_records: int,
                  write_behind: int | None) -> Compiled:
    db = StateDb(state_path)
    try:
        db.begin_write()
    except BaseException:
        db.close()
        raise
    behind: dict[str, str] | None = None  # the meta row read, when the rebuild's write goes behind
    try:
        reason = _usable(db, log, epoch, chunk_records)
        if reason == "state ahead of the log":
            db.rollback()
            package = compile_package(user, list(log.after(0)), chunk_records=chunk_records)
            return Compiled(package.files, package.log_position, package.input_hash, reason,
                            frozenset(package.files))
        rendered: _Rendered | None = None
        if reason is None:
            try:
                rendered = _build(user, db, log, int(db.meta()["position"]), False, {}, chunk_records)[0]
            except (NeedFull, _EntitiesFailed) as why:
                db.rollback()
                db.begin_write()
                reason = str(why) or type(why).__name__
        if rendered is None and write_behind is not None and log.head >= write_behind:
            behind = db.meta()
            db.rollback()  # the child takes the lock again to write (see `codegen.state_write`)
        elif rendered is None:
            rendered = _build_full(user, db, log, None, chunk_records)[0]
        if rendered is not None:
            position, files = _seal(db, log, epoch, rendered)
            db.commit()
    except BaseException:
        db.rollback()
        raise
    finally:
        db.close()
    if behind is not None:
        return _compile_behind(user, state_path, log, epoch, chunk_records, behind, reason)
    assert rendered is not None
    return Compiled(dict(sorted(files.items())), position, rendered.input_hash, reason, rendered.written)


def _seal(db: StateDb, log: LogAccess, epoch: str, rendered: _Rendered) -> tuple[int, dict[str, str]]:
    """The state's last meta (epoch, anchor); the position compiled and the package's files."""
    position = int(db.meta()["position"])
    anchor = log.get(position) if position else None
    db.set_meta({"epoch": epoch, "anchor": anchor.hash if anchor else ""})
    return position, db.sources() if rendered.files is None else rendered.files


def _compile_behind(user: str, state_path: Path, log: LogAccess, epoch: str, chunk_records: int,
                    seen: dict[str, str], reason: str | None) -> Compiled:
    """A rebuild from the whole log in memory, its state written by a child (see
    `codegen.state_write`) if the state's meta row is still `seen` then."""
    db = DeferredState()
    try:
        rendered = _build_full(user, db, log, None, chunk_records)[0]
        position, files = _seal(db, log, epoch, rendered)
        write = state_write.start(state_path, seen, db.writes, log.head)
    finally:
        db.close()
    return Compiled(dict(sorted(files.items())), position, rendered.input_hash, reason, rendered.written, write)


def state_files(state_path: Path) -> Iterator[Path]:
    """The files of a state (for `forget`)."""
    yield state_path
    for suffix in ("-wal", "-shm", "-journal"):
        yield state_path.with_name(state_path.name + suffix)

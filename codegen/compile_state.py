"""The compiler's incremental state: what it needs to produce the next package from the
previous one plus the new facts, kept in one SQLite database per user.

Rows (all indexed, so loading and updating cost what the new facts touch, not the log):

- `entities`: one row per identity ever seen (`factlog.identity.kind_identity`), with its
  kind, its ORDINAL (see `codegen.compile`) and its live member facts (id, effective day,
  hash, fields); an identity whose facts all died keeps its row, so its ordinal stays.
- `notes`: the live kind-less facts, with their ordinal, dates and other typed fields.
- `kinds`: per normalized kind the next ordinal, the number of live entities, the schema
  inputs (per field: how many entities hold it, how many hold a non-null value, the
  counts of the values' types, where it was first seen) and the digest of the class spec
  the files were rendered with.
- `quarantine`: live facts left out, with their reason; `retracted`: ids retracted before
  they arrived (only a log written out of order has them).
- `files`: the last package produced (name, kind, chunk, list name, input hash, source).
- `meta`: format, log position, the chain hash of the fact at that position (the anchor),
  the store's forget epoch, the chunk size, the note counter.

It is a cache. The caller checks the meta row against the log (position, anchor, epoch)
and rebuilds from the whole log on any mismatch, a corrupt file, or anything the state
cannot follow (`NeedFull`). Updates run in one `BEGIN IMMEDIATE` transaction that checks
the meta row first, so two processes updating one user's state serialize, and the state
never describes a log prefix other than the one it claims.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

from factlog.model import JsonValue
from factlog.timeparse import parse_date

FORMAT = "4"  # 4: notes keep their typed fields (`extra`)
NOTES_KIND = ""  # the `kind` of note files in the `files` table
CLASS_CHUNK = -1  # the `chunk` of a class module in the `files` table

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entities(ident TEXT PRIMARY KEY, kind TEXT NOT NULL, ordinal INTEGER NOT NULL,
    live INTEGER NOT NULL, members TEXT NOT NULL, line TEXT NOT NULL, line_spec TEXT NOT NULL,
    needs TEXT NOT NULL, cites TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS entities_by_ordinal ON entities(kind, live, ordinal);
CREATE TABLE IF NOT EXISTS notes(fact_id INTEGER PRIMARY KEY, ordinal INTEGER NOT NULL, text TEXT NOT NULL,
    dates TEXT NOT NULL, hash TEXT NOT NULL, line TEXT NOT NULL, needs TEXT NOT NULL, extra TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS notes_by_ordinal ON notes(ordinal);
CREATE TABLE IF NOT EXISTS kinds(kind TEXT PRIMARY KEY, next_ordinal INTEGER NOT NULL, live_count INTEGER NOT NULL,
    stats TEXT NOT NULL, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS quarantine(fact_id INTEGER PRIMARY KEY, reason TEXT NOT NULL, origin TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS retracted(fact_id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS files(name TEXT PRIMARY KEY, kind TEXT NOT NULL, chunk INTEGER NOT NULL,
    list_name TEXT NOT NULL, input_hash TEXT NOT NULL, source TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS files_by_chunk ON files(kind, chunk);
"""
_TABLES = ("meta", "entities", "notes", "kinds", "quarantine", "retracted", "files")
_NOTE_COLUMNS = "fact_id, ordinal, text, dates, hash, line, needs, extra"


class NeedFull(Exception):
    """The state cannot follow this change (or does not match the log): rebuild in full."""


class Member(NamedTuple):
    """A live fact of an entity."""

    id: int
    day: str  # effective date, ISO (`factlog.liveness.update_order`, as text)
    hash: str
    fields: dict[str, JsonValue]


class EntityRow:
    """An identity of the log: kind, ordinal, live member facts (id order; read from the
    state only when asked for), and its record's line as last rendered."""

    __slots__ = ("ident", "kind", "ordinal", "_members", "_raw", "_merged", "line", "line_spec", "needs", "_cites")

    def __init__(self, ident: str, kind: str, ordinal: int, members: list[Member] | None = None, *,
                 raw: str = "", line: str = "", line_spec: str = "", needs: str = "", cites: str = "") -> None:
        self.ident, self.kind, self.ordinal = ident, kind, ordinal
        self._members = members if members is not None or raw else []
        self._raw = raw
        self._merged: dict[str, JsonValue] | None = None
        self.line = line  # its record's source (`codegen.render.record_line`), rendered with spec `line_spec`
        self.line_spec = line_spec  # "" when the line must be rendered again
        self.needs = needs  # the temporal names the line uses, comma-separated
        self._cites = cites  # "id:hash,..." of the members, id order

    @property
    def members(self) -> list[Member]:
        if self._members is None:
            self._members = _members(self._raw)
        return self._members

    @members.setter
    def members(self, value: list[Member]) -> None:
        self._members = value
        self._merged = None

    def add(self, member: Member) -> None:
        self.members.append(member)
        self._merged = None

    @property
    def live(self) -> bool:
        return self._raw not in ("", "[]") if self._members is None else bool(self._members)

    def cites(self) -> tuple[tuple[int, str], ...]:
        """(fact id, hash) of the members, id order."""
        if self._members is None and self._cites:
            return tuple((int(i), h) for i, _, h in (c.partition(":") for c in self._cites.split(",")))
        members = self.members
        if len(members) == 1:
            return ((members[0].id, members[0].hash),)
        return tuple(sorted((m.id, m.hash) for m in members))

    def fact_ids(self) -> tuple[int, ...]:
        """The members' fact ids, ascending."""
        members = self.members
        if len(members) == 1:
            return (members[0].id,)
        return tuple(sorted(m.id for m in members))

    def cites_text(self) -> str:
        members = self._members
        if members is not None and len(members) == 1:
            return f"{members[0].id}:{members[0].hash}"
        return ",".join([f"{i}:{h}" for i, h in self.cites()])

    def merged(self) -> dict[str, JsonValue]:
        """Fields after applying the members in update order (a later one overwrites); the
        caller must not change the dict."""
        if self._merged is None:
            members = self.members
            if len(members) == 1:
                self._merged = members[0].fields
            else:
                self._merged = {}
                for member in sorted(members, key=lambda m: (m.day, m.id)):
                    self._merged.update(member.fields)
        return self._merged


class NoteRow(NamedTuple):
    """A live kind-less fact."""

    fact_id: int
    ordinal: int
    text: str
    dates: tuple[date, ...]
    hash: str
    line: str = ""  # its record's source (`codegen.render.record_line`)
    needs: str = ""
    extra: tuple[tuple[str, JsonValue], ...] = ()  # its other typed fields (`factlog.note_fields.note_extra`)

    def cites(self) -> tuple[tuple[int, str], ...]:
        return ((self.fact_id, self.hash),)


@dataclass(slots=True)
class FieldStats:
    present: int = 0  # entities whose merged fields name it
    nonnull: int = 0  # ... with a non-null value
    types: dict[str, int] = field(default_factory=dict)  # value type text -> entities
    first: tuple[int, int] | None = None  # (ordinal, index in the fields) of its first appearance


@dataclass
class KindRow:
    kind: str
    next_ordinal: int = 0
    live_count: int = 0
    fields: dict[str, FieldStats] = field(default_factory=dict)
    spec: str = ""  # digest of the spec its files were rendered with ("" = none)


@dataclass(frozen=True)
class FileRow:
    name: str
    kind: str
    chunk: int
    list_name: str
    input_hash: str


def _compact_encoder() -> Callable[[object], str]:
    """`json.dumps(value, separators=(",", ":"))` for JSON values, without its per-call set-up."""
    encoder = json.JSONEncoder(separators=(",", ":"), check_circular=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return encoder.encode
    chunks = make(None, encoder.default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)
    return lambda value: "".join(chunks(value, 0))


_COMPACT = _compact_encoder()


def _members_json(members: list[Member]) -> str:
    """[[id, day, hash, fields], ...] (a `Member` is a tuple, written as a JSON array)."""
    return _COMPACT(members)


def _members(text: str) -> list[Member]:
    return [Member(int(i), str(d), str(h), f) for i, d, h, f in json.loads(text)]


def _stats_json(row: KindRow) -> str:
    return _COMPACT({name: [s.present, s.nonnull, s.types, list(s.first) if s.first else None]
                     for name, s in row.fields.items()})


def _stats(text: str) -> dict[str, FieldStats]:
    out: dict[str, FieldStats] = {}
    for name, (present, nonnull, types, first) in json.loads(text).items():
        out[name] = FieldStats(int(present), int(nonnull), {str(k): int(v) for k, v in types.items()},
                               (int(first[0]), int(first[1])) if first else None)
    return out


def _note_rows(notes: Iterable[NoteRow]) -> Iterator[tuple[object, ...]]:
    dates: dict[tuple[date, ...], str] = {}  # many notes share their dates
    for n in notes:
        text = dates.get(n.dates)
        if text is None:
            text = dates[n.dates] = json.dumps([d.isoformat() for d in n.dates])
        yield n.fact_id, n.ordinal, n.text, text, n.hash, n.line, n.needs, _COMPACT(n.extra) if n.extra else ""


def _note(row: tuple[object, ...]) -> NoteRow:
    fact_id, ordinal, text, dates, fact_hash, line, needs, extra = row
    return NoteRow(int(str(fact_id)), int(str(ordinal)), str(text),
                   tuple(parse_date(d) for d in json.loads(str(dates))), str(fact_hash), str(line), str(needs),
                   tuple((str(k), v) for k, v in json.loads(str(extra))) if extra else ())


class StateDb:
    """One user's state: a SQLite file, or in memory (`path=None`) for a one-off full compile."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(":memory:" if path is None else str(path), isolation_level=None,
                                    timeout=120.0, check_same_thread=False)
        if path is not None:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(_SCHEMA)
        if "extra" not in {str(row[1]) for row in self.conn.execute("PRAGMA table_info(notes)")}:
            try:  # a state of format 3: its meta's format makes the next compile rebuild it
                self.conn.execute("ALTER TABLE notes ADD COLUMN extra TEXT NOT NULL DEFAULT ''")
            except sqlite3.OperationalError:  # another process added it first
                pass

    def close(self) -> None:
        self.conn.close()

    # transactions
    def begin_write(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def clear(self) -> None:
        for table in _TABLES:
            self.conn.execute(f"DELETE FROM {table}")

    # every change of a row goes through these two (`DeferredState` keeps them for later)
    def _write(self, table: str, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self.conn.executemany(sql, rows)

    def _write_one(self, table: str, sql: str, args: Sequence[object] = ()) -> None:
        self.conn.execute(sql, args)

    # meta
    def meta(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.conn.execute("SELECT key, value FROM meta")}

    def set_meta(self, values: dict[str, str]) -> None:
        self._write("meta", "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", sorted(values.items()))

    # entities
    def entity(self, ident: str) -> EntityRow | None:
        row = self.conn.execute("SELECT kind, ordinal, members, line, line_spec, needs FROM entities WHERE ident = ?",
                                (ident,)).fetchone()
        return None if row is None else EntityRow(ident, row[0], int(row[1]), _members(row[2]), line=row[3],
                                                  line_spec=row[4], needs=row[5])

    def entities_of(self, kind: str, lo: int | None = None, hi: int | None = None) -> Iterator[EntityRow]:
        """Live entities of `kind` (ordinal in [lo, hi) when given), in ordinal order."""
        columns = "ident, ordinal, members, line, line_spec, needs, cites"
        if lo is None or hi is None:
            rows = self.conn.execute(f"SELECT {columns} FROM entities WHERE kind = ? AND live = 1 "
                                     "ORDER BY ordinal", (kind,))
        else:
            rows = self.conn.execute(f"SELECT {columns} FROM entities WHERE kind = ? AND live = 1 "
                                     "AND ordinal >= ? AND ordinal < ? ORDER BY ordinal", (kind, lo, hi))
        for ident, ordinal, members, line, line_spec, needs, cites in rows.fetchall():
            yield EntityRow(ident, kind, int(ordinal), raw=members, line=line, line_spec=line_spec, needs=needs,
                            cites=cites)

    def all_live(self) -> Iterator[EntityRow]:
        for ident, kind, ordinal, members in self.conn.execute(
                "SELECT ident, kind, ordinal, members FROM entities WHERE live = 1 ORDER BY kind, ordinal"):
            yield EntityRow(ident, kind, int(ordinal), raw=members)

    def put_entities(self, rows: Iterable[EntityRow]) -> None:
        self._write("entities", "INSERT OR REPLACE INTO entities(ident, kind, ordinal, live, members, line, "
                    "line_spec, needs, cites) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    ((r.ident, r.kind, r.ordinal, int(r.live), _members_json(r.members), r.line,
                      r.line_spec, r.needs, r.cites_text()) for r in rows))

    def put_lines(self, rows: Iterable[EntityRow]) -> None:
        self._write("entities", "UPDATE entities SET line = ?, line_spec = ?, needs = ? WHERE ident = ?",
                    ((r.line, r.line_spec, r.needs, r.ident) for r in rows))

    # notes
    def notes_in(self, lo: int | None = None, hi: int | None = None) -> list[NoteRow]:
        columns = _NOTE_COLUMNS
        if lo is None or hi is None:
            rows = self.conn.execute(f"SELECT {columns} FROM notes ORDER BY ordinal")
        else:
            rows = self.conn.execute(f"SELECT {columns} FROM notes WHERE ordinal >= ? AND ordinal < ? "
                                     "ORDER BY ordinal", (lo, hi))
        return [_note(row) for row in rows.fetchall()]

    def note(self, fact_id: int) -> NoteRow | None:
        rows = self.conn.execute(f"SELECT {_NOTE_COLUMNS} FROM notes WHERE fact_id = ?", (fact_id,)).fetchall()
        return _note(rows[0]) if rows else None

    def put_notes(self, notes: Iterable[NoteRow]) -> None:
        self._write("notes", f"INSERT OR REPLACE INTO notes({_NOTE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    _note_rows(notes))

    def delete_notes(self, ids: Iterable[int]) -> None:
        self._write("notes", "DELETE FROM notes WHERE fact_id = ?", ((i,) for i in ids))

    def note_count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0])

    # kinds
    def kinds(self) -> dict[str, KindRow]:
        rows = self.conn.execute("SELECT kind, next_ordinal, live_count, stats, spec FROM kinds")
        return {k: KindRow(k, int(n), int(c), _stats(s), sp) for k, n, c, s, sp in rows}

    def put_kinds(self, rows: Iterable[KindRow]) -> None:
        self._write("kinds", "INSERT OR REPLACE INTO kinds(kind, next_ordinal, live_count, stats, spec) "
                    "VALUES (?, ?, ?, ?, ?)",
                    ((r.kind, r.next_ordinal, r.live_count, _stats_json(r), r.spec) for r in rows))

    # quarantine and early retractions
    def quarantine(self) -> dict[int, tuple[str, str]]:
        return {int(i): (r, o) for i, r, o in self.conn.execute("SELECT fact_id, reason, origin FROM quarantine")}

    def set_quarantine(self, items: dict[int, tuple[str, str]]) -> None:
        self._write_one("quarantine", "DELETE FROM quarantine")
        self._write("quarantine", "INSERT INTO quarantine(fact_id, reason, origin) VALUES (?, ?, ?)",
                    ((i, r, o) for i, (r, o) in sorted(items.items())))

    def retracted(self, fact_id: int) -> bool:
        return self.conn.execute("SELECT 1 FROM retracted WHERE fact_id = ?", (fact_id,)).fetchone() is not None

    def add_retracted(self, ids: Iterable[int]) -> None:
        self._write("retracted", "INSERT OR IGNORE INTO retracted(fact_id) VALUES (?)", ((i,) for i in ids))

    # files
    def file_rows(self) -> list[FileRow]:
        return [FileRow(n, k, int(c), ln, h) for n, k, c, ln, h in self.conn.execute(
            "SELECT name, kind, chunk, list_name, input_hash FROM files ORDER BY name")]

    def sources(self) -> dict[str, str]:
        return {n: s for n, s in self.conn.execute("SELECT name, source FROM files")}

    def put_file(self, row: FileRow, source: str) -> None:
        self._write_one("files", "INSERT OR REPLACE INTO files(name, kind, chunk, list_name, input_hash, source) "
                        "VALUES (?, ?, ?, ?, ?, ?)", (row.name, row.kind, row.chunk, row.list_name,
                                                      row.input_hash, source))

    def delete_files(self, kind: str, chunk: int | None = None) -> None:
        if chunk is None:
            self._write_one("files", "DELETE FROM files WHERE kind = ?", (kind,))
        else:
            self._write_one("files", "DELETE FROM files WHERE kind = ? AND chunk = ?", (kind, chunk))


Write = tuple[str, Iterable[Sequence[object]] | None, Sequence[object]]  # sql, rows (None: run once), args


_KEPT_AS_OBJECTS = ("entities", "notes")  # tables whose rows a deferred state keeps unmade


class DeferredState(StateDb):
    """A state built from scratch in memory, whose writes are kept to be replayed into the
    state file later (`replay`, in one transaction after `clear`), by another process.

    Every write but the entities' and notes' runs in memory too (the build reads those
    tables back), and is kept as rows already made. The entity and note rows are only kept,
    as the `EntityRow`s and `NoteRow`s themselves: they are turned into text when they are
    replayed, so a build from scratch must not change an entity once it has put it (it
    does not: each kind's rows are put when its chunks are rendered, the rest at the end).
    Reading entities or notes back is refused (a build from scratch holds them in memory);
    the notes are counted."""

    def __init__(self) -> None:
        super().__init__(None)
        self.writes: list[Write] = []
        self._note_ids: set[int] = set()

    def clear(self) -> None:
        super().clear()
        self.writes.clear()
        self._note_ids.clear()

    def _write(self, table: str, sql: str, rows: Iterable[Sequence[object]]) -> None:
        if table in _KEPT_AS_OBJECTS:
            self.writes.append((sql, rows, ()))  # made when replayed (see the class)
            return
        made = list(rows)
        self.conn.executemany(sql, made)
        self.writes.append((sql, made, ()))

    def _write_one(self, table: str, sql: str, args: Sequence[object] = ()) -> None:
        self.conn.execute(sql, args)
        self.writes.append((sql, None, tuple(args)))

    def put_entities(self, rows: Iterable[EntityRow]) -> None:
        super().put_entities(list(rows))  # the rows as they are now, made into text later

    def put_lines(self, rows: Iterable[EntityRow]) -> None:
        raise RuntimeError("a deferred state takes whole entity rows only")

    def put_notes(self, notes: Iterable[NoteRow]) -> None:
        notes = list(notes)
        self._note_ids.update(n.fact_id for n in notes)
        super().put_notes(notes)

    def delete_notes(self, ids: Iterable[int]) -> None:
        ids = list(ids)
        self._note_ids.difference_update(ids)
        super().delete_notes(ids)

    def note_count(self) -> int:
        return len(self._note_ids)

    def notes_in(self, lo: int | None = None, hi: int | None = None) -> list[NoteRow]:
        raise RuntimeError("a deferred state does not read notes back")

    def note(self, fact_id: int) -> NoteRow | None:
        raise RuntimeError("a deferred state does not read notes back")

    def entity(self, ident: str) -> EntityRow | None:
        raise RuntimeError("a deferred state does not read entities back")

    def entities_of(self, kind: str, lo: int | None = None, hi: int | None = None) -> Iterator[EntityRow]:
        raise RuntimeError("a deferred state does not read entities back")

    def all_live(self) -> Iterator[EntityRow]:
        raise RuntimeError("a deferred state does not read entities back")


def replay(db: StateDb, writes: Iterable[Write]) -> None:
    """Run kept writes (`DeferredState.writes`) against `db`, in their order."""
    for sql, rows, args in writes:
        if rows is None:
            db.conn.execute(sql, args)
        else:
            db.conn.executemany(sql, rows)

"""A derived full-text index for recall: facts and rendered records, BM25-ranked.

The index is a cache of the fact log and of the user's current module: it can be deleted
and rebuilt at any time. One row of `docs` per live fact or rendered record; an FTS5 table
(external content over `docs.body`) holds the tokens. Questions never reach FTS5 as query
syntax: they are split into word tokens here and each token is quoted. Words that are not
common (`COMMON_ROWS`) and have `MIN_PREFIX_CHARS` or more are prefix terms, which FTS5
stems too, so "expire" (stem `expir`) also finds "expiry_date" (`expiri` and `date`:
unicode61 splits on `_`); common words match whole words only, as prefixes they are costly.

Layers (seed 004: prefer the higher layer). Records of the current module version are the
typed, reconciled truth: their BM25 score is multiplied by `RECORD_WEIGHT` (not notes: a
`Note` is a free-text fact rendered again, the same layer as the fact). A fact is
*superseded* when a later live fact of the same entity (the compiler's identity: kind + key,
one entity per user for singular canonical kinds; `factlog.identity`) restates a field it
names; its score is multiplied by `SUPERSEDED_WEIGHT` and its hit carries the id of the
latest fact that superseded it. A free-text fact has no entity, but when the extractor
drew structured facts from it (its *twins*: same session, message and text, synced
together) it is superseded as soon as one of them is. Currency is kept incrementally:
each sync recomputes only the entities (and twins) it touched.

Session metadata (the business or department the user talked to, kept by a fact in its
field `session_metadata`) is indexed in a second FTS5 column, `meta`, so "what did the bank
tell me" finds the facts of the sessions whose metadata names the bank; it is not part of the
fact's shown text (recall shows it once, in the header of the fact's session group).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Iterable, Iterator, Literal, Mapping, NamedTuple

from codegen.manifest import Manifest
from factlog.identity import shared_identity
from factlog.liveness import effective_day, killed_by, superseders
from factlog.model import Fact, JsonValue, check_user_id
from factlog.timeparse import day_of
from factlog.vocabulary import CANONICAL, NOTE_ATTRIBUTE, SESSION_METADATA
from users.records import Record, collections, label, module_manifest

HitSource = Literal["fact", "record"]

MAX_QUERY_TOKENS = 32
MIN_PREFIX_CHARS = 4  # shorter tokens (and numbers) match whole words only
RECORD_WEIGHT = 1.5  # a current record outranks a fact of equal BM25 relevance
SUPERSEDED_WEIGHT = 0.5  # a superseded fact ranks below a current one of equal relevance
META_WEIGHT = 1.0  # BM25 weight of the session-metadata column (the text column weighs 1.0)
SCHEMA_VERSION = 3  # `PRAGMA user_version`; an index of another version is rebuilt
_WORD = re.compile(r"\w+")
# Words that match nearly every fact and only dilute BM25; dropped from questions.
STOPWORDS = frozenset(
    "a about all also am an and any are as at be been but by can could did do does for from "
    "had has have how i if in into is it its just me much my no not of on or our s so some t "
    "than that the their them then there these they this to up was we were what when where "
    "which who whom why will with would you your".split()
)
# A word in more rows than this is "common": matching it is costly and it ranks little, so
# when rarer words of the question match enough rows, only those select candidates.
COMMON_ROWS = 5000

_SCHEMA = """
CREATE TABLE users (
    user TEXT PRIMARY KEY,
    last_fact_id INTEGER NOT NULL DEFAULT 0,
    record_version INTEGER
);
CREATE TABLE docs (
    id INTEGER PRIMARY KEY,
    user TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('fact', 'record')),
    fact_id INTEGER,          -- facts; notes: the fact they render
    kind TEXT,                -- facts: the fact kind
    attribute TEXT,           -- records: the module attribute, e.g. 'trips'
    session TEXT,
    day TEXT,                 -- ISO date: valid_from, else the recorded date (effective date)
    fact_ids TEXT NOT NULL,   -- comma-separated citation
    body TEXT NOT NULL,
    said TEXT,                -- facts: ISO date said (session timestamp, else recorded date)
    entity TEXT,              -- facts: the compiler's entity identity, if the fact has one
    field_names TEXT,         -- facts with an entity: JSON list of the names of their fields
    superseded_by INTEGER,    -- facts: the latest later fact of the entity restating a field
    twin_of INTEGER,          -- a structured fact extracted from a free-text fact: that fact's id
    meta TEXT                 -- facts: their session's metadata, rendered (`business: ...`)
);
CREATE INDEX docs_user_fact ON docs (user, fact_id);
CREATE INDEX docs_user_source ON docs (user, source);
CREATE INDEX docs_user_entity ON docs (user, entity) WHERE entity IS NOT NULL;
CREATE INDEX docs_user_twin ON docs (user, twin_of) WHERE twin_of IS NOT NULL;
CREATE VIRTUAL TABLE fts USING fts5(
    body, meta, content='docs', content_rowid='id', tokenize='porter unicode61'
);
"""


@dataclass(frozen=True)
class RecordText:
    """One rendered record of the user's module, citing the facts it was built from."""

    text: str
    fact_ids: tuple[int, ...]
    attribute: str


@dataclass(frozen=True)
class Hit:
    """A search result; `score` is -bm25 times the layer weight, so higher is more relevant.

    Facts carry `said` (the ISO date they were said) and `superseded_by` (a fact id, or None
    while the fact is current)."""

    source: HitSource
    text: str
    fact_ids: tuple[int, ...]
    score: float
    said: str | None = None
    superseded_by: int | None = None
    session: str | None = None  # facts: their session id
    meta: str | None = None  # facts: their session's metadata, rendered
    entity: str | None = None  # facts: entity identity or kind; records: the module attribute


class _Row(NamedTuple):
    """One `docs` row, in column order."""

    id: int
    user: str
    source: HitSource
    fact_id: int | None
    kind: str | None
    attribute: str | None
    session: str | None
    day: str | None
    fact_ids: str
    body: str
    said: str | None = None
    entity: str | None = None
    field_names: str | None = None
    twin_of: int | None = None
    meta: str | None = None


class SearchTimeout(Exception):
    """The search passed its deadline and was interrupted."""


def words(text: str) -> list[str]:
    """The distinct lowercase words of `text`, stopwords dropped unless nothing else is left."""
    found = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    return [w for w in found if w not in STOPWORDS] or found


def query_tokens(text: str) -> list[str]:
    return words(text)[:MAX_QUERY_TOKENS]


def prefix_term(token: str) -> str:
    """`token` as a (stemmed) prefix term if it has MIN_PREFIX_CHARS or more and is no number."""
    return _quoted(token) + ("*" if len(token) >= MIN_PREFIX_CHARS and not token.isdigit() else "")


def _quoted(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def said_on(fact: Fact) -> str:
    """The ISO date the fact was said: its session's timestamp, else the day it was recorded."""
    day = day_of(fact.provenance.session_ts) or day_of(fact.recorded_at)
    return day.isoformat() if day is not None else fact.recorded_at[:10]


def _render_value(value: JsonValue) -> str:
    if isinstance(value, list):
        return ", ".join(_render_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_render_value(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def fact_body(fact: Fact) -> str:
    """What is indexed and shown for a fact: its text, then its field values (not its
    session's metadata: `session_meta`)."""
    pairs = [f"{k}={_render_value(v)}" for k, v in fact.fields.items() if v is not None and k != SESSION_METADATA]
    return f"{fact.text} ({'; '.join(pairs)})" if pairs else fact.text


def session_meta(fact: Fact) -> str | None:
    """The fact's session metadata as `business: First National Bank; channel: phone`, or None."""
    meta = fact.fields.get(SESSION_METADATA)
    if isinstance(meta, dict):
        text = "; ".join(f"{k}: {_render_value(v)}" for k, v in meta.items() if v is not None)
    else:
        text = "" if meta is None else _render_value(meta)
    return printable_line(text) or None


def printable_line(text: str) -> str:
    """`text` on one line: control characters and runs of white space become one space."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def render_record(record: Record) -> str:
    """`Trip(destination='Tokyo', departure_date=2025-01-15)`: every set field, no provenance."""
    return label(record, limit=None, width=None)


def record_texts(source: Manifest | Mapping[str, object]) -> list[RecordText]:
    """Render every record of a version's manifest (or of a module's namespace) under the
    module's public attributes (`trips`, `passport`, `notes`...), in the module's order."""
    manifest = source if isinstance(source, Manifest) else module_manifest(source)
    colls = collections(manifest)
    return [RecordText(render_record(record), tuple(record.fact_ids), name)
            for name in manifest.names if name in colls for record in colls[name].records]


def _ids_text(ids: Iterable[int]) -> str:
    return ",".join(str(int(i)) for i in ids)


def _parse_ids(text: str) -> tuple[int, ...]:
    return tuple(int(i) for i in text.split(",")) if text else ()


def _fact_row(row_id: int, fact: Fact, free_text: dict[tuple[str, int, str], int]) -> _Row:
    """The `docs` row of a fact. `free_text` maps (session, message, text) to the free-text
    facts seen so far in this sync: a structured fact said at the same place is their twin."""
    entity, twin = shared_identity(fact), None
    session, message = fact.provenance.session_id, fact.provenance.message_index
    if session is not None and message is not None:
        if fact.kind is None:
            free_text[(session, message, fact.text)] = fact.id
        elif entity is not None:
            twin = free_text.get((session, message, fact.text))
    day = effective_day(fact)
    names = json.dumps(list(fact.fields)) if entity is not None else None
    return _Row(row_id, fact.user, "fact", fact.id, fact.kind, None, fact.provenance.session_id, day,
                str(fact.id), fact_body(fact), said_on(fact), entity, names, twin, session_meta(fact))


def _note_fact(record: RecordText) -> int | None:
    return record.fact_ids[0] if record.attribute == NOTE_ATTRIBUTE and len(record.fact_ids) == 1 else None


# The columns a Hit is built from (`_hit`), in order.
_HIT_COLUMNS = ("d.source, d.body, d.fact_ids, d.said, d.superseded_by, d.session, d.meta, "
                "coalesce(d.entity, d.kind, d.attribute)")


def _hit(row: tuple[object, ...], score: float) -> Hit:
    source, body, ids, said, by, session, meta, entity = row
    return Hit("record" if source == "record" else "fact", str(body), _parse_ids(str(ids)), score,
               _text_or_none(said), None if by is None else int(str(by)), _text_or_none(session),
               _text_or_none(meta), _text_or_none(entity))


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


class RecallIndex:
    """The recall index at `path` (SQLite, WAL). Rows are per user; nothing mixes users."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Deleted rows are overwritten with zeros, so forgotten text leaves no bytes behind.
        self._db.execute("PRAGMA secure_delete=ON")
        if self._version() != SCHEMA_VERSION:
            with self._transaction():
                if self._version() != SCHEMA_VERSION:
                    # New, or a derived cache of another layout: (re)create; syncs refill it.
                    for table in ("fts", "docs", "users"):
                        self._db.execute(f"DROP TABLE IF EXISTS {table}")
                    for statement in _SCHEMA.split(";\n"):
                        if statement.strip():
                            self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RecallIndex:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def last_fact_id(self, user: str) -> int:
        row = self._db.execute("SELECT last_fact_id FROM users WHERE user = ?", (user,)).fetchone()
        return int(row[0]) if row else 0

    def record_version(self, user: str) -> int | None:
        row = self._db.execute("SELECT record_version FROM users WHERE user = ?", (user,)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def sync_facts(self, user: str, facts: Iterable[Fact]) -> int:
        """Index the facts after the last one indexed (in id order); returns how many were new.

        A retraction is not indexed; it removes the fact it retracts. Afterwards the entities
        the new facts and retractions touched have their `superseded_by` recomputed.
        """
        check_user_id(user)
        seen = 0
        rows: list[_Row] = []
        touched: set[str] = set()
        twins: set[int] = set()
        free_text: dict[tuple[str, int, str], int] = {}  # (session, message, text) -> fact id
        with self._transaction():
            last = self.last_fact_id(user)
            next_id = self._db.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
            for fact in facts:
                if fact.user != user:
                    raise ValueError(f"fact {fact.id} belongs to {fact.user!r}, not {user!r}")
                if fact.id <= last:
                    continue
                last = fact.id
                seen += 1
                killed = killed_by(fact)
                if killed:  # a retraction: not indexed, and what it retracts is no longer live
                    self._insert(rows)
                    rows.clear()
                    for gone_entity, gone_twin in self._delete_facts(user, killed):
                        touched.add(gone_entity)
                        twins.update([gone_twin] if gone_twin is not None else [])
                    continue
                row = _fact_row(next_id, fact, free_text)
                if row.entity is not None:
                    touched.add(row.entity)
                rows.append(row)
                next_id += 1
            self._insert(rows)
            for entity in sorted(touched):
                twins.update(self._update_currency(user, entity))
            # A free-text fact (and its note record) is as current as its twins.
            self._db.executemany(
                "UPDATE docs SET superseded_by = (SELECT max(t.superseded_by) FROM docs AS t "
                "WHERE t.user = docs.user AND t.twin_of = docs.fact_id) WHERE user = ? AND fact_id = ?",
                [(user, twin) for twin in sorted(twins)],
            )
            self._db.execute(
                "INSERT INTO users (user, last_fact_id) VALUES (?, ?) "
                "ON CONFLICT (user) DO UPDATE SET last_fact_id = excluded.last_fact_id",
                (user, last),
            )
        return seen

    def set_records(self, user: str, version: int, records: Iterable[RecordText]) -> None:
        """Replace the user's rendered records with those of module `version`.

        A note renders one free-text fact: its row keeps that fact's id, and shows the fact's
        date and currency (kept in step by later syncs)."""
        check_user_id(user)
        with self._transaction():
            self._delete_where("user = ? AND source = 'record'", (user,))
            start = self._db.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
            self._insert([
                _Row(start + i, user, "record", _note_fact(r), None, r.attribute, None, None, _ids_text(r.fact_ids),
                     r.text)
                for i, r in enumerate(records)
            ])
            self._db.execute(
                "UPDATE docs SET (said, superseded_by) = (SELECT f.said, f.superseded_by FROM docs AS f "
                "WHERE f.user = docs.user AND f.fact_id = docs.fact_id AND f.source = 'fact') "
                "WHERE user = ? AND source = 'record' AND fact_id IS NOT NULL",
                (user,),
            )
            self._db.execute(
                "INSERT INTO users (user, record_version) VALUES (?, ?) "
                "ON CONFLICT (user) DO UPDATE SET record_version = excluded.record_version",
                (user, version),
            )

    def forget(self, user: str) -> int:
        """Delete every row of the user and compact, so none of their text stays in the file."""
        check_user_id(user)
        with self._transaction():
            gone = self._delete_where("user = ?", (user,))
            self._db.execute("DELETE FROM users WHERE user = ?", (user,))
            self._db.execute("INSERT INTO fts (fts) VALUES ('optimize')")
        self._db.execute("VACUUM")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return gone

    def search(
        self,
        user: str,
        query: str,
        *,
        kinds: Iterable[str] | None = None,
        since: date | None = None,
        until: date | None = None,
        session: str | None = None,
        limit: int = 20,
        deadline: float | None = None,
    ) -> list[Hit]:
        """The best `limit` rows of the user matching any word of `query`, best first.

        Scores are BM25 weighted by layer: current records above facts, superseded facts
        below current ones. Time and session filters apply to facts only (records have
        neither). `deadline` is a `time.monotonic()` instant; past it the search is
        interrupted (`SearchTimeout`).
        """
        tokens = query_tokens(query)
        if not tokens or limit <= 0:
            return []
        where, args = self._filters(user, kinds, since, until, session)
        sql = (
            f"SELECT {_HIT_COLUMNS}, -bm25(fts, 1.0, {META_WEIGHT}) * CASE "
            f"WHEN d.source = 'record' AND d.attribute != '{NOTE_ATTRIBUTE}' THEN {RECORD_WEIGHT} "
            f"WHEN d.superseded_by IS NOT NULL THEN {SUPERSEDED_WEIGHT} ELSE 1.0 END AS score "
            "FROM fts CROSS JOIN docs AS d ON d.id = fts.rowid "
            f"WHERE fts MATCH ? AND {where} ORDER BY score DESC, d.id DESC LIMIT ?"
        )
        if deadline is not None:
            self._db.set_progress_handler(lambda: time.monotonic() > deadline, 1000)
        try:
            terms, rare = self._terms(tokens, limit)
            rows: list[tuple[object, ...]] = []
            if rare:
                # Rows with a rare word; every word still counts in the score (rare ones twice).
                rows = self._db.execute(sql, [f"({' OR '.join(rare)}) AND ({' OR '.join(terms)})", *args,
                                              limit]).fetchall()
            if len(rows) < limit:
                rows = self._db.execute(sql, [" OR ".join(terms), *args, limit]).fetchall()
        except sqlite3.OperationalError as exc:
            if deadline is not None and "interrupt" in str(exc):
                raise SearchTimeout() from None
            raise
        finally:
            self._db.set_progress_handler(None, 0)
        return [_hit(row[:-1], float(str(row[-1]))) for row in rows]

    def typed(self, user: str, kinds: Iterable[str], *, limit: int) -> list[Hit]:
        """The typed state of `kinds`, in module order: the current module's records of their
        attributes when it holds any, else the live facts of those kinds no later fact
        superseded (before the first checkpoint). At most `limit`; scores are 1."""
        check_user_id(user)
        kind_list = [k for k in dict.fromkeys(kinds) if k in CANONICAL]
        if not kind_list or limit <= 0:
            return []
        attrs = [CANONICAL[k].attribute for k in kind_list]
        rows = self._db.execute(
            f"SELECT {_HIT_COLUMNS} FROM docs AS d WHERE d.user = ? AND d.source = 'record' AND "
            f"d.attribute IN ({','.join('?' * len(attrs))}) ORDER BY d.id LIMIT ?", (user, *attrs, limit)
        ).fetchall()
        if not rows:
            rows = self._db.execute(
                f"SELECT {_HIT_COLUMNS} FROM docs AS d WHERE d.user = ? AND d.source = 'fact' AND "
                f"d.superseded_by IS NULL AND d.kind IN ({','.join('?' * len(kind_list))}) ORDER BY d.fact_id "
                "LIMIT ?", (user, *kind_list, limit)
            ).fetchall()
        return [_hit(row, 1.0) for row in rows]

    def _terms(self, tokens: list[str], limit: int) -> tuple[list[str], list[str]]:
        """The FTS5 terms of the words (prefix terms, but whole words for common ones: those
        whose prefix matches more than COMMON_ROWS rows of any user), and the terms of the
        rare words that match, if there are common ones too and the rare ones match at least
        `limit` rows; else no rare terms."""
        counts = [
            self._db.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                             (prefix_term(t), COMMON_ROWS + 1)).fetchone()[0]
            for t in tokens
        ]
        terms = [prefix_term(t) if n <= COMMON_ROWS else _quoted(t) for t, n in zip(tokens, counts)]
        rare = [term for term, n in zip(terms, counts) if 0 < n <= COMMON_ROWS]
        if len(rare) == sum(1 for n in counts if n) or sum(n for n in counts if n <= COMMON_ROWS) < limit:
            return terms, []
        return terms, rare

    @staticmethod
    def _filters(
        user: str, kinds: Iterable[str] | None, since: date | None, until: date | None, session: str | None
    ) -> tuple[str, list[object]]:
        where = ["d.user = ?"]
        args: list[object] = [user]
        if kinds is not None:
            kind_list = list(kinds)
            attrs = [CANONICAL[k].attribute for k in kind_list if k in CANONICAL]
            if "note" in kind_list:
                attrs.append(NOTE_ATTRIBUTE)
            marks_k, marks_a = ",".join("?" * len(kind_list)), ",".join("?" * len(attrs))
            where.append(f"((d.source = 'fact' AND d.kind IN ({marks_k})) OR "
                         f"(d.source = 'record' AND d.attribute IN ({marks_a})))")
            args += kind_list + attrs
        if since is not None or until is not None or session is not None:
            where.append("d.source = 'fact'")
        for clause, value in (("d.day >= ?", since), ("d.day <= ?", until)):
            if value is not None:
                where.append(clause)
                args.append(value.isoformat())
        if session is not None:
            where.append("d.session = ?")
            args.append(session)
        return " AND ".join(where), args

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _insert(self, rows: list[_Row]) -> None:
        if not rows:
            return
        self._db.executemany(
            f"INSERT INTO docs ({', '.join(_Row._fields)}) VALUES ({', '.join('?' * len(_Row._fields))})", rows
        )
        self._db.executemany("INSERT INTO fts (rowid, body, meta) VALUES (?, ?, ?)",
                             [(r.id, r.body, r.meta) for r in rows])

    def _delete_facts(self, user: str, fact_ids: Iterable[int]) -> list[tuple[str, int | None]]:
        """Delete the facts' rows; returns the entity and twin of each that had an entity."""
        found: list[tuple[str, int | None]] = []
        for fact_id in fact_ids:
            found += self._db.execute(
                "SELECT entity, twin_of FROM docs WHERE user = ? AND fact_id = ? AND entity IS NOT NULL",
                (user, fact_id),
            ).fetchall()
            self._delete_where("user = ? AND fact_id = ?", (user, fact_id))
        return found

    def _update_currency(self, user: str, entity: str) -> set[int]:
        """Recompute `superseded_by` for the live facts of one entity and write the changed
        rows; returns the free-text twins of the entity's facts (their currency may change)."""
        rows = self._db.execute(
            "SELECT id, fact_id, day, field_names, superseded_by, twin_of FROM docs WHERE user = ? AND entity = ?",
            (user, entity),
        ).fetchall()
        by = superseders((day, fact_id, json.loads(names)) for _, fact_id, day, names, _, _ in rows)
        changed = [(by.get(fact_id), row_id) for row_id, fact_id, _, _, old, _ in rows if by.get(fact_id) != old]
        self._db.executemany("UPDATE docs SET superseded_by = ? WHERE id = ?", changed)
        return {twin for *_, twin in rows if twin is not None}

    def _delete_where(self, where: str, args: tuple[object, ...]) -> int:
        """Delete docs rows and their tokens (external content needs the old text to unindex)."""
        self._db.execute(
            f"INSERT INTO fts (fts, rowid, body, meta) SELECT 'delete', id, body, meta FROM docs WHERE {where}", args
        )
        return self._db.execute(f"DELETE FROM docs WHERE {where}", args).rowcount

"""A derived full-text index for recall: facts and rendered records, BM25-ranked.

The index is a cache of the fact log and of the user's current module: it can be deleted
and rebuilt at any time. One row of `docs` per live fact or rendered record; an FTS5 table
(external content over `docs.body`) holds the tokens. Questions never reach FTS5 as query
syntax: they are split into word tokens here and each token is quoted.
"""

from __future__ import annotations

import re
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass, fields, is_dataclass
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Iterable, Iterator, Literal, Mapping

from codegen.vocabulary import CANONICAL, NOTE_ATTRIBUTE, PROVENANCE_FIELD
from factlog.model import Fact, JsonValue, check_user_id

HitSource = Literal["fact", "record"]

MAX_QUERY_TOKENS = 32
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
CREATE TABLE IF NOT EXISTS users (
    user TEXT PRIMARY KEY,
    last_fact_id INTEGER NOT NULL DEFAULT 0,
    record_version INTEGER
);
CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY,
    user TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('fact', 'record')),
    fact_id INTEGER,          -- facts only
    kind TEXT,                -- facts: the fact kind
    attribute TEXT,           -- records: the module attribute, e.g. 'trips'
    session TEXT,
    day TEXT,                 -- ISO date: valid_from, else the recorded date
    fact_ids TEXT NOT NULL,   -- comma-separated citation
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_user_fact ON docs (user, fact_id);
CREATE INDEX IF NOT EXISTS docs_user_source ON docs (user, source);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    body, content='docs', content_rowid='id', tokenize='porter unicode61'
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
    """A search result; `score` is -bm25, so higher is more relevant."""

    source: HitSource
    text: str
    fact_ids: tuple[int, ...]
    score: float


class SearchTimeout(Exception):
    """The search passed its deadline and was interrupted."""


def words(text: str) -> list[str]:
    """The distinct lowercase words of `text`, stopwords dropped unless nothing else is left."""
    found = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    return [w for w in found if w not in STOPWORDS] or found


def query_tokens(text: str) -> list[str]:
    return words(text)[:MAX_QUERY_TOKENS]


def any_of(tokens: Iterable[str]) -> str:
    """An FTS5 expression matching any of `tokens`, each one quoted (never FTS5 syntax)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def _render_value(value: JsonValue) -> str:
    if isinstance(value, list):
        return ", ".join(_render_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_render_value(v)}" for k, v in value.items())
    return "" if value is None else str(value)


def fact_body(fact: Fact) -> str:
    """What is indexed and shown for a fact: its text, then its field values."""
    pairs = [f"{k}={_render_value(v)}" for k, v in fact.fields.items() if v is not None]
    return f"{fact.text} ({'; '.join(pairs)})" if pairs else fact.text


def render_record(record: object) -> str:
    """`Trip(destination='Tokyo', departure_date=2025-01-15)`: set fields only, no provenance."""
    if not is_dataclass(record) or isinstance(record, type):
        return repr(record)
    parts = []
    for f in fields(record):
        value = getattr(record, f.name)
        if f.name == PROVENANCE_FIELD or value is None or value == []:
            continue
        parts.append(f"{f.name}={value.isoformat() if isinstance(value, date) else repr(value)}")
    return f"{type(record).__name__}({', '.join(parts)})"


def record_texts(namespace: Mapping[str, object]) -> list[RecordText]:
    """Render every record under the module's public attributes (`trips`, `passport`, `notes`...)."""
    out: list[RecordText] = []
    for name, value in namespace.items():
        if name.startswith("_") or isinstance(value, type):
            continue
        for record in value if isinstance(value, list) else [value]:
            if is_dataclass(record) and not isinstance(record, type):
                ids = getattr(record, PROVENANCE_FIELD, [])
                out.append(RecordText(render_record(record), tuple(ids), name))
    return out


def _ids_text(ids: Iterable[int]) -> str:
    return ",".join(str(int(i)) for i in ids)


def _parse_ids(text: str) -> tuple[int, ...]:
    return tuple(int(i) for i in text.split(",")) if text else ()


class RecallIndex:
    """The recall index at `path` (SQLite, WAL). Rows are per user; nothing mixes users."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Deleted rows are overwritten with zeros, so forgotten text leaves no bytes behind.
        self._db.execute("PRAGMA secure_delete=ON")
        self._db.executescript(_SCHEMA)

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

        A retraction is not indexed; it removes the fact it retracts.
        """
        check_user_id(user)
        seen = 0
        rows: list[tuple[object, ...]] = []
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
                if fact.retracts is not None:
                    self._insert(rows)
                    rows.clear()
                    self._delete_fact(user, fact.retracts)
                    continue
                day = (fact.valid_from.isoformat() if fact.valid_from else fact.recorded_at[:10])
                rows.append((next_id, user, "fact", fact.id, fact.kind, None,
                             fact.provenance.session_id, day, str(fact.id), fact_body(fact)))
                next_id += 1
            self._insert(rows)
            self._db.execute(
                "INSERT INTO users (user, last_fact_id) VALUES (?, ?) "
                "ON CONFLICT (user) DO UPDATE SET last_fact_id = excluded.last_fact_id",
                (user, last),
            )
        return seen

    def set_records(self, user: str, version: int, records: Iterable[RecordText]) -> None:
        """Replace the user's rendered records with those of module `version`."""
        check_user_id(user)
        with self._transaction():
            self._delete_where("user = ? AND source = 'record'", (user,))
            start = self._db.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
            self._insert([
                (start + i, user, "record", None, None, r.attribute, None, None,
                 _ids_text(r.fact_ids), r.text)
                for i, r in enumerate(records)
            ])
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

        Time and session filters apply to facts only (records have neither). `deadline`
        is a `time.monotonic()` instant; past it the search is interrupted (`SearchTimeout`).
        """
        tokens = query_tokens(query)
        if not tokens or limit <= 0:
            return []
        where, args = self._filters(user, kinds, since, until, session)
        sql = (
            "SELECT d.source, d.body, d.fact_ids, -bm25(fts) AS score "
            "FROM fts CROSS JOIN docs AS d ON d.id = fts.rowid "
            f"WHERE fts MATCH ? AND {where} ORDER BY score DESC, d.id DESC LIMIT ?"
        )
        if deadline is not None:
            self._db.set_progress_handler(lambda: time.monotonic() > deadline, 1000)
        try:
            rare = self._rare_words(tokens, limit)
            rows: list[tuple[HitSource, str, str, float]] = []
            if rare:
                # Rows with a rare word; every word still counts in the score (rare ones twice).
                rows = self._db.execute(sql, [f"({any_of(rare)}) AND ({any_of(tokens)})", *args, limit]).fetchall()
            if len(rows) < limit:
                rows = self._db.execute(sql, [any_of(tokens), *args, limit]).fetchall()
        except sqlite3.OperationalError as exc:
            if deadline is not None and "interrupt" in str(exc):
                raise SearchTimeout() from None
            raise
        finally:
            self._db.set_progress_handler(None, 0)
        return [Hit(src, body, _parse_ids(ids), float(score)) for src, body, ids, score in rows]

    def _rare_words(self, tokens: list[str], limit: int) -> list[str]:
        """The words matching at most COMMON_ROWS rows, if there are common ones too and the
        rare ones match at least `limit` rows (of any user); else nothing."""
        counts = [
            self._db.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                             (any_of([t]), COMMON_ROWS + 1)).fetchone()[0]
            for t in tokens
        ]
        rare = [t for t, n in zip(tokens, counts) if 0 < n <= COMMON_ROWS]
        if len(rare) == sum(1 for n in counts if n) or sum(n for n in counts if n <= COMMON_ROWS) < limit:
            return []
        return rare

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

    def _insert(self, rows: list[tuple[object, ...]]) -> None:
        if not rows:
            return
        self._db.executemany(
            "INSERT INTO docs (id, user, source, fact_id, kind, attribute, session, day, fact_ids, body) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        self._db.executemany("INSERT INTO fts (rowid, body) VALUES (?, ?)", [(r[0], r[9]) for r in rows])

    def _delete_fact(self, user: str, fact_id: int) -> None:
        self._delete_where("user = ? AND fact_id = ?", (user, fact_id))

    def _delete_where(self, where: str, args: tuple[object, ...]) -> int:
        """Delete docs rows and their tokens (external content needs the old text to unindex)."""
        self._db.execute(
            f"INSERT INTO fts (fts, rowid, body) SELECT 'delete', id, body FROM docs WHERE {where}", args
        )
        return self._db.execute(f"DELETE FROM docs WHERE {where}", args).rowcount

"""Where a fact came from, so that ingesting the same input again adds nothing.

A source names one fact of one input, independent of the file's path:

- a record file: `records:<sha256 of the file's bytes>:<line>` (JSONL) or `...:#<index>`
  (a JSON array);
- a transcript: `transcript:<sha256 of the file's bytes>:<session id>:<message index>:<n>`,
  `n` counting the facts one message gave;
- a transcript extracted by a model, one chunk of a session at a time:
  `llm:<sha256 of the file's bytes>:<session id>:<first>-<last>:<n>`, the chunk's first and
  last message index and `n` counting the chunk's facts (older ingests, a whole session at
  a time: `llm:<sha256>:<session id>:<n>`). A chunk the model failed on keeps the offline
  `transcript:` sources of its raw facts, and its failure is recorded (`extraction_failures`).

`fact_sources` holds (user, source) -> fact id with a primary key on (user, source), so
two ingests of one file racing each other cannot both store it: the second, serialised
behind the first's write lock, finds every source taken.
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Sequence

from factlog.sql_conn import SqlConnection

_BATCH = 500  # SQLite host parameters per IN (...) query


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def record_source(digest: str, line: int, index: int | None = None) -> str:
    return f"records:{digest}:{line}" if index is None else f"records:{digest}:#{index}"


def transcript_source(digest: str, session_id: str, message_index: int | None, n: int) -> str:
    return f"transcript:{digest}:{session_id}:{'' if message_index is None else message_index}:{n}"


def known_sources(db: SqlConnection, user: str, sources: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(sources), _BATCH):
        chunk = sources[start:start + _BATCH]
        marks = ",".join("?" * len(chunk))
        found.update(row[0] for row in db.execute(
            f"SELECT source FROM fact_sources WHERE user = ? AND source IN ({marks})", (user, *chunk)))
    return found


def record_sources(db: SqlConnection, user: str, pairs: Iterable[tuple[str, int]]) -> None:
    db.executemany("INSERT INTO fact_sources (user, source, fact_id) VALUES (?, ?, ?)",
                   [(user, source, fid) for source, fid in pairs])


def erase(db: SqlConnection, user: str) -> None:
    """`forget`: the user's sources, established field types and recorded extraction
    failures (which hold the model's raw text) go with their facts."""
    for table in ("fact_sources", "field_types", "field_value_types", "field_types_position",
                  "extraction_failures"):
        db.execute(f"DELETE FROM {table} WHERE user = ?", (user,))


def extraction_source(digest: str, session_id: str, n: int, messages: tuple[int, int] | None = None) -> str:
    """A fact a model extracted from a transcript: `llm:<sha256>:<session id>:<first>-<last>:<n>`,
    `n` counting the facts of the chunk of messages `first`..`last` (`n` = 0 is there once the
    chunk was extracted). Without `messages`, the older whole-session form
    `llm:<sha256>:<session id>:<n>`, which an ingest still reads to skip sessions it stored."""
    if messages is None:
        return f"llm:{digest}:{session_id}:{n}"
    return f"llm:{digest}:{session_id}:{messages[0]}-{messages[1]}:{n}"

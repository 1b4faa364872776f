"""One session of turns through the offline extractor, for the typed-reader tests: the facts
of the kinds a test looks at, as (kind, key, fields without subject and speaker)."""

from __future__ import annotations

from datetime import datetime

from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.transcripts import Message, Session

TS = datetime(2025, 5, 2, 21, 0)
Extracted = list[tuple[str | None, str | None, dict[str, JsonValue]]]


def session(*turns: tuple[str, str], ts: datetime = TS) -> Session:
    return Session("s1", ts, [Message(role, text, i) for i, (role, text) in enumerate(turns)], {})


def extracted(kinds: tuple[str, ...], *turns: tuple[str, str], ts: datetime = TS) -> Extracted:
    facts = RuleExtractor().extract(session(*turns, ts=ts), user_only=False)
    return [(f.kind, f.key, {k: v for k, v in f.fields.items() if k not in ("subject", "speaker")})
            for f in facts if f.kind in kinds]


Fact = tuple[str | None, str | None, dict[str, JsonValue]]


def per_session(kinds: tuple[str, ...], *turns_by_session: tuple[datetime, list[tuple[str, str]]]) -> list[list[Fact]]:
    """Each session's facts of `kinds` (kind, key, fields without the speaker), one extractor
    across the sessions as ingesting one user's transcripts does."""
    extractor = RuleExtractor()
    out = []
    for n, (ts, turns) in enumerate(turns_by_session):
        one = Session(f"s{n + 1}", ts, [Message(role, text, i) for i, (role, text) in enumerate(turns)], {})
        out.append([(f.kind, f.key, {k: v for k, v in f.fields.items() if k != "speaker"})
                    for f in extractor.extract(one, user_only=False) if f.kind in kinds])
    return out


def merged(facts: list[Fact], kind: str = "payment") -> dict[str | None, dict[str, JsonValue]]:
    """Each entity's fields after the session, later values winning (as compiling merges them)."""
    out: dict[str | None, dict[str, JsonValue]] = {}
    for k, key, fields in facts:
        if k == kind:
            out.setdefault(key, {}).update(fields)
    return out

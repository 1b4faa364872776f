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

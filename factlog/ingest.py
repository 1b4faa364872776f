"""Ingesting a transcript file: read it, order its sessions, extract facts from each."""

from __future__ import annotations

from pathlib import Path

from factlog.extract import Extractor
from factlog.model import NewFact
from factlog.sources import content_digest, transcript_source
from factlog.transcripts import Session, parse_transcript, read_transcript_text


def ingest_transcript(path: Path, extractor: Extractor, *, user_only: bool) -> list[NewFact]:
    """All facts of a transcript, sessions in timestamp order; nothing is stored here."""
    return [fact for fact, _ in sourced_transcript_facts(path, extractor, user_only=user_only)]


def sourced_transcript_facts(path: Path, extractor: Extractor, *,
                             user_only: bool) -> list[tuple[NewFact, str]]:
    """Each fact with its source (`factlog.sources`): the file's content digest, the session
    id, the message index and the fact's number among that message's facts."""
    text, fmt = read_transcript_text(path)
    digest = content_digest(text.encode("utf-8", "surrogatepass"))
    facts: list[tuple[NewFact, str]] = []
    for session in parse_transcript(text, str(path), fmt):
        facts += sourced_session_facts(session, digest, extractor, user_only=user_only)
    return facts


def sourced_session_facts(session: Session, digest: str, extractor: Extractor, *,
                          user_only: bool) -> list[tuple[NewFact, str]]:
    """One session's facts, each with its `transcript:` source in the file of `digest`."""
    counts: dict[int | None, int] = {}
    facts: list[tuple[NewFact, str]] = []
    for fact in extractor.extract(session, user_only=user_only):
        index = fact.provenance.message_index
        counts[index] = n = counts.get(index, -1) + 1
        facts.append((fact, transcript_source(digest, session.session_id, index, n)))
    return facts

"""Ingesting a transcript file: read it, order its sessions, extract facts from each."""

from __future__ import annotations

from pathlib import Path

from factlog.extract import Extractor
from factlog.model import NewFact
from factlog.transcripts import read_transcript


def ingest_transcript(path: Path, extractor: Extractor, *, user_only: bool) -> list[NewFact]:
    """All facts of a transcript, sessions in timestamp order; nothing is stored here."""
    facts: list[NewFact] = []
    for session in read_transcript(path):
        facts += extractor.extract(session, user_only=user_only)
    return facts

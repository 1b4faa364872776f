"""Ingesting a transcript through a model (`uac ingest USER FILE --llm`), losing nothing.

Per session, in timestamp order, each in its own transaction (a long ingest interrupted
keeps the sessions it finished, and running it again takes up where it stopped):

- a session already extracted from this file (its first extracted fact's source is stored,
  or a failure is recorded for it) is skipped without asking the model, unless `again`;
- the model's facts are stored with `llm:` sources (`factlog.sources.extraction_source`);
- a session the model cannot turn into valid facts after the re-ask
  (`StructuredOutputError`), or cannot be asked at all (`ModelUnavailable`), is stored as
  the offline extractor's facts (the raw text of each message worth keeping, with the same
  sources an offline ingest gives them) and its failure is recorded with the model's raw
  answer. After an outage the remaining sessions are not sent: they fail the same way at
  once, so one unreachable endpoint costs one round of retries, not one per session;
- `retry_failed`: only the sessions with an open failure for this file are extracted
  again; on success their typed facts are stored, the raw facts the failure stored are
  retracted, and the failure is marked resolved, all in one transaction; a second failure
  leaves it open (one more attempt counted).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from factlog.errors import InputError
from factlog.extract import Extractor, RuleExtractor
from factlog.ingest import sourced_session_facts
from factlog.liveness import dead_ids
from factlog.model import Fact, NewFact
from factlog.sources import content_digest, extraction_source
from factlog.store import Appended, ExtractionFailure, FactStore, NewFailure
from factlog.transcripts import Session, parse_transcript, read_transcript_text

if TYPE_CHECKING:
    from codegen.llm.endpoint import Usage


@dataclass
class ExtractionReport:
    """What an ingest through a model did (beside the facts: `runtime.facts_service.IngestReport`)."""

    sessions: int = 0  # sessions in the file
    extracted: list[str] = field(default_factory=list)  # sessions the model turned into facts
    failed: list[tuple[str, str]] = field(default_factory=list)  # (session, reason): stored raw
    skipped_sessions: int = 0  # already extracted from this file
    resolved: list[int] = field(default_factory=list)  # failure ids a retry resolved
    retracted: int = 0  # raw facts those retries withdrew
    seconds: float = 0.0  # wall time of the whole ingest
    usage: dict[str, float] = field(default_factory=dict)  # the model calls' totals

    def to_json(self) -> dict[str, object]:
        return {"sessions": self.sessions, "extracted_sessions": len(self.extracted),
                "failed_sessions": [{"session_id": s, "reason": r} for s, r in self.failed],
                "skipped_sessions": self.skipped_sessions, "resolved_failures": self.resolved,
                "retracted": self.retracted, "seconds": round(self.seconds, 3),
                "usage": {k: (round(v, 3) if k == "seconds" else int(v)) for k, v in self.usage.items()}}

    @property
    def summary(self) -> str:
        """One line: sessions, failures, tokens and seconds."""
        u = self.usage
        text = (f"model: {len(self.extracted)} of {self.sessions} sessions extracted"
                + (f", {len(self.failed)} failed (kept as raw text; `uac log USER --failed`)" if self.failed else "")
                + (f", {self.skipped_sessions} already extracted" if self.skipped_sessions else "")
                + (f", {len(self.resolved)} failure{'' if len(self.resolved) == 1 else 's'} resolved "
                   f"({self.retracted} raw facts retracted)"
                   if self.resolved else ""))
        return (text + f"; {int(u.get('prompt_tokens', 0))} prompt + {int(u.get('completion_tokens', 0))} "
                f"completion tokens in {int(u.get('calls', 0))} calls, {self.seconds:.1f} s")


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def ingest_with_model(store: FactStore, user: str, path: Path, extractor: Extractor, usage: Usage | None, *,
                      user_only: bool = False, again: bool = False, retry_failed: bool = False,
                      allow_retype: bool = False, name: str | None = None
                      ) -> tuple[list[Fact], int, ExtractionReport]:
    """(facts stored, facts skipped as already ingested, report); see the module docstring.
    `name` is what a recorded failure calls the file (default: `path`)."""
    from codegen.llm.errors import ModelRequestRefused, ModelUnavailable, StructuredOutputError

    started = time.monotonic()
    text, fmt = read_transcript_text(path)
    digest = content_digest(text.encode("utf-8", "surrogatepass"))
    sessions = parse_transcript(text, str(path), fmt)
    report = ExtractionReport(sessions=len(sessions))
    failures = {f.session_id: f for f in store.extraction_failures(user, source=digest, include_resolved=True)}
    todo = _sessions_to_do(store, user, digest, sessions, failures, again=again, retry_failed=retry_failed)
    report.skipped_sessions = len(sessions) - len(todo)
    stored: list[Fact] = []
    skipped = 0
    outage: str | None = None
    for session in todo:
        previous = failures.get(session.session_id)
        facts: list[NewFact] | None = None
        raw, reason = "", outage
        if outage is None:
            try:
                facts = extractor.extract(session, user_only=user_only)
            except StructuredOutputError as exc:
                raw, reason = exc.raw, _one_line(str(exc))
            except ModelUnavailable as exc:
                reason = outage = _one_line(str(exc))
            except ModelRequestRefused:
                raise
            except InputError as exc:  # valid JSON that still makes no valid fact
                reason = _one_line(f"the model's facts are not valid facts: {exc}")
        done: Appended | None = None
        if facts is not None:
            try:
                done = _store_extracted(store, user, digest, session, facts, previous, report, again=again,
                                        allow_retype=allow_retype)
            except InputError as exc:  # e.g. a value that would retype an established field
                reason = _one_line(f"the log refused the model's facts: {exc}")
        if done is None:
            assert reason is not None
            raw_items: list[tuple[NewFact, str | None]] = list(
                sourced_session_facts(session, digest, RuleExtractor(), user_only=user_only))
            done = store.append_extraction(
                user, raw_items, failure=NewFailure(digest, name or str(path), session.session_id, reason, raw),
                again=again, allow_retype=allow_retype)
            report.failed.append((session.session_id, reason))
        stored += done.stored
        skipped += done.skipped
    report.seconds = time.monotonic() - started
    report.usage = usage.totals() if usage is not None else {}
    return stored, skipped, report


def _store_extracted(store: FactStore, user: str, digest: str, session: Session, facts: list[NewFact],
                     previous: ExtractionFailure | None, report: ExtractionReport, *, again: bool,
                     allow_retype: bool) -> Appended:
    """Store a session's extracted facts; resolve its open failure (retracting the raw facts
    that failure stored) in the same transaction."""
    items: list[tuple[NewFact, str | None]] = [
        (fact, extraction_source(digest, session.session_id, n)) for n, fact in enumerate(facts)]
    resolves = None
    withdrawn: list[NewFact] = []
    if previous is not None and previous.open:
        resolves = previous.id
        withdrawn = _retractions(store, user, previous)
        items += [(r, None) for r in withdrawn]
    done = store.append_extraction(user, items, resolves=resolves, again=again, allow_retype=allow_retype)
    if resolves is not None:
        report.retracted += len(withdrawn)
        report.resolved.append(resolves)
    report.extracted.append(session.session_id)
    return done


def _sessions_to_do(store: FactStore, user: str, digest: str, sessions: list[Session],
                    failures: dict[str, ExtractionFailure], *, again: bool, retry_failed: bool) -> list[Session]:
    if retry_failed:
        return [s for s in sessions if s.session_id in failures and failures[s.session_id].open]
    if again:
        return sessions
    firsts = {extraction_source(digest, s.session_id, 0): s.session_id for s in sessions}
    done = {firsts[source] for source in store.known_sources(user, list(firsts))}
    return [s for s in sessions if s.session_id not in done and s.session_id not in failures]


def _retractions(store: FactStore, user: str, failure: ExtractionFailure) -> list[NewFact]:
    """Retractions of the failure's raw facts that are still live."""
    if not failure.fact_ids:
        return []
    first = min(failure.fact_ids)
    dead = dead_ids(store.facts(user, after=first - 1))
    return [NewFact(text=f"Retracts fact {fid}: replaced by the model's extraction of session "
                         f"{failure.session_id} (failure {failure.id})", retracts=fid)
            for fid in failure.fact_ids if fid not in dead]

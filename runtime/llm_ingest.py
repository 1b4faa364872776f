"""Ingesting a transcript through a model (`uac ingest USER FILE --llm`), losing nothing.

The unit is the chunk of a session (`codegen.llm.extract.LlmExtractor.chunks_of`): per
session, in timestamp order, chunk by chunk, each chunk in its own transaction (a long
ingest interrupted keeps the chunks it finished, and running it again takes up where it
stopped):

- a chunk already extracted from this file (its first fact's source is stored, or a failure
  is recorded for its message range) is skipped without asking the model, unless `again`;
  so is every chunk of a session an older ingest stored whole (its whole-session first
  source, or a whole-session failure);
- the model's facts of a chunk are stored with `llm:` sources naming the chunk's message
  range (`factlog.sources.extraction_source`);
- a chunk the model cannot turn into valid facts after the re-ask (`StructuredOutputError`),
  or that cannot be sent at all (`ModelUnavailable`), is stored as the offline extractor's
  facts of exactly its messages (the raw text of each message worth keeping, with the same
  sources an offline ingest gives them) and its failure is recorded with the message range
  and the model's raw answer; the session's other chunks keep their typed facts. After an
  outage the remaining chunks are not sent: they fail the same way at once, so one
  unreachable endpoint costs one round of retries, not one per chunk;
- `retry_failed`: only the open failures of this file are extracted again, each its own
  message range as one chunk (a whole-session failure of an older ingest: the whole session,
  chunked, all or nothing); on success the typed facts are stored, the raw facts that
  failure stored are retracted, and the failure is marked resolved, all in one transaction;
  a second failure leaves it open (one more attempt counted). Two retries racing: the
  second finds the failure resolved (the store refuses to resolve it twice) and writes
  nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from factlog.errors import InputError, NotFound
from factlog.extract import RuleExtractor
from factlog.ingest import sourced_session_facts
from factlog.liveness import dead_ids
from factlog.model import Fact, NewFact
from factlog.sources import content_digest, extraction_source
from factlog.store import Appended, ExtractionFailure, FactStore, NewFailure, messages_text
from factlog.transcripts import Message, Session, parse_transcript, read_transcript_text

if TYPE_CHECKING:
    from codegen.llm.endpoint import Usage

Range = tuple[int, int]  # first and last message index of a chunk, inclusive


class ChunkExtractor(Protocol):
    """What the ingest asks of a model extractor (`codegen.llm.extract.LlmExtractor`)."""

    def chunks_of(self, session: Session) -> list[list[Message]]: ...

    def extract_chunk(self, session: Session, run: list[Message], *, user_only: bool,
                      offline: list[NewFact] | None = None) -> list[NewFact]: ...


@dataclass(frozen=True)
class FailedChunk:
    """A chunk (or, retrying an older failure, a whole session) kept as raw text."""

    session_id: str
    first_message: int | None  # None: the whole session
    last_message: int | None
    reason: str

    @property
    def messages(self) -> str:
        return messages_text(self.first_message, self.last_message)

    def to_json(self) -> dict[str, object]:
        return {"session_id": self.session_id, "first_message": self.first_message,
                "last_message": self.last_message, "reason": self.reason}


@dataclass
class ExtractionReport:
    """What an ingest through a model did (beside the facts: `runtime.facts_service.IngestReport`)."""

    sessions: int = 0  # sessions in the file
    extracted: list[str] = field(default_factory=list)  # sessions whose every chunk sent was extracted
    extracted_chunks: int = 0  # chunks (or retried whole sessions) the model turned into facts
    failed: list[FailedChunk] = field(default_factory=list)  # stored raw, failure recorded
    skipped_sessions: int = 0  # nothing of them to do (already extracted from this file)
    resolved: list[int] = field(default_factory=list)  # failure ids a retry resolved
    retracted: int = 0  # raw facts those retries withdrew
    seconds: float = 0.0  # wall time of the whole ingest
    usage: dict[str, float] = field(default_factory=dict)  # the model calls' totals

    @property
    def failed_sessions(self) -> list[str]:
        """The sessions with a failed chunk, in the order they failed."""
        return list(dict.fromkeys(f.session_id for f in self.failed))

    def to_json(self) -> dict[str, object]:
        return {"sessions": self.sessions, "extracted_sessions": len(self.extracted),
                "extracted_chunks": self.extracted_chunks, "failed_sessions": self.failed_sessions,
                "failed_chunks": [f.to_json() for f in self.failed],
                "skipped_sessions": self.skipped_sessions, "resolved_failures": self.resolved,
                "retracted": self.retracted, "seconds": round(self.seconds, 3),
                "usage": {k: (round(v, 3) if k == "seconds" else int(v)) for k, v in self.usage.items()}}

    @property
    def summary(self) -> str:
        """One line: sessions, failures, tokens and seconds."""
        u = self.usage
        failed, sessions = len(self.failed), len(self.failed_sessions)
        text = (f"model: {len(self.extracted)} of {self.sessions} sessions extracted"
                + (f", {failed} chunk{'' if failed == 1 else 's'} of {sessions} session{'' if sessions == 1 else 's'}"
                   " failed (kept as raw text; `uac log USER --failed`)" if failed else "")
                + (f", {self.skipped_sessions} already extracted" if self.skipped_sessions else "")
                + (f", {len(self.resolved)} failure{'' if len(self.resolved) == 1 else 's'} resolved "
                   f"({self.retracted} raw facts retracted)"
                   if self.resolved else ""))
        return (text + f"; {int(u.get('prompt_tokens', 0))} prompt + {int(u.get('completion_tokens', 0))} "
                f"completion tokens in {int(u.get('calls', 0))} calls, {self.seconds:.1f} s")


@dataclass
class _Unit:
    """One thing to extract and store in one transaction: a chunk (`messages` its range), or
    the whole session of an older whole-session failure (`messages` None, every chunk)."""

    runs: list[list[Message]]
    messages: Range | None
    previous: ExtractionFailure | None  # the failure of exactly these messages, if recorded


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _range(run: list[Message]) -> Range:
    return run[0].index, run[-1].index


def ingest_with_model(store: FactStore, user: str, path: Path, extractor: ChunkExtractor, usage: Usage | None, *,
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
    failures = store.extraction_failures(user, source=digest, include_resolved=True)
    plan = _plan(store, user, digest, sessions, failures, extractor, again=again, retry_failed=retry_failed)
    report.skipped_sessions = len(sessions) - len(plan)
    stored: list[Fact] = []
    skipped = 0
    outage: str | None = None
    for session, units in plan:
        raw_all = sourced_session_facts(session, digest, RuleExtractor(), user_only=user_only)
        offline = [fact for fact, _ in raw_all]
        failed_before = len(report.failed)
        for unit in units:
            items: list[tuple[NewFact, str | None]] | None = None
            raw, reason = "", outage
            if outage is None:
                try:
                    items = []
                    for run in unit.runs:
                        facts = extractor.extract_chunk(session, run, user_only=user_only, offline=offline)
                        items += [(fact, extraction_source(digest, session.session_id, n, _range(run)))
                                  for n, fact in enumerate(facts)]
                except StructuredOutputError as exc:
                    items, raw, reason = None, exc.raw, _one_line(str(exc))
                except ModelUnavailable as exc:
                    items, reason = None, _one_line(str(exc))
                    outage = reason
                except ModelRequestRefused:
                    raise
                except InputError as exc:  # valid JSON that still makes no valid fact
                    items, reason = None, _one_line(f"the model's facts are not valid facts: {exc}")
            done: Appended | None = None
            if items is not None:
                try:
                    done = _store_extracted(store, user, session, items, unit, report, again=again,
                                            allow_retype=allow_retype)
                except NotFound:  # another ingest resolved this failure first: nothing written
                    done = Appended([], len(items))
                except InputError as exc:  # e.g. a value that would retype an established field
                    reason = _one_line(f"the log refused the model's facts: {exc}")
            if done is None:
                assert reason is not None
                first, last = unit.messages if unit.messages is not None else (None, None)
                kept = [(fact, source) for fact, source in raw_all if _within(fact, session, unit)]
                done = store.append_extraction(
                    user, list(kept), again=again, allow_retype=allow_retype,
                    failure=NewFailure(digest, name or str(path), session.session_id, reason, raw, first, last))
                report.failed.append(FailedChunk(session.session_id, first, last, reason))
            stored += done.stored
            skipped += done.skipped
        if len(report.failed) == failed_before:
            report.extracted.append(session.session_id)
    report.seconds = time.monotonic() - started
    report.usage = usage.totals() if usage is not None else {}
    return stored, skipped, report


def _within(fact: NewFact, session: Session, unit: _Unit) -> bool:
    """Whether an offline fact of the session is one of the unit's raw facts."""
    if unit.messages is None:
        return True
    index = fact.provenance.message_index
    if index is None:  # cites no message: goes with the chunk holding the first message
        return bool(session.messages) and unit.messages[0] == session.messages[0].index
    return unit.messages[0] <= index <= unit.messages[1]


def _store_extracted(store: FactStore, user: str, session: Session, items: list[tuple[NewFact, str | None]],
                     unit: _Unit, report: ExtractionReport, *, again: bool, allow_retype: bool) -> Appended:
    """Store a unit's extracted facts; resolve its open failure (retracting the raw facts
    that failure stored) in the same transaction."""
    previous = unit.previous
    resolves = None
    withdrawn: list[NewFact] = []
    if previous is not None and previous.open:
        resolves = previous.id
        withdrawn = _retractions(store, user, previous)
        items = items + [(r, None) for r in withdrawn]
    done = store.append_extraction(user, items, resolves=resolves, again=again, allow_retype=allow_retype)
    if resolves is not None:
        report.retracted += len(withdrawn)
        report.resolved.append(resolves)
    report.extracted_chunks += 1
    return done


def _plan(store: FactStore, user: str, digest: str, sessions: list[Session], failures: list[ExtractionFailure],
          extractor: ChunkExtractor, *, again: bool, retry_failed: bool) -> list[tuple[Session, list[_Unit]]]:
    """The sessions with something to do, each with its units in message order."""
    recorded = {(f.session_id, _failure_range(f)): f for f in failures}
    plan: list[tuple[Session, list[_Unit]]] = []
    if retry_failed:
        for session in sessions:
            units = [_retry_unit(session, f, extractor) for f in failures
                     if f.open and f.session_id == session.session_id]
            units = sorted((u for u in units if u.runs), key=lambda u: -1 if u.messages is None else u.messages[0])
            if units:
                plan.append((session, units))
        return plan
    chunked = [(session, [run for run in extractor.chunks_of(session) if run]) for session in sessions]
    if again:
        return [(session, [_Unit([run], _range(run), recorded.get((session.session_id, _range(run))))
                           for run in runs]) for session, runs in chunked if runs]
    whole = {extraction_source(digest, s.session_id, 0): s.session_id for s in sessions}
    firsts = {extraction_source(digest, s.session_id, 0, _range(run)): (s.session_id, _range(run))
              for s, runs in chunked for run in runs}
    known = store.known_sources(user, [*whole, *firsts])
    stored_whole = {whole[source] for source in known if source in whole}
    stored_chunks = {firsts[source] for source in known if source in firsts}
    for session, runs in chunked:
        sid = session.session_id
        if sid in stored_whole or (sid, None) in recorded:
            continue  # stored whole by an older ingest
        units = [_Unit([run], _range(run), None) for run in runs
                 if (sid, _range(run)) not in stored_chunks and (sid, _range(run)) not in recorded]
        if units:
            plan.append((session, units))
    return plan


def _failure_range(failure: ExtractionFailure) -> Range | None:
    if failure.first_message is None or failure.last_message is None:
        return None
    return failure.first_message, failure.last_message


def _retry_unit(session: Session, failure: ExtractionFailure, extractor: ChunkExtractor) -> _Unit:
    """A failure's messages again: its range as one chunk, or the whole session chunked."""
    messages = _failure_range(failure)
    if messages is None:
        return _Unit([run for run in extractor.chunks_of(session) if run], None, failure)
    run = [m for m in session.messages if messages[0] <= m.index <= messages[1]]
    return _Unit([run] if run else [], messages, failure)


def _retractions(store: FactStore, user: str, failure: ExtractionFailure) -> list[NewFact]:
    """Retractions of the failure's raw facts that are still live."""
    if not failure.fact_ids:
        return []
    first = min(failure.fact_ids)
    dead = dead_ids(store.facts(user, after=first - 1))
    return [NewFact(text=f"Retracts fact {fid}: replaced by the model's extraction of session "
                         f"{failure.session_id} {failure.messages} (failure {failure.id})", retracts=fid)
            for fid in failure.fact_ids if fid not in dead]

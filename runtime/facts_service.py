"""Writing and reading one workspace's facts: add, ingest, retract, the log, export and import.

Everything here goes through the `FactStore` protocol; which store it is (SQLite, a server
database) is decided where the workspace opens it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from factlog.durable import replace_file
from factlog.errors import InputError, NotFound
from factlog.liveness import live_ids
from factlog.model import Fact, JsonValue, NewFact, Provenance, check_user_id, parse_iso_date
from factlog.records import (
    check_field_map,
    map_fields,
    record_facts,
    structured_fact,
    unused_mappings,
)
from factlog.store import FactStore, VerifyReport
from factlog.typed.prior import Prior, prior_of
from runtime.workspace import Workspace

if TYPE_CHECKING:
    from factlog.store import ExtractionFailure
    from runtime.llm_ingest import ExtractionReport
    from users.store import VersionStore


@dataclass(frozen=True)
class IngestReport:
    user: str
    source: str
    facts: list[Fact]  # the facts this ingest stored
    skipped: int = 0  # facts of the input already ingested before (same source), not stored again
    extraction: ExtractionReport | None = None  # an ingest through a model: sessions, failures, tokens

    @property
    def summary(self) -> str:
        """`3 new facts; 12 already ingested from this file`."""
        text = f"{len(self.facts)} new fact{'' if len(self.facts) == 1 else 's'}"
        if self.skipped:
            text += f"; {self.skipped} already ingested from this file (--again to add them anyway)"
        return text

    @property
    def first_id(self) -> int | None:
        return self.facts[0].id if self.facts else None

    @property
    def last_id(self) -> int | None:
        return self.facts[-1].id if self.facts else None


class FactsService:
    """The fact log's door: every fact written or read through the API passes here.
    `versions` gives the version store, asked only whether a user has versions (a user the
    log forgot may still); it is called only then, so appending never loads it."""

    def __init__(self, facts: FactStore, versions: Callable[[], VersionStore], workspace: Workspace) -> None:
        self.facts = facts
        self.versions = versions
        self.workspace = workspace
        self._priors: dict[str, tuple[str, Prior]] = {}  # user -> (the hash of the last fact read, the prior)
        self._priors_lock = threading.Lock()

    # -- writing facts ---------------------------------------------------------------

    def add(self, user: str, text: str | None = None, *, kind: str | None = None,
            fields: dict[str, JsonValue] | None = None, key: str | None = None,
            valid_from: str | None = None, valid_to: str | None = None,
            provenance: Provenance | None = None, field_map: Mapping[str, str] | None = None,
            allow_retype: bool = False) -> Fact:
        """Append one fact (documented on `Memory.add`)."""
        check_user_id(user)
        if kind is not None:
            mapping = check_field_map(field_map)
            given = fields or {}
            unused_mappings(mapping, set(given))
            new = structured_fact(kind, map_fields(given, mapping), text=text, key=key,
                                  valid_from=valid_from, valid_to=valid_to)
        else:
            if fields or field_map:
                raise InputError("fields need a kind (--kind)")
            if text is None:
                raise InputError("a free-text fact needs its text")
            if key is not None:
                raise InputError("an identity key needs a kind (--kind)")
            new = NewFact(text=text, valid_from=parse_iso_date(valid_from, "valid-from"),
                          valid_to=parse_iso_date(valid_to, "valid-to"))
        if provenance is not None:
            new = replace(new, provenance=provenance)
        return self.facts.append(user, [new], allow_retype=allow_retype)[0]

    def ingest_records(self, user: str, path: Path, kind: str, key_field: str | None = None, *,
                       field_map: Mapping[str, str] | None = None, again: bool = False,
                       allow_retype: bool = False) -> IngestReport:
        """Ingest a record file (documented on `Memory.ingest_records`)."""
        check_user_id(user)
        items = record_facts(path, kind, key_field, field_map)
        done = self.facts.append_sourced(user, items, again=again, allow_retype=allow_retype)
        return IngestReport(user, str(path), done.stored, done.skipped)

    def ingest_transcript(self, user: str, path: Path, *, user_only: bool = False, again: bool = False,
                          allow_retype: bool = False, llm: bool = False, model: str | None = None,
                          base_url: str | None = None, retry_failed: bool = False,
                          name: str | None = None) -> IngestReport:
        """Ingest a chat transcript (documented on `Memory.ingest_transcript`); `name` is what
        the report and a recorded extraction failure call the file (default: `path`)."""
        from factlog.extract import RuleExtractor
        from factlog.ingest import sourced_transcript_facts

        check_user_id(user)
        if not llm:
            if retry_failed or model is not None or base_url is not None:
                raise InputError("--retry-failed, --model and --base-url go with --llm")
            items = sourced_transcript_facts(path, RuleExtractor(self.prior(user)), user_only=user_only)
            done = self.facts.append_sourced(user, items, again=again, allow_retype=allow_retype)
            return IngestReport(user, name or str(path), done.stored, done.skipped)
        return self._ingest_with_model(user, path, user_only=user_only, again=again, allow_retype=allow_retype,
                                       model=model, base_url=base_url, retry_failed=retry_failed, name=name)

    def ingest_conversation(self, user: str, session: Mapping[str, object], *, user_only: bool = False,
                            again: bool = False, allow_retype: bool = False) -> IngestReport:
        """Ingest one conversation given as data (documented on `Memory.ingest_conversation`)."""
        import json

        from factlog.extract import RuleExtractor
        from factlog.ingest import sourced_session_facts
        from factlog.sources import content_digest
        from factlog.transcripts import order_sessions, sessions_from_data

        check_user_id(user)
        source = "conversation"
        text = json.dumps(session, ensure_ascii=False, sort_keys=True, default=str)
        digest = content_digest(text.encode("utf-8", "surrogatepass"))
        items = []
        extractor = RuleExtractor(self.prior(user))
        for one in order_sessions(sessions_from_data(json.loads(text), source), source):
            items += sourced_session_facts(one, digest, extractor, user_only=user_only)
        done = self.facts.append_sourced(user, items, again=again, allow_retype=allow_retype)
        return IngestReport(user, source, done.stored, done.skipped)

    def prior(self, user: str) -> Prior:
        """What the user's live stored facts say about trips and documents
        (`factlog.typed.prior`), for the offline extractor: kept per user and brought up to date
        with the facts appended since; built again from the live facts when a retraction
        arrived, and when the log is no longer the one it read (the user forgotten, here or by
        another process: the last fact it read is gone or has another hash), so a withdrawn or
        forgotten fact never types a new one."""
        with self._priors_lock:
            kept = self._priors.get(user)
            if kept is not None and kept[1].seen:
                last = self.facts.facts_by_id(user, [kept[1].seen])
                if not last or last[0].hash != kept[0]:
                    kept = None
            new = list(self.facts.facts(user, after=kept[1].seen if kept is not None else 0))
            if kept is None or any(fact.retracts is not None for fact in new):
                return self._rebuilt(user).copy()
            prior = kept[1]
            for fact in new:
                prior.add(fact.id, fact.kind, fact.key, fact.fields or {})
            if new:
                self._priors[user] = (new[-1].hash, prior)
            return prior.copy()  # the extractor adds its own sessions' facts to its copy

    def _rebuilt(self, user: str) -> Prior:
        facts = list(self.facts.facts(user))
        live = live_ids(facts)
        prior = prior_of((fact.id, fact.kind, fact.key, fact.fields or {}) for fact in facts if fact.id in live)
        prior.seen = facts[-1].id if facts else 0
        self._priors[user] = (facts[-1].hash if facts else "", prior)
        return prior

    def forget(self, user: str) -> None:
        """Drop what this service derived from `user` (`runtime.forgetting`)."""
        with self._priors_lock:
            self._priors.pop(user, None)

    def _ingest_with_model(self, user: str, path: Path, *, user_only: bool, again: bool, allow_retype: bool,
                           model: str | None, base_url: str | None, retry_failed: bool,
                           name: str | None) -> IngestReport:
        from codegen.llm.endpoint import Endpoint, EndpointConfig, Usage
        from codegen.llm.extract import LlmExtractor
        from runtime.llm_ingest import ingest_with_model
        from runtime.settings import load_settings

        if retry_failed and again:
            raise InputError("--retry-failed re-extracts the failed chunks only; leave out --again")
        config = EndpointConfig.resolve(base_url=base_url, model=model,
                                        settings=load_settings(self.workspace.home).llm)
        usage = Usage()
        with Endpoint(config, usage) as endpoint:
            stored, skipped, report = ingest_with_model(
                self.facts, user, path, LlmExtractor(endpoint), usage, user_only=user_only, again=again,
                retry_failed=retry_failed, allow_retype=allow_retype, name=name)
        return IngestReport(user, name or str(path), stored, skipped, report)

    def extraction_failures(self, user: str, *, include_resolved: bool = False) -> list[ExtractionFailure]:
        """The user's recorded extraction failures (documented on `Memory.extraction_failures`)."""
        check_user_id(user)
        found = self.facts.extraction_failures(user, include_resolved=True)
        if not found:
            self.require_user(user)
        return found if include_resolved else [f for f in found if f.open]

    def retract(self, user: str, fact_id: int, reason: str | None = None) -> Fact:
        self.facts.get(user, fact_id)  # NotFound with a clear message
        text = f"Retracts fact {fact_id}" + (f": {reason}" if reason else "")
        return self.facts.append(user, [NewFact(text=text, retracts=fact_id)])[0]

    # -- reading facts -----------------------------------------------------------------

    def log(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        return self.facts.facts(user, after, upto)

    def users(self) -> list[str]:
        return self.facts.users()

    def require_user(self, user: str) -> None:
        """NotFound for a user neither the log nor the version store knows."""
        check_user_id(user)
        if not self.facts.knows(user) and not self.versions().history(user):
            raise NotFound(f"no such user {user!r} (see `uac users`)")

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash the log (documented on `Memory.verify`)."""
        if user is not None:
            self.require_user(user)
        return self.facts.verify(user)

    # -- export / import ---------------------------------------------------------------

    def export(self, out: Path, user: str | None = None) -> int:
        """Write facts as JSONL (documented on `Memory.export`)."""
        self.workspace.check_export_target(out)
        from factlog.export_line import export_text  # pydantic: only on export / import

        facts = list(self.facts.facts(user) if user else self.facts.all_facts())
        replace_file(out, export_text(facts).encode("utf-8"))
        return len(facts)

    def import_(self, path: Path) -> int:
        from factlog.export_line import read_export

        return self.facts.import_facts(read_export(path))

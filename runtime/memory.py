"""The documented Python API: one `Memory` per workspace; the CLI is a thin layer over it.

    from runtime.memory import Memory
    mem = Memory.open("~/.uac")
    mem.add("alice", "Flying to Tokyo", kind="trip", fields={"destination": "Tokyo"})
    mem.log("alice")
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import date, datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator, Mapping, Sequence

from codegen.manifest import Manifest
from codegen.validate import Validator
from constraints import (
    BUILTIN,
    Alert,
    AlertDiff,
    Constraint,
    ConstraintError,
    evaluate_and_record,
    load_user_constraints,
)
from constraints.user_loader import LoadFailure
from factlog.durable import replace_file
from factlog.errors import InputError, NotFound
from factlog.model import Fact, JsonValue, NewFact, Provenance, check_user_id, fact_from_json, parse_iso_date
from factlog.records import (
    check_field_map,
    map_fields,
    read_records,
    record_facts,
    structured_fact,
    unused_mappings,
)
from factlog.sqlite import SqliteFactStore
from factlog.store import VerifyReport
from runtime.query_worker import QueryWorker
from runtime.recall import CodeAnswer, RecallResult, code_answer, recall
from runtime.recall_index import RecallIndex, record_texts
from runtime.safe_eval import QueryResult
from runtime.workspace import Workspace
from users.anchors import anchor_problems
from users.checkpoint import CheckpointPolicy, CheckpointResult, Published, Unchanged, checkpoint
from users.diff import ModuleDiff, diff_manifests, diff_versions
from users.store import VersionStore
from users.versions import VersionInfo


@dataclass(frozen=True)
class IngestReport:
    user: str
    source: str
    facts: list[Fact]  # the facts this ingest stored
    skipped: int = 0  # facts of the input already ingested before (same source), not stored again

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


@dataclass(frozen=True)
class CheckpointReport:
    user: str
    result: CheckpointResult
    alerts: AlertDiff | None  # None when no new version was published
    manifest: Manifest | None = None  # the published version's, when one was published


class Memory:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.facts: SqliteFactStore = workspace.open_facts()
        self.versions = VersionStore(workspace.users_dir)
        self._validator: Validator | None = None
        # Keyed by the files' hash too: a user forgotten and re-created (by any process) numbers
        # versions from 1 again, and must never be served the old user's module.
        self._modules: dict[tuple[str, int, str], ModuleType] = {}
        self._workers: dict[tuple[str, int, str], QueryWorker] = {}

    @staticmethod
    def open(home: Path | str | None = None, *, read_only: bool = False) -> Memory:
        """`read_only`: never create or write the workspace (its log is opened `mode=ro`)."""
        return Memory(Workspace.at(home, read_only=read_only))

    def close(self) -> None:
        for worker in self._workers.values():
            worker.close()
        self._workers.clear()
        if self._validator is not None:
            self._validator.close()
        self.facts.close()

    # -- writing facts ---------------------------------------------------------------

    def add(self, user: str, text: str | None = None, *, kind: str | None = None,
            fields: dict[str, JsonValue] | None = None, key: str | None = None,
            valid_from: str | None = None, valid_to: str | None = None,
            provenance: Provenance | None = None, field_map: Mapping[str, str] | None = None,
            allow_retype: bool = False) -> Fact:
        """Append one fact: free text, or structured when `kind` is given. `field_map` renames
        fields first (`{"amount": "amount_usd"}`); a value that changes its field's established
        type is refused unless `allow_retype`."""
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
        """A record file: each object one fact of `kind`. Ingesting the same file again adds
        nothing (`report.skipped` counts what was already there) unless `again`; records with
        an identity key (`key_field`) merge into their entity, the recommended way to update."""
        check_user_id(user)
        items = record_facts(path, kind, key_field, field_map)
        done = self.facts.append_sourced(user, items, again=again, allow_retype=allow_retype)
        return IngestReport(user, str(path), done.stored, done.skipped)

    def ingest_transcript(self, user: str, path: Path, *, user_only: bool = False, again: bool = False,
                          allow_retype: bool = False) -> IngestReport:
        """A chat transcript (JSON, JSONL or YAML), extracted offline, stored in one transaction;
        messages already ingested from the same transcript are skipped unless `again`."""
        from factlog.extract import RuleExtractor
        from factlog.ingest import sourced_transcript_facts

        check_user_id(user)
        items = sourced_transcript_facts(path, RuleExtractor(), user_only=user_only)
        done = self.facts.append_sourced(user, items, again=again, allow_retype=allow_retype)
        return IngestReport(user, str(path), done.stored, done.skipped)

    def retract(self, user: str, fact_id: int, reason: str | None = None) -> Fact:
        self.facts.get(user, fact_id)  # NotFound with a clear message
        text = f"Retracts fact {fact_id}" + (f": {reason}" if reason else "")
        return self.facts.append(user, [NewFact(text=text, retracts=fact_id)])[0]

    def forget(self, user: str) -> int:
        """Erase a user everywhere: facts, versions, alert state, recall index."""
        check_user_id(user)
        with self.versions.forgetting():  # waits for running checkpoints, alert runs, recalls
            gone = self.facts.forget(user)
            self.versions.forget(user)
            self.validator.forget(user)
            if self.workspace.index_db.exists():
                with RecallIndex(self.workspace.index_db) as index:
                    index.forget(user)
        self._modules = {k: v for k, v in self._modules.items() if k[0] != user}
        for key in [k for k in self._workers if k[0] == user]:
            self._workers.pop(key).close()
        return gone

    # -- reading facts -----------------------------------------------------------------

    def log(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        return self.facts.facts(user, after, upto)

    def users(self) -> list[str]:
        return self.facts.users()

    def require_user(self, user: str) -> None:
        """NotFound unless the log or the version store has heard of `user`: a mistyped name
        must not look like an empty user."""
        check_user_id(user)
        if not self.facts.knows(user) and not self.versions.history(user):
            raise NotFound(f"no such user {user!r} (see `uac users`)")

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash the log (one user's or all); NotFound for a user the log and the version
        store have never heard of."""
        if user is not None:
            self.require_user(user)
        return self.facts.verify(user)

    def version_problems(self, user: str | None = None) -> list[dict[str, JsonValue]]:
        """Every stored version (of `user`, or of everyone) whose files no longer match the
        hash recorded at publish, or whose anchor the log no longer holds."""
        problems: list[dict[str, JsonValue]] = []
        for name in [user] if user else self.versions.users():
            found = self.versions.verify(name) + anchor_problems(self.versions, self.facts, name)
            problems += [{"user": name, "version": number, "reason": why} for number, why in sorted(found)]
        return problems

    # -- versions ----------------------------------------------------------------------

    @property
    def validator(self) -> Validator:
        if self._validator is None:
            self._validator = Validator(self.workspace.cache_dir / "validation")
        return self._validator

    def checkpoint(self, user: str) -> CheckpointResult:
        """Compile and validate the user's log; publish a new version if anything changed."""
        check_user_id(user)
        return checkpoint(self.facts, self.versions, self.validator, user,
                          stage_root=self.workspace.cache_dir / "stage")

    def checkpoint_and_alert(self, user: str, now: datetime | None = None,
                             on_new_alert: Callable[[Alert], None] | None = None) -> CheckpointReport:
        """Checkpoint, then (on a new version) run every constraint and record the alert diff."""
        with self.versions.in_use():  # no forget between the two
            result = self.checkpoint(user)
            alerts = manifest = None
            if isinstance(result, Published):
                # the version just published: its module is the one validated (not imported again)
                alerts = self._alerts(user, result.version, now, on_new_alert)
                manifest = self.versions.manifest_of(result.version)
        return CheckpointReport(user, result, alerts, manifest)

    def checkpoint_if_due(self, user: str, policy: CheckpointPolicy, now: datetime | None = None,
                          on_new_alert: Callable[[Alert], None] | None = None) -> CheckpointReport:
        """Checkpoint (and run constraints) when `policy` says so; otherwise report why not."""
        current = self.versions.current(user)
        new_facts = self.facts.head(user) - (current.meta.log_position if current else 0)
        age = None
        if current is not None:
            age = (datetime.now(timezone.utc) - datetime.fromisoformat(current.created_at)).total_seconds()
        if policy.due(new_facts, age):
            return self.checkpoint_and_alert(user, now, on_new_alert)
        reason = f"{new_facts} new facts; the policy waits for {policy.every_facts}" if new_facts \
            else "no new facts"
        return CheckpointReport(user, Unchanged(current, reason), None)

    def watch_step(self, user: str, policy: CheckpointPolicy, clock_tick: bool = False) -> CheckpointReport:
        """What `uac watch` does per user: checkpoint if due; on a clock tick, also re-run the
        constraints when no new version came (alerts change as time passes)."""
        report = self.checkpoint_if_due(user, policy)
        if clock_tick and isinstance(report.result, Unchanged) and report.result.version is not None:
            return CheckpointReport(user, report.result, self.alerts(user))
        return report

    def module(self, user: str, version: int | str | None = None) -> ModuleType:
        """The user's typed module (current version by default); cached per version."""
        info = self.versions.current(user) if version is None else self.versions.get(user, version)
        if info is None:
            raise NotFound(f"user {user!r} has no published version yet: run `uac checkpoint {user}`")
        return self._module(info)

    def _module(self, info: VersionInfo) -> ModuleType:
        key = (info.user, info.number, info.files_sha256)
        if key in self._modules:
            self.versions.check(info)  # a stat per file while nothing changed
        else:
            self._modules[key] = self.versions.load_info(info)
        return self._modules[key]

    def manifest(self, user: str, version: int | str | None = None) -> Manifest:
        """The version's manifest (current version by default): its classes, collections and
        records as data, read without importing the version."""
        info = self.versions.current(user) if version is None else self.versions.get(user, version)
        if info is None:
            raise NotFound(f"user {user!r} has no published version yet: run `uac checkpoint {user}`")
        return self.manifest_of(info)

    def manifest_of(self, info: VersionInfo) -> Manifest:
        return self.versions.manifest_of(info, self._facts_by_id(info.user))

    def _facts_by_id(self, user: str) -> Callable[[], Mapping[int, Fact]]:
        """The log's facts by id, read when called (for versions written before manifests)."""
        return lambda: {f.id: f for f in self.facts.facts(user)}

    def rollback(self, user: str, version: int | str) -> VersionInfo:
        return self.versions.rollback(user, version)

    def diff(self, user: str, a: int | str | None = None, b: int | str | None = None) -> ModuleDiff:
        """What changed from version `a` to `b` (default: the current version against its
        parent). A first version, which has no parent, is diffed against nothing: every
        class and record shows as added."""
        a_num, b_num = self.diff_pair(user, a, b)
        if a_num == 0:
            new = self.versions.get(user, b_num)
            return diff_manifests(None, self.versions.manifest_of(new, self._facts_by_id(user)),
                                  retractions=new.meta.retractions)
        return diff_versions(self.versions, user, a_num, b_num, self._facts_by_id(user))

    def diff_pair(self, user: str, a: int | str | None, b: int | str | None) -> tuple[int, int]:
        """Default: the current version against its parent; 0 (nothing) for a first version."""
        if b is None:
            current = self.versions.current(user)
            if current is None:
                raise NotFound(f"user {user!r} has no published version")
            b_num = current.number
        else:
            b_num = self.versions.get(user, b).number
        if a is None:
            parent = self.versions.get(user, b_num).parent
            return (0 if parent is None else parent), b_num
        if a in (0, "0", "v0"):  # nothing: the state before the first version
            return 0, b_num
        return self.versions.get(user, a).number, b_num

    # -- queries, alerts, recall ---------------------------------------------------------

    def namespace(self, user: str, version: int | str | None = None) -> dict[str, object]:
        """What a query sees: the module's public names (records, lists, classes)."""
        module = self.module(user, version)
        return {k: v for k, v in vars(module).items()
                if not k.startswith("_") and not isinstance(v, ModuleType)}

    def query(self, user: str, expression: str, version: int | str | None = None) -> QueryResult:
        """Evaluate a safe expression in a forked worker that holds the module: the in-process
        guards bound ordinary work, the worker's kill and RLIMIT_AS bound the rest."""
        info = self.versions.current(user) if version is None else self.versions.get(user, version)
        if info is None:
            raise NotFound(f"user {user!r} has no published version yet: run `uac checkpoint {user}`")
        key = (user, info.number, info.files_sha256)
        self.versions.check(info)  # also when a worker already holds the module
        worker = self._workers.get(key)
        if worker is None:
            for stale in [k for k in self._workers if k[0] == user]:
                self._workers.pop(stale).close()  # one worker per user: the version in use
            worker = self._workers[key] = QueryWorker(self.namespace(user, info.number))
        return worker.run(expression)

    def constraints(self) -> tuple[list[Constraint], list[LoadFailure]]:
        loaded = load_user_constraints(self.workspace.home)
        return [*BUILTIN, *loaded.constraints], list(loaded.failures)

    def alerts(self, user: str, now: datetime | None = None,
               on_new_alert: Callable[[Alert], None] | None = None) -> AlertDiff:
        """Run every constraint over the current version; diff against the last run and keep it.
        A user constraint file that fails to load is reported among the errors."""
        with self.versions.in_use():  # a forget waits, so no alert state outlives it
            return self._alerts(user, self.versions.current(user), now, on_new_alert)

    def _alerts(self, user: str, info: VersionInfo | None, now: datetime | None,
                on_new_alert: Callable[[Alert], None] | None) -> AlertDiff:
        """`alerts` over version `info` (the current one, read by the caller, who holds
        `versions.in_use()`)."""
        constraints, failures = self.constraints()
        moment = now or datetime.now(timezone.utc)
        if info is None:
            raise NotFound(f"user {user!r} has no published version yet: run `uac checkpoint {user}`")
        diff = evaluate_and_record(self._module(info), moment, constraints,
                                   self.versions.user_dir(user) / "alerts.json", info.number, on_new_alert)
        broken = tuple(ConstraintError(f"constraints/{f.name}", f.error) for f in failures)
        return replace(diff, errors=broken + diff.errors)

    def recall(self, user: str, question: str, *, expression: str | None = None,
               max_items: int = 8, max_chars: int = 2000, max_ms: float = 50,
               kinds: list[str] | None = None, since: date | None = None,
               until: date | None = None, session: str | None = None) -> RecallResult:
        self.require_user(user)
        with self.versions.in_use():
            # Everything that can refuse runs before the derived index is written.
            code = None if expression is None else self._code_answer(user, expression)
            with RecallIndex(self.workspace.index_db) as index:
                index.sync_facts(user, self.facts.facts(user, after=index.last_fact_id(user)))
                current = self.versions.current(user)
                if current is not None and index.record_version(user) != current.number:
                    index.set_records(user, current.number, record_texts(self.manifest_of(current)))
                return recall(index, user, question, code_answer=code, max_items=max_items,
                              max_chars=max_chars, max_ms=max_ms, kinds=kinds, since=since,
                              until=until, session=session)

    def _code_answer(self, user: str, expression: str) -> CodeAnswer:
        return code_answer(expression, self.query(user, expression), self.namespace(user))

    # -- export / import ---------------------------------------------------------------

    def export(self, out: Path, user: str | None = None) -> int:
        """Write facts as JSONL, atomically (temp file, fsync, rename), to a regular file
        outside the workspace."""
        self.workspace.check_export_target(out)
        facts = self.facts.facts(user) if user else self.facts.all_facts()
        lines = [json.dumps(f.to_json(), ensure_ascii=False, sort_keys=True) + "\n" for f in facts]
        replace_file(out, "".join(lines).encode("utf-8"))
        return len(lines)

    def import_(self, path: Path) -> int:
        facts = read_export(path)
        return self.facts.import_facts(facts)


def read_export(path: Path) -> Sequence[Fact]:
    facts: list[Fact] = []
    for lineno, record in read_records(path):
        try:
            facts.append(fact_from_json(record))
        except InputError as exc:
            raise InputError(f"{path}, line {lineno}: {exc}") from None
    return facts


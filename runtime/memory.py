"""The documented Python API: one `Memory` per workspace; the CLI is a thin layer over it.

    >>> from runtime.memory import Memory
    >>> fresh = Memory.open(tmp / "workspace")  # e.g. Memory.open("~/.uac"); made if missing
    >>> fresh.add("bob", "Flying to Tokyo", kind="trip", fields={"destination": "Tokyo"}).id
    1
    >>> [fact.text for fact in fresh.log("bob")]
    ['Flying to Tokyo']
    >>> fresh.close()

The examples of this module run as tests (tests/test_docstrings.py): in each, `tmp` is an
empty folder and `mem` a `Memory` open on a workspace where `alice` has two published
versions (v1: trips to Lisbon and Chicago in 2024, a passport, a note; v2: a trip to Tokyo
in 2027 and a second note).

`Memory` is a facade: it opens the workspace's stores and hands each job to a service with
that one job (`runtime.facts_service`, `versions_service`, `checkpoint_service`,
`query_service`, `alerts_service`, `recall_service`; forgetting is coordinated by
`runtime.forgetting`). The services take the stores they need, typed against
`factlog.store.FactStore`, so an HTTP API or another front end can use them directly.
"""

from __future__ import annotations

import threading
from datetime import date, datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterator, Mapping, Sequence, TypeVar, overload

from factlog.model import Fact, JsonValue, Provenance
from factlog.store import ExtractionFailure, FactStore, VerifyReport
from runtime.facts_service import FactsService, IngestReport
from runtime.workspace import Workspace

if TYPE_CHECKING:  # the services load on first use: `uac add` must not import the compiler
    from codegen.manifest import Manifest
    from codegen.producer import Producer
    from codegen.validate import Validator
    from constraints import Alert, AlertDiff, Constraint
    from constraints.user_loader import LoadFailure
    from runtime.agent_context import AgentContext
    from runtime.agent_tools import ToolBox
    from runtime.alerts_service import AlertsService
    from runtime.ask import AskResult
    from runtime.checkpoint_service import CheckpointReport, CheckpointService
    from runtime.forgetting import Forgetting
    from runtime.inbox import Inbox, InboxOutcome
    from runtime.query_service import QueryService
    from runtime.recall import RecallResult
    from runtime.recall_service import RecallService
    from runtime.safe_eval import QueryResult
    from runtime.versions_service import VersionsService
    from users.checkpoint import CheckpointPolicy, CheckpointResult
    from users.diff import ModuleDiff
    from users.gc import GcReport
    from users.store import VersionStore
    from users.versions import VersionInfo

__all__ = ["CheckpointReport", "IngestReport", "Memory"]

T = TypeVar("T")


def __getattr__(name: str) -> object:
    """`CheckpointReport` is exported here too, imported on first use (it loads the compiler)."""
    if name == "CheckpointReport":
        from runtime.checkpoint_service import CheckpointReport

        return CheckpointReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class made_once(Generic[T]):
    """A service of `Memory`, made on first use and kept in the instance (like
    `functools.cached_property`), under the instance's one lock: threads asking at the same
    time share one service (the version store's own locks and caches are per instance)."""

    def __init__(self, make: Callable[[Any], T]) -> None:
        self.make = make
        self.name = make.__name__
        self.__doc__ = make.__doc__

    @overload
    def __get__(self, mem: None, owner: type[Memory]) -> made_once[T]: ...

    @overload
    def __get__(self, mem: Memory, owner: type[Memory]) -> T: ...

    def __get__(self, mem: Memory | None, owner: type[Memory]) -> made_once[T] | T:
        if mem is None:
            return self
        with mem._making:
            if self.name not in mem.__dict__:
                mem.__dict__[self.name] = self.make(mem)
            made: T = mem.__dict__[self.name]
            return made


class Memory:
    """Each service is made on first use (and its modules imported then): appending a fact
    loads the fact log and nothing of the compiler, validator or query machinery."""

    def __init__(self, workspace: Workspace, *, store: str | None = None) -> None:
        """`store` (else the workspace's store, where it has one): a PostgreSQL URL keeps the
        published versions and the alert state in that database (`users.pg_versions`,
        shared by every machine; the home caches them); otherwise they live in the home."""
        self._making = threading.RLock()
        self.workspace = workspace
        location = store if store is not None else workspace.store
        self.store_url: str | None = None
        if location is not None:
            from factlog.pg import is_postgres_url

            self.store_url = location if is_postgres_url(location) else None
        self.facts: FactStore = workspace.open_facts()
        self.fact_log = FactsService(self.facts, lambda: self.versions, workspace)

    @made_once
    def versions(self) -> VersionStore:
        if self.store_url is not None:
            from users.pg_versions import open_versions

            return open_versions(self.store_url, self.workspace.users_dir, code_dir=self.workspace.code_dir)
        from users.store import VersionStore

        return VersionStore(self.workspace.users_dir, code_dir=self.workspace.code_dir)

    @made_once
    def modules(self) -> VersionsService:
        from runtime.versions_service import VersionsService

        return VersionsService(self.facts, self.versions)

    @made_once
    def queries(self) -> QueryService:
        from runtime.query_service import QueryService

        return QueryService(self.versions, self.modules)

    @made_once
    def alert_runs(self) -> AlertsService:
        from runtime.alerts_service import AlertsService

        shared = None
        if self.store_url is not None:
            from constraints.pg_alert_state import PgAlertStates
            from users.pg_versions import PgVersionStore

            versions = self.versions
            assert isinstance(versions, PgVersionStore)
            shared = PgAlertStates(versions.pool)
        return AlertsService(self.workspace.home, self.versions, self.modules, shared)

    @made_once
    def checkpoints(self) -> CheckpointService:
        from runtime.checkpoint_service import CheckpointService

        return CheckpointService(self.facts, self.versions, self.alert_runs, self.workspace.cache_dir,
                                 self.workspace.home)

    @made_once
    def recalls(self) -> RecallService:
        from runtime.recall_service import RecallService

        return RecallService(self.workspace.index_db, self.fact_log, self.versions, self.modules, self.queries)

    @made_once
    def forgetting(self) -> Forgetting:
        from runtime.forgetting import ForgetsUsers, Forgetting

        derived: list[ForgetsUsers] = [self.fact_log, self.checkpoints, self.recalls, self.modules, self.queries]
        return Forgetting(self.facts, self.versions, derived)

    @staticmethod
    def open(home: Path | str | None = None, *, read_only: bool = False, store: str | None = None) -> Memory:
        """The workspace at `home` (default: UAC_HOME, else ~/.uac), made if missing;
        `read_only`: never create or write the workspace (its log is opened `mode=ro`);
        `store`: where the fact log lives (default `UAC_STORE`, else the home's facts.db).

            >>> with_alice = Memory.open(mem.workspace.home, read_only=True)
            >>> with_alice.users()
            ['alice']
            >>> with_alice.close()
        """
        return Memory(Workspace.at(home, read_only=read_only, store=store))

    def close(self) -> None:
        """Stop the services that were started (query workers, caches), then the log."""
        for name in ("queries", "checkpoints"):
            service = self.__dict__.get(name)
            if service is not None:
                service.close()
        versions = self.__dict__.get("versions")
        close_versions = getattr(versions, "close", None)
        if close_versions is not None:
            close_versions()
        self.facts.close()

    def enqueue_writes(self, enqueue: Callable[[Mapping[str, int]], None]) -> None:
        """After each write through this memory commits, hand `{user: log head}` of the users
        it wrote to `enqueue` (a checkpoint queue's `runtime.work_queue.WorkQueue.enqueue`);
        a failing `enqueue` never fails the write (runtime.queued_facts)."""
        from typing import cast

        from runtime.queued_facts import QueuedFacts

        self.facts = cast(FactStore, QueuedFacts(self.facts, enqueue))
        self.fact_log.facts = self.facts

    # -- writing facts ---------------------------------------------------------------

    def add(self, user: str, text: str | None = None, *, kind: str | None = None,
            fields: dict[str, JsonValue] | None = None, key: str | None = None,
            valid_from: str | None = None, valid_to: str | None = None,
            provenance: Provenance | None = None, field_map: Mapping[str, str] | None = None,
            allow_retype: bool = False) -> Fact:
        """Append one fact: free text, or structured when `kind` is given. `field_map` renames
        fields first (`{"amount": "amount_usd"}`); a value that changes its field's established
        type is refused unless `allow_retype`.

            >>> fact = mem.add("alice", "Flying to Oslo in May", kind="trip",
            ...                fields={"destination": "Oslo", "departure_date": "2027-05-02"})
            >>> fact.id, fact.kind, fact.fields["destination"]
            (7, 'trip', 'Oslo')
            >>> mem.add("alice", "I prefer aisle seats.").kind is None  # free text
            True
        """
        return self.fact_log.add(user, text, kind=kind, fields=fields, key=key, valid_from=valid_from,
                                 valid_to=valid_to, provenance=provenance, field_map=field_map,
                                 allow_retype=allow_retype)

    def ingest_records(self, user: str, path: Path, kind: str, key_field: str | None = None, *,
                       field_map: Mapping[str, str] | None = None, again: bool = False,
                       allow_retype: bool = False) -> IngestReport:
        """A record file: each object one fact of `kind`. Ingesting the same file again adds
        nothing (`report.skipped` counts what was already there) unless `again`; records with
        an identity key (`key_field`) merge into their entity, the recommended way to update."""
        return self.fact_log.ingest_records(user, path, kind, key_field, field_map=field_map, again=again,
                                            allow_retype=allow_retype)

    def ingest_transcript(self, user: str, path: Path, *, user_only: bool = False, again: bool = False,
                          allow_retype: bool = False, llm: bool = False, model: str | None = None,
                          base_url: str | None = None, retry_failed: bool = False) -> IngestReport:
        """A chat transcript (JSON, JSONL or YAML); messages already ingested from the same
        transcript are skipped unless `again`. Offline (the default) it is extracted by rules
        and stored in one transaction. With `llm`, a model extracts typed facts (endpoint and
        model: `base_url` / `model`, else OPENAI_BASE_URL / UAC_MODEL, else the settings'
        `llm` section), one transaction per chunk of a session; a chunk the model fails on is
        kept as the raw text facts of its messages and its failure recorded with the message
        range (`extraction_failures`), the other chunks keeping their typed facts;
        `retry_failed` re-extracts those chunks only (runtime.llm_ingest). `report.extraction` holds the sessions,
        failures, tokens and seconds."""
        return self.fact_log.ingest_transcript(user, path, user_only=user_only, again=again,
                                               allow_retype=allow_retype, llm=llm, model=model,
                                               base_url=base_url, retry_failed=retry_failed)

    def ingest_conversation(self, user: str, session: Mapping[str, object], *, user_only: bool = False,
                            again: bool = False, allow_retype: bool = False) -> IngestReport:
        """One conversation given as data, in the transcript shape (`{"session_id": ...,
        "timestamp": ..., "messages": [{"role": "user", "content": ...}, ...]}`), extracted by
        rules and stored in one transaction; the same conversation again adds nothing unless
        `again`.

            >>> chat = {"session_id": "s1", "messages": [{"role": "user", "content": "I moved to Berlin."}]}
            >>> len(mem.ingest_conversation("alice", chat).facts) > 0
            True
            >>> report = mem.ingest_conversation("alice", chat)  # the same conversation again
            >>> len(report.facts), report.skipped > 0
            (0, True)
        """
        return self.fact_log.ingest_conversation(user, session, user_only=user_only, again=again,
                                                 allow_retype=allow_retype)

    def extraction_failures(self, user: str, *, include_resolved: bool = False) -> list[ExtractionFailure]:
        """Sessions a model could not extract (kept as raw text facts), open ones unless
        `include_resolved`; `ingest_transcript(..., llm=True, retry_failed=True)` retries them."""
        return self.fact_log.extraction_failures(user, include_resolved=include_resolved)

    def inbox(self, root: Path | str, user: str | None = None, users: list[str] | None = None, *,
              llm: bool = False, model: str | None = None, base_url: str | None = None,
              user_only: bool = False) -> Inbox:
        """The inbox folder `root` (created if missing): transcripts dropped in `root/<user>/`
        (or directly in `root`, for `user`) are ingested once each, offline or with `llm`
        as `ingest_transcript` does, then moved to `root/.done/` — or, refused, to
        `root/.failed/` with a one-line `.reason` file (runtime.inbox). `users` limits whose
        files it takes. Bad options (a bad user id, no model with `llm`, another process
        handling the inbox) raise InputError now; `close()` (or `with`) lets the inbox go.
        `uac watch --inbox` watches one (runtime.inbox_watch)."""
        from runtime.inbox import Inbox

        return Inbox(self.fact_log, Path(root), user, users, llm=llm, model=model, base_url=base_url,
                     user_only=user_only)

    def ingest_inbox(self, root: Path | str, user: str | None = None, *, llm: bool = False,
                     model: str | None = None, base_url: str | None = None) -> list[InboxOutcome]:
        """Handle every file now in the inbox `root` (see `inbox`), each taken as complete:
        drop files by renaming them in. A file a crash left half-handled goes first."""
        with self.inbox(root, user, llm=llm, model=model, base_url=base_url) as inbox:
            return inbox.handle_all()

    def retract(self, user: str, fact_id: int, reason: str | None = None) -> Fact:
        """Withdraw fact `fact_id` by appending a retraction (the log itself never changes);
        the next checkpoint leaves its record out.

            >>> mem.retract("alice", 2, "the Chicago trip was cancelled").retracts
            2
        """
        return self.fact_log.retract(user, fact_id, reason)

    def forget(self, user: str) -> int:
        """Erase a user everywhere: facts, versions, alert state, recall index; the number
        of facts erased.

            >>> mem.forget("alice"), mem.users()
            (6, [])
        """
        return self.forgetting.forget(user)

    # -- reading facts -----------------------------------------------------------------

    def log(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        """The user's facts in log order, those after position `after` up to `upto`.

            >>> [(fact.id, fact.kind) for fact in mem.log("alice", after=4)]
            [(5, 'trip'), (6, None)]
        """
        return self.fact_log.log(user, after, upto)

    def users(self) -> list[str]:
        """Every user with a fact in the log.

            >>> mem.users()
            ['alice']
        """
        return self.fact_log.users()

    def require_user(self, user: str) -> None:
        """NotFound unless the log or the version store has heard of `user`: a mistyped name
        must not look like an empty user."""
        self.fact_log.require_user(user)

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash the log (one user's or all); NotFound for a user the log and the version
        store have never heard of."""
        return self.fact_log.verify(user)

    def version_problems(self, user: str | None = None) -> list[dict[str, JsonValue]]:
        """Every stored version (of `user`, or of everyone) whose files no longer match the
        hash recorded at publish, or whose anchor the log no longer holds."""
        return self.modules.version_problems(user)

    # -- versions ----------------------------------------------------------------------

    @property
    def validator(self) -> Validator:
        return self.checkpoints.validator

    def checkpoint(self, user: str, producer: Producer | str | None = None) -> CheckpointResult:
        """Produce and validate the user's package; publish a new version if anything changed.
        `producer`: a registered name or None (the workspace's: `producer` in settings.json,
        else the compiler), with the workspace's `llm` settings; or a producer object, used
        as it is (`runtime.producer_choice.workspace_producer`).

            >>> type(mem.checkpoint("alice")).__name__  # nothing new since v2
            'Unchanged'
            >>> _ = mem.add("alice", kind="trip", fields={"destination": "Oslo", "departure_date": "2027-05-02"})
            >>> result = mem.checkpoint("alice")
            >>> type(result).__name__, result.version.number
            ('Published', 3)
        """
        return self.checkpoints.checkpoint(user, producer)

    def checkpoint_and_alert(self, user: str, now: datetime | None = None,
                             on_new_alert: Callable[[Alert], None] | None = None,
                             producer: Producer | str | None = None) -> CheckpointReport:
        """Checkpoint, then (on a new version) run every constraint and record the alert diff.

            >>> _ = mem.add("alice", kind="trip", fields={"destination": "Oslo", "departure_date": "2027-05-02"})
            >>> report = mem.checkpoint_and_alert("alice", now=datetime(2026, 12, 1, tzinfo=timezone.utc))
            >>> report.result.version.number  # a new version: the constraints ran
            3
            >>> sorted(alert.message.split(" (")[0] for alert in report.alerts.raised)
            ['passport expires 26 days after your Tokyo return', 'passport expires 60 days before your Oslo departure']
        """
        return self.checkpoints.checkpoint_and_alert(user, now, on_new_alert, producer)

    def checkpoint_if_due(self, user: str, policy: CheckpointPolicy, now: datetime | None = None,
                          on_new_alert: Callable[[Alert], None] | None = None,
                          producer: Producer | str | None = None) -> CheckpointReport:
        """Checkpoint (and run constraints) when `policy` says so; otherwise report why not."""
        return self.checkpoints.checkpoint_if_due(user, policy, now, on_new_alert, producer)

    def watch_step(self, user: str, policy: CheckpointPolicy, clock_tick: bool = False,
                   producer: Producer | str | None = None) -> CheckpointReport:
        """What `uac watch` does per user: checkpoint if due; on a clock tick, also re-run the
        constraints when no new version came (alerts change as time passes)."""
        return self.checkpoints.watch_step(user, policy, clock_tick, producer)

    def module(self, user: str, version: int | str | None = None) -> ModuleType:
        """The user's typed module (current version by default); cached per version.

            >>> module = mem.module("alice")
            >>> [trip.destination for trip in module.trips], module.passport.expiry_date
            (['Lisbon', 'Chicago', 'Tokyo'], datetime.date(2027, 3, 3))
        """
        return self.modules.module(user, version)

    def manifest(self, user: str, version: int | str | None = None) -> Manifest:
        """The version's manifest (current version by default): its classes, collections and
        records as data, read without importing the version.

            >>> mem.manifest("alice").record_counts()
            {'passport': 1, 'trips': 3, 'notes': 2}
            >>> mem.manifest("alice", 1).record_counts()["trips"]
            2
        """
        return self.modules.manifest(user, version)

    def manifest_of(self, info: VersionInfo) -> Manifest:
        return self.modules.manifest_of(info)

    def rollback(self, user: str, version: int | str) -> VersionInfo:
        """Make an earlier version current again (nothing is deleted; the log is untouched).

            >>> mem.rollback("alice", 1).number, len(mem.module("alice").trips)
            (1, 2)
        """
        return self.modules.rollback(user, version)

    def diff(self, user: str, a: int | str | None = None, b: int | str | None = None) -> ModuleDiff:
        """What changed from version `a` to `b` (default: the current version against its
        parent). A first version, which has no parent, is diffed against nothing: every
        class and record shows as added.

            >>> [(c.change, c.attribute, c.entity, c.fact_ids) for c in mem.diff("alice").records]
            [('added', 'notes', 'note#6', [6]), ('added', 'trips', 'trip/tok', [5])]
        """
        return self.modules.diff(user, a, b)

    def diff_pair(self, user: str, a: int | str | None, b: int | str | None) -> tuple[int, int]:
        """Default: the current version against its parent; 0 (nothing) for a first version."""
        return self.modules.diff_pair(user, a, b)

    # -- queries, alerts, recall ---------------------------------------------------------

    def namespace(self, user: str, version: int | str | None = None) -> dict[str, object]:
        """What a query sees: the module's public names (records, lists, classes)."""
        return self.modules.namespace(user, version)

    def query(self, user: str, expression: str, version: int | str | None = None) -> QueryResult:
        """Evaluate a safe expression in a forked worker that holds the module: the in-process
        guards bound ordinary work, the worker's kill and RLIMIT_AS bound the rest. A refused
        or failing expression is a `QueryFailure` (`describe()` says why), never an exception.

            >>> mem.query("alice", "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)").value
            1860.5
            >>> mem.query("alice", "sorted(t.destination for t in trips)", version=1).value
            ['Chicago', 'Lisbon']
            >>> mem.query("alice", "__import__('os')").describe()
            "query forbidden (column 1): names starting with '_' are not allowed (__import__)"
        """
        return self.queries.query(user, expression, version)

    def constraints(self) -> tuple[list[Constraint], list[LoadFailure]]:
        return self.alert_runs.constraints()

    def alerts(self, user: str, now: datetime | None = None,
               on_new_alert: Callable[[Alert], None] | None = None) -> AlertDiff:
        """Run every constraint over the current version; diff against the last run and keep it.
        A user constraint file that fails to load is reported among the errors. `on_new_alert`
        is called once per alert raised by this run.

            >>> raised = []
            >>> diff = mem.alerts("alice", datetime(2026, 12, 1, tzinfo=timezone.utc), on_new_alert=raised.append)
            >>> [alert.message[:44] for alert in raised]
            ['passport expires 26 days after your Tokyo re']
            >>> len(mem.alerts("alice", datetime(2026, 12, 2, tzinfo=timezone.utc)).still_active)  # no longer new
            1
        """
        return self.alert_runs.alerts(user, now, on_new_alert)

    def recall(self, user: str, question: str, *, expression: str | None = None,
               max_items: int = 8, max_chars: int = 2000, max_ms: float = 50,
               kinds: list[str] | None = None, since: date | None = None,
               until: date | None = None, session: str | None = None, widen: bool = True) -> RecallResult:
        """Cited context for `question` (`runtime.recall`); an enumerating question widens the
        item and character budgets unless `widen` is False.

            >>> print(mem.recall("alice", "Who is my dentist?").context)
            fact ...: The dentist is Dr. Alvarez on Elm Street [facts 6]
        """
        return self.recalls.recall(user, question, expression=expression, max_items=max_items,
                                   max_chars=max_chars, max_ms=max_ms, kinds=kinds, since=since,
                                   until=until, session=session, widen=widen)

    # -- agents ------------------------------------------------------------------------

    def agent_manifest(self, user: str, version: int | str | None = None, *, limit: int = 2000) -> AgentContext:
        """What an agent is told of the user's module (current version by default): `.text`
        is the compact manifest within `limit` characters (a cut says what it left out),
        `.data` the same uncut; the active alerts are those of the last constraint run.

            >>> context = mem.agent_manifest("alice")
            >>> print(context.text.splitlines()[0])
            v2: 3 collections, 6 records. Names a query expression can read ...
            >>> len(mem.agent_manifest("alice", limit=300).text) <= 300
            True
        """
        from runtime.agent_context import agent_context

        self.require_user(user)
        info = self.modules.info(user, version)
        return agent_context(user, info.number, self.manifest_of(info), self.alert_runs.state(user), limit)

    def ask(self, user: str, question: str, *, model: str | None = None, base_url: str | None = None,
            api_key: str | None = None) -> AskResult:
        """Answer `question` by code: the model reads the agent manifest (not the data) and
        writes one query expression, which the query sandbox runs; an error is fed back once.
        The result carries the expression, its value, the facts it rests on, recall context
        when code could not answer, and the model calls' tokens and seconds. The model: the
        arguments, else OPENAI_BASE_URL / UAC_MODEL, else the `llm` settings (it needs one, so
        this example does not run as a test):

            result = mem.ask("alice", "How much did my 2024 trips cost?")
            result.value_text, result.expression, result.rests_on.fact_ids
        """
        from runtime.ask import ask

        return ask(self, user, question, model=model, base_url=base_url, api_key=api_key)

    def tools(self, users: Sequence[str] | None = None) -> ToolBox:
        """The agent tools over this memory (`runtime.agent_tools`), scoped to `users` (None:
        every user): what the MCP server serves and `call_tool` runs.

            >>> box = mem.tools(["alice"])
            >>> box.call("query", {"expression": "len(trips)"})["value"]
            3
        """
        from runtime.agent_tools import ToolBox

        return ToolBox(self, users)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The agent tools as OpenAI function-calling schemas, for `tools=` of a chat completion
        (`content = mem.call_tool(call.function.name, call.function.arguments)` runs a call).

            >>> [tool["function"]["name"] for tool in mem.openai_tools()][:4]
            ['remember', 'ingest_conversation', 'query', 'ask']
        """
        from runtime.agent_tools import openai_tools

        return openai_tools()

    def call_tool(self, name: str, arguments_json: str | None = None, *,
                  users: Sequence[str] | None = None) -> str:
        """Run one tool call (a chat completion's `tool_calls[i].function`) and return its JSON
        result, or `{"error": "..."}` for a bad call; `users` scopes it. Never raises for a bad call.

            >>> mem.call_tool("query", '{"expression": "len(trips)"}', users=["alice"])
            '{"expression": "len(trips)", "value": 3, "elapsed_ms": ...}'
            >>> mem.call_tool("query", '{"expr": "len(trips)"}', users=["alice"])
            '{"error": "query: expression: Field required; expr: Extra inputs are not permitted"}'
        """
        return self.tools(users).call_json(name, arguments_json)

    def gc(self, user: str | None = None, keep: int | None = None) -> list[GcReport]:
        """Remove versions beyond the retention (`keep`, else `retention.keep` of the
        settings, else none) and every blob no version links, for `user` or every user;
        the current version always stays (users.gc). NotFound for an unknown user."""
        from users.gc import check_keep

        keep = check_keep(keep)  # a bad value is refused before the settings are read
        if keep is None:
            from runtime.settings import load_settings

            keep = load_settings(self.workspace.home).retention.keep
        if user is not None:
            self.require_user(user)
        return [self.modules.gc(name, keep) for name in ([user] if user is not None else self.versions.users())]

    # -- export / import ---------------------------------------------------------------

    def export(self, out: Path, user: str | None = None) -> int:
        """Write facts as JSONL, atomically (temp file, fsync, rename), to a regular file
        outside the workspace; the number of facts written. `import_` reads such a file.

            >>> mem.export(tmp / "alice.jsonl", "alice")
            6
        """
        return self.fact_log.export(out, user)

    def import_(self, path: Path) -> int:
        return self.fact_log.import_(path)

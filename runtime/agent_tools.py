"""The agent tools: one table of tools (name, description, argument model, handler), the
one owner of what agents may call. The MCP server (`runtime.mcp_server`) and the OpenAI
function-calling schemas (`openai_tools`) are both generated from `TOOLS`.

`ToolBox` is the dispatcher. For every call, in this order: the arguments are validated by
the tool's pydantic model (unknown keys refused); the user is resolved and checked against
the box's scope (here, for every tool alike: a box scoped to users cannot read or write
another); the handler runs (a `Memory` call); the result, as JSON, must fit `max_chars`.
Every failure is a `ToolError` (one line): bad arguments, an unknown user, a refused
query, a result over a budget, a model that cannot be reached, even a bug; a front end
reports it as a tool error and keeps serving.

    box = mem.tools(users=["alice"])
    box.call_json("query", '{"expression": "len(trips)"}')  # -> '{"expression": ..., "value": 3, ...}'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from typing import TYPE_CHECKING, Any, Callable, Final, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from factlog.errors import InputError, NotFound, UacError
from factlog.model import check_user_id
from runtime.result_budget import too_large

if TYPE_CHECKING:
    from runtime.memory import Memory

MAX_TOOL_CHARS: Final = 50_000  # a tool result's JSON text, at most (an agent's context is small)
Progress = Callable[[str], None]  # a long tool names each stage it starts


class ToolError(InputError):
    """A tool call that failed: one line, returned to the agent as a tool error."""


class ToolNotFound(ToolError):
    """A tool call naming a user, fact or version that does not exist."""


# -- argument models -------------------------------------------------------------------


class ToolArgs(BaseModel):
    """Every tool names its user; a box serving one user fills it in when left out."""

    model_config = ConfigDict(extra="forbid")
    user: str | None = Field(None, max_length=64, description="The user whose memory to use; may be left "
                             "out when the server serves exactly one user.")


class RememberArgs(ToolArgs):
    text: str | None = Field(None, max_length=10_000, description="What was said or observed, in words "
                             "(required for a free-text fact; optional with `kind`).")
    kind: str | None = Field(None, max_length=64, description="The kind of a structured fact, singular "
                             "snake_case (`trip`, `medication`); leave out for free text.")
    fields: dict[str, Any] | None = Field(None, description="The structured fact's fields, JSON values "
                                          "(dates as YYYY-MM-DD), e.g. {\"destination\": \"Tokyo\"}.")
    key: str | None = Field(None, max_length=200, description="Identity key: facts of one kind with the same "
                            "key update one entity (e.g. the passport number).")
    valid_from: date | None = Field(None, description="First day the fact holds (YYYY-MM-DD).")
    valid_to: date | None = Field(None, description="Last day the fact holds (YYYY-MM-DD).")


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: str = Field(max_length=32, description="user, assistant, system or tool")
    content: str = Field(max_length=100_000)


class IngestConversationArgs(ToolArgs):
    messages: list[Message] = Field(min_length=1, max_length=1000, description="The conversation's messages "
                                    "in order.")
    session_id: str | None = Field(None, max_length=200, description="The conversation's id; the same "
                                   "conversation ingested again adds nothing.")
    timestamp: str | None = Field(None, max_length=64, description="When it took place (ISO date or date-time).")
    user_only: bool = Field(False, description="Extract facts from the user's own messages only.")


class QueryArgs(ToolArgs):
    expression: str = Field(min_length=1, max_length=10_000, description="ONE safe Python expression over "
                            "the user's module (see the manifest), e.g. "
                            "`sum(t.cost_usd for t in trips if t.departure_date.year == 2024)`.")
    version: int | None = Field(None, ge=1, description="A version number (default: the current one).")


class AskArgs(ToolArgs):
    question: str = Field(min_length=1, max_length=2000, description="A question in words; a model writes "
                          "the query expression that answers it.")


class RecallArgs(ToolArgs):
    question: str = Field(min_length=1, max_length=2000, description="What to find context for.")
    max_items: int = Field(8, ge=1, le=200, description="Items at most.")
    max_chars: int = Field(2000, ge=1, le=MAX_TOOL_CHARS // 2, description="Characters of context at most.")
    kinds: list[str] | None = Field(None, max_length=50, description="Only facts and records of these kinds.")
    since: date | None = Field(None, description="Only facts said on or after this day.")
    until: date | None = Field(None, description="Only facts said on or before this day.")


class AlertsArgs(ToolArgs):
    today: date | None = Field(None, description="The day to judge deadlines by (default: today).")


class ManifestArgs(ToolArgs):
    version: int | None = Field(None, ge=1, description="A version number (default: the current one).")
    limit: int = Field(2000, ge=200, le=MAX_TOOL_CHARS // 2, description="Characters of text at most.")


class HistoryArgs(ToolArgs):
    pass


class DiffArgs(ToolArgs):
    a: int | None = Field(None, ge=0, description="From this version (default: the current one's parent).")
    b: int | None = Field(None, ge=1, description="To this version (default: the current one).")


class CheckpointArgs(ToolArgs):
    today: date | None = Field(None, description="The day the constraints judge by (default: today).")


class RetractArgs(ToolArgs):
    fact_id: int = Field(ge=1, description="The fact to withdraw (a new fact records it; nothing is erased).")
    reason: str | None = Field(None, max_length=1000, description="Why it no longer holds.")


class ForgetArgs(ToolArgs):
    pass


class RollbackArgs(ToolArgs):
    version: int = Field(ge=1, description="The version to make current again.")


# -- handlers: each one `Memory` call, its result as JSON ---------------------------------


def _moment(day: date | None) -> datetime:
    return datetime.now(timezone.utc) if day is None else datetime.combine(day, time(), timezone.utc)


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


def _remember(mem: Memory, user: str, a: RememberArgs, progress: Progress) -> object:
    fact = mem.add(user, a.text, kind=a.kind, fields=a.fields, key=a.key, valid_from=_iso(a.valid_from),
                   valid_to=_iso(a.valid_to))
    return {"fact_id": fact.id, "kind": fact.kind, "key": fact.key, "text": fact.text}


def _ingest_conversation(mem: Memory, user: str, a: IngestConversationArgs, progress: Progress) -> object:
    session: dict[str, object] = {"messages": [m.model_dump() for m in a.messages]}
    if a.session_id is not None:
        session["session_id"] = a.session_id
    if a.timestamp is not None:
        session["timestamp"] = a.timestamp
    report = mem.ingest_conversation(user, session, user_only=a.user_only)
    return {"new_facts": len(report.facts), "fact_ids": [f.id for f in report.facts], "skipped": report.skipped}


def _query(mem: Memory, user: str, a: QueryArgs, progress: Progress) -> object:
    from runtime.render_value import printable, to_jsonable
    from runtime.safe_eval import QueryFailure

    result = mem.query(user, a.expression, a.version)
    if isinstance(result, QueryFailure):
        raise InputError(result.describe())
    return {"expression": printable(a.expression), "value": to_jsonable(result.value),
            "elapsed_ms": round(result.elapsed_ms, 3)}


def _ask(mem: Memory, user: str, a: AskArgs, progress: Progress) -> object:
    return mem.ask(user, a.question).to_json()


def _recall(mem: Memory, user: str, a: RecallArgs, progress: Progress) -> object:
    return mem.recall(user, a.question, max_items=a.max_items, max_chars=a.max_chars, kinds=a.kinds,
                      since=a.since, until=a.until).to_json()


def _alerts(mem: Memory, user: str, a: AlertsArgs, progress: Progress) -> object:
    from runtime.cli_output import alerts_json

    mem.require_user(user)
    return alerts_json(mem.alerts(user, _moment(a.today)))


def _manifest(mem: Memory, user: str, a: ManifestArgs, progress: Progress) -> object:
    return mem.agent_manifest(user, a.version, limit=a.limit).to_json()


def _history(mem: Memory, user: str, a: HistoryArgs, progress: Progress) -> object:
    from runtime.version_json import history_json

    return history_json(mem, user)


def _diff(mem: Memory, user: str, a: DiffArgs, progress: Progress) -> object:
    from runtime.version_json import diff_json

    mem.require_user(user)
    first, second = mem.diff_pair(user, a.a, a.b)
    return diff_json(first, second, mem.diff(user, first, second))


def _checkpoint(mem: Memory, user: str, a: CheckpointArgs, progress: Progress) -> object:
    from runtime.cli_output import checkpoint_json

    mem.require_user(user)
    progress(f"checkpoint of {user}: compiling and validating the log")
    report = checkpoint_json(mem.checkpoint_and_alert(user, _moment(a.today)))
    progress(f"checkpoint of {user}: {report.get('outcome')}")
    return report


def _retract(mem: Memory, user: str, a: RetractArgs, progress: Progress) -> object:
    mem.require_user(user)
    fact = mem.retract(user, a.fact_id, a.reason)
    return {"fact_id": fact.id, "retracts": fact.retracts, "text": fact.text}


def _forget(mem: Memory, user: str, a: ForgetArgs, progress: Progress) -> object:
    mem.require_user(user)
    return {"forgotten_facts": mem.forget(user)}


def _rollback(mem: Memory, user: str, a: RollbackArgs, progress: Progress) -> object:
    mem.require_user(user)
    info = mem.rollback(user, a.version)
    return {"current_version": info.number, "log_position": info.meta.log_position}


# -- the table ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[ToolArgs]
    handler: Callable[[Memory, str, Any, Progress], object]
    writes: bool = False  # appends facts or publishes versions
    long: bool = False  # may take seconds (a model, a checkpoint): a server runs it off its event loop

    def input_schema(self) -> dict[str, Any]:
        """The arguments' JSON Schema (draft 2020-12), as pydantic writes it."""
        return self.args.model_json_schema()


TOOLS: Final[tuple[Tool, ...]] = (
    Tool("remember", "Remember one fact about the user: free text, or a structured fact (`kind` and "
         "`fields`). It is appended to the user's log; `checkpoint` makes it part of the typed module.",
         RememberArgs, _remember, writes=True),
    Tool("ingest_conversation", "Extract facts from a conversation (its messages) and remember them; the "
         "same conversation again adds nothing.", IngestConversationArgs, _ingest_conversation, writes=True,
         long=True),
    Tool("query", "Evaluate ONE safe Python expression over the user's typed module (collections such as "
         "`trips`, records with typed fields; read the `manifest` first) and return its value as JSON.",
         QueryArgs, _query),
    Tool("ask", "Answer a question about the user by code: a model reads the manifest and writes a query; "
         "the answer cites the facts it rests on (recall context when code cannot answer).", AskArgs, _ask,
         long=True),
    Tool("recall", "Cited context for a question: the facts and records that match it, within a budget.",
         RecallArgs, _recall),
    Tool("alerts", "Run the user's constraints (deadlines, conflicts, expiries) over the current version: "
         "new, escalated, active and resolved alerts.", AlertsArgs, _alerts),
    Tool("manifest", "A compact summary of the user's module: classes with fields and types, list sizes, "
         "date ranges, active alerts, version. Read it before writing a query.", ManifestArgs, _manifest),
    Tool("history", "The user's versions, oldest first.", HistoryArgs, _history),
    Tool("diff", "What changed between two versions of the user's module (default: the current one against "
         "its parent), citing facts.", DiffArgs, _diff),
    Tool("checkpoint", "Compile the user's log into a new validated version (if anything changed), then run "
         "the constraints. Can take seconds; reports progress.", CheckpointArgs, _checkpoint, writes=True,
         long=True),
)
BY_NAME: Final[Mapping[str, Tool]] = {tool.name: tool for tool in TOOLS}

# Operations a service offers its own callers (the HTTP API) but not an agent: they withdraw or
# erase what is stored. Dispatched by the same `ToolBox` when it is given `ALL_TOOLS`.
SERVICE_TOOLS: Final[tuple[Tool, ...]] = (
    Tool("retract", "Withdraw one fact (a new fact records the retraction; nothing is erased).", RetractArgs,
         _retract, writes=True),
    Tool("forget", "Erase the user entirely: facts, versions, alert state, recall index.", ForgetArgs, _forget,
         writes=True),
    Tool("rollback", "Make an older version of the user's module current again.", RollbackArgs, _rollback,
         writes=True),
)
ALL_TOOLS: Final[Mapping[str, Tool]] = {tool.name: tool for tool in TOOLS + SERVICE_TOOLS}


def openai_tools() -> list[dict[str, Any]]:
    """The tools as OpenAI function-calling schemas (`tools=` of a chat completion)."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.input_schema()}} for t in TOOLS]


def _no_progress(message: str) -> None:
    pass


def _validation_line(tool: str, exc: ValidationError) -> str:
    """A validation error's first three problems, on one line:
    `query: expression: Field required; expr: Extra inputs are not permitted`."""
    return problems_line(tool, exc.errors(include_url=False))


def problems_line(tool: str, errors: Sequence[Mapping[str, Any]]) -> str:
    """Validation problems (pydantic's `errors()`), the first three on one line."""
    lines = [f"{'.'.join(str(part) for part in e['loc']) or 'arguments'}: {e['msg']}" for e in errors[:3]]
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return f"{tool}: {'; '.join(lines)}{more}"


RESOURCE_PREFIX: Final = "uac://users/"
RESOURCES: Final[Mapping[str, str]] = {
    "manifest": "The agent manifest of the user's current module (text).",
    "source": "The current module's source: every file of the package, each after a `# ==== NAME` line "
              "(cut, with a note saying what was left out, beyond the tool result limit).",
}


class ToolBox:
    """The dispatcher over one `Memory`; `users`: the scope (None: every user); `tools`: what it
    dispatches (the agent tools unless given, e.g. `ALL_TOOLS`)."""

    def __init__(self, mem: Memory, users: Sequence[str] | None = None, *, max_chars: int = MAX_TOOL_CHARS,
                 tools: Mapping[str, Tool] = BY_NAME) -> None:
        if users is not None:
            if not users:
                raise InputError("a scope needs at least one user")
            for name in users:
                check_user_id(name)
        self.mem = mem
        self.users: tuple[str, ...] | None = None if users is None else tuple(dict.fromkeys(users))
        self.max_chars = max_chars
        self.tools = tools

    def user_for(self, given: str | None) -> str:
        """The user a call acts for: `given`, checked against the scope, or the one user served."""
        if given is None:
            if self.users is not None and len(self.users) == 1:
                return self.users[0]
            served = "" if self.users is None else f" (served here: {', '.join(self.users)})"
            raise ToolError(f"name the user (argument `user`){served}")
        try:
            check_user_id(given)
        except InputError as exc:
            raise ToolError(str(exc)) from None
        if self.users is not None and given not in self.users:
            raise ToolError(f"user {given!r} is not served here (served: {', '.join(self.users)})")
        return given

    def call(self, name: str, arguments: Mapping[str, Any] | str | None = None,
             progress: Progress = _no_progress) -> Any:
        """Run tool `name` and return its JSON result as Python data; `ToolError` otherwise."""
        text = self.call_text(name, arguments, progress)
        return json.loads(text)

    def call_text(self, name: str, arguments: Mapping[str, Any] | str | None = None,
                  progress: Progress = _no_progress) -> str:
        """Run tool `name` and return its result as JSON text, at most `max_chars`."""
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError(f"unknown tool {name!r}; the tools: {', '.join(self.tools)}")
        try:
            if isinstance(arguments, str):
                args = tool.args.model_validate_json(arguments or "{}")
            else:
                args = tool.args.model_validate(dict(arguments or {}))
        except ValidationError as exc:
            raise ToolError(_validation_line(name, exc)) from None
        user = self.user_for(args.user)
        try:
            result = tool.handler(self.mem, user, args, progress)
            text = json.dumps(result, ensure_ascii=False, default=str)
        except NotFound as exc:
            raise ToolNotFound(f"{name}: {exc}") from None
        except UacError as exc:
            raise ToolError(f"{name}: {exc}") from None
        except Exception as exc:  # a bug, or the machine: one line, the server goes on
            raise ToolError(f"{name}: unexpected error: {type(exc).__name__}: {exc}") from None
        if len(text) > self.max_chars:
            over = too_large(f"{len(text):,} characters of JSON, over the tool limit of {self.max_chars:,}")
            raise ToolError(f"{name}: {over}")
        return text

    def call_json(self, name: str, arguments_json: str | None = None) -> str:
        """For a chat-completions loop: the result as JSON text, or `{"error": "..."}` (the
        model reads it and can correct its call); never raises for a bad call."""
        try:
            return self.call_text(name, arguments_json)
        except ToolError as exc:
            return json.dumps({"error": str(exc)}, ensure_ascii=False)

    # -- resources ---------------------------------------------------------------------

    def resource_users(self) -> list[str]:
        """Users whose resources are listed: the scope, or every user with a version."""
        names = list(self.users) if self.users is not None else self.mem.versions.users()
        return [n for n in names if self.mem.versions.current(n) is not None]

    def read_resource(self, uri: str) -> str:
        """`uac://users/USER/manifest` or `uac://users/USER/source`; scope-checked as tools are.
        The source is held to `max_chars` as a tool result is: an oversized one is cut with a
        note (`source_text`)."""
        rest = uri[len(RESOURCE_PREFIX):] if uri.startswith(RESOURCE_PREFIX) else ""
        user, _, what = rest.partition("/")
        if what not in RESOURCES or not user:
            raise ToolError(f"unknown resource {uri[:200]!r}; expected {RESOURCE_PREFIX}USER/manifest or .../source")
        user = self.user_for(user)
        try:
            if what == "manifest":
                return self.mem.agent_manifest(user).text
            self.mem.require_user(user)
            info = self.mem.versions.current(user)
            if info is None:
                raise InputError(f"user {user!r} has no published version yet: checkpoint first")
            files = self.mem.versions.files(user, info.number)
        except UacError as exc:
            raise ToolError(f"{uri}: {exc}") from None
        return source_text(files, self.max_chars)


CUT_RESERVE: Final = 1000  # room kept for the note: five names of at most 128 characters, and the counts
CUT_NOTE: Final = ("# ==== cut: {shown:,} of {total:,} characters shown (the limit is {limit:,}); "
                   "left out: {left}. Read the data with the `query` tool, its shape with `manifest`.\n")


def source_text(files: Mapping[str, str], limit: int) -> str:
    """A version's files, each after a `# ==== NAME` line, sorted by name, at most `limit`
    characters: whole files while they fit, then the next one cut at a line end, then a
    last `# ==== cut:` line saying how much was shown and which files were left out."""
    parts = [f"# ==== {name}\n{text}\n" for name, text in sorted(files.items())]
    total = sum(map(len, parts))
    if total <= limit:
        return "".join(parts)
    names = sorted(files)
    room = max(0, limit - CUT_RESERVE)
    kept: list[str] = []
    shown = 0
    left: list[str] = []
    for name, part in zip(names, parts):
        if left:
            left.append(name)
        elif shown + len(part) <= room:
            kept.append(part)
            shown += len(part)
        else:
            head = part[:room - shown]
            head = head[:head.rfind("\n") + 1]
            if head.count("\n") > 1:  # more than the `# ==== NAME` line
                kept.append(head)
                shown += len(head)
                left.append(f"the rest of {name}")
            else:
                left.append(name)
    listed = ", ".join(left[:5]) + (f" and {len(left) - 5} more file(s)" if len(left) > 5 else "")
    return "".join(kept) + CUT_NOTE.format(shown=shown, total=total, limit=limit, left=listed)

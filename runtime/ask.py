"""Questions answered by code (`uac ask USER QUESTION`, `Memory.ask`).

The loop agents use:

1. The model reads the user's agent manifest (`runtime.agent_context`: classes, fields,
   sizes, date ranges, alerts — never the records; up to `MANIFEST_CHARS`) and the question, and answers with
   ONE query expression as structured output (`ExpressionAnswer`: expression, answerable,
   reason).
2. The query sandbox runs it, once stripped of the fences or backticks models wrap code in
   (`Memory.query`: the forked worker, the same limits and the
   same refusals as `uac query`; nothing the model writes runs anywhere else).
3. A failure — refused by the sandbox, raised, over a budget, or a result too large to
   render — is fed back ONCE: the second request carries the first expression and the
   error, and the model writes a second expression, run the same way.
4. The answer says which facts it rests on (`RestsOn`): when the value is or holds records
   (within three levels of lists, tuples, sets and dict values), exactly the facts of
   those records (`basis="result"`); otherwise the facts of every record of the module's
   collections the expression names (`basis="collections"`, e.g. all trips for a sum over
   `trips`); `basis="none"` when it names none.
5. When code cannot answer (the model says `answerable: false`, or both expressions
   failed, or its answer was not valid structured output after the endpoint's re-ask),
   the answer carries recall context for the question instead (`Memory.recall`).

Every model call is counted (`codegen.llm.Usage`): tokens and seconds are in the answer.
A model that cannot be reached raises `ModelUnavailable` (one line); nothing is written
but the recall index (derived) when recall runs.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from codegen.llm import Endpoint, EndpointConfig, StructuredOutputError, Usage
from factlog.errors import InputError
from factlog.model import JsonValue
from factlog.vocabulary import PROVENANCE_FIELD
from runtime.citations import records_in
from runtime.render_value import printable, to_jsonable, to_text
from runtime.safe_eval import QueryFailure

if TYPE_CHECKING:
    from codegen.manifest import Manifest
    from runtime.memory import Memory
    from runtime.recall import RecallResult

MAX_QUESTION_CHARS = 2000
PURPOSE = "ask"
RECALL_ITEMS = 8
RECALL_CHARS = 2000
MANIFEST_CHARS = 4000  # the agent manifest in the prompt: twice an agent's, the prompt's main content

SYSTEM_PROMPT = """\
You answer questions about one user's memory by writing ONE Python expression. A sandbox \
evaluates it over the user's typed module; you see the module's shape (below), never its data.

The expression:
- is a single Python expression: no statements, imports, assignments or `;`; comprehensions, \
generator expressions, lambdas, conditional expressions and f-strings are fine;
- reads only the names the manifest lists (collections such as `trips`, singular values such as \
`passport`, which may be None) and the records' fields as attributes (`t.cost_usd`);
- may call: len, sum, min, max, sorted, list, tuple, set, frozenset, dict, any, all, enumerate, \
zip, range, round, str, int, float, abs, bool, reversed, Counter, statistics (mean, median, ...), \
date, datetime, time, timedelta, Decimal, and the ordinary methods of str, date and datetime values;
- must handle None: a field typed `X?` may be None (`sum(t.cost_usd for t in trips if t.cost_usd \
is not None)`);
- uses date values for dates (`t.departure_date.year == 2024`, `date(2024, 1, 1)`); today is \
`date.today()`.

Answer with JSON only: {"expression": "...", "answerable": true, "reason": "..."}. \
If nothing in the manifest can answer the question (e.g. it asks about something only free text \
could hold), answer {"expression": "", "answerable": false, "reason": "..."}. \
`reason`: one short sentence on what the expression computes or why it cannot."""

RETRY_PROMPT = """\
The sandbox could not use that expression: {error}
Write ONE corrected expression (same JSON answer), or answerable=false if the manifest cannot \
answer the question."""


class ExpressionAnswer(BaseModel):
    """What the model answers (structured output; unknown keys are refused)."""

    model_config = ConfigDict(extra="forbid")

    expression: str
    answerable: bool
    reason: str


@dataclass(frozen=True)
class Attempt:
    """One answer of the model and what the sandbox made of its expression."""

    expression: str
    answerable: bool
    reason: str
    error: str | None = None  # the sandbox's refusal or failure; None when it ran (or was not run)

    def to_json(self) -> dict[str, JsonValue]:
        return {"expression": printable(self.expression), "answerable": self.answerable,
                "reason": printable(self.reason), "error": self.error}


@dataclass(frozen=True)
class RestsOn:
    """The facts an answer rests on, and how they were found (see the module docstring)."""

    basis: Literal["result", "collections", "none"]
    fact_ids: tuple[int, ...]  # every one, ascending
    records: int  # the records behind them
    collections: tuple[str, ...] = ()  # for basis "collections": the names read

    def describe(self) -> str:
        if self.basis == "none":
            return "no records (the expression reads no collection)"
        facts = ", ".join(map(str, self.fact_ids[:30])) + (
            f", ... ({len(self.fact_ids)} in all)" if len(self.fact_ids) > 30 else "")
        facts = f"facts {facts}" if self.fact_ids else "no facts"
        if self.basis == "result":
            return f"{facts} (the {self.records} record(s) in the answer)"
        return f"{facts} (all {self.records} record(s) of {', '.join(self.collections)}, which the expression reads)"

    def to_json(self) -> dict[str, JsonValue]:
        return {"basis": self.basis, "fact_ids": list(self.fact_ids), "records": self.records,
                "collections": list(self.collections)}


@dataclass(frozen=True)
class AskResult:
    user: str
    question: str
    version: int
    answered: bool  # by code: `expression` ran and `value` is its value
    expression: str | None
    value: object
    value_text: str
    reason: str  # the model's reason for the expression that answered, or why code could not
    attempts: tuple[Attempt, ...]
    rests_on: RestsOn | None  # None when code did not answer
    recall: RecallResult | None  # context for what code could not answer
    model: str
    usage: dict[str, float] = field(default_factory=dict)  # prompt_tokens, completion_tokens, seconds, calls, ...

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "user": self.user, "question": printable(self.question), "version": self.version,
            "answered_by": "code" if self.answered else "recall",
            "expression": None if self.expression is None else printable(self.expression),
            "value": to_jsonable(self.value) if self.answered else None,
            "value_text": self.value_text if self.answered else None,
            "reason": printable(self.reason),
            "attempts": [a.to_json() for a in self.attempts],
            "rests_on": self.rests_on.to_json() if self.rests_on is not None else None,
            "recall": self.recall.to_json() if self.recall is not None else None,
            "model": {"name": self.model, **{k: (round(v, 4) if k == "seconds" else int(v))
                                             for k, v in self.usage.items()}},
        }

    def lines(self) -> list[str]:
        """For people: the answer (or the recall context), the expression, its facts, the cost."""
        usage = self.usage
        cost = (f"model {self.model}: {int(usage.get('calls', 0))} call(s), "
                f"{int(usage.get('prompt_tokens', 0))} prompt + {int(usage.get('completion_tokens', 0))} "
                f"completion tokens, {usage.get('seconds', 0.0):.2f} s")
        if self.answered and self.rests_on is not None:
            return [f"answer: {self.value_text}", f"expression: {printable(self.expression or '')}",
                    f"rests on: {self.rests_on.describe()}", cost]
        why = "; ".join(f"{printable(a.expression) or '(no expression)'}: {a.error}" for a in self.attempts if a.error)
        lines = [f"code could not answer: {printable(self.reason)}" + (f" ({why})" if why else "")]
        context = self.recall.context if self.recall is not None else ""
        lines += ["recall:", context or "(nothing found)", cost]
        return lines


def check_question(question: str) -> str:
    text = question.strip()
    if not text:
        raise InputError("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(f"the question is {len(text):,} characters (limit {MAX_QUESTION_CHARS:,})")
    return text


def _names(expression: str) -> set[str]:
    """The names an expression reads (as the query compiler parses it)."""
    try:
        tree = ast.parse(f"(\n{expression}\n)", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def rests_on(expression: str, value: object, manifest: Manifest) -> RestsOn:
    """The facts behind an answer: its records' when it holds records, else all records of
    the collections the expression names."""
    records = records_in(value)
    if records:
        ids: set[int] = set()
        for record in records:
            cited = getattr(record, PROVENANCE_FIELD, None)
            if isinstance(cited, list):
                ids.update(i for i in cited if isinstance(i, int))
        return RestsOn("result", tuple(sorted(ids)), len(records))
    read = sorted(name for name in _names(expression) if name in manifest.collections)
    if not read:
        return RestsOn("none", (), 0)
    ids = set()
    count = 0
    for name in read:
        for record in manifest.collections[name].records:
            ids.update(record.fact_ids)
            count += 1
    return RestsOn("collections", tuple(sorted(ids)), count, tuple(read))


_FENCE = re.compile(r"\A```[A-Za-z]*\n?(.*?)\n?```\Z", re.DOTALL)


def bare_expression(text: str) -> str:
    """The expression without the wrapping models add: surrounding whitespace, one ```
    fence (with or without a language) or one pair of backticks."""
    expression = text.strip()
    fenced = _FENCE.match(expression)
    if fenced:
        return fenced.group(1).strip()
    if len(expression) > 2 and expression[0] == expression[-1] == "`" and "`" not in expression[1:-1]:
        return expression[1:-1].strip()
    return expression


def _answer_json(answer: ExpressionAnswer) -> str:
    return json.dumps(answer.model_dump(), ensure_ascii=False)


def ask(mem: Memory, user: str, question: str, *, model: str | None = None, base_url: str | None = None,
        api_key: str | None = None) -> AskResult:
    """See the module docstring. Refuses (InputError / NotFound, one line) a bad question, an
    unknown user, a user with no version, and a missing model configuration before any
    request is made."""
    text = check_question(question)
    mem.require_user(user)
    from runtime.settings import load_settings

    config = EndpointConfig.resolve(base_url=base_url, api_key=api_key, model=model,
                                    settings=load_settings(mem.workspace.home).llm)
    context = mem.agent_manifest(user, limit=MANIFEST_CHARS)
    info = mem.modules.info(user, context.version)
    manifest = mem.manifest_of(info)
    endpoint = Endpoint(config, Usage())
    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": f"The user's module:\n{context.text}\n\nQuestion: {text}"}]
    attempts: list[Attempt] = []
    reason = ""
    for round_ in range(2):
        try:
            answer = endpoint.complete_json(messages, ExpressionAnswer, purpose=PURPOSE)
        except StructuredOutputError as invalid:
            reason = f"the model's answer was not a valid expression answer: {invalid.errors[:300]}"
            break
        reason = answer.reason
        if not answer.answerable:
            attempts.append(Attempt(answer.expression, False, answer.reason))
            break
        expression = bare_expression(answer.expression)
        result = mem.query(user, expression, info.number)
        error: str | None = None
        if isinstance(result, QueryFailure):
            error = result.describe()
        else:
            try:  # rendering and citing spend the result budgets too
                value_text = to_text(result.value)
                to_jsonable(result.value)
                basis = rests_on(expression, result.value, manifest)
            except InputError as refused:
                error = str(refused)
        attempts.append(Attempt(expression, True, answer.reason, error))
        if error is None and not isinstance(result, QueryFailure):
            return AskResult(user, text, info.number, True, expression, result.value, value_text,
                             answer.reason, tuple(attempts), basis, None, config.model, endpoint.usage.totals())
        if round_ == 0:
            messages += [{"role": "assistant", "content": _answer_json(answer)},
                         {"role": "user", "content": RETRY_PROMPT.format(error=error)}]
        else:
            reason = f"both expressions failed; the last: {error}"
    found = mem.recall(user, text, max_items=RECALL_ITEMS, max_chars=RECALL_CHARS)
    return AskResult(user, text, info.number, False, None, None, "", reason, tuple(attempts), None, found,
                     config.model, endpoint.usage.totals())

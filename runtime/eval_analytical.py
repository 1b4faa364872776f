"""`uac eval analytical`: aggregate questions over structured records, scored exactly.

Per case (docs/EVAL.md): a fresh user in a throwaway workspace; the case's records
appended as structured facts of its `kind` (through the door's checks, one transaction);
a checkpoint with the run's producer; then the answer: the case's `expression` run in the
query sandbox (a `QueryWorker`, the same guards, limits and forked child as `uac query`)
over the module's public names plus `records`, bound to the kind's collection; or, with
`--ask` and no expression, `uac ask` (a model writes the expression). The value is scored
by `runtime.eval_score`.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from factlog.errors import InputError
from factlog.kinds import normalize_kind
from factlog.model import JsonValue
from runtime.eval_cases import AnalyticalCase, CaseError, analytical_case
from runtime.eval_report import CaseRow, group_rates, rate
from runtime.eval_run import EvalOptions, case_memory, case_user
from runtime.eval_score import score
from runtime.render_value import to_jsonable

RECORDS_NAME = "records"
SHOWN_VALUE = 300  # characters of a wrong answer kept in the report


def run_analytical_case(index: int, item: object, root: str, options: EvalOptions) -> CaseRow:
    started = perf_counter()
    case = analytical_case(item)
    extra: dict[str, JsonValue] = {"type": case.type, "n": case.n if case.n is not None else len(case.records),
                                   "answer_kind": case.answer_kind}
    if case.expression is None and not options.ask:
        raise CaseError("no 'expression' in the case; --ask lets a model write one")
    user = case_user(index)
    with case_memory(root, index) as mem:
        from codegen.producer import producer_named
        from factlog.records import structured_fact
        from users.checkpoint import Failed

        try:
            facts = [structured_fact(case.kind, record) for record in case.records]
        except (InputError, ValueError) as exc:
            raise CaseError(f"record not accepted: {exc}") from None
        if facts:
            mem.facts.append(user, facts)
        else:
            mem.add(user, "no records")  # a user must exist to be compiled
        producer = producer_named(options.producer) if options.producer else None
        result = mem.checkpoint(user, producer)
        if isinstance(result, Failed):
            return _row(case, "fail", f"checkpoint failed: {result.message}", started, extra)
        tokens: int | None = None
        if case.expression is not None:
            expression = case.expression
            found, value, detail = _evaluate(mem, user, case, expression)
        else:
            answer = mem.ask(user, case.question, model=options.model, base_url=options.base_url)
            tokens = int(answer.usage.get("prompt_tokens", 0) + answer.usage.get("completion_tokens", 0))
            expression = answer.expression or ""
            found, value = answer.answered, answer.value
            detail = "" if answer.answered else f"the model did not answer by code: {answer.reason}"
        extra["expression"] = expression
    if not found:
        return _row(case, "fail", detail, started, extra, tokens)
    if score(case.answer_kind, value, case.gold):
        return _row(case, "pass", "", started, extra, tokens)
    shown = _shown(value)
    extra["value"] = shown
    return _row(case, "fail", f"answered {shown}, expected {_shown(case.gold)}", started, extra, tokens)


def _evaluate(mem: Any, user: str, case: AnalyticalCase, expression: str) -> tuple[bool, object, str]:
    """(answered, value, why not) of `expression` over the module with `records` bound."""
    from codegen.naming import kind_names
    from runtime.query_worker import QueryWorker
    from runtime.safe_eval import QueryFailure
    from runtime.versions_service import module_namespace

    namespace = module_namespace(mem.module(user))
    kind = normalize_kind(case.kind)
    attribute = kind_names([kind])[kind].attribute
    held = namespace.get(attribute)
    records = held if isinstance(held, list) else [] if held is None else [held]
    with QueryWorker({**namespace, RECORDS_NAME: records}) as worker:
        result = worker.run(expression)
    if isinstance(result, QueryFailure):
        return False, None, f"expression failed: {result.describe()}"
    return True, result.value, ""


def _shown(value: object) -> str:
    try:
        import json

        text = json.dumps(to_jsonable(value), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN_VALUE else text[:SHOWN_VALUE - 3] + "..."


def _row(case: AnalyticalCase, status: str, detail: str, started: float, extra: dict[str, JsonValue],
         tokens: int | None = None) -> CaseRow:
    return CaseRow(case.case_id, status, detail, perf_counter() - started, tokens, extra)  # type: ignore[arg-type]


def summary(rows: list[CaseRow]) -> dict[str, Any]:
    """Accuracy overall, per type and per n; errors counted apart (an error is not a pass)."""
    passed = sum(1 for row in rows if row.status == "pass")
    tokens = [row.tokens for row in rows if row.tokens is not None]
    return {"cases": len(rows), "passed": passed, "failed": sum(1 for row in rows if row.status == "fail"),
            "errors": sum(1 for row in rows if row.status == "error"), "accuracy": rate(passed, len(rows)),
            "by_type": group_rates(rows, "type"), "by_n": group_rates(rows, "n"),
            "tokens": sum(tokens) if tokens else None,
            "seconds_per_case": round(sum(row.seconds for row in rows) / len(rows), 3) if rows else 0.0}

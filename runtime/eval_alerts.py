"""`uac eval alerts`: multi-session scenarios, run session by session, alerts checked.

A scenario (docs/EVAL.md; the conversation sets of `benchmarks/evals/`) is replayed in a
fresh user: its sessions in time order, each ingested (messages through the offline
extractor, or the model with `--llm-extract`; `facts` appended as structured facts citing
the session), then a checkpoint with the run's producer, then every constraint at the
session's timestamp. An expectation is met by an active alert whose message holds, for
every concept group, one of its alternatives (case-insensitive), and whose constraint and
severity are the expected ones when given.

- A scenario passes when every expectation is met at its trigger session (default: the
  last) and no alert meeting one was active at an earlier session (an early alert).
- A negative scenario passes when no alert at all is active after any of its sessions.
Alerts meeting no expectation are counted as false alerts (a negative's fail; on a
positive scenario, reported only).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from time import perf_counter
from typing import Any

from factlog.model import JsonValue, NewFact
from factlog.timeparse import try_datetime
from runtime.eval_cases import CaseError
from runtime.eval_labels import Extraction, Label, TypedFact, entity_states, field_misses, kind_of
from runtime.eval_report import CaseRow, group_rates, rate
from runtime.eval_run import EvalOptions, case_memory, case_user

SPLITS = ("dev", "test", "all")


@dataclass(frozen=True)
class Expected:
    constraint: str | None
    severity: str | None
    concepts: tuple[tuple[str, ...], ...]

    def met_by(self, alert: Mapping[str, Any]) -> bool:
        if self.constraint is not None and alert["constraint"] != self.constraint:
            return False
        if self.severity is not None and alert["severity"] != self.severity:
            return False
        message = str(alert["message"]).casefold()
        return all(any(word.casefold() in message for word in group) for group in self.concepts)

    def describe(self) -> str:
        groups = " & ".join("/".join(group) for group in self.concepts)
        return f"{self.constraint or 'any constraint'}: {groups}"


@dataclass(frozen=True)
class SessionSpec:
    session_id: str
    timestamp: datetime
    raw: Mapping[str, Any]


@dataclass(frozen=True)
class Scenario:
    id: str
    category: str
    split: str | None
    negative: bool
    sessions: tuple[SessionSpec, ...]
    trigger: str
    expected: tuple[Expected, ...]
    labels: tuple[Label, ...] | None


def _text_list(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise CaseError(f"{where} must be a non-empty list of non-empty strings")
    return tuple(value)


def scenario(item: object) -> Scenario:
    """A scenario of the format, or CaseError naming its first problem."""
    if not isinstance(item, Mapping):
        raise CaseError(f"a scenario must be an object, not {type(item).__name__}")
    ident = item.get("id")
    if not isinstance(ident, str) or not ident.strip():
        raise CaseError("'id' must be a non-empty string")
    raw_sessions = item.get("sessions")
    if not isinstance(raw_sessions, list) or not raw_sessions:
        raise CaseError("'sessions' must be a non-empty list")
    sessions: list[SessionSpec] = []
    for position, raw in enumerate(raw_sessions):
        if not isinstance(raw, Mapping):
            raise CaseError(f"session {position + 1} must be an object")
        sid = raw.get("session_id")
        if not isinstance(sid, str) or not sid.strip():
            raise CaseError(f"session {position + 1}: 'session_id' must be a non-empty string")
        stamp = raw.get("timestamp")
        moment = try_datetime(stamp) if isinstance(stamp, str) else None
        if moment is None:
            raise CaseError(f"session {sid!r}: 'timestamp' must be an ISO date-time")
        given = [key for key in ("messages", "conversation", "facts") if key in raw]
        if len(given) != 1:
            raise CaseError(f"session {sid!r}: needs exactly one of 'messages', 'conversation', 'facts'")
        sessions.append(SessionSpec(sid, moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc), raw))
    ids = [s.session_id for s in sessions]
    if len(set(ids)) != len(ids):
        raise CaseError("session ids repeat")
    sessions.sort(key=lambda s: s.timestamp)  # stable: equal times keep the file's order
    negative = item.get("negative", False)
    if not isinstance(negative, bool):
        raise CaseError("'negative' must be true or false")
    trigger = item.get("trigger_session", sessions[-1].session_id)
    if trigger not in ids:
        raise CaseError(f"'trigger_session' {trigger!r} is none of the sessions")
    expected = tuple(_expected(e, i) for i, e in enumerate(_list(item.get("expected", []), "'expected'")))
    if not negative and not expected:
        raise CaseError("a scenario that is not negative needs 'expected' alerts")
    if negative and expected:
        raise CaseError("a negative scenario expects no alerts ('expected' must be empty)")
    labels = None if "labels" not in item else tuple(
        _label(label, i, ids) for i, label in enumerate(_list(item["labels"], "'labels'")))
    category = item.get("category")
    if category is None:
        category = ident.split("-", 1)[0]
    if not isinstance(category, str):
        raise CaseError("'category' must be a string")
    split = item.get("split")
    if split is not None and split not in ("dev", "test"):
        raise CaseError(f"'split' must be 'dev' or 'test', not {split!r}")
    return Scenario(ident, category, split, negative, tuple(sessions), str(trigger), expected, labels)


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise CaseError(f"{where} must be a list")
    return value


def _expected(value: object, index: int) -> Expected:
    where = f"expected[{index}]"
    if not isinstance(value, Mapping):
        raise CaseError(f"{where} must be an object")
    constraint, severity = value.get("constraint"), value.get("severity")
    if constraint is not None and not isinstance(constraint, str):
        raise CaseError(f"{where}.constraint must be a string")
    if severity is not None and severity not in ("critical", "warning", "info"):
        raise CaseError(f"{where}.severity must be critical, warning or info")
    groups = _list(value.get("concepts"), f"{where}.concepts")
    if not groups:
        raise CaseError(f"{where}.concepts must not be empty")
    return Expected(constraint, severity, tuple(_text_list(g, f"{where}.concepts[{i}]") for i, g in enumerate(groups)))


def _label(value: object, index: int, sessions: list[str]) -> Label:
    where = f"labels[{index}]"
    if not isinstance(value, Mapping):
        raise CaseError(f"{where} must be an object")
    kind, fields, sid = value.get("kind"), value.get("fields", {}), value.get("session_id")
    if not isinstance(kind, str) or not kind.strip():
        raise CaseError(f"{where}.kind must be a non-empty string")
    if not isinstance(fields, Mapping):
        raise CaseError(f"{where}.fields must be an object")
    if sid not in sessions:
        raise CaseError(f"{where}.session_id {sid!r} is none of the sessions")
    subject = value.get("subject")
    if subject is not None and not isinstance(subject, str):
        raise CaseError(f"{where}.subject must be a string")
    return Label(str(sid), kind_of(kind), dict(fields), subject)


# -- running ------------------------------------------------------------------------------


def run_alerts_case(index: int, item: object, root: str, options: EvalOptions) -> CaseRow:
    started = perf_counter()
    case = scenario(item)
    user = case_user(index)
    extra: dict[str, JsonValue] = {"category": case.category, "split": case.split, "negative": case.negative}
    typed: list[TypedFact] = []
    tokens: int | None = None
    active_by_session: list[tuple[str, list[dict[str, Any]]]] = []
    problems: list[str] = []
    with case_memory(root, index) as mem:
        from codegen.producer import producer_named
        from users.checkpoint import Failed

        producer = producer_named(options.producer) if options.producer else None
        for spec in case.sessions:
            stored, used = _ingest(mem, user, spec, mem.workspace.home / "sessions", options)
            if used is not None:
                tokens = (tokens or 0) + used
            typed += [TypedFact(f.provenance.session_id, kind_of(f.kind), dict(f.fields or {}), f.key)
                      for f in stored if f.kind is not None]
            result = mem.checkpoint(user, producer)
            if isinstance(result, Failed):
                problems.append(f"checkpoint after {spec.session_id} failed: {result.message}")
                break
            diff = mem.alerts(user, spec.timestamp)
            problems += [f"constraint {e.constraint} failed: {e.error}" for e in diff.errors]
            active = [{"id": a.id, "constraint": a.constraint, "severity": a.severity, "message": a.message}
                      for a in (*diff.raised, *diff.escalated, *diff.still_active)]
            active_by_session.append((spec.session_id, active))
    status, detail, counts = judge(case, active_by_session)
    extra.update(counts)
    if problems:
        status, detail = "fail", "; ".join(problems + ([detail] if detail else []))
    if case.labels is not None:
        extraction = Extraction()
        states = entity_states(typed)
        missed, missed_entity = extraction.add_scenario(states, list(case.labels))
        extra["extraction"] = extraction.raw()  # type: ignore[assignment]
        extra["field_misses"] = field_misses(states, list(case.labels))  # type: ignore[assignment]
        for key, labels in (("missed_labels", missed), ("missed_labels_entity", missed_entity)):
            if labels:
                extra[key] = [{"session_id": m.session_id, "kind": m.kind, "fields": dict(m.fields)} for m in labels]
    return CaseRow(case.id, status, detail, perf_counter() - started, tokens, extra)  # type: ignore[arg-type]


def _ingest(mem: Any, user: str, spec: SessionSpec, folder: Path, options: EvalOptions) -> tuple[list[Any], int | None]:
    """Store one session; (the facts stored, the model's tokens or None)."""
    from factlog.errors import InputError
    from factlog.model import Provenance

    raw = spec.raw
    if "facts" in raw:
        items = raw["facts"]
        if not isinstance(items, list):
            raise CaseError(f"session {spec.session_id!r}: 'facts' must be a list")
        stamp = raw["timestamp"]
        made = []
        for position, fact in enumerate(items):
            try:
                new = _session_fact(fact)
            except (InputError, ValueError) as exc:
                raise CaseError(f"session {spec.session_id!r}, fact {position + 1}: {exc}") from None
            from dataclasses import replace

            made.append(replace(new, provenance=Provenance(spec.session_id, position, "user", stamp)))
        return (mem.facts.append(user, made) if made else []), None
    messages = raw.get("messages", raw.get("conversation"))
    session = {"session_id": spec.session_id, "timestamp": raw["timestamp"], "messages": messages}
    if "metadata" in raw:
        session["metadata"] = raw["metadata"]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"session-{len(list(folder.glob('session-*.json'))):03d}.json"
    path.write_text(json.dumps({"sessions": [session]}, ensure_ascii=False), encoding="utf-8")
    try:
        report = mem.ingest_transcript(user, path, llm=options.llm_extract, model=options.model,
                                       base_url=options.base_url)
    except InputError as exc:
        raise CaseError(f"session {spec.session_id!r}: {exc}") from None
    used = None
    if report.extraction is not None:
        usage = report.extraction.usage
        used = int(usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0))
    return list(report.facts), used


def _session_fact(fact: object) -> NewFact:
    """A session's fact: `{"kind", "fields", "key"?, "text"?}` structured, `{"text"}` free text."""
    from factlog.errors import InputError
    from factlog.records import structured_fact

    if not isinstance(fact, Mapping):
        raise InputError("a fact must be an object")
    kind, fields, text, key = fact.get("kind"), fact.get("fields", {}), fact.get("text"), fact.get("key")
    if text is not None and not isinstance(text, str):
        raise InputError("'text' must be a string")
    if kind is None:
        if not text or fields or key is not None:
            raise InputError("a fact without a 'kind' is free text: give only 'text'")
        return NewFact(text=text)
    if not isinstance(kind, str) or not isinstance(fields, Mapping) or (key is not None and not isinstance(key, str)):
        raise InputError("needs a 'kind' (string), 'fields' (object) and optionally 'key' (string)")
    return structured_fact(kind, dict(fields), text=text, key=key)


def judge(case: Scenario, active_by_session: list[tuple[str, list[dict[str, Any]]]]
          ) -> tuple[str, str, dict[str, JsonValue]]:
    """(status, detail, counts) by the rules of the module docstring."""
    false_ids: dict[str, str] = {}
    early: dict[str, str] = {}
    at_trigger: list[dict[str, Any]] | None = None
    reached_trigger = False
    for session_id, active in active_by_session:
        for alert in active:
            if not any(e.met_by(alert) for e in case.expected):
                false_ids.setdefault(alert["id"], alert["message"])
            elif not reached_trigger and session_id != case.trigger:
                early.setdefault(alert["id"], f"{session_id}: {alert['message']}")
        if session_id == case.trigger:
            at_trigger, reached_trigger = active, True
    counts: dict[str, JsonValue] = {"early_alerts": len(early), "false_alerts": len(false_ids)}
    if false_ids:
        counts["false_alert_messages"] = sorted(false_ids.values())[:10]  # type: ignore[assignment]
    if case.negative:
        if false_ids:
            return "fail", "fired on a negative: " + "; ".join(sorted(false_ids.values())[:3]), counts
        return "pass", "", counts
    if at_trigger is None:
        return "fail", f"the run stopped before the trigger session {case.trigger}", counts
    missing = [e.describe() for e in case.expected if not any(e.met_by(alert) for alert in at_trigger)]
    reasons = []
    if missing:
        reasons.append(f"not active at {case.trigger}: " + "; ".join(missing))
    if early:
        reasons.append("early: " + "; ".join(sorted(early.values())[:3]))
    return ("fail" if reasons else "pass"), " | ".join(reasons), counts


def summary(rows: list[CaseRow]) -> dict[str, Any]:
    passed = sum(1 for row in rows if row.status == "pass")
    extraction = Extraction()
    for row in rows:
        raw = row.extra.get("extraction")
        if isinstance(raw, dict):
            extraction.merge(raw)  # type: ignore[arg-type]
    negatives = [row for row in rows if row.extra.get("negative") is True]
    return {"scenarios": len(rows), "passed": passed, "failed": sum(1 for row in rows if row.status == "fail"),
            "errors": sum(1 for row in rows if row.status == "error"), "pass_rate": rate(passed, len(rows)),
            "early_alerts": sum(_int(row.extra.get("early_alerts")) for row in rows),
            "false_alerts": sum(_int(row.extra.get("false_alerts")) for row in rows),
            "false_alerts_on_negatives": sum(_int(row.extra.get("false_alerts")) for row in negatives),
            "by_category": group_rates(rows, "category"), "extraction": extraction.to_json(),
            "field_misses": _field_misses(rows),
            "seconds_per_scenario": round(sum(row.seconds for row in rows) / len(rows), 3) if rows else 0.0}


def _field_misses(rows: list[CaseRow]) -> dict[str, dict[str, int]]:
    """The rows' `field_misses` added up: kind -> reason -> count, most frequent first."""
    total: dict[str, dict[str, int]] = {}
    for row in rows:
        raw = row.extra.get("field_misses")
        for kind, reasons in (raw.items() if isinstance(raw, dict) else ()):
            for reason, count in (reasons.items() if isinstance(reasons, dict) else ()):
                if isinstance(reason, str) and isinstance(count, int):
                    mine = total.setdefault(str(kind), {})
                    mine[reason] = mine.get(reason, 0) + count
    return {kind: dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0])))
            for kind, reasons in sorted(total.items())}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0

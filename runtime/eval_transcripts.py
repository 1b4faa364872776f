"""`uac eval transcripts DIR`: the three-layer YAML cases, ingested offline and checked.

Per case file (`*.yaml`, `*.yml`, `*.json` in DIR, sorted): a fresh user; the transcript
ingested by the offline extractor (sessions in timestamp order, as `uac ingest`); a
checkpoint with the run's producer. The row reports the facts, the typed facts, the
records per collection, the notes, the validation outcome and the seconds; the case
passes when the checkpoint validated and published a version.

Without a model there is no judge: as a clearly labelled **proxy**, the row lists which
key terms of the rubric (`evaluation_criteria`, `expected_behavior`: identifier-like
tokens, dollar amounts and full dates that the transcript itself says) appear in the
context `uac recall` gives for `user_question`. The proxy does not decide the status.

With a model (`--llm`, `EvalOptions.judge`): the question is answered from memory and an LLM
judge scores the answer against the rubric (`runtime.eval_judge`); the case passes when it
validated and scored at least `PASS_SCORE`. A model that cannot be reached, or a judge whose
answer stays invalid after the one re-ask, makes that case an error row (the run goes on).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from time import perf_counter
from typing import Any

from codegen.llm import ModelUnavailable, StructuredOutputError
from factlog.errors import InputError
from factlog.model import Fact, JsonValue
from runtime.eval_cases import CaseError
from runtime.eval_judge import PASS_SCORE, Judged, answer_and_judge
from runtime.eval_report import CaseRow, rate
from runtime.eval_run import EvalOptions, case_memory, case_user

SUFFIXES = (".yaml", ".yml", ".json")
RECALL_ITEMS = 12
RECALL_CHARS = 4000
_TOKEN = re.compile(r"(?<![\w$.,:/-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w/:-])")
_DOLLARS = re.compile(r"\$\d{1,3}(?:,\d{3})*(?:\.\d+)?(?![\d,])")
_FULL_DATE = re.compile(r"\b([A-Z][a-z]+) (\d{1,2})(?:st|nd|rd|th)?, (\d{4})\b")


def case_files(folder: Path) -> list[Path]:
    """The case files of DIR; InputError (exit 2) for a missing folder or one holding none."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    found = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES and p.is_file())
    if not found:
        raise InputError(f"{folder}: no case files ({', '.join(SUFFIXES)})")
    return found


def _identifier_like(token: str) -> bool:
    digits = sum(c.isdigit() for c in token)
    letters = sum(c.isalpha() for c in token)
    if letters and digits:
        return not re.fullmatch(r"\d+[A-Za-z]{2,}", token)  # "512GB", "2nd" are not identifiers
    return digits >= 7


def rubric_terms(case: Mapping[str, Any], spoken: str) -> list[str]:
    """Key terms of the rubric the transcript says: identifiers, dollar amounts, full dates."""
    rubric = f"{case.get('evaluation_criteria') or ''}\n{case.get('expected_behavior') or ''}"
    terms = {t for t in _TOKEN.findall(rubric)
             if _identifier_like(t) and re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", spoken)}
    terms |= {a for a in _DOLLARS.findall(rubric) if a in spoken}
    for month, day, year in _FULL_DATE.findall(rubric):
        if re.search(rf"\b{month} {day}(?:st|nd|rd|th)?\b", spoken):
            terms.add(f"{month} {day}, {year}")
    return sorted(terms)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _present(term: str, context: str) -> bool:
    """A term in the recalled context: as written; an amount also without its `$` and commas;
    a date also as ISO."""
    text = context.casefold()
    if term.casefold() in text:
        return True
    if term.startswith("$"):  # an amount: the same number anywhere ("$2,199.00", "2199.0")
        try:
            wanted = float(term[1:].replace(",", ""))
        except ValueError:
            return False
        return any(float(number) == wanted for number in _NUMBER.findall(text.replace(",", "")))
    match = _FULL_DATE.fullmatch(term)
    if match:
        try:
            day = datetime.strptime(f"{match[1]} {match[2]} {match[3]}", "%B %d %Y").date()
        except ValueError:
            return False
        return day.isoformat() in text
    return False


def run_transcript_case(index: int, item: object, root: str, options: EvalOptions) -> CaseRow:
    import yaml

    from codegen.producer import producer_named
    from users.checkpoint import Failed, Published

    started = perf_counter()
    path = Path(str(item))
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CaseError(f"{path.name}: cannot read ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise CaseError(f"{path.name}: not a case (an object with 'conversation_histories')")
    label = str(data.get("test_id") or path.stem)
    user = case_user(index)
    extra: dict[str, JsonValue] = {"file": path.name, "category": str(data.get("category") or "")}
    with case_memory(root, index) as mem:
        ingested = mem.ingest_transcript(user, path)
        facts = ingested.facts
        extra["facts"] = len(facts)
        extra["typed_facts"] = sum(1 for f in facts if f.kind is not None)
        producer = producer_named(options.producer) if options.producer else None
        result = mem.checkpoint(user, producer)
        extra["validation"] = type(result).__name__.lower()
        extra["timings"] = {k: round(v, 3) for k, v in getattr(result, "timings", {}).items()}
        if isinstance(result, Failed):
            return CaseRow(label, "fail", f"checkpoint failed: {result.message}", perf_counter() - started, None,
                           extra)
        counts = mem.manifest(user).record_counts()
        extra["records"] = dict(sorted(counts.items()))
        extra["notes"] = counts.get("notes", 0)
        question = data.get("user_question")
        histories = data.get("conversation_histories") or []
        spoken = "\n".join(str(m.get("content", "")) for h in histories if isinstance(h, dict)
                           for m in h.get("messages") or [] if isinstance(m, dict))
        terms = rubric_terms(data, spoken)
        extra["rubric_terms_typed"] = typed_terms(terms, facts)
        judged: Judged | None = None
        if isinstance(question, str) and question.strip():
            recalled = mem.recall(user, question, max_items=RECALL_ITEMS, max_chars=RECALL_CHARS, max_ms=500)
            found = [t for t in terms if _present(t, recalled.context)]
            extra["proxy_rubric_terms"] = {"terms": len(terms), "in_recall": len(found),
                                           "missing": [t for t in terms if t not in found]}
            if options.judge:
                try:
                    judged = answer_and_judge(mem, user, question.strip(), criteria=_text(data, "evaluation_criteria"),
                                              expected=_text(data, "expected_behavior"), context=recalled.context,
                                              model=options.model, base_url=options.base_url)
                except (ModelUnavailable, StructuredOutputError) as exc:
                    return CaseRow(label, "error", f"model: {' '.join(str(exc).split())[:500]}",
                                   perf_counter() - started, None, extra)
                extra["judge"] = judged.to_json()
        elif options.judge:
            return CaseRow(label, "error", "no 'user_question' to answer and judge", perf_counter() - started, None,
                           extra)
    status = "pass" if isinstance(result, Published) or type(result).__name__ == "Unchanged" else "fail"
    detail = ""
    if judged is not None and status == "pass" and judged.score < PASS_SCORE:
        status, detail = "fail", f"judge: {judged.score:.2f} < {PASS_SCORE}: {' '.join(judged.reasons.split())[:300]}"
    return CaseRow(label, status, detail, perf_counter() - started,  # type: ignore[arg-type]
                   None if judged is None else judged.tokens, extra)


def _text(case: Mapping[str, Any], key: str) -> str:
    value = case.get(key)
    return value.strip() if isinstance(value, str) else ""


def typed_terms(terms: list[str], facts: Sequence[Fact]) -> dict[str, JsonValue]:
    """How many of the rubric's key terms the log holds as typed values: in the fields of a
    typed fact (`in_typed_facts`), or of any fact, notes' extracted values included
    (`in_fields`); the terms in no field are listed."""
    typed = "\n".join(json.dumps(f.fields, ensure_ascii=False, default=str) for f in facts if f.kind is not None)
    every = "\n".join(json.dumps(f.fields, ensure_ascii=False, default=str) for f in facts)
    in_fields = [t for t in terms if _present(t, every)]
    return {"terms": len(terms), "in_typed_facts": sum(1 for t in terms if _present(t, typed)),
            "in_fields": len(in_fields), "in_no_field": [t for t in terms if t not in in_fields]}


def summary(rows: list[CaseRow]) -> dict[str, Any]:
    validated = sum(1 for row in rows if row.extra.get("validation") in ("published", "unchanged"))
    terms = found = 0
    for row in rows:
        proxy = row.extra.get("proxy_rubric_terms")
        if isinstance(proxy, dict):
            terms += int(proxy["terms"])  # type: ignore[arg-type]
            found += int(proxy["in_recall"])  # type: ignore[arg-type]
    return {"cases": len(rows), "validated": validated, "passed": sum(1 for r in rows if r.status == "pass"),
            "errors": sum(1 for r in rows if r.status == "error"),
            "validated_rate": rate(validated, len(rows)),
            "facts": sum(_int(r.extra.get("facts")) for r in rows),
            "typed_facts": sum(_int(r.extra.get("typed_facts")) for r in rows),
            "notes": sum(_int(r.extra.get("notes")) for r in rows),
            "proxy_rubric_terms_in_recall": {"terms": terms, "found": found, "rate": rate(found, terms),
                                             "note": "a proxy without a judge: rubric key terms present in "
                                                     "the recalled context"},
            "rubric_terms_typed": _typed_summary(rows),
            **_judge_summary(rows),
            "seconds_per_case": round(sum(r.seconds for r in rows) / len(rows), 3) if rows else 0.0}


def _typed_summary(rows: list[CaseRow]) -> dict[str, int]:
    totals = {"terms": 0, "in_typed_facts": 0, "in_fields": 0}
    for row in rows:
        counts = row.extra.get("rubric_terms_typed")
        if isinstance(counts, dict):
            for name in totals:
                totals[name] += _int(counts.get(name))
    return totals


def _judge_summary(rows: list[CaseRow]) -> dict[str, Any]:
    """With `--llm`: the judged cases, their mean score, those at `PASS_SCORE` or above, and
    what the model calls cost (tokens and seconds, in all and per judged case)."""
    verdicts: list[dict[str, Any]] = [row.extra["judge"] for row in rows  # type: ignore[misc]
                                      if isinstance(row.extra.get("judge"), dict)]
    if not verdicts:
        return {}
    scores = [float(v["score"]) for v in verdicts]
    tokens = sum(_int(v.get("tokens")) for v in verdicts)
    seconds = sum(float(v.get("model_seconds") or 0.0) for v in verdicts)
    return {"judge": {"judged": len(verdicts), "mean_score": round(sum(scores) / len(scores), 3),
                      "at_pass_score": sum(1 for s in scores if s >= PASS_SCORE), "pass_score": PASS_SCORE,
                      "model_errors": sum(1 for r in rows if r.status == "error" and r.detail.startswith("model:")),
                      "tokens": tokens, "tokens_per_case": round(tokens / len(verdicts), 1),
                      "model_seconds": round(seconds, 3), "model_seconds_per_case": round(seconds / len(verdicts), 3)}}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0

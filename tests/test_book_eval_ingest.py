"""Ingest the 20 book evaluation transcripts offline and check that the values each case's
rubric asks about were captured in some fact's fields.

Expectations are read from each case's `evaluation_criteria` / `expected_behavior` text:
identifier-like tokens, dollar amounts and full dates that the rubric mentions *and* that
occur verbatim in the transcript (rubrics also cite computed totals nobody said).
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from factlog.extract import RuleExtractor
from factlog.ingest import ingest_transcript
from factlog.model import NewFact

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "book_eval_layer1"
CASES = sorted(DATA.glob("*.yaml")) if DATA.is_dir() else []
pytestmark = pytest.mark.skipif(not CASES, reason=f"book evaluation test data not found at {DATA}")

TOKEN = re.compile(r"(?<![\w$.,:/-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w/:-])")
DOLLARS = re.compile(r"\$\d{1,3}(?:,\d{3})*(?:\.\d+)?(?![\d,])")
FULL_DATE = re.compile(r"\b([A-Z][a-z]+) (\d{1,2})(?:st|nd|rd|th)?, (\d{4})\b")


def _identifier_like(token: str) -> bool:
    digits = sum(c.isdigit() for c in token)
    letters = sum(c.isalpha() for c in token)
    if letters and digits:
        return not re.fullmatch(r"\d+[A-Za-z]{2,}", token)  # "512GB", "2nd" are not identifiers
    return digits >= 7


def _expectations(case: dict[str, object], spoken: str) -> tuple[set[str], set[float], set[str]]:
    rubric = f"{case.get('evaluation_criteria') or ''}\n{case.get('expected_behavior') or ''}"
    ids = {t for t in TOKEN.findall(rubric) if _identifier_like(t) and re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", spoken)}
    said = set(DOLLARS.findall(spoken))
    amounts = {float(a[1:].replace(",", "")) for a in DOLLARS.findall(rubric) if a in said}
    dates = set()
    for month, day, year in FULL_DATE.findall(rubric):
        if re.search(rf"\b{month} {day}(?:st|nd|rd|th)?\b", spoken):  # said with or without the year
            dates.add(datetime.strptime(f"{month} {day} {year}", "%B %d %Y").date().isoformat())
    return ids, amounts, dates


def _found(facts: list[NewFact], name: str) -> set[object]:
    out: set[object] = set()
    for fact in facts:
        values = fact.fields.get(name)
        if isinstance(values, list):
            out.update(v for v in values if isinstance(v, (str, float)))
    return out


def _check(facts: list[NewFact], spoken: str, case: dict[str, object]) -> list[str]:
    ids, amounts, dates = _expectations(case, spoken)
    if "assistant" in {f.provenance.role for f in facts}:
        assert ids or amounts or dates, "every rubric names some value said in its transcript"
    missing = [f"identifier {i}" for i in ids - _found(facts, "identifiers") - _found(facts, "phones")]
    missing += [f"amount {a}" for a in amounts - _found(facts, "amounts_usd")]
    missing += [f"date {d}" for d in dates - _found(facts, "dates")]
    return missing


def _messages(case: dict[str, object], roles: tuple[str, ...]) -> str:
    histories = case["conversation_histories"]
    assert isinstance(histories, list)
    return "\n".join(m["content"] for h in histories for m in h["messages"] if m["role"] in roles)


def test_every_case_yields_facts_with_the_rubric_values(capsys: pytest.CaptureFixture[str]) -> None:
    extractor = RuleExtractor()
    rows = []
    problems: dict[str, list[str]] = {}
    started = time.perf_counter()
    for path in CASES:
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        t0 = time.perf_counter()
        user_facts = ingest_transcript(path, extractor, user_only=True)
        all_facts = ingest_transcript(path, extractor, user_only=False)
        elapsed = time.perf_counter() - t0
        assert user_facts, f"{path.name}: no facts"
        assert all(f.provenance.role == "user" for f in user_facts)
        missing = [f"user-only: {m}" for m in _check(user_facts, _messages(case, ("user",)), case)]
        missing += [f"all turns: {m}" for m in _check(all_facts, _messages(case, ("user", "assistant")), case)]
        if missing:
            problems[path.name] = missing
        structured = sum(1 for f in user_facts if f.kind is not None)
        rows.append(f"| {path.stem} | {len(user_facts)} | {structured} | {len(all_facts)} | {elapsed * 1000:.0f} ms |")
    total = time.perf_counter() - started
    with capsys.disabled():
        print("\n| case | facts (user only) | structured | facts (all turns) | time (both) |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))
        print(f"total extraction time for 20 cases x 2 modes: {total:.2f} s")
    assert not problems, problems

"""Recall: a code answer plus BM25 text, merged under three hard budget gates.

The gates follow seed 004: at most `max_items` items, at most `max_chars` characters of
context, and at most `max_ms` milliseconds (the search itself is interrupted past the
deadline; the clock is checked again before each item is added). Candidates are taken
greedily, MMR-style: relevance minus `REDUNDANCY_WEIGHT` times the item's greatest
similarity to an item already chosen; near-duplicates are skipped outright.

Relevance already prefers the higher layer (`runtime.recall_index`: current records above
facts, superseded facts below current ones). Each fact line says when it was said and, if a
later fact of the same entity restated it, which one: `fact 2026-10-14 (superseded by 27): ...`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Iterable, Literal, Mapping

from factlog.errors import InputError
from factlog.model import JsonValue
from runtime.citations import cite
from runtime.recall_index import Hit, RecallIndex, SearchTimeout, words
from runtime.render_value import printable, to_text
from runtime.safe_eval import QueryFailure, QueryResult

Source = Literal["code", "fact", "record"]
Gate = Literal["items", "chars", "time"]

REDUNDANCY_WEIGHT = 0.5
DUPLICATE_SIMILARITY = 0.8  # at or above this, a candidate is skipped, not just demoted
CANDIDATES_PER_ITEM = 5
MIN_KEPT_CHARS = 16  # a truncated item keeps at least this much of its text, or is dropped
ELLIPSIS = "…"
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class CodeAnswer:
    """The value of an expression over the user's module, from the safe query runtime."""

    expression: str
    value_text: str
    fact_ids: tuple[int, ...] = ()


def code_answer(expression: str, result: QueryResult, namespace: Mapping[str, object]) -> CodeAnswer:
    """The answer of `--expr`, cited; its rendering and citation walk spend the result budgets
    (`runtime.result_budget`): a failed or oversized answer raises InputError (one line)."""
    if isinstance(result, QueryFailure):
        raise InputError(f"--expr: {result.describe()}")
    cited = cite(expression, namespace, result.value)
    text = to_text(result.value)
    if cited.records > len(cited.fact_ids):
        text += f" (computed over {cited.records} records)"
    return CodeAnswer(printable(expression), text, cited.fact_ids)


@dataclass(frozen=True)
class RecallItem:
    """One line of context; `score` is relevance relative to the best candidate (code = 1).

    Facts carry `said` (ISO date) and `superseded_by` (a fact id, None while current)."""

    source: Source
    text: str
    fact_ids: tuple[int, ...]
    score: float
    said: str | None = None
    superseded_by: int | None = None

    def line(self) -> str:
        return self.prefix() + self.text + _citation(self.fact_ids)

    def prefix(self) -> str:
        """`fact 2026-10-14 (superseded by 27): `, `record: `, `code: `."""
        said = f" {self.said}" if self.said else ""
        stale = f" (superseded by {self.superseded_by})" if self.superseded_by is not None else ""
        return f"{self.source}{said}{stale}: "

    def to_json(self) -> dict[str, JsonValue]:
        return {"source": self.source, "text": self.text, "fact_ids": list(self.fact_ids),
                "score": round(self.score, 4), "said": self.said, "superseded_by": self.superseded_by}


@dataclass(frozen=True)
class RecallResult:
    items: list[RecallItem]
    context: str
    truncated_by: frozenset[Gate]
    elapsed_ms: float

    def to_json(self) -> dict[str, JsonValue]:
        gates: list[JsonValue] = [str(g) for g in sorted(self.truncated_by)]
        return {
            "items": [item.to_json() for item in self.items],
            "context": self.context,
            "truncated_by": gates,
            "elapsed_ms": round(self.elapsed_ms, 3),
        }


def _citation(fact_ids: tuple[int, ...]) -> str:
    return f" [facts {', '.join(map(str, fact_ids))}]" if fact_ids else ""


@dataclass
class _Budget:
    """Accumulates lines under the item and character gates."""

    max_items: int
    max_chars: int
    items: list[RecallItem] = field(default_factory=list)
    used: int = 0
    closed: bool = False  # set once an item had to be truncated: nothing goes after it
    gates: set[Gate] = field(default_factory=set)

    def full(self) -> bool:
        return self.closed or len(self.items) >= self.max_items or self.used >= self.max_chars

    def add(self, item: RecallItem) -> bool:
        """Add the item whole, or truncated if that fits; False if it had to be dropped."""
        room = self.max_chars - self.used - (1 if self.items else 0)
        line = item.line()
        if len(line) > room:
            self.gates.add("chars")
            keep = room - len(line) + len(item.text) - len(ELLIPSIS)
            if keep < MIN_KEPT_CHARS:
                return False
            item = replace(item, text=item.text[:keep] + ELLIPSIS)
            self.closed = True
        self.used += len(item.line()) + (1 if self.items else 0)
        self.items.append(item)
        return True


@dataclass
class _Candidate:
    hit: Hit
    text: str
    relevance: float
    tokens: frozenset[str]


def _similarity(c: _Candidate, chosen: _Candidate) -> float:
    """1 when c cites only facts `chosen` cites; else the Jaccard index of their word sets."""
    if c.hit.fact_ids and set(c.hit.fact_ids) <= set(chosen.hit.fact_ids):
        return 1.0
    union = c.tokens | chosen.tokens
    return len(c.tokens & chosen.tokens) / len(union) if union else 1.0


def _mmr(pool: list[_Candidate], chosen: list[_Candidate]) -> list[tuple[float, _Candidate]]:
    """The candidates that are no near-duplicate of a chosen one, with their MMR scores."""
    kept = []
    for c in pool:
        similarity = max((_similarity(c, s) for s in chosen), default=0.0)
        if similarity < DUPLICATE_SIMILARITY:
            kept.append((c.relevance - REDUNDANCY_WEIGHT * similarity, c))
    return kept


def _clean(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def recall(
    index: RecallIndex,
    user: str,
    question: str,
    *,
    code_answer: CodeAnswer | None = None,
    max_items: int = 8,
    max_chars: int = 2000,
    max_ms: float = 50,
    kinds: Iterable[str] | None = None,
    since: date | None = None,
    until: date | None = None,
    session: str | None = None,
) -> RecallResult:
    """What the user's memory says about `question`, within the three budgets."""
    start = time.monotonic()
    deadline = start + max_ms / 1000
    budget = _Budget(max(0, max_items), max(0, max_chars))
    chosen: list[_Candidate] = []
    if code_answer is not None and not budget.full():
        text = _clean(f"{code_answer.expression} = {code_answer.value_text}")
        code_item = RecallItem("code", text, tuple(code_answer.fact_ids), 1.0)
        if budget.add(code_item):
            # Facts the code answer used stay eligible as evidence: compare words only.
            chosen.append(_Candidate(Hit("fact", text, (), 1.0), text, 1.0, frozenset(words(text))))
    hits: list[Hit] = []
    if not budget.full():
        try:
            hits = index.search(user, question, kinds=kinds, since=since, until=until, session=session,
                                limit=max(max_items, 1) * CANDIDATES_PER_ITEM, deadline=deadline)
        except SearchTimeout:
            budget.gates.add("time")
    top = max((h.score for h in hits), default=1.0) or 1.0
    pool = [_Candidate(h, _clean(h.text), h.score / top, frozenset(words(h.text))) for h in hits]
    while pool and not budget.full():
        if time.monotonic() > deadline:
            budget.gates.add("time")
            break
        ranked = _mmr(pool, chosen)
        if not ranked:
            pool = []
            break
        _, best = max(ranked, key=lambda pair: pair[0])
        pool = [c for _, c in ranked if c is not best]
        hit = best.hit
        item = RecallItem(hit.source, best.text, hit.fact_ids, best.relevance, hit.said, hit.superseded_by)
        if budget.add(item):
            chosen.append(best)
    if len(budget.items) >= budget.max_items and _mmr(pool, chosen):
        budget.gates.add("items")
    return RecallResult(
        items=budget.items,
        context="\n".join(item.line() for item in budget.items),
        truncated_by=frozenset(budget.gates),
        elapsed_ms=(time.monotonic() - start) * 1000,
    )

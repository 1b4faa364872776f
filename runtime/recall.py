"""Recall: a code answer plus BM25 text, merged under three hard budget gates.

The gates follow seed 004: at most `max_items` items, at most `max_chars` characters of
context, and at most `max_ms` milliseconds (the search itself is interrupted past the
deadline; the clock is checked again before each item is added). Candidates are taken
greedily, MMR-style: relevance minus `REDUNDANCY_WEIGHT` times the item's greatest
similarity to an item already chosen; near-duplicates are skipped outright.

Relevance already prefers the higher layer (`runtime.recall_index`: current records above
facts, superseded facts below current ones). Each fact line says when it was said and, if a
later fact of the same entity restated it, which one: `fact 2026-10-14 (superseded by 27): ...`.

Questions that need many facts (`runtime.recall_question`): when the question names kinds,
the typed state of those kinds (`RecallIndex.typed`: the current records, else the current
typed facts) comes first, as the *typed answer*, taking at most `TYPED_SHARE` of the items;
the records that match the question's words lead it. When the question enumerates, the item
and character budgets widen (`recall_question.widened`; `widen=False` keeps them exact).

The context is grouped (`RecallResult.context`): the code answer, then the typed answer under
a `# typed: <attributes>` header, then the evidence in groups, the group of the most relevant
item first: the facts of one session under `# session <id>, <date> (<metadata>)`, records of
one module attribute, facts without a session. Within a group, the items of one entity (kind
and key; records: their attribute) stay together, best entity first. Headers count against
the character budget. Without sessions or a typed answer there are no headers and the order
is relevance order, as before grouping.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Iterable, Literal, Mapping

from factlog.errors import InputError
from factlog.model import JsonValue
from factlog.vocabulary import CANONICAL
from runtime.citations import cite
from runtime.recall_index import Hit, RecallIndex, SearchTimeout, printable_line, words
from runtime.recall_question import analyse, expansion, widened
from runtime.render_value import printable, to_text
from runtime.safe_eval import QueryFailure, QueryResult

Source = Literal["code", "fact", "record"]
Gate = Literal["items", "chars", "time"]

REDUNDANCY_WEIGHT = 0.5
DUPLICATE_SIMILARITY = 0.8  # at or above this, a candidate is skipped, not just demoted
CANDIDATES_PER_ITEM = 5
MIN_KEPT_CHARS = 16  # a truncated item keeps at least this much of its text, or is dropped
ELLIPSIS = "…"
TYPED_SHARE = 0.5  # the typed answer takes at most this share of the item budget (at least 1)
MAX_QUESTION_CHARS = 4096  # words past this are not searched (the index takes 32 words at most)
MAX_META_CHARS = 120  # a session header shows at most this much of the session's metadata
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
    session: str | None = None
    meta: str | None = None  # the session's metadata, rendered
    entity: str | None = None  # facts: entity identity or kind; records: module attribute
    typed: bool = False  # part of the typed answer

    def line(self) -> str:
        return self.prefix() + self.text + _citation(self.fact_ids)

    def prefix(self) -> str:
        """`fact 2026-10-14 (superseded by 27): `, `record: `, `code: `."""
        said = f" {self.said}" if self.said else ""
        stale = f" (superseded by {self.superseded_by})" if self.superseded_by is not None else ""
        return f"{self.source}{said}{stale}: "

    def to_json(self) -> dict[str, JsonValue]:
        return {"source": self.source, "text": self.text, "fact_ids": list(self.fact_ids),
                "score": round(self.score, 4), "said": self.said, "superseded_by": self.superseded_by,
                "session": self.session, "session_metadata": self.meta, "entity": self.entity,
                "typed": self.typed}

    def group(self) -> tuple[str, str]:
        """The group the item is shown in (module docstring)."""
        if self.source == "code":
            return ("code", "")
        if self.typed:
            return ("typed", "")
        if self.session is not None:
            return ("session", self.session)
        return (self.source, self.entity or "" if self.source == "record" else "")

    def header(self, attributes: str = "") -> str | None:
        """The header line of the item's group, None for groups without one."""
        kind, _ = self.group()
        if kind == "typed":
            return f"# typed: {attributes}" if attributes else "# typed"
        if kind != "session":
            return None
        said = f", {self.said}" if self.said else ""
        meta = self.meta or ""
        if len(meta) > MAX_META_CHARS:
            meta = meta[:MAX_META_CHARS] + ELLIPSIS
        return printable(printable_line(f"# session {self.session}{said}" + (f" ({meta})" if meta else "")))


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
    """Accumulates lines under the item and character gates; a group's header line is paid
    for by the item that opens the group."""

    max_items: int
    max_chars: int
    typed_title: str = ""
    items: list[RecallItem] = field(default_factory=list)
    headers: dict[tuple[str, str], str | None] = field(default_factory=dict)
    used: int = 0
    closed: bool = False  # set once an item had to be truncated: nothing goes after it
    gates: set[Gate] = field(default_factory=set)

    def full(self) -> bool:
        return self.closed or len(self.items) >= self.max_items or self.used >= self.max_chars

    def add(self, item: RecallItem) -> bool:
        """Add the item whole, or truncated if that fits; False if it had to be dropped."""
        group = item.group()
        header = self.headers[group] if group in self.headers else item.header(self.typed_title)
        opening = 0 if group in self.headers or header is None else len(header) + (1 if self.used else 0)
        room = self.max_chars - self.used - opening - (1 if self.used or opening else 0)
        line = item.line()
        if len(line) > room:
            self.gates.add("chars")
            keep = room - len(line) + len(item.text) - len(ELLIPSIS)
            if keep < MIN_KEPT_CHARS:
                return False
            item = replace(item, text=item.text[:keep] + ELLIPSIS)
            self.closed = True
        self.used += opening + len(item.line()) + (1 if self.used or opening else 0)
        self.headers.setdefault(group, header)
        self.items.append(item)
        return True

    def grouped(self) -> list[RecallItem]:
        """The items in shown order: code, typed answer, then groups by their best item,
        each group's entities by their best item (items are added best first)."""
        order = {("code", ""): -2, ("typed", ""): -1}
        groups: dict[tuple[str, str], list[RecallItem]] = {}
        for item in self.items:
            groups.setdefault(item.group(), []).append(item)
        shown: list[RecallItem] = []
        for key in sorted(groups, key=lambda g: order.get(g, 0)):  # stable: first added first
            entities: dict[str | None, list[RecallItem]] = {}
            for item in groups[key]:
                entities.setdefault(item.entity if key[0] == "session" else None, []).append(item)
            shown += [item for same in entities.values() for item in same]
        return shown

    def context(self) -> str:
        lines: list[str] = []
        seen: set[tuple[str, str]] = set()
        for item in self.grouped():
            group = item.group()
            header = self.headers.get(group)
            if group not in seen and header is not None:
                lines.append(header)
            seen.add(group)
            lines.append(item.line())
        return "\n".join(lines)


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
    widen: bool = True,
) -> RecallResult:
    """What the user's memory says about `question`, within the three budgets."""
    start = time.monotonic()
    deadline = start + max_ms / 1000
    asked = analyse(question)
    max_items, max_chars = max(0, max_items), max(0, max_chars)
    if widen and asked.enumerates:
        max_items, max_chars = widened(max_items, max_chars)
    # The typed answer: kinds the question names, within any --kind filter; none when the
    # caller narrowed to a time or session (the module's records have neither).
    allowed = None if kinds is None else set(kinds)
    typed_kinds = [k for k in asked.kinds if allowed is None or k in allowed]
    if since is not None or until is not None or session is not None:
        typed_kinds = []
    budget = _Budget(max_items, max_chars, ", ".join(CANONICAL[k].attribute for k in typed_kinds))
    chosen: list[_Candidate] = []
    if code_answer is not None and not budget.full():
        text = _clean(f"{code_answer.expression} = {code_answer.value_text}")
        code_item = RecallItem("code", text, tuple(code_answer.fact_ids), 1.0)
        if budget.add(code_item):
            # Facts the code answer used stay eligible as evidence: compare words only.
            chosen.append(_Candidate(Hit("fact", text, (), 1.0), text, 1.0, frozenset(words(text))))
    hits: list[Hit] = []
    typed: list[Hit] = []
    if not budget.full():
        try:
            query = " ".join([question[:MAX_QUESTION_CHARS], *expansion(asked.kinds)])
            hits = index.search(user, query, kinds=kinds, since=since, until=until, session=session,
                                limit=max(max_items, 1) * CANDIDATES_PER_ITEM, deadline=deadline)
        except SearchTimeout:
            budget.gates.add("time")
        if typed_kinds:
            typed = index.typed(user, typed_kinds, limit=max(1, int(max_items * TYPED_SHARE)))
    top = max((h.score for h in hits), default=1.0) or 1.0
    pool = [_Candidate(h, _clean(h.text), h.score / top, frozenset(words(h.text))) for h in hits]
    _typed_answer(budget, chosen, pool, typed)
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
        if budget.add(_item(best, best.relevance)):
            chosen.append(best)
    if len(budget.items) >= budget.max_items and _mmr(pool, chosen):
        budget.gates.add("items")
    return RecallResult(
        items=budget.grouped(),
        context=budget.context(),
        truncated_by=frozenset(budget.gates),
        elapsed_ms=(time.monotonic() - start) * 1000,
    )


def _item(c: _Candidate, score: float, typed: bool = False) -> RecallItem:
    hit = c.hit
    return RecallItem(hit.source, c.text, hit.fact_ids, score, hit.said, hit.superseded_by, hit.session,
                      hit.meta, hit.entity, typed)


def _typed_answer(budget: _Budget, chosen: list[_Candidate], pool: list[_Candidate], typed: list[Hit]) -> None:
    """Add the typed answer: the typed hits that also match the question first (in
    relevance order), then the rest in module order; they leave the evidence pool."""
    if not typed:
        return
    matching = {(c.hit.source, c.hit.fact_ids): c for c in pool}
    ordered = sorted(typed, key=lambda h: -matching[(h.source, h.fact_ids)].relevance
                     if (h.source, h.fact_ids) in matching else 0.0)
    for hit in ordered:
        if budget.full():
            break
        c = matching.get((hit.source, hit.fact_ids)) or _Candidate(hit, _clean(hit.text), 0.0,
                                                                  frozenset(words(hit.text)))
        if budget.add(_item(c, c.relevance, typed=True)):
            chosen.append(c)
    taken = {c.hit.fact_ids for c in chosen}
    pool[:] = [c for c in pool if c.hit.fact_ids not in taken]

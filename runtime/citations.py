"""Which facts a code answer rests on, so that recall can cite them.

A query that returns records cites those records' facts. A query that returns a plain value
(`passport.expiry_date`, a sum over `trips`) cites the records of the module names it read.
Citations are capped; `records` tells how many records stood behind them in all.

The walk is iterative and spends the result budget of `runtime.result_budget` (values, each
shared reference counted, and time): over the answer it raises `ResultTooLarge` when the
budget runs out; over the module's own lists it stops there and cites what it found.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, is_dataclass
from typing import Mapping

from factlog.vocabulary import PROVENANCE_FIELD
from runtime.result_budget import Budget, ResultTooLarge


@dataclass(frozen=True)
class Citation:
    fact_ids: tuple[int, ...]
    records: int  # records found behind the answer (may exceed what fact_ids shows)


def records_in(value: object, depth: int = 3, budget: Budget | None = None) -> list[object]:
    """Records in `value`: itself, or inside lists, tuples, sets and dict values (shallowly)."""
    found: list[object] = []
    _collect(value, depth, budget or Budget(), found)
    return found


def _collect(value: object, depth: int, budget: Budget, found: list[object],
             partial: bool = False) -> None:
    """Append the records in `value` to `found`; `partial`: stop at the budget, do not raise."""
    stack: list[tuple[object, int]] = [(value, depth)]
    while stack:
        item, left = stack.pop()
        budget.spend()
        if is_dataclass(item) and not isinstance(item, type):
            found.append(item)
        elif left > 0 and isinstance(item, (list, tuple, set, frozenset, dict)):
            parts = list(item.values()) if isinstance(item, dict) else list(item)
            if partial:
                parts = parts[:max(budget.left, 0)]
            budget.can_hold(len(parts))
            stack.extend((part, left - 1) for part in reversed(parts))


def cite(expression: str, namespace: Mapping[str, object], value: object, limit: int = 50) -> Citation:
    records = records_in(value)
    if not records:
        tree = ast.parse(f"(\n{expression}\n)", mode="eval")  # as the query compiler reads it
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        budget = Budget()
        try:
            for name in sorted(names):
                _collect(namespace.get(name), 1, budget, records, partial=True)
        except ResultTooLarge:
            pass  # the module's own records: cite those found so far
    ids: set[int] = set()
    for record in records:
        cited = getattr(record, PROVENANCE_FIELD, None)
        if isinstance(cited, list):
            ids.update(i for i in cited if isinstance(i, int))
    return Citation(tuple(sorted(ids)[:limit]), len(records))

"""Which facts a code answer rests on, so that recall can cite them.

A query that returns records cites those records' facts. A query that returns a plain value
(`passport.expiry_date`, a sum over `trips`) cites the records of the module names it read.
Citations are capped; `records` tells how many records stood behind them in all.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, is_dataclass
from typing import Mapping

from codegen.vocabulary import PROVENANCE_FIELD


@dataclass(frozen=True)
class Citation:
    fact_ids: tuple[int, ...]
    records: int  # records found behind the answer (may exceed what fact_ids shows)


def records_in(value: object, depth: int = 3) -> list[object]:
    """Records in `value`: itself, or inside lists, tuples, sets and dict values (shallowly)."""
    if is_dataclass(value) and not isinstance(value, type):
        return [value]
    if depth == 0:
        return []
    items: list[object] = []
    if isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            items += records_in(item, depth - 1)
    elif isinstance(value, dict):
        for item in value.values():
            items += records_in(item, depth - 1)
    return items


def cite(expression: str, namespace: Mapping[str, object], value: object, limit: int = 50) -> Citation:
    records = records_in(value)
    if not records:
        names = {n.id for n in ast.walk(ast.parse(expression.strip(), mode="eval")) if isinstance(n, ast.Name)}
        for name in sorted(names):
            records += records_in(namespace.get(name), depth=1)
    ids: set[int] = set()
    for record in records:
        cited = getattr(record, PROVENANCE_FIELD, None)
        if isinstance(cited, list):
            ids.update(i for i in cited if isinstance(i, int))
    return Citation(tuple(sorted(ids)[:limit]), len(records))

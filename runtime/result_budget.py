"""What a query result may be when it leaves the sandbox: the one owner of its budgets.

The trusted parent renders, serialises and walks (for citations) what a query returns, so
the result is measured against these limits before anything expands it: the child checks
its value before pickling it (where its resource limits apply) and the parent checks again
after unpickling (it never trusts the child). The walk is iterative and charges a value
reached twice as two values, so structure shared many times over (`["a" * 10**6] * 1000`,
`[[x] * 1000] * 1000`) counts at the size it prints at, and the walk stops as soon as a
budget is spent: it never does more work than the budget allows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sized
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum
from time import monotonic
from typing import Final, cast

from factlog.errors import InputError

MAX_RESULT_VALUES: Final = 100_000  # values walked; a shared one counts each time it is reached
MAX_RESULT_CHARS: Final = 1_000_000  # characters of text (strings, digits), expanded
MAX_RESULT_DEPTH: Final = 32  # containers and records nested in each other
MAX_INT_DIGITS: Final = 4_000  # digits of one integer (Python's own str() limit is 4,300)
MAX_WALK_S: Final = 3.0  # one walk (check, render, cite); a backstop: ~0.1 s per 100,000 values
HINT: Final = "narrow the query, e.g. len(...)"

_INT_LIMIT: Final = 10 ** MAX_INT_DIGITS
_TIME_CHECK_EVERY: Final = 1024
_SCALAR_CHARS: Final = 32  # a float, date, time, ... printed
_VIEWS: Final[tuple[type, ...]] = (type({}.keys()), type({}.values()), type({}.items()))
_FLAT: Final[frozenset[type]] = frozenset({float, bool, type(None), date, datetime, time, timedelta})
_SEQUENCES: Final[tuple[type, ...]] = (list, tuple, set, frozenset, *_VIEWS)


class ResultTooLarge(InputError):
    """A query result is over a budget: one line, starting `result too large:`."""


def too_large(what: str, hint: str = HINT) -> ResultTooLarge:
    return ResultTooLarge(f"result too large: {what}; {hint}")


class Budget:
    """Values and seconds one walk may spend; `ResultTooLarge` when either runs out."""

    def __init__(self, values: int = MAX_RESULT_VALUES, seconds: float = MAX_WALK_S) -> None:
        self.limit = values
        self.left = values
        self.seconds = seconds
        self.deadline = monotonic() + seconds
        self.calls = 0

    def spend(self, values: int = 1) -> None:
        self.left -= values
        if self.left < 0:
            raise too_large(f"over {self.limit:,} values")
        self.calls += 1
        if (values > 1 or self.calls % _TIME_CHECK_EVERY == 0) and monotonic() > self.deadline:
            raise too_large(f"walking it took over {self.seconds:g} s")

    def can_hold(self, values: int) -> None:
        """Refuse before queueing `values` more values that would not fit."""
        if values > self.left:
            raise too_large(f"over {self.limit:,} values")


def check_int(value: int) -> None:
    if value >= _INT_LIMIT or -value >= _INT_LIMIT:
        raise too_large(f"an integer with over {MAX_INT_DIGITS:,} digits",
                        "narrow the query, e.g. (...).bit_length()")


def check_result(value: object, budget: Budget | None = None) -> None:
    """Raise `ResultTooLarge` if `value`, fully expanded, is over any result budget.

    Walks level by level (no recursion, no per-value bookkeeping); common types take a
    fast path by exact type, everything else `_own_chars` and `_parts`."""
    budget = budget or Budget()
    chars = 0
    level: list[object] = [value]
    depth = 0
    while level:
        if depth > MAX_RESULT_DEPTH:
            raise too_large(f"nested over {MAX_RESULT_DEPTH} levels deep")
        budget.spend(len(level))
        below: list[object] = []
        for item in level:
            kind = type(item)
            if kind is str:
                chars += len(cast(str, item))
            elif kind is int:
                chars += _own_chars(item)
            elif kind in _FLAT:
                chars += _SCALAR_CHARS
            elif kind is list or kind is tuple:
                items = cast("list[object] | tuple[object, ...]", item)
                budget.can_hold(len(below) + len(items))
                below += items
            else:
                chars += _own_chars(item)
                parts = _parts(item, budget)
                budget.can_hold(len(below) + len(parts))
                below += parts
            if chars > MAX_RESULT_CHARS:
                raise too_large(f"over {MAX_RESULT_CHARS:,} characters")
        level = below
        depth += 1


def _own_chars(item: object) -> int:
    """Characters `item` prints itself (not counting its parts)."""
    if type(item) is int or (isinstance(item, int) and not isinstance(item, bool)):
        check_int(item)
        return item.bit_length() * 30103 // 100000 + 2
    if isinstance(item, Decimal):
        return len(item.as_tuple().digits) + 8
    if isinstance(item, (str, bytes)):
        return len(item)
    return _SCALAR_CHARS


def _parts(item: object, budget: Budget) -> list[object]:
    """The values `item` is made of, each reached once per reference."""
    if isinstance(item, (str, bytes, int, float)) or item is None:
        return []
    if isinstance(item, Enum):
        return [item.value]
    if isinstance(item, range):
        try:  # rendered value by value, never stored: charge, do not queue
            size = len(item)
        except OverflowError:
            size = budget.left + 1
        budget.can_hold(size)
        budget.spend(size)
        return []
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return [getattr(item, f.name) for f in dataclasses.fields(item)]
    if isinstance(item, Mapping):
        budget.can_hold(2 * len(item))
        return [*item.keys(), *item.values()]
    if isinstance(item, _SEQUENCES):
        budget.can_hold(len(cast("Sized", item)))
        return list(cast("Iterable[object]", item))
    return []

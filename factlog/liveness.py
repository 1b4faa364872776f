"""Which facts are live, and in what order an entity's facts apply: the one owner of both
rules (the compiler, the checkpoint's coverage check and recall all ask here).

- Liveness: a retraction (`retracts=N`) and the fact it names are both dead; every other
  fact is live. A retraction always withdraws its target, even when the retraction is
  itself retracted: to restore a fact, state it again.
- Update order: an entity's facts apply in order of effective date, then id. The
  effective date is `valid_from`, or the day the fact was recorded when there is none.
  A later fact *supersedes* an earlier one when it restates one of its fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from factlog.model import Fact
from factlog.timeparse import parse_date


def killed_by(fact: Fact) -> tuple[int, ...]:
    """The ids this fact makes dead: a retraction kills itself and its target; any other
    fact kills nothing."""
    return () if fact.retracts is None else (fact.retracts, fact.id)


def dead_ids(facts: Iterable[Fact]) -> set[int]:
    """Every retraction and every fact a retraction names (present or not)."""
    dead: set[int] = set()
    for fact in facts:
        if fact.retracts is not None:
            dead.add(fact.retracts)
            dead.add(fact.id)
    return dead


def live_ids(facts: Sequence[Fact]) -> set[int]:
    """The ids of the live facts among `facts`: all but retractions and what they retract."""
    dead = dead_ids(facts)
    return {f.id for f in facts if f.id not in dead}


def effective_date(fact: Fact) -> date:
    """`valid_from`, else the day the fact was recorded (`date.min` if that is unreadable)."""
    if fact.valid_from is not None:
        return fact.valid_from
    try:
        return parse_date(fact.recorded_at[:10])
    except ValueError:
        return date.min


def effective_day(fact: Fact) -> str:
    """The effective date as ISO text, for indexes that keep days as text: `valid_from`,
    else the date part of `recorded_at` (the same day as `effective_date` for any stored fact)."""
    return fact.valid_from.isoformat() if fact.valid_from is not None else fact.recorded_at[:10]


def update_order(fact: Fact) -> tuple[date, int]:
    """The sort key of an entity's facts: effective date, then id (later applies later)."""
    return effective_date(fact), fact.id


def superseders(facts: Iterable[tuple[str, int, Sequence[str]]]) -> dict[int, int]:
    """For the live facts of one entity as (effective date as ISO text, fact id, field
    names): fact id -> the latest later fact that restates one of its fields (or any later
    fact, if it names none). Later means later in the update order (ISO dates sort as text)."""
    latest_by_field: dict[str, tuple[str, int]] = {}
    latest: tuple[str, int] | None = None
    out: dict[int, int] = {}
    for day, fact_id, names in sorted(facts, reverse=True):
        later = [latest_by_field[n] for n in names if n in latest_by_field] if names else [latest] if latest else []
        if later:
            out[fact_id] = max(later)[1]
        for n in names:
            latest_by_field.setdefault(n, (day, fact_id))
        latest = latest or (day, fact_id)
    return out

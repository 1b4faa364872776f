"""Reading a user's log by position, and whether state derived from a prefix of it still
applies: the one rule every cache kept beside the log (the compiler's state, the
checkpoint's summary) asks.

A derived state records the position it read up to, the chain hash of the fact there
(its anchor), the store's forget epoch and its own format. It follows a log when all four
still hold: the same format and epoch, a position not past the log's head, and the fact
at that position unchanged. Anything else means: rebuild from the whole log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from factlog.model import Fact


class LogAccess(Protocol):
    """A user's log up to a fixed head, read by position or by id."""

    @property
    def head(self) -> int:
        """The last fact id of the log as read."""
        ...

    def after(self, position: int) -> Iterable[Fact]:
        """Facts with position < id <= head, in id order."""
        ...

    def get(self, fact_id: int) -> Fact | None:
        """One fact by id (None when the log has none)."""
        ...


def prefix_problem(meta: Mapping[str, str], log: LogAccess, *, format: str, epoch: str,
                   what: str = "state") -> str | None:
    """Why a state with `meta` (keys `format`, `epoch`, `position`, `anchor`) does not
    follow `log`, or None when it does."""
    if not meta:
        return f"no {what}"
    if meta.get("format") != format:
        return f"{what} of another format"
    if meta.get("epoch") != epoch:
        return "forget epoch changed"
    try:
        position = int(meta.get("position", "-1"))
    except ValueError:
        return f"{what} position unreadable"
    if position < 0 or position > log.head:
        return f"{what} ahead of the log"
    if position > 0:
        fact = log.get(position)
        if fact is None or fact.hash != meta.get("anchor"):
            return f"log does not continue the {what}"
    return None

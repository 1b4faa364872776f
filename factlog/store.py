"""The storage interface of the fact log.

The embedded default is `factlog.sqlite.SqliteFactStore`; a server database can implement
the same protocol later. Appends are all-or-nothing per call; nothing is ever updated in
place; `forget` is the only destructive operation and it erases a user entirely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol, Sequence

from factlog.model import Fact, NewFact


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of re-hashing a user's chain (or every user's)."""

    checked: int
    ok: bool
    user: str | None = None  # first user whose chain breaks
    fact_id: int | None = None  # first fact that does not match
    reason: str | None = None


class FactStore(Protocol):
    def append(self, user: str, facts: Sequence[NewFact]) -> list[Fact]:
        """Append in one transaction; ids continue the user's sequence with no gaps."""
        ...

    def facts(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        """The user's facts with after < id <= upto, in id order."""
        ...

    def get(self, user: str, fact_id: int) -> Fact:
        """One fact; raises NotFound."""
        ...

    def head(self, user: str) -> int:
        """The user's last fact id (0 when the user has none)."""
        ...

    def users(self) -> list[str]: ...

    def forget(self, user: str) -> int:
        """Erase the user and every trace of their text; returns how many facts went."""
        ...

    def verify(self, user: str | None = None) -> VerifyReport: ...

    def close(self) -> None: ...

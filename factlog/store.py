"""The storage interface of the fact log.

The embedded default is `factlog.sqlite.SqliteFactStore`; a server database can implement
the same protocol later. Appends are all-or-nothing per call; nothing is ever updated in
place; `forget` is the only destructive operation and it erases a user entirely. An id is
never given out twice: appends continue after the highest id the user ever had, even if
facts were deleted behind the store's back (which `verify` then reports).
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
        """Append in one transaction; ids continue after the user's high-water mark."""
        ...

    def facts(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        """The user's facts with after < id <= upto, in id order."""
        ...

    def get(self, user: str, fact_id: int) -> Fact:
        """One fact; raises NotFound."""
        ...

    def head(self, user: str) -> int:
        """The user's last stored fact id (0 when the user has none)."""
        ...

    def high_water(self, user: str) -> int:
        """The highest id the user's log ever gave out; deletes cannot lower it."""
        ...

    def knows(self, user: str) -> bool:
        """Whether the log holds, or held and did not forget, facts of `user`."""
        ...

    def users(self) -> list[str]: ...

    def forget(self, user: str) -> int:
        """Erase the user and every trace of their text; returns how many facts went."""
        ...

    def verify(self, user: str | None = None) -> VerifyReport:
        """Re-hash and walk the chain(s), and compare each user's last id with the mark."""
        ...

    def close(self) -> None: ...

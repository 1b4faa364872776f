"""Forgetting a user: the one place that erases them everywhere, in one go.

The fact log and the version store are erased under the version store's forget lock, which
waits for running checkpoints, alert runs and recalls (they hold `in_use`); every service
that derived something from the user (caches, the recall index, query workers) is told in
the same critical section, so nothing of the user outlives the forget.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from factlog.model import check_user_id
from factlog.store import FactStore
from users.store import VersionStore


class ForgetsUsers(Protocol):
    def forget(self, user: str) -> None:
        """Drop whatever this service derived from `user`."""
        ...


class Forgetting:
    def __init__(self, facts: FactStore, versions: VersionStore, derived: Sequence[ForgetsUsers]) -> None:
        self.facts = facts
        self.versions = versions
        self.derived = tuple(derived)

    def forget(self, user: str) -> int:
        """Erase a user everywhere: facts, versions, alert state, and everything derived."""
        check_user_id(user)
        with self.versions.forgetting():  # waits for running checkpoints, alert runs, recalls
            gone = self.facts.forget(user)
            self.versions.forget(user)
            for service in self.derived:
                service.forget(user)
        return gone

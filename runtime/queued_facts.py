"""A fact store that tells a checkpoint queue about every write: after a write commits, the
users it wrote are handed to `enqueue` with their new log heads (`WorkQueue.enqueue`).

    mem = Memory.open(home)
    mem.enqueue_writes(queue.enqueue)      # every write through `mem` now enqueues its user

The write is acknowledged once stored: a queue that cannot be reached does not fail it (the
fact is safe in the log), and the workers' sweep (`Worker.sweep`, every `--sweep` seconds)
finds the user anyway, as it finds writers that enqueue nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from factlog.model import Fact, NewFact
from factlog.store import FactStore

Enqueue = Callable[[Mapping[str, int]], None]


class QueuedFacts:
    """Delegates everything to `inner`; the four writes enqueue their users afterwards."""

    def __init__(self, inner: FactStore, enqueue: Enqueue) -> None:
        self.inner = inner
        self.enqueue = enqueue
        self.missed = 0  # enqueues that failed (the sweep covers them)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _written(self, users: Iterable[str]) -> None:
        try:
            self.enqueue({user: self.inner.head(user) for user in sorted(set(users))})
        except Exception:  # noqa: BLE001 - the facts are stored; the sweep enqueues them
            self.missed += 1

    def append(self, user: str, facts: Sequence[NewFact], *, allow_retype: bool = True) -> list[Fact]:
        done = self.inner.append(user, facts, allow_retype=allow_retype)
        self._written([user])
        return done

    def append_sourced(self, user: str, *args: Any, **kwargs: Any) -> Any:
        done = self.inner.append_sourced(user, *args, **kwargs)
        self._written([user])
        return done

    def append_extraction(self, user: str, *args: Any, **kwargs: Any) -> Any:
        done = self.inner.append_extraction(user, *args, **kwargs)
        self._written([user])
        return done

    def import_facts(self, facts: Sequence[Fact]) -> int:
        added = self.inner.import_facts(facts)
        self._written(f.user for f in facts)
        return added

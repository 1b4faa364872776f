"""What a constraint derives from each record alone, kept from its last run (`RecordMemo`).

A built-in constraint that must look at every record on every run (its findings pair
records, and move with the clock) derives from each record what does not depend on the
clock, e.g. its moments and words; a record object is frozen, and a new version of a
package shares the records of every chunk that did not change, so an unchanged record is
the same object and its derivation can be kept. Entries are found by the record's
identity, with the record kept alive beside its value, so an identity is never another
object's. Each run keeps only the records it saw (a memo holds one record list's worth);
runs over two users' records in turn derive everything again, as without a memo.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

R = TypeVar("R")
V = TypeVar("V")


class RecordMemo(Generic[R, V]):
    """`derive(record)` for each record, reusing what the last call derived for the same objects."""

    def __init__(self, derive: Callable[[R], V]) -> None:
        self._derive = derive
        self._kept: dict[int, tuple[R, V]] = {}
        self._lock = threading.Lock()
        self.derived = 0  # records derived (not found kept)

    def values(self, records: Iterable[R]) -> list[V]:
        with self._lock:
            kept = self._kept
        derive, get = self._derive, kept.get
        seen: dict[int, tuple[R, V]] = {}
        found: list[V] = []
        fresh = 0
        for record in records:
            key = id(record)
            entry = get(key)
            if entry is None or entry[0] is not record:
                entry = (record, derive(record))
                fresh += 1
            seen[key] = entry
            found.append(entry[1])
        with self._lock:
            self._kept = seen
            self.derived += fresh
        return found

    def clear(self) -> None:
        with self._lock:
            self._kept = {}

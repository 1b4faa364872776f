"""A user's log as a checkpoint hands it to producers and the validator: read from the
store only as far as it is used.

`StoreLog` is the log up to a fixed head (the position the checkpoint compiles). It is a
`Sequence[Fact]` (the whole log, read on first use, for producers that want it all), and
it answers what incremental readers ask without reading the rest: `after(position)` (the
facts after a position; the newest stretch is read once and shared by every caller, and
handed out as a tuple that is a slice of it, or the very tuple it holds, never a copy of
every fact, so readers of the whole log share one read and one sequence) and
`get(fact_id)` (one fact by id; after many single lookups the whole log is read at once,
which is cheaper than thousands of point reads). `by_id()` is the same log as a lazy
`Mapping[int, Fact]`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import overload

from codegen.gc_pause import paused_gc
from factlog.errors import NotFound
from factlog.model import Fact
from factlog.store import FactStore

POINT_READS_BEFORE_BULK = 256  # single lookups before `get` reads the whole log instead


class StoreLog(Sequence[Fact]):
    def __init__(self, store: FactStore, user: str, head: int) -> None:
        self._store, self._user, self._head = store, user, head
        self._all: tuple[Fact, ...] | None = None
        self._tail_from = head  # facts with id > _tail_from are in _tail
        self._tail: tuple[Fact, ...] = ()
        self._by_id: dict[int, Fact | None] = {}
        self._point_reads = 0

    @property
    def user(self) -> str:
        return self._user

    @property
    def head(self) -> int:
        return self._head

    @property
    def holds_all(self) -> bool:
        """Whether the whole log is held (read from its start): no call reads the store then."""
        return self._all is not None

    def after(self, position: int) -> tuple[Fact, ...]:
        """The facts with position < id <= head, in id order."""
        if self._all is None and position < self._tail_from:
            with paused_gc():  # many facts, all kept
                older = tuple(self._store.facts(self._user, after=position, upto=self._tail_from))
            self._tail = older + self._tail if self._tail else older
            self._tail_from = position
            if position == 0:
                self._all = self._tail
                self._by_id.clear()  # every fact is in _all now
        facts = self._tail if self._all is None else self._all
        start = bisect_right(facts, position, key=_fact_id)
        return facts if start == 0 else facts[start:]

    def get(self, fact_id: int) -> Fact | None:
        """The fact with this id (None when the log up to head has none)."""
        if fact_id > self._head or fact_id < 1:
            return None
        if fact_id > self._tail_from:
            return self._in_tail(fact_id)
        if fact_id in self._by_id:
            return self._by_id[fact_id]
        self._point_reads += 1
        if self._point_reads > POINT_READS_BEFORE_BULK:
            self.after(0)
            return self._in_tail(fact_id)
        try:
            fact: Fact | None = self._store.get(self._user, fact_id)
        except NotFound:
            fact = None
        self._by_id[fact_id] = fact
        return fact

    def _in_tail(self, fact_id: int) -> Fact | None:
        """The fact with this id of those read as a stretch (ids in order, and without gaps
        in a log nobody tampered with: the position is the offset, checked)."""
        tail = self._tail
        if not tail:
            return None
        index = fact_id - tail[0].id
        if not 0 <= index < len(tail) or tail[index].id != fact_id:
            index = bisect_left(tail, fact_id, key=_fact_id)
        return tail[index] if index < len(tail) and tail[index].id == fact_id else None

    def preload(self, ids: Iterable[int]) -> None:
        """Read the facts with these ids (of those not read yet) in one store query, so the
        `get`s that follow are answered from memory."""
        if self._all is not None:
            return
        wanted = {i for i in ids if isinstance(i, int) and 1 <= i <= min(self._head, self._tail_from)
                  and i not in self._by_id}
        if not wanted:
            return
        found = {f.id: f for f in self._store.facts_by_id(self._user, wanted)}
        for fact_id in wanted:
            self._by_id[fact_id] = found.get(fact_id)

    def _everything(self) -> tuple[Fact, ...]:
        if self._all is None:
            self.after(0)
        assert self._all is not None
        return self._all

    @overload
    def __getitem__(self, index: int) -> Fact: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Fact]: ...

    def __getitem__(self, index: int | slice) -> Fact | Sequence[Fact]:
        return self._everything()[index]

    def __len__(self) -> int:
        return len(self._everything())

    def __iter__(self) -> Iterator[Fact]:
        return iter(self._everything())

    def by_id(self) -> Mapping[int, Fact]:
        return FactsById(self)


def _fact_id(fact: Fact) -> int:
    return fact.id


class FactsById(Mapping[int, Fact]):
    """The log as facts by id, looked up one by one (iterating reads the whole log)."""

    def __init__(self, log: StoreLog) -> None:
        self._log = log

    def __getitem__(self, fact_id: int) -> Fact:
        fact = self._log.get(fact_id) if isinstance(fact_id, int) else None
        if fact is None:
            raise KeyError(fact_id)
        return fact

    def get(self, fact_id: int, default: Fact | None = None) -> Fact | None:  # type: ignore[override]
        fact = self._log.get(fact_id) if isinstance(fact_id, int) else None
        return default if fact is None else fact

    def __contains__(self, fact_id: object) -> bool:
        return isinstance(fact_id, int) and self._log.get(fact_id) is not None

    def __iter__(self) -> Iterator[int]:
        return (f.id for f in self._log)

    def __len__(self) -> int:
        return len(self._log)

    def __bool__(self) -> bool:
        return self._log.head > 0

    def preload(self, ids: Iterable[int]) -> None:
        """See `StoreLog.preload`: the lookups of a walk, read in one query."""
        self._log.preload(ids)

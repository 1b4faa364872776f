"""What the constraints found last, kept by a long-lived process so that a run over a new
version of the module costs what changed (`KeptResults.run`).

A constraint that declares what its findings depend on (`Constraint.reads`, and
`clock="date"`) is run again only when that changed: today's date, or one of the module
attributes it reads, compared by the identity of the objects held there (a list's
records one by one). A new version of a package shares the records of every chunk that
did not change (`codegen.module_reuse`), so an unchanged record is the same object. The
objects compared are kept (alive), so an identity is never that of another object.

A `per_record` constraint keeps its findings per record: only the records not seen
before (under the same date and the same other inputs) are judged, each alone.

Constraints declaring nothing (every user constraint unless it says otherwise) run every
time. Nothing but successful runs and skips is kept: a constraint that raised runs again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime

from constraints.model import Alert, Constraint, MissingInput

Inputs = tuple[tuple[str, object, tuple[int, ...] | int | None], ...]  # (attribute, value kept, identity)


def _inputs(module: object, names: tuple[str, ...]) -> Inputs:
    found: list[tuple[str, object, tuple[int, ...] | int | None]] = []
    for name in names:
        value = getattr(module, name, None)
        if isinstance(value, (list, tuple)):
            found.append((name, value, tuple(map(id, value))))
        else:
            found.append((name, value, None if value is None else id(value)))
    return tuple(found)


def _same(a: Inputs | None, b: Inputs) -> bool:
    return a is not None and len(a) == len(b) and all(x[0] == y[0] and x[2] == y[2] for x, y in zip(a, b))


class _OneRecord:
    """The module as a per-record constraint sees it for one record."""

    def __init__(self, module: object, attribute: str, record: object) -> None:
        self._module = module
        self._attribute = attribute
        self._records = [record]

    def __getattr__(self, name: str) -> object:
        if name == self._attribute:
            return self._records
        return getattr(self._module, name)


@dataclass
class _Kept:
    constraint: Constraint
    day: date
    inputs: Inputs  # of every attribute read (the per-record one included: kept alive)
    alerts: tuple[Alert, ...] = ()
    skipped: str | None = None  # MissingInput's message
    # per record: id -> (the record, its alerts, whether its run alone raised MissingInput)
    records: dict[int, tuple[object, tuple[Alert, ...], bool]] = field(default_factory=dict)
    others: Inputs = ()  # the inputs but the per-record attribute


@dataclass
class KeptResults:
    """Kept findings of one user's constraints (one object per user)."""

    _kept: dict[str, _Kept] = field(default_factory=dict)  # by constraint name (a new object: run again)
    runs: int = 0  # constraints run over the whole module
    judged: int = 0  # records judged alone
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def run(self, item: Constraint, module: object, now: datetime) -> list[Alert]:
        """`list(item.check(module, now))`, from what was kept where that is the same
        (runs of one user's constraints in two threads take turns)."""
        with self._lock:
            return self._run(item, module, now)

    def _run(self, item: Constraint, module: object, now: datetime) -> list[Alert]:
        if item.reads is None or item.clock != "date":
            return self._full(item, module, now)
        day = now.date()
        inputs = _inputs(module, item.reads)
        kept = self._kept.get(item.name)
        if kept is not None and (kept.constraint is not item or kept.day != day):
            kept = None
        if item.per_record is not None and item.per_record in item.reads and _judged_alone(item, module):
            return self._per_record(item, module, now, day, inputs, kept)
        if kept is not None and not kept.records and _same(kept.inputs, inputs):
            if kept.skipped is not None:
                raise MissingInput(kept.skipped)
            return list(kept.alerts)
        self._kept.pop(item.name, None)
        try:
            found = self._full(item, module, now)
        except MissingInput as missing:
            self._kept[item.name] = _Kept(item, day, inputs, skipped=str(missing))
            raise
        self._kept[item.name] = _Kept(item, day, inputs, tuple(found))
        return found

    def _full(self, item: Constraint, module: object, now: datetime) -> list[Alert]:
        self.runs += 1
        return list(item.check(module, now))

    def _per_record(self, item: Constraint, module: object, now: datetime, day: date, inputs: Inputs,
                    kept: _Kept | None) -> list[Alert]:
        attribute = item.per_record
        assert attribute is not None
        records = getattr(module, attribute)
        others = tuple(i for i in inputs if i[0] != attribute)
        if kept is None or kept.skipped is not None or not _same(kept.others, others):
            kept = _Kept(item, day, inputs, others=others)
        judged: dict[int, tuple[object, tuple[Alert, ...], bool]] = {}
        try:
            for record in records:
                key = id(record)
                entry = judged.get(key) or kept.records.get(key)
                if entry is None:
                    entry = (record, *self._alone(item, module, attribute, record, now))
                judged[key] = entry
        except Exception:
            self._kept.pop(item.name, None)
            return self._full(item, module, now)  # it reports its own error (or finds it gone)
        if all(lacking for _, _, lacking in judged.values()):  # as `require` over them all
            self._kept.pop(item.name, None)
            return self._full(item, module, now)
        kept.records, kept.inputs = judged, inputs
        self._kept[item.name] = kept
        return list(_chain(judged[id(record)][1] for record in records))

    def _alone(self, item: Constraint, module: object, attribute: str, record: object,
               now: datetime) -> tuple[tuple[Alert, ...], bool]:
        self.judged += 1
        try:
            return tuple(item.check(_OneRecord(module, attribute, record), now)), False
        except MissingInput:
            return (), True


def _judged_alone(item: Constraint, module: object) -> bool:
    """Records to judge one by one, and nothing the constraint needs missing (else it runs,
    or is skipped, as a whole)."""
    records = getattr(module, item.per_record or "", None)
    return isinstance(records, (list, tuple)) and bool(records) \
        and all(getattr(module, name, None) is not None for name in item.needs)


def _chain(groups: Iterator[tuple[Alert, ...]]) -> Iterator[Alert]:
    for group in groups:
        yield from group

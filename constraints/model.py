"""What a constraint is and what it produces.

A constraint is a plain typed function over a user's module and `now`. It yields
`Finding`s (severity, message, the records it is about) and the `@constraint` decorator
turns them into `Alert`s with a stable id: the constraint name plus the entities involved,
so the same situation gets the same id on every run and an alert can be tracked from
raised to resolved. A function may also yield finished `Alert`s, which pass through.

When the module lacks what a constraint reads, the constraint raises `MissingInput` (the
decorator does it for the attributes named in `needs`); the runner reports that as
`ConstraintSkip`, not as an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import date, datetime
from typing import Literal, Mapping

from factlog.identity import content_digest, first_cited
from factlog.results import Failure, Skip

Severity = Literal["critical", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "warning", "info")


@dataclass(frozen=True)
class Alert:
    id: str  # stable: same constraint + same entities -> same id, across runs
    constraint: str
    severity: Severity
    message: str
    fact_ids: tuple[int, ...]
    due: date | None = None


@dataclass(frozen=True)
class Finding:
    """What a check function reports; `@constraint` turns it into an `Alert`.

    `records` are the module records the finding is about: they give the cited fact ids
    and, unless `key` is given, the alert's identity.
    """

    severity: Severity
    message: str
    records: tuple[object, ...] = ()
    due: date | None = None
    key: str | None = None


@dataclass(frozen=True)
class ConstraintSkip(Skip):
    constraint: str
    reason: str


@dataclass(frozen=True)
class ConstraintFailure(Failure):
    constraint: str
    error: str  # "TypeError: ..."

    @property
    def message(self) -> str:
        return f"{self.constraint}: {self.error}"


class MissingInput(Exception):
    """The module lacks an attribute or field this constraint needs; it is skipped."""


CheckFunction = Callable[[object, datetime], Iterable["Finding | Alert"]]
Clock = Literal["moment", "date"]


@dataclass(frozen=True)
class Constraint:
    name: str
    description: str
    needs: tuple[str, ...]  # module attributes read; absent or None -> skipped
    function: CheckFunction
    fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # attribute -> fields read
    # What its findings depend on (`constraints.kept_results` runs it again only when that
    # changed); the defaults say "anything": it runs every time.
    reads: tuple[str, ...] | None = None  # the module attributes it reads; None: any
    clock: Clock = "moment"  # "date": `now` is read only as `now.date()`
    per_record: str | None = None  # an attribute of `reads` whose records it judges one by one

    def check(self, module: object, now: datetime) -> Iterator[Alert]:
        for attribute in self.needs:
            if getattr(module, attribute, None) is None:
                raise MissingInput(f"the module has no {attribute!r}")
        for item in self.function(module, now):
            yield item if isinstance(item, Alert) else self._alert(item)

    def _alert(self, finding: Finding) -> Alert:
        if finding.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {finding.severity!r}")
        cites = [(r, fact_ids_of(r)) for r in finding.records]  # each record's ids read once
        key = finding.key or "+".join(sorted({entity_key(r, ids) for r, ids in cites}))
        cited = sorted({i for _, ids in cites for i in ids})
        return Alert(
            id=f"{self.name}:{key}",
            constraint=self.name,
            severity=finding.severity,
            message=finding.message,
            fact_ids=tuple(cited),
            due=finding.due,
        )


def constraint(
    *, name: str | None = None, needs: tuple[str, ...] = (), description: str | None = None,
    fields: Mapping[str, tuple[str, ...]] | None = None, reads: tuple[str, ...] | None = None,
    clock: Clock = "moment", per_record: str | None = None,
) -> Callable[[CheckFunction], Constraint]:
    """Decorate `def check(module: object, now: datetime) -> Iterator[Finding]` into a `Constraint`.

    The name defaults to the function name, the description to its docstring. `fields`
    names the fields it reads per attribute, e.g. `{"trips": ("departure_date",)}`: records
    lacking one are reported as notices (`constraints.notices`).

    What the findings depend on, declared, lets a long-lived process skip runs whose
    inputs did not change (`constraints.kept_results`); without it the constraint runs
    every time. `reads`: every module attribute the function reads (`needs` included).
    `clock="date"`: it reads `now` only as `now.date()`. `per_record="bills"`: the findings
    are those of each record under that attribute judged alone (the module given the
    function holding that one record there), in the records' order; a record whose run
    alone raises `MissingInput` has none, and the constraint is skipped only when every
    record's does (as `views.require` does over them all).
    """

    def wrap(function: CheckFunction) -> Constraint:
        doc = (function.__doc__ or "").strip().splitlines()
        return Constraint(
            name=name or function.__name__,
            description=description if description is not None else (doc[0] if doc else ""),
            needs=(needs,) if isinstance(needs, str) else tuple(needs),
            function=function,
            fields={k: (v,) if isinstance(v, str) else tuple(v) for k, v in (fields or {}).items()},
            reads=None if reads is None else tuple(reads),
            clock=clock,
            per_record=per_record,
        )

    return wrap


def fact_ids_of(record: object) -> list[int]:
    ids = getattr(record, "fact_ids", None)
    if not isinstance(ids, (list, tuple)):
        return []
    return [i for i in ids if type(i) is int or (isinstance(i, int) and not isinstance(i, bool))]


def entity_key(record: object, ids: list[int] | None = None) -> str:
    """A record's identity across module versions, as alert ids have always stored it
    (`f<id>`, `h<digest>`; `factlog.identity`).

    The first fact that created an entity stays in its provenance when later facts update
    it, so the smallest fact id names the entity. Records without provenance fall back to
    a hash of their field values. `ids`: the record's `fact_ids_of`, when already read.
    """
    first = first_cited(fact_ids_of(record) if ids is None else ids)
    if first is not None:
        return f"f{first}"
    if is_dataclass(record) and not isinstance(record, type):
        values = [(f.name, getattr(record, f.name, None)) for f in fields(record)]
    else:
        values = sorted(vars(record).items()) if hasattr(record, "__dict__") else [("", record)]
    return f"h{content_digest(repr(values))}"

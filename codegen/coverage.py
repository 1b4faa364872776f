"""Stage 4 of validation: every live fact is accounted for by some record or note.

Walks the loaded package's public values (lists, tuples, dicts and dataclass instances,
nested) and collects the provenance ids records carry. Also reports ids that records cite
but that are not live: a hallucinated id, or a retracted fact still shown as current.
Quarantined facts (`codegen.quarantine`: left out because they cannot be compiled, and
listed in the version's metadata) are accounted for without a record; a record citing
one, or a quarantined id that is not a live fact, is a problem like an unknown id.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass
from typing import AbstractSet

from factlog.vocabulary import PROVENANCE_FIELD

MAX_DEPTH = 32


@dataclass(frozen=True)
class CoverageReport:
    missing: tuple[int, ...]  # live facts no record cites (and not quarantined)
    unknown: tuple[int, ...]  # cited ids that are not live facts (or are quarantined)
    quarantined: tuple[int, ...] = ()  # live facts left out on purpose, accounted for

    @property
    def complete(self) -> bool:
        return not self.missing and not self.unknown


def cited_fact_ids(module: types.ModuleType) -> set[int]:
    cited: set[int] = set()
    seen: set[int] = set()
    for name, value in vars(module).items():
        if not name.startswith("_"):
            _collect(value, cited, seen, 0)
    return cited


def collect_cited(value: object, cited: set[int], seen: set[int], depth: int = 0) -> None:
    """Add the provenance ids found in `value` (nested records too) to `cited`; `seen`
    holds the containers already walked (shared across the values of one module); `depth`
    is the value's nesting below a public name of the module."""
    _collect(value, cited, seen, depth)


def coverage(module: types.ModuleType, live_fact_ids: AbstractSet[int],
             quarantined: AbstractSet[int] = frozenset()) -> CoverageReport:
    return report(cited_fact_ids(module), live_fact_ids, quarantined)


def report(cited: AbstractSet[int], live_fact_ids: AbstractSet[int],
           quarantined: AbstractSet[int] = frozenset()) -> CoverageReport:
    """What `cited` (ids the module's records carry) leaves missing or cites wrongly."""
    kept = live_fact_ids - quarantined
    unknown = (cited - kept) | (quarantined - live_fact_ids)
    return CoverageReport(tuple(sorted(kept - cited)), tuple(sorted(unknown)),
                          tuple(sorted(quarantined & live_fact_ids)))


def _collect(value: object, cited: set[int], seen: set[int], depth: int) -> None:
    if depth > MAX_DEPTH or isinstance(value, (type, types.ModuleType, str, bytes)) or id(value) in seen:
        return
    if isinstance(value, (list, tuple, set, frozenset)):
        seen.add(id(value))
        for item in value:
            _collect(item, cited, seen, depth + 1)
    elif isinstance(value, dict):
        seen.add(id(value))
        for item in value.values():
            _collect(item, cited, seen, depth + 1)
    elif dataclasses.is_dataclass(value):
        seen.add(id(value))
        for f in dataclasses.fields(value):
            item = getattr(value, f.name, None)
            if f.name == PROVENANCE_FIELD and isinstance(item, (list, tuple)):
                cited.update(i for i in item if type(i) is int)
            else:
                _collect(item, cited, seen, depth + 1)

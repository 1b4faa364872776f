"""Stage 1: which facts are live, and which entities they describe.

Rules (the compiler's reading of the log):

- A retraction (`retracts=N`) and the fact it names are both dead. A retraction always
  withdraws its target, even when the retraction is itself retracted: to restore a fact,
  state it again.
- Kinds are normalized first (`trips` is `trip`, `allergies` is `allergy`).
- Identity: live facts with the same kind and key are one entity. A singular canonical
  kind (`passport`, `profile`) is one entity per user whatever the keys. A fact with a kind
  but no key is an entity of its own.
- Updates: an entity's facts are applied in order of effective date, then id, where the
  effective date is `valid_from`, or the day it was recorded when there is none. Each fact
  overwrites the fields it names (a JSON null clears a field) and keeps the others.
- A fact without a kind is a free-text note; its dates come from `fields["dates"]` (ISO
  dates, a string or a list) or else from `valid_from`.
- Entities are ordered by their first live fact id, which keeps positions stable as facts
  are appended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Sequence

from codegen.naming import normalize_kind
from factlog.model import Fact, JsonValue
from factlog.vocabulary import CANONICAL

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


@dataclass
class Entity:
    kind: str  # normalized kind
    ident: str  # "trip/<key>", "trip#<first fact id>", or "passport" for singular kinds
    fields: dict[str, JsonValue] = field(default_factory=dict)  # original field names
    fact_ids: list[int] = field(default_factory=list)  # ascending

    @property
    def first_id(self) -> int:
        return self.fact_ids[0]


@dataclass(frozen=True)
class NoteEntry:
    text: str
    dates: tuple[date, ...]
    fact_id: int


@dataclass(frozen=True)
class LiveFacts:
    facts: list[Fact]  # live facts in id order
    entities: dict[str, list[Entity]]  # normalized kind -> entities by first fact id
    notes: list[NoteEntry]


def dead_ids(facts: Sequence[Fact]) -> set[int]:
    dead: set[int] = set()
    for fact in facts:
        if fact.retracts is not None:
            dead.add(fact.retracts)
            dead.add(fact.id)
    return dead


def effective_date(fact: Fact) -> date:
    if fact.valid_from is not None:
        return fact.valid_from
    try:
        return date.fromisoformat(fact.recorded_at[:10])
    except ValueError:
        return date.min


def note_dates(fact: Fact) -> tuple[date, ...]:
    raw = fact.fields.get("dates")
    items = raw if isinstance(raw, list) else [raw]
    found: set[date] = set()
    for item in items:
        if isinstance(item, str) and _ISO_DATE.fullmatch(item):
            try:
                found.add(date.fromisoformat(item))
            except ValueError:
                continue
    if not found and fact.valid_from is not None:
        found.add(fact.valid_from)
    return tuple(sorted(found))


def _identity(kind: str, fact: Fact) -> str:
    domain = CANONICAL.get(kind)
    if domain is not None and domain.singular:
        return kind
    if fact.key is not None:
        return f"{kind}/{fact.key}"
    return f"{kind}#{fact.id}"


_normalized = lru_cache(maxsize=4096)(normalize_kind)


def entity_id(fact: Fact) -> str | None:
    """The entity a fact describes (`Entity.ident`), or None for a free-text note."""
    return None if fact.kind is None else _identity(_normalized(fact.kind), fact)


def select_live(facts: Sequence[Fact]) -> LiveFacts:
    dead = dead_ids(facts)
    live = sorted((f for f in facts if f.id not in dead), key=lambda f: f.id)
    groups: dict[str, tuple[str, list[Fact]]] = {}
    notes: list[NoteEntry] = []
    for fact in live:
        if fact.kind is None:
            notes.append(NoteEntry(fact.text, note_dates(fact), fact.id))
            continue
        kind = normalize_kind(fact.kind)
        ident = _identity(kind, fact)
        groups.setdefault(ident, (kind, []))[1].append(fact)
    entities: dict[str, list[Entity]] = {}
    for ident, (kind, members) in groups.items():  # insertion order = first fact id order
        entity = Entity(kind, ident, fact_ids=[f.id for f in members])
        for fact in sorted(members, key=lambda f: (effective_date(f), f.id)):
            entity.fields.update(fact.fields)
        entities.setdefault(kind, []).append(entity)
    return LiveFacts(live, entities, notes)

"""Stage 1: which facts are live, and which entities they describe.

The compiler's reading of the log, by the facts' own rules in the fact log:

- Liveness and update order: `factlog.liveness` (a retraction and its target are dead; an
  entity's facts apply by effective date, then id). Each fact overwrites the fields it
  names (a JSON null clears a field) and keeps the others.
- Identity: `factlog.identity` (kinds normalized; kind + key is one entity, a singular
  canonical kind one per user, a kind without a key an entity of its own).
- A fact without a kind is a free-text note; its dates and other typed fields are
  `factlog.note_fields`' reading.
- `select_live` lists entities by their first live fact id (a reading for tests and tools);
  the compiler places records by ORDINAL, the order in which an identity first appears in
  the whole log (`codegen.compile`, rule in its docstring), kept in `codegen.compile_state`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Sequence

from codegen.naming import normalize_kind
from factlog.identity import kind_identity
from factlog.liveness import dead_ids, update_order
from factlog.model import Fact, JsonValue
from factlog.note_fields import note_dates as note_dates  # the rule lives in the fact log


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
        ident = kind_identity(kind, fact.key, fact.id)
        groups.setdefault(ident, (kind, []))[1].append(fact)
    entities: dict[str, list[Entity]] = {}
    for ident, (kind, members) in groups.items():  # insertion order = first fact id order
        entity = Entity(kind, ident, fact_ids=[f.id for f in members])
        for fact in sorted(members, key=update_order):
            entity.fields.update(fact.fields)
        entities.setdefault(kind, []).append(entity)
    return LiveFacts(live, entities, notes)

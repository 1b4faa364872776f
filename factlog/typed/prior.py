"""What earlier sessions said about the entities a later session may refer to without
naming them ("Qantas moved my return to March 22", "the Bosch is leaking", "the class
moved to Fridays"): each typed
entity's merged fields, in log order, later values winning (as compiling merges them).

`Prior` is built from the user's live stored facts (`add` each, in id order; the caller,
`runtime.facts_service`, leaves retracted ones out and forgets it with the user) and handed
to `RuleExtractor`, which adds each session's typed facts to it after the session (so the
sessions of one transcript see each other); readers see it as `Context.prior`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from factlog.model import JsonValue

# the kinds whose entities a later session refers back to: payment (later sessions amend or pay
# it), subscription and deadline ("I cancelled it", "still $800 left on it"), event ("the class
# moved to Fridays"), medication ("now she takes 3 mg" of a mother's one drug), allergy (whose it is: "took
# him to urgent care" in the next session is the allergic neighbour), relative (a name given
# a relation in one session is that relative in the next: `factlog.typed.common.whose`)
KINDS = frozenset({"trip", "document", "passport", "payment", "subscription", "deadline", "event", "appointment",
                   "medication", "allergy", "relative"})  # an appointment: "they moved my appointment to the 19th"


@dataclass
class Prior:
    entities: dict[tuple[str, str], dict[str, JsonValue]] = field(default_factory=dict)
    seen: int = 0  # the last fact id added

    def add(self, fact_id: int, kind: str | None, key: str | None, fields: Mapping[str, JsonValue]) -> None:
        self.seen = max(self.seen, fact_id)
        if kind not in KINDS or key is None:
            return
        entity = (kind, key)
        merged = self.entities.pop(entity, {})  # re-inserted: the most recently stated entity is last
        merged.update({name: value for name, value in fields.items() if name != "session_metadata"})
        self.entities[entity] = merged

    def copy(self) -> Prior:
        return Prior({entity: dict(fields) for entity, fields in self.entities.items()}, self.seen)

    def of_kind(self, kind: str) -> list[tuple[str, dict[str, JsonValue]]]:
        """(key, fields) of each entity of `kind`, the most recently stated last."""
        return [(key, fields) for (k, key), fields in self.entities.items() if k == kind]


def prior_of(facts: Iterable[tuple[int, str | None, str | None, Mapping[str, JsonValue]]]) -> Prior:
    """The prior of (id, kind, key, fields) facts in id order."""
    prior = Prior()
    for fact_id, kind, key, fields in facts:
        prior.add(fact_id, kind, key, fields)
    return prior

"""Extraction precision and recall per kind against hand-labelled facts (`uac eval alerts`).

A label is an entity as a careful reader knows it after a session (one trip with its
destination, dates and booking state), so what is compared with it is the same: the
entity's state (`entity_states`) — the merged fields of every typed fact of its kind and
key up to and including that session, later values winning, as compiling merges them —
for each entity a session's facts touch. Facts without a key are entities of their own.

A session that restates an entity without changing it (the assistant repeating a known
expiry) gives no state: labels, too, repeat an entity only where a session changes it.
Who said it (`speaker`) and the session's metadata are not part of the comparison.

A state matches a label when the kind (normalised), the session, whose fact it is (the
label's `subject` against the fact's, through `factlog.relations.same_subject`: "mom" is
"mother", a fact without one is the user's) and every field the label gives agree after
normalising (`same_value`; family words through `runtime.eval_names.same_relation`); each state
matches at most one label. Per
kind: precision = matched states / states, recall = matched labels / labels, over the
scenarios that carry `labels`.

Beside these strict figures, `precision_entity` / `recall_entity` compare entities rather
than spellings (`matches_entity`): free-text names, places, drug names and identifiers agree
by the rules of `runtime.eval_names` ("standup" is the "team standup"), every other field as
strictly as before; states are paired with labels as a maximum matching, so a lenient
pairing of one label never costs another its state.

A third, loosest pair of figures, `precision_found` / `recall_found`, asks only whether the
thing was found at all (`names_same_thing`): a label is found when a state of its kind, in
any session of the scenario, names the same thing (the fields of `NAMES`, and whose thing it
is) whatever its dates, amounts or status; a state is found when it names some label's
thing. The gap between these and the entity figures is the share of misses that are a
field's value, not a missing or invented thing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from factlog.kinds import normalize_kind
from factlog.model import JsonValue
from factlog.relations import same_subject
from factlog.timeparse import try_date, try_datetime
from runtime.eval_names import same_entity_value, same_relation

_SPACES = re.compile(r"\s+")
_MONEY = re.compile(r"^[$€£]?\s*-?[\d,]*\.?\d+$")


@dataclass(frozen=True)
class TypedFact:
    session_id: str | None
    kind: str
    fields: Mapping[str, JsonValue]
    key: str | None = None


def entity_states(facts: list[TypedFact]) -> list[TypedFact]:
    """For each session (in the order `facts`, which are in log order, reach it) and each
    entity (kind and key) its facts touch: the entity's merged fields so far, as one fact."""
    merged: dict[tuple[str, str], dict[str, JsonValue]] = {}
    before: dict[tuple[str, str], dict[str, JsonValue]] = {}  # each entity's fields before the current session
    session_of: dict[tuple[str, str], str | None] = {}
    touched: dict[tuple[str | None, str, str], None] = {}
    keyless: list[tuple[int, TypedFact]] = []
    states: dict[tuple[str | None, str, str], TypedFact] = {}
    before_session: dict[tuple[str | None, str, str], dict[str, JsonValue]] = {}
    order: list[tuple[str | None, str, str] | int] = []
    for position, fact in enumerate(facts):
        if fact.key is None:
            keyless.append((position, fact))
            order.append(position)
            continue
        entity = (fact.kind, fact.key)
        if session_of.get(entity, fact.session_id) != fact.session_id or entity not in merged:
            before[entity] = dict(merged.get(entity, {}))
        session_of[entity] = fact.session_id
        merged[entity] = {**merged.get(entity, {}), **fact.fields}
        slot = (fact.session_id, fact.kind, fact.key)
        if slot not in touched:
            touched[slot] = None
            order.append(slot)
            before_session[slot] = before[entity]
        states[slot] = TypedFact(fact.session_id, fact.kind, dict(merged[entity]), fact.key)
    alone = dict(keyless)
    out = []
    for item in order:
        if isinstance(item, int):
            out.append(alone[item])
            continue
        state = states[item]
        was = before_session[item]
        if not was or _compared(was) != _compared(dict(state.fields)):
            out.append(state)
    return out


_NOT_COMPARED = ("speaker", "session_metadata")


def _compared(fields: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    return {name: value for name, value in fields.items() if name not in _NOT_COMPARED}


@dataclass(frozen=True)
class Label:
    session_id: str | None
    kind: str
    fields: Mapping[str, JsonValue]
    subject: str | None = None  # whose fact it is; None: not compared (`same_subject`)


@dataclass
class KindCounts:
    facts: int = 0
    labels: int = 0
    matched_facts: int = 0
    matched_labels: int = 0
    matched_entity: int = 0  # states paired with labels by the entity comparison (one each)
    found_facts: int = 0  # states naming some label's thing (`names_same_thing`)
    found_labels: int = 0  # labels whose thing some state names

    def to_json(self) -> dict[str, JsonValue]:
        return {"facts": self.facts, "labels": self.labels, "matched": self.matched_labels,
                "precision": _ratio(self.matched_facts, self.facts), "recall": _ratio(self.matched_labels, self.labels),
                "matched_entity": self.matched_entity, "precision_entity": _ratio(self.matched_entity, self.facts),
                "recall_entity": _ratio(self.matched_entity, self.labels),
                "found_facts": self.found_facts, "found_labels": self.found_labels,
                "precision_found": _ratio(self.found_facts, self.facts),
                "recall_found": _ratio(self.found_labels, self.labels)}


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


@dataclass
class Extraction:
    """Counts per kind, added up over scenarios."""

    kinds: dict[str, KindCounts] = field(default_factory=dict)

    def add(self, facts: list[TypedFact], labels: list[Label]) -> list[Label]:
        """Count one scenario; the labels no fact matched (strictly)."""
        return self.add_scenario(facts, labels)[0]

    def add_scenario(self, facts: list[TypedFact], labels: list[Label]) -> tuple[list[Label], list[Label]]:
        """Count one scenario; the labels no fact matched strictly, and those no fact matched
        as an entity."""
        free = list(facts)
        missed: list[Label] = []
        for fact in facts:
            self._counts(fact.kind).facts += 1
        for label in labels:
            counts = self._counts(label.kind)
            counts.labels += 1
            found = next((fact for fact in free if matches(fact, label)), None)
            if found is None:
                missed.append(label)
                continue
            free.remove(found)
            counts.matched_labels += 1
            self._counts(found.kind).matched_facts += 1
        paired = entity_pairs(facts, labels)
        for index in paired:
            self._counts(labels[index].kind).matched_entity += 1
        for fact in facts:
            self._counts(fact.kind).found_facts += any(names_same_thing(fact, label) for label in labels)
        for label in labels:
            self._counts(label.kind).found_labels += any(names_same_thing(fact, label) for fact in facts)
        return missed, [label for index, label in enumerate(labels) if index not in paired]

    def merge(self, other: Mapping[str, Mapping[str, int]]) -> None:
        for kind, counts in other.items():
            mine = self._counts(kind)
            mine.facts += counts["facts"]
            mine.labels += counts["labels"]
            mine.matched_facts += counts["matched_facts"]
            mine.matched_labels += counts["matched_labels"]
            mine.matched_entity += counts.get("matched_entity", 0)
            mine.found_facts += counts.get("found_facts", 0)
            mine.found_labels += counts.get("found_labels", 0)

    def raw(self) -> dict[str, dict[str, int]]:
        return {kind: {"facts": c.facts, "labels": c.labels, "matched_facts": c.matched_facts,
                       "matched_labels": c.matched_labels, "matched_entity": c.matched_entity,
                       "found_facts": c.found_facts, "found_labels": c.found_labels}
                for kind, c in sorted(self.kinds.items())}

    def to_json(self) -> dict[str, JsonValue]:
        return {kind: counts.to_json() for kind, counts in sorted(self.kinds.items())}

    def _counts(self, kind: str) -> KindCounts:
        return self.kinds.setdefault(kind, KindCounts())


def kind_of(kind: str) -> str:
    try:
        return normalize_kind(kind)
    except ValueError:
        return kind.strip().casefold()


def same_owner(fact: TypedFact, label: Label) -> bool:
    """The fact is about whom the label says (`factlog.relations.same_subject`: "mom" is
    "mother", "Mr Osei" is "Osei"); a fact without `subject` is the user's."""
    if label.subject is None:
        return True
    got = fact.fields.get("subject")
    return same_subject(got if isinstance(got, str) else None, label.subject)


def matches(fact: TypedFact, label: Label) -> bool:
    if fact.kind != label.kind or fact.session_id != label.session_id or not same_owner(fact, label):
        return False
    return all(name in fact.fields and _same(name, fact.fields[name], value) for name, value in label.fields.items())


def _same(name: str, got: object, want: object) -> bool:
    relation = same_relation(name, got, want)  # "mom" is "mother" (`factlog.relations`)
    return same_value(got, want) if relation is None else relation


def matches_entity(fact: TypedFact, label: Label) -> bool:
    """`matches`, but names, places, drug names and identifiers compared as entities
    (`runtime.eval_names`)."""
    if fact.kind != label.kind or fact.session_id != label.session_id or not same_owner(fact, label):
        return False
    for name, value in label.fields.items():
        if name not in fact.fields:
            return False
        if not _agree(label.kind, name, fact.fields[name], value):
            return False
    return True


# the fields that name the thing a label is about (which trip, which drug), not its state
NAMES: Mapping[str, tuple[str, ...]] = {
    "trip": ("destination", "country"), "medication": ("name",), "allergy": ("allergen",), "document": ("kind", "item"),
    "payment": ("payee",), "account": ("institution", "last4"), "event": ("title",), "appointment": ("provider",),
    "bill": ("payee",), "subscription": ("vendor",), "deadline": ("title",), "relative": ("name", "relationship"),
    "loyalty_program": ("program",)}
WHOSE = ("subject", "person", "holder")  # whose thing it is tells two things apart too


def names_same_thing(fact: TypedFact, label: Label) -> bool:
    """Whether `fact` is about the thing `label` is, in any session: the same kind; some naming
    field (`NAMES`) of the label agrees as an entity with some naming field of the fact
    ("Tokyo" / "Japan"), unless the kind has none (one passport per person); and whose it is
    agrees (the label's `subject`, `same_owner`, and an owner field of `WHOSE` both give)."""
    if fact.kind != label.kind or not same_owner(fact, label):
        return False
    for name in WHOSE:
        if name in label.fields and name in fact.fields and not _agree(label.kind, name, fact.fields[name],
                                                                       label.fields[name]):
            return False
    names = NAMES.get(label.kind)
    if names is None:
        return True
    return any(_agree(label.kind, wanted, fact.fields[given], label.fields[wanted])
               for wanted in names if wanted in label.fields for given in names if given in fact.fields)


def _agree(kind: str, name: str, got: JsonValue, want: JsonValue) -> bool:
    """One field of a fact and a label agree as entities (`runtime.eval_names`; family words
    through `factlog.relations`), or strictly."""
    relation = same_relation(name, got, want)  # "mom" is "mother"
    if relation is not None:
        return relation
    agree = same_entity_value(kind, name, got, want)
    return same_value(got, want) if agree is None else agree or same_value(got, want)


def field_misses(facts: list[TypedFact], labels: list[Label]) -> dict[str, dict[str, int]]:
    """Why labels whose thing was found matched no state as an entity, per kind: for each such
    label, the found state that agrees with most of it (its session counting as one more
    field) and each label field that state lacks ("dose: missing") or gives otherwise ("dose:
    differs"), or "session: differs" when that state is of another session."""
    misses: dict[str, dict[str, int]] = {}
    paired = entity_pairs(facts, labels)
    for index, label in enumerate(labels):
        if index in paired:
            continue
        found = [fact for fact in facts if names_same_thing(fact, label)]
        if not found:
            continue
        best = max(found, key=lambda fact: _agreeing(fact, label))  # the first of the best
        counts = misses.setdefault(label.kind, {})
        reasons = [f"{name}: missing" if name not in best.fields else f"{name}: differs"
                   for name, value in label.fields.items()
                   if name not in best.fields or not _agree(label.kind, name, best.fields[name], value)]
        if best.session_id != label.session_id:
            reasons.append("session: differs")
        for reason in reasons:
            counts[reason] = counts.get(reason, 0) + 1
    return misses


def _agreeing(fact: TypedFact, label: Label) -> int:
    return (fact.session_id == label.session_id) + sum(
        1 for name, value in label.fields.items()
        if name in fact.fields and _agree(label.kind, name, fact.fields[name], value))


def entity_pairs(facts: list[TypedFact], labels: list[Label]) -> set[int]:
    """The label indices of a largest pairing of states with labels they match (`matches_entity`),
    each state and label in one pair at most."""
    options = [[index for index, fact in enumerate(facts) if matches_entity(fact, label)] for label in labels]
    return set(largest_matching(options).values())


def largest_matching(options: list[list[int]]) -> dict[int, int]:
    """A largest matching of a bipartite graph, left node i joined to `options[i]`: right ->
    left (Kuhn's augmenting paths, iterative)."""
    holder: dict[int, int] = {}  # state index -> label index
    for start in range(len(options)):
        seen: set[int] = set()
        path: list[tuple[int, int]] = []  # (label, state it would take), from `start` on
        stack = [(start, iter(options[start]))]
        while stack:
            label, states = stack[-1]
            state = next((s for s in states if s not in seen), None)
            if state is None:  # no way on from this label: back up
                stack.pop()
                if path:
                    path.pop()
                continue
            seen.add(state)
            path.append((label, state))
            if state not in holder:  # a free state: shift every label on the path along
                for taker, taken in path:
                    holder[taken] = taker
                break
            stack.append((holder[state], iter(options[holder[state]])))
    return holder


def same_value(got: object, want: object) -> bool:
    return normal(got) == normal(want)


def normal(value: object) -> object:
    """Dates (ISO text, or date-times at midnight) as dates; money-like text ("$5,000") and
    numbers as floats rounded to 2 places; other text stripped, case-folded, spaces
    collapsed; lists element by element."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return round(float(value), 2)
    if isinstance(value, datetime):
        return value.date() if value.time() == datetime.min.time() else value.replace(tzinfo=None)
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        text = value.strip()
        day = try_date(text)
        if day is not None:
            return day
        moment = try_datetime(text) if len(text) > 10 and text[:4].isdigit() else None
        if moment is not None:
            return normal(moment)
        if _MONEY.match(text):
            try:
                return round(float(text.lstrip("$€£ ").replace(",", "")), 2)
            except ValueError:
                pass
        return _SPACES.sub(" ", text).casefold()
    if isinstance(value, (list, tuple)):
        return tuple(normal(item) for item in value)
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), repr(normal(v))) for k, v in value.items()))
    return repr(value)

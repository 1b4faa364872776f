"""Type drift at the door: a value must keep the type its field already has.

A field's established type is the join (`factlog.value_types`, the compiler's own rules) of
the values live facts of its kind gave it, and for a canonical field the vocabulary's type.
A new value whose join with it is a retype (a CONFLICT, or a number/date becoming text) is
refused, naming the field, the expected type and the facts that established it, unless the
caller allows the retype; after an allowed retype the field is text (as the compiler makes
it) and takes anything.

The established type is a fold of the live values in id order, and a value of a type the
field already had changes nothing; so it is the fold of the field's distinct value types in
the order of their first live fact. Two tables keep it, brought up to date from the facts
appended since `field_types_position`, inside the append's transaction:

- `field_value_types` (user, kind, field, type) -> live facts giving the field that type,
  and the first of them;
- `field_types` (user, kind, field) -> the established type and the first facts that gave
  it (cited in a refusal; `cited_exact` is cleared when a retraction took one away, and a
  refusal then reads the citation from the log).

A new fact adds to the counts; a retraction takes its target's values off them and refolds
the few types left, so it costs its target's fields (plus, when the target was the first
fact of a type still held, a forward scan to the next live fact of that type), never the
whole kind. A refusal names the facts a fold of the live log cites.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from factlog.errors import InputError
from factlog.kinds import normalize_kind
from factlog.model import JsonValue, NewFact
from factlog.sql_conn import SqlConnection
from factlog.value_types import (
    CONFLICT,
    SCALARS,
    STR,
    PyType,
    describe_type,
    join,
    type_from_text,
    type_of,
    type_to_text,
    widens,
)
from factlog.vocabulary import CANONICAL

MAX_CITED = 5  # fact ids kept per field, to name in a refusal


@dataclass
class Established:
    type: PyType
    fact_ids: list[int]
    dirty: bool = True  # changed since it was loaded: to be written back
    exact: bool = True  # `fact_ids` are the first facts a fold of the live log cites


@dataclass
class ValueTypes:
    """One field's live value types: type text -> [live facts, first live fact id]."""

    counts: dict[str, list[int]] = field(default_factory=dict)
    dirty: bool = False


Key = tuple[str, str]  # (kind, field)


@lru_cache(maxsize=4096)
def canonical_type(kind: str, name: str) -> PyType | None:
    domain = CANONICAL.get(kind)
    annotation = domain.fields.get(name) if domain else None
    return SCALARS[annotation] if annotation else None


@lru_cache(maxsize=4096)
def _kind_of(raw: str) -> str:
    return normalize_kind(raw)


class _OutOfStep(Exception):
    """The tables disagree with the log (a damaged cache): rebuild them from the log."""


class _Refused(Exception):
    def __init__(self, kind: str, name: str, value: JsonValue, value_type: PyType, base: PyType,
                 wanted: PyType | None, known: Established | None) -> None:
        super().__init__(kind, name)
        self.kind, self.name, self.value, self.value_type, self.base, self.wanted = \
            kind, name, value, value_type, base, wanted
        self.known = known


def _step(known: PyType | None, value_type: PyType, wanted: PyType | None) -> tuple[PyType, bool]:
    """The field's type after one more value, and whether that keeps the type (no retype)."""
    if known is CONFLICT:
        return CONFLICT, True  # retyped deliberately before: the field is text now
    base = known if known is not None else wanted
    if base is None:
        return value_type, True
    # A text field stays text whatever it is given (the compiler keeps other values as
    # their text), so `number=123456789` in a passport is no retype.
    joined = STR if base == STR else join(base, value_type)
    fits = joined == wanted if wanted is not None else widens(base, joined)
    return (joined if fits else CONFLICT), fits


def fold_types(kind: str, name: str, types: Sequence[PyType]) -> PyType | None:
    """The established type after values of `types`, in order (retypes allowed)."""
    result: PyType | None = None
    for value_type in types:
        result, _ = _step(result, value_type, canonical_type(kind, name))
    return result


class _Tables:
    """The two tables' rows of the kinds touched, loaded on first use, written back once."""

    def __init__(self, db: SqlConnection, user: str) -> None:
        self.db, self.user = db, user
        self.loaded: set[str] = set()
        self.types: dict[Key, Established] = {}
        self.values: dict[Key, ValueTypes] = {}

    def load(self, kind: str) -> None:
        if kind in self.loaded:
            return
        self.loaded.add(kind)
        for name, text, ids, exact in self.db.execute(
                "SELECT field, type, fact_ids, cited_exact FROM field_types WHERE user = ? AND kind = ?",
                (self.user, kind)):
            self.types[(kind, name)] = Established(type_from_text(text), json.loads(ids), dirty=False,
                                                   exact=bool(exact))
        for name, text, live, first in self.db.execute(
                "SELECT field, type, live, first_id FROM field_value_types WHERE user = ? AND kind = ?",
                (self.user, kind)):
            self.values.setdefault((kind, name), ValueTypes()).counts[text] = [live, first]

    def add(self, kind: str, fields: dict[str, JsonValue], fid: int, allow_retype: bool) -> None:
        """A new live fact: count its values' types and fold them into the established types."""
        self.load(kind)
        for name, value in fields.items():
            value_type = type_of(value)
            if value_type is None:
                continue
            values = self.values.setdefault((kind, name), ValueTypes())
            text = type_to_text(value_type)
            count = values.counts.get(text)
            if count is None:
                values.counts[text] = [1, fid]
            else:
                count[0] += 1
            values.dirty = True
            self._fold(kind, name, value, value_type, fid, allow_retype)

    def _fold(self, kind: str, name: str, value: JsonValue, value_type: PyType, fid: int,
              allow_retype: bool) -> None:
        known = self.types.get((kind, name))
        if known is not None and (known.type is CONFLICT or (
                known.type == value_type and len(known.fact_ids) >= MAX_CITED)):
            return  # retyped before (text now), or the same type again: nothing to check or record
        wanted = canonical_type(kind, name)
        new_type, fits = _step(known.type if known is not None else None, value_type, wanted)
        if not fits and not allow_retype:
            base = known.type if known is not None else wanted
            assert base is not None
            raise _Refused(kind, name, value, value_type, base, wanted, known)
        if known is None:
            self.types[(kind, name)] = Established(new_type, [fid])
        elif new_type != known.type or len(known.fact_ids) < MAX_CITED:
            known.dirty = True
            known.type = new_type
            if len(known.fact_ids) < MAX_CITED:
                known.fact_ids.append(fid)

    def retract(self, target: int, retraction: int) -> None:
        """Fact `retraction` retracts `target`: if that was live, take its values off."""
        row = self.db.execute("SELECT kind, fields, retracts FROM facts WHERE user = ? AND id = ?",
                              (self.user, target)).fetchone()
        if row is None or row[0] is None or row[2] is not None:
            return  # not a fact with fields (a retraction of a retraction changes no type)
        if self.db.execute("SELECT 1 FROM facts WHERE user = ? AND retracts = ? AND id < ?",
                           (self.user, target, retraction)).fetchone():
            return  # dead already
        kind = _kind_of(row[0])
        self.load(kind)
        for name, value in json.loads(row[1]).items():
            value_type = type_of(value)
            if value_type is None:
                continue
            values = self.values.get((kind, name))
            text = type_to_text(value_type)
            count = values.counts.get(text) if values is not None else None
            if values is None or count is None:
                raise _OutOfStep(kind, name)
            values.dirty = True
            count[0] -= 1
            if count[0] <= 0:
                del values.counts[text]
            elif count[1] == target:
                count[1] = self._next_first(kind, name, text, target, retraction)
            self._refold(kind, name, target)

    def _next_first(self, kind: str, name: str, text: str, after: int, before: int) -> int:
        """The first live fact after `after` (and before `before`) giving `name` type `text`."""
        for fid, raw, fields in self.db.execute(
                "SELECT id, kind, fields FROM facts WHERE user = ? AND id > ? AND id < ? "
                "AND retracts IS NULL AND kind IS NOT NULL ORDER BY id", (self.user, after, before)):
            if _kind_of(raw) != kind:
                continue
            value_type = type_of(json.loads(fields).get(name))
            if value_type is None or type_to_text(value_type) != text:
                continue
            if not self.db.execute("SELECT 1 FROM facts WHERE user = ? AND retracts = ? AND id < ?",
                                   (self.user, fid, before)).fetchone():
                return int(fid)
        raise _OutOfStep(kind, name)

    def _refold(self, kind: str, name: str, dropped: int) -> None:
        values = self.values[(kind, name)]
        order = sorted(values.counts.items(), key=lambda item: item[1][1])
        new_type = fold_types(kind, name, [type_from_text(text) for text, _ in order])
        known = self.types.get((kind, name))
        if new_type is None:
            self.types.pop((kind, name), None)
            self.db.execute("DELETE FROM field_types WHERE user = ? AND kind = ? AND field = ?",
                            (self.user, kind, name))
        elif known is None:
            self.types[(kind, name)] = Established(new_type, [], exact=False)
        else:
            known.type = new_type
            if dropped in known.fact_ids:
                known.fact_ids.remove(dropped)
                known.exact = False
            known.dirty = True

    def store(self) -> None:
        """Write back what changed."""
        for (kind, name), values in self.values.items():
            if not values.dirty:
                continue
            self.db.execute("DELETE FROM field_value_types WHERE user = ? AND kind = ? AND field = ?",
                            (self.user, kind, name))
            self.db.executemany(
                "INSERT INTO field_value_types (user, kind, field, type, live, first_id) VALUES (?, ?, ?, ?, ?, ?)",
                [(self.user, kind, name, text, live, first) for text, (live, first) in values.counts.items()])
            values.dirty = False
        self.db.executemany(
            "INSERT OR REPLACE INTO field_types (user, kind, field, type, fact_ids, cited_exact) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(self.user, kind, name, type_to_text(e.type), json.dumps(e.fact_ids), int(e.exact))
             for (kind, name), e in self.types.items() if e.dirty])
        for e in self.types.values():
            e.dirty = False


def check_and_record(db: SqlConnection, user: str, facts: Sequence[NewFact], first_id: int,
                     allow_retype: bool) -> None:
    """Inside the append transaction: refuse a retype (unless allowed), then record the new
    facts' types. `first_id` is the id the first of `facts` got (they are inserted, not
    committed); each fact is checked against the log before it, earlier facts of the batch
    (and their retractions) included."""
    try:
        _check_and_record(db, user, facts, first_id, allow_retype)
    except _OutOfStep:
        _forget_types(db, user)
        _check_and_record(db, user, facts, first_id, allow_retype)


def _check_and_record(db: SqlConnection, user: str, facts: Sequence[NewFact], first_id: int,
                      allow_retype: bool) -> None:
    _refresh(db, user, upto=first_id - 1)
    tables = _Tables(db, user)
    for offset, fact in enumerate(facts):
        fid = first_id + offset
        if fact.retracts is not None:
            tables.retract(fact.retracts, fid)
        elif fact.kind is not None:
            try:
                tables.add(_kind_of(fact.kind), fact.fields, fid, allow_retype)
            except _Refused as refused:
                known = refused.known
                cited = known.fact_ids if known is not None and known.exact else \
                    _cited(db, user, refused.kind, refused.name, fid)
                raise InputError(_refusal(refused, cited)) from None
    tables.store()
    _set_position(db, user, first_id + len(facts) - 1)


def refresh(db: SqlConnection, user: str, upto: int | None = None) -> None:
    """Bring the tables up to fact `upto` (default: the user's head): facts appended or
    imported since, retractions included. Tables that disagree with the log are rebuilt."""
    try:
        _refresh(db, user, upto)
    except _OutOfStep:
        _forget_types(db, user)
        _refresh(db, user, upto)


def _forget_types(db: SqlConnection, user: str) -> None:
    for table in ("field_types", "field_value_types", "field_types_position"):
        db.execute(f"DELETE FROM {table} WHERE user = ?", (user,))


def _refresh(db: SqlConnection, user: str, upto: int | None = None) -> None:
    row = db.execute("SELECT position FROM field_types_position WHERE user = ?", (user,)).fetchone()
    position = int(row[0]) if row else 0
    head = upto if upto is not None else \
        db.execute("SELECT COALESCE(MAX(id), 0) FROM facts WHERE user = ?", (user,)).fetchone()[0]
    if head <= position:
        return
    tables = _Tables(db, user)
    for fid, kind, fields, retracts in db.execute(
            "SELECT id, kind, fields, retracts FROM facts WHERE user = ? AND id > ? AND id <= ? ORDER BY id",
            (user, position, head)):
        if retracts is not None:
            tables.retract(retracts, fid)
        elif kind is not None:
            tables.add(_kind_of(kind), json.loads(fields), fid, allow_retype=True)  # stored facts are history
    tables.store()
    _set_position(db, user, head)


def _cited(db: SqlConnection, user: str, kind: str, name: str, before: int) -> list[int]:
    """The facts a fold of the live log before `before` cites for `kind`.`name`: the first
    live ones giving it a value, up to the one that retyped it (read only to word a refusal)."""
    cited: list[int] = []
    known: PyType | None = None
    wanted = canonical_type(kind, name)
    for fid, raw, fields in db.execute(
            "SELECT id, kind, fields FROM facts WHERE user = ? AND id < ? AND retracts IS NULL "
            "AND kind IS NOT NULL ORDER BY id", (user, before)):
        if _kind_of(raw) != kind:
            continue
        value_type = type_of(json.loads(fields).get(name))
        if value_type is None or db.execute("SELECT 1 FROM facts WHERE user = ? AND retracts = ? AND id < ?",
                                            (user, fid, before)).fetchone():
            continue
        known, _ = _step(known, value_type, wanted)
        cited.append(fid)
        if len(cited) >= MAX_CITED or known is CONFLICT:
            break
    return cited


def _refusal(refused: _Refused, cited: list[int]) -> str:
    sources = []
    if refused.wanted is not None:
        sources.append("the canonical vocabulary")
    if cited:
        more = "" if len(cited) < MAX_CITED else ", ..."
        sources.append(f"fact{'s' if len(cited) > 1 else ''} {', '.join(map(str, cited))}{more}")
    shown = json.dumps(refused.value, ensure_ascii=False)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return (f"field {refused.name!r} of {refused.kind} is {describe_type(refused.wanted or refused.base)} "
            f"(established by {' and '.join(sources)}); {shown} is {describe_type(refused.value_type)}: "
            f"refused (use --allow-retype to change its type deliberately)")


def _set_position(db: SqlConnection, user: str, position: int) -> None:
    db.execute("INSERT INTO field_types_position (user, position) VALUES (?, ?) "
               "ON CONFLICT (user) DO UPDATE SET position = excluded.position", (user, position))


def established(db: SqlConnection, user: str, kind: str) -> dict[str, Established]:
    """The established field types of one kind (for messages and tests)."""
    refresh(db, user)
    tables = _Tables(db, user)
    tables.load(normalize_kind(kind))
    return {name: e for (_, name), e in tables.types.items()}

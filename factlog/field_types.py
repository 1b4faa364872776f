"""Type drift at the door: a value must keep the type its field already has.

A field's established type is the join (`factlog.value_types`, the compiler's own rules) of
the values live facts of its kind gave it, and for a canonical field the vocabulary's type.
A new value whose join with it is a retype (a CONFLICT, or a number/date becoming text) is
refused, naming the field, the expected type and the facts that established it, unless the
caller allows the retype; after an allowed retype the field is text (as the compiler makes
it) and takes anything.

Established types are kept in a small table, `field_types` (user, kind, field) -> type and
the first facts that gave it, brought up to date from the facts appended since its
`field_types_position`, inside the append's transaction. A retraction rebuilds the kinds it
touches from their live facts; anything else costs only the new facts.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from factlog.errors import InputError
from factlog.kinds import normalize_kind
from factlog.model import JsonValue, NewFact
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


State = dict[tuple[str, str], Established]  # (kind, field) -> established type


@lru_cache(maxsize=4096)
def canonical_type(kind: str, name: str) -> PyType | None:
    domain = CANONICAL.get(kind)
    annotation = domain.fields.get(name) if domain else None
    return SCALARS[annotation] if annotation else None


def check_and_record(db: sqlite3.Connection, user: str, facts: Sequence[NewFact], first_id: int,
                     allow_retype: bool) -> None:
    """Inside the append transaction: refuse a retype (unless allowed), then record the new
    facts' types. `first_id` is the id the first of `facts` got (they are inserted, not
    committed)."""
    refresh(db, user, upto=first_id - 1)
    kinds = {normalize_kind(f.kind) for f in facts if f.kind is not None and f.retracts is None}
    state = _load(db, user, kinds)
    for offset, fact in enumerate(facts):
        if fact.kind is not None and fact.retracts is None:
            _fold(state, normalize_kind(fact.kind), fact.fields, first_id + offset, allow_retype)
    if any(f.retracts is not None for f in facts):
        return  # the next refresh() rebuilds the retracted kinds and folds the rest
    _store(db, user, state, kinds)
    _set_position(db, user, first_id + len(facts) - 1)


def refresh(db: sqlite3.Connection, user: str, upto: int | None = None) -> None:
    """Bring the table up to fact `upto` (default: the user's head): facts appended since,
    imported ones, and the kinds retractions touched."""
    row = db.execute("SELECT position FROM field_types_position WHERE user = ?", (user,)).fetchone()
    position = int(row[0]) if row else 0
    head = upto if upto is not None else \
        db.execute("SELECT COALESCE(MAX(id), 0) FROM facts WHERE user = ?", (user,)).fetchone()[0]
    if head <= position:
        return
    rows = db.execute("SELECT id, kind, fields, retracts FROM facts WHERE user = ? AND id > ? AND id <= ? "
                      "ORDER BY id", (user, position, head)).fetchall()
    rebuild: set[str] = set()
    pending: list[tuple[int, str, dict[str, JsonValue]]] = []
    for fid, kind, fields, retracts in rows:
        if retracts is not None:
            target = db.execute("SELECT kind FROM facts WHERE user = ? AND id = ?", (user, retracts)).fetchone()
            if target is not None and target[0] is not None:
                rebuild.add(normalize_kind(target[0]))
        elif kind is not None:
            pending.append((fid, normalize_kind(kind), json.loads(fields)))
    if rebuild:
        _rebuild(db, user, rebuild, head)
    kinds = {kind for _, kind, _ in pending} - rebuild
    state = _load(db, user, kinds)
    for fid, kind, fields in pending:
        if kind in kinds:
            _fold(state, kind, fields, fid, allow_retype=True)  # stored facts are history
    _store(db, user, state, kinds)
    _set_position(db, user, head)


def _rebuild(db: sqlite3.Connection, user: str, kinds: set[str], upto: int) -> None:
    """The established types of `kinds` from their live facts (after a retraction)."""
    dead: set[int] = set()
    for target, fid in db.execute("SELECT retracts, id FROM facts WHERE user = ? AND retracts IS NOT NULL "
                                  "AND id <= ?", (user, upto)):
        dead.update((target, fid))
    raw = [k for (k,) in db.execute("SELECT DISTINCT kind FROM facts WHERE user = ? AND kind IS NOT NULL",
                                    (user,)) if normalize_kind(k) in kinds]
    state: State = {}
    for kind in raw:
        for fid, fields in db.execute("SELECT id, fields FROM facts WHERE user = ? AND kind = ? AND id <= ? "
                                      "ORDER BY id", (user, kind, upto)):
            if fid not in dead:
                _fold(state, normalize_kind(kind), json.loads(fields), fid, allow_retype=True)
    _store(db, user, state, kinds, rebuilt=True)


def _fold(state: State, kind: str, fields: dict[str, JsonValue], fid: int, allow_retype: bool) -> None:
    for name, value in fields.items():
        value_type = type_of(value)
        if value_type is None:
            continue
        known = state.get((kind, name))
        if known is not None and known.type == value_type and len(known.fact_ids) >= MAX_CITED:
            continue  # the same type again: nothing to check or record
        wanted = canonical_type(kind, name)
        if known is not None and known.type is CONFLICT:
            continue  # retyped deliberately before: the field is text now
        base = known.type if known is not None else wanted
        if base is None:
            state[(kind, name)] = Established(value_type, [fid])
            continue
        # A text field stays text whatever it is given (the compiler keeps other values as
        # their text), so `number=123456789` in a passport is no retype.
        joined = STR if base == STR else join(base, value_type)
        fits = joined == wanted if wanted is not None else widens(base, joined)
        if not fits and not allow_retype:
            raise InputError(_refusal(kind, name, value, value_type, base, wanted, known))
        if known is None:
            state[(kind, name)] = Established(joined if fits else CONFLICT, [fid])
        else:
            new_type = joined if fits else CONFLICT
            if new_type != known.type or len(known.fact_ids) < MAX_CITED:
                known.dirty = True
                known.type = new_type
                if len(known.fact_ids) < MAX_CITED:
                    known.fact_ids.append(fid)


def _refusal(kind: str, name: str, value: JsonValue, value_type: PyType, base: PyType,
             wanted: PyType | None, known: Established | None) -> str:
    sources = []
    if wanted is not None:
        sources.append("the canonical vocabulary")
    if known is not None:
        more = "" if len(known.fact_ids) < MAX_CITED else ", ..."
        sources.append(f"fact{'s' if len(known.fact_ids) > 1 else ''} "
                       f"{', '.join(map(str, known.fact_ids))}{more}")
    shown = json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return (f"field {name!r} of {kind} is {describe_type(wanted or base)} (established by "
            f"{' and '.join(sources)}); {shown} is {describe_type(value_type)}: "
            f"refused (use --allow-retype to change its type deliberately)")


def _load(db: sqlite3.Connection, user: str, kinds: Iterable[str]) -> State:
    state: State = {}
    for kind in kinds:
        for name, text, ids in db.execute(
                "SELECT field, type, fact_ids FROM field_types WHERE user = ? AND kind = ?", (user, kind)):
            state[(kind, name)] = Established(type_from_text(text), json.loads(ids), dirty=False)
    return state


def _store(db: sqlite3.Connection, user: str, state: State, kinds: set[str], *, rebuilt: bool = False) -> None:
    """Write back what changed; a rebuilt kind replaces every row it had."""
    if rebuilt:
        for kind in kinds:
            db.execute("DELETE FROM field_types WHERE user = ? AND kind = ?", (user, kind))
    db.executemany(
        "INSERT OR REPLACE INTO field_types (user, kind, field, type, fact_ids) VALUES (?, ?, ?, ?, ?)",
        [(user, kind, name, type_to_text(e.type), json.dumps(e.fact_ids))
         for (kind, name), e in state.items() if kind in kinds and (e.dirty or rebuilt)])


def _set_position(db: sqlite3.Connection, user: str, position: int) -> None:
    db.execute("INSERT INTO field_types_position (user, position) VALUES (?, ?) "
               "ON CONFLICT (user) DO UPDATE SET position = excluded.position", (user, position))


def established(db: sqlite3.Connection, user: str, kind: str) -> dict[str, Established]:
    """The established field types of one kind (for messages and tests)."""
    refresh(db, user)
    return {name: e for (_, name), e in _load(db, user, {normalize_kind(kind)}).items()}


"""A retraction costs the retracted fact's fields, not its kind: the established field types
are kept as live value-type counts per field, and always equal a fold of the live log in id
order (the from-scratch rebuild), refusals and their messages included."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from old_workspace import old_workspace

from factlog.errors import InputError
from factlog.field_types import canonical_type, refresh
from factlog.kinds import normalize_kind
from factlog.liveness import dead_ids
from factlog.model import Fact, JsonValue, NewFact, Provenance
from factlog.sqlite import SqliteFactStore
from factlog.value_types import CONFLICT, STR, PyType, describe_type, join, type_of, type_to_text, widens

MAX_CITED = 5


# -- the oracle: the fold of the live log, as the door computed it before counts -------------

class Refused(Exception):
    pass


def fold(state: dict[tuple[str, str], tuple[PyType, list[int]]], kind: str, fields: dict[str, JsonValue],
         fid: int, allow_retype: bool) -> None:
    for name, value in fields.items():
        value_type = type_of(value)
        if value_type is None:
            continue
        known = state.get((kind, name))
        wanted = canonical_type(kind, name)
        if known is not None and known[0] is CONFLICT:
            continue
        base = known[0] if known is not None else wanted
        if base is None:
            state[(kind, name)] = (value_type, [fid])
            continue
        joined = STR if base == STR else join(base, value_type)
        fits = joined == wanted if wanted is not None else widens(base, joined)
        if not fits and not allow_retype:
            raise Refused(message(kind, name, value, value_type, base, wanted, known))
        ids = known[1] if known is not None else []
        state[(kind, name)] = (joined if fits else CONFLICT, ids + [fid] if len(ids) < MAX_CITED else ids)


def message(kind: str, name: str, value: JsonValue, value_type: PyType, base: PyType, wanted: PyType | None,
            known: tuple[PyType, list[int]] | None) -> str:
    sources = []
    if wanted is not None:
        sources.append("the canonical vocabulary")
    if known is not None:
        more = "" if len(known[1]) < MAX_CITED else ", ..."
        sources.append(f"fact{'s' if len(known[1]) > 1 else ''} {', '.join(map(str, known[1]))}{more}")
    shown = json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return (f"field {name!r} of {kind} is {describe_type(wanted or base)} (established by "
            f"{' and '.join(sources)}); {shown} is {describe_type(value_type)}: "
            f"refused (use --allow-retype to change its type deliberately)")


def rebuild(facts: list[Fact]) -> dict[tuple[str, str], tuple[PyType, list[int]]]:
    dead = dead_ids(facts)
    state: dict[tuple[str, str], tuple[PyType, list[int]]] = {}
    for f in sorted(facts, key=lambda f: f.id):
        if f.id not in dead and f.retracts is None and f.kind is not None:
            fold(state, normalize_kind(f.kind), f.fields, f.id, allow_retype=True)
    return state


def expected_outcome(facts: list[Fact], batch: list[NewFact], allow_retype: bool) -> str | None:
    """The refusal message for `batch` (each fact checked against the live log before it), or None."""
    log = list(facts)
    next_id = max((f.id for f in log), default=0) + 1
    for new in batch:
        if new.kind is not None and new.retracts is None:
            try:
                fold(rebuild(log), normalize_kind(new.kind), new.fields, next_id, allow_retype)
            except Refused as refused:
                return str(refused)
        log.append(Fact(user="me", id=next_id, recorded_at="2026-12-01T00:00:00+00:00", text=new.text,
                        kind=new.kind, fields=new.fields, key=None, valid_from=None, valid_to=None,
                        retracts=new.retracts, provenance=Provenance(), prev_hash="", hash=""))
        next_id += 1
    return None


# -- what the tables hold --------------------------------------------------------------------

def tables(store: SqliteFactStore) -> tuple[dict[tuple[str, str], tuple[str, list[int], bool]],
                                            dict[tuple[str, str, str], tuple[int, int]]]:
    db = store._db
    db.execute("BEGIN IMMEDIATE")
    refresh(db, "me")
    db.execute("COMMIT")
    types = {(k, f): (t, json.loads(ids), bool(exact)) for k, f, t, ids, exact in db.execute(
        "SELECT kind, field, type, fact_ids, cited_exact FROM field_types WHERE user = 'me'")}
    counts = {(k, f, t): (live, first) for k, f, t, live, first in db.execute(
        "SELECT kind, field, type, live, first_id FROM field_value_types WHERE user = 'me'")}
    return types, counts


def expected_counts(facts: list[Fact]) -> dict[tuple[str, str, str], tuple[int, int]]:
    dead = dead_ids(facts)
    out: dict[tuple[str, str, str], tuple[int, int]] = {}
    for f in sorted(facts, key=lambda f: f.id):
        if f.id in dead or f.retracts is not None or f.kind is None:
            continue
        for name, value in f.fields.items():
            value_type = type_of(value)
            if value_type is not None:
                key = (normalize_kind(f.kind), name, type_to_text(value_type))
                live, first = out.get(key, (0, f.id))
                out[key] = (live + 1, first)
    return out


def assert_matches_rebuild(store: SqliteFactStore) -> None:
    facts = list(store.facts("me")) if store.knows("me") else []
    types, counts = tables(store)
    want = rebuild(facts)
    assert {k: t for k, (t, _, _) in types.items()} == {k: type_to_text(t) for k, (t, _) in want.items()}
    live = {f.id for f in facts} - dead_ids(facts)
    for key, (_, ids, exact) in types.items():
        if exact:
            assert ids == want[key][1], key
        else:
            assert set(ids) <= live, key  # a retracted citation is dropped
    assert counts == expected_counts(facts)


def raw_retraction(store: SqliteFactStore, target: int) -> None:
    """A retraction the door refuses (of a retraction, or twice) as an import could bring it."""
    db = store._db
    fid, prev = db.execute("SELECT id, hash FROM facts WHERE user = 'me' ORDER BY id DESC LIMIT 1").fetchone()
    db.execute("INSERT INTO facts (user, id, recorded_at, text, kind, fields, retracts, prev_hash, hash) "
               "VALUES ('me', ?, '2026-12-01T00:00:00+00:00', 'x', NULL, '{}', ?, ?, ?)",
               (fid + 1, target, prev, f"h{fid + 1}"))


# -- the property -------------------------------------------------------------------------------

VALUES = st.sampled_from([
    None, 1, 2, 2.5, True, "cheap", "2025-01-15", "2025-01-16 10:00", "10:00", {"a": 1},
    [], [1], [1.5], ["a"], ["2025-01-01"], ["a", None], [[1]], [1, "a"],
])
FIELDS = st.dictionaries(st.sampled_from(["price", "label", "cost_usd", "name"]), VALUES, max_size=3)
KINDS = st.sampled_from(["gadget", "gadgets", "trip", "passport"])
ADD = st.tuples(st.just("add"), KINDS, FIELDS)
RETRACT = st.tuples(st.just("retract"), st.integers(0, 10_000))
STEP = st.one_of(
    st.tuples(st.just("append"), st.lists(st.one_of(ADD, ADD, RETRACT), min_size=1, max_size=4), st.booleans()),
    st.tuples(st.just("raw"), st.integers(0, 10_000)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, min_size=1, max_size=14))
def test_incremental_types_equal_a_rebuild_after_any_history(steps: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteFactStore(Path(tmp) / "facts.db")
        try:
            for step in steps:
                facts = list(store.facts("me")) if store.knows("me") else []
                if step[0] == "raw":
                    if facts:
                        raw_retraction(store, facts[step[1] % len(facts)].id)
                else:
                    _, items, allow_retype = step
                    batch = _batch(facts, items)
                    if not batch:
                        continue
                    want = expected_outcome(facts, batch, allow_retype)
                    if want is None:
                        store.append("me", batch, allow_retype=allow_retype)
                    else:
                        with pytest.raises(InputError) as refused:
                            store.append("me", batch, allow_retype=allow_retype)
                        assert str(refused.value) == want
                assert_matches_rebuild(store)
        finally:
            store.close()


def _batch(facts: list[Fact], items: list[Any]) -> list[NewFact]:
    """Adds, and retractions of facts the door takes (live, not retractions)."""
    dead = dead_ids(facts)
    open_ids = [f.id for f in facts if f.id not in dead and f.retracts is None]
    batch: list[NewFact] = []
    for item in items:
        if item[0] == "add":
            batch.append(NewFact("x", kind=item[1], fields=item[2]))
        elif open_ids:
            batch.append(NewFact("retract", retracts=open_ids.pop(item[1] % len(open_ids))))
    return batch


# -- what a retraction reads --------------------------------------------------------------------

def _steps(store: SqliteFactStore) -> Callable[[], int]:
    counter = [0]

    def tick() -> int:
        counter[0] += 1
        return 0

    store._db.set_progress_handler(tick, 100)
    return lambda: counter[0]


def _gadget(i: int) -> NewFact:
    return NewFact(f"g{i}", kind="gadget", fields={"price": i, "name": f"g{i}", "tags": ["a"]})


def test_a_retraction_costs_its_fields_not_its_kind(tmp_path: Path) -> None:
    costs = []
    for size in (50, 5000):
        store = SqliteFactStore(tmp_path / f"{size}.db")
        try:
            store.append("me", [_gadget(i) for i in range(size)])
            store.append("me", [NewFact("warm", kind="gadget", fields={"price": 1})])
            read: list[str] = []
            store._db.set_trace_callback(read.append)
            steps = _steps(store)
            store.append("me", [NewFact("oops", retracts=size // 2)])
            store.append("me", [NewFact("one more", kind="gadget", fields={"price": 2.5})], allow_retype=False)
            costs.append(steps())
            assert not [s for s in read if "kind = ?" in s], read  # no read of the whole kind
        finally:
            store.close()
    assert costs[1] < 3 * costs[0] + 50, costs  # 100x the log, about the same work


def test_retracting_the_retyping_values_restores_the_number_type(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db")
    try:
        store.append("me", [NewFact("a", kind="gadget", fields={"price": 10})])
        store.append("me", [NewFact("b", kind="gadget", fields={"price": "cheap"})], allow_retype=True)
        store.append("me", [NewFact("c", kind="gadget", fields={"price": "dear"})], allow_retype=False)  # text now
        store.append("me", [NewFact("undo", retracts=2)])
        store.append("me", [NewFact("x", kind="gadget", fields={"price": [1]})], allow_retype=False)  # still text
        store.append("me", [NewFact("undo", retracts=3), NewFact("undo", retracts=5)])
        with pytest.raises(InputError, match=r"'price' of gadget is int \(established by fact 1\)"):
            store.append("me", [NewFact("d", kind="gadget", fields={"price": "cheap"})], allow_retype=False)
    finally:
        store.close()


def test_a_refusal_after_retracted_citations_names_the_live_facts(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db")
    try:
        store.append("me", [NewFact(f"g{i}", kind="gadget", fields={"price": i}) for i in range(8)])
        store.append("me", [NewFact("undo", retracts=2)])
        with pytest.raises(InputError, match=r"established by facts 1, 3, 4, 5, 6, \.\.\.\)"):
            store.append("me", [NewFact("d", kind="gadget", fields={"price": "cheap"})], allow_retype=False)
    finally:
        store.close()


def test_an_old_workspace_rebuilds_its_field_types_once(tmp_path: Path) -> None:
    home = tmp_path / "old"
    shutil.copytree(old_workspace(), home)
    store = SqliteFactStore(home / "facts.db")
    try:
        with pytest.raises(InputError, match=r"'cost_usd' of trip is float .*facts 18, 19, 20, 21, 22, \.\.\."):
            store.append("sam", [NewFact("t", kind="trip", fields={"cost_usd": "a lot"})], allow_retype=False)
        store.append("sam", [NewFact("undo", retracts=18)])
        with sqlite3.connect(home / "facts.db") as db:
            assert db.execute("SELECT live, first_id FROM field_value_types WHERE user = 'sam' AND kind = 'trip' "
                              "AND field = 'cost_usd'").fetchone() == (5, 19)
    finally:
        store.close()


def test_damaged_counts_fall_back_to_a_rebuild(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db")
    try:
        store.append("me", [NewFact(f"g{i}", kind="gadget", fields={"price": i}) for i in range(4)])
        store.append("me", [NewFact("b", kind="gadget", fields={"price": "cheap"})], allow_retype=True)
        store._db.execute("DELETE FROM field_value_types WHERE type = 'str'")
        store.append("me", [NewFact("undo", retracts=5)])
        with pytest.raises(InputError, match=r"'price' of gadget is int \(established by facts 1, 2, 3, 4\)"):
            store.append("me", [NewFact("d", kind="gadget", fields={"price": "dear"})], allow_retype=False)
        store._db.execute("DELETE FROM field_value_types")
        store.append("me", [NewFact("undo", retracts=1)])
        assert_matches_rebuild(store)
    finally:
        store.close()

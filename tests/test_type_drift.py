"""Item 3 of issue 7: a value that changes its field's established type is refused at the door.

The established type is the join (the compiler's own rules, `factlog.value_types`) of the
values live facts gave the field, or the canonical vocabulary's type; `--allow-retype`
makes the change deliberate, and `uac diff` reports it as a schema change.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Callable

import pytest

from factlog.errors import InputError
from factlog.model import NewFact
from factlog.sqlite import SqliteFactStore
from runtime.memory import Memory
from users.checkpoint import Published

Uac = Callable[..., Any]


def test_retyping_a_number_field_is_refused_naming_field_type_and_facts(uac: Uac) -> None:
    assert uac("add", "me", "--kind", "gadget", "--field", "price=10").code == 0
    assert uac("add", "me", "--kind", "gadget", "--field", "price=12.5").code == 0  # int + float: a number
    assert uac("add", "me", "--kind", "gadget", "--field", "name=x").code == 0  # missing: fine
    assert uac("add", "me", "--kind", "gadget", "--field", "price=null").code == 0  # None: fine
    before = uac("log", "me", "--json").out
    r = uac("add", "me", "--kind", "gadgets", "--field", "price=cheap")  # the plural is the same kind
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    assert "'price'" in r.err and "float" in r.err and "facts 1, 2" in r.err and "--allow-retype" in r.err
    assert uac("log", "me", "--json").out == before


def test_canonical_type_is_established_without_any_fact(uac: Uac) -> None:
    r = uac("add", "me", "--kind", "trip", "--field", "cost_usd=expensive")
    assert r.code == 2 and "'cost_usd'" in r.err and "float" in r.err and "canonical vocabulary" in r.err
    assert uac("add", "me", "--kind", "trip", "--field", "cost_usd=1200").code == 0  # an int is a number
    r = uac("add", "me", "--kind", "trip", "--field", "is_international=maybe")
    assert r.code == 2 and "'is_international'" in r.err and "bool" in r.err
    assert uac("add", "me", "--kind", "trip", "--field", "departure_date=2025-01-15").code == 0


def test_a_date_field_turning_into_text_is_a_retype(uac: Uac) -> None:
    assert uac("add", "me", "--kind", "visit", "--field", "on=2025-01-15").code == 0
    r = uac("add", "me", "--kind", "visit", "--field", "on=next week")
    assert r.code == 2 and "'on'" in r.err and "date" in r.err and "fact 1" in r.err
    assert uac("add", "me", "--kind", "visit", "--field", "on=2025-01-16 10:00").code == 0  # date -> datetime


def test_record_file_refuses_a_retype_within_itself(uac: Uac, tmp_path: Path) -> None:
    path = tmp_path / "bills.jsonl"
    path.write_text('{"payee": "Gas", "amount_usd": 40}\n{"payee": "Tax", "amount_usd": "a lot"}\n',
                    encoding="utf-8")
    r = uac("ingest", "me", str(path), "--kind", "bill")
    assert r.code == 2 and "'amount_usd'" in r.err
    assert "no such user" in uac("log", "me").err  # all or nothing
    assert uac("ingest", "me", str(path), "--kind", "bill", "--allow-retype").code == 0


def test_allow_retype_then_diff_reports_a_schema_change(home: Path) -> None:
    mem = Memory.open(home)
    try:
        mem.add("me", "Oslo", kind="trip", key="oslo", fields={"destination": "Oslo", "rating": 4})
        assert isinstance(mem.checkpoint("me"), Published)
        with pytest.raises(InputError, match="'rating' of trip is int"):
            mem.add("me", "Rome", kind="trip", key="rome", fields={"destination": "Rome", "rating": "great"})
        fact = mem.add("me", "Rome", kind="trip", key="rome", fields={"destination": "Rome", "rating": "great"},
                       allow_retype=True)
        assert isinstance(mem.checkpoint("me"), Published)
        diff = mem.diff("me")
        [trip] = [c for c in diff.classes if c.name == "Trip"]
        [rating] = [f for f in trip.fields if f.name == "rating"]
        assert rating.change == "retyped" and "int" in (rating.before or "") and "str" in (rating.after or "")
        assert fact.id in rating.fact_ids
        mem.add("me", "Bergen", kind="trip", fields={"rating": 5})  # deliberately text now: anything goes
    finally:
        mem.close()


def test_retracting_the_establishing_facts_frees_the_type(home: Path) -> None:
    mem = Memory.open(home)
    try:
        first = mem.add("me", kind="gadget", fields={"price": 10})
        with pytest.raises(InputError, match="fact 1"):
            mem.add("me", kind="gadget", fields={"price": "cheap"})
        mem.retract("me", first.id)
        mem.add("me", kind="gadget", fields={"price": "cheap"})
    finally:
        mem.close()


def _steps(store: SqliteFactStore) -> Callable[[], int]:
    """SQLite virtual-machine steps the store's connection runs (a count, not a time)."""
    counter = [0]

    def tick() -> int:
        counter[0] += 1
        return 0

    store._db.set_progress_handler(tick, 100)
    return lambda: counter[0]


def test_the_check_reads_only_what_is_new_not_the_whole_log(tmp_path: Path) -> None:
    costs = []
    for size in (50, 5000):
        store = SqliteFactStore(tmp_path / f"{size}.db")
        try:
            store.append("me", [NewFact(f"g{i}", kind="gadget", fields={"price": i, "name": f"g{i}"})
                                for i in range(size)])
            store.append("me", [NewFact("warm", kind="gadget", fields={"price": 1})])
            steps = _steps(store)
            store.append("me", [NewFact("one more", kind="gadget", fields={"price": 2.5})], allow_retype=False)
            costs.append(steps())
        finally:
            store.close()
    assert costs[1] < 3 * costs[0] + 20, costs  # 100x the log, about the same work
    with sqlite3.connect(tmp_path / "5000.db") as db:
        row = db.execute("SELECT type, fact_ids FROM field_types WHERE user = 'me' AND field = 'price'").fetchone()
    assert row[0] == "float" and json.loads(row[1])[:2] == [1, 2]


def test_a_text_field_takes_numbers_without_a_retype(uac: Uac) -> None:
    """The compiler keeps a text field text (a number becomes its text), so it is no drift."""
    assert uac("add", "me", "--kind", "passport", "--field", "number=123456789").code == 0
    assert uac("add", "me", "--kind", "gadget", "--field", "label=red").code == 0
    assert uac("add", "me", "--kind", "gadget", "--field", "label=7").code == 0
    assert uac("add", "me", "--kind", "gadget", "--field", "label=true").code == 0

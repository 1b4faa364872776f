"""Store contract: sourced (idempotent) appends, forget, import, and read-only opening."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import pytest

from contract.store_kits import StoreKit
from factlog.errors import InputError, NotFound
from factlog.hashing import GENESIS
from factlog.model import Fact, NewFact
from factlog.store import FactStore

NewKit = Callable[[], StoreKit]


def notes(*texts: str) -> list[NewFact]:
    return [NewFact(t, kind="note", fields={"text": t}) for t in texts]


# -- sourced appends ----------------------------------------------------------------------------

def test_a_sourced_append_stores_each_source_once(store: FactStore) -> None:
    items = [(f, f"records:abc:{n}") for n, f in enumerate(notes("one", "two", "three"), start=1)]
    first = store.append_sourced("alice", items)
    assert [f.id for f in first.stored] == [1, 2, 3] and first.skipped == 0
    again = store.append_sourced("alice", items + [(NewFact("four"), "records:abc:4")])
    assert [f.text for f in again.stored] == ["four"] and again.skipped == 3
    assert store.head("alice") == 4


def test_again_appends_every_fact_and_sources_are_per_user(store: FactStore) -> None:
    items = [(f, f"s:{n}") for n, f in enumerate(notes("one", "two"))]
    store.append_sourced("alice", items)
    forced = store.append_sourced("alice", items, again=True)
    assert [f.id for f in forced.stored] == [3, 4] and forced.skipped == 0
    assert [f.id for f in store.append_sourced("bob", items).stored] == [1, 2]  # bob's own sources
    unsourced = store.append_sourced("alice", [(NewFact("no source"), None)] * 2)
    assert len(unsourced.stored) == 2 and unsourced.skipped == 0
    assert store.append_sourced("alice", []).stored == []


def test_a_failing_sourced_append_stores_no_fact_and_no_source(store: FactStore) -> None:
    items = [(NewFact("good"), "s:1"), (NewFact("bad", retracts=9), "s:2")]
    with pytest.raises(InputError):
        store.append_sourced("alice", items)
    assert not store.knows("alice")
    assert len(store.append_sourced("alice", items[:1]).stored) == 1


# -- forget ---------------------------------------------------------------------------------------

def test_forget_erases_the_user_and_leaves_the_others(store: FactStore) -> None:
    store.append("alice", notes(*(f"secret {i}" for i in range(30))))
    store.append("bob", [NewFact("bob stays")])
    bob = list(store.facts("bob"))
    assert store.forget("alice") == 30
    assert store.users() == ["bob"] and list(store.facts("bob")) == bob and store.verify().ok
    assert store.head("alice") == 0 and store.high_water("alice") == 0 and not store.knows("alice")
    assert list(store.facts("alice")) == [] and [f.user for f in store.all_facts()] == ["bob"]
    with pytest.raises(NotFound):
        store.get("alice", 1)
    assert store.append("bob", [NewFact("bob goes on")])[0].id == 2
    assert store.forget("nobody") == 0


def test_a_user_forgotten_and_created_again_starts_afresh(store: FactStore) -> None:
    """Nothing of the old user is left to be confused with the new one: ids start at 1 from
    the genesis hash, the old sources and field types are gone with them."""
    store.append_sourced("alice", [(NewFact("g", kind="gadget", fields={"price": 10}), "s:1")])
    store.forget("alice")
    new = store.append_sourced("alice", [(NewFact("g", kind="gadget", fields={"price": "cheap"}), "s:1")],
                               allow_retype=False)
    assert [(f.id, f.prev_hash) for f in new.stored] == [(1, GENESIS)] and new.skipped == 0
    assert store.verify().ok


# -- import ---------------------------------------------------------------------------------------

def exported(kit: StoreKit) -> list[Fact]:
    source = kit.open()
    source.append("alice", notes("one", "two") + [NewFact("Retracts fact 1", retracts=1)])
    source.append("bob", [NewFact("bob's")])
    return list(source.all_facts())


def test_import_restores_facts_exactly_and_can_be_repeated(new_kit: NewKit) -> None:
    facts = exported(new_kit())
    target = new_kit().open()
    assert target.import_facts(facts) == 4
    assert list(target.all_facts()) == facts and target.verify().ok
    assert target.import_facts(facts) == 0
    assert target.append("alice", [NewFact("after import")])[0].id == 4


def test_an_import_is_all_or_nothing(new_kit: NewKit) -> None:
    facts = exported(new_kit())
    target = new_kit().open()
    changed = replace(facts[-1], text="changed after export")
    with pytest.raises(InputError, match="bob/1"):
        target.import_facts(facts[:-1] + [changed])
    assert target.users() == [] and not target.knows("alice")
    with pytest.raises(InputError, match="does not continue"):
        target.import_facts(facts[1:])  # alice's fact 1 is missing
    assert target.users() == []
    target.append("alice", [NewFact("a different first fact")])
    with pytest.raises(InputError, match="differs from the stored fact"):
        target.import_facts(facts)
    assert target.head("alice") == 1 and target.users() == ["alice"]


def test_imported_facts_establish_types(new_kit: NewKit) -> None:
    source = new_kit().open()
    source.append("me", [NewFact("x", kind="gadget", fields={"price": 10})])
    target = new_kit().open()
    target.import_facts(list(source.all_facts()))
    with pytest.raises(InputError, match="'price' of gadget is int"):
        target.append("me", [NewFact("y", kind="gadget", fields={"price": "cheap"})], allow_retype=False)


# -- read-only opening ----------------------------------------------------------------------------

def test_a_read_only_store_reads_and_never_writes(kit: StoreKit) -> None:
    assert kit.open(read_only=True).users() == []  # nothing written yet: an empty log
    writer = kit.open()
    writer.append("alice", [NewFact("one")])
    reader = kit.open(read_only=True)
    writer.append("alice", [NewFact("two")])  # written after the reader opened: it sees it
    assert [f.text for f in reader.facts("alice")] == ["one", "two"] and reader.head("alice") == 2
    assert reader.verify().ok and reader.users() == ["alice"]
    for write in (lambda: reader.append("alice", [NewFact("three")]),
                  lambda: reader.append_sourced("alice", [(NewFact("three"), "s:1")]),
                  lambda: reader.import_facts(list(writer.all_facts())),
                  lambda: reader.forget("alice")):
        with pytest.raises(InputError, match="read-only"):
            write()
    assert [f.text for f in writer.facts("alice")] == ["one", "two"]

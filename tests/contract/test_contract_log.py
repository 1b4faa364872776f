"""Store contract: appending and reading. Every test runs against every store (`kit`)."""

from __future__ import annotations

import typing
from datetime import date

import pytest

from factlog.errors import InputError, NotFound
from factlog.hashing import GENESIS
from factlog.model import NewFact, Provenance, check_user_id
from factlog.store import FactStore


def protocol_members() -> set[str]:
    return {name for name in vars(FactStore) if not name.startswith("_")} - set(dir(typing.Protocol))


def test_the_store_has_every_member_of_the_protocol(store: FactStore) -> None:
    missing = {name for name in protocol_members() if not hasattr(store, name)}
    assert not missing


def test_ids_are_per_user_and_chained(store: FactStore) -> None:
    a = store.append("alice", [NewFact("one"), NewFact("two")])
    b = store.append("bob", [NewFact("uno")])
    c = store.append("alice", [NewFact("three", kind="trip", fields={"destination": "Tokyo"}, key="t1",
                                       valid_from=date(2025, 1, 1),
                                       provenance=Provenance("s1", 3, "user", "2024-11-15 10:30:00"))])
    assert [f.id for f in a + c] == [1, 2, 3] and b[0].id == 1
    assert a[0].prev_hash == GENESIS and a[1].prev_hash == a[0].hash and c[0].prev_hash == a[1].hash
    stored = store.get("alice", 3)
    assert stored == c[0]
    assert stored.provenance.message_index == 3 and stored.fields == {"destination": "Tokyo"}
    assert [f.text for f in store.facts("alice", after=1)] == ["two", "three"]
    assert store.head("alice") == 3 and store.users() == ["alice", "bob"]
    assert store.verify().ok and store.verify().checked == 4


def test_stored_facts_never_change(store: FactStore) -> None:
    """Whatever happens later (more appends, retractions, another user forgotten), a stored
    fact reads back exactly as the append returned it."""
    first = store.append("alice", [NewFact("one", kind="note", fields={"n": 1}), NewFact("two")])
    store.append("bob", [NewFact("bob's")])
    store.append("alice", [NewFact("Retracts fact 1", retracts=1), NewFact("three")])
    store.forget("bob")
    assert [store.get("alice", 1), store.get("alice", 2)] == first
    assert list(store.facts("alice", upto=2)) == first


def test_reads_by_range_and_per_user_order(store: FactStore) -> None:
    for n in range(1, 7):  # interleaved appends of two users
        store.append("alice", [NewFact(f"a{n}")])
        store.append("bob", [NewFact(f"b{n}"), NewFact(f"b{n}'")])
    assert [f.id for f in store.facts("alice")] == [1, 2, 3, 4, 5, 6]
    assert [f.text for f in store.facts("alice")] == [f"a{n}" for n in range(1, 7)]
    assert [f.id for f in store.facts("bob")] == list(range(1, 13))
    assert [f.id for f in store.facts("alice", after=2, upto=4)] == [3, 4]
    assert list(store.facts("alice", after=6)) == [] and list(store.facts("alice", upto=0)) == []
    assert [f.id for f in store.facts("alice", after=-5, upto=10 ** 30)] == [1, 2, 3, 4, 5, 6]
    everyone = [(f.user, f.id) for f in store.all_facts()]
    assert everyone == [("alice", n) for n in range(1, 7)] + [("bob", n) for n in range(1, 13)]


def test_head_knows_high_water_and_users(store: FactStore) -> None:
    assert store.users() == [] and store.head("alice") == 0 and store.high_water("alice") == 0
    assert not store.knows("alice")
    store.append("carol", [NewFact("c")])
    store.append("alice", [NewFact("a1"), NewFact("a2")])
    assert store.head("alice") == 2 and store.high_water("alice") == 2 and store.knows("alice")
    assert store.users() == ["alice", "carol"] and not store.knows("bob")


@pytest.mark.parametrize("fact_id", [0, -1, 3, 10 ** 30, True])
def test_get_of_a_missing_fact_is_not_found(store: FactStore, fact_id: int) -> None:
    store.append("alice", [NewFact("one"), NewFact("two")])
    with pytest.raises(NotFound):
        store.get("alice", fact_id)
    with pytest.raises(NotFound):
        store.get("bob", 1)


def test_retraction_rules(store: FactStore) -> None:
    store.append("alice", [NewFact("I live in Paris")])
    r = store.append("alice", [NewFact("Retracts fact 1", retracts=1)])[0]
    assert r.retracts == 1
    with pytest.raises(InputError, match="already retracted"):
        store.append("alice", [NewFact("again", retracts=1)])
    with pytest.raises(InputError, match="itself a retraction"):
        store.append("alice", [NewFact("undo", retracts=2)])
    with pytest.raises(InputError, match="does not exist"):
        store.append("alice", [NewFact("ghost", retracts=99)])
    assert store.head("alice") == 2


def test_retraction_within_one_batch_and_across_users(store: FactStore) -> None:
    store.append("bob", [NewFact("bob's 1"), NewFact("bob's 2"), NewFact("bob's 3")])
    stored = store.append("alice", [NewFact("new"), NewFact("Retracts fact 1", retracts=1)])
    assert [f.retracts for f in stored] == [None, 1]
    with pytest.raises(InputError, match="already retracted"):
        store.append("alice", [NewFact("x"), NewFact("again", retracts=1)])
    with pytest.raises(InputError, match="does not exist"):  # bob's fact 3 is not alice's
        store.append("alice", [NewFact("not hers", retracts=3)])
    with pytest.raises(InputError, match="does not exist"):  # a fact of the same batch, later on
        store.append("alice", [NewFact("ahead", retracts=4), NewFact("x")])
    assert store.head("alice") == 2 and store.head("bob") == 3


def test_a_bad_fact_in_a_batch_writes_nothing(store: FactStore) -> None:
    store.append("alice", [NewFact("first")])
    with pytest.raises(InputError):
        store.append("alice", [NewFact("good"), NewFact("bad", retracts=50), NewFact("good too")])
    assert store.head("alice") == 1 and store.verify().ok
    assert store.append("alice", [NewFact("next")])[0].id == 2


@pytest.mark.parametrize("user", ["../x", "/etc", "", "a" * 65, "bob\x00", "al\nice", "аlice", "a/b",
                                  "..", ".hidden", "a..b", "Ａlice", "-x"])
def test_unsafe_user_ids_are_refused(user: str, store: FactStore) -> None:
    with pytest.raises(InputError, match="user id"):
        check_user_id(user)
    with pytest.raises(InputError):
        store.append(user, [NewFact("x")])
    assert store.users() == []


def test_text_at_the_limit_is_accepted(store: FactStore) -> None:
    store.append("alice", [NewFact("é" * (32 * 1024))])
    assert store.head("alice") == 1 and store.get("alice", 1).text == "é" * (32 * 1024)


def test_an_empty_append_writes_nothing(store: FactStore) -> None:
    assert store.append("alice", []) == []
    assert store.users() == [] and not store.knows("alice")


def test_type_drift_is_refused_unless_allowed(store: FactStore) -> None:
    store.append("alice", [NewFact("g", kind="gadget", fields={"price": 10})], allow_retype=False)
    with pytest.raises(InputError, match="'price' of gadget is int"):
        store.append("alice", [NewFact("h", kind="gadget", fields={"price": "cheap"})], allow_retype=False)
    with pytest.raises(InputError, match="'price'"):
        store.append_sourced("alice", [(NewFact("h", kind="gadget", fields={"price": "cheap"}), "src:1")],
                             allow_retype=False)
    assert store.head("alice") == 1
    store.append("alice", [NewFact("h", kind="gadget", fields={"price": "cheap"})], allow_retype=True)
    assert store.head("alice") == 2


def test_the_canonical_type_holds_before_any_fact(store: FactStore) -> None:
    with pytest.raises(InputError, match="'cost_usd'"):
        store.append("alice", [NewFact("t", kind="trip", fields={"cost_usd": "a lot"})], allow_retype=False)
    assert not store.knows("alice")


def test_facts_by_id_reads_scattered_facts_of_one_user(store: FactStore) -> None:
    alice = store.append("alice", [NewFact(f"a{i}") for i in range(1, 8)])
    store.append("bob", [NewFact(f"b{i}") for i in range(1, 8)])
    found = store.facts_by_id("alice", [6, 2, 2, 99, 0, -3, 4])
    assert found == [alice[1], alice[3], alice[5]]  # in id order, each once, missing ids left out
    assert [f.user for f in store.facts_by_id("bob", range(1, 1200))] == ["bob"] * 7  # past one query's batch
    assert store.facts_by_id("carol", [1, 2]) == []

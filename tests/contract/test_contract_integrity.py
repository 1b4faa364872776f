"""Store contract: the hash chain, `verify`, ids that are never reused, and the chain key.
Tampering goes through the kit's hooks (the store's own back door), so the tests are generic."""

from __future__ import annotations

import pytest

from contract.store_kits import StoreKit
from factlog.errors import InputError
from factlog.hashing import content_hash
from factlog.model import NewFact
from factlog.store import FactStore

KEY = b"k" * 32
OTHER_KEY = b"o" * 32


def ten_facts(store: FactStore, user: str = "alice") -> None:
    store.append(user, [NewFact(f"fact {i}") for i in range(1, 11)])


def test_each_hash_covers_the_fact_and_links_the_one_before(store: FactStore) -> None:
    ten_facts(store)
    facts = list(store.facts("alice"))
    assert all(f.hash == content_hash(f.body()) for f in facts)
    assert all(b.prev_hash == a.hash for a, b in zip(facts, facts[1:]))
    report = store.verify("alice")
    assert report.ok and report.checked == 10


def test_tampering_behind_our_back_is_named_by_verify(kit: StoreKit, store: FactStore) -> None:
    store.append("alice", [NewFact(f"fact {i}") for i in range(1, 6)])
    store.append("bob", [NewFact("bob's fact")])
    kit.change_text("alice", 3, "I never said this")
    report = store.verify()
    assert not report.ok and report.user == "alice" and report.fact_id == 3
    assert "hash" in (report.reason or "")
    assert store.verify("bob").ok


def test_deleted_fact_breaks_the_chain_at_the_next_one(kit: StoreKit, store: FactStore) -> None:
    store.append("alice", [NewFact(f"fact {i}") for i in range(1, 5)])
    kit.delete_fact("alice", 2)
    report = store.verify("alice")
    assert not report.ok and report.fact_id == 3 and "missing" in (report.reason or "")


def test_deleting_the_newest_facts_is_reported_and_their_ids_are_not_reused(kit: StoreKit,
                                                                            store: FactStore) -> None:
    ten_facts(store)
    for fact_id in (8, 9, 10):
        kit.delete_fact("alice", fact_id)
    report = store.verify("alice")
    assert not report.ok and report.user == "alice" and report.fact_id == 8
    assert "8-10 are missing" in (report.reason or "")
    assert store.head("alice") == 7 and store.high_water("alice") == 10 and store.knows("alice")
    new = store.append("alice", [NewFact("after the deletion")])[0]
    assert new.id == 11  # never 8: a module must not show a deleted fact under a new fact's id
    report = store.verify("alice")
    assert not report.ok and report.fact_id == 11 and "missing" in (report.reason or "")


def test_deleting_every_fact_of_a_user_is_still_reported(kit: StoreKit, store: FactStore) -> None:
    ten_facts(store)
    store.append("bob", [NewFact("bob's")])
    for fact_id in range(1, 11):
        kit.delete_fact("alice", fact_id)
    report = store.verify()
    assert not report.ok and report.user == "alice" and "1-10 are missing" in (report.reason or "")
    assert store.verify("bob").ok and store.knows("alice")
    assert store.append("alice", [NewFact("again")])[0].id == 11


def test_a_keyed_store_chains_with_the_key(kit: StoreKit) -> None:
    keyed = kit.open(chain_key=KEY)
    assert not keyed.keyed  # an empty log becomes keyed at its first write
    ten_facts(keyed)
    assert keyed.keyed and keyed.verify().ok
    fact = keyed.get("alice", 1)
    assert fact.hash == content_hash(fact.body(), KEY) != content_hash(fact.body())


def test_a_keyed_store_detects_a_change_even_with_a_rehashed_chain(kit: StoreKit) -> None:
    keyed = kit.open(chain_key=KEY)
    ten_facts(keyed)
    kit.change_text("alice", 4, "forged")
    report = keyed.verify()
    assert not report.ok and report.fact_id == 4 and "keyed hash" in (report.reason or "")


def test_a_keyed_store_refuses_writes_without_its_key_or_with_another(kit: StoreKit) -> None:
    kit.open(chain_key=KEY).append("alice", [NewFact("one")])
    unkeyed = kit.open()
    assert [f.text for f in unkeyed.facts("alice")] == ["one"]  # reading needs no key
    with pytest.raises(InputError, match="chained with a key and none is configured"):
        unkeyed.append("alice", [NewFact("two")])
    with pytest.raises(InputError, match="cannot verify.*chained with a key"):
        unkeyed.verify()
    with pytest.raises(InputError, match="not the key this log was chained with"):
        kit.open(chain_key=OTHER_KEY).append("alice", [NewFact("three")])
    assert [f.text for f in kit.open(chain_key=KEY).facts("alice")] == ["one"]


def test_an_unkeyed_store_does_not_silently_become_keyed(kit: StoreKit) -> None:
    kit.open().append("alice", [NewFact("one")])
    with pytest.raises(InputError, match="chained without a key, but a chain key is configured"):
        kit.open(chain_key=KEY).append("alice", [NewFact("two")])
    assert not kit.open().keyed


def test_two_keys_racing_to_key_an_empty_store(kit: StoreKit) -> None:
    """Both open the empty log; the first write keys it; the other key is refused at write."""
    first, second = kit.open(chain_key=KEY), kit.open(chain_key=OTHER_KEY)
    first.append("alice", [NewFact("one")])
    with pytest.raises(InputError, match="not the key this log was chained with"):
        second.append("alice", [NewFact("two")])
    with pytest.raises(InputError, match="not the key this log was chained with"):
        second.verify()
    assert first.verify().ok and first.head("alice") == 1

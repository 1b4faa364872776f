"""The quarantine predicate passes a plain fact without the full check, and its verdict is
always the full check's (whatever facts came before)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raw_facts import raw_fact

import codegen.quarantine as quarantine
from codegen.compile import compile_package
from codegen.quarantine import fact_problem
from codegen.safety_rules import Limits
from factlog.hashing import GENESIS
from factlog.model import Fact, JsonValue

names = st.sampled_from(["city", "cost", "__secret", "__init__", "note", "x" * 41])
scalars = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), st.integers(-10**33, 10**33),
                    st.text(max_size=4), st.sampled_from(["a" * 262_144, "b" * 262_145]))
values = st.one_of(scalars, st.lists(scalars, max_size=3), st.dictionaries(st.text(max_size=3), scalars, max_size=2))
kinds = st.sampled_from([None, "trip", "Trip", "expense", "x" * 65])


def _fact(fact_id: int, kind: str | None, fields: dict[str, JsonValue], text: str = "a stored fact") -> Fact:
    return raw_fact("alice", fact_id, GENESIS, kind=kind, fields=fields, text=text)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(kinds, st.dictionaries(names, values, max_size=4), st.sampled_from(["t", "t" * 262_145])),
                min_size=1, max_size=6))
def test_the_verdict_is_the_full_checks_whatever_came_before(items: list[tuple[str | None, dict[str, JsonValue],
                                                                                 str]]) -> None:
    for number, (kind, fields, text) in enumerate(items, start=1):
        fact = _fact(number, kind, fields, text)
        assert fact_problem(fact) == quarantine._problem(fact, Limits())


def test_many_records_together_too_large_for_one_file_still_fail() -> None:
    fact_problem(_fact(1, "trip", {f"p{i}": "x" for i in range(5)}))  # the names are known now
    huge = _fact(2, "trip", {f"p{i}": "b" * 262_000 for i in range(5)})
    assert fact_problem(huge) == quarantine._problem(huge, Limits()) is not None


def test_plain_facts_of_a_known_shape_skip_the_full_check(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    full = quarantine._problem

    def counted(fact: Fact, limits: Limits) -> str | None:
        calls.append(fact.id)
        return full(fact, limits)

    monkeypatch.setattr(quarantine, "_problem", counted)
    facts = [_fact(n, "shipment", {"carrier": f"c{n}", "weight_kg": n * 1.5, "pieces": n, "fragile": n % 2 == 0,
                                   "notes": None}) for n in range(1, 201)]
    package = compile_package("alice", facts)
    assert package.record_counts["shipments"] == 200 and not package.quarantined
    assert len(calls) <= 2  # the first of the shape (and at most one more); not one per fact

"""JSONL export and import round-trip exactly (hypothesis over generated facts)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factlog.errors import InputError
from factlog.model import NewFact, Provenance
from runtime.memory import Memory

safe_text = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=40).filter(str.strip)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**60, 2**60),
                         st.floats(allow_nan=False, allow_infinity=False), safe_text)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(safe_text, inner, max_size=3)), max_leaves=8)

new_facts = st.builds(
    NewFact,
    text=safe_text,
    kind=st.one_of(st.none(), st.sampled_from(["trip", "passport", "my_kind"])),
    fields=st.dictionaries(safe_text, json_values, max_size=4),
    valid_from=st.one_of(st.none(), st.dates(date(1900, 1, 1), date(2100, 1, 1))),
    provenance=st.builds(Provenance, st.one_of(st.none(), safe_text), st.one_of(st.none(), st.integers(0, 500)),
                         st.sampled_from([None, "user", "assistant"]), st.just(None)),
).filter(lambda f: f.kind is not None or not f.fields)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(new_facts, min_size=1, max_size=5), min_size=1, max_size=4))
def test_export_then_import_reproduces_the_log_exactly(tmp_path_factory: pytest.TempPathFactory,
                                                        batches: list[list[NewFact]]) -> None:
    src = Memory.open(tmp_path_factory.mktemp("src"))
    for batch in batches:
        src.facts.append("alice", batch)
    first = tmp_path_factory.mktemp("x") / "export.jsonl"
    src.export(first)
    dst = Memory.open(tmp_path_factory.mktemp("dst"))
    assert dst.import_(first) == sum(map(len, batches))
    assert list(dst.log("alice")) == list(src.log("alice"))
    second = first.with_name("again.jsonl")
    dst.export(second)
    assert first.read_bytes() == second.read_bytes()
    assert dst.import_(first) == 0  # importing again adds nothing
    assert dst.verify().ok


def test_import_refuses_a_tampered_export_and_writes_nothing(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "a")
    mem.add("alice", "one")
    mem.add("alice", "two")
    exported = tmp_path / "e.jsonl"
    mem.export(exported)
    lines = exported.read_text().splitlines()
    record = json.loads(lines[1])
    record["text"] = "three"
    exported.write_text(lines[0] + "\n" + json.dumps(record) + "\n")
    other = Memory.open(tmp_path / "b")
    with pytest.raises(InputError, match="hash does not match"):
        other.import_(exported)
    assert other.users() == []

"""The incremental compiler (`codegen.compile.compile_incremental`) gives the same bytes as a
full compile after any sequence of batches; stable chunking by ordinal; the state is a cache."""

from __future__ import annotations

import math
import os
import sqlite3
from datetime import date
from pathlib import Path

from fact_helpers import make_fact
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from raw_facts import raw_fact

from codegen import state_write
from codegen.compile import ListLog, compile_incremental, compile_package
from factlog.hashing import GENESIS
from factlog.model import Fact, JsonValue

VALUES: list[JsonValue] = [1, 2.5, "x", "2024-01-02", "2024-01-02T10:00", "10:30", True, None, [1, None],
                           [], ["a"], {"k": 1}, "__x"]

# one step: (op, kind index, key index, field index, value index, target offset, valid day)
step = st.tuples(st.sampled_from(["add", "add", "update", "keyless", "note", "retract", "bad"]),
                 st.integers(0, 3), st.integers(0, 5), st.integers(0, 3), st.integers(0, len(VALUES) - 1),
                 st.integers(1, 40), st.integers(0, 3))
KINDS = ["trip", "trips", "pet", "passport"]  # `trips` is `trip`; passport is singular
FIELDS = ["cost_usd", "name", "when", "note"]


def _facts(steps: list[tuple[str, int, int, int, int, int, int]]) -> list[Fact]:
    facts: list[Fact] = []
    for i, (op, kind, key, name, value, target, day) in enumerate(steps, start=1):
        valid = date(2024, 1, 1 + day) if day else None
        fields: dict[str, JsonValue] = {FIELDS[name]: VALUES[value]}
        if op == "retract" and i > 1:
            facts.append(make_fact(i, "retract", retracts=max(1, i - target)))
        elif op == "note":
            facts.append(make_fact(i, f"note {i}", fields={"dates": ["2024-02-02"]} if value % 2 else {}))
        elif op == "bad":  # stored around the door's checks: quarantined
            facts.append(raw_fact("alice", i, GENESIS, kind=KINDS[kind], key=f"k{key}", fields={"__x": 1}))
        elif op == "keyless":
            facts.append(make_fact(i, "k", kind=KINDS[kind], fields=fields, valid_from=valid))
        else:
            facts.append(make_fact(i, "f", kind=KINDS[kind], key=f"k{key}", fields=fields, valid_from=valid))
    return facts


def _cuts(n: int, sizes: list[int]) -> list[int]:
    cuts, at = [], 0
    for size in sizes:
        at += size
        if at >= n:
            break
        cuts.append(at)
    return [*cuts, n]


@settings(max_examples=int(os.environ.get("UAC_PROPERTY_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=45), sizes=st.lists(st.integers(1, 12), min_size=1, max_size=8),
       behind=st.booleans())
def test_incremental_equals_full(tmp_path_factory: object, steps: list[tuple[str, int, int, int, int, int, int]],
                                 sizes: list[int], behind: bool) -> None:
    """`behind`: a rebuild's state is written by a forked child (`codegen.state_write`)."""
    facts = _facts(steps)
    state = tmp_path_factory.mktemp("state") / "u.sqlite"  # type: ignore[attr-defined]
    for cut in _cuts(len(facts), sizes):
        prefix = facts[:cut]
        incremental = compile_incremental("alice", state, ListLog(prefix), chunk_records=3,
                                          write_behind=0 if behind else None)
        full = compile_package("alice", prefix, chunk_records=3)
        assert incremental.files == full.files, (cut, incremental.rebuilt)
        assert incremental.input_hash == full.input_hash
    state_write.wait(state)  # the last rebuild's writer, if any, ends with the example


def _interleaved(n: int, kinds: int) -> list[Fact]:
    return [make_fact(i, "f", kind=f"kind{i % kinds}", key=f"k{i}", fields={"n": i}) for i in range(1, n + 1)]


def test_interleaved_and_sorted_arrival_give_the_same_chunks() -> None:
    n, kinds = 3000, 4
    interleaved = _interleaved(n, kinds)
    by_kind = sorted(interleaved, key=lambda f: (f.kind or "", f.id))
    renumbered = [make_fact(i, "f", kind=f.kind, key=f.key, fields=f.fields) for i, f in enumerate(by_kind, 1)]
    a = compile_package("alice", interleaved).files
    b = compile_package("alice", renumbered).files
    assert sorted(a) == sorted(b)
    for k in range(kinds):
        chunks = [name for name in a if name.startswith(f"kind{k}_")]
        assert len(chunks) == math.ceil(n / kinds / 500)
        for name in chunks:  # same records, same order (fact ids differ with the renumbering)
            assert a[name].count("Kind") == b[name].count("Kind")


def test_new_facts_render_only_what_they_touch(tmp_path: Path) -> None:
    facts = _interleaved(2000, 4)
    state = tmp_path / "s.sqlite"
    first = compile_incremental("alice", state, ListLog(facts))
    assert first.rebuilt == "no state"
    more = facts + [make_fact(2001, "f", kind="kind1", key="k5", fields={"n": 7}),
                    make_fact(2002, "f", kind="kind2", key="new", fields={"n": 8})]
    second = compile_incremental("alice", state, ListLog(more))
    assert second.rebuilt is None
    assert second.rendered == {"__init__.py", "kind1_000.py", "kind2_001.py"}
    assert second.files == compile_package("alice", more).files


def test_schema_change_renders_the_kind(tmp_path: Path) -> None:
    facts = _interleaved(1200, 2)
    state = tmp_path / "s.sqlite"
    compile_incremental("alice", state, ListLog(facts))
    more = facts + [make_fact(1201, "f", kind="kind1", key="k1", fields={"n": "text now"})]
    second = compile_incremental("alice", state, ListLog(more))
    assert second.rebuilt is None
    assert {"kind1.py", "kind1_000.py", "kind1_001.py"} <= second.rendered
    assert not any(name.startswith("kind0") for name in second.rendered)
    assert second.files == compile_package("alice", more).files


def test_a_bad_state_is_rebuilt_with_the_same_output(tmp_path: Path) -> None:
    facts = _interleaved(300, 3)
    state = tmp_path / "s.sqlite"
    compile_incremental("alice", state, ListLog(facts[:200]))
    expected = compile_package("alice", facts).files
    # corrupt file
    state.write_bytes(b"not a database" * 100)
    for suffix in ("-wal", "-shm"):
        state.with_name(state.name + suffix).unlink(missing_ok=True)
    again = compile_incremental("alice", state, ListLog(facts))
    assert again.files == expected and again.rebuilt
    # a state describing another log (anchor mismatch)
    other = [make_fact(i, "g", kind="other", fields={"x": i}) for i in range(1, 150)]
    assert compile_incremental("alice", state, ListLog(other)).rebuilt == "state ahead of the log"  # left alone
    assert compile_incremental("alice", state, ListLog(facts)).rebuilt is None
    state.unlink()
    compile_incremental("alice", state, ListLog(other))
    again = compile_incremental("alice", state, ListLog(facts))
    assert again.files == expected and again.rebuilt == "log does not continue the state"
    # a forget epoch change
    compile_incremental("alice", state, ListLog(facts[:250]), epoch="e1")
    again = compile_incremental("alice", state, ListLog(facts), epoch="e2")
    assert again.files == expected and again.rebuilt == "forget epoch changed"
    # tampered rows: the meta row says a later position than the log
    with sqlite3.connect(state) as conn:
        conn.execute("UPDATE meta SET value = '9999' WHERE key = 'position'")
    again = compile_incremental("alice", state, ListLog(facts), epoch="e2")
    assert again.files == expected and again.rebuilt == "state ahead of the log"
    # missing file
    state.unlink()
    assert compile_incremental("alice", state, ListLog(facts)).files == expected


def test_field_order_follows_a_retracted_first_holder(tmp_path: Path) -> None:
    facts = [make_fact(1, "a", kind="thing", key="a", fields={"x": 1, "y": 2}),
             make_fact(2, "b", kind="thing", key="b", fields={"y": 3, "x": 4, "z": 5})]
    state = tmp_path / "s.sqlite"
    first = compile_incremental("alice", state, ListLog(facts))
    assert first.files["thing.py"].index("    x: int") < first.files["thing.py"].index("    y: int")
    more = [*facts, make_fact(3, "r", retracts=1)]
    second = compile_incremental("alice", state, ListLog(more))
    assert second.rebuilt is None and "thing.py" in second.rendered
    assert second.files["thing.py"].index("    y: int") < second.files["thing.py"].index("    x: int")
    assert second.files == compile_package("alice", more).files

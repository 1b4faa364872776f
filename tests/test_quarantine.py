"""One bad old fact must never block a user: it is quarantined, everything else publishes.

The bad facts are written around the door (tests/raw_facts.py), as an old log holds them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from raw_facts import append_raw, raw_fact

import codegen.compile
from codegen.compile import compile_package
from codegen.coverage import coverage
from factlog.hashing import GENESIS
from factlog.model import Fact, JsonValue
from runtime.memory import Memory
from users.checkpoint import Published
from users.versions import PublishMeta

Uac = Callable[..., Any]
USER = "qa"

BAD_FIELDS: dict[str, tuple[dict[str, JsonValue], str]] = {
    "dunder-name": ({"__secret": "x"}, "'__secret'"),
    "long-integer": ({"cost_usd": 10**40}, "32 digits"),
    "long-string": ({"notes": "a" * 262_145}, "262145 characters"),
    "int-float-mix": ({"cost_usd": 10**400}, "32 digits"),
    "huge-record": ({f"part{i}": "b" * 262_000 for i in range(5)}, "a record may hold at most 1048576"),
}


def _seed(uac: Uac, home: Path, bad: dict[str, JsonValue]) -> int:
    """Two good trips (one with a float cost), then one bad trip written around the door."""
    for key, destination, cost in (("T1", "Lisbon", "800.5"), ("T2", "Tokyo", "1200.0")):
        r = uac("add", USER, f"trip to {destination}", "--kind", "trip", "--key", key,
                "--field", f"destination={destination}", "--field", "departure_date=2031-05-01",
                "--field", f"cost_usd={cost}")
        assert r.code == 0, r.err
    return append_raw(home / "facts.db", USER, text="a bad trip", kind="trip", key="T3",
                      fields={"destination": "Nowhere", **bad}).id


def _json(uac: Uac, *args: str) -> Any:
    r = uac(*args, "--json")
    assert r.code == 0, (args, r.out, r.err)
    return json.loads(r.out)


@pytest.mark.parametrize("case", sorted(BAD_FIELDS))
def test_a_bad_old_fact_is_quarantined_and_the_rest_publishes(uac: Uac, home: Path, case: str) -> None:
    fields, words = BAD_FIELDS[case]
    bad = _seed(uac, home, fields)
    assert uac("verify", USER).code == 0  # the raw row continues the chain
    published = _json(uac, "checkpoint", USER, "--now", "2030-01-01")
    assert published["outcome"] == "published", published
    assert list(published["quarantined"]) == [str(bad)]
    assert _json(uac, "query", USER, "sorted(t.destination for t in trips)")["value"] == ["Lisbon", "Tokyo"]
    assert _json(uac, "query", USER, "sum(t.cost_usd for t in trips)")["value"] == 2000.5
    reason = _json(uac, "show", USER)["quarantined"][str(bad)]
    assert words in reason


def test_quarantine_lifecycle_show_history_later_checkpoint_retraction(uac: Uac, home: Path) -> None:
    bad = _seed(uac, home, {"__secret": "x"})
    first = uac("checkpoint", USER)
    assert first.code == 0, first.err
    assert f"quarantined fact {bad}: " in first.out and "__secret" in first.out

    manifest = json.loads((home / "users" / USER / "v000001" / "manifest.json").read_text())
    assert set(manifest["quarantined"]) == {str(bad)} and "__secret" in manifest["quarantined"][str(bad)]
    shown = uac("show", USER)
    assert shown.code == 0 and f"quarantined fact {bad}: field name '__secret'" in shown.out
    table = uac("history", USER)
    assert table.code == 0 and f"v1 quarantined fact {bad}: " in table.out and "quarantined" in table.out

    # a later checkpoint still works (and still lists the fact)
    assert uac("add", USER, "a note about the weather").code == 0
    second = _json(uac, "checkpoint", USER)
    assert second["outcome"] == "published" and second["version"] == 2
    assert list(second["quarantined"]) == [str(bad)]

    # retracting the bad fact removes it from the quarantine
    assert uac("retract", USER, str(bad)).code == 0
    third = _json(uac, "checkpoint", USER)
    assert third["outcome"] == "published" and third["quarantined"] == {}
    history = _json(uac, "history", USER)
    assert [sorted(v["quarantined"]) for v in history] == [[str(bad)], [str(bad)], []]
    assert _json(uac, "show", USER)["quarantined"] == {}
    assert "quarantined" not in uac("show", USER).out


def test_a_bad_update_leaves_the_entity_as_its_good_facts_made_it(home: Path) -> None:
    mem = Memory.open(home)
    try:
        good = mem.add(USER, "trip", kind="trip", key="T1", fields={"destination": "Lisbon", "cost_usd": 10.5})
        bad = append_raw(home / "facts.db", USER, kind="trip", key="T1", fields={"cost_usd": 10**50})
        result = mem.checkpoint(USER)
        assert isinstance(result, Published), result
        assert mem.manifest(USER).quarantined.keys() == {bad.id}
        trip = mem.module(USER).trips[0]
        assert (trip.cost_usd, trip.fact_ids) == (10.5, [good.id])
    finally:
        mem.close()


@pytest.mark.parametrize(("fields", "rule"), [({"notes": "a" * 262_145}, "[literal-size] string literal of 262145"),
                                              ({"__secret": "x"}, "[dunder] name '__secret'")])
def test_what_the_predicate_misses_safety_names_and_the_checkpoint_retries(
        home: Path, monkeypatch: pytest.MonkeyPatch, fields: dict[str, JsonValue], rule: str) -> None:
    """With the limit checks switched off, the safety stage refuses the record's own line:
    its facts are quarantined with that problem as the reason, and the rest publishes."""
    monkeypatch.setattr(codegen.compile, "fact_problem", lambda fact: None)
    mem = Memory.open(home)
    try:
        mem.add(USER, "trip", kind="trip", key="T1", fields={"destination": "Lisbon"})
        bad = append_raw(home / "facts.db", USER, kind="trip", key="T2", fields=fields)
        mem.add(USER, "trip", kind="trip", key="T3", fields={"destination": "Oslo"})
        result = mem.checkpoint(USER)
        assert isinstance(result, Published), result
        quarantined = mem.manifest(USER).quarantined
        assert list(quarantined) == [bad.id]
        assert quarantined[bad.id].startswith(rule)
        assert [t.destination for t in mem.module(USER).trips] == ["Lisbon", "Oslo"]
    finally:
        mem.close()


def test_problems_off_a_record_line_name_no_fact() -> None:
    from codegen.problems import Problem
    from codegen.quarantine import culprit_facts

    files = {"trip_000.py": "x = 1\n    Trip(a=1, fact_ids=[4, 7]),\n"}
    problems = [Problem("dunder", "trip_000.py", 1, 0, "no"), Problem("literal-size", "trip_000.py", 2, 5, "big"),
                Problem("x", "other.py", 2, 0, "?"), Problem("x", "trip_000.py", 9, 0, "?")]
    assert culprit_facts(problems, files) == {4: "[literal-size] big", 7: "[literal-size] big"}


def _fact(fact_id: int, kind: str | None, fields: dict[str, JsonValue], key: str | None = None) -> Fact:
    return raw_fact("alice", fact_id, GENESIS, kind=kind, fields=fields, key=key)


def test_an_entity_that_fails_to_render_is_quarantined(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond the predicate: an entity whose record cannot be rendered (here the int/float
    mix, with the limit check switched off) takes its facts into quarantine, and the
    kind's types are inferred again without it."""
    monkeypatch.setattr(codegen.compile, "fact_problem", lambda fact: None)
    facts = [_fact(1, "trip", {"v": 1.5}, "A"), _fact(2, "trip", {"v": 10**400}, "B"), _fact(3, "trip", {"v": 2})]
    package = compile_package("alice", facts)
    assert list(package.quarantined) == [2]
    assert "trip/B could not be compiled: OverflowError" in package.quarantined[2]
    assert package.record_counts["trips"] == 2
    assert "v=1.5" in package.files["trip_000.py"] and "v=2.0" in package.files["trip_000.py"]


def test_an_entity_whose_literal_cannot_be_written_is_quarantined(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendering the chunk fails: the records are tried one by one to find the culprit."""
    import codegen.record_source
    import codegen.render

    real = codegen.render.py_literal

    def picky(value: object, *args: Any) -> str:
        if value == "boom":
            raise ValueError("cannot write boom")
        return real(value, *args)

    monkeypatch.setattr(codegen.render, "py_literal", picky)
    monkeypatch.setattr(codegen.record_source, "str_literal", picky)  # the fast path fails too, and falls back
    facts = [_fact(1, "trip", {"v": "ok"}, "A"), _fact(2, "trip", {"v": "boom"}, "B"), _fact(3, "trip", {"v": "x"})]
    package = compile_package("alice", facts)
    assert package.quarantined == {2: "trip/B could not be compiled: ValueError: cannot write boom"}
    assert package.record_counts["trips"] == 2


def test_a_package_without_bad_facts_is_unchanged_by_quarantine() -> None:
    facts = [_fact(1, "trip", {"v": 1}, "A"), _fact(2, None, {}), _fact(3, "trip", {"__x__": 1})]
    package = compile_package("alice", facts)
    assert package.quarantined == {}
    bad = compile_package("alice", [*facts, _fact(4, "trip", {"__x": 1})])
    assert list(bad.quarantined) == [4]
    # only `__init__.py` (whose header gives the log position) differs
    assert {k: v for k, v in bad.files.items() if k != "__init__.py"} == \
        {k: v for k, v in package.files.items() if k != "__init__.py"}


def test_a_retracted_bad_fact_is_not_quarantined() -> None:
    facts = [_fact(1, "trip", {"__x": 1}), raw_fact("alice", 2, GENESIS, retracts=1)]
    assert compile_package("alice", facts).quarantined == {}


def test_coverage_accounts_for_quarantined_facts() -> None:
    import types
    from dataclasses import make_dataclass

    module = types.ModuleType("m")
    record = make_dataclass("R", [("fact_ids", list)])
    module.items = [record([1]), record([3])]  # type: ignore[attr-defined]
    report = coverage(module, {1, 2, 3}, {2})
    assert report.complete and report.quarantined == (2,)
    assert coverage(module, {1, 2, 3}).missing == (2,)
    cited_but_quarantined = coverage(module, {1, 2, 3}, {2, 3})
    assert cited_but_quarantined.unknown == (3,)
    not_live = coverage(module, {1, 3}, {9})
    assert not_live.unknown == (9,)


def test_publish_meta_quarantined_round_trips_and_is_checked() -> None:
    meta = PublishMeta(log_position=3, input_hash="abc", producer="compiler", quarantined={3: "too long"})
    data = json.loads(json.dumps(meta.to_json()))
    assert data["quarantined"] == {"3": "too long"}
    assert PublishMeta.from_json(data).quarantined == {3: "too long"}
    old = {k: v for k, v in data.items() if k != "quarantined"}
    assert PublishMeta.from_json(old).quarantined == {}
    from factlog.errors import InputError

    with pytest.raises(InputError):
        PublishMeta(log_position=3, input_hash="abc", producer="compiler", quarantined={0: "x"})
    with pytest.raises(InputError):
        PublishMeta(log_position=3, input_hash="abc", producer="compiler", quarantined={1: ""})


def test_text_the_door_refuses_but_the_compiler_writes_is_not_quarantined() -> None:
    """Control and bidi characters are escaped data to the compiler."""
    facts = [_fact(1, "memo", {"body": "nul\x00, bidi \u202e, CR\r"}), _fact(2, None, {}, None)]
    package = compile_package("alice", facts)
    assert package.quarantined == {} and package.record_counts["memos"] == 1

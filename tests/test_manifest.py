"""The manifest a version is published with: built by the validator's coverage walk, stored
with the version (hashed in meta.json, checked by verify), and read instead of importing
the version again by diff, show, history, recall and the checkpoint's output; one
`checkpoint -> alerts` pass imports the package once."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from fact_helpers import import_package, make_fact
from old_workspace import old_workspace
from sample_package import PASSPORT_PY, module_source
from test_golden import golden_facts

import codegen.validate
import users.store
from codegen.compile import compile_package
from codegen.loader import unload_package
from codegen.manifest import (
    Manifest,
    build_manifest,
    identity_from_facts,
    record_identity,
    revive,
    walk_module,
)
from codegen.validate import ValidationFailure, ValidationSuccess, Validator
from factlog.errors import InputError
from factlog.model import Fact
from runtime.demo import example
from runtime.memory import Memory
from users.checkpoint import Published
from users.integrity import IntegrityError
from users.store import VersionStore
from users.versions import PublishMeta

USER = "alice"


def package(quarantine: str = "") -> dict[str, str]:
    return {
        "__init__.py": module_source(f"""
            from .trip import Trip as Trip
            from .trip import trips as trips
            from .passport import Passport as Passport
            from .passport import passport as passport
            {quarantine}
            """),
        "trip.py": module_source("""
            from dataclasses import dataclass, field
            from datetime import date


            @dataclass(frozen=True, kw_only=True)
            class Trip:
                destination: str
                departure_date: date | None = None
                cost_usd: float | None = None
                fact_ids: list[int] = field(default_factory=list)


            trips: list[Trip] = [
                Trip(destination="Rome", departure_date=date(2024, 5, 1), cost_usd=250.0, fact_ids=[3, 2]),
                Trip(destination="Oslo", departure_date=date(2023, 1, 9), fact_ids=[4]),
            ]
            """),
        "passport.py": PASSPORT_PY,
    }


FACTS = [
    make_fact(1, "passport", "passport", {"number": "X1", "expiry_date": "2030-01-01"}, key="p1"),
    make_fact(2, "trip", "trips", {"destination": "Rome"}, key="BK-7"),
    make_fact(3, "trip", "trip", {"cost_usd": 250.0}, key="BK-7"),
    make_fact(4, "trip", "trip", {"destination": "Oslo"}),
    make_fact(5, "likes tea"),
]


@pytest.fixture(scope="module")
def validator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Validator]:
    v = Validator(tmp_path_factory.mktemp("cache"))
    yield v
    v.close()


def validate(validator: Validator, files: dict[str, str], stage: Path, *, facts: list[Fact] = FACTS[:4],
             **kwargs: Any) -> ValidationSuccess | ValidationFailure:
    result = validator.validate(files, user=USER, version="v1", facts=facts, stage_dir=stage, **kwargs)
    if isinstance(result, ValidationSuccess):
        unload_package(result.module_name)
    return result


# -- what the validator builds --------------------------------------------------------------

def test_the_validator_builds_the_manifest(validator: Validator, tmp_path: Path) -> None:
    result = validate(validator, package(), tmp_path / "a")
    assert isinstance(result, ValidationSuccess), result
    m = result.manifest
    assert m.format == 2
    assert m.classes["Trip"].fields == [("destination", "str"), ("departure_date", "date | None"),
                                        ("cost_usd", "float | None"), ("fact_ids", "list[int]")]
    assert m.record_counts() == {"trips": 2, "passport": 1}
    trips = m.collections["trips"]
    assert (trips.singular, trips.record_class, trips.size) == (False, "Trip", 2)
    rome, oslo = trips.records
    assert (rome.entity, rome.fact_ids, rome.record_class) == ("trip/BK-7", [2, 3], "Trip")
    assert rome.values == {"destination": "Rome", "departure_date": "2024-05-01", "cost_usd": 250.0}
    assert (oslo.entity, oslo.fact_ids) == ("trip#4", [4])
    assert m.collections["passport"].singular and m.collections["passport"].records[0].entity == "passport"
    assert m.entities() == {"trip/BK-7": [2, 3], "trip#4": [4], "passport": [1]}
    ranges = {attr: {f: (r.min, r.max) for f, r in fields.items()} for attr, fields in m.date_ranges.items()}
    assert ranges == {"trips": {"departure_date": ("2023-01-09", "2024-05-01")},
                      "passport": {"expiry_date": ("2030-01-01", "2030-01-01")}}
    assert m.quarantined == {}
    again = validate(validator, package(), tmp_path / "b")
    assert isinstance(again, ValidationSuccess) and again.manifest.dump() == m.dump()  # equal modules, equal bytes
    assert Manifest.parse(m.dump(), source="test") == Manifest.parse(again.manifest.dump(), source="test")
    assert Manifest.parse(m.dump(), source="test").dump() == m.dump()


def test_typed_values_come_back_as_the_module_held_them(validator: Validator, tmp_path: Path) -> None:
    result = validate(validator, package(), tmp_path / "a")
    assert isinstance(result, ValidationSuccess)
    m = Manifest.parse(result.manifest.dump(), source="test")
    rome = m.collections["trips"].records[0]
    assert m.typed_values(rome) == {"destination": "Rome", "departure_date": date(2024, 5, 1), "cost_usd": 250.0}
    assert revive(["2024-01-02"], "list[date]") == [date(2024, 1, 2)]
    assert revive("2024-01-02", "date | str") == "2024-01-02"  # ambiguous: left as it is
    assert revive("not a date", "date | None") == "not a date"


def test_the_module_declares_what_it_left_out(validator: Validator, tmp_path: Path) -> None:
    """`_quarantined` in __init__.py accounts for a live fact without a record, with its
    reason; the `quarantined=` argument still works, and both are unioned."""
    declared = package("_quarantined: dict[int, str] = {5: 'too long to compile'}")
    result = validate(validator, declared, tmp_path / "a", facts=FACTS)
    assert isinstance(result, ValidationSuccess), result
    assert result.manifest.quarantined == {5: "too long to compile"}
    without = validate(validator, package(), tmp_path / "b", facts=FACTS)
    assert isinstance(without, ValidationFailure) and without.stage == "coverage"
    assert "1 live fact(s) are in no record or note: 5" in without.format_for_llm()
    by_argument = validate(validator, package(), tmp_path / "c", facts=FACTS, quarantined={5: "by the caller"})
    assert isinstance(by_argument, ValidationSuccess) and by_argument.manifest.quarantined == {5: "by the caller"}
    by_ids = validate(validator, package(), tmp_path / "d", facts=FACTS, quarantined={5})
    assert isinstance(by_ids, ValidationSuccess) and list(by_ids.manifest.quarantined) == [5]


@pytest.mark.parametrize("declared", [
    "_quarantined = [5]",
    "_quarantined = {'5': 'reason'}",
    "_quarantined = {0: 'reason'}",
    "_quarantined = {True: 'reason'}",
    "_quarantined = {5: ''}",
    "_quarantined = {5: '" + "x" * 1001 + "'}",
    "_quarantined = {5: 7}",
])
def test_a_malformed_quarantine_fails_coverage(validator: Validator, tmp_path: Path, declared: str) -> None:
    result = validate(validator, package(declared), tmp_path / "a", facts=FACTS)
    assert isinstance(result, ValidationFailure) and result.stage == "coverage", result
    assert "_quarantined" in result.format_for_llm()
    assert not (tmp_path / "a").exists()


def test_live_fact_ids_alone_still_validate(validator: Validator, tmp_path: Path) -> None:
    result = validator.validate(package(), user=USER, version="v1", live_fact_ids={1, 2, 3, 4},
                                stage_dir=tmp_path / "a")
    assert isinstance(result, ValidationSuccess), result
    unload_package(result.module_name)
    assert result.manifest.record_counts() == {"trips": 2, "passport": 1}
    assert not result.manifest.identified  # no facts given: no identities


# -- identity: the compiler's, from the facts a record cites -------------------------------

def _identities_match(facts: list[Fact], tmp_path: Path) -> None:
    compiled = compile_package(facts[0].user, facts)
    module = import_package(compiled, tmp_path / "pkg")
    try:
        walked = walk_module(vars(module), live_fact_ids=set(), identity=identity_from_facts({f.id: f for f in facts}))
        assert not isinstance(walked, str)
        manifest = walked[1]
        assert manifest.entities() == compiled.entities
        assert list(manifest.record_counts().items()) == list(compiled.record_counts.items())  # same order
    finally:
        unload_package(module.__name__)


def test_identity_matches_the_compiler_on_the_golden_facts(tmp_path: Path) -> None:
    _identities_match(golden_facts(), tmp_path)


def test_identity_matches_the_compiler_on_the_demo(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "home")
    try:
        mem.ingest_transcript("sam", example("sam_sessions.yaml"))
        mem.ingest_records("sam", example("sam_trips.jsonl"), "trip", key_field="ref")
        for line in example("sam_health.jsonl").read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            mem.add("sam", kind=item["kind"], key=item["key"], fields=item["fields"])
        facts = list(mem.log("sam"))
    finally:
        mem.close()
    _identities_match(facts, tmp_path)


def test_record_identity_rules() -> None:
    by_id = {f.id: f for f in FACTS}
    assert record_identity([3, 2], by_id) == "trip/BK-7"  # `trips` normalized, the first cited fact
    assert record_identity([1], by_id) == "passport"  # singular canonical kind: the kind alone
    assert record_identity([4], by_id) == "trip#4"
    assert record_identity([5], by_id) == "note#5"
    assert record_identity([99, 4], by_id) == "trip#4" and record_identity([99], by_id) is None


# -- stored with the version -------------------------------------------------------------

def _manifest(tmp_path: Path) -> tuple[dict[str, str], Manifest]:
    module = import_package(compile_package(USER, FACTS), tmp_path / "pkg")
    try:
        return compile_package(USER, FACTS).files, build_manifest(
            vars(module), identity=identity_from_facts({f.id: f for f in FACTS}))
    finally:
        unload_package(module.__name__)


def test_publish_stores_the_manifest_with_its_hash(tmp_path: Path) -> None:
    files, manifest = _manifest(tmp_path)
    store = VersionStore(tmp_path / "users")
    info = store.publish_if_newer(USER, files, PublishMeta(5, "h", "compiler"), manifest=manifest)
    assert info is not None and info.manifest_sha256 is not None
    stored = info.path / "manifest.json"
    assert stored.read_text() == manifest.dump() + "\n"
    meta = json.loads((info.path / "meta.json").read_text())
    assert meta["manifest_sha256"] == info.manifest_sha256
    assert not {"record_counts", "entities", "quarantined"} & {k for k, v in meta.items() if v}
    fresh = VersionStore(tmp_path / "users")  # another process
    assert fresh.manifest(USER, 1) == manifest
    assert fresh.manifest(USER, 1) is fresh.manifest(USER, 1)  # read once
    assert fresh.verify(USER) == []


def test_a_changed_manifest_is_refused_and_verify_names_it(tmp_path: Path) -> None:
    files, manifest = _manifest(tmp_path)
    store = VersionStore(tmp_path / "users")
    info = store.publish(USER, files, PublishMeta(5, "h", "compiler"), manifest=manifest)
    path = info.path / "manifest.json"
    path.chmod(0o644)
    path.write_text(path.read_text().replace('"Rome"', '"Roma"').replace('"X1"', '"X2"'))
    fresh = VersionStore(tmp_path / "users")
    with pytest.raises(IntegrityError, match="manifest.json changed since it was published"):
        fresh.manifest(USER, 1)
    assert fresh.verify(USER) == [(1, "manifest.json changed since it was published")]
    path.unlink()
    assert VersionStore(tmp_path / "users").verify(USER) == [(1, "manifest.json was deleted since it was published")]


def test_a_version_without_manifest_is_walked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Versions written before manifests: built by importing the version, with the entity
    ids of its metadata (or of the log's facts), once per process."""
    compiled = compile_package(USER, FACTS)
    store = VersionStore(tmp_path / "users")
    store.publish(USER, compiled.files, PublishMeta(5, "h", "compiler", entities=compiled.entities,
                                                    record_counts=compiled.record_counts))
    fresh = VersionStore(tmp_path / "users")
    built = fresh.manifest(USER, 1)
    assert built.entities() == compiled.entities and fresh.loads == 1
    assert fresh.manifest(USER, 1) is built and fresh.loads == 1
    bare = VersionStore(tmp_path / "users2")
    bare.publish(USER, compiled.files, PublishMeta(5, "h", "compiler"))
    assert not bare.manifest(USER, 1).identified
    from_log = VersionStore(tmp_path / "users2").manifest(USER, 1, lambda: {f.id: f for f in FACTS})
    assert from_log.entities() == compiled.entities


def test_the_old_workspace_reads_through_built_manifests(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    shutil.copytree(old_workspace(), home)
    mem = Memory.open(home)
    try:
        info = mem.versions.get("sam", 1)
        assert info.manifest_sha256 is None
        manifest = mem.manifest("sam", 1)
        assert manifest.record_counts() == info.meta.record_counts
        assert manifest.entities() == info.meta.entities
        assert manifest.quarantined == info.meta.quarantined
        assert mem.diff("sam", 1, 2).to_json()["summary"]["records_changed"] == 1
    finally:
        mem.close()


# -- readers use the manifest; one import per checkpoint -> alerts --------------------------

def _count(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    calls = [0]
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)
    monkeypatch.setattr(owner, name, counted)
    return calls


def _seed(mem: Memory) -> None:
    mem.add(USER, kind="passport", fields={"number": "X1", "expiry_date": "2027-01-10"})
    mem.add(USER, "trip", kind="trip", key="BK-7", fields={"destination": "Rome", "departure_date": "2027-02-01"})
    mem.add(USER, "I like tea")


def test_one_checkpoint_alerts_pass_imports_the_package_once(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The validated module is the published version's module: the alert run does not
    import it again (it did: two imports per pass), and the pass reads `current` and
    meta.json fewer times (4 and 5 times before; 2 and 2 now)."""
    mem = Memory.open(tmp_path / "home")
    try:
        _seed(mem)
        loads = [_count(monkeypatch, codegen.validate, "load_package"),
                 _count(monkeypatch, users.store, "load_package")]
        report = mem.checkpoint_and_alert(USER)
        assert isinstance(report.result, Published) and report.alerts is not None
        assert sum(c[0] for c in loads) == 1
        assert report.manifest is not None and report.manifest.record_counts() == {
            "passport": 1, "trips": 1, "notes": 1}
        assert mem.module(USER).trips[0].destination == "Rome"  # the validated module, still loaded
        assert mem.query(USER, "trips[0]").value.destination == "Rome"  # type: ignore[union-attr]
        assert sum(c[0] for c in loads) == 1

        mem.add(USER, "trip", kind="trip", key="BK-7", fields={"destination": "Roma"})
        metas = _count(monkeypatch, VersionStore, "_read_info")
        currents = _count(monkeypatch, VersionStore, "_current_number")
        second = mem.checkpoint_and_alert(USER)
        assert isinstance(second.result, Published) and second.alerts is not None
        assert sum(c[0] for c in loads) == 2  # one more pass, one more import
        assert (metas[0], currents[0]) == (2, 2)
        assert mem.module(USER).trips[0].destination == "Roma"
    finally:
        mem.close()


def _published(tmp_path: Path, *, renamed: bool = False) -> Path:
    """A workspace whose seed facts are published as v1 (and, if `renamed`, the trip renamed in v2)."""
    home = tmp_path / "home"
    mem = Memory.open(home)
    try:
        _seed(mem)
        assert isinstance(mem.checkpoint(USER), Published)
        if renamed:
            mem.add(USER, "trip", kind="trip", key="BK-7", fields={"destination": "Roma"})
            assert isinstance(mem.checkpoint(USER), Published)
    finally:
        mem.close()
    return home


def test_readers_do_not_import_versions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _published(tmp_path, renamed=True)
    loads = _count(monkeypatch, users.store, "load_package")
    reader = Memory.open(home)  # a new process: nothing loaded, nothing cached
    try:
        [change] = reader.diff(USER).records
        assert (change.entity, change.change, change.fact_ids) == ("trip/BK-7", "changed", [4])
        assert [(v.field, v.before, v.after) for v in change.fields] == [("destination", "Rome", "Roma")]
        first = reader.diff(USER, 0, 1).render_lines()
        assert "+ passport Passport(number='X1', expiry_date=2027-01-10)  (facts 1)" in first
        assert reader.recall(USER, "Roma").items
        assert loads[0] == 0
    finally:
        reader.close()


def test_show_and_history_read_the_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime.cli_modules import show_rows

    home = _published(tmp_path)
    loads = _count(monkeypatch, users.store, "load_package")
    reader = Memory.open(home)
    try:
        rows = {name: (kind, text) for name, kind, text in show_rows(reader.manifest(USER))}
        assert rows["trips"] == ("list", "1") and rows["notes"] == ("list", "1")
        assert rows["passport"] == ("Passport", "Passport: number=X1, expiry_date=2027-01-10 [facts 1]")
        assert rows["Trip"][0] == "class" and "departure_date: date | None" in rows["Trip"][1]
        info = reader.versions.get(USER, 1)
        assert reader.versions.summary(info) == ({"notes": 1, "passport": 1, "trips": 1}, {})
        assert loads[0] == 0
    finally:
        reader.close()


def test_format_is_checked_on_reading() -> None:
    with pytest.raises(InputError, match="format 3 was written by a newer release"):
        Manifest.parse('{"format": 3}', source="manifest.json")
    with pytest.raises(InputError, match="manifest.json: "):
        Manifest.parse('{"format": 1, "surprise": 1}', source="manifest.json")

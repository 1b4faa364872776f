"""A new version is validated at the cost of what changed: modules of unchanged files are
reused (not executed again), the coverage walk visits changed chunk lists only, and the
result equals a full validation, including every coverage failure."""

from __future__ import annotations

import copy
import pickle
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from fact_helpers import make_fact
from trip_module import __file__ as trip_module_file

from codegen import module_reuse
from codegen.loader import unload_package
from codegen.manifest import Manifest, build_manifest, identity_from_facts, records_json, walk_module
from codegen.validate import ValidationFailure, ValidationSuccess, Validator
from factlog.model import Fact

TRIP = Path(trip_module_file).read_text()
CHUNK = 4


def trip_line(i: int, city: str = "City") -> str:
    return (f"    Trip(destination='{city} {i}', country='C', departure_date=date(2024, 1, {i % 28 + 1}), "
            f"fact_ids=[{i}]),")


def chunk(index: int, ids: list[int], city: str = "City") -> str:
    return "\n".join([f'"""Chunk {index}."""', "from datetime import date", "", "from .trip import Trip", "",
                      f"_trips_{index:03d}: list[Trip] = [", *(trip_line(i, city) for i in ids), "]", ""])


def package(chunks: list[list[int]], position: int = 0, trip: str = TRIP) -> dict[str, str]:
    """A package in the compiler's shape: class module, chunk lists, `__init__.py` joining them."""
    files = {"trip.py": trip}
    for index, ids in enumerate(chunks):
        files[f"trip_{index:03d}.py"] = chunk(index, ids)
    names = [f"_trips_{index:03d}" for index in range(len(chunks))]
    files["__init__.py"] = "\n".join(
        [f'"""Package at log position {position}."""', "from .trip import Trip as Trip",
         *(f"from .trip_{n[7:]} import {n}" for n in names), "",
         f"trips: list[Trip] = [{', '.join('*' + n for n in names)}]", ""])
    return files


CHUNKS = [list(range(1 + CHUNK * c, 1 + CHUNK * (c + 1))) for c in range(3)]  # ids 1..12
LIVE = frozenset(range(1, 13))


class Loaded:
    """Validates versions one after the other, keeping the last success loaded (as the
    store keeps the published version's module), and unloads everything at the end."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.validator = Validator(root / "cache")
        self.names: list[str] = []
        self.count = 0

    def validate(self, files: Mapping[str, str], live: frozenset[int] = LIVE,
                 facts: Mapping[int, Fact] | None = None) -> ValidationSuccess | ValidationFailure:
        self.count += 1
        result = self.validator.validate(files, user="inc", version=f"v{self.count}", live_fact_ids=live,
                                         facts=facts, stage_dir=self.root / f"v{self.count}")
        if isinstance(result, ValidationSuccess):
            self.names.append(result.module_name)
        return result

    def close(self) -> None:
        for name in self.names:
            unload_package(name)


@pytest.fixture
def loaded(tmp_path: Path) -> Iterator[Loaded]:
    versions = Loaded(tmp_path)
    yield versions
    versions.close()


def success(result: ValidationSuccess | ValidationFailure) -> ValidationSuccess:
    assert isinstance(result, ValidationSuccess), result.format_for_llm()
    return result


def submodule(result: ValidationSuccess, name: str) -> object:
    return sys.modules[f"{result.module_name}.{name}"]


def test_unchanged_files_reuse_their_modules_and_a_changed_one_runs(loaded: Loaded) -> None:
    first = success(loaded.validate(package(CHUNKS)))
    executed, reused = module_reuse.COUNTS.executed, module_reuse.COUNTS.reused
    changed = package(CHUNKS, position=1)
    changed["trip_001.py"] = chunk(1, CHUNKS[1], city="Town")
    second = success(loaded.validate(changed))
    assert (module_reuse.COUNTS.executed - executed, module_reuse.COUNTS.reused - reused) == (1, 3)
    for name in ("trip", "trip_000", "trip_002"):
        assert submodule(second, name) is submodule(first, name)
    assert submodule(second, "trip_001") is not submodule(first, "trip_001")
    assert second.module.trips[0] is first.module.trips[0]
    assert second.module.trips[4].destination == "Town 5"
    assert type(second.module.trips[4]) is second.module.Trip is first.module.Trip


def test_a_changed_class_module_runs_every_chunk_again(loaded: Loaded) -> None:
    first = success(loaded.validate(package(CHUNKS)))
    executed = module_reuse.COUNTS.executed
    second = success(loaded.validate(package(CHUNKS, position=1, trip=TRIP.replace('"""One trip."""',
                                                                                  '"""One journey."""'))))
    assert module_reuse.COUNTS.executed - executed == 4  # trip.py and its three chunks
    assert second.module.Trip is not first.module.Trip
    assert all(type(t) is second.module.Trip for t in second.module.trips)
    assert submodule(second, "trip_000") is not submodule(first, "trip_000")


def test_a_reused_module_outlives_the_package_that_loaded_it(loaded: Loaded) -> None:
    first = success(loaded.validate(package(CHUNKS)))
    second = success(loaded.validate(package(CHUNKS, position=1)))
    owner = submodule(first, "trip_000").__name__  # type: ignore[attr-defined]
    unload_package(first.module_name)
    loaded.names.remove(first.module_name)
    assert sys.modules[owner] is submodule(second, "trip_000")  # still named, still importable
    record = second.module.trips[0]
    assert pickle.loads(pickle.dumps(record)) == record  # its class is found by name
    unload_package(second.module_name)
    loaded.names.remove(second.module_name)
    assert owner not in sys.modules and not any(n.startswith(first.module_name) for n in sys.modules)


def test_nothing_is_reused_across_users(loaded: Loaded, tmp_path: Path) -> None:
    first = success(loaded.validate(package(CHUNKS)))
    other = Validator(tmp_path / "other").validate(package(CHUNKS), user="other", version="v1",
                                                   live_fact_ids=LIVE, stage_dir=tmp_path / "o1")
    assert isinstance(other, ValidationSuccess)
    try:
        assert other.module.Trip is not first.module.Trip
    finally:
        unload_package(other.module_name)


def full_walk(result: ValidationSuccess, facts: Mapping[int, Fact] | None = None) -> Manifest:
    return build_manifest(vars(result.module), identity=identity_from_facts(facts) if facts else None)


def without_parts(manifest: Manifest) -> str:
    data = manifest.model_copy(update={"collections": {
        name: c.model_copy(update={"parts": []}) for name, c in manifest.collections.items()}})
    return data.dump()


@pytest.mark.parametrize("edits", [
    [],  # only __init__.py's header
    [1],
    [0, 2],
    ["grow"],  # the last chunk gains a record (a new fact)
    ["shrink"],  # a record leaves a chunk (its fact retracted)
])
def test_parts_equal_a_full_walk(loaded: Loaded, edits: list[object]) -> None:
    chunks = [list(ids) for ids in CHUNKS]
    first = success(loaded.validate(package(chunks)))
    assert first.manifest.collections["trips"].parts == [4, 4, 4]
    assert without_parts(first.manifest) == without_parts(full_walk(first))
    live = set(LIVE)
    files = package(chunks, position=1)
    for edit in edits:
        if edit == "grow":
            chunks[2].append(13)
            live.add(13)
            files = package(chunks, position=1)
        elif edit == "shrink":
            live.discard(chunks[1].pop())
            files = package(chunks, position=1)
        else:
            assert isinstance(edit, int)
            files[f"trip_{edit:03d}.py"] = chunk(edit, chunks[edit], city="Town")
    walked = loaded.validator.parts_walked
    second = success(loaded.validate(files, frozenset(live)))
    changed = len([e for e in edits if e != "grow" and e != "shrink"]) + (1 if {"grow", "shrink"} & set(map(str, edits)) else 0)
    assert loaded.validator.parts_walked - walked == changed
    assert second.manifest.collections["trips"].parts == [len(c) for c in chunks]
    assert without_parts(second.manifest) == without_parts(full_walk(second))
    runs = second.manifest.runs("trips")
    assert [len(r) for r in runs] == [len(c) for c in chunks]
    dumped = second.manifest.dump()
    assert all(records_json(run)[1:-1] in dumped for run in runs if run)


class LazyFacts(Mapping[int, Fact]):
    """Facts looked up one by one (as a store reads them on demand), remembering which."""

    def __init__(self, facts: Mapping[int, Fact]) -> None:
        self.facts = facts
        self.asked: set[int] = set()

    def __getitem__(self, key: int) -> Fact:
        self.asked.add(key)
        return self.facts[key]

    def __iter__(self) -> Iterator[int]:
        raise AssertionError("the validator must not read every fact")

    def __len__(self) -> int:
        raise AssertionError("the validator must not count the facts")


def trip_fact(i: int) -> Fact:
    return make_fact(i, f"trip {i}", kind="trip", fields={"destination": f"City {i}"}, key=f"t{i}", user="inc")


def test_only_facts_of_changed_chunks_are_looked_up(loaded: Loaded) -> None:
    facts = {i: trip_fact(i) for i in LIVE}
    first = success(loaded.validate(package(CHUNKS), facts=LazyFacts(facts)))
    lazy = LazyFacts(facts)
    files = package(CHUNKS, position=1)
    files["trip_002.py"] = chunk(2, CHUNKS[2], city="Town")
    second = success(loaded.validate(files, facts=lazy))
    assert lazy.asked <= set(CHUNKS[2])
    assert second.manifest.entities() == first.manifest.entities() == full_walk(second, facts).entities()
    assert without_parts(second.manifest) == without_parts(full_walk(second, facts))


def coverage_failure(result: ValidationSuccess | ValidationFailure) -> tuple[str, ...]:
    assert isinstance(result, ValidationFailure) and result.stage == "coverage", result
    return tuple(p.rule for p in result.problems)


def test_coverage_catches_a_missing_or_unknown_id_in_a_changed_chunk(loaded: Loaded) -> None:
    success(loaded.validate(package(CHUNKS)))
    files = package(CHUNKS, position=1)
    files["trip_001.py"] = chunk(1, CHUNKS[1][:-1])  # fact 8 left out
    assert coverage_failure(loaded.validate(files)) == ("coverage-missing",)
    files["trip_001.py"] = chunk(1, [*CHUNKS[1], 99])  # fact 99 is no live fact
    assert coverage_failure(loaded.validate(files)) == ("coverage-unknown",)


def test_coverage_catches_a_retraction_in_an_unchanged_chunk(loaded: Loaded) -> None:
    """The chunk citing fact 2 is unchanged (its walk is reused) but fact 2 is no longer live."""
    success(loaded.validate(package(CHUNKS)))
    files = package(CHUNKS, position=1)
    files["trip_002.py"] = chunk(2, CHUNKS[2], city="Town")
    result = loaded.validate(files, LIVE - {2})
    assert coverage_failure(result) == ("coverage-unknown",)
    assert "2" in result.problems[0].message  # type: ignore[union-attr]
    result = loaded.validate(package(CHUNKS, position=2), LIVE | {13})  # a live fact no chunk holds
    assert coverage_failure(result) == ("coverage-missing",)


def test_a_failed_validation_keeps_no_parts(loaded: Loaded) -> None:
    success(loaded.validate(package(CHUNKS)))
    files = package(CHUNKS, position=1)
    files["trip_001.py"] = chunk(1, [*CHUNKS[1], 99])
    coverage_failure(loaded.validate(files))
    walked = loaded.validator.parts_walked
    coverage_failure(loaded.validate(files))  # walked again: a failure's parts are not kept
    assert loaded.validator.parts_walked - walked == 1


def test_a_module_of_another_shape_gets_the_general_walk(loaded: Loaded) -> None:
    """An LLM may write the records in `__init__.py` itself, or join lists its own way."""
    inline = {"trip.py": TRIP, "__init__.py": "\n".join([
        "from datetime import date", "from .trip import Trip as Trip", "",
        "trips: list[Trip] = [", *(trip_line(i) for i in sorted(LIVE)), "]", ""])}
    result = success(loaded.validate(inline))
    assert result.manifest.collections["trips"].parts == []
    assert result.manifest.dump() == full_walk(result).dump()
    aliased = package(CHUNKS)
    aliased["trip_000.py"] = aliased["trip_000.py"].replace("_trips_000:", "early:")
    aliased["__init__.py"] = aliased["__init__.py"].replace("import _trips_000", "import early").replace(
        "[*_trips_000, *_trips_001, *_trips_002]", "[*_trips_001, *_trips_002]")
    result = success(loaded.validate(aliased))
    assert result.manifest.collections["early"].parts == []
    assert without_parts(result.manifest) == without_parts(full_walk(result))
    assert result.manifest.collections["trips"].parts == [4, 4]


def test_runs_that_do_not_match_the_list_fall_back_to_the_general_walk() -> None:
    from datetime import date

    from trip_module import Trip
    a = [Trip(destination="A", country="C", departure_date=date(2024, 1, 1), fact_ids=[1])]
    b = [Trip(destination="B", country="C", departure_date=date(2024, 1, 2), fact_ids=[2])]
    for runs in ([("k1", a)], [("k1", a), ("k2", [copy.copy(b[0])])], [("k2", b), ("k1", a)]):
        walked = walk_module({"trips": [*a, *b]}, runs={"trips": runs})
        assert not isinstance(walked, str)
        assert walked[1].collections["trips"].parts == []
        assert walked[0].complete
    walked = walk_module({"trips": [*a, *b]}, runs={"trips": [("k1", a), ("k2", b)]})
    assert not isinstance(walked, str) and walked[1].collections["trips"].parts == [1, 1]


def test_a_format_1_manifest_reads_as_one_part_per_collection(loaded: Loaded) -> None:
    first = success(loaded.validate(package(CHUNKS)))
    text = first.manifest.dump().replace('"parts":[4,4,4],', "").replace('"format":2', '"format":1')
    old = Manifest.parse(text, source="manifest.json")
    assert old.format == 2 and old.collections["trips"].parts == []
    assert old.runs("trips") == [first.manifest.collections["trips"].records]


# --- caps that scale, and fail fast ------------------------------------------------------


def test_the_store_takes_a_package_of_a_million_facts_size() -> None:
    """~2,000+ chunk files and more than 64 MiB: what 1,000,000 interleaved facts compile to."""
    from users.store import check_files
    chunk_text = "x = 1\n" + "#" * 40_000 + "\n"
    files = {"__init__.py": '"""Package."""\n', **{f"m{i:05d}.py": chunk_text for i in range(5_000)}}
    encoded = check_files(files)
    assert len(encoded) == 5_001 and sum(map(len, encoded.values())) > 64 * 1024 * 1024


def test_the_store_and_the_validator_share_the_caps() -> None:
    from codegen.safety_rules import Limits
    from factlog import limits
    from factlog.errors import InputError
    from users.store import MAX_FILES, MAX_TOTAL_BYTES, check_files
    assert (MAX_FILES, MAX_TOTAL_BYTES) == (Limits().max_files, Limits().max_total_bytes) \
        == (limits.MAX_FILES, limits.MAX_PACKAGE_BYTES)
    assert MAX_FILES >= 4 * 2_000 and MAX_TOTAL_BYTES >= 512 * 1024 * 1024
    with pytest.raises(InputError, match=f"{MAX_FILES + 1} files; at most {MAX_FILES}"):
        check_files({"__init__.py": "", **{f"m{i:05d}.py": "" for i in range(MAX_FILES)}})
    assert limits.package_size_problem(10, MAX_TOTAL_BYTES) is None
    assert limits.package_size_problem(10, MAX_TOTAL_BYTES + 1) == \
        f"{MAX_TOTAL_BYTES + 1} bytes in all files; at most {MAX_TOTAL_BYTES}"


def test_a_package_over_the_size_cap_fails_before_any_parsing_or_mypy(tmp_path: Path) -> None:
    from codegen.safety_rules import Limits
    validator = Validator(tmp_path / "cache", limits=Limits(max_total_bytes=2_000))
    files = package(CHUNKS)
    files["trip_009.py"] = "x = 'é'\n" * 200  # 1,600 characters, 1,800 bytes: over 2,000 in all
    result = validator.validate(files, user="inc", version="v1", live_fact_ids=LIVE, stage_dir=tmp_path / "v1")
    assert isinstance(result, ValidationFailure) and result.stage == "safety"
    assert [p.rule for p in result.problems] == ["package-size"]
    assert "bytes in all files; at most 2000" in result.problems[0].message
    assert list(result.timings) == ["safety"] and validator.safety.parses == 0
    assert not (tmp_path / "cache" / "typecheck").exists() and not (tmp_path / "v1").exists()


# --- mypy's working copy and cache are caches ---------------------------------------------


def test_mypy_survives_a_damaged_cache_and_a_damaged_sync_record(tmp_path: Path) -> None:
    from codegen.safety import content_hash
    from codegen.typecheck import SYNCED, TypecheckFailure, TypecheckSuccess, typecheck
    files = package(CHUNKS)
    hashes = {name: content_hash(text) for name, text in files.items()}
    work, cache = tmp_path / "work", tmp_path / "mypy"
    assert isinstance(typecheck(files, "pkg", work, cache, hashes), TypecheckSuccess)
    for db in (cache / "pkg").rglob("*.db"):
        db.write_bytes(b"not a database")
    (work / "pkg" / SYNCED).write_text("{broken")
    assert isinstance(typecheck(files, "pkg", work, cache, hashes), TypecheckSuccess)
    (work / "pkg" / "trip_001.py").write_text("x: int = 'edited behind its back'\n")  # another stat
    assert isinstance(typecheck(files, "pkg", work, cache, hashes), TypecheckSuccess)
    wrong = {**files, "trip_001.py": files["trip_001.py"].replace("departure_date=date(2024, 1, 6)",
                                                                  "departure_date='2024-01-06'")}
    failed = typecheck(wrong, "pkg", work, cache, {n: content_hash(t) for n, t in wrong.items()})
    assert isinstance(failed, TypecheckFailure) and failed.problems[0].file == "trip_001.py"


# --- the generated __init__.py grows with the log: ast alone reads it ----------------------


def test_an_init_of_imports_and_joins_skips_the_libcst_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen import safety_rules
    audited: list[str] = []

    def audit(source: str) -> tuple[()]:
        audited.append(source)
        return ()
    monkeypatch.setattr(safety_rules, "audit", audit)
    init = package(CHUNKS)["__init__.py"]
    assert safety_rules.check_source(init).problems == () and audited == []
    with_value = init + "count: int = 12\n"  # anything but imports and joins is read twice
    assert safety_rules.check_source(with_value).problems == () and audited == [with_value]
    assert safety_rules.check_source(TRIP).problems == () and audited[-1] == TRIP


def test_a_small_record_chunk_skips_the_libcst_reading_and_other_shapes_do_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The open chunk of each kind is small and changes on most versions: its shape (records
    of literal keyword arguments), not its length, lets `ast` alone read it."""
    from codegen import safety_rules
    audited: list[str] = []

    def audit(source: str) -> tuple[()]:
        audited.append(source)
        return ()
    monkeypatch.setattr(safety_rules, "audit", audit)
    chunk = ('"""A chunk."""\n\nfrom datetime import date\nfrom .trip import Trip\n\n'
             "_trips_000: list[Trip] = [\n"
             "    Trip(destination='Lisbon', departure_date=date(2024, 3, 8), cost_usd=-1.5, tags=['a'],"
             " extra={'k': [1, None]}, fact_ids=[1]),\n]\n")
    assert safety_rules.check_source(chunk).problems == () and audited == []
    for other in (chunk.replace("cost_usd=-1.5", "cost_usd=Trip"),  # a bare name
                  chunk.replace("cost_usd=-1.5", "cost_usd=date.today()"),  # an attribute
                  chunk.replace("date(2024, 3, 8)", "date(*[2024, 3, 8])"),  # not a literal argument
                  chunk.replace("Trip(destination", "Trip('x', destination"),  # a positional argument
                  chunk + "count: int = 12\n"):  # another statement
        audited.clear()
        refused = safety_rules.check_source(other).problems
        assert refused or audited == [other], other  # refused outright, or read twice

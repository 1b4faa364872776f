"""A checkpoint costs what changed, in this process and in a new one: publishing stores the
changed files and manifest parts only, a new validator takes the walks of unchanged chunk
lists from the current version's stored manifest (a part is reusable exactly while its
chunk file and its class module are unchanged; a changed or missing stored part is walked
again), the log summary reads only the new facts' rows, and compiled code is kept for the
next process. Every manifest equals the one a full walk gives."""

from __future__ import annotations

import functools
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_packages import meta, rows, set_row
from test_incremental_validation import CHUNKS, LIVE, TRIP, package

import codegen.compile
import codegen.producer
import users.log_summary
from codegen.loader import unload_package
from codegen.manifest import Manifest
from codegen.validate import WALKS, ValidationSuccess, Validator
from factlog.model import NewFact
from runtime.memory import Memory
from users.checkpoint import Published
from users.log_summary import forget_kept, summarize
from users.store import VersionStore

USER = "ana"


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiler writes chunks of 10 records, so a few hundred facts make many chunks."""
    monkeypatch.setattr(codegen.producer, "compile_incremental",
                        functools.partial(codegen.compile.compile_incremental, chunk_records=10))
    monkeypatch.setattr(codegen.producer, "compile_package",
                        functools.partial(codegen.compile.compile_package, chunk_records=10))


def _facts(start: int, count: int) -> list[NewFact]:
    kinds = ("trip", "pet", "book")
    return [NewFact(f"item {i}", kind=kinds[i % 3], key=f"k{i}", fields={"n": i}) for i in range(start, start + count)]


def _published(result: object) -> Published:
    assert isinstance(result, Published), result
    return result


def _full_manifest(mem: Memory, info_number: int) -> Manifest:
    """What a validator holding no walks makes of the version's files (a full walk)."""
    files = mem.versions.files(USER, info_number)
    info = mem.versions.get(USER, info_number)
    log = list(mem.log(USER, upto=info.meta.log_position))
    validator = Validator(mem.workspace.cache_dir / "validation")
    stage = mem.workspace.cache_dir / f"full-{uuid.uuid4().hex}"
    try:
        result = validator.validate(files, user=USER, version=f"full{info_number}", facts=log,
                                    stage_dir=stage)
        assert isinstance(result, ValidationSuccess), result
        unload_package(result.module_name)
        return result.manifest
    finally:
        validator.close()
        shutil.rmtree(stage, ignore_errors=True)


def _fresh(home: Path) -> Memory:
    """Another process's view of the workspace: no walks, parts or summaries in memory."""
    forget_kept()
    return Memory.open(home)


def test_a_small_checkpoint_stores_what_changed_and_a_new_process_walks_only_that(
        tmp_path: Path, small_chunks: None) -> None:
    home = tmp_path / "home"
    mem = Memory.open(home)
    try:
        mem.facts.append(USER, _facts(0, 360))  # 12 chunks of each of three kinds
        first = _published(mem.checkpoint(USER))
        assert len(mem.versions.files(USER, first.version.number)) > 36
        mem.facts.append(USER, _facts(360, 1))  # one trip: its kind's open chunk
        puts = mem.versions.blob_puts
        second = _published(mem.checkpoint(USER))
        # __init__.py, the chunk, manifest.json; the chunk's part and its one piece
        assert mem.versions.blob_puts - puts <= 6
        assert mem.versions.manifest(USER, second.version.number).dump() == \
            _full_manifest(mem, second.version.number).dump()
    finally:
        mem.close()

    again = _fresh(home)
    try:
        again.facts.append(USER, _facts(361, 1))  # one pet
        validator = again.checkpoints.validator
        third = _published(again.checkpoint(USER))
        assert validator.parts_walked == 1  # the pets' open chunk; 35 others from the stored manifest
        assert again.versions.manifest(USER, third.version.number).dump() == \
            _full_manifest(again, third.version.number).dump()
        assert again.versions.verify(USER) == []
    finally:
        again.close()
    reader = _fresh(home)
    try:  # what was stored reads back as the same manifest
        assert reader.versions.manifest(USER, 3).dump() == _full_manifest(reader, 3).dump()
    finally:
        reader.close()


def test_a_checkpoint_keeps_compiled_code_for_the_next_process(tmp_path: Path) -> None:
    import subprocess
    import sys
    home = tmp_path / "home"
    mem = Memory.open(home)
    user = "cody"  # modules this process loaded for others of the name are reused, not compiled
    try:
        mem.facts.append(user, _facts(0, 30))
        _published(mem.checkpoint(user))
    finally:
        mem.close()
    probe = ("import json, sys; from pathlib import Path; from codegen.loader import CODE_CACHE; "
             "from runtime.memory import Memory; m = Memory.open(Path(sys.argv[1])); "
             "v = m.query('cody', 'len(trips)').value; print(json.dumps([v, CODE_CACHE.compiles])); m.close()")
    done = subprocess.run([sys.executable, "-c", probe, str(home)], capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "[10, 0]"  # nothing compiled again


class Stored:
    """A validator and a store, as a checkpoint uses them, over the trip packages of
    tests/test_incremental_validation.py; `fresh` gives another process's pair."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.count = 0
        self.names: list[str] = []
        self.fresh()

    def fresh(self) -> None:
        """Another process, without the validator's walk cache (what is tested here is the
        stored manifest; tests/test_walk_cache.py tests the cache)."""
        shutil.rmtree(self.root / "cache" / WALKS, ignore_errors=True)
        self.validator = Validator(self.root / "cache")
        self.versions = VersionStore(self.root / "users")

    def check(self, files: dict[str, str], live: frozenset[int] = LIVE) -> ValidationSuccess:
        self.count += 1
        result = self.validator.validate(
            files, user=USER, version=f"v{self.count}", live_fact_ids=live, stage_dir=self.root / f"s{self.count}",
            stored_parts=lambda keys: self.versions.stored_parts(self.versions.current(USER), keys))
        assert isinstance(result, ValidationSuccess), result
        self.names.append(result.module_name)
        return result

    def publish(self, files: dict[str, str], live: frozenset[int] = LIVE) -> ValidationSuccess:
        result = self.check(files, live)
        self.versions.publish_if_newer(USER, files, meta(self.count), manifest=result.manifest, walks=result.parts)
        return result

    def full(self, files: dict[str, str], live: frozenset[int] = LIVE) -> str:
        """The manifest a validator holding nothing makes of `files`."""
        self.count += 1
        result = Validator(self.root / "cache").validate(files, user=USER, version=f"f{self.count}",
                                                         live_fact_ids=live, stage_dir=self.root / f"f{self.count}")
        assert isinstance(result, ValidationSuccess), result
        self.names.append(result.module_name)
        return result.manifest.dump()

    def close(self) -> None:
        for name in self.names:
            unload_package(name)


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[Stored]:
    pair = Stored(tmp_path)
    yield pair
    pair.close()


def test_a_part_is_reused_exactly_while_its_chunk_and_class_module_are_unchanged(stored: Stored) -> None:
    stored.publish(package(CHUNKS))
    stored.fresh()
    same = stored.check(package(CHUNKS, position=1))
    assert stored.validator.parts_walked == 0  # all three from the stored manifest
    assert same.manifest.dump() == stored.full(package(CHUNKS, position=1))

    stored.fresh()
    journey = package(CHUNKS, position=1, trip=TRIP.replace('"""One trip."""', '"""One journey."""'))
    changed = stored.check(journey)  # the chunk files are the same text; their class module is not
    assert stored.validator.parts_walked == 3
    assert changed.manifest.dump() == stored.full(journey)


def _tree_blob(stored: Stored, holding: bytes) -> tuple[str, bytes]:
    """The piece (a row of the piece store) holding these bytes."""
    [found] = [(sha, data) for sha, data in rows(stored.versions.root / USER).items()
               if holding in data and b'"pieces"' not in data]
    return found


@pytest.mark.parametrize("damage", ["changed", "missing"])
def test_a_changed_or_missing_stored_part_is_walked_again(stored: Stored, damage: str) -> None:
    stored.publish(package(CHUNKS))
    sha, piece = _tree_blob(stored, b'"destination":"City 5"')  # the second chunk's records
    set_row(stored.versions.root / USER, sha, piece.replace(b"City 5", b"City 6") if damage == "changed" else None)
    stored.fresh()
    files = package(CHUNKS, position=1)
    result = stored.publish(files)
    assert stored.validator.parts_walked == 1  # the part that could not be read whole
    assert result.manifest.dump() == stored.full(files)
    stored.fresh()
    assert stored.versions.manifest(USER, 2).dump() == result.manifest.dump()  # its blobs stored again
    assert stored.versions.verify(USER) == []  # by name: the first version's tree is whole again too


def test_an_unchanged_part_is_not_stored_again_and_a_changed_one_is(stored: Stored) -> None:
    stored.publish(package(CHUNKS))
    puts = stored.versions.blob_puts
    files = package(CHUNKS, position=1)
    files["trip_001.py"] = files["trip_001.py"].replace("City 5", "Town 5")
    stored.publish(files)
    # __init__.py, trip_001.py, manifest.json, and the changed part's blob and piece
    assert stored.versions.blob_puts - puts == 5
    stored.fresh()
    assert stored.versions.manifest(USER, 2).dump() == stored.full(files)


# -- the log summary ------------------------------------------------------------------------

class Statements:
    """The SQL statements summary connections run (rows read show as their statements)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[str] = []
        real = users.log_summary._connect

        def connect(path: Path) -> sqlite3.Connection:
            conn = real(path)
            conn.set_trace_callback(self.seen.append)
            return conn

        monkeypatch.setattr(users.log_summary, "_connect", connect)


def test_the_log_summary_reads_the_new_facts_rows_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.log_view import StoreLog
    mem = Memory.open(tmp_path / "home")
    try:
        mem.facts.append(USER, _facts(0, 300))
        path = tmp_path / "summary.sqlite"
        statements = Statements(monkeypatch)
        summarize(path, StoreLog(mem.facts, USER, mem.facts.head(USER)), "")
        # a summary made afresh takes its ids from the rows it just wrote, not from the table
        assert statements.seen and not any("SELECT id FROM live" in s for s in statements.seen)
        mem.facts.append(USER, _facts(300, 5))
        mem.retract(USER, 7)
        statements.seen.clear()
        log = StoreLog(mem.facts, USER, mem.facts.head(USER))
        followed = summarize(path, log, "")
        assert not any("FROM live_ids\n" in s or s.rstrip().endswith("FROM live_ids") or "FROM retractions" in s
                       for s in statements.seen), statements.seen
        assert len(statements.seen) <= 12 + 6  # a few for the meta row, one per new fact at most
        whole = summarize(None, log, "")
        assert (followed.live, followed.retractions, followed.live_sum) == (whole.live, whole.retractions,
                                                                             whole.live_sum)
    finally:
        mem.close()


def test_a_summary_another_process_moved_on_is_read_again(tmp_path: Path) -> None:
    from codegen.log_view import StoreLog
    mem = Memory.open(tmp_path / "home")
    try:
        mem.facts.append(USER, _facts(0, 40))
        path = tmp_path / "summary.sqlite"
        summarize(path, StoreLog(mem.facts, USER, mem.facts.head(USER)), "")
        held = dict(users.log_summary._KEPT)
        mem.facts.append(USER, _facts(40, 3))
        mem.retract(USER, 5)
        forget_kept()  # another process follows the file meanwhile
        summarize(path, StoreLog(mem.facts, USER, mem.facts.head(USER)), "")
        users.log_summary._KEPT.update(held)  # this process still holds the older state
        mem.facts.append(USER, _facts(43, 2))
        log = StoreLog(mem.facts, USER, mem.facts.head(USER))
        followed = summarize(path, log, "")
        whole = summarize(None, log, "")
        assert (followed.live, followed.retractions, followed.live_sum) == (whole.live, whole.retractions,
                                                                             whole.live_sum)
    finally:
        mem.close()


# -- incremental == full, in this process and in new ones ------------------------------------

step = st.tuples(st.sampled_from(["add", "update", "retract", "checkpoint", "fresh"]), st.integers(0, 40))


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=3, max_size=14))
def test_every_manifest_equals_a_full_walk(tmp_path_factory: Any, small_chunks: None,
                                           steps: list[tuple[str, int]]) -> None:
    home = tmp_path_factory.mktemp("prop") / "home"
    mem = Memory.open(home)
    try:
        mem.facts.append(USER, _facts(0, 45))
        added = 45
        for action, n in [*steps, ("checkpoint", 0)]:
            if action == "add":
                mem.facts.append(USER, _facts(added, 1 + n % 4))
                added += 1 + n % 4
            elif action == "update":
                mem.facts.append(USER, [NewFact("again", kind=("trip", "pet", "book")[n % 3], key=f"k{n}",
                                                fields={"n": -n})])
            elif action == "retract":
                live = [f.id for f in mem.log(USER) if f.retracts is None]
                if live:
                    mem.retract(USER, live[n % len(live)])
            else:
                if action == "fresh":
                    mem.close()
                    mem = _fresh(home)
                result = mem.checkpoint(USER)
                if isinstance(result, Published):
                    number = result.version.number
                    assert mem.versions.manifest(USER, number).dump() == _full_manifest(mem, number).dump()
        reader = _fresh(home)
        try:
            for info in reader.versions.history(USER):
                assert reader.versions.manifest_of(info).dump() == _full_manifest(reader, info.number).dump()
        finally:
            reader.close()
    finally:
        mem.close()

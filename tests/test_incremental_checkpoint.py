"""A checkpoint costs what changed: with its states warm it reads only the new facts (and
the few it needs by id), re-renders only the touched files, and publishes the same files
and metadata as a checkpoint reading the whole log; the states are caches (a corrupt one
is rebuilt), `forget` removes them, and two processes checkpointing one user stay right."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from codegen.compile import compile_package
from codegen.validate import ValidationFailure, ValidationSuccess, Validator
from factlog.model import Fact, NewFact
from factlog.store import FactStore
from runtime.memory import Memory
from users.checkpoint import Published, checkpoint, state_paths

USER = "ana"
SCRIPT = Path(__file__).with_name("checkpointer.py")


class CountingStore:
    """A fact store that counts the facts it hands out."""

    def __init__(self, store: FactStore) -> None:
        self.store = store
        self.read = 0

    def facts(self, user: str, after: int = 0, upto: int | None = None) -> Iterator[Fact]:
        for fact in self.store.facts(user, after, upto):
            self.read += 1
            yield fact

    def get(self, user: str, fact_id: int) -> Fact:
        self.read += 1
        return self.store.get(user, fact_id)

    def facts_by_id(self, user: str, ids: Iterable[int]) -> list[Fact]:
        found = self.store.facts_by_id(user, ids)
        self.read += len(found)
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


class CountingValidator:
    """Notes how many facts had been read when validation started."""

    def __init__(self, validator: Validator, store: CountingStore) -> None:
        self.validator, self.store = validator, store
        self.read_before: list[int] = []

    def validate(self, files: Mapping[str, str], **kwargs: Any) -> ValidationSuccess | ValidationFailure:
        self.read_before.append(self.store.read)
        return self.validator.validate(files, **kwargs)


def _add(mem: Memory, start: int, n: int) -> None:
    for i in range(start, start + n):
        if i % 7 == 0:
            mem.add(USER, f"note {i}")
        else:
            mem.add(USER, f"item {i}", kind=("trip", "pet", "book")[i % 3], key=f"k{i}", fields={"n": i})


def _checkpoint(mem: Memory, store: FactStore, validator: Any) -> Published:
    result = checkpoint(store, mem.versions, validator, USER, stage_root=mem.workspace.cache_dir / "stage",
                        state_root=mem.checkpoints.state_root)
    assert isinstance(result, Published), result
    return result


def test_a_small_checkpoint_reads_only_new_facts(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "home")
    try:
        _add(mem, 1, 600)
        counting = CountingStore(mem.facts)
        validator = CountingValidator(mem.checkpoints.validator, counting)
        _checkpoint(mem, counting, validator)  # cold: reads the whole log
        assert validator.read_before[-1] >= 600
        _add(mem, 601, 5)
        mem.retract(USER, 10)
        counting.read = 0
        result = _checkpoint(mem, counting, validator)
        # 6 new facts, the retracted one, and the anchors of the two states
        assert validator.read_before[-1] <= 6 + 1 + 2
        usage = result.version.meta.attempts[0].usage
        assert usage["files_rendered"] <= 5  # __init__.py and the touched chunks
        # the same files and metadata as a checkpoint reading the whole log
        facts = list(mem.log(USER))
        assert mem.versions.files(USER, result.version.number) == compile_package(USER, facts).files
        meta = result.version.meta
        assert meta.retractions == {10: facts[-1].id}
        assert meta.log_hash == facts[-1].hash and meta.log_position == facts[-1].id
        assert meta.input_hash.startswith("sum:")
    finally:
        mem.close()


def test_validating_a_small_checkpoint_reads_the_changed_chunks_facts_not_the_log(tmp_path: Path) -> None:
    """The walk of a changed chunk needs the entity identity of its records: those its
    earlier walk knew are kept by fact ids, the others' facts read in one query per chunk
    (not one by one and then, past a few hundred, the whole log)."""
    mem = Memory.open(tmp_path / "home")
    for start in range(0, 3000, 500):
        mem.facts.append(USER, [NewFact(f"item {i}", kind=("trip", "pet", "book")[i % 3], key=f"k{i}",
                                        fields={"n": i}) for i in range(start, start + 500)])
    store = CountingStore(mem.facts)
    _checkpoint(mem, store, mem.checkpoints.validator)
    mem.facts.append(USER, [NewFact("more", kind="trip", key="k0", fields={"n": -1})])  # an old, closed chunk
    store.read = 0
    _checkpoint(mem, store, mem.checkpoints.validator)
    assert store.read <= 5  # the new fact and the states' anchors: not the chunk's 500, nor the log's 3,001


def test_input_hash_follows_the_log(tmp_path: Path) -> None:
    from users.log_summary import set_hash
    mem = Memory.open(tmp_path / "home")
    try:
        _add(mem, 1, 30)
        mem.checkpoint(USER)
        _add(mem, 31, 4)
        mem.retract(USER, 3)
        result = mem.checkpoint(USER)
        assert isinstance(result, Published)
        facts = list(mem.log(USER))
        dead = {f.retracts for f in facts if f.retracts} | {f.id for f in facts if f.retracts}
        assert result.version.meta.input_hash == set_hash(f.hash for f in facts if f.id not in dead)
    finally:
        mem.close()


def test_corrupt_states_are_rebuilt_and_forget_drops_them(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "home")
    try:
        _add(mem, 1, 40)
        mem.checkpoint(USER)
        paths = [p for p in state_paths(mem.checkpoints.state_root, USER) if p.exists()]
        assert paths, "the checkpoint keeps its states"
        for path in paths:
            for file in [path] if path.is_file() else list(path.rglob("*")):
                if file.is_file():
                    file.write_bytes(b"garbage" * 50)
        _add(mem, 41, 3)
        result = mem.checkpoint(USER)
        assert isinstance(result, Published)
        assert mem.versions.files(USER, result.version.number) == compile_package(USER, list(mem.log(USER))).files
        mem.forget(USER)
        assert not [p for p in state_paths(mem.checkpoints.state_root, USER) if p.exists()]
        _add(mem, 1, 5)  # a new user of the same name starts from nothing
        result = mem.checkpoint(USER)
        assert isinstance(result, Published)
        assert mem.versions.files(USER, result.version.number) == compile_package(USER, list(mem.log(USER))).files
    finally:
        mem.close()


def test_two_processes_keep_the_states_right(tmp_path: Path) -> None:
    home, go = tmp_path / "home", tmp_path / "go"
    Memory.open(home).close()
    procs = [subprocess.Popen([sys.executable, str(SCRIPT), str(home), USER, tag, "6", str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for tag in ("a", "b")]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    mem = Memory.open(home)
    try:
        for info in mem.versions.history(USER):  # every version is what a full compile gives
            facts = list(mem.log(USER, upto=info.meta.log_position))
            assert mem.versions.files(USER, info.number) == compile_package(USER, facts).files
        mem.add(USER, "one more", kind="trip", key="c", fields={"destination": "c city", "cost_usd": 1.0})
        result = mem.checkpoint(USER)
        assert isinstance(result, Published)
        assert mem.versions.files(USER, result.version.number) == compile_package(USER, list(mem.log(USER))).files
    finally:
        mem.close()


def test_full_checkpoint_rebuilds_the_states(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "home")
    try:
        _add(mem, 1, 20)
        mem.checkpoint(USER)
        _add(mem, 21, 2)
        result = mem.checkpoints.checkpoint(USER, full=True)
        assert isinstance(result, Published)
        assert result.version.meta.attempts[0].usage["files_rendered"] > 5  # everything rendered again
        assert mem.versions.files(USER, result.version.number) == compile_package(USER, list(mem.log(USER))).files
    finally:
        mem.close()

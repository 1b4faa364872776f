"""Validation with its children (sources compiled ahead while safety runs, mypy beside import
and walk) gives the verdict of the sequential path, stage and messages alike; a child that
is killed, sends a corrupt answer, is late or cannot be started costs time, not the verdict."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from validation_samples import LIVE_FACTS, valid_package

import codegen.validate as validate_module
from codegen import forked, precompile
from codegen import typecheck as typecheck_module
from codegen.loader import CODE_CACHE, unload_package
from codegen.validate import ValidationFailure, ValidationSuccess, Validator

PARENT = os.getpid()
EDITS: dict[str, list[tuple[str, str, str]]] = {
    "passes": [],
    "safety": [("trips_000.py", "from datetime import date", "import os\nfrom datetime import date")],
    "mypy": [("trips_001.py", 'destination="Lima"', "destination=42")],
    "import": [("trips_000.py", "date(2024, 5, 1)", "date(2024, 13, 1)")],
    "mypy and import": [("trips_001.py", 'destination="Lima"', "destination=42"),
                        ("trips_000.py", "date(2024, 5, 1)", "date(2024, 13, 1)")],
}


@pytest.fixture(scope="module")
def caches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache root for every validator here: mypy's cache is warmed once."""
    return tmp_path_factory.mktemp("caches")


@pytest.fixture(autouse=True)
def cold_code() -> Iterator[None]:
    CODE_CACHE.clear()  # so that every validation has sources to compile: the children run
    yield
    CODE_CACHE.clear()


def edited(case: str) -> dict[str, str]:
    files = valid_package()
    for name, old, new in EDITS[case]:
        assert old in files[name]
        files[name] = files[name].replace(old, new)
    return files


def run(validator: Validator, files: dict[str, str], stage: Path,
        live: frozenset[int] = LIVE_FACTS) -> ValidationSuccess | ValidationFailure:
    result = validator.validate(files, user="alice", version=stage.name, live_fact_ids=live, stage_dir=stage)
    if isinstance(result, ValidationSuccess):
        unload_package(result.module_name)
    return result


def verdict(result: ValidationSuccess | ValidationFailure) -> Any:
    if isinstance(result, ValidationSuccess):
        return "passed", result.manifest.dump()
    return result.stage, result.problems


@pytest.mark.parametrize("case", ["passes", "mypy and import", *(
    pytest.param(case, marks=pytest.mark.slow) for case in ("safety", "mypy", "import", "coverage"))])
def test_children_give_the_sequential_verdict(case: str, tmp_path: Path, caches: Path) -> None:
    live = LIVE_FACTS | {9} if case == "coverage" else LIVE_FACTS
    files = edited("passes" if case == "coverage" else case)
    parallel = Validator(caches, fork_min_bytes=0)
    got = run(parallel, files, tmp_path / "p" / "v1", live)
    assert parallel.ahead is not None and parallel.ahead.status in ("done", "killed")
    if case != "safety":
        assert parallel.typing_child is not None and parallel.typing_child.status == "done"
    CODE_CACHE.clear()
    want = run(Validator(caches, fork_min_bytes=None), files, tmp_path / "s" / "v1", live)
    assert verdict(got) == verdict(want)
    assert verdict(got)[0] == {"mypy and import": "mypy", "passes": "passed"}.get(case, case)
    assert not (tmp_path / "p" / "v1").exists() or isinstance(got, ValidationSuccess)


def test_the_compile_child_saves_the_parent_compiling(tmp_path: Path, caches: Path) -> None:
    before = CODE_CACHE.compiles
    validator = Validator(caches, fork_min_bytes=0)
    assert isinstance(run(validator, valid_package(), tmp_path / "v1"), ValidationSuccess)
    assert validator.ahead is not None and validator.ahead.taken == len(valid_package())
    assert CODE_CACHE.compiles == before


def _die(*args: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_compile_child_leaves_compiling_to_the_import(tmp_path: Path, caches: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(precompile, "_compile_all", _die)
    before = CODE_CACHE.compiles
    validator = Validator(caches, fork_min_bytes=0)
    assert isinstance(run(validator, valid_package(), tmp_path / "v1"), ValidationSuccess)
    assert validator.ahead is not None and validator.ahead.status == "failed" and validator.ahead.taken == 0
    assert CODE_CACHE.compiles - before == len(valid_package())
    assert not any((caches / "ahead").iterdir())


def test_corrupt_compiled_entries_are_not_used(tmp_path: Path, caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(precompile, "code_entry", lambda key, code: b"UACCODE1 not code at all")
    validator = Validator(caches, fork_min_bytes=0)
    assert isinstance(run(validator, valid_package(), tmp_path / "v1"), ValidationSuccess)
    assert validator.ahead is not None and validator.ahead.status == "done" and validator.ahead.taken == 0


def _typecheck_in_child_only(replacement: Any) -> Any:
    real = getattr(validate_module, "typecheck")

    def typecheck(*args: Any) -> Any:
        if os.getpid() != PARENT:
            return replacement(*args)
        return real(*args)
    return typecheck


@pytest.mark.parametrize("case", ["passes", "mypy and import"])
def test_a_killed_mypy_child_leaves_mypy_to_the_parent(case: str, tmp_path: Path, caches: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate_module, "typecheck", _typecheck_in_child_only(_die))
    validator = Validator(caches, fork_min_bytes=0)
    got = run(validator, edited(case), tmp_path / "p" / "v1")
    assert validator.typing_child is not None and validator.typing_child.status == "failed"
    want = run(Validator(caches, fork_min_bytes=None), edited(case), tmp_path / "s" / "v1")
    assert verdict(got) == verdict(want)


def test_a_wrong_mypy_answer_is_not_trusted(tmp_path: Path, caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A child passing everything by a corrupt frame or an answer of the wrong kind: the
    parent runs mypy itself and the type error is reported."""
    for corrupt in (lambda value: forked.encode("passed")[:-3] + b"!!!", lambda value: forked.encode("passed")):
        monkeypatch.setattr(forked, "encode", corrupt)
        validator = Validator(caches, fork_min_bytes=0)
        got = run(validator, edited("mypy"), tmp_path / "v1")
        assert validator.typing_child is not None and validator.typing_child.status == "failed"
        assert isinstance(got, ValidationFailure) and got.stage == "mypy"
        assert got.problems[0].rule == "mypy:arg-type"
        CODE_CACHE.clear()


def test_a_late_mypy_child_is_stopped(tmp_path: Path, caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate_module, "typecheck", _typecheck_in_child_only(lambda *args: time.sleep(60)))
    monkeypatch.setattr(precompile, "deadline", lambda size: 0.5)
    validator = Validator(caches, fork_min_bytes=0)
    got = run(validator, edited("mypy"), tmp_path / "v1")
    assert validator.typing_child is not None and validator.typing_child.status == "timeout"
    assert isinstance(got, ValidationFailure) and got.stage == "mypy"


def test_without_fork_validation_runs_in_one_process(tmp_path: Path, caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise OSError("no fork here")
    monkeypatch.setattr(os, "fork", no_fork)
    validator = Validator(caches, fork_min_bytes=0)
    assert isinstance(run(validator, valid_package(), tmp_path / "v1"), ValidationSuccess)
    assert validator.ahead is None and validator.typing_child is None


def test_a_small_change_forks_no_child(tmp_path: Path, caches: Path) -> None:
    """Below `fork_min_bytes` of source to compile (a +10 checkpoint), all runs here."""
    validator = Validator(caches)
    assert isinstance(run(validator, valid_package(), tmp_path / "v1"), ValidationSuccess)
    assert validator.ahead is None and validator.typing_child is None


def test_a_lock_held_at_the_fork_does_not_stall_the_mypy_child(tmp_path: Path, caches: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Another thread in mypy while the child is forked: the child checks all the same."""
    monkeypatch.setattr(precompile, "deadline", lambda size: 20.0)
    lock = typecheck_module._LOCK
    lock.acquire()
    timer = threading.Timer(25, lock.release)  # were the child stalled: its fallback must not hang
    timer.start()
    try:
        validator = Validator(caches, fork_min_bytes=0)
        got = run(validator, edited("mypy"), tmp_path / "v1")
    finally:
        timer.cancel()
        if lock.locked():
            lock.release()
    assert validator.typing_child is not None and validator.typing_child.status == "done"
    assert isinstance(got, ValidationFailure) and got.stage == "mypy"

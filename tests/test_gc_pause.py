"""Stages that build many objects run with automatic garbage collection paused, and it
comes back on afterwards, also after an error and across nested pauses."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from fact_helpers import make_fact

import codegen.compile
from codegen import gc_pause
from codegen.compile import ListLog, compile_incremental
from codegen.gc_pause import gc_paused, paused_gc


@pytest.fixture(autouse=True)
def collecting() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_pauses_nest_and_restore_collection() -> None:
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_collection_comes_back_after_an_error() -> None:
    @gc_paused
    def fails() -> None:
        assert not gc.isenabled()
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fails()
    assert gc.isenabled()


def test_a_pause_leaves_collection_off_when_it_was_off() -> None:
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()


def test_the_compiler_builds_with_collection_paused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = codegen.compile._render

    def render(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(codegen.compile, "_render", render)
    compile_incremental("alice", tmp_path / "state.sqlite", ListLog([make_fact(1, "x", kind="trip", key="a")]))
    assert seen == [False]
    assert gc.isenabled()


def test_a_checkpoint_runs_with_collection_paused_throughout(tmp_path: Path) -> None:
    from codegen.producer import CompilerProducer, Produced, ProducerRequest
    from factlog.model import NewFact
    from runtime.memory import Memory
    from users.checkpoint import Published

    seen: list[bool] = []

    class Watching(CompilerProducer):
        def produce(self, request: ProducerRequest) -> Produced:
            seen.append(gc.isenabled())  # the producer's own code, outside the compiler's pause
            return super().produce(request)

    mem = Memory.open(tmp_path / "home")
    try:
        mem.facts.append("ana", [NewFact("a trip", kind="trip", key="a", fields={"n": 1})])
        assert isinstance(mem.checkpoint("ana", producer=Watching()), Published)
    finally:
        mem.close()
    assert seen == [False]
    assert gc.isenabled()


def _generation_of(obj: object) -> int | None:
    for generation in range(3):
        if any(o is obj for o in gc.get_objects(generation)):
            return generation
    return None


def test_a_large_pause_leaves_its_survivors_in_the_oldest_generation() -> None:
    # Left young, they would be traversed again by the next young and middle collections.
    gc.collect()
    with paused_gc():
        kept = [[i] for i in range(gc_pause.SETTLE_MIN + 1000)]
    assert gc.isenabled()
    assert _generation_of(kept) == 2
    assert _generation_of(kept[-1]) == 2


def test_a_very_large_pause_is_settled_by_a_full_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_pause, "FULL_MIN", gc_pause.SETTLE_MIN)
    full = gc.get_stats()[2]["collections"]
    with paused_gc():
        kept = [[i] for i in range(gc_pause.SETTLE_MIN + 1000)]
    assert gc.get_stats()[2]["collections"] == full + 1
    assert _generation_of(kept) == 2


def test_a_small_pause_leaves_collection_to_the_collector() -> None:
    gc.collect()
    middle = gc.get_stats()[1]["collections"]
    with paused_gc():
        kept = [[i] for i in range(100)]
    assert gc.get_stats()[1]["collections"] == middle
    assert len(kept) == 100


def test_garbage_cycles_made_in_a_pause_are_collected_when_it_ends() -> None:
    class Node:
        other: object = None

    gc.collect()
    with paused_gc():
        padding = [[i] for i in range(gc_pause.SETTLE_MIN)]
        a, b = Node(), Node()
        a.other, b.other = b, a
        probe = weakref.ref(a)
        del a, b
    assert probe() is None
    assert len(padding) == gc_pause.SETTLE_MIN

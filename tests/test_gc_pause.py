"""Stages that build many objects run with automatic garbage collection paused, and it
comes back on afterwards, also after an error and across nested pauses."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from fact_helpers import make_fact

import codegen.compile
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

"""Producers: whatever turns a user's log into package files, behind one protocol.

A checkpoint asks a `Producer` for files (`ProducerRequest` → `Produced`), validates them,
and on failure asks again with the validator's feedback, up to `1 + max_repairs` times
(`users.checkpoint`). A producer returns files only: what the package holds is read from
the package itself (a live fact it leaves out it declares in `__init__.py`'s
`_quarantined`, see `codegen.quarantine.declared_quarantine`).

Producers register by name under the entry-point group `uac.producers`
(`compiler = "codegen.producer:CompilerProducer"` in pyproject); `producer_named` finds
one, `producer_names` lists them. A registered object is a producer class (called without
arguments) or a factory function returning a producer.

Adding a producer: write a class with `name` and `produce`, register it in your
distribution's `[project.entry-points."uac.producers"]`, and choose it with
`uac checkpoint USER --producer NAME` (or `Memory.checkpoint(user, producer=NAME)`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Callable, Mapping, Protocol, Sequence, runtime_checkable

from codegen.compile import compile_incremental, compile_package
from codegen.log_view import StoreLog
from codegen.quarantine import culprit_facts, declared_quarantine
from codegen.validate import ValidationFailure
from factlog.errors import InputError, UacError
from factlog.model import Fact

GROUP = "uac.producers"
STATE_FILE = "compile.sqlite"  # the compiler's incremental state in `request.state_dir`
DEFAULT_PRODUCER = "compiler"
WRITE_BEHIND_FACTS = 20_000  # a rebuild of a log this long writes its state behind (`Produced.settle`)


@dataclass(frozen=True)
class PreviousVersion:
    """The current version when the request was made."""

    number: int
    files: Mapping[str, str]
    manifest: object | None = None  # the version's manifest, when the store has one


@dataclass(frozen=True)
class ProducerRequest:
    user: str
    # the whole log up to the checkpoint's head, id order, retractions included; from a
    # checkpoint a `codegen.log_view.StoreLog`, which reads the store only when iterated
    # and also answers `after(position)` and `get(fact_id)`
    facts: Sequence[Fact]
    live_ids: frozenset[int]  # the facts the package must account for
    previous: PreviousVersion | None
    feedback: ValidationFailure | None  # the last failed validation (`feedback.format_for_llm()`)
    failed_files: Mapping[str, str] | None  # the files of the last failed attempt
    attempt: int  # 1-based
    new_facts: Sequence[Fact] = ()  # the facts after the previous version's log position
    # a directory of this producer's own for this user (a cache: `forget` removes it), or None
    state_dir: Path | None = None
    epoch: str = ""  # the store's forget epoch when the log was read (for keying such state)


@dataclass(frozen=True)
class Produced:
    files: dict[str, str]  # file name -> source
    usage: dict[str, float]  # what the producer reports: prompt_tokens, completion_tokens, seconds, ...
    # work the producer left running (the compiler: its state's write, `codegen.state_write`);
    # whoever asked for the files calls it once done with them, before it returns
    settle: Callable[[], object] | None = field(default=None, compare=False)


class ProducerFailed(UacError):
    """A producer could not produce files this time (its model did not answer, or answered
    nothing usable): the checkpoint fails at stage `producer` with this one-line reason and
    the producer's `usage`; nothing is published, the last good version stays current."""

    def __init__(self, message: str, usage: Mapping[str, float] | None = None) -> None:
        super().__init__(message)
        self.usage: dict[str, float] = dict(usage or {})


@runtime_checkable
class Producer(Protocol):
    name: str

    def produce(self, request: ProducerRequest) -> Produced: ...


class CompilerProducer:
    """The deterministic compiler (`codegen.compile`). Its answer to feedback: when safety
    refused lines that are single records, it leaves those records' facts out (quarantine,
    with the problem as reason) and compiles again; to any other feedback it has nothing
    new to say, and returns the same files (the checkpoint then stops). Given a state
    directory and a `StoreLog`, it compiles incrementally (`codegen.compile.compile_incremental`:
    the same bytes as a full compile)."""

    name = "compiler"

    def produce(self, request: ProducerRequest) -> Produced:
        started = time.perf_counter()
        quarantine: dict[int, str] = {}
        if request.feedback is not None and request.failed_files is not None:
            quarantine = declared_quarantine(request.failed_files)
            if request.feedback.stage == "safety":
                culprits = culprit_facts(request.feedback.problems, request.failed_files)
                quarantine.update({i: why for i, why in culprits.items() if i not in quarantine})
        facts = request.facts
        if request.state_dir is not None and not quarantine and isinstance(facts, StoreLog):
            compiled = compile_incremental(request.user, request.state_dir / STATE_FILE, facts,
                                           epoch=request.epoch, write_behind=WRITE_BEHIND_FACTS)
            return Produced(compiled.files, {"seconds": time.perf_counter() - started,
                                             "files_rendered": float(len(compiled.rendered))},
                            None if compiled.writing is None else compiled.writing.wait)
        package = compile_package(request.user, list(facts), quarantine=quarantine or None)
        return Produced(package.files, {"seconds": time.perf_counter() - started})


BUILT_IN = EntryPoint(name="compiler", value="codegen.producer:CompilerProducer", group=GROUP)


def _entry_points() -> dict[str, EntryPoint]:
    """The registered producers; the compiler, the default, even where this project's own
    entry points are not installed (a source checkout on `PYTHONPATH`)."""
    return {BUILT_IN.name: BUILT_IN, **{ep.name: ep for ep in entry_points(group=GROUP)}}


def producer_names() -> list[str]:
    """The registered producers' names, sorted."""
    return sorted(_entry_points())


def producer_named(name: str) -> Producer:
    """The registered producer `name`, ready to use; InputError (one line) if there is none."""
    found = _entry_points().get(name) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(producer_names()) or "none (is the package installed?)"
        raise InputError(f"no producer named {name!r}; known producers: {known}")
    try:
        factory = found.load()
        producer = factory()
    except Exception as exc:  # a broken plug-in must not take the CLI down with a traceback
        raise InputError(f"producer {name!r} could not be loaded: {type(exc).__name__}: {exc}") from None
    if not isinstance(producer, Producer):
        raise InputError(f"producer {name!r} ({found.value}) has no `name` and `produce(request)`")
    return producer


def resolve_producer(producer: Producer | str | None) -> Producer:
    """A producer given by name or as an object; None means the default (the compiler)."""
    if producer is None:
        return CompilerProducer()
    if isinstance(producer, str):
        return CompilerProducer() if producer == DEFAULT_PRODUCER and DEFAULT_PRODUCER not in _entry_points() \
            else producer_named(producer)
    return producer

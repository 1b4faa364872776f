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
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Mapping, Protocol, Sequence, runtime_checkable

from codegen.compile import compile_package
from codegen.quarantine import culprit_facts, declared_quarantine
from codegen.validate import ValidationFailure
from factlog.errors import InputError
from factlog.model import Fact

GROUP = "uac.producers"
DEFAULT_PRODUCER = "compiler"


@dataclass(frozen=True)
class PreviousVersion:
    """The current version when the request was made."""

    number: int
    files: Mapping[str, str]
    manifest: object | None = None  # the version's manifest, when the store has one


@dataclass(frozen=True)
class ProducerRequest:
    user: str
    facts: Sequence[Fact]  # the whole log as read, id order, retractions included
    live_ids: frozenset[int]  # the facts the package must account for
    previous: PreviousVersion | None
    feedback: ValidationFailure | None  # the last failed validation (`feedback.format_for_llm()`)
    failed_files: Mapping[str, str] | None  # the files of the last failed attempt
    attempt: int  # 1-based


@dataclass(frozen=True)
class Produced:
    files: dict[str, str]  # file name -> source
    usage: dict[str, float]  # what the producer reports: prompt_tokens, completion_tokens, seconds, ...


@runtime_checkable
class Producer(Protocol):
    name: str

    def produce(self, request: ProducerRequest) -> Produced: ...


class CompilerProducer:
    """The deterministic compiler (`codegen.compile`). Its answer to feedback: when safety
    refused lines that are single records, it leaves those records' facts out (quarantine,
    with the problem as reason) and compiles again; to any other feedback it has nothing
    new to say, and returns the same files (the checkpoint then stops)."""

    name = "compiler"

    def produce(self, request: ProducerRequest) -> Produced:
        started = time.perf_counter()
        quarantine: dict[int, str] = {}
        if request.feedback is not None and request.failed_files is not None:
            quarantine = declared_quarantine(request.failed_files)
            if request.feedback.stage == "safety":
                culprits = culprit_facts(request.feedback.problems, request.failed_files)
                quarantine.update({i: why for i, why in culprits.items() if i not in quarantine})
        package = compile_package(request.user, request.facts, quarantine=quarantine or None)
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

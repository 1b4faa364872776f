"""A seeded, checkpointed workspace built once per test session and copied per test.

Building it runs mypy cold (~0.7 s); a copy carries the warm mypy cache along, so a test
that checkpoints in its copy pays only for what it changes. Tests pass the copy's path
explicitly (`uac --home H ...` or `Memory.open(H)`): the autouse fixture's UAC_HOME is
a different, empty folder.

Seed (user `alice`):
    1 trip Lisbon 2024   2 trip Chicago 2024   3 passport (expires 2027-03-03)   4 note
    -> v1 (log position 4)
    5 trip Tokyo 2027-01-20 .. 2027-02-05      6 note
    -> v2 (log position 6)
No constraints have run yet (no alert state), so the first `alerts` raises.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import pytest

from codegen.compile import GeneratedPackage, compile_package
from codegen.producer import Produced, Producer, ProducerRequest
from factlog.model import Fact, JsonValue
from runtime.memory import Memory
from users.checkpoint import Published

USER = "alice"

LISBON: dict[str, JsonValue] = {"destination": "Lisbon", "country": "Portugal", "departure_date": "2024-03-08",
          "return_date": "2024-03-15", "cost_usd": 1320.0, "is_international": True}
CHICAGO: dict[str, JsonValue] = {"destination": "Chicago", "country": "USA", "departure_date": "2024-06-11",
           "return_date": "2024-06-13", "cost_usd": 540.5, "is_international": False}
PASSPORT: dict[str, JsonValue] = {"number": "P8812734", "country": "USA", "issue_date": "2017-03-04", "expiry_date": "2027-03-03"}
TOKYO: dict[str, JsonValue] = {"destination": "Tokyo", "country": "Japan", "departure_date": "2027-01-20",
         "return_date": "2027-02-05", "cost_usd": 1480.0, "is_international": True}
RENEWED: dict[str, JsonValue] = {"number": "P9120455", "issue_date": "2026-11-21", "expiry_date": "2036-11-20"}
TEA = "I like green tea"
DENTIST = "The dentist is Dr. Alvarez on Elm Street"
PASSPORT_WARNING = "passport expires 26 days after your Tokyo return"

_templates: dict[int, Path] = {}


def seed_v1(mem: Memory, user: str = USER) -> None:
    mem.add(user, "Lisbon trip", kind="trip", key="lis", fields=dict(LISBON))
    mem.add(user, "Chicago trip", kind="trip", key="chi", fields=dict(CHICAGO))
    mem.add(user, kind="passport", key="passport", fields=dict(PASSPORT))
    mem.add(user, TEA)


def seed_v2(mem: Memory, user: str = USER) -> None:
    mem.add(user, "Tokyo trip", kind="trip", key="tok", fields=dict(TOKYO))
    mem.add(user, DENTIST)


def _build(home: Path) -> None:
    mem = Memory.open(home)
    try:
        seed_v1(mem)
        assert isinstance(mem.checkpoint(USER), Published)
        seed_v2(mem)
        assert isinstance(mem.checkpoint(USER), Published)
    finally:
        mem.close()  # the last connection closing folds the WAL into facts.db


def template_home(factory: pytest.TempPathFactory) -> Path:
    """The session's seeded workspace (built on first use). Never modify it: clone it."""
    key = id(factory)
    if key not in _templates:
        home = factory.mktemp("uac-template") / "home"
        _build(home)
        _templates[key] = home
    return _templates[key]


def clone_home(factory: pytest.TempPathFactory, dest: Path) -> Path:
    """A private copy of the template at `dest` (which must not exist)."""
    shutil.copytree(template_home(factory), dest)
    return dest


def with_file(package: GeneratedPackage, name: str, source: str) -> GeneratedPackage:
    """The same package with one file replaced (or added)."""
    return replace(package, files={**package.files, name: source})


@dataclass(frozen=True)
class FunctionProducer:
    """A test producer from a function (user, whole log) -> package; deaf to feedback, so
    after one failure it returns the same files and the checkpoint stops."""

    make: Callable[[str, Sequence[Fact]], GeneratedPackage]
    name: str = "compiler"

    def produce(self, request: ProducerRequest) -> Produced:
        return Produced(dict(self.make(request.user, request.facts).files), {})


def hostile_producer(marker: Path) -> Producer:
    """The real compiler's package with a chunk replaced by code that would touch `marker`."""
    def produce(user: str, facts: Sequence[Fact]) -> GeneratedPackage:
        package = compile_package(user, facts)
        return with_file(package, "trip_000.py", f"import os\nos.system('touch {marker}')\n")
    return FunctionProducer(produce)


def _mistyped(user: str, facts: Sequence[Fact]) -> GeneratedPackage:
    package = compile_package(user, facts)
    return with_file(package, "__init__.py", package.files["__init__.py"] + "\nbad_count: int = 'three'\n")


def _dropping(user: str, facts: Sequence[Fact]) -> GeneratedPackage:
    return compile_package(user, facts[:-1])


mistyped_producer = FunctionProducer(_mistyped)  # passes the safety allowlist but not mypy --strict
dropping_producer = FunctionProducer(_dropping)  # forgets the newest fact: fails coverage


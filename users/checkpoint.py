"""Checkpoint: the user's log → compile → validate → publish, as one result.

Outcomes are values, not exceptions (`Published | Unchanged | Failed`). A failure leaves
the current version and the log untouched: the facts are already stored, so the next
checkpoint simply tries again. A fact that cannot be compiled does not fail the checkpoint:
the compiler quarantines it (`codegen.quarantine`), coverage accounts for it, and the
version's metadata lists it with its reason (`PublishMeta.quarantined`).
`CheckpointPolicy` says when a checkpoint is due (every N new facts, every T seconds);
`uac watch` and `uac ingest --checkpoint` ask it.
"""

from __future__ import annotations

import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from codegen.compile import GeneratedPackage, compile_package
from codegen.loader import unload_package
from codegen.problems import Problem, format_problems
from codegen.quarantine import culprit_facts
from codegen.validate import Invalid, Validator
from factlog.model import Fact
from factlog.store import FactStore
from users.store import ForgottenMeanwhile, VersionStore
from users.versions import PublishMeta, VersionInfo

Producer = Callable[[str, Sequence[Fact]], GeneratedPackage]


@dataclass(frozen=True)
class Published:
    version: VersionInfo
    timings: Mapping[str, float]  # seconds: compile, safety, mypy, import, coverage, publish
    new_facts: int


@dataclass(frozen=True)
class Unchanged:
    version: VersionInfo | None
    reason: str


@dataclass(frozen=True)
class Failed:
    stage: str
    problems: tuple[Problem, ...]
    timings: Mapping[str, float]
    current: VersionInfo | None  # the last good version, still current

    @property
    def message(self) -> str:
        return format_problems(self.stage, self.problems)


CheckpointResult = Published | Unchanged | Failed


def live_fact_ids(facts: Sequence[Fact]) -> set[int]:
    """Every fact that must appear in the module: all but retractions and what they retract.
    Computed here, apart from the compiler, so coverage checks the compiler's work."""
    retracted = {f.retracts for f in facts if f.retracts is not None}
    return {f.id for f in facts if f.retracts is None and f.id not in retracted}


def anchor_hash(log: Sequence[Fact], position: int) -> str | None:
    """The chain hash of the fact at `position`: a version's anchor in the log."""
    return next((f.hash for f in reversed(log) if f.id == position), None)


RETRIES = 3  # recompiles without the facts safety refused on their records' lines


def _culprits(result: Invalid, package: GeneratedPackage, producer: Producer) -> dict[int, str]:
    """Live facts whose own record lines the safety stage refused (compiler output only:
    another producer's problems are its own), not already quarantined."""
    if producer is not compile_package or result.stage != "safety":
        return {}
    found = culprit_facts(result.problems, package.files)
    return {i: reason for i, reason in found.items() if i not in package.quarantined}


def checkpoint(facts: FactStore, versions: VersionStore, validator: Validator, user: str, *,
               stage_root: Path, producer: Producer = compile_package,
               producer_name: str = "compiler") -> CheckpointResult:
    """Holds `versions.in_use()` throughout, so a `forget` waits for it; and publishes only
    if no forget ran since the log was read (the store's epoch), so a forgotten user's facts
    never come back as a version, nor mix with facts of a new user of the same name."""
    with versions.in_use():
        return _checkpoint(facts, versions, validator, user, stage_root, producer, producer_name)


def _checkpoint(facts: FactStore, versions: VersionStore, validator: Validator, user: str,
                stage_root: Path, producer: Producer, producer_name: str) -> CheckpointResult:
    epoch = versions.epoch()  # before anything of the log is read
    current = versions.current(user)
    head = facts.head(user)
    if current is not None and current.meta.log_position >= head:
        return Unchanged(current, f"no new facts since version {current.number} (log position {head})")
    if head == 0:
        return Unchanged(None, f"user {user!r} has no facts")
    timings: dict[str, float] = {}
    started = time.perf_counter()
    log = list(facts.facts(user))
    package = producer(user, log)
    timings["compile"] = time.perf_counter() - started
    live = live_fact_ids(log)
    for _ in range(RETRIES + 1):
        stage_dir = stage_root / f"{user}-{uuid.uuid4().hex}"
        result = validator.validate(package.files, user=user, version=f"stage{head}",
                                    live_fact_ids=live, facts=log, stage_dir=stage_dir,
                                    quarantined=package.quarantined)
        timings.update(result.timings)
        if not isinstance(result, Invalid):
            break
        culprits = _culprits(result, package, producer)
        if not culprits:
            return Failed(result.stage, result.problems, timings, current)
        started = time.perf_counter()
        package = compile_package(user, log, quarantine={**package.quarantined, **culprits})
        timings["compile"] += time.perf_counter() - started
    if isinstance(result, Invalid):
        return Failed(result.stage, result.problems, timings, current)
    info = None
    try:
        started = time.perf_counter()
        info = versions.publish_if_newer(user, package.files, PublishMeta(
            log_position=package.log_position,
            input_hash=package.input_hash,
            producer=producer_name,
            timings={k: round(v, 6) for k, v in timings.items()},
            retractions={f.retracts: f.id for f in log if f.retracts is not None},
            log_hash=anchor_hash(log, package.log_position),
        ), manifest=result.manifest, module=result.module, epoch=epoch)
        timings["publish"] = time.perf_counter() - started
    except ForgottenMeanwhile as exc:
        return Unchanged(None, str(exc))
    finally:
        if info is None:  # published, the store keeps the validated module as the version's
            unload_package(result.module_name)
        shutil.rmtree(stage_dir, ignore_errors=True)
    if info is None:
        latest = versions.current(user)
        return Unchanged(latest, f"a concurrent checkpoint already published log position {head}")
    previous = current.meta.log_position if current else 0
    return Published(info, timings, head - previous)


@dataclass(frozen=True)
class CheckpointPolicy:
    """When a checkpoint is due: after `every_facts` new facts, or when any new fact has
    waited `every_seconds` since the last version. Stateless: the caller reads both figures
    from the stores, so every process (CLI, API, watcher) agrees."""

    every_facts: int = 1
    every_seconds: float | None = None

    def due(self, new_facts: int, seconds_since_last: float | None) -> bool:
        if new_facts <= 0:
            return False
        if new_facts >= self.every_facts or seconds_since_last is None:
            return True
        return self.every_seconds is not None and seconds_since_last >= self.every_seconds

"""Checkpoint: the user's log → producer → validate → publish, as one result.

Outcomes are values, not exceptions (`Published | Unchanged | Failed`). A failure leaves
the current version and the log untouched: the facts are already stored, so the next
checkpoint simply tries again. The producer (`codegen.producer`, the compiler by default)
is asked for files up to `1 + max_repairs` times; each failed validation is fed back to it
(`ProducerRequest.feedback`, `failed_files`); a producer that cannot answer at all raises
`ProducerFailed` (stage `producer`). Every attempt, with the stage it reached
and its problems, is recorded in the version's metadata (`PublishMeta.attempts`), or in
the `Failed` result. A fact that cannot be compiled does not fail the checkpoint: the
package leaves it out and declares it (`_quarantined` in `__init__.py`); coverage accounts
for it and the metadata lists it with its reason (`PublishMeta.quarantined`).
`CheckpointPolicy` says when a checkpoint is due (every N new facts, every T seconds);
`uac watch` and `uac ingest --checkpoint` ask it.

Cost: with a state directory (`state_root`), a checkpoint reads only the facts after the
last one it summarized (`users.log_summary`: live ids, retractions, input hash) plus the
few it needs by id; the producer gets the log as a lazy `codegen.log_view.StoreLog`
(`request.facts`, read only if iterated), the facts after the current version
(`request.new_facts`) and a directory for its own incremental state (`request.state_dir`;
the compiler keeps `codegen.compile_state` there). Without one, the whole log is read.
The validator takes the walks of unchanged chunk lists it does not hold from the current
version's stored manifest (`VersionStore.stored_parts`) and keeps compiled code in the
user's code folder, so a new process pays for what changed too; publishing stores only
the parts and files that changed.
"""

from __future__ import annotations

import math
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from codegen.gc_pause import paused_gc
from codegen.loader import unload_package
from codegen.log_view import StoreLog
from codegen.problems import Problem, format_problems
from codegen.producer import PreviousVersion, Producer, ProducerFailed, ProducerRequest, resolve_producer
from codegen.validate import ValidationFailure, ValidationSuccess, Validator
from factlog.errors import InputError
from factlog.results import Failure, Skip, Success
from factlog.store import FactStore
from users.log_summary import OutOfOrder, Summary, SummaryJob, start_summary, summarize
from users.store import ForgottenMeanwhile, VersionStore
from users.versions import MAX_PROBLEM, MAX_PROBLEMS, PRODUCER_PATTERN, Attempt, PublishMeta, VersionInfo

MAX_REPAIRS = 3  # attempts after the first one that failed validation


@dataclass(frozen=True)
class Published(Success):
    version: VersionInfo
    timings: Mapping[str, float]  # seconds: compile (producing), safety, mypy, import, coverage, publish
    new_facts: int


@dataclass(frozen=True)
class Unchanged(Skip):
    version: VersionInfo | None
    reason: str


@dataclass(frozen=True)
class Failed(Failure):
    stage: str
    problems: tuple[Problem, ...]
    timings: Mapping[str, float]
    current: VersionInfo | None  # the last good version, still current
    attempts: tuple[Attempt, ...] = ()  # every call of the producer, the last one failing at `stage`
    producer: str = "compiler"

    @property
    def message(self) -> str:
        if self.stage == "producer":  # no files to validate: the producer's own reason
            return "the producer gave no files: " + "; ".join(p.message for p in self.problems)
        return format_problems(self.stage, self.problems)


CheckpointResult = Published | Unchanged | Failed




SUMMARIES = "checkpoint"  # under `state_root`: the log summaries, one SQLite file per user
PRODUCER_STATES = "producer"  # under `state_root`: the producers' own state, per producer and user


def state_paths(state_root: Path, user: str) -> list[Path]:
    """Every file or folder a checkpoint keeps for `user` under `state_root` (for forget)."""
    paths = [state_root / SUMMARIES / f"{user}.sqlite{suffix}" for suffix in ("", "-wal", "-shm", "-journal")]
    paths += sorted((state_root / PRODUCER_STATES).glob(f"*/{user}"))
    return paths


def _summary_job(state_root: Path | None, user: str, log: StoreLog, epoch: str) -> SummaryJob:
    """The log's summary, made by a forked child while the producer works when it is made
    afresh from a long log (`users.log_summary.start_summary`)."""
    path = None if state_root is None else state_root / SUMMARIES / f"{user}.sqlite"
    try:
        return start_summary(path, log, epoch)
    except OutOfOrder:
        return SummaryJob(None, log, epoch, ready=summarize(None, log, epoch))


def _summary(job: SummaryJob, log: StoreLog, epoch: str) -> Summary:
    try:
        return job.result()
    except OutOfOrder:
        return summarize(None, log, epoch)


def problem_lines(problems: Sequence[Problem]) -> list[str]:
    """An attempt's problems as text for the metadata: at most MAX_PROBLEMS lines, each cut."""
    lines = [_cut(str(p)) for p in problems[:MAX_PROBLEMS]]
    if len(problems) > MAX_PROBLEMS:
        lines.append(f"... and {len(problems) - MAX_PROBLEMS} more")
    return lines


def _cut(text: str, limit: int = MAX_PROBLEM) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rounded(values: Mapping[str, float]) -> dict[str, float]:
    return {k: round(float(v), 6) for k, v in values.items()}


MAX_USAGE_KEYS = 32


def reported_usage(usage: object) -> dict[str, float]:
    """What a producer reported, as metadata keeps it: up to MAX_USAGE_KEYS names (1-200
    characters) with finite, non-negative numbers; anything else is left out."""
    kept: dict[str, float] = {}
    if not isinstance(usage, Mapping):
        return kept
    for key, value in usage.items():
        if len(kept) >= MAX_USAGE_KEYS:
            break
        if isinstance(key, str) and 1 <= len(key) <= 200 and isinstance(value, (int, float)) \
                and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            kept[key] = round(float(value), 6)
    return kept


def usage_totals(attempts: Sequence[Attempt]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for attempt in attempts:
        for key, value in attempt.usage.items():
            totals[key] = round(totals.get(key, 0.0) + value, 6)
    return totals


class _StoredFiles(Mapping[str, str]):
    """A version's files, read from the store when a producer first looks at them."""

    def __init__(self, versions: VersionStore, user: str, number: int) -> None:
        self._versions, self._user, self._number = versions, user, number
        self._files: dict[str, str] | None = None

    def _loaded(self) -> dict[str, str]:
        if self._files is None:
            self._files = self._versions.files(self._user, self._number)
        return self._files

    def __getitem__(self, name: str) -> str:
        return self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


def checkpoint(facts: FactStore, versions: VersionStore, validator: Validator, user: str, *,
               stage_root: Path, producer: Producer | str | None = None,
               max_repairs: int = MAX_REPAIRS, state_root: Path | None = None) -> CheckpointResult:
    """Holds `versions.in_use()` throughout, so a `forget` waits for it; and publishes only
    if no forget ran since the log was read (the store's epoch), so a forgotten user's facts
    never come back as a version, nor mix with facts of a new user of the same name.
    `producer`: an object, a registered name, or None for the compiler. `state_root`: where
    the log summaries and producers' states are kept (None: read the whole log)."""
    chosen = resolve_producer(producer)
    name = getattr(chosen, "name", None)
    if not isinstance(name, str) or not PRODUCER_PATTERN.fullmatch(name):
        raise InputError(f"producer name {name!r} must be lowercase letters, digits and '_' "
                         "(optionally ':' and a detail, e.g. 'llm:qwen2.5-7b')")
    with versions.in_use(), paused_gc():  # a build's objects stay alive: collections would find nothing
        return _checkpoint(facts, versions, validator, user, stage_root, chosen, max(0, max_repairs), state_root)


def _checkpoint(facts: FactStore, versions: VersionStore, validator: Validator, user: str,
                stage_root: Path, producer: Producer, max_repairs: int,
                state_root: Path | None) -> CheckpointResult:
    epoch = versions.epoch()  # before anything of the log is read
    current = versions.current(user)
    head = facts.head(user)
    if current is not None and current.meta.log_position >= head:
        return Unchanged(current, f"no new facts since version {current.number} (log position {head})")
    if head == 0:
        return Unchanged(None, f"user {user!r} has no facts")
    log = StoreLog(facts, user, head)  # the log up to `head`, read as far as it is used
    # the live facts, from the log apart from the producer: coverage checks its work
    job = _summary_job(state_root, user, log, epoch)
    settles: list[Callable[[], object]] = [job.close]
    try:
        return _produce_and_publish(versions, validator, user, stage_root, producer, max_repairs, state_root,
                                    epoch, current, head, log, job, settles)
    finally:
        for settle in settles:  # what the producer and the summary left running
            settle()


def _produce_and_publish(versions: VersionStore, validator: Validator, user: str, stage_root: Path,
                         producer: Producer, max_repairs: int, state_root: Path | None, epoch: str,
                         current: VersionInfo | None, head: int, log: StoreLog, job: SummaryJob,
                         settles: list[Callable[[], object]]) -> CheckpointResult:
    live_set = job.live
    summary: Summary | None = None
    base = current.meta.log_position if current is not None else 0
    new_facts = tuple(log.after(base))
    previous = None if current is None else \
        PreviousVersion(current.number, _StoredFiles(versions, user, current.number))
    state_dir = None if state_root is None else \
        state_root / PRODUCER_STATES / producer.name.replace(":", "_") / user
    timings: dict[str, float] = {"compile": 0.0}
    attempts: list[Attempt] = []
    feedback: ValidationFailure | None = None
    failed_files: dict[str, str] | None = None
    for number in range(1, max_repairs + 2):
        started = time.perf_counter()
        try:
            produced = producer.produce(ProducerRequest(user, log, live_set, previous, feedback,
                                                        failed_files, number, new_facts=new_facts,
                                                        state_dir=state_dir, epoch=epoch))
        except ProducerFailed as exc:  # no files this time (a model that did not answer)
            timings["compile"] += time.perf_counter() - started
            reason = _cut(str(exc))
            attempts.append(Attempt(number=number, stage="producer", problems=[reason],
                                    usage=reported_usage(exc.usage),
                                    seconds=round(time.perf_counter() - started, 6)))
            return Failed("producer", (Problem("producer", "", 0, 0, reason),), timings, current,
                          tuple(attempts), producer.name)
        produce_seconds = time.perf_counter() - started
        timings["compile"] += produce_seconds
        if produced.settle is not None:
            settles.append(produced.settle)
        if failed_files is not None and produced.files == failed_files:
            break  # the producer has nothing new to offer: the same files fail the same way
        if summary is None:
            summary = _summary(job, log, epoch)
            live_set = summary.live
        stage_dir = stage_root / f"{user}-{uuid.uuid4().hex}"
        result = validator.validate(produced.files, user=user, version=f"stage{head}", live_fact_ids=live_set,
                                    facts=log.by_id(), stage_dir=stage_dir,
                                    stored_parts=lambda keys: versions.stored_parts(current, keys),
                                    code_dir=versions.code_folder(user), scope=epoch)
        timings.update(result.timings)
        seconds = time.perf_counter() - started
        if isinstance(result, ValidationSuccess):
            assert summary is not None
            attempts.append(Attempt(number=number, stage="passed", usage=reported_usage(produced.usage),
                                    seconds=round(seconds, 6)))
            return _publish(versions, user, log, summary, produced.files, result, stage_dir, producer,
                            attempts, timings, epoch, current, head)
        attempts.append(Attempt(number=number, stage=result.stage, problems=problem_lines(result.problems),
                                usage=reported_usage(produced.usage), seconds=round(seconds, 6)))
        feedback, failed_files = result, dict(produced.files)
    assert feedback is not None
    return Failed(feedback.stage, feedback.problems, timings, current, tuple(attempts), producer.name)


def _publish(versions: VersionStore, user: str, log: StoreLog, summary: Summary, files: dict[str, str],
             result: ValidationSuccess, stage_dir: Path, producer: Producer,
             attempts: list[Attempt], timings: dict[str, float], epoch: str, current: VersionInfo | None,
             head: int) -> CheckpointResult:
    position = summary.position  # the last fact up to `head`
    anchor = log.get(position)
    left_out = result.manifest.quarantined  # what the package itself declares it left out
    info = None
    try:
        started = time.perf_counter()
        info = versions.publish_if_newer(user, files, PublishMeta(
            log_position=position,
            input_hash=summary.input_hash(left_out, log),
            producer=producer.name,
            timings=_rounded(timings),
            retractions=dict(summary.retractions),
            log_hash=anchor.hash if anchor is not None else None,
            attempts=attempts,
            usage=usage_totals(attempts),
        ), manifest=result.manifest, module=result.module, epoch=epoch, walks=result.parts, hashes=result.hashes)
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

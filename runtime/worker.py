"""`uac worker`: checkpoint workers that take due users from the PostgreSQL queue
(`runtime.work_queue`) and run, per job, what `uac watch` runs per user: checkpoint with the
configured producer when the policy says so, then the constraints on a new version, with
the alerts recorded (`Memory.checkpoint_if_due`); a new alert of a tenant's user is recorded
as a webhook delivery in the same transaction as the alert state (`runtime.webhooks`), which
the sender of `uac serve` posts.

A job covers the log up to the position of the version current after it ran, and runs the
constraints over that version if no run has yet (a worker killed between a publish and its
alert run leaves this to the retry); the queue keeps the job pending if facts came
meanwhile or the policy waits for more. While a job
runs, a thread renews its lease; a worker killed mid-job stops renewing, and another worker
takes the job after the lease expires. The version store publishes at most once per log
position (`publish_if_newer`), however many workers try.

`stop` (SIGTERM, SIGINT) is checked between jobs: the job under way finishes and is
recorded, then the worker exits. With `concurrency` N > 1, N worker processes run, each
with its own workspace handles; the parent passes the signal on and waits for them.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta, timezone
from typing import TYPE_CHECKING, Callable

from factlog.pg import first_line
from runtime.work_queue import (
    DEFAULT_DEBOUNCE_S,
    DEFAULT_LEASE_S,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_RETRY_S,
    Job,
    WorkQueue,
)

if TYPE_CHECKING:
    from codegen.producer import Producer
    from runtime.memory import Memory
    from users.checkpoint import CheckpointPolicy


@dataclass(frozen=True)
class WorkerOptions:
    """What a worker process needs, picklable for the processes `run_workers` starts."""

    queue_url: str
    home: str | None
    producer: str | None = None  # a registered name; None: the workspace's (settings.json)
    every_facts: int | None = None  # the policy: options win over settings.json
    every_seconds: float | None = None
    debounce_s: float = DEFAULT_DEBOUNCE_S
    lease_s: float = DEFAULT_LEASE_S
    retry_s: float = DEFAULT_RETRY_S
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    poll_s: float = 0.5  # longest idle wait between claims
    sweep_s: float | None = 10.0  # how often one of the workers compares log heads with the queue
    max_jobs: int | None = None  # stop after this many jobs (benchmarks, tests)
    exit_when_idle: bool = False  # stop once nothing is pending
    name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}")


@dataclass(frozen=True)
class JobOutcome:
    user: str
    status: str  # published, unchanged, waiting, failed, lost
    detail: str
    covered: int
    seconds: float

    def line(self) -> str:
        return f"{self.user}: {self.status} ({self.detail}) [{self.seconds:.2f} s]"


class Worker:
    """Claims due jobs one at a time and runs them on `memory`."""

    def __init__(self, queue: WorkQueue, memory: Memory, policy: CheckpointPolicy,
                 producer: Producer | str | None, owner: str,
                 report: Callable[[JobOutcome], None] = lambda outcome: None,
                 poll_s: float = 0.5, sweep_s: float | None = 10.0) -> None:
        self.queue, self.memory, self.policy, self.producer = queue, memory, policy, producer
        self.owner, self.report, self.poll_s, self.sweep_s = owner, report, poll_s, sweep_s
        self.jobs = 0

    def sweep(self) -> list[str]:
        """Enqueue the users whose log head is beyond what the queue was asked for."""
        facts = self.memory.facts
        return self.queue.sweep({user: facts.head(user) for user in facts.users()})

    def maybe_sweep(self) -> None:
        if self.sweep_s is not None and self.queue.take_sweep_turn(self.sweep_s):
            self.sweep()

    def run_one(self) -> JobOutcome | None:
        """Claim one due job and run it; None when nothing was due."""
        job = self.queue.claim(self.owner)
        if job is None:
            return None
        outcome = self.run_job(job)
        self.jobs += 1
        self.report(outcome)
        return outcome

    def run_job(self, job: Job) -> JobOutcome:
        from users.checkpoint import Failed, Published

        started = time.monotonic()
        renewing = _Renewer(self.queue, job)
        renewing.start()
        try:
            head = self.memory.facts.head(job.user)
            report = self.memory.checkpoint_if_due(job.user, self.policy, producer=self.producer)
            current = self.memory.versions.current(job.user)
            if not isinstance(report.result, (Published, Failed)) and current is not None \
                    and self.memory.alert_runs.state(job.user).version != current.number:
                # a run that died between its publish and its alerts: catch up (the checkpoint's run)
                self.memory.alert_runs.alerts(job.user, operation="checkpoint")
        except Exception as exc:  # noqa: BLE001 - a job's failure is recorded, the worker goes on
            renewing.stop()
            error = f"{type(exc).__name__}: {first_line(exc)}"
            self.queue.fail(job, error)
            return JobOutcome(job.user, "failed", error, job.done, time.monotonic() - started)
        renewing.stop()
        result = report.result
        seconds = time.monotonic() - started
        if isinstance(result, Failed):
            problem = result.problems[0].message if result.problems else "no detail"
            error = f"checkpoint failed at {result.stage}: {first_line(ValueError(problem))}"
            kept = self.queue.fail(job, error)
            return JobOutcome(job.user, "failed" if kept else "lost", error, job.done, seconds)
        covered = current.meta.log_position if current is not None else 0
        wait_until = None
        if head == 0 or covered >= head:  # everything this job could see is covered
            covered = max(covered, job.wanted) if head > 0 else max(job.wanted, job.done)
            status = "published" if isinstance(result, Published) else "unchanged"
        else:  # the policy waits for more facts, or for time to pass
            status = "waiting"
            if self.policy.every_seconds is not None and current is not None:
                from factlog.timeparse import parse_datetime

                wait_until = parse_datetime(current.created_at) + timedelta(seconds=self.policy.every_seconds)
                wait_until = wait_until if wait_until.tzinfo else wait_until.replace(tzinfo=timezone.utc)
        kept = self.queue.finish(job, covered, published=isinstance(result, Published), wait_until=wait_until)
        detail = f"version {current.number}, log position {covered}" if current is not None \
            else f"log position {covered}"
        if status == "waiting":
            detail = getattr(result, "reason", detail)
        return JobOutcome(job.user, status if kept else "lost", detail, covered, seconds)

    def run_until(self, stop: threading.Event, *, max_jobs: int | None = None, exit_when_idle: bool = False) -> None:
        """Claim and run jobs until `stop` is set (checked between jobs)."""
        import psycopg

        while not stop.is_set():
            if max_jobs is not None and self.jobs >= max_jobs:
                return
            try:
                self.maybe_sweep()
                if self.run_one() is not None:
                    continue
                wait = self.queue.next_due_in()
            except psycopg.Error as exc:  # the database restarts: wait, the pool reconnects
                self.on_queue_error(exc)
                stop.wait(min(5.0, self.poll_s * 10))
                continue
            if wait is None and exit_when_idle:
                return
            stop.wait(self.poll_s if wait is None else min(max(wait, 0.01), self.poll_s))

    def on_queue_error(self, exc: BaseException) -> None:
        sys.stderr.write(f"worker {self.owner}: the queue's database: {first_line(exc)}; trying again\n")
        sys.stderr.flush()


class _Renewer:
    """Renews a job's lease every third of the lease time until stopped."""

    def __init__(self, queue: WorkQueue, job: Job) -> None:
        self._queue, self._job = queue, job
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-{job.user}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._queue.lease_s / 3):
            try:
                if not self._queue.renew(self._job):
                    return
            except Exception:  # noqa: BLE001 - the server may be restarting; the next turn tries again
                continue

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def open_worker(options: WorkerOptions, report: Callable[[JobOutcome], None],
                producer: Producer | None = None) -> tuple[Worker, Memory, WorkQueue]:
    """The worker of `options` on its workspace and queue (the caller closes both); a
    producer object, when given, wins over the options' name."""
    from codegen.producer import producer_named
    from runtime.memory import Memory
    from runtime.producer_choice import with_settings, workspace_producer
    from runtime.settings import load_settings
    from runtime.webhooks import deliver_from_alert_runs

    memory = Memory.open(options.home, store=options.queue_url)  # the queue's database holds the fact log too
    try:
        deliver_from_alert_runs(memory)  # new alerts of a tenant's users: a webhook delivery each
        policy = load_settings(memory.workspace.home).policy(options.every_facts, options.every_seconds)
        chosen: Producer | str | None = producer
        if chosen is None:
            chosen = workspace_producer(memory.workspace.home, None) if options.producer is None \
                else with_settings(memory.workspace.home, producer_named(options.producer))
        queue = WorkQueue.open(options.queue_url, debounce_s=options.debounce_s, lease_s=options.lease_s,
                               retry_s=options.retry_s, max_attempts=options.max_attempts)
    except BaseException:
        memory.close()
        raise
    worker = Worker(queue, memory, policy, chosen, options.name, report, options.poll_s, options.sweep_s)
    return worker, memory, queue


def print_line(outcome: JobOutcome) -> None:
    sys.stdout.write(outcome.line() + "\n")
    sys.stdout.flush()


def serve(options: WorkerOptions, stop: threading.Event, report: Callable[[JobOutcome], None] = print_line,
          producer: Producer | None = None) -> int:
    """Run one worker until `stop` (or its job or idle limit); returns the jobs run."""
    worker, memory, queue = open_worker(options, report, producer)
    try:
        worker.run_until(stop, max_jobs=options.max_jobs, exit_when_idle=options.exit_when_idle)
        return worker.jobs
    finally:
        queue.close()
        memory.close()


def stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set `stop` (main thread only)."""
    def handler(signum: int, frame: object) -> None:
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, handler)


def _child(options: WorkerOptions) -> None:
    stop = threading.Event()
    stop_on_signals(stop)
    try:
        serve(options, stop)
    except Exception as exc:  # noqa: BLE001 - one line, as the CLI would say it
        sys.stderr.write(f"error: worker {options.name}: {first_line(exc)}\n")
        sys.exit(1)


def run_workers(options: WorkerOptions, concurrency: int, stop: threading.Event) -> int:
    """Run `concurrency` worker processes until `stop` is set; returns the worst exit code."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    children = []
    for number in range(concurrency):
        child_options = WorkerOptions(**{**options.__dict__, "name": f"{options.name}/{number + 1}"})
        process = context.Process(target=_child, args=(child_options,), name=child_options.name)
        process.start()
        children.append(process)
    while not stop.is_set() and any(p.is_alive() for p in children):
        stop.wait(0.2)
    for process in children:
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGTERM)
    for process in children:
        process.join()
    return max((p.exitcode or 0 for p in children), default=0)

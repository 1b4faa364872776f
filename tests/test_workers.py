"""Checkpoint workers over the PostgreSQL queue (runtime.work_queue, runtime.worker,
`uac worker`): leases, retries after a killed worker, one publish per log position, debounce,
the sweep, failures and `uac worker status`. The fact log is the workspace's (SQLite); the
queue lives in a new database per test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import pytest
from conftest import CliResult, one_error_line

from codegen.producer import Produced, ProducerFailed, ProducerRequest
from runtime.memory import Memory
from runtime.work_queue import WorkQueue
from runtime.worker import JobOutcome, Worker
from users.checkpoint import CheckpointPolicy

SLOW_WORKER = Path(__file__).with_name("slow_worker.py")
REPO = Path(__file__).resolve().parents[1]


@contextmanager
def opened(home: Path, store: str) -> Iterator[Memory]:
    """The workspace at `home` with its fact log in the PostgreSQL database `store`, as
    `uac worker --store` opens it."""
    m = Memory.open(home, store=store)
    try:
        yield m
    finally:
        m.close()


def add_trips(mem: Memory, user: str, count: int, start: int = 0) -> int:
    for n in range(start, start + count):
        mem.add(user, f"trip {n}", kind="trip", key=f"t{n}", fields={"destination": f"city {n}"})
    return mem.facts.head(user)


@pytest.fixture
def queue(pg_url: str) -> Iterator[WorkQueue]:
    q = WorkQueue.open(pg_url, debounce_s=0, lease_s=30, retry_s=0)
    yield q
    q.close()


def row(queue: WorkQueue, user: str) -> dict[str, object]:
    with queue.pool.connection() as conn:
        cur = conn.execute("SELECT user_id, wanted_position, done_position, due_at::text AS due_at, pending_since, "
                           "lease_owner, attempts, last_error, runs, publishes FROM worker_jobs WHERE user_id = %s",
                           (user,))
        names = [d.name for d in cur.description or []]
        found = cur.fetchone()
    assert found is not None
    return dict(zip(names, found))


def sql(queue: WorkQueue, statement: str, *args: object) -> None:
    with queue.pool.connection() as conn:
        conn.execute(statement, args)


def worker(queue: WorkQueue, mem: Memory, owner: str = "w1", policy: CheckpointPolicy = CheckpointPolicy(),
           producer: object = None, seen: list[JobOutcome] | None = None) -> Worker:
    report = seen.append if seen is not None else (lambda outcome: None)
    return Worker(queue, mem, policy, producer, owner, report, poll_s=0.01, sweep_s=None)  # type: ignore[arg-type]


def uac_process(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-c", "from runtime.cli import main; main()", "--home", str(home), *args]


# -- the queue -------------------------------------------------------------------------------


def test_facts_that_come_while_a_job_runs_keep_it_pending(queue: WorkQueue) -> None:
    queue.enqueue({"alice": 3})
    job = queue.claim("w1")
    assert job is not None and (job.user, job.wanted, job.attempt) == ("alice", 3, 1)
    assert queue.claim("w2") is None  # leased
    queue.enqueue({"alice": 5})  # appended meanwhile
    assert queue.finish(job, 3, published=True)
    again = queue.claim("w2")
    assert again is not None and again.wanted == 5 and again.done == 3
    assert queue.finish(again, 5, published=True)
    assert queue.claim("w1") is None
    assert row(queue, "alice")["pending_since"] is None


def test_an_expired_lease_goes_to_another_worker_and_the_old_holder_changes_nothing(queue: WorkQueue) -> None:
    queue.enqueue({"alice": 2})
    first = queue.claim("w1")
    assert first is not None
    sql(queue, "UPDATE worker_jobs SET lease_expires = now() - interval '1 second'")
    assert queue.status().expired_leases == 1 and queue.status().due == 1
    second = queue.claim("w2")
    assert second is not None and second.user == "alice" and second.attempt == 2
    assert not queue.renew(first) and not queue.finish(first, 2, published=True)
    assert not queue.fail(first, "late")
    assert row(queue, "alice")["lease_owner"] == "w2"
    assert queue.finish(second, 2, published=True)
    assert row(queue, "alice")["done_position"] == 2 and row(queue, "alice")["attempts"] == 0


def test_a_burst_of_enqueues_waits_for_one_debounce_window(pg_url: str) -> None:
    with WorkQueue.open(pg_url, debounce_s=600) as q:
        q.enqueue({"alice": 1})
        first_due = row(q, "alice")["due_at"]
        for position in range(2, 30):
            q.enqueue({"alice": position})
        assert row(q, "alice")["due_at"] == first_due  # never pushed back
        assert row(q, "alice")["wanted_position"] == 29
        assert q.claim("w1") is None  # not due before the window ends
        status = q.status()
        assert (status.pending, status.due) == (1, 0)
        next_due = q.next_due_in()
        assert next_due is not None and 500 < next_due <= 600


def test_a_stale_or_lower_position_changes_nothing(queue: WorkQueue) -> None:
    queue.enqueue({"alice": 4})
    job = queue.claim("w1")
    assert job is not None and queue.finish(job, 4, published=True)
    queue.enqueue({"alice": 4, "bob": 0})
    queue.enqueue({"alice": 2})
    assert queue.claim("w1") is None and queue.status().users == 1


def test_failures_back_off_then_wait_for_new_facts(pg_url: str) -> None:
    with WorkQueue.open(pg_url, debounce_s=0, retry_s=0, max_attempts=2) as q:
        q.enqueue({"alice": 1})
        for attempt in (1, 2):
            job = q.claim("w1")
            assert job is not None and job.attempt == attempt
            assert q.fail(job, f"boom\n{attempt}")
        assert q.claim("w1") is None  # parked after two failures in a row
        failure = q.status().failures[0]
        assert (failure.user, failure.attempts, failure.error, failure.parked) == ("alice", 2, "boom 2", True)
        q.enqueue({"alice": 2})  # new facts: tried again
        job = q.claim("w1")
        assert job is not None and q.finish(job, 2, published=True)
        assert q.status().failures == []


def test_a_job_the_policy_delays_is_due_at_the_time_it_names(queue: WorkQueue) -> None:
    queue.enqueue({"alice": 3})
    job = queue.claim("w1")
    assert job is not None
    later = datetime.now(timezone.utc) + timedelta(hours=1)
    assert queue.finish(job, 1, published=False, wait_until=later)
    assert queue.claim("w1") is None
    next_due = queue.next_due_in()
    assert next_due is not None and 3500 < next_due <= 3600
    assert queue.status().pending == 1 and row(queue, "alice")["done_position"] == 1


def test_a_released_job_is_due_at_once_and_its_attempt_not_counted(queue: WorkQueue) -> None:
    queue.enqueue({"alice": 1})
    job = queue.claim("w1")
    assert job is not None
    queue.release(job)
    again = queue.claim("w2")
    assert again is not None and again.attempt == 1


def test_one_sweep_turn_per_interval(queue: WorkQueue) -> None:
    assert queue.take_sweep_turn(3600)
    assert not queue.take_sweep_turn(3600)
    assert queue.sweep({"alice": 3, "bob": 0}) == ["alice"]
    assert queue.sweep({"alice": 3}) == []


def test_every_write_through_a_memory_enqueues_its_user(queue: WorkQueue, mem: Memory, tmp_path: Path) -> None:
    mem.enqueue_writes(queue.enqueue)
    mem.add("alice", "likes tea")
    assert row(queue, "alice")["wanted_position"] == 1
    records = tmp_path / "trips.jsonl"
    records.write_text('{"destination": "Oslo"}\n{"destination": "Rome"}\n', encoding="utf-8")
    mem.ingest_records("alice", records, "trip")
    mem.retract("alice", 1)
    mem.ingest_conversation("bob", {"session_id": "s1", "messages": [{"role": "user", "content": "I moved to Berlin."}]})
    assert row(queue, "alice")["wanted_position"] == mem.facts.head("alice") == 4
    assert row(queue, "bob")["wanted_position"] == mem.facts.head("bob") > 0


def test_a_write_is_kept_when_the_queue_cannot_be_reached(mem: Memory) -> None:
    def down(heads: object) -> None:
        raise OSError("queue down")

    mem.enqueue_writes(down)
    assert mem.add("alice", "likes tea").id == 1 and mem.facts.head("alice") == 1


# -- workers on a workspace ------------------------------------------------------------------


def test_a_worker_checkpoints_runs_constraints_and_records_the_position(queue: WorkQueue, mem: Memory) -> None:
    head = add_trips(mem, "alice", 3)
    queue.enqueue({"alice": head})
    seen: list[JobOutcome] = []
    w = worker(queue, mem, seen=seen)
    w.run_until(threading.Event(), exit_when_idle=True)
    assert [(o.user, o.status, o.covered) for o in seen] == [("alice", "published", 3)]
    assert row(queue, "alice")["done_position"] == 3 and row(queue, "alice")["publishes"] == 1
    current = mem.versions.current("alice")
    assert current is not None and current.meta.log_position == 3
    assert mem.alert_runs.state_path("alice").exists()  # the constraints ran and their state was kept


def test_the_sweep_finds_users_whose_writers_did_not_enqueue(queue: WorkQueue, mem: Memory) -> None:
    add_trips(mem, "alice", 2)
    add_trips(mem, "bob", 1)
    w = worker(queue, mem)
    assert w.sweep() == ["alice", "bob"]
    assert w.sweep() == []
    assert {queue.claim("w1").user, queue.claim("w1").user} == {"alice", "bob"}  # type: ignore[union-attr]


def test_a_worker_whose_lease_was_taken_over_does_not_publish_the_position_again(
        queue: WorkQueue, mem: Memory, tmp_path: Path) -> None:
    head = add_trips(mem, "alice", 3)
    queue.enqueue({"alice": head})
    slow = queue.claim("w1")
    assert slow is not None
    sql(queue, "UPDATE worker_jobs SET lease_expires = now() - interval '1 second'")
    other = Memory.open(mem.workspace.home)
    try:
        taken = worker(queue, other, "w2").run_one()
        assert taken is not None and taken.status == "published"
    finally:
        other.close()
    late = worker(queue, mem, "w1").run_job(slow)
    assert late.status == "lost"
    assert [v.meta.log_position for v in mem.versions.history("alice")] == [3]
    assert row(queue, "alice")["publishes"] == 1


def test_a_worker_waits_out_a_queue_database_that_is_down(queue: WorkQueue, mem: Memory,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import psycopg

    calls: list[str] = []
    real_claim = queue.claim

    def claim(owner: str) -> object:
        calls.append(owner)
        if len(calls) == 1:
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return real_claim(owner)

    queue.claim = claim  # type: ignore[method-assign,assignment]
    worker(queue, mem).run_until(threading.Event(), exit_when_idle=True)
    assert calls == ["w1", "w1"]
    assert "server closed the connection unexpectedly; trying again" in capsys.readouterr().err


@pytest.mark.slow
def test_the_policy_waits_for_more_facts(queue: WorkQueue, mem: Memory) -> None:
    queue.enqueue({"alice": add_trips(mem, "alice", 2)})
    w = worker(queue, mem, policy=CheckpointPolicy(every_facts=3))
    assert w.run_one() is not None and mem.versions.current("alice") is not None  # a first version: at once
    queue.enqueue({"alice": add_trips(mem, "alice", 1, start=2)})
    outcome = w.run_one()
    assert outcome is not None and outcome.status == "waiting"
    assert queue.claim("w9") is None and queue.status().pending == 1  # waits for facts, not retried
    queue.enqueue({"alice": add_trips(mem, "alice", 2, start=3)})
    outcome = w.run_one()
    assert outcome is not None and (outcome.status, outcome.covered) == ("published", 5)
    assert queue.status().pending == 0


class BrokenProducer:
    name = "broken"

    def produce(self, request: ProducerRequest) -> Produced:
        raise ProducerFailed("the model is down")


def test_a_failed_checkpoint_is_recorded_and_the_last_version_stays(queue: WorkQueue, mem: Memory) -> None:
    queue.enqueue({"alice": add_trips(mem, "alice", 1)})
    outcome = worker(queue, mem, producer=BrokenProducer()).run_one()
    assert outcome is not None and outcome.status == "failed"
    failure = queue.status().failures[0]
    assert failure.user == "alice" and "the model is down" in failure.error
    assert mem.versions.current("alice") is None


# -- the command line ------------------------------------------------------------------------


def test_worker_status_shows_depth_lag_leases_and_failures(queue: WorkQueue, pg_url: str, uac) -> None:  # type: ignore[no-untyped-def]
    queue.enqueue({"alice": 1, "bob": 2, "carol": 3})
    sql(queue, "UPDATE worker_jobs SET due_at = now() - interval '90 seconds' WHERE user_id = 'carol'")
    running = queue.claim("host:1")  # carol, the most overdue
    failing = queue.claim("host:2")
    assert running is not None and failing is not None and running.user == "carol"
    queue.fail(failing, "checkpoint failed at mypy: bad type")
    sql(queue, "UPDATE worker_jobs SET due_at = now() - interval '30 seconds' WHERE user_id = %s", failing.user)
    r: CliResult = uac("worker", "status", "--store", pg_url)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("queue: 3 pending (2 due) of 3 user(s); lag ")
    assert float(lines[0].split("lag ")[1].split(" s")[0]) >= 29
    assert "running: 1" in r.out and "  carol: host:1, lease ends in " in r.out
    assert "failures: 1" in r.out and "checkpoint failed at mypy: bad type" in r.out
    j = uac("worker", "status", "--store", pg_url, "--json")
    import json

    data = json.loads(j.out)
    assert (data["pending"], data["due"], len(data["running"]), data["failures"][0]["user"]) == (3, 2, 1, failing.user)


def test_bad_worker_input_is_one_line(uac) -> None:  # type: ignore[no-untyped-def]
    one_error_line(uac("worker", "status"), "--store")
    one_error_line(uac("worker", "--store", "/tmp/queue.db"), "PostgreSQL URL")
    one_error_line(uac("worker", "status", "--store", "sqlite:///x"), "PostgreSQL URL")


# -- real processes --------------------------------------------------------------------------


def wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the worker never reached its producer"
        time.sleep(0.02)


def test_a_worker_killed_mid_checkpoint_leaves_the_job_to_another_one_publish(
        pg_url: str, tmp_path: Path) -> None:
    home, marker = tmp_path / "home", tmp_path / "in-producer"
    with opened(home, pg_url) as mem_:
        head = add_trips(mem_, "alice", 3)
    with WorkQueue.open(pg_url, debounce_s=0) as q:
        q.enqueue({"alice": head})
        slow = subprocess.Popen([sys.executable, str(SLOW_WORKER), pg_url, str(home), str(marker), "600", "1"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(marker, slow)
        os.kill(slow.pid, signal.SIGKILL)
        slow.communicate()
        assert str(row(q, "alice")["lease_owner"]).startswith("slow:") and row(q, "alice")["runs"] == 0
        done = subprocess.run(uac_process(home, "worker", "--store", pg_url, "--until-idle", "--lease", "1",
                                          "--debounce", "0", "--poll", "0.05"),
                              capture_output=True, text=True, timeout=120, cwd=REPO)
        assert done.returncode == 0, done.stderr
        assert "alice: published (version 1, log position 3)" in done.stdout
        job = row(q, "alice")
        assert (job["done_position"], job["publishes"], job["runs"], job["lease_owner"]) == (3, 1, 1, None)
    with opened(home, pg_url) as mem_:
        assert [v.meta.log_position for v in mem_.versions.history("alice")] == [3]


@pytest.mark.slow
def test_sigterm_lets_the_job_finish_then_exits_0(pg_url: str, tmp_path: Path) -> None:
    home, marker = tmp_path / "home", tmp_path / "in-producer"
    with opened(home, pg_url) as mem_:
        head = add_trips(mem_, "alice", 2)
    with WorkQueue.open(pg_url, debounce_s=0) as q:
        q.enqueue({"alice": head})
        slow = subprocess.Popen([sys.executable, str(SLOW_WORKER), pg_url, str(home), str(marker), "1", "30"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(marker, slow)
        slow.send_signal(signal.SIGTERM)
        out, err = slow.communicate(timeout=120)
        assert slow.returncode == 0, err
        assert "alice: published" in out
        assert row(q, "alice")["done_position"] == 2 and row(q, "alice")["lease_owner"] is None


@pytest.mark.slow
def test_two_worker_processes_racing_publish_each_position_once(pg_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    users = [f"u{n}" for n in range(6)]
    with opened(home, pg_url) as mem_:
        heads = {user: add_trips(mem_, user, 2) for user in users}
    with WorkQueue.open(pg_url, debounce_s=0) as q:
        q.enqueue(heads)
        procs = [subprocess.Popen(uac_process(home, "worker", "--store", pg_url, "--until-idle", "--poll", "0.05"),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
                 for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert all(p.returncode == 0 for p in procs), outs
        lines = sorted(line for out, _ in outs for line in out.splitlines())
        assert [line.split(":")[0] for line in lines] == users  # each job ran once
        status = q.status()
        assert (status.pending, status.runs, status.publishes) == (0, 6, 6)
    with opened(home, pg_url) as mem_:
        for user in users:
            assert [v.meta.log_position for v in mem_.versions.history(user)] == [2]


@pytest.mark.slow
def test_concurrency_runs_worker_processes_and_sigterm_stops_them(pg_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with opened(home, pg_url) as mem_:
        heads = {user: add_trips(mem_, user, 1) for user in ("a", "b", "c")}
    with WorkQueue.open(pg_url, debounce_s=0) as q:
        q.enqueue(heads)
        proc = subprocess.Popen(uac_process(home, "worker", "--store", pg_url, "--concurrency", "2", "--poll", "0.05"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
        deadline = time.monotonic() + 240
        while q.status().pending and time.monotonic() < deadline:
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert q.status().publishes == 3 and sorted(line.split(":")[0] for line in out.splitlines()) == ["a", "b", "c"]

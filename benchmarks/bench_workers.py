"""Checkpoints per minute with 1, 2 and 4 checkpoint workers (`uac worker`) over many users
(issue 14: 1,000 users x 200 facts), measured over a fixed window so a full-size run fits in
about ten minutes.

The log is generated in memory (chained and hashed as an append would) and loaded once, by the
PostgreSQL store's bulk import, into a template database on a throwaway server
(tests/pg_server.py). Each run clones it (`CREATE DATABASE … TEMPLATE`: the log, then a new
queue and no versions), enqueues every user, starts N `uac worker` processes, each with a home
of its own as on N machines (`--shared-home`: `uac worker --concurrency N` on one home), and
timestamps every job line they print. The window opens once every worker has finished its
first job (start-up and first imports excluded) and lasts `--window` seconds, or until the
queue is drained; the checkpoints finished inside it, per minute, are the throughput. Then
SIGTERM: each worker finishes the job under way and exits 0, and the queue's counters are
checked against the lines (every job published once, none failed).

Prints, per run and then per worker count (medians over `--repeat` runs, interleaved): the
checkpoints in the window, checkpoints per minute, the median seconds of one job, the CPU
seconds per checkpoint of the worker processes, and the throughput against 1 worker measured
in the same run.

    python benchmarks/bench_workers.py                                   # 1,000 x 200, 120 s windows
    python benchmarks/bench_workers.py --users 60 --facts 50 --window 30 # a quick check
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from pg_server import PgServer  # noqa: E402

from factlog.chain_rules import chained  # noqa: E402
from factlog.hashing import GENESIS  # noqa: E402
from factlog.model import Fact  # noqa: E402
from factlog.records import structured_fact  # noqa: E402
from factlog.stores import open_store  # noqa: E402
from runtime.work_queue import WorkQueue  # noqa: E402

KINDS = ("trip", "expense", "document")
JOB_LINE = re.compile(r"^(?P<user>\S+): (?P<status>\w+) .*\[(?P<seconds>[0-9.]+) s\]$")


def user_facts(user: str, facts: int) -> list[Fact]:
    """The user's log as an append would store it: numbered, chained, hashed."""
    batch = []
    for n in range(facts):
        kind = KINDS[n % len(KINDS)]
        if kind == "trip":
            fields = {"destination": f"city {n}", "cost_usd": float(n)}
        elif kind == "expense":
            fields = {"amount_usd": float(n % 97), "category": f"cat{n % 7}"}
        else:
            fields = {"name": f"doc {n}", "expires": f"20{30 + n % 60:02d}-01-01"}
        batch.append(structured_fact(kind, fields, key=f"{kind}-{n}"))
    return chained(user, batch, 0, GENESIS, None, set(), lambda target: (False, None))


def load_template(server: PgServer, users: int, facts: int) -> tuple[str, dict[str, int], float, float]:
    """The template database holding the log: (its name, each user's head, seconds to build
    the facts, seconds to import them)."""
    started = time.perf_counter()
    log: list[Fact] = []
    heads = {}
    for u in range(users):
        user = f"user{u:04d}"
        log.extend(user_facts(user, facts))
        heads[user] = facts
    built = time.perf_counter() - started
    name = f"bench_workers_{os.getpid()}_log"
    store = open_store(server.create_database(name))
    try:
        started = time.perf_counter()
        if store.import_facts(log) != len(log):
            raise SystemExit("the import stored fewer facts than it was given")
        imported = time.perf_counter() - started
    finally:
        store.close()
    return name, heads, built, imported


def clone(server: PgServer, template: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    server.databases.append(name)
    return server.url(name)


def worker_commands(home: Path, url: str, workers: int, pause_s: float, shared_home: bool) -> list[list[str]]:
    """The processes of one run: N `uac worker` processes, each with a home of its own (as on
    N machines: the log, the queue and the versions are the database's, a home is a cache),
    or `uac worker --concurrency N` on one shared home; with `pause_s`, N workers whose producer
    first waits that long (tests/slow_worker.py: a model's latency, no CPU)."""
    if pause_s:
        script = str(REPO / "tests" / "slow_worker.py")
        return [[sys.executable, script, url, str(home / f"w{n}"), str(home / f"marker{n}"), str(pause_s), "60"]
                for n in range(workers)]
    worker = ["worker", "--store", url, "--until-idle", "--poll", "0.05", "--sweep", "3600", "--debounce", "0"]
    uac = [sys.executable, "-c", "from runtime.cli import main; main()"]
    if shared_home:
        return [[*uac, "--home", str(home), *worker, "--concurrency", str(workers)]]
    return [[*uac, "--home", str(home / f"w{n}"), *worker] for n in range(workers)]


@dataclass
class Lines:
    """Job lines as they arrive: (arrival time, process number, status, job seconds)."""

    jobs: list[tuple[float, int, str, float]] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def read(self, number: int, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = JOB_LINE.match(line.strip())
            with self.lock:
                if match is None:
                    self.other.append(line.strip())
                else:
                    self.jobs.append((time.perf_counter(), number, match["status"], float(match["seconds"])))

    def snapshot(self) -> list[tuple[float, int, str, float]]:
        with self.lock:
            return list(self.jobs)


@dataclass(frozen=True)
class Run:
    workers: int
    warm_s: float  # from start until every worker had finished a job
    window_s: float
    in_window: int  # checkpoints (published) finished inside the window
    job_s: float  # median seconds of one published job, inside the window
    cpu_per_checkpoint: float
    published: int  # over the whole run

    @property
    def per_minute(self) -> float:
        return self.in_window / self.window_s * 60 if self.window_s > 0 else 0.0


def one_run(server: PgServer, template: str, heads: dict[str, int], workers: int, number: int, window: float,
            pause_s: float, shared_home: bool, warm_limit: float) -> Run:
    home = Path(tempfile.mkdtemp(prefix="uac-bench-workers-"))
    procs: list[subprocess.Popen[str]] = []
    logs: list[IO[str]] = []
    try:
        url = clone(server, template, f"bench_workers_{os.getpid()}_{workers}_{number}")
        with WorkQueue.open(url, debounce_s=0) as queue:
            queue.enqueue(heads)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = Lines()
        started = time.perf_counter()
        logs = [(home / f"stderr{n}").open("w+") for n in range(workers)]
        procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, cwd=REPO,
                                  start_new_session=True)
                 for command, log in zip(worker_commands(home, url, workers, pause_s, shared_home), logs)]
        readers = [threading.Thread(target=lines.read, args=(n, p), daemon=True) for n, p in enumerate(procs)]
        for reader in readers:
            reader.start()

        def warm() -> bool:  # every worker finished a job (one shared process: N jobs)
            jobs = lines.snapshot()
            return len(jobs) >= workers if shared_home else len({n for _, n, _, _ in jobs}) == workers

        while not warm() and all(p.poll() is None for p in procs):
            if time.perf_counter() - started > warm_limit:
                raise SystemExit(f"{workers} worker(s) not all warm after {warm_limit:.0f} s")
            time.sleep(0.05)
        opened = time.perf_counter()
        while time.perf_counter() - opened < window and all(p.poll() is None for p in procs):
            time.sleep(0.05)
        closed = min(time.perf_counter(), opened + window)
        for proc in procs:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGTERM)  # the job under way finishes, then exit 0
        for proc in procs:
            proc.wait(timeout=600)
        for reader in readers:
            reader.join()
        errors = [log.seek(0) or log.read() for log in logs]
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if any(proc.returncode != 0 for proc in procs):
            raise SystemExit(f"workers failed: {' '.join(errors).strip()[-500:]}")
        jobs = lines.snapshot()
        statuses = {status for _, _, status, _ in jobs}
        if statuses - {"published"}:
            raise SystemExit(f"jobs other than publishes: {sorted(statuses)}; {lines.other[-3:]}")
        with WorkQueue.open(url) as queue:
            status = queue.status()
        if status.failures or status.publishes != len(jobs) or status.runs != len(jobs):
            raise SystemExit(f"the queue disagrees with the workers' lines ({len(jobs)}): {status.as_json()}")
        inside = [seconds for at, _, _, seconds in jobs if opened <= at <= closed]
        last = max(at for at, _, _, _ in jobs)
        window_s = (min(closed, last) if status.pending == 0 else closed) - opened  # a drained queue ends it
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return Run(workers, opened - started, window_s, len(inside),
                   statistics.median(inside) if inside else float("nan"), cpu / max(len(jobs), 1), len(jobs))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        for log in logs:
            log.close()
        shutil.rmtree(home, ignore_errors=True)


def queue_overhead(server: PgServer, jobs: int) -> float:
    """Median milliseconds of one job's queue work (claim, then finish), no checkpoint."""
    url = server.create_database(f"bench_workers_{os.getpid()}_queue")
    with WorkQueue.open(url, debounce_s=0) as queue:
        queue.enqueue({f"user{n:05d}": 1 for n in range(jobs)})
        times = []
        while True:
            started = time.perf_counter()
            job = queue.claim("bench")
            if job is None:
                break
            queue.finish(job, 1, published=True)
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--facts", type=int, default=200)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--window", type=float, default=120.0,
                        help="seconds of measurement per run, once every worker has finished a job")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--warm-limit", type=float, default=300.0,
                        help="seconds a run may take before every worker has finished a job")
    parser.add_argument("--shared-home", action="store_true",
                        help="the workers share one home (`--concurrency N`) instead of a home each")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds each checkpoint's producer waits first (a model's latency)")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    server = PgServer.start()
    try:
        template, heads, built, imported = load_template(server, args.users, args.facts)
        total = args.users * args.facts
        print(f"log: {args.users} users x {args.facts} facts = {total:,}: built in {built:.1f} s, imported in "
              f"{imported:.1f} s ({total / imported:,.0f} facts/s); {os.cpu_count()} CPU(s); load "
              f"{os.getloadavg()[0]:.1f}; producer pause {args.pause:g} s; window {args.window:g} s", flush=True)
        print(f"queue work per job (claim + finish, {args.users} jobs): "
              f"{queue_overhead(server, args.users):.2f} ms median", flush=True)
        runs_of: dict[int, list[Run]] = {n: [] for n in counts}
        for number in range(args.repeat):  # interleaved: each repeat runs every count once
            for workers in counts:
                run = one_run(server, template, heads, workers, number, args.window, args.pause, args.shared_home,
                              args.warm_limit)
                print(f"  run {number + 1}: {workers} worker(s): warm after {run.warm_s:.1f} s; "
                      f"{run.in_window} checkpoints in {run.window_s:.1f} s = {run.per_minute:.1f}/min; "
                      f"job {run.job_s:.2f} s median; {run.cpu_per_checkpoint:.2f} CPU s per checkpoint "
                      f"({run.published} in all)", flush=True)
                runs_of[workers].append(run)
        base: float | None = None
        print(f"{'workers':>7} {'ckpt/min':>9} {'job s':>7} {'CPU s/ckpt':>10} {'warm s':>7} {'vs 1':>6}")
        for workers in counts:
            runs = runs_of[workers]
            rate = statistics.median(r.per_minute for r in runs)
            base = rate if base is None else base
            print(f"{workers:>7} {rate:>9.1f} {statistics.median(r.job_s for r in runs):>7.2f} "
                  f"{statistics.median(r.cpu_per_checkpoint for r in runs):>10.2f} "
                  f"{statistics.median(r.warm_s for r in runs):>7.1f} {rate / base if base else 0.0:>6.2f}")
    finally:
        server.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Checkpoints per minute with 1, 2 and 4 checkpoint workers (`uac worker --concurrency N`)
over many users (issue 14: 1,000 users x 200 facts; `--users`/`--facts` for a quick run).

One fact log is written once; each run imports it into a new database on a throwaway
PostgreSQL server (tests/pg_server.py: the log, the queue, the versions), enqueues every
user, and times N `uac worker --until-idle` processes, each with a home of its own as on N
machines (`--shared-home`: `uac worker --concurrency N` on one home), until they exit.
Prints, per worker count: the median wall seconds, checkpoints per minute, CPU seconds of
the worker processes, and the ratio of throughput against 1 worker measured in the same run.

    python benchmarks/bench_workers.py --users 40 --facts 50 --repeat 1
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from pg_server import PgServer  # noqa: E402

from factlog.records import structured_fact  # noqa: E402
from factlog.stores import open_store  # noqa: E402
from runtime.memory import Memory  # noqa: E402
from runtime.work_queue import WorkQueue  # noqa: E402

KINDS = ("trip", "expense", "document")


def build_log(home: Path, users: int, facts: int) -> dict[str, int]:
    mem = Memory.open(home)
    heads = {}
    try:
        for u in range(users):
            user = f"user{u:04d}"
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
            mem.facts.append(user, batch)
            heads[user] = mem.facts.head(user)
    finally:
        mem.close()
    return heads


def worker_command(home: Path, url: str, workers: int, pause_s: float, shared_home: bool) -> list[list[str]]:
    """The processes of one run: N `uac worker` processes, each with a home of its own (as on
    N machines: the log, the queue and the versions are the database's, a home is a cache),
    or `uac worker --concurrency N` on one shared home; with `pause_s`, N workers whose producer
    first waits that long (tests/slow_worker.py: a model's latency, no CPU)."""
    if pause_s:
        script = str(REPO / "tests" / "slow_worker.py")
        return [[sys.executable, script, url, str(home / f"w{n}"), str(home / f"marker{n}"), str(pause_s), "60"]
                for n in range(workers)]
    worker = ["worker", "--store", url, "--until-idle", "--poll", "0.05", "--sweep", "3600"]
    if shared_home:
        return [[sys.executable, "-c", "from runtime.cli import main; main()", "--home", str(home), *worker,
                 "--concurrency", str(workers)]]
    return [[sys.executable, "-c", "from runtime.cli import main; main()", "--home", str(home / f"w{n}"), *worker]
            for n in range(workers)]


def one_run(server: PgServer, source: Path, heads: dict[str, int], workers: int, run: int,
            pause_s: float = 0.0, shared_home: bool = False) -> tuple[float, float]:
    home = Path(tempfile.mkdtemp(prefix="uac-bench-workers-"))
    try:
        url = server.create_database(f"bench_workers_{os.getpid()}_{workers}_{run}")
        built, shared = open_store(source / "facts.db"), open_store(url)  # the workers' log is the database's
        try:
            shared.import_facts(list(built.all_facts()))
        finally:
            built.close()
            shared.close()
        with WorkQueue.open(url, debounce_s=0) as queue:
            queue.enqueue(heads)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
                 for command in worker_command(home, url, workers, pause_s, shared_home)]
        outputs = [proc.communicate() for proc in procs]
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if any(proc.returncode != 0 for proc in procs):
            raise SystemExit(f"workers failed: {' '.join(err for _, err in outputs).strip()[-500:]}")
        published = sum(1 for out, _ in outputs for line in out.splitlines() if ": published " in line)
        if published != len(heads):
            raise SystemExit(f"expected {len(heads)} publishes, saw {published}")
        with WorkQueue.open(url) as queue:
            status = queue.status()
        if status.pending or status.publishes != len(heads):
            raise SystemExit(f"queue not drained: {status.as_json()}")
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return wall, cpu
    finally:
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
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--shared-home", action="store_true",
                        help="the workers share one home (`--concurrency N`) instead of a home each")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds each checkpoint's producer waits first (a model's latency)")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    server = PgServer.start()
    source = Path(tempfile.mkdtemp(prefix="uac-bench-log-"))
    try:
        started = time.perf_counter()
        heads = build_log(source, args.users, args.facts)
        print(f"log: {args.users} users x {args.facts} facts in {time.perf_counter() - started:.1f} s; "
              f"{os.cpu_count()} CPU(s); producer pause {args.pause:g} s", flush=True)
        print(f"queue work per job (claim + finish, {args.users} jobs): "
              f"{queue_overhead(server, args.users):.2f} ms median", flush=True)
        runs_of: dict[int, list[tuple[float, float]]] = {n: [] for n in counts}
        for run in range(args.repeat):  # interleaved: each repeat runs every count once
            for workers in counts:
                wall, cpu = one_run(server, source, heads, workers, run, args.pause, args.shared_home)
                print(f"  run {run + 1}: {workers} worker(s): {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
                runs_of[workers].append((wall, cpu))
        base: float | None = None
        print(f"{'workers':>7} {'median s':>9} {'ckpt/min':>9} {'CPU s':>7} {'vs 1':>6}")
        for workers in counts:
            wall = statistics.median(w for w, _ in runs_of[workers])
            cpu = statistics.median(c for _, c in runs_of[workers])
            rate = args.users / wall * 60
            base = rate if base is None else base
            print(f"{workers:>7} {wall:>9.1f} {rate:>9.1f} {cpu:>7.1f} {rate / base:>6.2f}")
    finally:
        shutil.rmtree(source, ignore_errors=True)
        server.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())

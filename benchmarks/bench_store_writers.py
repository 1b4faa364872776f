"""Ingest throughput of the fact stores with 1, 4 and 8 writer processes, PostgreSQL against
SQLite in the same run.

    .venv/bin/python benchmarks/bench_store_writers.py [--facts 300] [--runs 3] [--writers 1,4,8] [--same-user]

Each writer is a separate process (`tests/store_writer.py`) appending one fact per call (one
transaction each), to its own user (or, with `--same-user`, all to one user). A run starts
every writer, lets them go together, and takes the time from the go signal to the last
acknowledged append; throughput is facts stored per second. Each configuration gets a fresh
store (a new SQLite file, a new PostgreSQL database on a throwaway server started from the
installed binaries, `tests/pg_server.py`), and the runs of the two stores alternate so that
both see the same machine load. Prints the median facts/s, PostgreSQL/SQLite ratios and
each store's scaling against its own one-writer figure.

SQLite commits with `synchronous=FULL` (an fdatasync per commit); the throwaway server runs
with `fsync=off` (commits reach the OS, not the disk), so the PostgreSQL figures are for
its software path and round trips, not for a disk.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from pg_server import PgServer  # noqa: E402

WRITER = ROOT / "tests" / "store_writer.py"


def run_once(location: str, writers: int, facts: int, same_user: bool, folder: Path) -> float:
    """Facts per second of `writers` processes appending `facts` each to `location`."""
    go = folder / f"go-{time.monotonic_ns()}"
    procs = [subprocess.Popen([sys.executable, str(WRITER), location, f"w{i}", str(facts),
                               "shared" if same_user else f"user{i}", str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(writers)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    start = time.time()
    go.touch()
    last = start
    for proc in procs:
        out, err = proc.communicate(timeout=3600)
        if proc.returncode != 0:
            raise SystemExit(f"a writer failed: {err.strip()}")
        lines = out.splitlines()
        if len(lines) != facts:
            raise SystemExit(f"a writer acknowledged {len(lines)} of {facts} facts")
        last = max(last, float(lines[-1].split()[2]))
    return writers * facts / (last - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=300, help="facts per writer")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--writers", default="1,4,8")
    parser.add_argument("--same-user", action="store_true", help="every writer appends to one user")
    args = parser.parse_args()
    counts = [int(n) for n in args.writers.split(",")]
    server = PgServer.start()
    figures: dict[tuple[str, int], list[float]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-writers-") as tmp:
            folder = Path(tmp)
            made = 0
            for run in range(args.runs):
                for writers in counts:
                    for store in ("sqlite", "postgres"):
                        made += 1
                        if store == "sqlite":
                            location = str(folder / f"facts-{made}.db")
                        else:
                            location = server.create_database(f"bench_writers_{made}")
                        rate = run_once(location, writers, args.facts, args.same_user, folder)
                        figures.setdefault((store, writers), []).append(rate)
                        print(f"run {run + 1}: {store:8s} {writers} writer(s): {rate:8.0f} facts/s", flush=True)
    finally:
        server.destroy()
    median = {key: statistics.median(values) for key, values in figures.items()}
    who = "one user" if args.same_user else "a user each"
    print(f"\nmedian of {args.runs} runs, {args.facts} single-fact appends per writer, {who}:")
    print(f"{'writers':>8} {'SQLite f/s':>11} {'PostgreSQL f/s':>15} {'PG/SQLite':>10} "
          f"{'SQLite xN/1':>12} {'PG xN/1':>8}")
    for writers in counts:
        lite, pg = median[("sqlite", writers)], median[("postgres", writers)]
        print(f"{writers:>8} {lite:>11.0f} {pg:>15.0f} {pg / lite:>10.2f} "
              f"{lite / median[('sqlite', counts[0])]:>12.2f} {pg / median[('postgres', counts[0])]:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Safe query evaluation vs plain `eval` over a 10,000-trip namespace; and, with
`--store`, `Memory.query` on stored users against the worker alone and SQLite.

Run: .venv/bin/python benchmarks/bench_query.py [--records N] [--runs N]
Prints p50/p90 (ms) per query for `runtime.safe_eval.evaluate` (every check at run
time), for plain `eval` of the same expression, for `evaluate` with the checks the
namespace proves needless left out (`runtime.query_shapes`, warm: as a worker's child
runs it), and for `runtime.query_worker.QueryWorker.run` (that evaluation in a forked
child with hard limits), with the p50 ratios safe / plain, shaped / plain and
worker / shaped.

Run: .venv/bin/python benchmarks/bench_query.py --store [--sizes 10000 100000 300000]
     [--runs 100] [--cli-sizes 10000 100000] [--cli-runs 3] [--keep DIR]
Per size, in a fresh process: a user with that many facts (9 in 10 trips) is published
directly (compile, import, manifest, publish: no safety or mypy pass), then, in one run,
p50 of `Memory.query` (the API: current
version, integrity check, worker round trip), of `QueryWorker.run` alone on the same
namespace (the two alternate), and of SQLite answering the same question from a table
of the same trips (timed apart).
`uac query` in a fresh process is timed with the compiled-code cache emptied before each
run (every file compiled) and kept (the cache warm). `--keep DIR` keeps the built
workspaces for the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from time import perf_counter
from typing import Callable

from runtime.query_shapes import NamespaceShapes
from runtime.query_worker import QueryWorker
from runtime.safe_eval import QuerySuccess, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from trip_module import Trip  # noqa: E402  (the tests' trip module, shared with them)

QUERIES = (
    "len(trips)",
    "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)",
    "sorted({t.country for t in trips})",
    "max(trips, key=lambda t: t.cost_usd).destination",
    "Counter(t.country for t in trips).most_common(3)",
    "statistics.mean(t.cost_usd for t in trips)",
    "[t for t in trips if t.return_date and t.return_date > date(2025, 1, 1)]",
    "len([t for t in trips if t.destination.lower().startswith('p')])",
)
COUNTRIES = ("France", "Japan", "Peru", "Kenya", "Canada", "Italy", "Chile", "India")


def make_trips(count: int) -> list[Trip]:
    start = date(2020, 1, 1)
    trips = []
    for i in range(count):
        leave = start + timedelta(days=(i * 7) % 2400)
        trips.append(Trip(destination=f"Place{i % 997}", country=COUNTRIES[i % len(COUNTRIES)],
                          departure_date=leave,
                          return_date=leave + timedelta(days=i % 15) if i % 4 else None,
                          cost_usd=100.0 + (i * 37) % 900, fact_ids=[i + 1]))
    return trips


def timings(run: Callable[[], object], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = perf_counter()
        run()
        samples.append((perf_counter() - started) * 1000)
    return samples


def percentile(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1]


STORE_QUERIES = (  # (name, query, the same question in SQL)
    ("count", "len(trips)", "SELECT count(*) FROM trips"),
    ("sum 2024", "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)",
     "SELECT sum(cost_usd) FROM trips WHERE departure_date LIKE '2024-%'"),
)
USER = "bench"


def build(home: Path, size: int) -> float:
    """Publish a `size`-fact user as one version; seconds taken (0 when already built)."""
    from bench_checkpoint import facts

    from codegen.compile import compile_package
    from codegen.loader import load_package, unload_package
    from codegen.manifest import build_manifest, identity_from_facts
    from runtime.memory import Memory
    from users.versions import PublishMeta

    if (home / "built").exists():
        return 0.0
    shutil.rmtree(home, ignore_errors=True)  # a build that was interrupted
    started = perf_counter()
    mem = Memory.open(home)
    for start in range(0, size, 10_000):
        mem.facts.append(USER, facts(start, min(10_000, size - start)))
    log = list(mem.facts.facts(USER))
    package = compile_package(USER, log)
    stage = home / "stage"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir()
    for name, text in package.files.items():
        (stage / name).write_text(text, encoding="utf-8")
    module = load_package(stage, "_bench_stage")
    manifest = build_manifest(vars(module), identity=identity_from_facts({f.id: f for f in log}),
                              quarantined=package.quarantined)
    unload_package("_bench_stage")
    shutil.rmtree(stage)
    mem.versions.publish(USER, package.files, PublishMeta(
        log_position=package.log_position, input_hash=package.input_hash, producer="compiler"), manifest=manifest)
    db = sqlite3.connect(home / "baseline.db")
    db.execute("CREATE TABLE trips (destination TEXT, departure_date TEXT, cost_usd REAL)")
    db.executemany("INSERT INTO trips VALUES (?, ?, ?)",
                   [(f.fields["destination"], f.fields["departure_date"], f.fields["cost_usd"])
                    for f in log if f.kind == "trip"])
    db.commit()
    db.close()
    mem.workspace.cache_dir.mkdir(exist_ok=True)
    mem.close()
    (home / "built").touch()
    return perf_counter() - started


def one_store_size(home: Path, size: int, runs: int, cli_runs: int) -> dict[str, object]:
    from runtime.memory import Memory

    built = build(home, size)
    row: dict[str, object] = {"size": size, "build_s": built}
    mem = Memory.open(home, read_only=True)
    started = perf_counter()
    first = mem.query(USER, "len(trips)")
    row["first_query_s"] = perf_counter() - started
    assert isinstance(first, QuerySuccess), first
    db = sqlite3.connect(f"file:{home / 'baseline.db'}?mode=ro", uri=True)
    queries = {}
    with QueryWorker(mem.namespace(USER)) as worker:
        for name, query, sql in STORE_QUERIES:
            api = mem.query(USER, query)
            alone = worker.run(query)
            (expected,) = db.execute(sql).fetchone()
            if not isinstance(api, QuerySuccess) or not isinstance(alone, QuerySuccess):
                print(f"{name}: {api} / {alone}", file=sys.stderr)  # e.g. over the worker's time limit
                continue
            assert api.value == alone.value and abs(float(api.value) - float(expected)) < 1e-6 * (1 + abs(expected))
            samples: dict[str, list[float]] = {"memory": [], "worker": [], "sqlite": []}
            calls = {"memory": lambda: mem.query(USER, query), "worker": lambda: worker.run(query),
                     "sqlite": lambda: db.execute(sql).fetchone()}
            slow = alone.elapsed_ms > 20  # an O(records) query: fewer runs
            for run in range(max(5, runs // 10) if slow else runs):
                # Memory and the worker alternate who goes first; SQLite runs apart (whatever
                # follows a SQLite query here pays ~1 ms more, whichever it is).
                for label in ("memory", "worker") if run % 2 else ("worker", "memory"):
                    began = perf_counter()
                    calls[label]()
                    samples[label].append((perf_counter() - began) * 1000)
            for _ in range(runs):
                began = perf_counter()
                calls["sqlite"]()
                samples["sqlite"].append((perf_counter() - began) * 1000)
            queries[name] = {label: statistics.median(values) for label, values in samples.items()}
    row["queries"] = queries
    db.close()
    mem.close()
    cli: dict[str, float] = {}
    if cli_runs:
        uac = [sys.executable, "-c", "from runtime.cli import main; main()", "--home", str(home),
               "query", USER, "len(trips)"]
        # The libraries' own bytecode is cached as usual (kept out of the source tree), so
        # what differs between the two figures is the user's package.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
        subprocess.run(uac, check=True, capture_output=True, env=env)
        for label in ("cold", "warm"):
            times = []
            for _ in range(cli_runs):
                if label == "cold":
                    shutil.rmtree(home / "cache" / "bytecode", ignore_errors=True)
                began = perf_counter()
                subprocess.run(uac, check=True, capture_output=True, env=env)
                times.append(perf_counter() - began)
            cli[label] = statistics.median(times)
    row["cli_s"] = cli
    return row


def report_store(row: dict[str, object]) -> None:
    queries = row["queries"]
    assert isinstance(queries, dict)
    print(f"{row['size']:>8,} facts  (built in {float(row['build_s']):.1f} s; first query in a fresh "  # type: ignore[arg-type]
          f"Memory {float(row['first_query_s']):.2f} s)")  # type: ignore[arg-type]
    for name, t in queries.items():
        print(f"  {name:<9} Memory.query p50 {t['memory']:8.3f} ms   worker alone {t['worker']:8.3f} ms   "
              f"SQLite {t['sqlite']:8.3f} ms   Memory/worker {t['memory'] / t['worker']:5.2f}   "
              f"Memory/SQLite {t['memory'] / t['sqlite']:7.1f}")
    cli = row["cli_s"]
    if isinstance(cli, dict) and cli:
        print(f"  uac query (fresh process) p50: bytecode cache empty {cli['cold']:.2f} s, "
              f"kept {cli['warm']:.2f} s ({cli['cold'] / cli['warm']:.1f}x)")


def store_main(args: argparse.Namespace) -> None:
    if args.one:
        home = Path(args.home)
        cli_runs = args.cli_runs if args.one in args.cli_sizes else 0
        print(json.dumps(one_store_size(home, args.one, args.runs, cli_runs)))
        return
    print(f"Memory.query vs the worker alone vs SQLite; medians of {args.runs} interleaved runs; "
          "target at 300,000: Memory/worker <= 2")
    scratch = None if args.keep else tempfile.mkdtemp(prefix="bench-query-")
    root = Path(args.keep or scratch)  # type: ignore[arg-type]
    try:
        for size in args.sizes:
            home = root / f"n{size}"
            command = [sys.executable, __file__, "--store", "--one", str(size), "--home", str(home),
                       "--runs", str(args.runs), "--cli-runs", str(args.cli_runs),
                       "--cli-sizes", *map(str, args.cli_sizes)]
            out = subprocess.run(command, check=True, capture_output=True, text=True,
                                 env={**os.environ, "UAC_HOME": str(home)}).stdout
            report_store(json.loads(out.strip().splitlines()[-1]))
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--store", action="store_true", help="Memory.query on stored users (see above)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 300_000])
    parser.add_argument("--cli-sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--keep", help="keep the built workspaces in this folder (reused when present)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--home", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.store:
        store_main(args)
        return
    namespace: dict[str, object] = {"trips": make_trips(args.records), "Trip": Trip}
    plain_scope = {**namespace, "date": date, "Counter": Counter, "statistics": statistics}
    print(f"{args.records:,} trips, {args.runs} runs each; times in ms")
    print(f"{'query':<60} {'eval p50':>8} {'p90':>7} {'safe p50':>8} {'p90':>7} "
          f"{'shpd p50':>8} {'p90':>7} {'wrkr p50':>8} {'p90':>7} {'s/e':>5} {'p/e':>5} {'w/p':>5}")
    safe_ratios, shaped_ratios, worker_ratios = [], [], []
    shapes = NamespaceShapes(namespace)
    with QueryWorker(namespace) as worker:
        for query in QUERIES:
            result = evaluate(query, namespace)
            assert isinstance(result, QuerySuccess), (query, result)
            assert result.value == eval(query, dict(plain_scope)), query  # noqa: S307
            for other in (evaluate(query, namespace, shapes=shapes), worker.run(query)):
                assert isinstance(other, QuerySuccess) and other.value == result.value, query
            plain = timings(lambda: eval(query, dict(plain_scope)), args.runs)  # noqa: S307
            safe = timings(lambda: evaluate(query, namespace), args.runs)
            shaped = timings(lambda: evaluate(query, namespace, shapes=shapes), args.runs)
            child = timings(lambda: worker.run(query), args.runs)
            safe_ratios.append(statistics.median(safe) / statistics.median(plain))
            shaped_ratios.append(statistics.median(shaped) / statistics.median(plain))
            worker_ratios.append(statistics.median(child) / statistics.median(shaped))
            print(f"{query[:60]:<60} " + " ".join(
                f"{statistics.median(t):8.3f} {percentile(t, 90):7.3f}" for t in (plain, safe, shaped, child))
                + f" {safe_ratios[-1]:5.2f} {shaped_ratios[-1]:5.2f} {worker_ratios[-1]:5.2f}")
    print(f"median ratio safe/plain: {statistics.median(safe_ratios):.2f}; shaped/plain: "
          f"{statistics.median(shaped_ratios):.2f}; worker/shaped: {statistics.median(worker_ratios):.2f}")

if __name__ == "__main__":
    main()

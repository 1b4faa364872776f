"""Safe query evaluation vs plain `eval` over a 10,000-trip namespace.

Run: .venv/bin/python benchmarks/bench_query.py [--records N] [--runs N]
Prints p50/p90 (ms) per query for `runtime.safe_eval.evaluate`, for plain
`eval` of the same expression, and for `runtime.query_worker.QueryWorker.run`
(the same evaluation in a forked child with hard limits), with the p50 ratios
safe / plain and worker / safe.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from time import perf_counter
from typing import Callable

from runtime.query_worker import QueryWorker
from runtime.safe_eval import QuerySuccess, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    namespace: dict[str, object] = {"trips": make_trips(args.records), "Trip": Trip}
    plain_scope = {**namespace, "date": date, "Counter": Counter, "statistics": statistics}
    print(f"{args.records:,} trips, {args.runs} runs each; times in ms")
    print(f"{'query':<60} {'eval p50':>8} {'p90':>7} {'safe p50':>8} {'p90':>7} "
          f"{'wrkr p50':>8} {'p90':>7} {'s/e':>5} {'w/s':>5}")
    safe_ratios, worker_ratios = [], []
    with QueryWorker(namespace) as worker:
        for query in QUERIES:
            result = evaluate(query, namespace)
            assert isinstance(result, QuerySuccess), (query, result)
            assert result.value == eval(query, dict(plain_scope)), query  # noqa: S307
            in_child = worker.run(query)
            assert isinstance(in_child, QuerySuccess) and in_child.value == result.value, query
            plain = timings(lambda: eval(query, dict(plain_scope)), args.runs)  # noqa: S307
            safe = timings(lambda: evaluate(query, namespace), args.runs)
            child = timings(lambda: worker.run(query), args.runs)
            safe_ratios.append(statistics.median(safe) / statistics.median(plain))
            worker_ratios.append(statistics.median(child) / statistics.median(safe))
            print(f"{query[:60]:<60} {statistics.median(plain):8.3f} {percentile(plain, 90):7.3f} "
                  f"{statistics.median(safe):8.3f} {percentile(safe, 90):7.3f} "
                  f"{statistics.median(child):8.3f} {percentile(child, 90):7.3f} "
                  f"{safe_ratios[-1]:5.2f} {worker_ratios[-1]:5.2f}")
    print(f"median ratio safe/plain: {statistics.median(safe_ratios):.2f}; "
          f"worker/safe: {statistics.median(worker_ratios):.2f}")

if __name__ == "__main__":
    main()

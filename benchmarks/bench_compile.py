"""Compile time of the deterministic compiler for 100 / 1,000 / 10,000 trip-like facts.

Every tenth fact is a free-text note and every twentieth updates an earlier trip by key.
Prints the median of several runs per size, plus the number of files changed by an
incremental checkpoint (10 new facts on top of the largest log).

Run: .venv/bin/python benchmarks/bench_compile.py
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fact_helpers import make_fact  # noqa: E402

from codegen.compile import compile_package  # noqa: E402
from factlog.model import Fact, JsonValue  # noqa: E402

CITIES = ["Paris", "Rome", "Tokyo", "Lima", "Oslo", "Cairo", "Quebec", "Zürich"]


def trip_log(n: int) -> list[Fact]:
    facts = []
    start = date(2020, 1, 1)
    for i in range(1, n + 1):
        if i % 10 == 0:
            facts.append(make_fact(i, f"Remember to call 'Sam' about \"plans\" #{i}", fields={"dates": [str(start)]}))
        elif i % 20 == 5 and i > 20:
            facts.append(make_fact(i, "cost corrected", kind="trip", key=f"t{i - 20}", fields={"cost_usd": i * 1.5}))
        else:
            day = start + timedelta(days=i)
            fields: dict[str, JsonValue] = {
                "destination": CITIES[i % len(CITIES)], "departure_date": day.isoformat(),
                "return_date": (day + timedelta(days=3)).isoformat(), "cost_usd": float(i % 900),
                "is_international": i % 3 == 0, "carrier": "AF", "seat": f"{i % 40}C",
            }
            facts.append(make_fact(i, f"trip {i}", kind="trip", key=f"t{i}", fields=fields))
    return facts


def median_seconds(facts: list[Fact], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        compile_package("bench", facts)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    for n, runs in ((100, 15), (1_000, 9), (10_000, 5)):
        facts = trip_log(n)
        print(f"compile {n:>6} facts: median {median_seconds(facts, runs) * 1000:8.1f} ms over {runs} runs")
    base = trip_log(10_000)
    more = trip_log(10_010)
    before = compile_package("bench", base).files
    after = compile_package("bench", more).files
    changed = sorted(name for name in after if before.get(name) != after[name])
    print(f"incremental +10 facts on 10,000: {len(changed)} of {len(after)} files changed: {', '.join(changed)}")


if __name__ == "__main__":
    main()

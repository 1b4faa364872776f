"""Checkpoint benchmark: full and incremental, at 100 / 1,000 / 10,000 structured facts.

    .venv/bin/python benchmarks/bench_checkpoint.py [--sizes 100 1000 10000] [--runs 3]

Each size runs in a fresh process with a fresh workspace, so peak memory (ru_maxrss) is
that size's alone. Per size and run:
- full: a new user's first checkpoint (compile + safety + mypy + import + coverage + publish);
  the first run in a workspace also pays mypy's one-off check of the standard library
  stubs, reported separately as "first ever";
- incremental: 10 new facts on top, checkpointed again.
Medians over runs, split by stage. Baseline: `ast.parse` + `compile()` of the same package
text, the least any validation must cost.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from factlog.model import NewFact
from runtime.memory import Memory
from users.checkpoint import Published

STAGES = ("compile", "safety", "mypy", "import", "coverage", "publish")


def facts(start: int, count: int) -> list[NewFact]:
    out = []
    for i in range(start, start + count):
        if i % 10 == 9:
            out.append(NewFact(f"Note {i}: I prefer aisle seats on flights longer than {i % 7 + 2} hours."))
        else:
            out.append(NewFact(
                f"Trip {i}", kind="trip", key=f"T{i}",
                fields={"destination": f"City {i % 211}", "country": f"Country {i % 37}",
                        "departure_date": f"{2020 + i % 6}-{i % 12 + 1:02d}-{i % 28 + 1:02d}",
                        "return_date": f"{2020 + i % 6}-{i % 12 + 1:02d}-{min(28, i % 28 + 3):02d}",
                        "cost_usd": round(100 + (i * 37) % 4000 + 0.25, 2), "is_international": i % 3 == 0}))
    return out


def timed_checkpoint(mem: Memory, user: str) -> dict[str, float]:
    start = time.perf_counter()
    result = mem.checkpoint(user)
    total = time.perf_counter() - start
    assert isinstance(result, Published), result
    return {**{k: result.timings.get(k, 0.0) for k in STAGES}, "total": total}


def baseline(mem: Memory, user: str) -> float:
    import ast

    files = mem.versions.files(user, mem.versions.current(user).number)  # type: ignore[union-attr]
    start = time.perf_counter()
    for name, text in files.items():
        compile(ast.parse(text), name, "exec")
    return time.perf_counter() - start


def one_size(size: int, runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as home:
        mem = Memory.open(Path(home))
        warmup = "warmup"
        mem.facts.append(warmup, facts(0, 20))
        start = time.perf_counter()
        mem.checkpoint(warmup)
        first_ever = time.perf_counter() - start
        full, incremental, base = [], [], []
        for run in range(runs):
            user = f"user{run}"
            mem.facts.append(user, facts(0, size))
            full.append(timed_checkpoint(mem, user))
            base.append(baseline(mem, user))
            mem.facts.append(user, facts(size, 10))
            incremental.append(timed_checkpoint(mem, user))
        mem.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    med = lambda rows: {k: statistics.median(r[k] for r in rows) for k in rows[0]}  # noqa: E731
    return {"size": size, "first_ever_small": first_ever, "full": med(full), "incremental": med(incremental),
            "baseline": statistics.median(base), "peak_mb": peak_mb}


def report(row: dict[str, object]) -> None:
    def line(label: str, t: dict[str, float]) -> str:
        split = "  ".join(f"{k} {t[k] * 1000:6.0f}" for k in STAGES)
        return f"  {label:<12} total {t['total'] * 1000:7.0f} ms  ({split})"

    print(f"{row['size']:>6,} facts   peak RSS {row['peak_mb']:.0f} MB   "
          f"baseline ast+compile {float(row['baseline']) * 1000:.0f} ms   "
          f"(first-ever 20-fact checkpoint incl. mypy stdlib cache: {float(row['first_ever_small']):.2f} s)")
    full, incremental = row["full"], row["incremental"]
    assert isinstance(full, dict) and isinstance(incremental, dict)
    print(line("full", full))
    print(line("+10 facts", incremental))
    print(f"  full / baseline {full['total'] / float(row['baseline']):.1f}x; "
          f"incremental / full {incremental['total'] / full['total']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.runs)))
        return
    print("checkpoint medians (ms) on this machine; targets: full 10,000 <= 5 s, +10 on 10,000 <= 1 s, "
          "peak <= 500 MB")
    for size in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(size), "--runs", str(args.runs)],
                             check=True, capture_output=True, text=True).stdout
        report(json.loads(out.strip().splitlines()[-1]))


if __name__ == "__main__":
    main()

"""`uac demo` wall time, as a user runs it: a fresh process each time.

    .venv/bin/python benchmarks/bench_demo.py [--runs 5]

"fresh home" starts from an empty workspace (mypy checks the standard library stubs once);
"same home" re-runs in a workspace that has run the demo before (caches warm). Baseline:
`uac --help`, the cost of starting Python and importing the CLI.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UAC = Path(sys.executable).with_name("uac")


def wall(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([str(UAC), *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    baseline = statistics.median(wall("--help") for _ in range(runs))
    fresh, same = [], []
    with tempfile.TemporaryDirectory() as name:
        for run in range(runs):
            fresh.append(wall("--home", str(Path(name) / f"fresh{run}"), "demo"))
        for _ in range(runs):
            same.append(wall("--home", str(Path(name) / "fresh0"), "demo"))
    print(f"uac demo, median of {runs}: fresh home {statistics.median(fresh):.2f} s, "
          f"same home {statistics.median(same):.2f} s; baseline `uac --help` {baseline:.2f} s "
          f"(demo / baseline {statistics.median(same) / baseline:.1f}x)")


if __name__ == "__main__":
    main()

"""Compile time of the deterministic compiler on an interleaved log (facts of several kinds
arriving mixed, as `uac add` produces them): a full compile, and +10 facts compiled from
the incremental state (`codegen.compile.compile_incremental`), against a baseline in the
same run: the full compile of the 10 larger log, which is what +10 cost before there was
a state (pass `--baseline-src DIR`, a source tree of an older version, to time its full
compile too, in a child process).

Run: .venv/bin/python benchmarks/bench_compile.py [--sizes 10000 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from interleaved_log import interleaved_log  # noqa: E402

from codegen.compile import ListLog, compile_incremental, compile_package  # noqa: E402
from factlog.model import Fact  # noqa: E402


def _median(times: list[float]) -> float:
    return statistics.median(times)


def _time_full(facts: list[Fact], runs: int) -> tuple[float, int]:
    times, files = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        files = len(compile_package("bench", facts).files)
        times.append(time.perf_counter() - started)
    return _median(times), files


def _time_incremental(facts: list[Fact], runs: int) -> tuple[float, float, set[str]]:
    """(cold build of the state, median +10, files rendered by the last +10)."""
    work = Path(tempfile.mkdtemp(prefix="bench-compile-"))
    try:
        state = work / "state.sqlite"
        started = time.perf_counter()
        compile_incremental("bench", state, ListLog(facts))
        cold = time.perf_counter() - started
        log = list(facts)
        times: list[float] = []
        rendered: set[str] = set()
        for _ in range(runs):
            log += interleaved_log(10, start=log[-1].id + 1)
            view = ListLog(log)  # a store reads only the new facts; a list is sorted first
            started = time.perf_counter()
            compiled = compile_incremental("bench", state, view)
            times.append(time.perf_counter() - started)
            assert compiled.rebuilt is None, compiled.rebuilt
            rendered = set(compiled.rendered)
        assert compiled.files == compile_package("bench", log).files, "incremental differs from full"
        return cold, _median(times), rendered
    finally:
        shutil.rmtree(work, ignore_errors=True)


BASELINE_CHILD = """
import statistics, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from codegen.compile import compile_package
sys.path.insert(0, sys.argv[3])
from interleaved_log import interleaved_log
facts = interleaved_log(int(sys.argv[4]))
times = []
for _ in range(int(sys.argv[5])):
    t = time.perf_counter(); files = compile_package("bench", facts).files; times.append(time.perf_counter() - t)
print(statistics.median(times), len(files))
"""


def _baseline(src: Path, n: int, runs: int) -> tuple[float, int]:
    here = Path(__file__).resolve().parent
    out = subprocess.run([sys.executable, "-c", BASELINE_CHILD, str(src), str(src / "tests"), str(here), str(n),
                          str(runs)], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-src", type=Path, default=None)
    args = parser.parse_args()
    for n in args.sizes:
        facts = interleaved_log(n)
        full, files = _time_full(facts, args.runs)
        cold, plus10, rendered = _time_incremental(facts, max(5, args.runs))
        print(f"{n:>7} interleaved facts: full compile {full:7.2f} s ({files} files); "
              f"state built cold {cold:6.2f} s; +10 facts {plus10 * 1000:7.1f} ms "
              f"= {plus10 / full:.4f} x full; rendered {len(rendered)} files: {', '.join(sorted(rendered))}")
        if args.baseline_src is not None:
            base, base_files = _baseline(args.baseline_src, n, args.runs)
            print(f"{'':>7} baseline ({args.baseline_src.name}): full compile {base:7.2f} s ({base_files} files), "
                  f"which was also the cost of +10; full now {full / base:.2f} x baseline, "
                  f"+10 now {plus10 / base:.4f} x baseline")


if __name__ == "__main__":
    main()

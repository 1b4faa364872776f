"""The safety stage on a whole package, cold (no cache): record chunks read through their
distinct line shapes (`codegen.record_lines`, the default) against the full `ast` reading
of every file (the baseline, same run), serial and in a 2-process pool.

    .venv/bin/python benchmarks/bench_safety_chunks.py --package <version folder> [--runs 3]
    .venv/bin/python benchmarks/bench_safety_chunks.py --records 100000

`--package` reads the `.py` files of a version folder (e.g. copied out of a workspace
written by benchmarks/bench_scale.py); `--records` builds benchmarks/bench_validate.py's
package of that many trips instead. Prints medians, the ratio, and how many files each
reading accepted by the fast path.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Callable, Iterator

from codegen import safety
from codegen.safety import SafetyChecker, SafetySuccess
from codegen.safety_rules import check_source, fast_chunk_report

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate import package, timed  # noqa: E402  (the benchmark's generated package)

median_seconds = timed  # the median wall seconds of `runs` calls


class full_reading:
    """Within the block, the stage reads every file in full (the fast path off)."""

    def __enter__(self) -> None:
        setattr(safety, "check_source", functools.partial(check_source, fast=False))

    def __exit__(self, *exc: object) -> None:
        setattr(safety, "check_source", check_source)


def cold_check(files: dict[str, str], workers: int) -> Callable[[], None]:
    def run() -> None:
        checker = SafetyChecker(workers=workers, parallel_min_bytes=0)
        try:
            result = checker.check(files)
            assert isinstance(result, SafetySuccess), result
        finally:
            checker.close()
    return run


def read_package(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text("utf-8") for path in sorted(folder.glob("*.py"))}


def rows(files: dict[str, str], runs: int) -> Iterator[tuple[str, float]]:
    with full_reading():
        yield "full, serial", median_seconds(cold_check(files, 1), runs)
    yield "fast, serial", median_seconds(cold_check(files, 1), runs)
    with full_reading():
        yield "full, 2 processes", median_seconds(cold_check(files, 2), runs)
    yield "fast, 2 processes", median_seconds(cold_check(files, 2), runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", type=Path, help="a version folder (its .py files)")
    parser.add_argument("--records", type=int, default=100_000, help="else: a generated package of this many")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    files = read_package(args.package) if args.package else package(args.records)
    size = sum(len(text.encode("utf-8")) for text in files.values())
    fast_files = sum(fast_chunk_report(text) is not None for text in files.values())
    print(f"{len(files)} files, {size / 1e6:.1f} MB; {fast_files} read by the fast path; "
          f"medians of {args.runs} cold runs (s)")
    results = dict(rows(files, args.runs))
    for label, seconds in results.items():
        print(f"  {label:18} {seconds:8.2f}")
    print(f"fast / full, serial: {results['fast, serial'] / results['full, serial']:.3f} "
          f"({results['full, serial'] / results['fast, serial']:.1f}x faster); "
          f"2-process pool / serial, fast: {results['fast, 2 processes'] / results['fast, serial']:.2f}")
    largest = max((text for text in files.values() if fast_chunk_report(text) is not None), key=len, default=None)
    if largest is not None:  # what a +10 checkpoint re-checks: the open chunk of a kind
        full_ms = median_seconds(lambda: check_source(largest, fast=False), 5 * args.runs) * 1000
        fast_ms = median_seconds(lambda: check_source(largest), 5 * args.runs) * 1000
        print(f"one chunk ({largest.count(chr(10))} lines): full {full_ms:.1f} ms, fast {fast_ms:.1f} ms "
              f"({full_ms / fast_ms:.1f}x)")


if __name__ == "__main__":
    main()

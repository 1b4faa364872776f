"""Validation cost of generated packages of 100 / 1,000 / 10,000 records.

Builds packages in the contract's shape (record chunks of 500 per file, joined in
`__init__.py`), then prints medians per stage for a cold run (empty caches) and a warm run
(10 records appended to the last chunk, caches warm), the process-pool effect on a cold
safety stage, and a baseline: libcst vs ast parse time of the same text.

    .venv/bin/python benchmarks/bench_validate.py [--runs 3] [--sizes 100,1000,10000]

With `--mypy 100000` (or `--mypy-dirs FULL,NEXT`, two version directories of a real package,
e.g. a 100k-fact version and the +10 after it): the mypy stage alone, before (mypy reads
every file, as when no record shapes are given) and after (record chunks the record type
check accepts given as stubs; passed inputs remembered), in the same run: a cold full check,
the next version on the warm cache, and that version again without the remembered verdict
(mypy's incremental re-check).

With `--changed 100000,300000`: the checkpoint that matters at scale, one chunk of 500
records and `__init__.py` changed on a package of that many records, per stage; the full
(cold) validation of the same package in the same run is the baseline. `--profile` prints
a cProfile of the last such run. To compare with another checkout, run this same script
with that checkout first on PYTHONPATH.

With `--home WORKSPACE` (its `facts.db`, copied, never written; e.g. 100,000 interleaved
facts): a checkpoint as the API runs it, each run in fresh processes: the full checkpoint,
then `--inc-rounds` +10 checkpoints in the same process, then one +10 in a new process on
the same workspace (what `uac checkpoint` pays). Printed per tree: the validation's wall,
its CPU in the process and in its children, and per +10 the validation and checkpoint CPU
and wall (medians). `--baseline-src DIR` (another source tree, e.g. from `git archive`)
alternates with it, run for run.
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import pstats
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import libcst

from codegen.loader import CODE_CACHE, unload_package
from codegen.safety import SafetyChecker, SafetySuccess, content_hash
from codegen.typecheck import PASSED, TypecheckSuccess, typecheck
from codegen.validate import ValidationFailure, ValidationSuccess, Validator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import trip_module  # noqa: E402  (the tests' trip module, shared with them)

CHUNK = 500
STAGES = ("safety", "mypy", "import", "coverage")

TRIP = Path(trip_module.__file__).read_text()  # trip.py of every package


def trip_line(i: int) -> str:
    month, day = i % 12 + 1, i % 28 + 1
    return (f"    Trip(destination='City {i}', country='Country {i % 50}', departure_date=date(2024, {month}, {day}), "
            f"return_date=date(2024, {month}, {day}), is_international={i % 2 == 0}, cost_usd={i * 1.5}, "
            f"fact_ids=[{i + 1}]),")


def chunk_file(index: int, ids: range, edit: str = "") -> str:
    """A chunk in the compiler's shape: a private list `_trips_NNN` of one file."""
    lines = [f'"""Trips chunk. Generated; do not edit.{edit}"""', "from __future__ import annotations", "",
             "from datetime import date", "", "from .trip import Trip", "", f"_trips_{index:03d}: list[Trip] = ["]
    lines += [trip_line(i) for i in ids]
    return "\n".join(lines + ["]", ""])


def init_file(chunks: int, position: int) -> str:
    names = [f"_trips_{index:03d}" for index in range(chunks)]
    init = [f'"""Typed memory. Generated; do not edit.\n\nLog position: {position}\n"""',
            "from __future__ import annotations", "", "from .trip import Trip as Trip"]
    init += [f"from .trips_{n[7:]} import {n}" for n in names]
    init += ["", f"trips: list[Trip] = [{', '.join('*' + n for n in names)}]", ""]
    return "\n".join(init)


def package(records: int) -> dict[str, str]:
    chunks = [range(start, min(start + CHUNK, records)) for start in range(0, records, CHUNK)]
    files = {"trip.py": TRIP}
    for index, ids in enumerate(chunks):
        files[f"trips_{index:03d}.py"] = chunk_file(index, ids)
    files["__init__.py"] = init_file(len(chunks), records)
    return files


def change_one_chunk(files: dict[str, str], records: int, round_: int) -> dict[str, str]:
    """The next checkpoint: one chunk in the middle re-rendered (an updated record, the
    same fact ids) and `__init__.py`'s header (its log position) changed."""
    chunks = sum(1 for name in files if name.startswith("trips_"))
    index = chunks // 2
    changed = dict(files)
    ids = range(index * CHUNK, min((index + 1) * CHUNK, records))
    changed[f"trips_{index:03d}.py"] = chunk_file(index, ids, edit=f" Edit {round_}.")
    changed["__init__.py"] = init_file(chunks, records + round_)
    return changed


def append_records(files: dict[str, str], records: int, extra: int) -> dict[str, str]:
    """The next checkpoint: `extra` new records, all in the last chunk (stable membership)."""
    last = max(name for name in files if name.startswith("trips_"))
    index = int(last[6:9])
    changed = dict(files)
    changed[last] = chunk_file(index, range(index * CHUNK, records + extra))
    changed["__init__.py"] = init_file(index + 1, records + extra)
    return changed


def run(validator: Validator, files: dict[str, str], live: int, version: str, stage: Path) -> dict[str, float]:
    result = validator.validate(files, user="bench", version=version, live_fact_ids=frozenset(range(1, live + 1)),
                                stage_dir=stage)
    if isinstance(result, ValidationFailure):
        raise SystemExit(f"benchmark package is invalid:\n{result.format_for_llm()}")
    assert isinstance(result, ValidationSuccess)
    unload_package(result.module_name)
    return dict(result.timings)


def bench_changed(records: int, runs: int, profile: bool, fresh_runs: int) -> None:
    """+1 changed chunk (and `__init__.py`) on a package of `records`: the previous version's
    module stays loaded, as a checkpointing process keeps it; then the same change seen by a
    new validator (empty memory caches, nothing loaded: as a new process, disk caches warm)."""
    files = package(records)
    live = frozenset(range(1, records + 1))
    table: dict[str, dict[str, list[float]]] = {"full (cold)": {}, "+1 chunk": {}, "+1 chunk, new validator": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        CODE_CACHE.clear()
        validator = Validator(root / "cache")

        def timed_run(label: str, v: Validator, package_files: dict[str, str], version: str) -> str:
            started = time.perf_counter()
            result = v.validate(package_files, user="bench", version=version, live_fact_ids=live,
                                stage_dir=root / version)
            total = time.perf_counter() - started
            if isinstance(result, ValidationFailure):
                raise SystemExit(f"benchmark package is invalid:\n{result.format_for_llm()}")
            for stage, seconds in result.timings.items():
                table[label].setdefault(stage, []).append(seconds)
            table[label].setdefault("total", []).append(total)
            return result.module_name

        loaded = [timed_run("full (cold)", validator, files, "v0")]
        for attempt in range(1, runs + 1):
            changed = change_one_chunk(files, records, attempt)
            if profile and attempt == runs:
                profiler = cProfile.Profile()
                profiler.enable()
            loaded.append(timed_run("+1 chunk", validator, changed, f"v{attempt}"))
            if profile and attempt == runs:
                profiler.disable()
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
            while len(loaded) > 2:  # the store keeps the published version's module
                unload_package(loaded.pop(0))
        for name in loaded:
            unload_package(name)
        for attempt in range(runs + 1, runs + fresh_runs + 1):
            CODE_CACHE.clear()
            fresh = Validator(root / "cache")
            unload_package(timed_run("+1 chunk, new validator", fresh, change_one_chunk(files, records, attempt),
                                     f"v{attempt}"))
            gc.collect()
    stages = [s for s in (*STAGES, "total") if any(s in t for t in table.values())]
    stages += sorted({s for t in table.values() for s in t} - set(stages))
    print(f"\n{records:,} records in {len(files)} files, one chunk of {CHUNK} + __init__.py changed; "
          f"median of {runs} (new validator: {fresh_runs}; full: one run) (ms)")
    print(f"{'':26}" + "".join(f"{s:>10}" for s in stages))
    for label, row in table.items():
        print(f"{label:26}" + "".join(f"{median_ms(row[s]) if s in row else '':>10}" for s in stages))
    base, after = table["full (cold)"]["total"][0], statistics.median(table["+1 chunk"]["total"])
    print(f"+1 chunk / full: {after / base:.3f}")


def bench_mypy(full: dict[str, str], changed: dict[str, str], runs: int) -> None:
    """The mypy stage on `full` (cold caches) then on `changed` (warm). Before: every file
    given to mypy as source and no remembered verdict (the stage before the record type
    check). After: accepted record chunks as stubs; the next version once as it comes (its
    input may have passed before) and once with the remembered verdicts removed (mypy's
    incremental re-check of what changed against the stubs)."""
    inputs = []
    for files in (full, changed):
        safe = SafetyChecker().check(files)
        if not isinstance(safe, SafetySuccess):
            raise SystemExit(f"benchmark package is unsafe:\n{safe.message}")
        inputs.append((files, {n: content_hash(t) for n, t in files.items()}, safe.records))
    labels = {"before": ("full (cold)", "+10 (warm)"),
              "after": ("full (cold)", "+10 (warm)", "+10, mypy runs")}
    rows: dict[str, dict[str, list[float]]] = {mode: {label: [] for label in labels[mode]} for mode in labels}
    ran: list[bool] = []
    stubs = 0
    for _ in range(runs):
        for mode in labels:
            with tempfile.TemporaryDirectory() as tmp:
                work, cache = Path(tmp) / "work", Path(tmp) / "mypy"
                for label, (files, hashes, records) in zip(labels[mode], (*inputs, inputs[1])):
                    if mode == "before" or label == "+10, mypy runs":
                        (cache / "pkg" / PASSED).unlink(missing_ok=True)
                    started = time.perf_counter()
                    result = typecheck(files, "pkg", work, cache, hashes, records if mode == "after" else None)
                    rows[mode][label].append(time.perf_counter() - started)
                    if not isinstance(result, TypecheckSuccess):
                        raise SystemExit(f"benchmark package fails mypy:\n{result.message}")
                    stubs = max(stubs, result.stubs)
                    if mode == "after" and label == "+10 (warm)":
                        ran.append(result.ran)
    chunks = len(inputs[0][2])
    print(f"\nmypy stage, {len(full)} files ({chunks} record chunks, {stubs} given as stubs after); "
          f"median of {runs} (ms); after, the +10 input had passed before: {ran.count(False)} of {len(ran)}")
    columns = labels["after"]
    print(f"{'':8}" + "".join(f"{label:>16}" for label in columns))
    for mode, row in rows.items():
        print(f"{mode:8}" + "".join(f"{median_ms(row[label]) if label in row else '':>16}" for label in columns))
    before_full, before_next = (statistics.median(rows["before"][label]) for label in labels["before"])
    for label, base in zip(columns, (before_full, before_next, before_next)):
        print(f"after {label} / before {'full' if base is before_full else '+10'}: "
              f"{statistics.median(rows['after'][label]) / base:.3f}")


def read_package(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text("utf-8") for path in sorted(directory.glob("*.py"))}


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.1f}"


def bench_size(records: int, runs: int) -> None:
    files = package(records)
    cold: dict[str, list[float]] = {s: [] for s in STAGES}
    warm: dict[str, list[float]] = {s: [] for s in STAGES}
    for attempt in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            validator = Validator(root / "cache")
            CODE_CACHE.clear()
            for stage, seconds in run(validator, files, records, "v1", root / "v1").items():
                cold[stage].append(seconds)
            changed = append_records(files, records, 10)
            for stage, seconds in run(validator, changed, records + 10, "v2", root / "v2").items():
                warm[stage].append(seconds)
    size_kb = sum(len(t) for t in files.values()) // 1024
    print(f"\n{records:,} records, {len(files)} files, {size_kb:,} KiB; median of {runs} (ms)")
    print(f"{'':14}" + "".join(f"{s:>10}" for s in STAGES) + f"{'total':>10}")
    for label, table in (("cold", cold), ("warm +10", warm)):
        total = [sum(table[s][i] for s in STAGES) for i in range(runs)]
        print(f"{label:14}" + "".join(f"{median_ms(table[s]):>10}" for s in STAGES) + f"{median_ms(total):>10}")


def timed(fn: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def bench_pool(records: int, runs: int) -> None:
    files = package(records)
    serial = timed(lambda: SafetyChecker().check(files), runs)

    def pooled() -> None:
        checker = SafetyChecker(workers=2, parallel_min_bytes=0)
        checker.check(files)
        checker.close()

    warm_pool = SafetyChecker(workers=2, parallel_min_bytes=0)
    warm_pool.check({"__init__.py": "x = 1\n", "a.py": "y = 2\n"})  # start the workers

    def reused() -> None:
        warm_pool._memory.clear()
        warm_pool.check(files)

    with_start, started_pool = timed(pooled, runs), timed(reused, runs)
    warm_pool.close()
    print(f"\ncold safety stage, {records:,} records: serial {serial * 1000:.0f} ms; 2-process pool "
          f"{with_start * 1000:.0f} ms incl. start ({with_start / serial:.2f}x), "
          f"{started_pool * 1000:.0f} ms already started ({started_pool / serial:.2f}x)")


def bench_parsers(records: int, runs: int) -> None:
    chunk = package(CHUNK)["trips_000.py"]
    whole = chunk_file(0, range(records))
    print(f"\nbaseline parse of one {CHUNK}-record chunk and of one {records:,}-record module (ms)")
    for label, text, n in ((f"{CHUNK} records", chunk, runs), (f"{records:,} records", whole, 1)):
        t_ast = timed(lambda: ast.parse(text), n)
        t_cst = timed(lambda: libcst.parse_module(text), n)
        print(f"{label:>16}: ast {t_ast * 1000:8.1f}  libcst {t_cst * 1000:8.1f}  ratio {t_cst / t_ast:5.1f}x")


CHECKPOINTS = r"""
import json, resource, shutil, sys, time
from pathlib import Path
home, user, rounds, fresh = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4] == "fresh"
sys.path.insert(0, sys.argv[5])
import codegen.validate as cv
from interleaved import InterleavedLog, load
from runtime.memory import Memory
spent = []
real = cv.Validator.validate
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
def validate(self, *args, **kwargs):
    wall, cpu, kids = time.perf_counter(), time.process_time(), children()
    try:
        return real(self, *args, **kwargs)
    finally:
        spent.append((time.perf_counter() - wall, time.process_time() - cpu, children() - kids))
cv.Validator.validate = validate
memory = Memory.open(home)
out = {"full": None, "inc": []}
def checkpoint():
    wall, cpu = time.perf_counter(), time.process_time()
    memory.checkpoint(user)
    return time.perf_counter() - wall, time.process_time() - cpu
if not fresh:
    out["full"] = (*checkpoint(), *spent[-1])
stream = InterleavedLog(seed=9)
stream.drafts(memory.facts.head(user))  # the log holds the stream's first facts: continue it
for i in range(rounds):
    load(memory, user, 10, stream)
    out["inc"].append((*checkpoint(), *spent[-1]))
print(json.dumps(out))
"""


def _checkpoints(src: Path | None, home: Path, user: str, rounds: int, fresh: bool) -> dict[str, object]:
    import json
    import subprocess
    path = [str(src)] if src is not None else []
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path[:0] = {path!r}\n" + CHECKPOINTS,
                          str(home), user, str(rounds), "fresh" if fresh else "full", str(Path(__file__).resolve().parent)],
                         capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def bench_checkpoints(home: Path, user: str, runs: int, rounds: int, baseline: Path | None) -> None:
    """Full checkpoint, +10s in that process, a +10 in a new one; per tree, alternating."""
    import shutil
    trees: dict[str, Path | None] = {"this tree": None}
    if baseline is not None:
        trees = {"baseline": baseline.resolve(), "this tree": None}
    found: dict[str, list[tuple[dict[str, object], dict[str, object]]]] = {label: [] for label in trees}
    for _ in range(runs):
        for label, src in trees.items():
            work = Path(tempfile.mkdtemp(prefix="bench-validate-"))
            try:
                shutil.copy(home / "facts.db", work / "facts.db")
                full = _checkpoints(src, work, user, rounds, False)
                again = _checkpoints(src, work, user, 3, True)
                found[label].append((full, again))
            finally:
                shutil.rmtree(work, ignore_errors=True)
    med = statistics.median
    print(f"medians of {runs} run(s); +10: {rounds} per run after the full checkpoint; seconds")
    print(f"{'tree':<10} {'full: validate wall':>20} {'cpu':>6} {'children cpu':>13} {'checkpoint wall':>16}"
          f" {'+10: validate cpu':>18} {'checkpoint cpu':>15} {'wall':>6} {'first +10 new process: wall':>28}"
          f" {'cpu':>6} {'validate cpu':>13}")
    for label, results in found.items():
        full = [r[0]["full"] for r in results]
        inc = [x for r in results for x in r[0]["inc"]]  # type: ignore[attr-defined]
        first = [r[1]["inc"][0] for r in results]  # type: ignore[index]
        print(f"{label:<10} {med(f[2] for f in full):20.2f} {med(f[3] for f in full):6.2f}"  # type: ignore[index]
              f" {med(f[4] for f in full):13.2f} {med(f[0] for f in full):16.2f}"  # type: ignore[index]
              f" {med(i[3] for i in inc):18.3f} {med(i[1] for i in inc):15.3f} {med(i[0] for i in inc):6.3f}"
              f" {med(f[0] for f in first):28.2f} {med(f[1] for f in first):6.2f} {med(f[3] for f in first):13.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--changed", default="", help="sizes for the +1 changed chunk table, e.g. 100000,300000")
    parser.add_argument("--profile", action="store_true", help="cProfile the last +1 chunk run")
    parser.add_argument("--fresh-runs", type=int, default=None, help="runs with a new validator (default: --runs)")
    parser.add_argument("--mypy", type=int, default=0, help="the mypy stage before/after on a package of N records")
    parser.add_argument("--mypy-dirs", default="", help="FULL,NEXT: two version directories of a real package")
    parser.add_argument("--home", type=Path, default=None, help="a workspace whose facts.db to checkpoint (copied)")
    parser.add_argument("--user", default="bench")
    parser.add_argument("--inc-rounds", type=int, default=5)
    parser.add_argument("--baseline-src", type=Path, default=None, help="another source tree, run alternately")
    args = parser.parse_args()
    if args.home is not None:
        bench_checkpoints(args.home, args.user, args.runs, args.inc_rounds, args.baseline_src)
        return
    if args.mypy_dirs:
        full_dir, next_dir = args.mypy_dirs.split(",")
        bench_mypy(read_package(Path(full_dir)), read_package(Path(next_dir)), args.runs)
        return
    if args.mypy:
        bench_mypy(package(args.mypy), change_one_chunk(package(args.mypy), args.mypy, 1), args.runs)
        return
    if args.changed:
        for records in (int(s) for s in args.changed.split(",")):
            bench_changed(records, args.runs, args.profile,
                          args.runs if args.fresh_runs is None else args.fresh_runs)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    for records in sizes:
        bench_size(records, args.runs)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS after validating every size (before the baselines): {peak_mb:.0f} MB")
    bench_pool(max(sizes), args.runs)
    bench_parsers(max(sizes), args.runs)


if __name__ == "__main__":
    main()

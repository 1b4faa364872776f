"""What a full checkpoint spends outside safety and mypy, stage by stage, on a copy of a
workspace's fact log: the log summary built cold (`users.log_summary.summarize`, which
reads the log), the compile with its state built cold (`codegen.compile.compile_incremental`),
the import of the package (`codegen.loader.load_package`, nothing reused), the coverage
walk (`codegen.manifest.walk_module`, every chunk list walked), and the whole validation of
the package on cold caches (`codegen.validate.Validator.validate`: safety, mypy, import and
coverage; CPU seconds include its child processes'). Each run is a fresh process;
wall and CPU seconds per stage, and the process's peak RSS, are printed as medians.

`--baseline-src DIR` (a source tree of another version, e.g. from `git archive`) runs the
same stages with that code, alternating with this tree's, and prints the ratios; both must
produce the same package and manifest (their digests are compared).

`--stage compile` times the compile alone (the log read first, untimed, as the summary
stage would have read it), with its state written behind where the tree can (`write`: the
wait for the writer, which the compile's CPU column includes as children's CPU); the
digest of the package is still compared.

`--stage checkpoint` runs a whole `Memory.checkpoint` on a copy of the workspace (its
`facts.db` only, nothing checkpointed) and times, in the checkpoint's process, the summary
(`users.checkpoint._summary_job` and `_summary`, where they exist), the producer, the
validation and the publish (wall and the process's own CPU), the whole checkpoint's wall,
the process's CPU and its children's (the forked helpers: bytecode, mypy, summary, state
writer), and its peak RSS. The digest compared is the published version's files.

Run: .venv/bin/python benchmarks/bench_build_stages.py --home WORKSPACE --user bench
     [--runs 3] [--baseline-src DIR] [--stage compile]
  or .venv/bin/python benchmarks/bench_build_stages.py --facts 100000   (a fresh interleaved log)
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAGES = ("summary", "compile", "write", "import", "coverage", "validate")
CHECKPOINT_STAGES = ("summary", "produce", "validate", "publish", "checkpoint", "children")

CHECKPOINT_CHILD = r"""
import functools, hashlib, json, resource, shutil, sys, time
from pathlib import Path
src, work, user = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
shutil.copy(src / "facts.db", work / "facts.db")
import codegen.producer, codegen.validate, users.checkpoint
from runtime.memory import Memory
wall, cpu = {}, {}
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
def timed(owner, name, stage):
    run = getattr(owner, name, None)
    if run is None:
        return
    @functools.wraps(run)
    def wrapped(*args, **kwargs):
        started, used = time.perf_counter(), time.process_time()
        try:
            return run(*args, **kwargs)
        finally:
            wall[stage] = wall.get(stage, 0.0) + time.perf_counter() - started
            cpu[stage] = cpu.get(stage, 0.0) + time.process_time() - used
    setattr(owner, name, wrapped)
timed(users.checkpoint, "_summary_job", "summary")
timed(users.checkpoint, "_summary", "summary")
timed(codegen.producer.CompilerProducer, "produce", "produce")
timed(codegen.validate.Validator, "validate", "validate")
timed(users.checkpoint, "_publish", "publish")
memory = Memory.open(work)
started, used, used_children = time.perf_counter(), time.process_time(), children()
result = memory.checkpoint(user)
wall["checkpoint"], cpu["checkpoint"] = time.perf_counter() - started, time.process_time() - used
wall["children"], cpu["children"] = 0.0, children() - used_children
version = memory.versions.current(user)
assert version is not None, result
files = memory.versions.files(user, version.number)
print(json.dumps({"wall": wall, "cpu": cpu, "files": len(files),
                  "package": hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest(), "manifest": "",
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""

CHILD = r"""
import hashlib, json, re, resource, shutil, sys, time
from pathlib import Path
src, work, user, only = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
shutil.copy(src / "facts.db", work / "facts.db")
from runtime.workspace import Workspace
from codegen.log_view import StoreLog
from codegen.compile import compile_incremental
from codegen.loader import load_package
from codegen.manifest import walk_module, identity_from_facts
from codegen.module_reuse import content_keys
from codegen.validate import chunk_runs
from users.log_summary import summarize
store = Workspace.at(work).open_facts()
log = StoreLog(store, user, store.head(user))
wall, cpu = {}, {}
def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
def timed(stage, run):
    started, used = time.perf_counter(), time.process_time() + children()
    result = run()
    wall[stage], cpu[stage] = time.perf_counter() - started, time.process_time() + children() - used
    return result
if only == "compile":
    import inspect
    log.after(0)
    behind = {"write_behind": 0} if "write_behind" in inspect.signature(compile_incremental).parameters else {}
    compiled = timed("compile", lambda: compile_incremental(user, work / "state" / "compile.sqlite", log, **behind))
    files = compiled.files
    if getattr(compiled, "writing", None) is not None:  # the state written behind: wait for it
        timed("write", compiled.writing.wait)
    print(json.dumps({"wall": wall, "cpu": cpu, "files": len(files),
                      "package": hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest(), "manifest": "",
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
    sys.exit(0)
summary = timed("summary", lambda: summarize(work / "summary.sqlite", log, ""))
files = timed("compile", lambda: compile_incremental(user, work / "state" / "compile.sqlite", log)).files
hashes = {f: hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for f, t in files.items()}
imports = {f: frozenset(re.findall(r"^from \.(\w+) import", t, re.M)) for f, t in files.items()}
stage = work / "stage"
stage.mkdir()
for name, text in files.items():
    (stage / name).write_bytes(text.encode("utf-8", "surrogatepass"))
package = "_uac_gen_bench_stages"
module = timed("import", lambda: load_package(stage, package, hashes))
keys = content_keys(hashes, imports)
walked = timed("coverage", lambda: walk_module(vars(module), live_fact_ids=summary.live,
               identity=identity_from_facts(log.by_id()),
               runs=chunk_runs(files["__init__.py"], package, keys, True), known_parts={}, found_parts={}))
assert not isinstance(walked, str) and walked[0].complete
from codegen.loader import CODE_CACHE, unload_package
from codegen.validate import Validator, ValidationSuccess
unload_package(package)
CODE_CACHE.clear()
validated = timed("validate", lambda: Validator(work / "validator").validate(
    files, user=user, version="bench", stage_dir=work / "stage2", live_fact_ids=summary.live,
    facts=log.by_id(), code_dir=work / "code"))
assert isinstance(validated, ValidationSuccess), validated
assert validated.manifest.dump() == walked[1].dump()
print(json.dumps({"wall": wall, "cpu": cpu, "files": len(files),
                  "package": hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest(),
                  "manifest": hashlib.sha256(walked[1].dump().encode()).hexdigest(),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def _run(src: Path, home: Path, user: str, only: str) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="bench-stages-"))
    try:
        env_path = [str(src)]  # this tree too: the run uses the code beside this script
        child, args = (CHECKPOINT_CHILD, []) if only == "checkpoint" else (CHILD, [only])
        out = subprocess.run([sys.executable, "-c", f"import sys; sys.path[:0] = {env_path!r}\n" + child,
                              str(home), str(work), user, *args], capture_output=True, text=True, check=True)
        return dict(json.loads(out.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _stages(runs: list[dict[str, object]]) -> tuple[str, ...]:
    return CHECKPOINT_STAGES if "checkpoint" in runs[0]["wall"] else STAGES  # type: ignore[operator]


def _medians(runs: list[dict[str, object]], key: str) -> dict[str, float]:
    timed = runs[0][key]
    assert isinstance(timed, dict)
    per_stage = {s: statistics.median(float(r[key].get(s, 0.0)) for r in runs)  # type: ignore[attr-defined]
                 for s in _stages(runs) if s in timed}
    if "checkpoint" in per_stage:  # the checkpoint's process and its children
        per_stage["total"] = per_stage["checkpoint"] + per_stage["children"] if key == "cpu" else per_stage["checkpoint"]
    else:
        per_stage["total"] = sum(v for k, v in per_stage.items() if k != "validate")  # validate repeats import, coverage
    return per_stage


def _line(label: str, runs: list[dict[str, object]]) -> str:
    wall, cpu = _medians(runs, "wall"), _medians(runs, "cpu")
    cells = "  ".join(f"{s} {wall[s]:6.2f} s ({cpu[s]:6.2f} cpu)" for s in (*_stages(runs), "total") if s in wall)
    rss = statistics.median(int(str(r["peak_rss_mb"])) for r in runs)
    return f"{label:<9} {cells}  peak RSS {rss:,.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, help="a workspace whose facts.db holds the log (copied, never written)")
    parser.add_argument("--user", default="bench")
    parser.add_argument("--facts", type=int, default=100_000, help="without --home: an interleaved log of this size")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-src", type=Path, default=None)
    parser.add_argument("--stage", choices=("all", "compile", "checkpoint"), default="all",
                        help="time every stage, the compile alone, or a whole checkpoint")
    args = parser.parse_args()
    made = None
    home = args.home
    if home is None:
        made = home = Path(tempfile.mkdtemp(prefix="bench-stages-home-"))
        subprocess.run([sys.executable, str(HERE / "interleaved.py"), "--facts", str(args.facts), "--home", str(home),
                        "--user", args.user], check=True, capture_output=True)
    try:
        ours: list[dict[str, object]] = []
        base: list[dict[str, object]] = []
        for _ in range(args.runs):
            if args.baseline_src is not None:
                base.append(_run(args.baseline_src.resolve(), home, args.user, args.stage))
            ours.append(_run(HERE.parent, home, args.user, args.stage))
        print(f"{ours[0]['files']} files; medians of {args.runs} run(s), wall (CPU) seconds per stage")
        print(_line("this tree", ours))
        if base:
            print(_line("baseline", base))
            same = all(r["package"] == ours[0]["package"] and r["manifest"] == ours[0]["manifest"] for r in base + ours)
            for key in ("wall", "cpu"):
                new, old = _medians(ours, key), _medians(base, key)
                print(f"ratio baseline / this tree ({key}): " + "  ".join(
                    f"{s} {old[s] / new[s]:.2f}x" for s in (*_stages(ours), "total") if s in old and new.get(s, 0) > 0))
            print("same package and manifest bytes:", same)
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


if __name__ == "__main__":
    main()

"""`uac eval` per-case cost: the cases of a process sharing one validation cache (what
`runtime.eval_run` does) against each case validating from a cold cache of its own.

Each variant runs in a fresh interpreter over the same analytical cases (the first `--cases`
of `benchmarks/evals/analytical.json` with n <= 60), alternating, `--rounds` times; prints
the median seconds per case of each (the first case of a process included: it pays mypy's
cold start in both) and the ratio.

    python benchmarks/bench_eval.py --cases 6 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys, tempfile, time
from pathlib import Path
from runtime import eval_run
from runtime.eval_analytical import run_analytical_case
cases, shared = json.loads(Path(sys.argv[1]).read_text()), sys.argv[2] == "shared"
if not shared:  # every case its own cold validation cache and user name
    made = []
    def fresh():
        made.append(tempfile.TemporaryDirectory())
        return Path(made[-1].name)
    eval_run._shared_validation = fresh
    eval_run.case_user = lambda index: f"case{index:05d}"
seconds = []
with tempfile.TemporaryDirectory() as root:
    for index, case in enumerate(cases):
        started = time.perf_counter()
        row = eval_run.guarded(run_analytical_case, index, case, root, eval_run.EvalOptions(), "case_id")
        assert row.status == "pass", row
        seconds.append(time.perf_counter() - started)
print(json.dumps(seconds))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    cases = [c for c in json.loads((REPO / "benchmarks/evals/analytical.json").read_text())["cases"]
             if c["n"] <= 60][:args.cases]
    times: dict[str, list[float]] = {"cold": [], "shared": []}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.json"
        path.write_text(json.dumps(cases))
        for _ in range(args.rounds):
            for variant in ("cold", "shared"):
                done = subprocess.run([sys.executable, "-c", CHILD, str(path), variant], cwd=REPO,
                                      capture_output=True, text=True, check=True)
                times[variant] += json.loads(done.stdout.strip().splitlines()[-1])
    cold, shared = statistics.median(times["cold"]), statistics.median(times["shared"])
    print(f"{len(cases)} cases x {args.rounds} rounds; median seconds per case: cold cache {cold:.2f}, "
          f"shared cache {shared:.2f}; ratio cold/shared {cold / shared:.1f}x")


if __name__ == "__main__":
    main()

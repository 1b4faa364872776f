"""CLI cold start: `uac --help`, `uac add` and `uac query` on a small user, each a new process.

    .venv/bin/python benchmarks/bench_cli.py [--runs 15] [--uac PATH] [--compare OTHER_UAC]

Prints the median wall time of each command over `--runs` runs, next to `python -c pass`
(the same interpreter) measured in the same run, and their ratio. Runs are interleaved
(one of each command per round) so that a busy machine slows every figure alike. Each
`uac` gets its own workspace with a small user (6 facts, one checkpoint); one warm-up run per
command fills the bytecode caches first: the commands run with a bytecode cache of their own
(`PYTHONPYCACHEPREFIX` in a temporary folder, `PYTHONDONTWRITEBYTECODE` unset), as an
installed package has one, without writing into the checkouts. `--compare` measures a second `uac` (another
checkout's) in the same rounds, for before/after figures.

Targets: `uac add` <= 120 ms and `uac query` <= 150 ms where `python -c pass` is ~18 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

USER = "sam"
QUERY = "sum(t.cost_usd for t in trips)"
SEED = [
    ["add", USER, "Lisbon trip", "--kind", "trip", "--key", "lis", "--field", "destination=Lisbon",
     "--field", "departure_date=2024-03-08", "--field", "cost_usd=1320"],
    ["add", USER, "Chicago trip", "--kind", "trip", "--key", "chi", "--field", "destination=Chicago",
     "--field", "departure_date=2024-06-11", "--field", "cost_usd=540.5"],
    ["add", USER, "--kind", "passport", "--key", "passport", "--field", "number=P8812734",
     "--field", "expiry_date=2027-03-03"],
    ["add", USER, "I like green tea"],
    ["add", USER, "Tokyo trip", "--kind", "trip", "--key", "tok", "--field", "destination=Tokyo",
     "--field", "departure_date=2027-01-20", "--field", "cost_usd=1480"],
    ["add", USER, "The dentist is Dr. Alvarez on Elm Street"],
    ["checkpoint", USER],
]


ENV = dict(os.environ)


def run(argv: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {result.stderr.decode(errors='replace')}")
    return elapsed


def commands(uac: str, home: Path) -> dict[str, list[str]]:
    base = [uac, "--home", str(home)]
    return {"uac --help": [uac, "--help"],
            "uac add": [*base, "add", USER, "I like oolong tea too"],
            "uac query": [*base, "query", USER, QUERY]}


def seed(uac: str, home: Path) -> None:
    for argv in SEED:
        run([uac, "--home", str(home), *argv])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--uac", default=str(Path(sys.executable).with_name("uac")))
    parser.add_argument("--compare", help="another `uac` executable, measured in the same rounds")
    args = parser.parse_args()
    tools = {"": args.uac, **({"compare: ": args.compare} if args.compare else {})}
    with tempfile.TemporaryDirectory() as name:
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        ENV["PYTHONPYCACHEPREFIX"] = str(Path(name) / "pycache")
        cases: dict[str, list[str]] = {"python -c pass": [sys.executable, "-c", "pass"]}
        for label, uac in tools.items():
            home = Path(name) / f"home{len(cases)}"
            seed(uac, home)
            cases.update({label + k: v for k, v in commands(uac, home).items()})
        for argv in cases.values():
            run(argv)  # warm-up: bytecode caches, the query's first import of the version
        times: dict[str, list[float]] = {label: [] for label in cases}
        for _ in range(args.runs):
            for label, argv in cases.items():
                times[label].append(run(argv))
    base = statistics.median(times["python -c pass"])
    print(f"CLI cold start, median of {args.runs} runs (uac: {args.uac}"
          + (f"; compare: {args.compare}" if args.compare else "") + ")")
    for label, values in times.items():
        median = statistics.median(values)
        print(f"  {label:<24} {median * 1000:7.1f} ms   {median / base:5.1f}x python -c pass")
    print("targets: uac add <= 120 ms, uac query <= 150 ms (python -c pass ~18 ms)")


if __name__ == "__main__":
    main()

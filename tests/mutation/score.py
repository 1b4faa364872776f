"""Mutation score per module from `mutmut results --all true` on stdin.

    .venv/bin/mutmut results --all true | .venv/bin/python tests/mutation/score.py
"""

from __future__ import annotations

import collections
import sys


def main() -> None:
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for line in sys.stdin:
        name, _, status = line.strip().rpartition(": ")
        if "__mutmut_" not in name:
            continue
        module = ".".join(name.split(".")[:2])
        counts[module][status] += 1
    print("| module | killed | survived | timeout | no tests | not run | score (killed+timeout)/(run) |")
    print("|---|---|---|---|---|---|---|")
    for module, c in sorted(counts.items()):
        caught = c["killed"] + c["timeout"]
        run = caught + c["survived"]
        score = f"{100 * caught / run:.0f}%" if run else "-"
        print(f"| {module} | {c['killed']} | {c['survived']} | {c['timeout']} | {c['no tests']} | {c['not checked']} "
              f"| {score} |")


if __name__ == "__main__":
    main()

"""Recall for questions that need many facts, on the conversation evaluation set.

Each scenario of `benchmarks/evals/conversations_*.json` (one split, `dev` unless `--split
test`) is ingested offline for a user of its own and checkpointed; then recall is asked one
multi-fact question derived from the scenario's labels: "What do you know about my trips,
medications and allergies?" (the module attributes of the labelled kinds, first mention
first). A label is *surfaced* when recall cites a fact said in the label's sentence: the
message of the label's session and speaker that states the most of the label's values (words
of its text values, its amounts, the month and day of its dates); a label none of whose values
appears anywhere is *unlocated* and left out. A scenario passes when every located label is
surfaced; scenarios without labels are left out. Recall runs with its default item and character budgets and a generous time budget
(`--max-ms`, so the time gate does not add noise on a loaded machine).

`--baseline TREE` runs the same measurement with another checkout's code first (PYTHONPATH,
same interpreter), then this one, and prints both: the share of scenarios with every label
surfaced, the share of labels surfaced, mean items and characters, median recall ms.

Run: .venv/bin/python benchmarks/bench_recall_multi.py [--baseline OTHER_CHECKOUT] [--split dev]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

EVALS = Path(__file__).resolve().parent / "evals"
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
MONTH_PREFIXES = frozenset(m[:3] for m in MONTHS)
SKIP_WORDS = frozenset("the and for with from user assistant".split())
_WORD = re.compile(r"[a-z0-9]+")
_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def scenarios(split: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(EVALS.glob("conversations_*.json")):
        found += [s for s in json.loads(path.read_text(encoding="utf-8"))["scenarios"] if s["split"] == split]
    return found


def plural(kind: str) -> str:
    from factlog.vocabulary import CANONICAL

    domain = CANONICAL.get(kind)
    if domain is not None and not domain.singular:
        return domain.attribute.replace("_", " ")
    return kind.replace("_", " ") + ("" if domain is not None else "s")


def question(scenario: dict[str, Any]) -> str:
    names = list(dict.fromkeys(plural(label["kind"]) for label in scenario["labels"]))
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"What do you know about my {listed}?"


def anchors(fields: dict[str, Any]) -> list[tuple[str, ...]]:
    """What a message stating the label contains: each anchor is a tuple of parts that must
    all appear (a word of a text value; an amount; a month and a day number); a numeric part
    is a regular expression."""
    found: list[tuple[str, ...]] = []
    for value in fields.values():
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (int, float)):
            found.append((f"{value:,.0f}|{value:.0f}" if value >= 1000 else f"{value:g}".replace(".", r"\."),))
            continue
        text = str(value)
        day = _ISO_DAY.match(text)
        if day and 1 <= int(day[2]) <= 12:
            found.append((MONTHS[int(day[2]) - 1][:3], str(int(day[3]))))
            continue
        found += [(w,) for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in SKIP_WORDS]
    return found


def _has(part: str, text: str, words: set[str]) -> bool:
    if part.isalpha():
        return any(w.startswith(part) for w in words) if part in MONTH_PREFIXES else part in words
    return re.search(rf"(?<![\d,.])(?:{part})(?![\d])", text) is not None


def locate(scenario: dict[str, Any], label: dict[str, Any]) -> tuple[str, int] | None:
    """(session id, message index) of the label's sentence: the message of the label's
    session and speaker with the most anchors; None if none has any."""
    wanted = anchors(label["fields"])
    best: tuple[int, tuple[str, int] | None] = (0, None)
    for session in scenario["sessions"]:
        if session["session_id"] != label["session_id"]:
            continue
        for index, message in enumerate(session["messages"]):
            if message["role"] != label.get("speaker", "user"):
                continue
            text = message["content"].lower()
            words = set(_WORD.findall(text))
            score = sum(all(_has(part, text, words) for part in anchor) for anchor in wanted)
            if score > best[0]:
                best = (score, (session["session_id"], index))
    return best[1]


def measure(split: str, max_ms: float) -> dict[str, Any]:
    import runtime
    from runtime.memory import Memory
    from runtime.workspace import Workspace

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory(Workspace.at(Path(tmp) / "home"))
        for n, scenario in enumerate(s for s in scenarios(split) if s["labels"]):  # nothing to surface
            user = f"u{n}"
            path = Path(tmp) / f"{user}.json"
            path.write_text(json.dumps({"sessions": scenario["sessions"]}), encoding="utf-8")
            try:
                mem.ingest_transcript(user, path)
                mem.checkpoint(user)
            except Exception as exc:  # a scenario the code cannot ingest fails; the rest still count
                print(f"{scenario['id']}: {type(exc).__name__}: {exc}", file=sys.stderr)
                rows.append({"id": scenario["id"], "question": "", "labels": len(scenario["labels"]),
                             "unlocated": 0, "surfaced": 0, "all": False, "items": 0, "chars": 0,
                             "cpu_ms": 0.0, "error": f"{type(exc).__name__}: {exc}"[:300]})
                continue
            place = {f.id: (f.provenance.session_id, f.provenance.message_index) for f in mem.log(user)}
            asked = question(scenario)
            start = time.process_time()
            result = mem.recall(user, asked, max_ms=max_ms)
            seconds = time.process_time() - start
            cited = {place.get(i) for item in result.items for i in item.fact_ids}
            located = [locate(scenario, label) for label in scenario["labels"]]
            wanted = [where for where in located if where is not None]
            surfaced = sum(where in cited for where in wanted)
            rows.append({"id": scenario["id"], "question": asked, "labels": len(wanted),
                         "unlocated": len(located) - len(wanted), "surfaced": surfaced,
                         "all": surfaced == len(wanted), "items": len(result.items),
                         "chars": len(result.context), "cpu_ms": seconds * 1000})
    return {"code": str(Path(runtime.__file__).resolve().parent.parent), "split": split, "rows": rows}


def summary(run: dict[str, Any]) -> dict[str, Any]:
    rows = run["rows"]
    labels = sum(r["labels"] for r in rows)
    return {
        "scenarios": len(rows),
        "errors": sum("error" in r for r in rows),
        "every_label_surfaced": sum(r["all"] for r in rows),
        "share_every": round(sum(r["all"] for r in rows) / len(rows), 3) if rows else 0.0,
        "labels": labels,
        "labels_surfaced": sum(r["surfaced"] for r in rows),
        "share_labels": round(sum(r["surfaced"] for r in rows) / labels, 3) if labels else 0.0,
        "unlocated_labels": sum(r["unlocated"] for r in rows),
        "mean_items": round(statistics.mean(r["items"] for r in rows), 2) if rows else 0.0,
        "mean_chars": round(statistics.mean(r["chars"] for r in rows), 1) if rows else 0.0,
        "median_recall_cpu_ms": round(statistics.median(r["cpu_ms"] for r in rows), 2) if rows else 0.0,
    }


def run_with(tree: Path | None, split: str, max_ms: float) -> dict[str, Any]:
    """The measurement in a fresh interpreter, with `tree`'s code first on the path."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree.resolve()) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, __file__, "--split", split, "--max-ms", str(max_ms), "--json"],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"measuring {tree or 'this tree'} failed: {done.stderr.strip().splitlines()[-1:]}")
    sys.stderr.write(done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--split", choices=["dev", "test"], default="dev")
    parser.add_argument("--max-ms", type=float, default=1000.0)
    parser.add_argument("--baseline", type=Path, help="another checkout whose code is measured first")
    parser.add_argument("--json", action="store_true", help="measure this interpreter's code; print JSON")
    parser.add_argument("--rows", action="store_true", help="also print each scenario's result")
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.split, args.max_ms)))
        return
    runs = ([("baseline", run_with(args.baseline, args.split, args.max_ms))] if args.baseline else [])
    runs.append(("this tree", run_with(None, args.split, args.max_ms)))
    for name, run in runs:
        print(f"{name} ({run['split']}): {json.dumps(summary(run))}")
        if args.rows:
            for row in run["rows"]:
                print(f"  {'ok  ' if row['all'] else 'MISS'} {row['surfaced']}/{row['labels']} {row['id']}: "
                      f"{row['items']} items, {row['chars']} chars {row.get('error', '')}")


if __name__ == "__main__":
    main()

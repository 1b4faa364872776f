"""Trigger sets (`factlog.typed.triggers.Triggers`) against the plain patterns they replace.

    .venv/bin/python benchmarks/bench_triggers.py [--rounds 5]

The sentences: every message of the dev split of the shipped conversation sets and of the
ingest benchmark's 300 sessions (`bench_extract`), split and cleaned as the readers see them
(distinct ones only). Per trigger set of `factlog.typed.reader` (and money's gate, payments'
trigger), per round: CPU seconds to ask every sentence with one alternation of the plain
patterns (each with its own flags: what reader.py compiled before), then with the trigger
set. Prints medians, the ratio, and how many sentences the two answer differently (must be 0).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from factlog.sentences import split_sentences
from factlog.spoken import for_readers
from factlog.typed import money, payments, reader
from factlog.typed.triggers import Triggers

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_extract  # noqa: E402


def sentences() -> list[str]:
    texts: list[str] = []
    for path in sorted((HERE / "evals").glob("conversations_*.json")):
        if "blind" in path.name:
            continue  # held-out
        for scenario in json.loads(path.read_text())["scenarios"]:
            if scenario.get("split") != "dev":
                continue
            for session in scenario["sessions"]:
                for message in session.get("messages") or []:
                    texts += split_sentences(message["content"])
    for session in bench_extract.make_sessions(300, 7):
        for message in session["messages"]:  # type: ignore[attr-defined]
            texts += split_sentences(message["content"])
    return list(dict.fromkeys(for_readers(text) for text in texts))


def plain(triggers: Triggers) -> Callable[[str], bool]:
    joined = re.compile("|".join(
        f"(?{'i' if p.flags & re.I else ''}:{re.sub(r'[(][?]P<[A-Za-z0-9_]+>', '(?:', p.pattern)})"
        for p in triggers.patterns))
    return lambda text: joined.search(text) is not None


def cpu(ask: Callable[[str], bool], texts: list[str]) -> float:
    started = time.process_time()
    for text in texts:
        ask(text)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    texts = sentences()
    sets = {"shared": reader._TRIGGERS, "health": reader._HEALTH, "schedule": reader._SCHEDULE,
            "people": reader._PEOPLE, "money gate": money._GATE, "payments": payments._TRIGGER}
    print(f"{len(texts)} distinct sentences, {rounds} rounds, CPU medians")
    total_plain = total_sets = 0.0
    for name, triggers in sets.items():
        before = plain(triggers)
        differ = sum(1 for text in texts if before(text) != triggers.search(text))
        old = statistics.median(cpu(before, texts) for _ in range(rounds))
        new = statistics.median(cpu(triggers.search, texts) for _ in range(rounds))
        total_plain, total_sets = total_plain + old, total_sets + new
        print(f"  {name:10} plain {old:.3f} s  trigger set {new:.3f} s  x{new / old:.2f}  answers differ: {differ}")
    print(f"  {'all':10} plain {total_plain:.3f} s  trigger set {total_sets:.3f} s  x{total_sets / total_plain:.2f}")


if __name__ == "__main__":
    main()

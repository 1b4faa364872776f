"""Log read benchmark: what a full checkpoint pays to read a user's whole log and summarize it.

    .venv/bin/python benchmarks/bench_log_read.py [--facts 100000] [--rounds 5]
        [--facts-db PATH --user NAME]

On the interleaved stream (`benchmarks/interleaved.py`, seed 9, appended in batches of
10,000) or on an existing fact log, per round (each in this process, garbage collector
as a checkpoint runs it):

- read: the whole log through the checkpoint's view (`codegen.log_view.StoreLog.after(0)`),
  CPU seconds, against the same-run floor of a plain SQLite `fetchall` of the same rows plus
  `json.loads` of each row's fields (no facts built);
- summary: `users.log_summary.summarize` built afresh from the log already read (CPU s);
- bytes per fact the read holds (tracemalloc, the rows' strings included).

Prints medians and the ratio of the read to its floor.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from codegen.log_view import StoreLog
from factlog.sqlite import _COLUMNS, SqliteFactStore
from users.log_summary import forget_kept, summarize


def build(directory: Path, facts: int) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from interleaved import InterleavedLog

    store = SqliteFactStore(directory / "facts.db")
    stream = InterleavedLog(seed=9)
    try:
        for start in range(0, facts, 10_000):
            store.append("bench", stream.take(min(10_000, facts - start)))
    finally:
        store.close()
    return directory / "facts.db"


def cpu(work: object) -> float:
    started = time.process_time()
    work()  # type: ignore[operator]
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--facts-db", type=Path)
    parser.add_argument("--user", default="bench")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.facts_db or build(Path(tmp), args.facts)
        store = SqliteFactStore(path, read_only=True)
        head = store.head(args.user)
        reads, floors, summaries = [], [], []
        for number in range(args.rounds):
            def floor() -> None:
                with sqlite3.connect(path) as db:
                    rows = db.execute(f"SELECT {_COLUMNS} FROM facts WHERE user = ? ORDER BY id",
                                      (args.user,)).fetchall()
                    [json.loads(row[5]) for row in rows]
            floors.append(cpu(floor))
            log = StoreLog(store, args.user, head)
            reads.append(cpu(lambda: log.after(0)))
            forget_kept()
            summaries.append(cpu(lambda: summarize(Path(tmp) / f"summary{number}.sqlite", log, "")))
            del log
        tracemalloc.start()
        log = StoreLog(store, args.user, head)
        log.after(0)
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        store.close()
    read, base = statistics.median(reads), statistics.median(floors)
    print(f"{head:,} facts, medians of {args.rounds}: read {read:.3f} s CPU (plain SQLite rows + json.loads "
          f"{base:.3f} s: {read / base:.2f}x), summary afresh {statistics.median(summaries):.3f} s CPU, "
          f"{held / max(head, 1):,.0f} bytes per fact held")


if __name__ == "__main__":
    main()

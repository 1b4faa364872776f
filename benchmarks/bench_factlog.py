"""Fact log benchmark: batched ingestion, single durable appends, verify, transcript ingestion.

    .venv/bin/python benchmarks/bench_factlog.py [--facts 100000]

Prints medians over repeated runs, each next to a baseline measured in the same run
(plain SQLite inserts of the same rows with no checks or hashing).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from factlog.model import NewFact
from factlog.sqlite import SqliteFactStore

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "book_eval_layer1"


def trip(i: int) -> NewFact:
    return NewFact(f"Trip {i} to City {i % 97}", kind="trip",
                   fields={"destination": f"City {i % 97}", "departure_date": f"2024-{i % 12 + 1:02d}-01",
                           "cost_usd": 100.0 + i}, key=f"t{i}")


def batched(tmp: Path, n: int, runs: int) -> tuple[float, float]:
    ours, base = [], []
    for r in range(runs):
        store = SqliteFactStore(tmp / f"batch{r}.db")
        facts = [trip(i) for i in range(n)]
        start = time.perf_counter()
        store.append("bench", facts)
        ours.append(n / (time.perf_counter() - start))
        store.close()
        db = sqlite3.connect(tmp / f"plain{r}.db", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (user TEXT, id INTEGER, text TEXT, fields TEXT, PRIMARY KEY (user, id))")
        rows = [("bench", i, f"Trip {i}", f'{{"destination": "City {i % 97}"}}') for i in range(n)]
        start = time.perf_counter()
        db.execute("BEGIN")
        db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
        db.execute("COMMIT")
        base.append(n / (time.perf_counter() - start))
        db.close()
    return statistics.median(ours), statistics.median(base)


def single_appends(tmp: Path, n: int) -> tuple[float, float]:
    store = SqliteFactStore(tmp / "single.db")
    times = []
    for i in range(n):
        fact = trip(i)
        start = time.perf_counter()
        store.append("bench", [fact])
        times.append(time.perf_counter() - start)
    store.close()
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.9)] * 1000


def verify(tmp: Path, n: int, runs: int) -> float:
    store = SqliteFactStore(tmp / "verify.db")
    for start in range(0, n, 20_000):
        store.append("bench", [trip(i) for i in range(start, min(n, start + 20_000))])
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        report = store.verify()
        times.append(time.perf_counter() - t)
        assert report.ok and report.checked == n
    store.close()
    return statistics.median(times)


def transcripts(tmp: Path, runs: int) -> tuple[float, int] | None:
    if not SHARED.is_dir():
        return None
    from factlog.extract import RuleExtractor
    from factlog.ingest import ingest_transcript

    files = sorted(SHARED.glob("*.yaml"))
    times, count = [], 0
    for r in range(runs):
        store = SqliteFactStore(tmp / f"tx{r}.db")
        start = time.perf_counter()
        count = 0
        for path in files:
            count += len(store.append(path.stem.split("_")[0].zfill(2) + "-case",
                                      ingest_transcript(path, RuleExtractor(), user_only=False)))
        times.append(time.perf_counter() - start)
        store.close()
    return statistics.median(times), count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        ours, base = batched(tmp, 20_000, args.runs)
        print(f"batched ingestion (20,000 facts/batch): {ours:,.0f} facts/s median "
              f"(plain SQLite executemany: {base:,.0f} rows/s; ratio {base / ours:.1f}x)  target >= 20,000")
        p50, p90 = single_appends(tmp, 500)
        print(f"single durable append (synchronous=FULL): p50 {p50:.3f} ms, p90 {p90:.3f} ms  target p50 <= 2 ms")
        v = verify(tmp, args.facts, args.runs)
        print(f"verify {args.facts:,} facts: {v:.3f} s median ({args.facts / v:,.0f} facts/s)  target <= 2 s")
        tx = transcripts(tmp, 3)
        if tx is None:
            print("transcripts: shared data not found, skipped")
        else:
            print(f"ingest the 20 book_eval_layer1 transcripts (extract + store): {tx[0]:.3f} s median, "
                  f"{tx[1]} facts")


if __name__ == "__main__":
    main()

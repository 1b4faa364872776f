"""Fact log benchmark: batched ingestion, single durable appends, verify, transcript ingestion,
and appends after retractions (field types kept per retraction, against the baseline ref's
field types module in the same run).

    .venv/bin/python benchmarks/bench_factlog.py [--facts 100000] [--baseline-ref main]

Prints medians over repeated runs, each next to a baseline measured in the same run
(plain SQLite inserts of the same rows with no checks or hashing).

Single durable appends: one `store.append` per fact, each its own transaction, committed
with `synchronous=FULL` in WAL mode (one fdatasync of the WAL per commit). The baseline is a
plain SQLite insert + commit under the same settings, alternated with ours append by append
so that both see the same disk; the floor is one write + fdatasync of a file on the same
disk. With `synchronous=OFF` (not durable) the same pairs show the software share.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any, Callable

import factlog.sqlite
from factlog.field_types import check_and_record
from factlog.hashing import canonical_json
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


def _p(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def single_appends(tmp: Path, n: int, synchronous: str = "FULL") -> dict[str, list[float]]:
    """Single appends, alternated one by one so that all three see the same disk: ours
    (`store.append`), a plain insert + commit, and (the floor) a 4 KiB write + fdatasync."""
    store = SqliteFactStore(tmp / f"single-{synchronous}.db")
    db = sqlite3.connect(tmp / f"plain-{synchronous}.db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    for conn in (db, getattr(store, "_db")):
        conn.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("CREATE TABLE t (user TEXT, id INTEGER, text TEXT, fields TEXT, PRIMARY KEY (user, id))")
    fd = os.open(tmp / f"floor-{synchronous}", os.O_RDWR | os.O_CREAT, 0o600)
    times: dict[str, list[float]] = {"ours": [], "plain": [], "floor": []}
    try:
        for i in range(n):
            fact = trip(i)
            start = time.perf_counter()
            store.append("bench", [fact])
            times["ours"].append(time.perf_counter() - start)
            start = time.perf_counter()
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", ("bench", i, fact.text, canonical_json(fact.fields)))
            db.execute("COMMIT")
            times["plain"].append(time.perf_counter() - start)
            start = time.perf_counter()
            os.pwrite(fd, (b"%08d" % i) * 512, (i % 64) * 4096)
            os.fdatasync(fd)
            times["floor"].append(time.perf_counter() - start)
    finally:
        os.close(fd)
        store.close()
        db.close()
    return times


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


def interleaved(i: int) -> NewFact:
    """Fact `i` of a log whose kinds arrive interleaved, as `uac add` produces them."""
    kind = ("trip", "gadget", "medication", "contact", "visit")[i % 5]
    table: dict[str, dict[str, Any]] = {"trip": {"destination": f"City {i % 97}", "cost_usd": 100.0 + i,
                                       "departure_date": f"2024-{i % 12 + 1:02d}-01"},
                              "gadget": {"name": f"g{i}", "price": i % 500, "tags": ["a", f"t{i % 7}"]},
                              "medication": {"name": f"m{i % 50}", "dose": f"{i % 9} mg"},
                              "contact": {"name": f"c{i}", "email": f"c{i}@example.org"},
                              "visit": {"on": f"2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}", "place": f"p{i % 30}"}}
    return NewFact(f"{kind} {i}", kind=kind, fields=table[kind], key=f"{kind}{i // 5}")


def _batch_with_retractions(rng: random.Random, start: int, size: int, live: list[int]) -> list[NewFact]:
    """`size` facts from `start`, 1% of them retractions of earlier live facts (ids from 1)."""
    facts: list[NewFact] = []
    for i in range(start, start + size):
        if live and rng.random() < 0.01:
            facts.append(NewFact("retract", retracts=live.pop(rng.randrange(len(live)))))
        else:
            facts.append(interleaved(i))
    return facts


def baseline_check(ref: str) -> Callable[..., None] | None:
    """`check_and_record` of `factlog/field_types.py` at git `ref` (None without git or ref)."""
    try:
        source = subprocess.run(["git", "show", f"{ref}:factlog/field_types.py"], capture_output=True,
                                check=True, cwd=Path(__file__).resolve().parents[1], text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType(f"baseline_field_types_{ref}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, module.__name__, "exec"), module.__dict__)  # noqa: S102 - our own source at a ref
    check: Callable[..., None] = module.check_and_record
    return check


def retraction_appends(tmp: Path, preload: int, batch: int, batches: int,
                       check: Callable[..., None]) -> tuple[float, float, float]:
    """Seconds per `batch`-fact append (1% retractions) on a log of `preload` interleaved facts
    and the seconds of it spent on field types (medians of `batches`), then a single
    retraction plus the next single append, in ms (median)."""
    rng = random.Random(9)
    source = tmp / f"retract{preload}.db"
    live: list[int] = []
    if not source.exists():
        store = SqliteFactStore(source)
        for start in range(0, preload, batch):
            facts = _batch_with_retractions(rng, start, min(batch, preload - start), live)
            store.append("bench", facts)
            live.extend(f.id for f in store.facts("bench", after=start) if f.retracts is None)
        store.close()
    else:
        store = SqliteFactStore(source)
        dead = {t for f in store.facts("bench") if f.retracts is not None for t in (f.id, f.retracts)}
        live = [f.id for f in store.facts("bench") if f.id not in dead]
        store.close()
    copy = tmp / f"retract{preload}-{check.__module__}.db"
    shutil.copy(source, copy)
    spent = [0.0]

    def timed(*args: Any) -> None:
        t0 = time.perf_counter()
        try:
            check(*args)
        finally:
            spent[0] += time.perf_counter() - t0

    factlog.sqlite.check_and_record = timed  # type: ignore[attr-defined,assignment]
    try:
        store = SqliteFactStore(copy)
        times, typing = [], []
        for n in range(batches):
            facts = _batch_with_retractions(rng, preload + n * batch, batch, live)
            spent[0] = 0.0
            t0 = time.perf_counter()
            store.append("bench", facts)
            times.append(time.perf_counter() - t0)
            typing.append(spent[0])
        singles = []
        for n in range(9):
            head = store.head("bench")
            t0 = time.perf_counter()
            store.append("bench", [NewFact("retract", retracts=live.pop(rng.randrange(len(live))))])
            store.append("bench", [interleaved(head + 1)])
            singles.append(time.perf_counter() - t0)
        store.close()
    finally:
        factlog.sqlite.check_and_record = check_and_record  # type: ignore[attr-defined]
    return statistics.median(times), statistics.median(typing), statistics.median(singles) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--appends", type=int, default=500, help="single appends measured")
    parser.add_argument("--only-appends", action="store_true", help="measure single appends only")
    parser.add_argument("--baseline-ref", default="main", help="git ref whose field types module is the baseline")
    parser.add_argument("--only", choices=["retractions"], help="run only this figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if not args.only_appends:
            before = baseline_check(args.baseline_ref)
            after = retraction_appends(tmp, args.facts, 10_000, 4, check_and_record)
            line = (f"append 10,000 facts (1% retractions) at {args.facts:,} interleaved facts: {after[0]:.3f} s "
                    f"median, {after[1]:.3f} s of it field types; a retraction + the next append: "
                    f"{after[2]:.1f} ms median")
            if before is not None:
                was = retraction_appends(tmp, args.facts, 10_000, 4, before)
                line += (f"\n  baseline {args.baseline_ref} (same run): {was[0]:.3f} s, {was[1]:.3f} s field types, "
                         f"{was[2]:.1f} ms; ratios {was[0] / after[0]:.1f}x, {was[1] / after[1]:.1f}x, "
                         f"{was[2] / after[2]:.1f}x")
            print(line)
            if args.only:
                return
            rate, base = batched(tmp, 20_000, args.runs)
            print(f"batched ingestion (20,000 facts/batch): {rate:,.0f} facts/s median "
                  f"(plain SQLite executemany: {base:,.0f} rows/s; ratio {base / rate:.1f}x)  target >= 20,000")
        durable = single_appends(tmp, args.appends)
        ours, plain, floor = durable["ours"], durable["plain"], durable["floor"]
        print(f"single durable append (WAL, synchronous=FULL), {args.appends} appends: "
              f"p50 {_p(ours, 0.5):.3f} ms, p95 {_p(ours, 0.95):.3f} ms  target p50 <= 2 ms")
        print(f"  plain SQLite insert + commit, same settings: p50 {_p(plain, 0.5):.3f} ms, "
              f"p95 {_p(plain, 0.95):.3f} ms; ratio p50 {_p(ours, 0.5) / _p(plain, 0.5):.2f}x")
        print(f"  the disk's floor, 4 KiB write + fdatasync: p50 {_p(floor, 0.5):.3f} ms, "
              f"p95 {_p(floor, 0.95):.3f} ms; ratio p50 {_p(ours, 0.5) / _p(floor, 0.5):.2f}x")
        cpu = single_appends(tmp, args.appends, "OFF")
        print(f"  software share (synchronous=OFF, not durable): ours p50 {_p(cpu['ours'], 0.5):.3f} ms, "
              f"plain p50 {_p(cpu['plain'], 0.5):.3f} ms")
        if args.only_appends:
            return
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

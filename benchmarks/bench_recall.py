"""Recall benchmark: index 100,000 synthetic facts for one user (plus a few others), then
time `recall` over 50 varied questions against a naive `LIKE '%word%'` scan. Trip facts
carry one of 4,000 booking keys, so most of them are superseded by a later update.

Run: .venv/bin/python benchmarks/bench_recall.py [--facts N]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Callable

from factlog.model import Fact, JsonValue, Provenance
from runtime.recall import recall
from runtime.recall_index import RecallIndex, RecordText, query_tokens

CITIES = ["Tokyo", "Lisbon", "Oslo", "Rome", "Nairobi", "Lima", "Hanoi", "Denver", "Porto", "Seoul",
          "Cairo", "Austin", "Dublin", "Quito", "Perth", "Zagreb", "Osaka", "Boston", "Madrid", "Delhi"]
PEOPLE = ["Anna", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas"]
DRUGS = ["ibuprofen", "amoxicillin", "metformin", "lisinopril", "cetirizine", "omeprazole"]
PAYEES = ["landlord", "electricity", "water utility", "gym", "insurance", "internet", "school"]
TOPICS = ["aisle seats", "vegetarian meals", "morning meetings", "quiet hotels", "window tables",
          "dark roast coffee", "early flights", "paper receipts"]
NOTES = ["the garden fence needs painting", "remember to call the plumber", "the piano needs tuning",
         "book club meets on the first Monday", "the bike chain is rusty", "renew the library card",
         "the neighbour's cat visits at night", "try the new ramen place downtown"]


def synthetic_fact(rng: random.Random, user: str, fid: int, day: date) -> Fact:
    choice = rng.randrange(5)
    fields: dict[str, JsonValue] = {}
    key = None
    if choice == 0:
        city = rng.choice(CITIES)
        kind: str | None = "trip"
        text = f"Flying to {city} with {rng.choice(PEOPLE)}, budget {rng.randrange(200, 5000)} dollars"
        fields = {"destination": city, "departure_date": day.isoformat()}
        key = f"ref-{fid % 4000}"
    elif choice == 1:
        kind, payee = "payment", rng.choice(PAYEES)
        text = f"Paid the {payee} bill of {rng.randrange(20, 900)} dollars"
        fields = {"payee": payee, "amount_usd": rng.randrange(20, 900)}
    elif choice == 2:
        kind, drug = "medication", rng.choice(DRUGS)
        text = f"{rng.choice(PEOPLE)} takes {drug} {rng.choice([5, 10, 20, 50])} mg twice a day"
        fields = {"name": drug}
    elif choice == 3:
        kind = "preference"
        text = f"I prefer {rng.choice(TOPICS)} when travelling to {rng.choice(CITIES)}"
    else:
        kind = None
        text = f"Note {fid}: {rng.choice(NOTES)}, said {rng.choice(PEOPLE)}"
    return Fact(user, fid, f"{day.isoformat()}T12:00:00+00:00", text, kind, fields, key, day, None, None,
                Provenance(session_id=f"s{fid // 20}"), "", "")


def make_facts(rng: random.Random, user: str, count: int) -> list[Fact]:
    start = date(2015, 1, 1)
    return [synthetic_fact(rng, user, i, start + timedelta(days=i * 3650 // count)) for i in range(1, count + 1)]


def questions(rng: random.Random) -> list[str]:
    forms: list[Callable[[], str]] = [
        lambda: f"When am I flying to {rng.choice(CITIES)}?",
        lambda: f"Who travelled with me to {rng.choice(CITIES)} and {rng.choice(CITIES)}?",
        lambda: f"How much did I pay the {rng.choice(PAYEES)}?",
        lambda: f"What dose of {rng.choice(DRUGS)} does {rng.choice(PEOPLE)} take?",
        lambda: f"Do I like {rng.choice(TOPICS)}?",
        lambda: f"What did {rng.choice(PEOPLE)} say about {rng.choice(NOTES).split()[1]}?",
        lambda: "what do I need to remember",
        lambda: f"{rng.choice(PEOPLE)} {rng.choice(CITIES)} budget dollars flight",
    ]
    return [rng.choice(forms)() for _ in range(50)]


def timed_ms(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def like_scan(db: sqlite3.Connection, user: str, question: str, limit: int, ranked: bool) -> list[tuple[str]]:
    """The naive baseline: substring tests, optionally ordered by how many words matched."""
    likes = [f"%{w}%" for w in query_tokens(question)]
    hits = " + ".join("(body LIKE ?)" for _ in likes) or "0"
    order = f"ORDER BY {hits} DESC" if ranked else ""
    sql = f"SELECT body FROM docs WHERE user = ? AND {hits} > 0 {order} LIMIT ?"
    return db.execute(sql, [user, *likes, *(likes if ranked else []), limit]).fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facts", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(4)
    main_facts = make_facts(rng, "main", args.facts)
    others = {f"other{i}": make_facts(rng, f"other{i}", 2_000) for i in range(3)}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "recall.db"
        with RecallIndex(path) as index:
            t0 = time.perf_counter()
            for i in range(0, len(main_facts), 10_000):  # incremental, as a watcher would
                index.sync_facts("main", main_facts[i : i + 10_000])
            build_s = time.perf_counter() - t0
            for user, facts in others.items():
                index.sync_facts(user, facts)
            records = [RecordText(f"Trip(destination='{f.fields['destination']}', departure_date="
                                  f"{f.fields['departure_date']})", (f.id,), "trips")
                       for f in main_facts if f.kind == "trip"]
            t0 = time.perf_counter()
            index.set_records("main", 1, records)
            records_s = time.perf_counter() - t0
            size_mb = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 1e6
            print(f"index build: {args.facts} facts in {build_s:.2f} s = {args.facts / build_s:,.0f} facts/s "
                  f"(10 incremental syncs); {len(records)} records in {records_s:.2f} s; {size_mb:.1f} MB")

            qs = questions(rng)
            for q in qs[:5]:  # warm the page cache
                recall(index, "main", q, max_ms=1000)
            recall_ms, search_ms = [], []
            for q in qs:
                recall_ms.append(timed_ms(lambda: recall(index, "main", q, max_ms=1000)))
                search_ms.append(timed_ms(lambda: index.search("main", q, limit=40)))
            budget_hits = sum(bool(recall(index, "main", q).truncated_by - {"items", "chars"}) for q in qs)
            db = sqlite3.connect(path)
            stale = db.execute("SELECT count(*) FROM docs WHERE user = 'main' AND superseded_by IS NOT NULL")
            print(f"superseded facts: {stale.fetchone()[0]:,} of {args.facts:,}")
            like_ms = [timed_ms(lambda: like_scan(db, "main", q, 40, False)) for q in qs]
            ranked_ms = [timed_ms(lambda: like_scan(db, "main", q, 40, True)) for q in qs]
            db.close()
            print(f"recall (max_ms=1000): p50 {pct(recall_ms, 50):.1f} ms, p90 {pct(recall_ms, 90):.1f} ms "
                  f"over {len(qs)} questions")
            print(f"  of which search(limit=40): p50 {pct(search_ms, 50):.1f} ms, p90 {pct(search_ms, 90):.1f} ms")
            print(f"recall with the default 50 ms gate: {budget_hits}/{len(qs)} questions hit the time gate")
            print(f"baseline LIKE '%word%' scan, first 40 (unranked): p50 {pct(like_ms, 50):.1f} ms, "
                  f"p90 {pct(like_ms, 90):.1f} ms")
            print(f"baseline LIKE '%word%' scan, ranked by words matched: p50 {pct(ranked_ms, 50):.1f} ms, "
                  f"p90 {pct(ranked_ms, 90):.1f} ms")
            forget_ms = timed_ms(lambda: index.forget("other0"))
            print(f"forget one user (2,000 facts; optimize + VACUUM + checkpoint): {forget_ms:.0f} ms")


if __name__ == "__main__":
    main()

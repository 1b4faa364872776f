"""Write `analytical.json`: the analytical case set of `uac eval analytical` (docs/EVAL.md).

Seeded, so the file is the same on every run: `python benchmarks/evals/make_analytical.py`.
Each case holds its records, a question, the expression that answers it over `records`,
and the gold answer, computed here in plain Python over the generated records (loops, not
the expression, and never our query engine), so a case checks the whole path: ingest as
structured facts, compile, query.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, Callable

SEED = 20261202
SIZES = (5, 20, 60, 150, 300, 500)
OUT = Path(__file__).with_name("analytical.json")

Record = dict[str, Any]
Case = dict[str, Any]


def _day(rng: random.Random, year: int = 2024) -> str:
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _distinct(rng: random.Random, n: int, low: float, high: float, digits: int) -> list[float]:
    """n distinct values in [low, high), rounded: maxima and orders have no ties."""
    seen: set[float] = set()
    while len(seen) < n:
        seen.add(round(rng.uniform(low, high), digits))
    values = list(seen)
    rng.shuffle(values)
    return values


def purchases(rng: random.Random, n: int) -> list[Record]:
    items = ["headphones", "coffee beans", "desk lamp", "running shoes", "novel", "backpack", "blender",
             "phone case", "yoga mat", "kettle", "notebook", "jacket"]
    categories = ["electronics", "groceries", "home", "sports", "books", "clothing"]
    amounts = _distinct(rng, n, 3, 400, 2)
    return [{"item": f"{rng.choice(items)} #{i + 1}", "category": rng.choice(categories), "amount": amounts[i],
             "store": rng.choice(["Amazon", "Target", "REI", "Costco", "local shop"]), "date": _day(rng)}
            for i in range(n)]


def workouts(rng: random.Random, n: int) -> list[Record]:
    minutes = _distinct(rng, n, 10, 10 + 3 * n + 60, 0)
    return [{"activity": rng.choice(["running", "cycling", "swimming", "yoga", "rowing", "hiking"]),
             "minutes": int(minutes[i]), "calories": rng.randint(80, 900), "date": _day(rng),
             "title": f"session {i + 1}"} for i in range(n)]


def meals(rng: random.Random, n: int) -> list[Record]:
    prices = _distinct(rng, n, 4, 90, 2)
    return [{"dish": f"{rng.choice(['ramen', 'tacos', 'pizza', 'salad', 'curry', 'sushi', 'pho'])} {i + 1}",
             "cuisine": rng.choice(["japanese", "mexican", "italian", "indian", "vietnamese", "american"]),
             "calories": rng.randint(250, 1400), "price": prices[i], "date": _day(rng)} for i in range(n)]


def books(rng: random.Random, n: int) -> list[Record]:
    pages = _distinct(rng, n, 90, 90 + 4 * n + 400, 0)
    authors = ["Le Guin", "Tolkien", "Morrison", "Ishiguro", "Atwood", "Murakami", "Chiang", "Jemisin"]
    return [{"title": f"Book {i + 1}", "author": rng.choice(authors), "pages": int(pages[i]),
             "rating": rng.randint(1, 5), "genre": rng.choice(["fantasy", "literary", "sci-fi", "mystery"]),
             "year_read": rng.randint(2019, 2025)} for i in range(n)]


def trips(rng: random.Random, n: int) -> list[Record]:
    places = [("Tokyo", "Japan"), ("Paris", "France"), ("Lisbon", "Portugal"), ("Denver", "USA"),
              ("Mexico City", "Mexico"), ("Rome", "Italy"), ("Seoul", "South Korea"), ("Chicago", "USA")]
    costs = _distinct(rng, n, 150, 6000, 2)
    found = []
    for i in range(n):
        city, country = rng.choice(places)
        found.append({"destination": city, "country": country, "cost_usd": costs[i],
                      "departure_date": _day(rng, rng.choice([2023, 2024, 2025])), "nights": rng.randint(1, 14)})
    return found


def transactions(rng: random.Random, n: int) -> list[Record]:
    amounts = _distinct(rng, n, 1, 2500, 2)
    payees = ["Landlord", "Grocer", "Utility Co", "Gym", "Streaming", "Airline", "Pharmacy", "Cafe"]
    return [{"payee": rng.choice(payees), "amount": amounts[i], "account": rng.choice(["checking", "savings", "card"]),
             "direction": rng.choice(["debit", "debit", "credit"]), "date": _day(rng), "memo": f"tx {i + 1}"}
            for i in range(n)]


# -- questions: (question, answer_kind, expression, gold computed by loops) ---------------

Question = tuple[str, str, str, Any]


def _count_where(records: list[Record], field: str, value: Any) -> int:
    count = 0
    for r in records:
        if r[field] == value:
            count += 1
    return count


def _total(records: list[Record], field: str, keep: Callable[[Record], bool] = lambda r: True) -> float:
    total = 0.0
    for r in records:
        if keep(r):
            total += r[field]
    return round(total, 2)


def _argmax(records: list[Record], field: str, name: str) -> str:
    best = records[0]
    for r in records[1:]:
        if r[field] > best[field]:
            best = r
    return str(best[name])


def _top(records: list[Record], field: str, name: str, k: int) -> list[Any]:
    remaining = list(records)
    chosen = []
    for _ in range(min(k, len(remaining))):
        best = remaining[0]
        for r in remaining[1:]:
            if r[field] > best[field]:
                best = r
        remaining.remove(best)
        chosen.append(best[name])
    return chosen


def _values(records: list[Record], field: str) -> list[Any]:
    found: list[Any] = []
    for r in records:
        if r[field] not in found:
            found.append(r[field])
    return sorted(found)


def purchase_questions(rs: list[Record], rng: random.Random) -> list[Question]:
    cat = rs[rng.randrange(len(rs))]["category"]
    month = rs[rng.randrange(len(rs))]["date"][:7]
    return [
        ("How many purchases have I made?", "int", "len(records)", len(rs)),
        (f"How many {cat} purchases have I made?", "int",
         f"sum(1 for r in records if r.category == {cat!r})", _count_where(rs, "category", cat)),
        ("How much have I spent in total?", "float", "sum(r.amount for r in records)", _total(rs, "amount")),
        (f"How much did I spend in {month}?", "float",
         f"sum(r.amount for r in records if str(r.date).startswith({month!r}))",
         _total(rs, "amount", lambda r: r["date"].startswith(month))),
        ("What was my most expensive purchase?", "string", "max(records, key=lambda r: r.amount).item",
         _argmax(rs, "amount", "item")),
        ("Which categories have I bought in?", "set", "{r.category for r in records}", _values(rs, "category")),
    ]


def workout_questions(rs: list[Record], rng: random.Random) -> list[Question]:
    activity = rs[rng.randrange(len(rs))]["activity"]
    mean = 0.0
    for r in rs:
        mean += r["calories"]
    return [
        ("How many workouts did I log?", "int", "len(records)", len(rs)),
        (f"How many minutes did I spend {activity} in total?", "int",
         f"sum(r.minutes for r in records if r.activity == {activity!r})",
         int(_total(rs, "minutes", lambda r: r["activity"] == activity))),
        ("On average, how many calories did a workout burn?", "float",
         "sum(r.calories for r in records) / len(records)", round(mean / len(rs), 4)),
        ("What was my longest workout?", "string", "max(records, key=lambda r: r.minutes).title",
         _argmax(rs, "minutes", "title")),
        ("List my three longest workouts, longest first.", "list",
         "[r.title for r in sorted(records, key=lambda r: r.minutes, reverse=True)[:3]]",
         _top(rs, "minutes", "title", 3)),
    ]


def meal_questions(rs: list[Record], rng: random.Random) -> list[Question]:
    cuisine = rs[rng.randrange(len(rs))]["cuisine"]
    return [
        (f"How many {cuisine} meals did I have?", "int",
         f"len([r for r in records if r.cuisine == {cuisine!r}])", _count_where(rs, "cuisine", cuisine)),
        ("How much did I spend on meals?", "float", "sum(r.price for r in records)", _total(rs, "price")),
        ("Which was my priciest meal?", "string", "max(records, key=lambda r: r.price).dish",
         _argmax(rs, "price", "dish")),
        ("Which cuisines did I eat?", "set", "set(r.cuisine for r in records)", _values(rs, "cuisine")),
        ("How many meals had over 1000 calories?", "int", "sum(1 for r in records if r.calories > 1000)",
         sum(1 for r in rs if r["calories"] > 1000)),
    ]


def book_questions(rs: list[Record], rng: random.Random) -> list[Question]:
    author = rs[rng.randrange(len(rs))]["author"]
    year = rs[rng.randrange(len(rs))]["year_read"]
    return [
        (f"How many books by {author} have I read?", "int",
         f"sum(1 for r in records if r.author == {author!r})", _count_where(rs, "author", author)),
        (f"How many pages did I read in {year}?", "int",
         f"sum(r.pages for r in records if r.year_read == {year})",
         int(_total(rs, "pages", lambda r: r["year_read"] == year))),
        ("What is the longest book I read?", "string", "max(records, key=lambda r: r.pages).title",
         _argmax(rs, "pages", "title")),
        ("Which authors have I read?", "set", "{r.author for r in records}", _values(rs, "author")),
        ("How many books did I rate 5 stars?", "int", "sum(1 for r in records if r.rating == 5)",
         _count_where(rs, "rating", 5)),
    ]


def trip_questions(rs: list[Record], rng: random.Random) -> list[Question]:
    year = int(rs[rng.randrange(len(rs))]["departure_date"][:4])
    country = rs[rng.randrange(len(rs))]["country"]
    return [
        ("How many trips have I taken?", "int", "len(records)", len(rs)),
        (f"How much did my {year} trips cost?", "float",
         f"sum(t.cost_usd for t in records if t.departure_date.year == {year})",
         _total(rs, "cost_usd", lambda r: r["departure_date"].startswith(str(year)))),
        (f"How many nights did I spend in {country}?", "int",
         f"sum(t.nights for t in records if t.country == {country!r})",
         int(_total(rs, "nights", lambda r: r["country"] == country))),
        ("Which was my most expensive trip?", "string", "max(records, key=lambda t: t.cost_usd).destination",
         _argmax(rs, "cost_usd", "destination")),
        ("Which countries have I visited?", "set", "{t.country for t in records}", _values(rs, "country")),
    ]


def transaction_questions(rs: list[Record], rng: random.Random) -> list[Question]:
    payee = rs[rng.randrange(len(rs))]["payee"]
    account = rs[rng.randrange(len(rs))]["account"]
    return [
        (f"How much have I paid {payee}?", "float",
         f"sum(t.amount for t in records if t.payee == {payee!r} and t.direction == 'debit')",
         _total(rs, "amount", lambda r: r["payee"] == payee and r["direction"] == "debit")),
        (f"How many transactions went through my {account} account?", "int",
         f"sum(1 for t in records if t.account == {account!r})", _count_where(rs, "account", account)),
        ("What is the net flow (credits minus debits)?", "float",
         "sum(t.amount if t.direction == 'credit' else -t.amount for t in records)",
         round(_total(rs, "amount", lambda r: r["direction"] == "credit")
               - _total(rs, "amount", lambda r: r["direction"] == "debit"), 2)),
        ("List the memos of my three largest transactions, largest first.", "list",
         "[t.memo for t in sorted(records, key=lambda t: t.amount, reverse=True)[:3]]",
         _top(rs, "amount", "memo", 3)),
    ]


TYPES: dict[str, tuple[Callable[[random.Random, int], list[Record]],
                       Callable[[list[Record], random.Random], list[Question]]]] = {
    "purchases": (purchases, purchase_questions),
    "workouts": (workouts, workout_questions),
    "meals": (meals, meal_questions),
    "books": (books, book_questions),
    "trips": (trips, trip_questions),
    "transactions": (transactions, transaction_questions),
}


def make_cases(seed: int = SEED) -> list[Case]:
    """Per record type, one record set per size; the type's questions spread over the sizes."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for type_name, (make_records, make_questions) in TYPES.items():  # every type: a plural in -s
        for size_index, n in enumerate(SIZES):
            records = make_records(rng, n)
            questions = make_questions(records, rng)
            # every size gets two questions, rotating through the type's templates
            for q_index in (2 * size_index % len(questions), (2 * size_index + 1) % len(questions)):
                question, kind, expression, gold = questions[q_index]
                cases.append({"case_id": f"{type_name}-n{n}-q{q_index + 1}", "type": type_name,
                              "kind": type_name[:-1], "n": n,
                              "question": question, "answer_kind": kind, "gold": gold,
                              "expression": expression, "records": records})
    return cases


def main() -> None:
    cases = make_cases()
    data = {"format": 1, "source": f"benchmarks/evals/make_analytical.py, seed {SEED}; CC0", "cases": cases}
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8")
    sys.stdout.write(f"{len(cases)} cases, {len(TYPES)} types, n up to {max(SIZES)}: {OUT.name}\n")


if __name__ == "__main__":
    main()

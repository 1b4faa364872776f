"""Safe query evaluation: answers match plain Python; escapes and floods end in errors."""

from __future__ import annotations

import copy
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from enum import Enum
from pathlib import Path

import pytest
import trip_module

from runtime import safe_eval
from runtime.query_shapes import NamespaceShapes
from runtime.render_value import RenderTooLarge, to_jsonable, to_text
from runtime.safe_eval import QueryFailure, QueryResult, QuerySuccess, evaluate


@pytest.fixture(autouse=True, params=["guarded", "shaped"])
def checks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs twice: with every check at run time, and with the checks the namespace
    proves needless left out (runtime.query_shapes), as a query worker's child evaluates."""
    if request.param == "shaped":
        monkeypatch.setitem(globals(), "evaluate", _shaped)


def _shaped(expression: str, namespace: dict[str, object], *, time_limit_s: float = 1.0,
            memory_limit_mb: int = 256) -> QueryResult:
    return safe_eval.evaluate(expression, namespace, time_limit_s=time_limit_s,
                              memory_limit_mb=memory_limit_mb, shapes=NamespaceShapes(namespace))


class Trip(trip_module.Trip):
    @property
    def duration_days(self) -> int:
        return ((self.return_date or self.departure_date) - self.departure_date).days


@dataclass(frozen=True, kw_only=True)
class Passport:
    number: str
    expiry_date: date
    fact_ids: list[int] = field(default_factory=list)


class Cuisine(Enum):
    THAI = "thai"
    ITALIAN = "italian"


@dataclass(frozen=True, kw_only=True)
class Meal:
    cuisine: Cuisine
    price: Decimal
    fact_ids: list[int] = field(default_factory=list)


COUNTRIES = ("France", "Japan", "Peru", "Kenya")


def make_trips() -> list[Trip]:
    trips = []
    for i in range(60):
        leave = date(2023, 1, 1) + timedelta(days=23 * i)
        back = leave + timedelta(days=i % 9) if i % 5 else None
        trips.append(Trip(destination=f"City{i}", country=COUNTRIES[i % 4], departure_date=leave,
                          return_date=back, cost_usd=50.0 + 13 * i, fact_ids=[i + 1]))
    return trips


TRIPS = make_trips()
PASSPORT = Passport(number="X1", expiry_date=date(2031, 5, 1), fact_ids=[99])
MEALS = [Meal(cuisine=c, price=Decimal("9.50") + i, fact_ids=[200 + i])
         for i, c in enumerate([Cuisine.THAI, Cuisine.ITALIAN, Cuisine.THAI])]


def namespace() -> dict[str, object]:
    return {"trips": TRIPS, "passport": PASSPORT, "meals": MEALS, "notes": ["likes window seats"],
            "Trip": Trip, "Passport": Passport, "Meal": Meal, "Cuisine": Cuisine}


def ok(expression: str, **names: object) -> object:
    result = evaluate(expression, {**namespace(), **names})
    assert isinstance(result, QuerySuccess), result
    return result.value


# --- answers --------------------------------------------------------------

def test_example_queries_match_plain_python() -> None:
    assert ok("sum(t.cost_usd for t in trips if t.departure_date.year == 2024)") == \
        sum(t.cost_usd for t in TRIPS if t.departure_date.year == 2024)
    assert ok("sorted({m.cuisine.value for m in meals})") == ["italian", "thai"]
    assert ok("max(trips, key=lambda t: t.duration_days).destination") == \
        max(TRIPS, key=lambda t: t.duration_days).destination
    assert ok("Counter(t.country for t in trips).most_common(3)") == \
        Counter(t.country for t in TRIPS).most_common(3)
    assert ok("statistics.mean(t.cost_usd for t in trips)") == \
        statistics.mean(t.cost_usd for t in TRIPS)
    assert ok("[t for t in trips if t.return_date and t.return_date > date(2025,1,1)]") == \
        [t for t in TRIPS if t.return_date and t.return_date > date(2025, 1, 1)]
    assert ok("(passport.expiry_date - date.today()).days") == \
        (PASSPORT.expiry_date - date.today()).days


@pytest.mark.parametrize(("expression", "expected"), [
    ("len(trips)", 60),
    ("sum(m.price for m in meals)", sum(m.price for m in MEALS)),
    ("{t.country: len(t.destination) for t in trips[:2]}", {"France": 5, "Japan": 5}),
    ("sorted(trips, key=lambda t: -t.cost_usd)[0].fact_ids", [60]),
    ("[d.isoformat() for d in [date(2024, 2, 29)]]", ["2024-02-29"]),
    ("'-'.join(t.country.upper()[:2] for t in trips[:3])", "FR-JA-PE"),
    ("f'{len(trips)} trips, {trips[0].cost_usd:.1f} usd'", "60 trips, 50.0 usd"),
    ("sum((t.return_date - t.departure_date for t in trips if t.return_date), timedelta())",
     sum((t.return_date - t.departure_date for t in TRIPS if t.return_date), timedelta())),
    ("[x for x in reversed(range(3))]", [2, 1, 0]),
    ("dict(zip(['a', 'b'], [1, 2]))", {"a": 1, "b": 2}),
    ("list(enumerate('ab', 1))", [(1, "a"), (2, "b")]),
    ("Cuisine.THAI.value", "thai"),
    ("[m for m in meals if m.cuisine == Cuisine.ITALIAN][0].price", Decimal("10.50")),
    ("notes[0].replace('window', 'aisle')", "likes aisle seats"),
    ("round(2 ** 10 / 3, 2)", 341.33),
    ("(t.departure_date for t in trips[:2])", [TRIPS[0].departure_date, TRIPS[1].departure_date]),
    ("datetime(2024, 1, 2, 3, 4).date().weekday()", 1),
    ("{1, 2} | {3}", {1, 2, 3}),
    ("[_ for _ in range(2)]", [0, 1]),
    ("'abc' * 2 + 'x'.zfill(3)", "abcabc00x"),
])
def test_more_queries(expression: str, expected: object) -> None:
    assert ok(expression) == expected


def test_errors_say_what_and_where() -> None:
    result = evaluate("len(trips) +\n  trips[0].nope", namespace())
    assert isinstance(result, QueryFailure) and result.kind == "forbidden"
    assert (result.line, result.column) == (2, 3)
    assert "nope" in result.message
    result = evaluate("1 / 0", {})
    assert isinstance(result, QueryFailure) and result.kind == "runtime"
    assert "ZeroDivisionError" in result.message
    result = evaluate("len(", {})
    assert isinstance(result, QueryFailure) and result.kind == "syntax"


# --- escapes and floods ---------------------------------------------------

ATTACKS = [
    "().__class__.__bases__[0].__subclasses__()",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "(lambda: 0).__globals__",
    "__builtins__",
    "__import__('os')",
    "(x for x in []).gi_frame",
    "(x for x in []).gi_code",
    "(x for x in []).gi_frame.f_back",
    "[(x for x in []).gi_yieldfrom]",
    "'{0.__class__}'.format(1)",
    "'{x.__init__.__globals__}'.format_map({'x': trips[0]})",
    "str.format('{0.__class__}', 1)",
    "f'{trips[0]:{chr(95)}}'",
    "f'{1:>1000000}'",
    "getattr(trips[0], 'fact_ids')",
    "setattr(trips[0], 'cost_usd', 0)",
    "vars(trips[0])",
    "globals()",
    "locals()",
    "dir()",
    "type(trips[0])",
    "object.__subclasses__()",
    "super()",
    "open('SENTINEL', 'w')",
    "eval('1')",
    "exec('x = 1')",
    "compile('1', 'f', 'eval')",
    "breakpoint()",
    "help()",
    "input()",
    "date.__class__",
    "trips[0].__dict__",
    "trips[0].__reduce__()",
    "date.mro()",
    "date.today.__self__",
    "trips.append(1)",
    "trips.clear()",
    "trips[0].fact_ids.append(7)",
    "{'a': 1}.update(b=2)",
    "dict.update(passport.fact_ids, {})",
    "list.append(trips, 1)",
    "Counter(t.country for t in trips).__class__",
    "Counter(t.country for t in trips).update(['x'])",
    "statistics.__dict__",
    "statistics.sys",
    "statistics._sum",
    "(x := 1)",
    "[y for x in trips if (y := x)]",
    "import os",
    "lambda: (yield)",
    "'%s' % trips",
    "[1 for trips[0] in [1]]",
    "[1 for x.y in [1]]",
    "10**10**10",
    "2**1000000",
    "1 << 10**7",
    "'a' * 10**10",
    "[0] * 10**9",
    "[[0] * 1000] * 10**6",
    "((0,) * 10**6,) * 10**6",
    "list(range(10**12))",
    "sum(range(10**12))",
    "max(range(10**12))",
    "sorted(range(10**9))",
    "[1 for a in range(10**5) for b in range(10**5)]",
    "sum(1 for a in trips for b in range(10**5) for c in range(10**5))",
    "'x'.ljust(10**10)",
    "'x'.center(10**9)",
    "'ab'.replace('', 'x' * 10**5) .replace('x', 'y' * 10**5)",
    "''.join(['x' * 10**5] * 10**5)",
    "str([notes[0] * 10**4] * 10**5)",
    "(lambda f: f(f))(lambda f: f(f))",
    "(lambda f, n: f(f, n + 1) + f(f, n + 1))(lambda f, n: f(f, n + 1) + f(f, n + 1), 0)",
    "(lambda f, n: n and f(f, n - 1) + f(f, n - 1) or 1)"
    "(lambda f, n: n and f(f, n - 1) + f(f, n - 1) or 1, 60)",
    "(lambda f, s: f(f, s + s))(lambda f, s: f(f, s + s), 'x')",
    "len([trips[:] for _ in range(10**6)])",
    "[[0] * 10**5 for _ in range(10**5)]",
    "round(1, -10**8)",
    "statistics.quantiles(range(10), n=10**9)",
    "timedelta.max * 10**9",
    "sum([[1]] * 10, [])",
    "(" * 300 + "1" + ")" * 300,
    "[" * 150 + "1" + "]" * 150,
    "(" * 10_000 + "1" + ")" * 10_000,
    "-" * 100 + "1",
    "1" + "+1" * 600,
    "len('" + "x" * 3000 + "')",
    "smuggled(date, '__class__')",
    "fns[0](trips[0], 'fact_ids')",
    "evil.lower()",
    "trips[0].destination.format_map({})",
    "date.today().__class__.__subclasses__()",
    "list(zip(*[range(10**6)] * 1000))",
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_is_refused_or_stopped(attack: str, tmp_path: Path) -> None:
    sentinel = tmp_path / "sentinel"
    touched: list[str] = []

    class EvilStr(str):
        def lower(self) -> str:
            sentinel.write_text("pwned")
            touched.append("lower")
            return "x"

    names = {**namespace(), "smuggled": getattr, "fns": [getattr], "evil": EvilStr("A")}
    before = copy.deepcopy([TRIPS, PASSPORT, MEALS, names["notes"]])
    started = time.perf_counter()
    result = evaluate(attack.replace("SENTINEL", str(sentinel)), names,
                      time_limit_s=0.5, memory_limit_mb=128)
    elapsed = time.perf_counter() - started
    assert isinstance(result, QueryFailure), result
    assert elapsed < 2.0, (attack, elapsed)
    assert not sentinel.exists() and not touched
    assert [TRIPS, PASSPORT, MEALS, names["notes"]] == before


def test_there_are_at_least_forty_attacks() -> None:
    assert len(ATTACKS) >= 40


def test_default_limit_stops_a_long_query_within_two_seconds() -> None:
    started = time.perf_counter()
    result = evaluate("sum(1 for a in range(10**6) for b in range(10**6))", {})
    assert isinstance(result, QueryFailure) and result.kind == "timeout"
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize(("attack", "kind"), [
    ("getattr(1, 'real')", "forbidden"),
    ("'a' * 10**10", "memory"),
    ("[1 for a in range(10**5) for b in range(10**5)]", "timeout"),
    ("import os", "syntax"),
    ("trips[0].nope", "forbidden"),
])
def test_error_kinds(attack: str, kind: str) -> None:
    result = evaluate(attack, namespace(), time_limit_s=0.3)
    assert isinstance(result, QueryFailure) and result.kind == kind, result


# --- rendering ------------------------------------------------------------

def test_to_jsonable() -> None:
    value = {"trip": TRIPS[1], "when": datetime(2024, 1, 2, 3, 4), "price": Decimal("1.50"),
             "tags": {"b", "a"}, "pair": (1, date(2024, 1, 1)), "span": timedelta(days=2, hours=3),
             "cuisine": Cuisine.THAI, "counts": Counter({date(2024, 1, 1): 2})}
    assert to_jsonable(value) == {
        "trip": {"destination": "City1", "country": "Japan", "departure_date": "2023-01-24",
                 "return_date": "2023-01-25", "is_international": None, "cost_usd": 63.0, "fact_ids": [2]},
        "when": "2024-01-02T03:04:00", "price": "1.50", "tags": ["a", "b"],
        "pair": [1, "2024-01-01"], "span": "P2DT3H", "cuisine": "thai",
        "counts": {"2024-01-01": 2},
    }


def test_to_text() -> None:
    assert to_text(3.5) == "3.5"
    assert to_text(None) == "(none)"
    assert to_text(["a", "b"]) == "a, b"
    assert to_text(PASSPORT) == "Passport: number=X1, expiry_date=2031-05-01 [facts 99]"
    assert to_text([("France", 3)]) == "(France, 3)"
    assert to_text({"France": 3, "Peru": 1}) == "France: 3\nPeru: 1"
    assert to_text(TRIPS[:2]).startswith("- Trip: destination=City0")


def test_render_refuses_huge_shared_structures() -> None:
    nested: object = 1
    for _ in range(40):
        nested = (nested, nested)
    with pytest.raises(RenderTooLarge):
        to_jsonable(nested)
    with pytest.raises(RenderTooLarge):
        to_text(nested)

"""Checks a fixed namespace proves needless: left out only where proven, same results as the
guards give (tests/test_safe_eval.py runs all its answers and attacks both ways too)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date, datetime
from types import CodeType, SimpleNamespace

import pytest
import trip_module

from runtime import query_policy as P
from runtime.query_shapes import MAX_COMPILED, STR_RESULTS, NamespaceShapes
from runtime.query_worker import QueryWorker
from runtime.safe_eval import QueryFailure, QueryResult, QuerySuccess, evaluate

Trip = trip_module.Trip


class LoudTrip(Trip):
    """Same module as the records, so the guard adopts it; its property must still run."""

    @property
    def loud(self) -> str:
        return self.destination.upper()


@dataclass(frozen=True, kw_only=True)
class Profile:
    name: str
    born: date | datetime
    trips: list[Trip] = field(default_factory=list)


TRIPS = [Trip(destination=f"City{i}", country="Peru" if i % 2 else "Chile",
              departure_date=date(2023 + i % 3, 1 + i % 12, 1 + i % 28),
              return_date=date(2024, 2, 2) if i % 4 else None, cost_usd=10.0 + i, fact_ids=[i])
         for i in range(40)]
IMPOSTORS = [SimpleNamespace(cost_usd=1.0, departure_date=date(2024, 1, 1), fact_ids=[1])]
PROFILE = Profile(name="Ada", born=date(1990, 5, 1), trips=TRIPS[:2])


def namespace() -> dict[str, object]:
    return {"trips": TRIPS, "mixed": [*TRIPS[:3], LoudTrip(destination="x", country="y",
                                                          departure_date=date(2024, 1, 1))],
            "profile": PROFILE, "impostors": IMPOSTORS, "notes": ["a note", "B note"],
            "days": [date(2024, 1, 1), datetime(2024, 1, 2)], "Trip": Trip, "Profile": Profile}


def same(result: QueryResult) -> tuple[object, ...]:
    """What a caller sees, without the timing."""
    if isinstance(result, QuerySuccess):
        return ("ok", result.value)
    return (result.kind, result.message, result.line, result.column)


QUERIES = [
    "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)",
    "[t.return_date.year for t in trips]",  # None for some: the second read keeps its guard
    "[t.loud for t in mixed]",
    "[t.destination.lower() for t in mixed]",
    "[t.cost_usd for t in impostors]",
    "(lambda trips: [t.cost_usd for t in trips])(impostors)",
    "[t.cost_usd for trips in [impostors] for t in trips]",
    "[[t.cost_usd for t in trips] for trips in [impostors]]",
    "[t.cost_usd for t in trips for t in impostors]",
    "[(lambda t: t.cost_usd)(i) for t in trips for i in impostors]",
    "[(lambda t=t: t.cost_usd)() for t in trips]",
    "[[f for f in t.fact_ids] for t in trips][:3]",
    "{t.country: t.departure_date.isoformat() for t in trips}",
    "profile.name.upper()",
    "profile.born.year",
    "[t.destination for t in profile.trips]",
    "profile.trips[0].departure_date.month",
    "[d.year for d in days]",
    "[d.hour for d in days]",
    "[n.title() for n in notes]",
    "[n.replace('a', 'b') for n in notes]",
    "[n.format() for n in notes]",
    "[n.strip().upper().split() for n in notes]",
    "len([t for t in trips if t.destination.lower().startswith('c')])",
    "[t.destination.replace('C', 'K').lower().title() for t in trips]",
    "[t.destination.lower().format_map({}) for t in trips]",
    "[t.destination.lower().ljust(10**9) for t in trips]",
    "[t.departure_date.nope for t in trips]",
    "[t.nope for t in trips]",
    "[t.destination.format_map({}) for t in trips]",
    "max(trips, key=lambda t: t.cost_usd).destination",
    "sorted(trips, key=lambda t: (t.departure_date, t.destination), reverse=True)[0].fact_ids",
    "min(trips, key=lambda t: t.return_date.day)",  # None for some: the guard says so
    "max(impostors, key=lambda t: t.cost_usd)",
    "min(trips, trips, key=lambda t: t.cost_usd)",  # the key gets the lists
    "max(trips, key=lambda a, /, t=impostors[0]: t.cost_usd)",  # `t` is never the item
    "(lambda max: max(trips, key=lambda t: t.cost_usd))(lambda x, key: key(impostors[0]))",
    "[max(trips, key=lambda t: t.cost_usd) for trips in [impostors]]",
    "[t for t in trips if t.cost_usd > 1e9]",
    "f'{[t.country for t in trips][0]:>5}'",
    "sorted({t.country for t in trips})",
]


@pytest.mark.parametrize("query", QUERIES)
def test_results_are_the_guards_results(query: str) -> None:
    names = namespace()
    assert same(evaluate(query, names, shapes=NamespaceShapes(names))) == same(evaluate(query, names))


def _guard_calls(code: CodeType) -> set[str]:
    found = {n for n in code.co_names if n.startswith("_q_")}
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found |= _guard_calls(const)
    return found


@pytest.mark.parametrize(("query", "left"), [
    ("sum(t.cost_usd for t in trips if t.departure_date.year == 2024)", {"_q_call", "_q_loop"}),
    ("[t.return_date.year for t in trips]", {"_q_loop", "_q_attr"}),  # return_date may be None
    ("[t.loud for t in mixed]", {"_q_loop", "_q_attr"}),  # two classes: nothing proven
    ("[t.destination.lower() for t in trips]", {"_q_loop"}),
    ("[t.destination.replace('a', 'b') for t in trips]", {"_q_loop", "_q_method"}),  # bounded
    ("(lambda trips: [t.cost_usd for t in trips])(impostors)", {"_q_call", "_q_loop", "_q_attr"}),
    ("[t.cost_usd for t in trips for t in impostors]", {"_q_loop", "_q_attr"}),
    ("[(lambda t: t.cost_usd)(t) for t in trips]", {"_q_call", "_q_loop", "_q_attr"}),
    ("profile.born.year", set()),  # typed `date | datetime`: proven from the value, a date
    ("profile.name.upper()", set()),
    ("[n.title() for n in notes]", {"_q_loop"}),
    ("[d.year for d in days]", {"_q_loop", "_q_attr"}),
    ("impostors[0].cost_usd", {"_q_attr"}),
    ("len([t for t in trips if t.destination.lower().startswith('p')])", {"_q_call", "_q_loop"}),
    ("[n.strip().upper().split() for n in notes]", {"_q_loop"}),
    ("[t.destination.replace('a', 'b').lower() for t in trips]", {"_q_loop", "_q_method"}),
    ("[t.destination.split()[0].lower() for t in trips]", {"_q_loop", "_q_method"}),
    ("[t.cost_usd.conjugate().real for t in trips]", {"_q_loop", "_q_attr"}),
    ("[d.isoformat().lower() for d in days]", {"_q_loop", "_q_method"}),
    ("max(trips, key=lambda t: t.cost_usd).destination", {"_q_call", "_q_attr"}),
    ("sorted(trips, key=lambda t: t.departure_date.year)", {"_q_call"}),
    ("max(impostors, key=lambda t: t.cost_usd)", {"_q_call", "_q_attr"}),
    ("min(trips, trips, key=lambda t: t.cost_usd)", {"_q_call", "_q_attr"}),
    ("max(trips, key=lambda t, u=1: t.cost_usd)", {"_q_call", "_q_attr"}),
    ("max(trips, key=lambda a, /, t=impostors[0]: t.cost_usd)", {"_q_call", "_q_attr"}),
    ("max(trips, key=lambda t, *a, **k: t.cost_usd)", {"_q_call"}),
    ("(lambda max: max(trips, key=lambda t: t.cost_usd))(len)", {"_q_call", "_q_attr"}),
    ("(lambda trips: max(trips, key=lambda t: t.cost_usd))(impostors)", {"_q_call", "_q_attr"}),
])
def test_checks_are_left_out_only_where_proven(query: str, left: set[str]) -> None:
    names = namespace()
    assert _guard_calls(NamespaceShapes(names).compile(query).code) == left


def test_str_results_are_allowlisted_str_methods() -> None:
    assert STR_RESULTS <= P.READ_ATTRIBUTES[str]
    assert all(type(getattr(" Ab ", name)("x") if name.startswith("remove") else getattr(" Ab ", name)()) is str
               for name in STR_RESULTS)


def test_a_namespace_name_that_shadows_a_builtin_proves_no_key() -> None:
    names = {**namespace(), "sorted": lambda items, key: [key(i) for i in IMPOSTORS]}
    code = NamespaceShapes(names).compile("sorted(trips, key=lambda t: t.cost_usd)").code
    assert _guard_calls(code) == {"_q_call", "_q_attr"}


def test_proofs_are_lazy_and_kept() -> None:
    names = namespace()
    shapes = NamespaceShapes(names)
    first = shapes.compile("[t.cost_usd + t.departure_date.day for t in trips]")
    assert shapes.compile("[t.cost_usd + t.departure_date.day for t in trips]") is first
    assert set(shapes._fields) == {("trips", "departure_date")}  # what was read from
    assert not _guard_calls(first.code) - {"_q_loop", "_q_add"}
    for n in range(MAX_COMPILED + 5):
        shapes.compile(f"len(trips) + {n}")
    assert len(shapes._compiled) == MAX_COMPILED


@dataclass
class Shifty:
    """A field a property computes: its values are not proven, whatever they are now."""

    when: date
    cost: float = 0.0


setattr(Shifty, "when", property(lambda self: self.__dict__["_when"],
                                 lambda self, value: self.__dict__.__setitem__("_when", value)))


@dataclass(frozen=True, slots=True)
class Slotted:
    when: date


def test_a_field_a_property_computes_is_not_proven_a_slot_is() -> None:
    shapes = NamespaceShapes({"shifty": [Shifty(when=date(2024, 1, 1))],
                              "slotted": [Slotted(when=date(2024, 1, 1))]})
    assert _guard_calls(shapes.compile("[s.when.year for s in shifty]").code) == {"_q_loop", "_q_attr"}
    assert _guard_calls(shapes.compile("[s.cost.real for s in shifty]").code) == {"_q_loop"}
    assert _guard_calls(shapes.compile("[s.when.year for s in slotted]").code) == {"_q_loop"}


def test_a_list_that_is_not_exactly_a_list_proves_nothing() -> None:
    class Trips(list[Trip]):
        pass

    names = {"trips": Trips(TRIPS), "Trip": Trip}
    shapes = NamespaceShapes(names)
    assert shapes.items("trips") is None
    assert _guard_calls(shapes.compile("[t.cost_usd for t in trips]").code) == {"_q_loop", "_q_attr"}


def test_shapes_belong_to_one_namespace() -> None:
    names = namespace()
    with pytest.raises(ValueError, match="another namespace"):
        evaluate("len(trips)", dict(names), shapes=NamespaceShapes(names))


def test_a_rejected_query_is_rejected_the_same() -> None:
    names = namespace()
    for query in ("t.__class__", "len(", "(x := 1)", "import os"):
        shaped = evaluate(query, names, shapes=NamespaceShapes(names))
        assert isinstance(shaped, QueryFailure) and same(shaped) == same(evaluate(query, names))


def test_the_worker_child_answers_as_before() -> None:
    names = namespace()
    with QueryWorker(names) as worker:
        for query in QUERIES:
            got = worker.run(query)
            want = evaluate(query, names)
            if isinstance(want, QuerySuccess) and isinstance(got, QuerySuccess):
                assert got.value == want.value, query
            else:
                assert same(got) == same(want), query


def test_records_are_still_frozen_values() -> None:
    """The proofs rest on the namespace not changing: records are frozen, lists unreachable
    for writing (no mutating method is allowlisted)."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        TRIPS[0].cost_usd = 1.0  # type: ignore[misc]
    names = namespace()
    for query in ("trips.append(1)", "trips.clear()", "trips.sort()", "profile.trips.pop()"):
        result = evaluate(query, names, shapes=NamespaceShapes(names))
        assert isinstance(result, QueryFailure) and result.kind == "forbidden", query

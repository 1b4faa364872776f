"""Code answers cite the facts behind them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from runtime.citations import cite


@dataclass(frozen=True, kw_only=True)
class Trip:
    destination: str
    cost_usd: float
    fact_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Passport:
    expiry_date: date
    fact_ids: list[int] = field(default_factory=list)


NS: dict[str, object] = {
    "trips": [Trip(destination=f"C{i}", cost_usd=float(i), fact_ids=[i, i + 100]) for i in range(1, 61)],
    "passport": Passport(expiry_date=date(2030, 1, 1), fact_ids=[7, 9]),
    "Trip": Trip,
}


def test_returned_records_are_cited() -> None:
    value = [t for t in NS["trips"] if t.cost_usd < 3]  # type: ignore[attr-defined]
    assert cite("[t for t in trips if t.cost_usd < 3]", NS, value).fact_ids == (1, 2, 101, 102)


def test_a_plain_value_cites_the_records_it_read() -> None:
    assert cite("passport.expiry_date", NS, date(2030, 1, 1)).fact_ids == (7, 9)


def test_citations_are_capped_and_say_how_many_records_stood_behind() -> None:
    citation = cite("sum(t.cost_usd for t in trips)", NS, 1830.0, limit=50)
    assert len(citation.fact_ids) == 50 and citation.records == 60


def test_names_that_are_not_records_cite_nothing() -> None:
    assert cite("len(Trip.__name__)", NS, 4).fact_ids == ()

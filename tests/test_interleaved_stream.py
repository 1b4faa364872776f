"""The benchmarks' interleaved stream: a pure function of seed and position whose calendar
stays before a fixed `END` at every size, with only a small share of dates after it."""

from __future__ import annotations

import re
import sys
from datetime import date, timedelta

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

from interleaved import (  # noqa: E402
    END,
    LAST_DAY,
    LOOKAHEAD,
    PASSPORT_YEARS_DAYS,
    START,
    Draft,
    InterleavedLog,
    day_of,
)

ISO = re.compile(r"\d{4}-\d{2}-\d{2}")


def dated(draft: Draft) -> list[tuple[str, date]]:
    """Each (kind.field, date) a draft holds: date fields, datetimes by their day, valid_from."""
    _, kind, _, fields, valid_from, _ = draft
    found = [(f"{kind}.{name}", date.fromisoformat(value[:10])) for name, value in (fields or {}).items()
             if isinstance(value, str) and ISO.match(value)]
    if valid_from is not None:
        found.append(("note.valid_from", valid_from))
    return found


def window(position: int, count: int = 400) -> list[Draft]:
    """`count` facts as the stream writes them from `position` on (a fresh draw, the dates
    of that position: the calendar depends on the position only)."""
    return InterleavedLog(seed=9, position=position).drafts(count)


def test_the_stream_is_a_function_of_seed_and_position() -> None:
    whole = InterleavedLog(seed=4).take(700)
    parts = InterleavedLog(seed=4)
    assert parts.take(300) + parts.take(400) == whole
    assert InterleavedLog(seed=4).take(700) == whole
    assert InterleavedLog(seed=5).take(700) != whole


def test_the_calendar_never_passes_the_anchor() -> None:
    assert START + timedelta(days=LAST_DAY) == END
    days = [day_of(p) for p in range(0, 5_000_000, 997)]
    assert days == sorted(days) and max(days) == LAST_DAY
    assert day_of(1_000_000) == LAST_DAY > day_of(999_000)
    assert START + timedelta(days=day_of(300_000)) < END - timedelta(days=LOOKAHEAD)


def test_no_date_beyond_a_bounded_horizon_up_to_a_million_facts() -> None:
    latest: dict[str, date] = {}
    for position in [*range(0, 1_000_000, 50_000), 980_000, 999_600, 1_500_000]:
        for draft in window(position, 200):
            for name, day in dated(draft):
                latest[name] = max(latest.get(name, day), day)
    horizon = END + timedelta(days=LOOKAHEAD)
    passport = latest.pop("passport.expiry_date")
    assert passport <= END + timedelta(days=PASSPORT_YEARS_DAYS)
    assert max(latest.values()) <= horizon
    for written_on in ("expense.spent_on", "medication.start_date", "note.valid_from", "passport.issue_date"):
        assert latest[written_on] <= END, written_on
    assert END < latest["trip.departure_date"] <= END + timedelta(days=200)  # upcoming, within months


def test_only_a_small_share_of_a_million_facts_is_dated_after_the_anchor() -> None:
    values = upcoming = 0
    trips = upcoming_trips = 0
    for step in range(40):  # evenly over the first million positions
        for draft in window(step * 25_000 + 12_500, 300):
            for name, day in dated(draft):
                values += 1
                upcoming += day > END
                if name == "trip.departure_date":
                    trips += 1
                    upcoming_trips += day > END
    assert upcoming > 0 and upcoming / values < 0.03
    assert upcoming_trips / trips < 0.03


def test_a_300k_log_holds_nothing_after_the_anchor() -> None:
    for draft in window(299_600):
        for name, day in dated(draft):
            if name != "passport.expiry_date":
                assert day < END, (name, day)

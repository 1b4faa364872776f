"""factlog.relative_dates: a day of the month said alone."""

from __future__ import annotations

from datetime import date

import pytest

from factlog.relative_dates import next_month_day


@pytest.mark.parametrize(("day", "today", "expected"), [
    (25, date(2026, 3, 10), date(2026, 3, 25)),   # still ahead this month
    (5, date(2026, 3, 10), date(2026, 4, 5)),     # past: next month
    (10, date(2026, 3, 10), date(2026, 3, 10)),   # today
    (31, date(2026, 4, 10), date(2026, 5, 31)),   # April has no 31st
    (31, date(2026, 12, 31), date(2026, 12, 31)),
    (30, date(2026, 1, 31), None),                # neither January (past) nor February has it
])
def test_a_day_of_the_month_alone_is_the_next_such_day(day: int, today: date, expected: date | None) -> None:
    assert next_month_day(day, today) == expected

"""Record values become JSON in one place (`factlog.record_json`); the diff and query
output agree, and a duration is ISO 8601 in both."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from factlog.record_json import iso_duration, record_json
from runtime.render_value import to_jsonable
from users.records import same_value, to_json, value_text


class Mode(enum.Enum):
    AIR = "air"


@dataclass
class Leg:
    mode: Mode
    start: datetime
    length: timedelta
    price: Decimal
    at: time
    on: date
    tags: set[str] = field(default_factory=set)
    fact_ids: list[int] = field(default_factory=list)


LEG = Leg(Mode.AIR, datetime(2025, 5, 1, 8, 30), timedelta(days=1, hours=2, minutes=5), Decimal("12.50"),
          time(7, 15), date(2025, 5, 1), {"b", "a"}, [3, 1])


def test_diff_and_query_render_a_record_the_same() -> None:
    expected = {"mode": "air", "start": "2025-05-01T08:30:00", "length": "P1DT2H5M", "price": "12.50",
                "at": "07:15:00", "on": "2025-05-01", "tags": ["a", "b"], "fact_ids": [3, 1]}
    assert record_json(LEG) == expected
    assert to_json(LEG) == expected  # the diff's rendering (was `str(timedelta)`: "1 day, 2:05:00")
    assert to_jsonable(LEG) == expected  # the query output's


def test_durations_are_iso_8601() -> None:
    assert to_json(timedelta(hours=3)) == "PT3H"
    assert value_text(timedelta(minutes=1, seconds=30.5)) == "PT1M30.5S"
    assert [iso_duration(d) for d in (timedelta(0), timedelta(days=-1), timedelta(days=2, seconds=1))] == [
        "P0D", "-P1D", "P2DT1S"]
    assert same_value(timedelta(days=1), timedelta(hours=24)) and not same_value(timedelta(1), timedelta(2))


def test_other_values_show_their_type_not_their_repr() -> None:
    assert record_json(object()) == "<object>"
    assert record_json(float("nan")) == "nan"
    assert record_json({date(2025, 1, 1): 1, (1, 2): 2}) == {"2025-01-01": 1, "1, 2": 2}

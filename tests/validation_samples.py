"""A small valid generated package in the contract's shape, shared by the validation tests."""

from __future__ import annotations

TRIP = '''"""Trips. Generated; do not edit."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import Enum


class Status(Enum):
    """Where a trip stands."""

    PLANNED = "planned"
    DONE = "done"


@dataclass(frozen=True, kw_only=True)
class Trip:
    """One trip."""

    destination: str
    departure_date: date | None = None
    status: Status = Status.PLANNED
    cost_usd: float | None = None
    fact_ids: list[int] = field(default_factory=list)
'''

TRIPS_000 = '''from __future__ import annotations

from datetime import date

from .trip import Status, Trip

trips_000: list[Trip] = [
    Trip(destination="Paris", departure_date=date(2024, 5, 1), status=Status.DONE, fact_ids=[1]),
    Trip(destination="Zürich", cost_usd=-12.5, fact_ids=[2]),
]
'''

TRIPS_001 = '''from __future__ import annotations

from .trip import Trip

trips_001: list[Trip] = [Trip(destination="Lima", fact_ids=[3])]
'''

NOTE = '''from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True, kw_only=True)
class Note:
    """A free-text fact that fits no class."""

    text: str
    dates: list[date] = field(default_factory=list)
    fact_ids: list[int] = field(default_factory=list)
'''

INIT = '''"""Typed memory of one user. Generated; do not edit."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from .note import Note as Note
from .trip import Status as Status, Trip as Trip
from .trips_000 import trips_000 as trips_000
from .trips_001 import trips_001 as trips_001

trips: list[Trip] = [*trips_000, *trips_001]
passport: None = None
budget: Decimal = Decimal("1200.50")
notes: list[Note] = [Note(text="Prefers aisle seats", dates=[date(2024, 1, 2)], fact_ids=[4])]
'''

LIVE_FACTS = frozenset({1, 2, 3, 4})


def valid_package() -> dict[str, str]:
    return {"__init__.py": INIT, "trip.py": TRIP, "trips_000.py": TRIPS_000,
            "trips_001.py": TRIPS_001, "note.py": NOTE}

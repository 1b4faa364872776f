"""An interleaved log for benchmarks: facts of 8 kinds arriving in turn, as `uac add`
produces them over time (needs `tests/` on the path for `fact_helpers`)."""

from __future__ import annotations

from datetime import date, timedelta

from fact_helpers import make_fact

from factlog.model import Fact, JsonValue

CITIES = ["Paris", "Rome", "Tokyo", "Lima", "Oslo", "Cairo", "Quebec", "Zürich"]
KINDS = ["trip", "expense", "contact", "book", "medication", "event", "pet", "allergy"]


def interleaved_log(n: int, start: int = 1) -> list[Fact]:
    """Facts of 8 kinds in turn; every 10th a note, every 20th an update of an earlier entity."""
    facts = []
    day0 = date(2020, 1, 1)
    for i in range(start, start + n):
        kind = KINDS[i % len(KINDS)]
        if i % 10 == 0:
            facts.append(make_fact(i, f"Remember to call 'Sam' about \"plans\" #{i}", fields={"dates": [str(day0)]}))
        elif i % 20 == 5 and i > 200:
            facts.append(make_fact(i, "corrected", kind=kind, key=f"k{i - 160}", fields={"amount": i * 1.5}))
        else:
            day = day0 + timedelta(days=i % 2000)
            fields: dict[str, JsonValue] = {
                "name": f"{kind} {i}", "city": CITIES[i % len(CITIES)], "date": day.isoformat(),
                "amount": float(i % 900), "flag": i % 3 == 0, "code": f"{i % 40}C",
            }
            facts.append(make_fact(i, f"{kind} {i}", kind=kind, key=f"k{i}", fields=fields))
    return facts

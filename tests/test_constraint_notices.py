"""`uac alerts` says when a constraint ran on records that lack the fields it reads.

A bill file with `amount` (not `amount_usd`) got "unknown amount"; trips with `date` (not
`departure_date`) made `overlapping_trips` silently find nothing. Now each such case is one
notice per constraint and field, suggesting the likely source field for `--map`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from constraints import BUILTIN, run_constraints
from constraints.notices import FieldNotice, field_notices, suggest_source

Uac = Callable[..., Any]
USER = "nora"


def _records(tmp_path: Path, name: str, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _alerts(uac: Uac, *args: str) -> Any:
    r = uac("alerts", USER, *args, "--json")
    assert r.code == 0, (r.out, r.err)
    return json.loads(r.out)


def test_trips_with_date_but_no_departure_date_are_reported(uac: Uac, tmp_path: Path) -> None:
    trips = [{"destination": f"City {i}", "date": f"2031-03-{i + 1:02d}"} for i in range(8)]
    assert uac("ingest", USER, str(_records(tmp_path, "trips.jsonl", trips)), "--kind", "trip").code == 0
    assert uac("checkpoint", USER).code == 0
    data = _alerts(uac, "--now", "2030-01-01")
    notices = [n for n in data["notices"] if n["constraint"] == "overlapping_trips"]
    assert notices == [{
        "constraint": "overlapping_trips", "attribute": "trips", "field": "departure_date", "missing": 8,
        "total": 8, "suggested_source": "date",
        "message": "8 trips have no departure_date; map your field with --map date=departure_date",
    }]
    text = uac("alerts", USER, "--now", "2030-01-01")
    assert text.code == 0
    assert "8 trips have no departure_date; map your field with --map date=departure_date" in text.out
    readers = {n["constraint"] for n in data["notices"] if n["field"] == "departure_date"}
    assert readers == {"overlapping_trips", "schengen_90_180"}  # the constraints that ran and read the field
    assert text.out.count("no departure_date") == len(readers)  # one notice per constraint and field


def test_bills_with_amount_but_no_amount_usd_are_reported(uac: Uac, tmp_path: Path) -> None:
    bills = [{"payee": "Power Co", "amount": 120.5, "due_date": "2030-01-03"},
             {"payee": "Water Co", "amount": 30, "due_date": "2030-02-20"},
             {"payee": "Phone Co", "amount_usd": 45.0, "due_date": "2030-03-01"}]
    assert uac("ingest", USER, str(_records(tmp_path, "bills.jsonl", bills)), "--kind", "bill").code == 0
    assert uac("checkpoint", USER).code == 0
    data = _alerts(uac, "--now", "2030-01-01")
    assert "unknown amount" in data["raised"][0]["message"]
    assert [(n["constraint"], n["field"], n["missing"], n["total"], n["suggested_source"]) for n in data["notices"]] \
        == [("bills_due", "amount_usd", 2, 3, "amount")]
    assert data["notices"][0]["message"] == \
        "2 bills (of 3) have no amount_usd; map your field with --map amount=amount_usd"


def test_no_notice_when_every_record_has_the_fields(uac: Uac) -> None:
    for key, day in (("A", "2031-01-01"), ("B", "2031-02-01")):
        assert uac("add", USER, "trip", "--kind", "trip", "--key", key, "--field", f"departure_date={day}").code == 0
    assert uac("checkpoint", USER).code == 0
    assert _alerts(uac, "--now", "2030-01-01")["notices"] == []


@dataclass(frozen=True)
class Bill:
    payee: str | None = None
    amount_usd: float | None = None
    due_date: str | None = None
    total: float | None = None
    amount: float | None = None
    fact_ids: list[int] | None = None


@dataclass(frozen=True)
class Passport:
    number: str | None = None
    expiry_date: str | None = None
    expires: str | None = None


@dataclass(frozen=True)
class Trip:
    departure_date: str | None = None
    country: str | None = None


class Module:
    def __init__(self, **values: object) -> None:
        self.__dict__.update(values)


def test_suggestions_prefer_the_field_most_lacking_records_hold() -> None:
    lacking = [Bill(amount=1), Bill(total=2), Bill(amount=3, total=3)]
    assert suggest_source("amount_usd", lacking) == "amount"
    assert suggest_source("amount_usd", [Bill(total=2)]) == "total"
    assert suggest_source("amount_usd", [Bill(payee="x")]) is None  # payee is not like an amount
    assert suggest_source("amount_usd", [Bill(fact_ids=[1])]) is None  # provenance is never a source
    assert suggest_source("expiry_date", [Passport(expires="2030-01-01")]) == "expires"


def test_notice_wording_without_suggestion_and_for_one_record() -> None:
    single = FieldNotice("passport_expiry", "passport", "expiry_date", 1, 1, None)
    assert single.message == "the passport has no expiry_date; add it, or map the field that holds it " \
                             "with --map FIELD=expiry_date"
    one = FieldNotice("bills_due", "bills", "due_date", 1, 4, "due")
    assert one.message == "1 bill (of 4) has no due_date; map your field with --map due=due_date"


def test_notices_come_with_the_run_and_name_each_constraint_once() -> None:
    passport = Passport(number="X1", expires="2031-01-01")
    module = Module(passport=passport, bills=[Bill(payee="A", due_date="2030-01-01", amount=5.0)])
    result = run_constraints(module, datetime(2030, 1, 1), BUILTIN)
    found = [(n.constraint, n.field, n.source) for n in result.notices]
    # passport_valid_for_trips needs trips too: without them it does not run, so no notice
    assert found == [("passport_expiry", "expiry_date", "expires"), ("bills_due", "amount_usd", "amount")]
    with_trips = Module(passport=passport, trips=[Trip(departure_date="2030-05-01")])
    assert [(n.constraint, n.field) for n in field_notices(with_trips, BUILTIN)] == \
        [("passport_valid_for_trips", "expiry_date"), ("passport_expiry", "expiry_date")]
    assert field_notices(Module(), BUILTIN) == ()

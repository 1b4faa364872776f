"""Item 4 of issue 7: `--map old=new` renames fields before facts are made (records and `add`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from factlog.errors import InputError
from runtime.memory import Memory

Uac = Callable[..., Any]


def test_record_file_fields_are_mapped(uac: Uac, tmp_path: Path) -> None:
    path = tmp_path / "bills.jsonl"
    path.write_text('{"payee": "Gas", "amount": 40, "due": "2025-01-10"}\n', encoding="utf-8")
    r = uac("ingest", "me", str(path), "--kind", "bill", "--map", "amount=amount_usd", "--map", "due=due_date")
    assert r.code == 0, r.err
    [fact] = json.loads(uac("log", "me", "--json").out)
    assert fact["fields"] == {"payee": "Gas", "amount_usd": 40, "due_date": "2025-01-10"}


def test_add_fields_are_mapped(uac: Uac) -> None:
    r = uac("add", "me", "--kind", "trip", "--field", "date=2025-03-01", "--map", "date=departure_date", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["fields"] == {"departure_date": "2025-03-01"}
    r = uac("add", "me", "--kind", "trip", "--field", "date=2025-02-30", "--map", "date=departure_date")
    assert r.code == 2 and "departure_date" in r.err  # the mapped name is checked as canonical


@pytest.mark.parametrize("maps, message", [
    (["amount"], "has no '='"),
    (["amount="], "two non-empty names"),
    (["nope=x"], "there is no field 'nope' to rename"),
    (["amount=payee"], "'payee' is given twice"),
    (["amount=x", "payee=x"], "more than one field onto 'x'"),
])
def test_bad_mappings_are_one_line_and_write_nothing(uac: Uac, tmp_path: Path, maps: list[str], message: str) -> None:
    path = tmp_path / "bills.jsonl"
    path.write_text('{"payee": "Gas", "amount": 40}\n', encoding="utf-8")
    args = [a for m in maps for a in ("--map", m)]
    r = uac("ingest", "me", str(path), "--kind", "bill", *args)
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert "no such user" in uac("log", "me").err


def test_map_needs_a_record_file_for_transcripts(uac: Uac, tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}]}', encoding="utf-8")
    r = uac("ingest", "me", str(path), "--map", "a=b")
    assert r.code == 2 and "--map" in r.err


def test_api_field_map(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "bills.json"
    path.write_text('[{"payee": "Gas", "amount": 40, "id": "B1"}]', encoding="utf-8")
    mem = Memory.open(home)
    try:
        report = mem.ingest_records("me", path, "bill", "ref", field_map={"amount": "amount_usd", "id": "ref"})
        assert report.facts[0].fields == {"payee": "Gas", "amount_usd": 40, "ref": "B1"}
        assert report.facts[0].key == "B1"  # --key-field names the field after mapping
        fact = mem.add("me", kind="bill", fields={"amount": 5}, field_map={"amount": "amount_usd"})
        assert fact.fields == {"amount_usd": 5}
        with pytest.raises(InputError, match="need a kind"):
            mem.add("me", "text", field_map={"a": "b"})
    finally:
        mem.close()

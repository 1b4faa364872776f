"""Item 1 of issue 7: ingesting the same file again adds nothing and says so (`--again` forces).

A fact's source (`factlog.sources`) is stored in `fact_sources` with a primary key on
(user, source), so even ingests racing in separate processes cannot duplicate a file.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from runtime.memory import Memory

Uac = Callable[..., Any]

BILLS = [{"payee": "Gas", "amount_usd": 40, "due_date": "2025-01-10"},
         {"payee": "Water", "amount_usd": 20.5, "due_date": "2025-01-12"},
         {"payee": "Gas", "amount_usd": 40, "due_date": "2025-01-10"}]  # the same bill twice is two facts

TRANSCRIPT = {"sessions": [
    {"id": "s1", "timestamp": "2024-11-15 10:30:00", "messages": [
        {"role": "user", "content": "My email is sam@example.com and I fly to Oslo on 2025-02-03."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "My passport number is P1234567 and it expires on 2030-05-06."}]},
    {"id": "s2", "timestamp": "2024-11-16 09:00:00", "messages": [
        {"role": "user", "content": "The gym costs $45 a month."}]}]}


def write_bills(path: Path) -> Path:
    path.write_text("".join(json.dumps(b) + "\n" for b in BILLS), encoding="utf-8")
    return path


def count(uac: Uac, user: str = "me") -> int:
    return len(json.loads(uac("log", user, "--json").out))


def test_record_file_twice_adds_nothing_and_says_so(uac: Uac, tmp_path: Path) -> None:
    path = write_bills(tmp_path / "bills.jsonl")
    first = uac("ingest", "me", str(path), "--kind", "bill")
    assert first.code == 0 and "3 new facts" in first.out, first.err
    again = uac("ingest", "me", str(path), "--kind", "bill")
    assert again.code == 0, again.err
    assert "0 new facts; 3 already ingested from this file" in again.out
    assert count(uac) == 3
    r = uac("ingest", "me", str(path), "--kind", "bill", "--json")
    assert json.loads(r.out)["count"] == 0 and json.loads(r.out)["skipped"] == 3


def test_the_same_file_elsewhere_is_the_same_source(uac: Uac, tmp_path: Path) -> None:
    path = write_bills(tmp_path / "bills.jsonl")
    assert uac("ingest", "me", str(path), "--kind", "bill").code == 0
    copy = tmp_path / "copy" / "renamed.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    assert "0 new facts; 3 already" in uac("ingest", "me", str(copy), "--kind", "bill").out
    assert count(uac) == 3
    assert "3 new facts" in uac("ingest", "you", str(copy), "--kind", "bill").out  # per user


def test_again_forces_and_a_changed_file_is_a_new_source(uac: Uac, tmp_path: Path) -> None:
    path = write_bills(tmp_path / "bills.json")
    path.write_text(json.dumps(BILLS), encoding="utf-8")  # a JSON array: sources by index
    assert uac("ingest", "me", str(path), "--kind", "bill").code == 0
    assert "3 new facts" in uac("ingest", "me", str(path), "--kind", "bill", "--again").out
    assert count(uac) == 6
    assert "0 new facts; 3 already" in uac("ingest", "me", str(path), "--kind", "bill").out
    path.write_text(json.dumps(BILLS[:2]), encoding="utf-8")
    assert "2 new facts" in uac("ingest", "me", str(path), "--kind", "bill").out


def test_transcript_twice_adds_nothing(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(TRANSCRIPT), encoding="utf-8")
    mem = Memory.open(home)
    try:
        first = mem.ingest_transcript("me", path)
        assert len(first.facts) >= 3 and first.skipped == 0
        second = mem.ingest_transcript("me", path)
        assert second.facts == [] and second.skipped == len(first.facts)
        assert second.summary.startswith(f"0 new facts; {len(first.facts)} already ingested")
        forced = mem.ingest_transcript("me", path, again=True)
        assert len(forced.facts) == len(first.facts)
        assert len(list(mem.log("me"))) == 2 * len(first.facts)
    finally:
        mem.close()


def test_api_records_again_flag_and_forget_clears_sources(home: Path, tmp_path: Path) -> None:
    path = write_bills(tmp_path / "bills.jsonl")
    mem = Memory.open(home)
    try:
        assert len(mem.ingest_records("me", path, "bill").facts) == 3
        assert mem.ingest_records("me", path, "bill").skipped == 3
        assert len(mem.ingest_records("me", path, "bill", again=True).facts) == 3
        mem.forget("me")
        assert len(mem.ingest_records("me", path, "bill").facts) == 3  # forgotten: new again
    finally:
        mem.close()
    with sqlite3.connect(home / "facts.db") as db:
        assert db.execute("SELECT COUNT(*) FROM fact_sources WHERE user = 'me'").fetchone()[0] == 3


def test_concurrent_ingests_of_one_file_store_it_once(home: Path, tmp_path: Path) -> None:
    path = write_bills(tmp_path / "bills.jsonl")
    Memory.open(home).close()  # schema exists before the race
    code = "import sys; from runtime.cli import main; sys.argv[0] = 'uac'; main()"
    procs = [subprocess.Popen([sys.executable, "-c", code, "--home", str(home), "ingest", "me", str(path),
                               "--kind", "bill", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), results
    counts = sorted(json.loads(out)["count"] for out, _ in results)
    assert counts == [0, 0, 0, 3]
    mem = Memory.open(home)
    try:
        assert len(list(mem.log("me"))) == 3
    finally:
        mem.close()

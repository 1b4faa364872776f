"""benchmarks/bench_llm_tokens.py stays runnable: its fake model writes answers the llm
producer publishes, the reference's cut and never-seen count are right, the table prints,
and (slow) the whole script runs at a tiny size."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import bench_llm_tokens as bench  # noqa: E402

SCRIPT = REPO / "benchmarks" / "bench_llm_tokens.py"


def _request(prompt: str) -> dict[str, Any]:
    return {"messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": prompt}]}


def test_the_model_rewrites_every_class_module_and_places_free_text_trips() -> None:
    prompt = ("Package:\n- trips: Trip(...)\n\nRewrite these class modules (whole files, same names; keep every "
              "field exactly):\n\n### trip.py\nclass Trip:\n    pass\n\n### expense.py\nclass Expense:\n    pass\n"
              "\nNew free-text facts (batch 1 of 1); write records modules ...:\n(session of 2026-01-01)\n"
              "[7] I'm flying to Lima in May for the wedding.\n[8] Remember to call Ana about the car.")
    files = {f["name"]: f["source"] for f in json.loads(bench.model(_request(prompt)))["files"]}
    assert set(files) == {"trip.py", "expense.py", "trip_llm.py"}
    assert "def nights(self) -> int | None:" in files["trip.py"]
    assert files["expense.py"] == "class Expense:\n    pass\n"
    assert "Trip(destination='Lima', fact_ids=[7])," in files["trip_llm.py"]
    assert "[8]" not in files["trip_llm.py"] and "fact_ids=[8]" not in files["trip_llm.py"]


def test_the_stream_is_seeded_and_half_its_notes_are_free_text_trips() -> None:
    one, two = bench.Stream(9), bench.Stream(9)
    facts = one.take(400)
    assert [f.text for f in facts] == [f.text for f in two.take(400)]
    notes = [f for f in facts if f.kind is None and f.retracts is None]
    trips = [f for f in notes if bench.TRIP_TEXT.search(f.text)]
    assert one.trip_texts == len(trips) and 0.3 < len(trips) / len(notes) < 0.7
    assert len(one.lines) == 400 and one.lines[0].startswith("[1]") and one.lines[-1].startswith("[400]")


def test_the_reference_sees_whole_facts_up_to_the_cut() -> None:
    lines = [f"[{n:04d}] note I'm flying to Lima {'x' * 80}" for n in range(1, 1001)]
    packages = [(100, 4000), (250, 12000), (1000, 40000)]
    row = bench.reference(lines, packages)
    per_line = len(lines[0]) + 1
    seen = (bench.REFERENCE_CUT + 1) // per_line
    assert row["unseen"] == 1000 - seen == row["unseen_trip_texts"]
    assert row["in"] == (len(bench.SYSTEM) + bench.REFERENCE_CUT) // 4
    assert row["out"] == 12000 // 4  # the package for the facts it saw (250 <= seen < 1000)
    small = bench.reference(lines[:50], packages)
    assert small["unseen"] == 0 and small["out"] == 4000 // 4


def _row(facts: int, full: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"facts": facts, "a_in": 1000, "a_out": 100, "c_in": 8000, "c_out": 9000, "c_unseen": 0,
                           "c_unseen_trip_texts": 0, "incremental_s": 0.5, "compiler_s": 0.2, "facts_sent": 10}
    if full:
        row.update(b_in=5000, b_out=2000)
    return row


def test_the_summary_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [_row(n, n in (100, 1000)) for n in range(100, 1001, 50)]
    stream = bench.Stream(9)
    summary = bench.summarize(rows, [0.1, 0.3, 0.2], stream)
    assert summary["ratio_at_1000"] == pytest.approx(1100 / 17000)
    assert summary["full_sampled_at"] == [100, 1000]
    assert summary["medians"][0]["band"] == "101-1000" and summary["medians"][0]["steps"] == 18
    assert summary["validation_per_attempt_s"]["median"] == pytest.approx(0.2)
    bench.print_table(summary)
    out = capsys.readouterr().out
    assert "| 1,000 | 1,000 / 100 | 5,000 / 2,000 | 8,000 / 9,000 | 0.065 |" in out
    assert "At 1,000 facts: (a)/(c) = 0.065" in out


def test_a_bad_saved_run_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "run.json"
    bad.write_text("{not json")
    done = subprocess.run([sys.executable, str(SCRIPT), "--table-from", str(bad)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "cannot read" in done.stderr


@pytest.mark.slow
def test_the_script_runs_at_a_tiny_size() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--max", "200", "--full-every", "100", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert [r["facts"] for r in summary["rows"]] == [100, 150, 200]
    assert summary["full_sampled_at"] == [100, 200]
    for row in summary["rows"]:
        assert row["a_in"] > 0 and row["c_in"] > 0 and row["c_out"] > 0
    assert summary["rows"][-1]["a_in"] < summary["rows"][-1]["c_in"]

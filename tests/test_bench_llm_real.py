"""benchmarks/bench_llm_real.py stays runnable without the real model: the total it reports
(rates, repairs, fallbacks, facts, tokens, published / refused, safety counts), the progress
line per case, and (slow) a whole run of two cases against the scripted server through
`--base-url`, with its JSON report kept up to date in `--out`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from scripted_llm import ScriptedLLM

sys.path.insert(0, str(REPO / "benchmarks"))

import bench_llm_real as bench  # noqa: E402

ROW: dict[str, Any] = {
    "case": "01_x", "sessions": 1, "chunks": 2, "answered": 2, "not_sent": 0, "first_valid": 1, "after_reask": 0,
    "failed": 1, "facts": 30, "typed": 4, "text": 6, "fallback_raw": 20, "prompt_tokens": 100,
    "completion_tokens": 40, "calls": 3, "failed_calls": 0, "ingest_s": 12.5, "llm_outcome": "failed",
    "llm_repairs": 1, "llm_prompt_tokens": 50, "llm_completion_tokens": 10, "llm_s": 3.0, "messages_lost": 0,
    "proof": "last good kept", "tracebacks": []}


def test_the_total_counts_rates_versions_and_safety() -> None:
    published = {**ROW, "case": "02_y", "first_valid": 2, "failed": 0, "llm_outcome": "published",
                 "proof": "valid", "llm_repairs": 0}
    crashed = {"case": "03_z", "error": "RuntimeError: boom", "tracebacks": []}
    total = bench.summarize([ROW, published, crashed], 99.0)
    assert (total["cases"], total["published"], total["refused"], total["errors"]) == (3, 1, 1, 1)
    assert total["schema_valid_rate"] == 0.75 and total["first_answer_valid_rate"] == 0.75
    assert (total["llm_repairs"], total["fallback_raw"], total["facts"], total["failed"]) == (1, 40, 60, 1)
    assert total["tokens"] == 2 * (100 + 40 + 50 + 10) and total["seconds"] == 99.0
    assert (total["tracebacks"], total["invalid_published"], total["messages_lost"]) == (1, 0, 0)
    assert bench.summarize([{**ROW, "proof": "INVALID at mypy: []"}], 1.0)["invalid_published"] == 1


def test_one_progress_line_per_case() -> None:
    line = bench.progress_line(3, 20, ROW, 61.0)
    assert line.startswith("[3/20] 01_x: 2 of 2 chunks answered, 1 valid + 0 after re-ask, 1 kept raw")
    assert "checkpoint failed (1 repairs, last good kept)" in line and "\n" not in line
    assert "ERROR RuntimeError: boom" in bench.progress_line(1, 2, {"case": "c", "error": "RuntimeError: boom"}, 1)


def _transcript(name: str, facts: int) -> str:
    lines = [f"test_id: {name}", "conversation_histories:", f"- conversation_id: {name}",
             "  timestamp: '2024-11-12 09:00:00'", "  messages:"]
    for i in range(facts):
        lines += ["  - role: user", f"    content: My locker number at the gym is {100 + i}."]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_a_run_against_a_running_server_reports_every_case(
        tmp_path: Path, scripted_llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "01_gym.yaml").write_text(_transcript("gym", 3))
    (data / "02_pool.yaml").write_text(_transcript("pool", 2))
    monkeypatch.setenv("UAC_WARM", "off")  # the run sets it in this process; restored after

    def model(request: Any) -> str:
        if "atomic facts" in request["messages"][0]["content"]:
            return json.dumps({"facts": [{"message_index": 0, "text": "The user's gym locker is 100.",
                                          "subject": None, "kind": None, "fields": [], "valid_from": None,
                                          "valid_to": None, "entity": None}]})
        return "I would rather not write code."  # the checkpoint is refused; the compiler's version stays

    scripted_llm.respond = model
    out = tmp_path / "report.json"
    assert bench.main(["--data", str(data), "--base-url", scripted_llm.url, "--model", scripted_llm.model,
                       "--max-repairs", "0", "--out", str(out)]) == 0
    progress = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in progress] == ["[1/2] 01_gym", "[2/2] 02_pool"]
    report = json.loads(out.read_text())
    assert [r["case"] for r in report["cases"]] == ["01_gym", "02_pool"]
    total = report["total"]
    assert (total["cases"], total["answered"], total["schema_valid_rate"], total["failed"]) == (2, 2, 1.0, 0)
    assert (total["refused"], total["published"], total["tracebacks"], total["messages_lost"]) == (2, 0, 0, 0)
    assert total["invalid_published"] == 0 and total["facts"] == 5 and total["tokens"] > 0
    assert all(r["proof"] == "last good kept" for r in report["cases"])

"""What an ingest through a model costs on our side, against the offline ingest of the same
files in the same run, with the model's own time taken out: the scripted server
(tests/scripted_llm.py, 127.0.0.1) answers at once, citing every user message of the chunk
with one text fact (so the coverage fill adds nothing and every answer validates).

For each of `--rounds` rounds, into fresh workspaces, alternating: (a) `Memory.ingest_transcript`
offline, (b) the same with `llm=True`, over the layer-1 transcripts of the shared data
(`../shared/data/book_eval_layer1/*.yaml`, or `--data DIR`). Prints the median wall and CPU
seconds of each, the ratio b/a, and the tokens per session the prompts took (characters / 4),
split into the transcript text and the fixed part (instructions + vocabulary).

Run: .venv/bin/python benchmarks/bench_llm_extract.py [--rounds 5] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripted_llm import ScriptedLLM  # noqa: E402

from runtime.memory import Memory  # noqa: E402

LINE = re.compile(r"^\[(\d+)\] user: ", re.M)


def answer(request: Any) -> str:
    body = request["messages"][1]["content"]
    facts = [{"message_index": int(i), "text": f"Message {i} of the user.", "subject": None, "kind": None,
              "fields": [], "valid_from": None, "valid_to": None, "entity": None} for i in LINE.findall(body)]
    return json.dumps({"facts": facts})


def ingest(files: list[Path], llm: bool) -> tuple[float, float, int, dict[str, float]]:
    """(wall s, CPU s, facts stored, usage totals) of ingesting `files` into a new workspace."""
    with tempfile.TemporaryDirectory() as home:
        mem = Memory.open(home)
        usage: dict[str, float] = {}
        stored = 0
        wall, cpu = time.perf_counter(), time.process_time()
        for n, path in enumerate(files):
            report = mem.ingest_transcript(f"u{n}", path, llm=llm)
            stored += len(report.facts)
            if report.extraction is not None:
                for key, value in report.extraction.usage.items():
                    usage[key] = usage.get(key, 0.0) + value
        result = (time.perf_counter() - wall, time.process_time() - cpu, stored, usage)
        mem.close()
        return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "book_eval_layer1")
    args = parser.parse_args()
    files = sorted(args.data.glob("*.yaml"))
    if not files:
        raise SystemExit(f"no transcripts in {args.data}")
    from factlog.transcripts import read_transcript

    sessions = [s for f in files for s in read_transcript(f)]
    text_chars = sum(len(m.content) for s in sessions for m in s.messages)
    with ScriptedLLM(respond=answer) as llm:
        os.environ.update(OPENAI_BASE_URL=llm.url, UAC_MODEL=llm.model)
        ingest(files[:1], True)  # imports and first-use costs out of the rounds
        ingest(files[:1], False)
        offline: list[tuple[float, float]] = []
        model: list[tuple[float, float]] = []
        usage: dict[str, float] = {}
        facts = (0, 0)
        for _ in range(args.rounds):
            a = ingest(files, False)
            b = ingest(files, True)
            offline.append(a[:2])
            model.append(b[:2])
            facts, usage = (a[2], b[2]), b[3]
    med = [statistics.median(x[i] for x in runs) for runs in (offline, model) for i in (0, 1)]
    print(f"{len(files)} files, {len(sessions)} sessions, {sum(len(s.messages) for s in sessions)} messages; "
          f"{args.rounds} rounds")
    print(f"(a) offline ingest: median {med[0]:.3f} s wall, {med[1]:.3f} s CPU; {facts[0]} facts")
    print(f"(b) --llm ingest:   median {med[2]:.3f} s wall, {med[3]:.3f} s CPU; {facts[1]} facts; "
          f"{int(usage.get('calls', 0))} calls")
    print(f"ratio b/a: {med[2] / med[0]:.2f}x wall, {med[3] / med[1]:.2f}x CPU; "
          f"per session (b - a): {(med[2] - med[0]) / len(sessions) * 1000:.1f} ms wall")
    prompt = usage.get("prompt_tokens", 0.0)
    text_tokens = text_chars / 4
    print(f"prompt tokens per session: {prompt / len(sessions):.0f} (transcript text {text_tokens / len(sessions):.0f}, "
          f"fixed part {(prompt - text_tokens) / max(1, usage.get('calls', 1)):.0f} per call); "
          f"completion tokens per session: {usage.get('completion_tokens', 0) / len(sessions):.0f}")


if __name__ == "__main__":
    main()

"""Tokens per checkpoint of the llm producer as the log grows, against the reference approach.

A log grows from `--start` to `--stop` facts in steps of `--step` new facts (60% free text,
half of it naming a flight; 40% structured trips). After each step:
(a) ours, incremental: `uac checkpoint --producer llm` (the new facts only);
(b) ours, `--full` (every live free-text fact, in batches), in a second workspace with the same log;
(c) the reference approach, computed: the whole fact list in every prompt cut at 30,000
    characters, the whole module out (the fake model's records of every flight fact it saw,
    plus the class module), tokens = characters / 4; and how many flight facts it never
    sees (past the cut), so never structures.
The model is the scripted server (tests/scripted_llm.py) with a reply function that writes
what a good model would; tokens are the server's characters / 4. Also the seconds the
validation (safety + mypy + import + coverage) adds per llm attempt, median.

Run: .venv/bin/python benchmarks/bench_llm_tokens.py [--start 100 --stop 1000 --step 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from scripted_llm import ScriptedLLM  # noqa: E402
from test_llm_producer import good_model, serve, trips_from_facts  # noqa: E402

from codegen.llm.producer import LlmProducer  # noqa: E402
from runtime.memory import Memory  # noqa: E402
from users.checkpoint import Published  # noqa: E402

REFERENCE_CUT = 30_000
STAGES = ("safety", "mypy", "import", "coverage")


def add_facts(mems: list[Memory], start: int, count: int) -> list[str]:
    """Add facts start..start+count-1 to every workspace; their lines as the reference sends them."""
    lines = []
    for n in range(start, start + count):
        if n % 5 < 2:
            fields = {"destination": f"City{n}", "ref": f"T-{n}",
                      "departure_date": f"20{10 + n % 15}-0{1 + n % 9}-1{n % 9}"}
            for mem in mems:
                mem.add("bench", kind="trip", fields=dict(fields))
            lines.append(f"[{n + 1}] (t) trip {fields}")
        else:
            text = f"I'm flying to Place{n} in the spring, for the conference number {n}." if n % 5 < 4 \
                else f"Remark {n}: the garden needs water and the neighbour's cat is back again."
            for mem in mems:
                mem.add("bench", text)
            lines.append(f"[{n + 1}] (t) {text}")
    return lines


def reference(all_lines: list[str], class_module: str) -> tuple[int, int, int]:
    """(prompt tokens, completion tokens, flight facts never seen) of the reference approach:
    the fact list cut at REFERENCE_CUT characters in; out, the whole module again: the class
    module and one record line per fact it saw (a structured trip, a flight, or a note)."""
    text = "\n".join(all_lines)
    seen = text[:REFERENCE_CUT]
    prompt = (len(seen) + 2000) // 4  # the instructions, about 2,000 characters
    out = len(class_module)
    for line in seen.split("\n"):
        fact_id, _, body = line.partition("] (t) ")
        if body.startswith("trip {"):
            out += len(f"    Trip({body[5:]}, fact_ids=[{fact_id[1:]}]),")
        elif "flying to" in body:
            out += len(trips_from_facts(line) or "") - len("from .trip import Trip\n\n_trips_llm: list[Trip] = [\n]\n")
        else:
            out += len(f"    Note(text={body!r}, dates=[], fact_ids=[{fact_id[1:]}]),")
    missed = sum(1 for line in text[REFERENCE_CUT:].split("\n") if "flying to" in line)
    return prompt, out // 4, missed


def reference_only(start: int, stop: int, step: int) -> None:
    """Column (c) alone (no checkpoint runs), with a fixed class module of 1,000 characters."""
    lines: list[str] = []
    size = 0
    while size < stop:
        count = start if size == 0 else step
        lines += add_facts([], size, count)
        size += count
        c_in, c_out, missed = reference(lines, "x" * 1000)
        print(f"{size:>6} | (c) {c_in:>6} / {c_out:>6} | unseen flights {missed}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--start", type=int, default=100)
    parser.add_argument("--stop", type=int, default=1000)
    parser.add_argument("--step", type=int, default=50)
    parser.add_argument("--reference-only", action="store_true", help="print column (c) only")
    args = parser.parse_args()
    if args.reference_only:
        reference_only(args.start, args.stop, args.step)
        return
    root = Path(tempfile.mkdtemp(prefix="bench-llm-"))
    with ScriptedLLM() as llm:
        os.environ["OPENAI_BASE_URL"], os.environ["UAC_MODEL"] = llm.url, llm.model
        serve(llm, good_model)
        inc, full, comp = Memory.open(root / "inc"), Memory.open(root / "full"), Memory.open(root / "comp")
        lines: list[str] = []
        totals = {"a": [0, 0], "b": [0, 0], "c": [0, 0]}
        validation: list[float] = []
        seconds: dict[str, list[float]] = {"llm": [], "compiler": []}
        print(f"{'facts':>6} | {'(a) incremental in/out':>22} | {'(b) --full in/out':>18} | "
              f"{'(c) reference in/out':>20} | (c) unseen | out (a)/(c)")
        size = 0
        try:
            while size < args.stop:
                count = args.start if size == 0 else args.step
                lines += add_facts([inc, full, comp], size, count)
                size += count
                row = {}
                started = time.perf_counter()
                baseline = comp.checkpoint("bench")  # the compiler on the same log: the same-run baseline
                seconds["compiler"].append(time.perf_counter() - started)
                assert isinstance(baseline, Published), baseline
                for key, mem, producer in (("a", inc, LlmProducer()), ("b", full, LlmProducer(full=True))):
                    started = time.perf_counter()
                    result = mem.checkpoint("bench", producer)
                    if key == "a":
                        seconds["llm"].append(time.perf_counter() - started)
                        inc_version = result.version.number if isinstance(result, Published) else 0
                    assert isinstance(result, Published), result
                    usage = result.version.meta.usage
                    row[key] = (int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)))
                    validation.append(sum(result.timings.get(s, 0.0) for s in STAGES))
                class_module = inc.versions.files("bench", inc_version)["trip.py"]
                c_in, c_out, missed = reference(lines, class_module)
                row["c"] = (c_in, c_out)
                for key in totals:
                    totals[key][0] += row[key][0]
                    totals[key][1] += row[key][1]
                print(f"{size:>6} | {row['a'][0]:>10} / {row['a'][1]:>9} | {row['b'][0]:>8} / {row['b'][1]:>7} | "
                      f"{c_in:>9} / {c_out:>8} | {missed:>10} | {row['a'][1] / max(1, c_out):.3f}", flush=True)
        finally:
            inc.close()
            full.close()
            comp.close()
    print("cumulative in/out: " + ", ".join(f"({k}) {v[0]} / {v[1]}" for k, v in totals.items()))
    print(f"validation per llm attempt: median {statistics.median(validation):.3f} s over {len(validation)}")
    steps = seconds["llm"][1:] or seconds["llm"]  # the steps after the first build
    base = seconds["compiler"][1:] or seconds["compiler"]
    print(f"checkpoint wall, median over the steps: llm incremental {statistics.median(steps):.3f} s, "
          f"compiler {statistics.median(base):.3f} s, ratio {statistics.median(steps) / statistics.median(base):.2f}")


if __name__ == "__main__":
    main()

"""Tokens per checkpoint of the llm producer as the log grows, against the reference approach.

    .venv/bin/python benchmarks/bench_llm_tokens.py [--max 10000] [--start 100] [--step 50]
                                                    [--full-every 1000] [--seed 9] [--json]

The log is benchmarks/interleaved.py's stream (eleven structured kinds, updates, about 1 %
retractions, 22 % kind-less notes), in which a seeded half of the notes say a trip in free
text ("I'm flying to Lima in May for the wedding.") — the facts the model can structure.
The log grows to `--start` facts, then by `--step` new facts up to `--max`. After each step:

(a) ours, incremental: `Memory.checkpoint(user, LlmProducer())` (the new facts only);
(b) ours, `--full` (`LlmProducer(full=True)`: every class module and every live free-text
    fact), in a second workspace holding the same log, sampled at the first step, every
    multiple of `--full-every` facts (1,000) and the last (a rebuild at each of 200 steps is slow);
(c) the reference approach, computed: every checkpoint sends the whole fact list as text
    (`[id] day kind text {fields}`, after the instructions) cut at 30,000 characters, and
    receives the whole package back: its output is the text of our published package (every
    .py file) for the facts it saw (the package of the last step at or under that count);
    the facts past the cut it never structures.

The model is the scripted server (tests/scripted_llm.py) with a reply function that writes
what a good model would (tests/test_llm_producer.py's way): every class module shown, back
(`trip.py` with a `nights` property), and a `Trip` record for each free-text trip; every
checkpoint publishes. Tokens are the server's characters / 4. The compiler's checkpoint of
the same log in a third workspace is the same-run wall-time baseline. Validation per llm
attempt is the checkpoint's `timings` (safety + mypy + import + coverage) over its attempts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks")]

from interleaved import CITIES, MONTHS, NOTE_WORDS, InterleavedLog, as_fact  # noqa: E402
from scripted_llm import ScriptedLLM  # noqa: E402

from codegen.llm.producer import LlmProducer  # noqa: E402
from codegen.llm.prompts import SYSTEM  # noqa: E402
from runtime.memory import Memory  # noqa: E402
from users.checkpoint import Published  # noqa: E402

USER = "bench"
REFERENCE_CUT = 30_000
STAGES = ("safety", "mypy", "import", "coverage")
NIGHTS = '''
    @property
    def nights(self) -> int | None:
        """Nights away."""
        return (self.return_date - self.departure_date).days \\
            if self.return_date is not None and self.departure_date is not None else None
'''
TRIP_TEXT = re.compile(r"flying to (\w+)")


# -- the model ---------------------------------------------------------------------------

def _prompt(request: Any) -> str:
    return "\n".join(str(m.get("content", "")) for m in request["messages"] if m.get("role") == "user")


def _class_modules(prompt: str) -> dict[str, str]:
    """The class modules a prompt asks to rewrite: `### name` then the source."""
    if "Rewrite these class modules" not in prompt:
        return {}
    section = prompt.split("Rewrite these class modules", 1)[1].split("\nNew free-text facts", 1)[0]
    found = {}
    for block in section.split("\n### ")[1:]:
        name, _, source = block.partition("\n")
        found[name.strip()] = source.rstrip("\n") + "\n"
    return found


def model(request: Any) -> str:
    """A good model: every class module back (trip.py with `nights`), a Trip per free-text trip."""
    prompt = _prompt(request)
    files = {name: source.rstrip("\n") + "\n" + NIGHTS if name == "trip.py" else source
             for name, source in _class_modules(prompt).items()}
    records = []
    for match in re.finditer(r"^\[(\d+)\] (.*)$", prompt, re.MULTILINE):
        trip = TRIP_TEXT.search(match.group(2))
        if trip:
            records.append(f"    Trip(destination={trip.group(1)!r}, fact_ids=[{match.group(1)}]),")
    if records:
        files["trip_llm.py"] = "from .trip import Trip\n\n_trips_llm: list[Trip] = [\n" + "\n".join(records) + "\n]\n"
    return json.dumps({"files": [{"name": n, "source": s} for n, s in files.items()]})


# -- the log -----------------------------------------------------------------------------

class Stream:
    """The interleaved stream, half of its notes a free-text trip (seeded); the reference's lines."""

    def __init__(self, seed: int) -> None:
        self.log = InterleavedLog(seed)
        self.rng = random.Random(seed * 7919 + 1)
        self.lines: list[str] = []  # the reference's text of each fact, in order
        self.trip_texts = 0

    def take(self, count: int) -> list[Any]:
        facts = []
        for text, kind, key, fields, valid_from, retracts in self.log.drafts(count):
            if kind is None and retracts is None and self.rng.random() < 0.5:
                text = (f"I'm flying to {self.rng.choice(CITIES)[0]} in {self.rng.choice(MONTHS)} "
                        f"for the {self.rng.choice(NOTE_WORDS['t'])}.")
                self.trip_texts += 1
            fact = as_fact((text, kind, key, fields, valid_from, retracts))
            facts.append(fact)
            day = "" if valid_from is None else f" {valid_from.isoformat()}"
            body = f"retracts [{retracts}]" if retracts is not None else \
                f"{kind or 'note'} {text}" + (f" {json.dumps(fields)}" if fields else "")
            self.lines.append(f"[{len(self.lines) + 1}]{day} {body}")
        return facts


def package_chars(mem: Memory, number: int) -> int:
    return sum(len(text) for name, text in mem.versions.files(USER, number).items() if name.endswith(".py"))


def reference(lines: list[str], package_by_size: list[tuple[int, int]]) -> dict[str, int]:
    """The reference approach at this checkpoint: prompt and completion tokens, facts it never sees."""
    text = "\n".join(lines)
    seen = text[:REFERENCE_CUT]
    seen_facts, end = 0, 0
    for line in lines:  # a fact cut in the middle is not seen whole
        end += len(line) + (1 if seen_facts else 0)
        if end > REFERENCE_CUT:
            break
        seen_facts += 1
    out = max((chars for size, chars in package_by_size if size <= seen_facts), default=package_by_size[0][1])
    unseen = lines[seen_facts:]
    return {"in": (len(SYSTEM) + len(seen)) // 4, "out": out // 4, "unseen": len(unseen),
            "unseen_trip_texts": sum(1 for line in unseen if TRIP_TEXT.search(line))}


# -- the run -----------------------------------------------------------------------------

def _tokens(result: Published) -> tuple[int, int]:
    usage = result.version.meta.usage
    return int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))


def run(args: argparse.Namespace) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="uac-token-bench-"))
    stream = Stream(args.seed)
    rows: list[dict[str, Any]] = []
    validation: list[float] = []
    package_by_size: list[tuple[int, int]] = []
    with ScriptedLLM() as llm:
        os.environ["OPENAI_BASE_URL"], os.environ["UAC_MODEL"] = llm.url, llm.model
        llm.respond = model
        mems = [Memory.open(root / name) for name in ("inc", "full", "comp")]
        inc, full, comp = mems
        try:
            size, step = 0, 0
            while size < args.max:
                count = min(args.start if size == 0 else args.step, args.max - size)
                facts = stream.take(count)
                for mem in mems:
                    mem.facts.append(USER, facts)
                size += count
                row: dict[str, Any] = {"facts": size}
                started = time.perf_counter()
                baseline = comp.checkpoint(USER)
                row["compiler_s"] = time.perf_counter() - started
                assert isinstance(baseline, Published), baseline
                started = time.perf_counter()
                result = inc.checkpoint(USER, LlmProducer())
                row["incremental_s"] = time.perf_counter() - started
                assert isinstance(result, Published), result
                row["a_in"], row["a_out"] = _tokens(result)
                row["facts_sent"] = int(result.version.meta.usage.get("facts_sent", 0))
                attempts = max(1, len(result.version.meta.attempts))
                validation.append(sum(result.timings.get(s, 0.0) for s in STAGES) / attempts)
                package_by_size.append((size, package_chars(inc, result.version.number)))
                if step == 0 or size >= args.max or (args.full_every and size % args.full_every == 0):
                    started = time.perf_counter()
                    rebuilt = full.checkpoint(USER, LlmProducer(full=True))
                    row["full_s"] = time.perf_counter() - started
                    assert isinstance(rebuilt, Published), rebuilt
                    row["b_in"], row["b_out"] = _tokens(rebuilt)
                reference_row = reference(stream.lines, package_by_size)
                row.update({"c_in": reference_row["in"], "c_out": reference_row["out"],
                            "c_unseen": reference_row["unseen"], "c_unseen_trip_texts": reference_row["unseen_trip_texts"]})
                rows.append(row)
                step += 1
                if step == 1 or size % 1000 == 0 or size >= args.max:
                    print(f"  ... {time.strftime('%H:%M:%S')} {json.dumps(row)}", file=sys.stderr, flush=True)
        finally:
            for mem in mems:
                mem.close()
            shutil.rmtree(root, ignore_errors=True)
    return summarize(rows, validation, stream)


def _band(rows: list[dict[str, Any]], low: int, high: int) -> list[dict[str, Any]]:
    return [r for r in rows[1:] if low < r["facts"] <= high]  # the steps after the first build


def summarize(rows: list[dict[str, Any]], validation: list[float], stream: Stream) -> dict[str, Any]:
    top = rows[-1]["facts"]
    edges = [e for e in (100, 1000, 5000) if e < top] + [top]
    bands = list(zip(edges, edges[1:]))
    medians = []
    for low, high in bands:
        band = _band(rows, low, high)
        if band:
            medians.append({"band": f"{low + 1}-{high}", "steps": len(band),
                            **{k: statistics.median(r[k] for r in band)
                               for k in ("a_in", "a_out", "c_in", "c_out", "incremental_s", "compiler_s")}})
    cumulative = {k: sum(r[k] for r in rows) for k in ("a_in", "a_out", "c_in", "c_out")}
    sampled = [r for r in rows if "b_in" in r]
    at_1000 = next((r for r in rows if r["facts"] == 1000), None)
    upto_1000 = [r for r in rows if r["facts"] <= 1000]
    return {
        "rows": rows, "medians": medians, "cumulative": cumulative,
        "full_sampled_at": [r["facts"] for r in sampled],
        "ratio_at_1000": None if at_1000 is None else
        (at_1000["a_in"] + at_1000["a_out"]) / (at_1000["c_in"] + at_1000["c_out"]),
        "cumulative_ratio_to_1000": sum(r["a_in"] + r["a_out"] for r in upto_1000)
        / max(1, sum(r["c_in"] + r["c_out"] for r in upto_1000)),
        "cumulative_ratio": (cumulative["a_in"] + cumulative["a_out"]) / max(1, cumulative["c_in"] + cumulative["c_out"]),
        "c_unseen_at_end": rows[-1]["c_unseen"], "c_unseen_trip_texts_at_end": rows[-1]["c_unseen_trip_texts"],
        "trip_texts": stream.trip_texts,
        "validation_per_attempt_s": {"median": statistics.median(validation), "max": max(validation),
                                     "attempts": len(validation)},
    }


def print_table(summary: dict[str, Any]) -> None:
    print("| facts | (a) incremental in / out | (b) --full in / out | (c) reference in / out | (a)/(c) | "
          "(c) facts never seen (free-text trips) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in summary["rows"]:
        if "b_in" not in r and r["facts"] % 1000:
            continue
        full = f"{r['b_in']:,} / {r['b_out']:,}" if "b_in" in r else "—"
        ratio = (r["a_in"] + r["a_out"]) / (r["c_in"] + r["c_out"])
        print(f"| {r['facts']:,} | {r['a_in']:,} / {r['a_out']:,} | {full} | {r['c_in']:,} / {r['c_out']:,} | "
              f"{ratio:.3f} | {r['c_unseen']:,} ({r['c_unseen_trip_texts']:,}) |")
    print("\nMedians per checkpoint (steps of new facts after the first build):\n")
    print("| facts | steps | (a) in / out | (c) in / out | (a)/(c) | llm incremental s | compiler s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for m in summary["medians"]:
        print(f"| {m['band']} | {m['steps']} | {m['a_in']:,.0f} / {m['a_out']:,.0f} | {m['c_in']:,.0f} / "
              f"{m['c_out']:,.0f} | {(m['a_in'] + m['a_out']) / (m['c_in'] + m['c_out']):.3f} | "
              f"{m['incremental_s']:.3f} | {m['compiler_s']:.3f} |")
    c = summary["cumulative"]
    print(f"\nCumulative: (a) {c['a_in']:,} / {c['a_out']:,}, (c) {c['c_in']:,} / {c['c_out']:,}; "
          f"(a)/(c) {summary['cumulative_ratio']:.3f} (to 1,000 facts: {summary['cumulative_ratio_to_1000']:.3f})")
    if summary["ratio_at_1000"] is not None:
        print(f"At 1,000 facts: (a)/(c) = {summary['ratio_at_1000']:.3f}")
    print(f"(b) --full sampled at: {', '.join(f'{n:,}' for n in summary['full_sampled_at'])}")
    print(f"(c) never structures {summary['c_unseen_at_end']:,} facts at the end "
          f"({summary['c_unseen_trip_texts_at_end']:,} of the {summary['trip_texts']:,} free-text trips)")
    v = summary["validation_per_attempt_s"]
    print(f"Validation per llm attempt: median {v['median']:.3f} s, max {v['max']:.3f} s over {v['attempts']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--max", type=int, default=10_000, help="facts at the end (default 10,000)")
    parser.add_argument("--start", type=int, default=100, help="facts at the first checkpoint")
    parser.add_argument("--step", type=int, default=50, help="new facts per checkpoint")
    parser.add_argument("--full-every", type=int, default=1000,
                        help="(b) at every multiple of N facts, the first and the last step (0: those two only)")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--json", action="store_true", help="print the rows and the summary as JSON")
    parser.add_argument("--table-from", type=Path, help="print the table of a saved --json run, run nothing")
    args = parser.parse_args()
    if args.table_from is not None:
        try:
            print_table(json.loads(args.table_from.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as error:
            parser.exit(2, f"bench_llm_tokens: cannot read {args.table_from}: {error}\n")
        return
    if args.max < 1 or args.start < 1 or args.step < 1 or args.full_every < 0:
        parser.exit(2, "bench_llm_tokens: --max, --start and --step must be positive, --full-every not negative\n")
    summary = run(args)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print_table(summary)


if __name__ == "__main__":
    main()

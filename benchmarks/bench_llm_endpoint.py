"""What `codegen.llm.Endpoint` adds to a model call, against the bare `openai` client on the
same scripted server (tests/scripted_llm.py, 127.0.0.1) in the same run.

Per call, alternating in rounds: (a) `openai.OpenAI().chat.completions.create` as is, (b)
`Endpoint.complete_text` (attempt hooks, usage recorded), (c) `Endpoint.complete_json` with a
small pydantic schema answered validly first time (schema made strict, answer parsed and
validated). Prints the median wall and CPU milliseconds of each and the ratios to (a).

Run: .venv/bin/python benchmarks/bench_llm_endpoint.py [--calls 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import openai  # noqa: E402
from pydantic import BaseModel, ConfigDict  # noqa: E402
from scripted_llm import ScriptedLLM  # noqa: E402

from codegen.llm import Endpoint, EndpointConfig  # noqa: E402

ANSWER = '{"trips": [{"city": "Oslo", "nights": 3}, {"city": "Lima", "nights": 9}]}'
MESSAGES = [{"role": "system", "content": "You extract trips as JSON."},
            {"role": "user", "content": "I flew to Oslo for three nights, then Lima for nine. " * 20}]


class Trip(BaseModel):
    model_config = ConfigDict(extra="forbid")
    city: str
    nights: int


class Trips(BaseModel):
    model_config = ConfigDict(extra="forbid")
    trips: list[Trip]


def timed(fn, calls: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Milliseconds per call: (wall, CPU)."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn()
    return ((time.perf_counter() - wall) * 1000 / calls, (time.process_time() - cpu) * 1000 / calls)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with ScriptedLLM(respond=lambda request: ANSWER) as llm:
        raw = openai.OpenAI(base_url=llm.url, api_key="x", timeout=60, max_retries=2)
        ep = Endpoint(EndpointConfig(base_url=llm.url, api_key=None, model=llm.model))
        cases = {
            "openai client": lambda: raw.chat.completions.create(model=llm.model, messages=MESSAGES),  # type: ignore[arg-type]
            "complete_text": lambda: ep.complete_text(MESSAGES, purpose="bench"),
            "complete_json": lambda: ep.complete_json(MESSAGES, Trips, purpose="bench"),
        }
        for fn in cases.values():  # warm: connections, imports, schema caches
            fn()
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, fn in cases.items():
                results[name].append(timed(fn, args.calls))
    base_wall = statistics.median(w for w, _ in results["openai client"])
    base_cpu = statistics.median(c for _, c in results["openai client"])
    print(f"{args.rounds} rounds x {args.calls} calls; median per call")
    print(f"{'':16} {'wall ms':>8} {'cpu ms':>8} {'wall/a':>7} {'cpu/a':>7}")
    for name, rows in results.items():
        wall = statistics.median(w for w, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        print(f"{name:16} {wall:8.2f} {cpu:8.2f} {wall / base_wall:7.2f} {cpu / base_cpu:7.2f}")
    print(f"usage recorded: {int(ep.usage.totals()['calls'])} calls, "
          f"{int(ep.usage.totals()['prompt_tokens'])} prompt tokens")


if __name__ == "__main__":
    main()

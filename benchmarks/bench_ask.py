"""What `uac ask` costs beyond its model, and what the agent manifest costs, against the
same work without them, in the same run (a warm in-process `Memory`).

A user with `--records` trips and one record of nine other kinds (ten kinds), checkpointed
once. The scripted server (tests/scripted_llm.py, 127.0.0.1) answers every question at
once with the same expression, so what is timed is ours: (a) `Memory.query(expr)` — the
sandbox alone, the baseline; (b) `Memory.ask(question)` — manifest, prompt, one model call
through the endpoint, the same query, rendering and the facts it rests on; (e) the model
call alone (`Endpoint.complete_json`, the same prompt), so (b) - (a) - (e) is ask's own
work. And (c)
`Memory.manifest(user)` — the version's manifest (the baseline read); (d)
`Memory.agent_manifest(user)` — that plus the alert state and the text. Alternating in
rounds; prints median wall and CPU milliseconds, the ratios (b)/(a) and (d)/(c), the
manifest's characters and the prompt tokens of one question.

Run: .venv/bin/python benchmarks/bench_ask.py [--records 1000] [--calls 30] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from scripted_llm import ScriptedLLM  # noqa: E402

from codegen.llm import Endpoint, EndpointConfig  # noqa: E402
from runtime.ask import SYSTEM_PROMPT, ExpressionAnswer  # noqa: E402
from runtime.memory import Memory  # noqa: E402

USER = "bench"
EXPR = "sum(t.cost_usd for t in trips if t.cost_usd is not None and t.departure_date.year == 2024)"
OTHERS: dict[str, dict[str, Any]] = {
    "profile": {"full_name": "Ana Silva", "home_city": "Lisbon", "birth_date": "1990-02-03"},
    "passport": {"number": "X1", "country": "PT", "expiry_date": "2031-04-30"},
    "allergy": {"allergen": "penicillin", "severity": "severe", "person": "Mia"},
    "medication": {"name": "ibuprofen", "dose": "200 mg", "start_date": "2024-01-02"},
    "appointment": {"provider": "Dr. Lee", "start": "2024-05-01T09:00"},
    "payment": {"payee": "ACME", "amount_usd": 12.5, "scheduled_date": "2024-02-01"},
    "bill": {"payee": "Power Co", "amount_usd": 80, "due_date": "2024-02-15"},
    "vehicle": {"make": "Toyota", "model": "Yaris", "year": 2019},
    "event": {"title": "Lunch", "start": "2024-06-12T12:30"},
}


def timed(fn: Callable[[], object], calls: int) -> tuple[float, float]:
    """Milliseconds per call: (wall, CPU)."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn()
    return ((time.perf_counter() - wall) * 1000 / calls, (time.process_time() - cpu) * 1000 / calls)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    reply = json.dumps({"expression": EXPR, "answerable": True, "reason": "sums the 2024 trips"})
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM(lambda request: reply) as llm:
        os.environ.update(OPENAI_BASE_URL=llm.url, UAC_MODEL=llm.model, UAC_WARM="off")
        mem = Memory.open(Path(tmp) / "home")
        try:
            for i in range(args.records):
                mem.add(USER, f"trip {i}", kind="trip", key=f"t{i}", fields={
                    "destination": f"City {i % 97}", "departure_date": f"{2020 + i % 6}-0{1 + i % 9}-1{i % 10}",
                    "cost_usd": float(100 + i % 900)})
            for kind, fields in OTHERS.items():
                mem.add(USER, kind, kind=kind, fields=fields)
            started = time.perf_counter()
            mem.checkpoint(USER)
            print(f"{args.records} trips + 9 kinds: checkpoint {time.perf_counter() - started:.1f} s")
            first = mem.ask(USER, "How much did my 2024 trips cost?")
            assert first.answered and first.value == mem.query(USER, EXPR).value  # type: ignore[union-attr]
            text = mem.agent_manifest(USER).text
            print(f"agent manifest: {len(text)} characters; one question: "
                  f"{int(first.usage['prompt_tokens'])} prompt + {int(first.usage['completion_tokens'])} "
                  f"completion tokens (characters / 4)")
            endpoint = Endpoint(EndpointConfig.resolve())
            messages = [{"role": "system", "content": SYSTEM_PROMPT},
                        {"role": "user", "content": f"The user's module:\n{text}\n\nQuestion: q"}]
            cases: dict[str, Callable[[], object]] = {
                "a query": lambda: mem.query(USER, EXPR),
                "e model call": lambda: endpoint.complete_json(messages, ExpressionAnswer, purpose="ask"),
                "b ask": lambda: mem.ask(USER, "How much did my 2024 trips cost?"),
                "c manifest": lambda: mem.manifest(USER),
                "d agent_manifest": lambda: mem.agent_manifest(USER),
            }
            results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
            for _ in range(args.rounds):
                for name, fn in cases.items():
                    results[name].append(timed(fn, args.calls))
        finally:
            mem.close()
    medians = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
               for name, r in results.items()}
    for name, (wall, cpu) in medians.items():
        print(f"{name:<18} wall {wall:8.3f} ms   cpu {cpu:8.3f} ms")
    for new, base in (("b ask", "a query"), ("d agent_manifest", "c manifest")):
        print(f"{new} / {base}: wall x{medians[new][0] / medians[base][0]:.2f}, "
              f"cpu x{medians[new][1] / medians[base][1]:.2f}")
    rest = [medians["b ask"][i] - medians["a query"][i] - medians["e model call"][i] for i in (0, 1)]
    print(f"ask beyond its query and its model call: wall {rest[0]:.3f} ms, cpu {rest[1]:.3f} ms")


if __name__ == "__main__":
    main()

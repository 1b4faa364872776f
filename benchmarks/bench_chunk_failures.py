"""What one failed chunk costs: a long session extracted by a model whose middle chunk
answers garbage twice (invalid after the re-ask), then `--retry-failed` once the model
works. Against the scripted server (tests/scripted_llm.py), which counts tokens as
characters / 4.

Per run: the model's typed facts kept by the first ingest, the raw facts it stored, the
facts and prompt tokens of the retry, and the model requests of each step; medians over
`--repeat` runs. Run it on two checkouts one after the other (`PYTHONPATH=<other checkout>`)
for a same-run comparison: the code under test is whatever `runtime` imports.

    python benchmarks/bench_chunk_failures.py [--messages 400] [--repeat 3] [--json]
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

sys.path.append(str(Path(__file__).resolve().parent.parent / "tests"))

from scripted_llm import ScriptedLLM  # noqa: E402

USER = "u"


def transcript(messages: int) -> dict[str, Any]:
    return {"sessions": [{"id": "long", "timestamp": "2024-11-15 10:30:00", "messages": [
        {"role": "user", "content": f"I keep a jar of {i} red marbles on the shelf."} for i in range(messages)]}]}


class Model:
    """A typed fact for every message of a chunk; garbage for the chunk starting at `broken`."""

    def __init__(self, broken: int | None) -> None:
        self.broken = broken

    def __call__(self, request: Any) -> str:
        body = request["messages"][1]["content"]
        indices = [int(i) for i in re.findall(r"^\[(\d+)\] ", body, re.M)]
        if indices and indices[0] == self.broken:
            return "Sorry, I lost count of the marbles."
        return json.dumps({"facts": [{
            "message_index": i, "text": f"The user keeps a jar of {i} red marbles (model).", "subject": None,
            "kind": None, "fields": [{"name": "marbles", "value": i}], "valid_from": None, "valid_to": None,
            "entity": None} for i in indices]})


def one_run(messages: int) -> dict[str, float]:
    from runtime.memory import Memory

    broken = (messages // 80 // 2) * 80  # the middle chunk of 80 messages
    with ScriptedLLM() as llm, tempfile.TemporaryDirectory() as scratch:
        os.environ.update(OPENAI_BASE_URL=llm.url, UAC_MODEL=llm.model, UAC_WARM="off")
        path = Path(scratch) / "long.json"
        path.write_text(json.dumps(transcript(messages)))
        mem = Memory.open(Path(scratch) / "home")
        try:
            llm.respond = model = Model(broken)
            cpu = time.process_time()
            first = mem.ingest_transcript(USER, path, llm=True)
            first_cpu = time.process_time() - cpu
            facts = list(mem.log(USER))
            typed_kept = sum(1 for f in facts if f.text.endswith("(model)."))
            asked_first = len(llm.chat_requests)
            model.broken = None
            cpu = time.process_time()
            retry = mem.ingest_transcript(USER, path, llm=True, retry_failed=True)
            retry_cpu = time.process_time() - cpu
            after = list(mem.log(USER))
            assert first.extraction is not None and retry.extraction is not None
            return {"typed_kept": typed_kept, "raw_stored": len(facts) - typed_kept,
                    "first_requests": asked_first, "first_prompt_tokens": first.extraction.usage["prompt_tokens"],
                    "retry_requests": len(llm.chat_requests) - asked_first,
                    "retry_prompt_tokens": retry.extraction.usage["prompt_tokens"],
                    "retry_facts": len(after) - len(facts),
                    "typed_after_retry": sum(1 for f in after if f.text.endswith("(model).")),
                    "first_cpu_s": first_cpu, "retry_cpu_s": retry_cpu}
        finally:
            mem.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = [one_run(args.messages) for _ in range(args.repeat)]
    medians = {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}
    import runtime

    result = {"code": str(Path(runtime.__file__).resolve().parent.parent.name), "messages": args.messages,
              "repeat": args.repeat, "median": medians}
    print(json.dumps(result, indent=1 if args.json else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())

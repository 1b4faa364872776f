"""The llm producer against the scripted OpenAI-compatible server (tests/scripted_llm.py).

The fake model is a reply FUNCTION: it reads the prompt the producer sent (the class modules
to rewrite, the facts to place, the validator's message on a repair) and writes the answer
a model would, so each test states what the model does and checks what the checkpoint made
of it: real SQLite, real validation (allowlist, mypy --strict, import, coverage).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from scripted_llm import Reply, ScriptedLLM

from codegen.llm.producer import LlmProducer
from runtime.memory import Memory
from users.checkpoint import Failed, Published

Model = Callable[[str, str], dict[str, str]]  # (prompt, request kind) -> files

NIGHTS = '''
    @property
    def nights(self) -> int | None:
        """Nights away."""
        return (self.return_date - self.departure_date).days \\
            if self.return_date is not None and self.departure_date is not None else None
'''
BAD_NIGHTS = '''
    @property
    def nights(self) -> int:
        return self.return_date - self.departure_date
'''


def _prompt(request: Any) -> str:
    return "\n".join(str(m.get("content", "")) for m in request["messages"] if m.get("role") == "user")


def class_modules(prompt: str) -> dict[str, str]:
    """The class modules a prompt asks to rewrite: `### name` then the source."""
    found: dict[str, str] = {}
    if "Rewrite these class modules" not in prompt:
        return found
    section = prompt.split("Rewrite these class modules", 1)[1].split("\nNew free-text facts", 1)[0]
    for block in section.split("\n### ")[1:]:
        name, _, source = block.partition("\n")
        found[name.strip()] = source.rstrip("\n") + "\n"
    return found


def facts_in(prompt: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\[(\d+)\] \([^)]*\) (.*)$", prompt, re.MULTILINE)}


def with_property(source: str, method: str = NIGHTS) -> str:
    return source.rstrip("\n") + "\n" + method


def trips_from_facts(prompt: str) -> str | None:
    """A records module for every fact mentioning a flight (the good model's reading)."""
    records = []
    for fact_id, text in sorted(facts_in(prompt).items()):
        match = re.search(r"flying to (\w+)", text)
        if match:
            records.append(f"    Trip(destination={match.group(1)!r}, ref='LLM-{fact_id}', fact_ids=[{fact_id}]),")
    if not records:
        return None
    return "from .trip import Trip\n\n_trips_llm: list[Trip] = [\n" + "\n".join(records) + "\n]\n"


def good_model(prompt: str, purpose: str) -> dict[str, str]:
    files = {name: with_property(source) for name, source in class_modules(prompt).items() if name == "trip.py"}
    trips = trips_from_facts(prompt)
    if trips is not None:
        files["trip_llm.py"] = trips
    return files


def answer(files: dict[str, str]) -> str:
    return json.dumps({"files": [{"name": n, "source": s} for n, s in files.items()]})


def serve(llm: ScriptedLLM, model: Model) -> None:
    llm.respond = lambda request: answer(model(_prompt(request), "repair" if "The validator refused" in
                                                _prompt(request) else "write"))


def seed(mem: Memory, user: str = "sam") -> None:
    mem.add(user, kind="trip", fields={"destination": "Lisbon", "departure_date": "2024-03-08",
                                       "return_date": "2024-03-15", "ref": "T-1"})
    mem.add(user, kind="medication", fields={"name": "amoxicillin", "dose": "500 mg"})
    mem.add(user, "I'm flying to Tokyo on January 20th, 2027.")
    mem.add(user, "Hi there!")


def test_a_valid_module_first_time(mem: Memory, scripted_llm: ScriptedLLM) -> None:
    serve(scripted_llm, good_model)
    seed(mem)
    result = mem.checkpoint("sam", LlmProducer())
    assert isinstance(result, Published), result
    files = mem.versions.files("sam", result.version.number)
    assert "def nights(self) -> int | None:" in files["trip.py"]
    assert "_trips_llm" in files["__init__.py"]
    value = mem.query("sam", "[(t.destination, t.nights) for t in trips]")
    assert "Tokyo" in str(value) and "7" in str(value)
    assert result.version.meta.producer == "llm"
    usage = result.version.meta.usage
    assert usage["calls"] == 1 and usage["completion_tokens"] > 0
    # the free-text fact stays a note as well, and the typed record cites it
    assert "flying to Tokyo" in files["notes_000.py"]
    assert "fact_ids=[3]" in files["trip_llm.py"]

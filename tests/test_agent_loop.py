"""examples/agent_loop.py against the scripted OpenAI server: the model calls `query`
through `Memory.call_tool`, reads the result, corrects a bad call, and answers."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI
from scripted_llm import Reply, ScriptedLLM
from uac_home import USER, clone_home

from runtime.memory import Memory

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agent_loop.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("agent_loop", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> Reply:
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}
    return Reply(body={"id": call_id, "object": "chat.completion", "created": 0, "model": "scripted-model",
                       "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]})


def test_agent_loop_uses_memory_tools(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
                                      scripted_llm: ScriptedLLM) -> None:
    mem = Memory.open(clone_home(tmp_path_factory, tmp_path / "home"))
    scripted_llm.queue(_tool_call("c1", "query", {"expr": "trips"}),  # a bad call: the error goes back
                       _tool_call("c2", "query", {"expression": "len(trips)"}),
                       "You have taken 3 trips.")
    try:
        client = OpenAI(base_url=scripted_llm.url, api_key="none", max_retries=0)
        answer = _example().run(mem, USER, "How many trips have I taken?", client, scripted_llm.model)
    finally:
        mem.close()
    assert answer == "You have taken 3 trips."
    first, second, third = (r.json for r in scripted_llm.chat_requests)
    assert [t["function"]["name"] for t in first["tools"]][:3] == ["remember", "ingest_conversation", "query"]
    assert "trips: list[Trip]" in first["messages"][0]["content"]  # the manifest in the system prompt
    error = json.loads(second["messages"][-1]["content"])
    assert second["messages"][-1]["tool_call_id"] == "c1" and error["error"].startswith("query: expression:")
    result = json.loads(third["messages"][-1]["content"])
    assert third["messages"][-1]["tool_call_id"] == "c2" and result["value"] == 3

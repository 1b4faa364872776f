"""The agent tools' one table: OpenAI schemas (JSON Schema draft 2020-12), the dispatcher
(`Memory.call_tool`) round-tripping every tool, its scope, its errors and its result limit.

The seeded user is tests/uac_home.py's `alice` (v2: Lisbon, Chicago, Tokyo trips; a passport).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import jsonschema
import pytest
from scripted_llm import ScriptedLLM
from uac_home import USER, clone_home

from runtime.agent_tools import TOOLS, ToolBox, ToolError, openai_tools
from runtime.memory import Memory
from runtime.render_value import to_jsonable

Uac = Callable[..., Any]

# one valid call per tool (checkpoint last: it publishes v3 from the remembered facts)
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("remember", {"kind": "trip", "fields": {"destination": "Oslo", "departure_date": "2026-05-02"}}),
    ("remember", {"text": "I prefer aisle seats."}),
    ("ingest_conversation", {"session_id": "s-9", "messages": [
        {"role": "user", "content": "My passport expires on 2031-01-02."},
        {"role": "assistant", "content": "Noted."}]}),
    ("query", {"expression": "sorted(t.destination for t in trips)"}),
    ("ask", {"question": "How many trips?"}),
    ("recall", {"question": "aisle seats", "max_items": 3}),
    ("alerts", {"today": "2026-12-01"}),
    ("manifest", {"limit": 500}),
    ("history", {}),
    ("diff", {"a": 1, "b": 2}),
    ("checkpoint", {"today": "2026-12-01"}),
]


@pytest.fixture
def mem(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Any:
    memory = Memory.open(clone_home(tmp_path_factory, tmp_path / "home"))
    yield memory
    memory.close()


def _validator(name: str) -> jsonschema.Draft202012Validator:
    [schema] = [t["function"]["parameters"] for t in openai_tools() if t["function"]["name"] == name]
    return jsonschema.Draft202012Validator(schema)


def test_openai_schemas_are_valid_json_schema() -> None:
    tools = openai_tools()
    assert [t["function"]["name"] for t in tools] == [t.name for t in TOOLS]
    assert {t.name for t in TOOLS} == {name for name, _ in CALLS}
    for tool in tools:
        assert tool["type"] == "function" and tool["function"]["description"]
        schema = tool["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert "user" in schema["properties"]


def test_schema_and_dispatcher_agree_on_bad_arguments(mem: Memory) -> None:
    box = mem.tools([USER])
    for name, arguments in [("query", {}), ("query", {"expression": "1", "expr": 1}),
                            ("recall", {"question": "x", "max_items": 0}), ("manifest", {"limit": "big"}),
                            ("ingest_conversation", {"messages": []}), ("diff", {"a": -1})]:
        assert not _validator(name).is_valid(arguments), (name, arguments)
        with pytest.raises(ToolError, match=f"^{name}: "):
            box.call(name, arguments)
    assert json.loads(mem.call_tool("query", '{"expression": 1}', users=[USER]))["error"].startswith("query: ")


def test_dispatcher_round_trips_every_tool(mem: Memory, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(json.dumps({"expression": "len(trips)", "answerable": True, "reason": "counts"}))
    results: dict[str, Any] = {}
    for name, arguments in CALLS:
        assert _validator(name).is_valid(arguments), name
        text = mem.call_tool(name, json.dumps(arguments), users=[USER])
        result = json.loads(text)
        assert "error" not in result, (name, result)
        results[name] = result
    assert results["query"]["value"] == to_jsonable(mem.query(USER, "sorted(t.destination for t in trips)", 2).value)
    assert results["ask"]["value"] == 3 and results["ask"]["answered_by"] == "code"
    assert results["ingest_conversation"]["new_facts"] >= 1
    assert results["recall"]["items"][0]["text"] == "I prefer aisle seats."
    assert results["manifest"]["version"] == 2 and len(results["manifest"]["text"]) <= 500
    assert [v["version"] for v in results["history"]] == [1, 2]
    assert results["diff"]["from"] == 1 and results["diff"]["to"] == 2
    assert results["checkpoint"]["outcome"] == "published" and results["checkpoint"]["version"] == 3
    assert json.loads(mem.call_tool("query", '{"expression": "len(trips)"}', users=[USER]))["value"] == 4
    # the same conversation again adds nothing
    again = json.loads(mem.call_tool("ingest_conversation", json.dumps(CALLS[2][1]), users=[USER]))
    assert again["new_facts"] == 0 and again["skipped"] >= 1


def test_scope_is_checked_for_every_tool(mem: Memory) -> None:
    mem.add("bob", "Bob's secret.")
    head = len(list(mem.log("bob")))
    box = mem.tools([USER])
    for name, arguments in CALLS:
        with pytest.raises(ToolError, match="not served here"):
            box.call(name, {**arguments, "user": "bob"})
    assert len(list(mem.log("bob"))) == head
    with pytest.raises(ToolError, match="not served here"):
        box.read_resource("uac://users/bob/manifest")
    with pytest.raises(ToolError, match="name the user"):
        mem.tools([USER, "bob"]).call("history", {})
    with pytest.raises(ToolError, match="name the user"):
        mem.tools().call("history", {})
    assert mem.tools().call("history", {"user": "bob"}) == []  # unscoped: every user


def test_result_limit(mem: Memory) -> None:
    box = ToolBox(mem, [USER], max_chars=1000)
    with pytest.raises(ToolError, match="result too large: .* over the tool limit of 1,000"):
        box.call("query", {"expression": "'x' * 2000"})
    with pytest.raises(ToolError, match="result too large: over 100,000 values"):
        box.call("query", {"expression": "list(range(200000))"})
    assert box.call("query", {"expression": "len('x' * 2000)"})["value"] == 2000


def test_source_resource_is_cut_to_the_limit_with_a_note(mem: Memory) -> None:
    uri = f"uac://users/{USER}/source"
    files = mem.versions.files(USER, mem.versions.current(USER).number)  # type: ignore[union-attr]
    whole = "".join(f"# ==== {name}\n{text}\n" for name, text in sorted(files.items()))
    assert mem.tools([USER]).read_resource(uri) == whole  # under the limit: every file, uncut
    limit = 2500
    assert len(whole) > limit
    cut = ToolBox(mem, [USER], max_chars=limit).read_resource(uri)
    assert len(cut) <= limit
    body, note = cut[:cut.rindex("# ==== cut:")], cut[cut.rindex("# ==== cut:"):]
    assert whole.startswith(body) and body.startswith("# ==== ")
    assert note.count("\n") == 1 and note.endswith("\n")
    assert f"of {len(whole):,} characters shown (the limit is 2,500); left out: " in note
    shown = [line[7:] for line in body.splitlines() if line.startswith("# ==== ")]
    left = [name for name in sorted(files) if name not in shown]
    assert left and all(name in note for name in left[:5])
    assert ToolBox(mem, [USER], max_chars=limit).read_resource(uri) == cut  # deterministic


def test_unexpected_error_is_a_tool_error(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Memory, "diff", broken)
    result = json.loads(mem.call_tool("diff", "{}", users=[USER]))
    assert result == {"error": "diff: unexpected error: RuntimeError: disk on fire"}


def test_uac_tools_prints_the_schemas(uac: Uac) -> None:
    r = uac("tools", "--format", "openai")
    assert r.code == 0 and json.loads(r.out) == openai_tools()
    r = uac("tools", "--format", "mcp")
    assert r.code == 0 and [t["name"] for t in json.loads(r.out)] == [t.name for t in TOOLS]
    r = uac("tools", "--format", "yaml")
    assert r.code == 2 and r.err.strip() == "error: --format 'yaml': expected openai or mcp"

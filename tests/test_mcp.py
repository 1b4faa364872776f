"""`uac mcp`: an MCP client from the official SDK drives the real server (a subprocess) through
a whole session, over stdio and over streamable HTTP: remember -> checkpoint -> query -> ask
(the scripted OpenAI server) -> alerts -> diff, with bad arguments, an oversized result and
a cross-user attempt. One server per transport; each test runs its session in one go.

The seeded user is tests/uac_home.py's `alice` (v2: Lisbon, Chicago, Tokyo trips; a passport).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Callable

import pytest
from scripted_llm import ScriptedLLM
from uac_home import USER, clone_home

from runtime.memory import Memory

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

UAC = ["-c", "from runtime.cli import main; main()"]  # `uac` in this interpreter
OTHER = "bob"  # in the workspace, outside the server's scope


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    path = clone_home(tmp_path_factory, tmp_path / "home")
    mem = Memory.open(path)
    try:
        mem.add(OTHER, "Bob's secret: he is allergic to peanuts.")
    finally:
        mem.close()
    return path


def _env(home: Path, llm: ScriptedLLM) -> dict[str, str]:
    return {"UAC_HOME": str(home), "OPENAI_BASE_URL": llm.url, "UAC_MODEL": llm.model, "UAC_WARM": "off",
            "PYTHONPATH": os.pathsep.join(sys.path)}


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def _session(session: ClientSession, llm: ScriptedLLM, named: dict[str, str]) -> None:
    """`named`: the user argument every call passes ({} when the server serves one user)."""
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == {"remember", "ingest_conversation", "query", "ask", "recall", "alerts", "manifest",
                          "history", "diff", "checkpoint"}
    assert tools["query"].input_schema["additionalProperties"] is False

    async def call(name: str, **arguments: Any) -> Any:
        result = await session.call_tool(name, {**named, **arguments})
        assert not result.is_error, _text(result)
        return json.loads(_text(result))

    async def refused(name: str, **arguments: Any) -> str:
        result = await session.call_tool(name, {**named, **arguments})
        assert result.is_error, _text(result)
        return _text(result)

    fact = await call("remember", kind="trip", fields={"destination": "Oslo", "country": "Norway",
                                                       "departure_date": "2026-05-02", "cost_usd": 900.0})
    assert fact["kind"] == "trip" and fact["fact_id"] > 6

    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    checkpointed = await session.call_tool("checkpoint", named, progress_callback=on_progress)
    assert not checkpointed.is_error, _text(checkpointed)
    report = json.loads(_text(checkpointed))
    assert report["outcome"] == "published" and report["version"] == 3
    assert [v for v, _ in progress] == sorted(v for v, _ in progress) and len(progress) >= 2
    assert "published" in str(progress[-1][1])

    value = await call("query", expression="sorted(t.destination for t in trips)")
    assert value["value"] == ["Chicago", "Lisbon", "Oslo", "Tokyo"]

    llm.queue(json.dumps({"expression": "len(trips)", "answerable": True, "reason": "counts the trips"}))
    answer = await call("ask", question="How many trips have I taken?")
    assert answer["answered_by"] == "code" and answer["value"] == 4

    alerts = await call("alerts", today="2026-12-01")
    assert {"raised", "still_active", "resolved"} <= set(alerts)
    diff = await call("diff")
    assert diff["from"] == 2 and diff["to"] == 3 and diff["summary"]["records_added"] == 1

    # bad arguments: a missing field, an unknown one, a wrong type, an unknown tool: tool errors
    assert "expression" in await refused("query")
    assert "Extra inputs" in await refused("query", expression="1", expr="1")
    assert "max_items" in await refused("recall", question="trips", max_items="many")
    assert "unknown tool" in await refused("forget_everything")
    assert "forbidden" in await refused("query", expression="__import__('os').system('true')")
    # an oversized result: over the tool limit, and over the query result budget
    assert "result too large" in await refused("query", expression="'x' * 60000")
    assert "result too large" in await refused("query", expression="list(range(200000))")
    # another user: refused for reading and writing, whatever the tool
    for name, arguments in (("query", {"expression": "notes"}), ("recall", {"question": "peanuts"}),
                            ("remember", {"text": "Bob now likes peanuts"}), ("history", {})):
        message = await refused(name, user=OTHER, **arguments)
        assert "not served here" in message and "peanuts" not in message
    # the server still answers after all of that
    assert (await call("query", expression="len(trips)"))["value"] == 4

    resources = {str(r.uri) for r in (await session.list_resources()).resources}
    assert resources == {f"uac://users/{USER}/manifest", f"uac://users/{USER}/source"}
    manifest = await session.read_resource(f"uac://users/{USER}/manifest")
    assert "trips" in manifest.contents[0].text
    source = await session.read_resource(f"uac://users/{USER}/source")
    assert "Oslo" in source.contents[0].text
    with pytest.raises(Exception, match="not served here"):
        await session.read_resource(f"uac://users/{OTHER}/manifest")


def _run(client: Callable[[], AbstractAsyncContextManager[Any]], llm: ScriptedLLM, named: dict[str, str]) -> None:
    async def main() -> None:
        async with client() as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await _session(session, llm, named)

    asyncio.run(main())


def _facts_of(home: Path, user: str) -> int:
    mem = Memory.open(home)
    try:
        return len(list(mem.log(user)))
    finally:
        mem.close()


def test_stdio_session(home: Path, scripted_llm: ScriptedLLM) -> None:
    params = StdioServerParameters(command=sys.executable, args=[*UAC, "mcp", "--users", f"{USER},carol"],
                                   env=_env(home, scripted_llm), cwd=str(Path(__file__).resolve().parents[1]))
    _run(lambda: stdio_client(params), scripted_llm, {"user": USER})
    assert _facts_of(home, OTHER) == 1  # nothing written for the other user


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_http_session(home: Path, scripted_llm: ScriptedLLM) -> None:
    port = _free_port()
    process = subprocess.Popen([sys.executable, *UAC, "mcp", "--user", USER, "--http", str(port)],
                               env={**os.environ, **_env(home, scripted_llm)}, stderr=subprocess.PIPE, text=True,
                               cwd=str(Path(__file__).resolve().parents[1]))
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + 30
        line = ""
        while "serving MCP" not in line and time.monotonic() < deadline and process.poll() is None:
            line = process.stderr.readline()
        assert f"http://127.0.0.1:{port}/mcp" in line, line
        _run(lambda: streamable_http_client(f"http://127.0.0.1:{port}/mcp"), scripted_llm, {})
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert _facts_of(home, OTHER) == 1


def test_scope_and_port_are_checked(uac: Any) -> None:
    r = uac("mcp", "--user", "a", "--users", "b,c")
    assert r.code == 2 and r.err.count("\n") == 1 and "not both" in r.err
    r = uac("mcp", "--users", "a,,b")
    assert r.code == 2 and "none empty" in r.err
    r = uac("mcp", "--user", "../x")
    assert r.code == 2 and r.err.startswith("error:")

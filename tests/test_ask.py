"""`uac ask` / `Memory.ask` against the scripted OpenAI-compatible server, and `uac manifest`.

The seeded user (tests/uac_home.py, v2): trips Lisbon (fact 1, $1,320, 2024), Chicago
(fact 2, $540.50, 2024), Tokyo (fact 5, $1,480, 2027), a passport (fact 3), notes 4 and 6.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, Callable

import pytest
from scripted_llm import Reply, ScriptedLLM
from uac_home import DENTIST, PASSPORT, USER, clone_home

from runtime.memory import Memory

Uac = Callable[..., Any]
SUM_2024 = "sum(t.cost_usd for t in trips if t.cost_usd is not None and t.departure_date.year == 2024)"


def answer(expression: str, answerable: bool = True, reason: str = "scripted") -> str:
    return json.dumps({"expression": expression, "answerable": answerable, "reason": reason})


@pytest.fixture
def own(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")


def ask_json(uac: Uac, home: Path, question: str, *extra: str) -> Any:
    r = uac("--home", str(home), "ask", USER, question, *extra, "--json")
    assert r.code == 0, (r.out, r.err)
    return json.loads(r.out)


def test_sum_answered_by_code(uac: Uac, own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(answer(SUM_2024, reason="sums the 2024 trips"))
    data = ask_json(uac, own, "How much did my 2024 trips cost?")
    assert data["answered_by"] == "code" and data["value"] == 1860.5 and data["expression"] == SUM_2024
    assert data["rests_on"] == {"basis": "collections", "collections": ["trips"], "records": 3,
                                "fact_ids": [1, 2, 5]}
    assert data["recall"] is None and data["version"] == 2
    model = data["model"]
    assert model["name"] == scripted_llm.model and model["calls"] == 1 and model["prompt_tokens"] > 0
    assert model["completion_tokens"] > 0 and model["seconds"] >= 0
    # The model read the manifest, not the data.
    [request] = scripted_llm.chat_requests
    prompt = "\n".join(m["content"] for m in request.json["messages"])
    assert "trips: list[Trip] (3)" in prompt and "How much did my 2024 trips cost?" in prompt
    assert "Lisbon" not in prompt and PASSPORT["number"] not in prompt and DENTIST not in prompt
    assert request.json["response_format"]["type"] == "json_schema"


def test_text_output(uac: Uac, own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(answer(SUM_2024))
    r = uac("--home", str(own), "ask", USER, "2024 trip costs?")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "answer: 1860.5" and lines[1] == f"expression: {SUM_2024}"
    assert lines[2].startswith("rests on: facts 1, 2, 5 (all 3 record(s) of trips")
    assert lines[3].startswith(f"model {scripted_llm.model}: 1 call(s)")


def test_records_answer_rests_on_those_records(own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(answer("[t for t in trips if t.destination == 'Tokyo']"))
    mem = Memory.open(own)
    try:
        result = mem.ask(USER, "Which trip goes to Tokyo?")
    finally:
        mem.close()
    assert result.answered and [t.destination for t in result.value] == ["Tokyo"]  # type: ignore[attr-defined]
    assert result.rests_on is not None and result.rests_on.basis == "result"
    assert result.rests_on.fact_ids == (5,) and result.rests_on.records == 1
    assert result.usage["calls"] == 1


def test_failing_first_expression_is_fed_back(uac: Uac, own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(answer("sum(t.price for t in trips)"), answer(SUM_2024))
    data = ask_json(uac, own, "How much did my 2024 trips cost?")
    assert data["answered_by"] == "code" and data["value"] == 1860.5
    first, second = data["attempts"]
    assert first["expression"] == "sum(t.price for t in trips)" and "price" in first["error"]
    assert second["error"] is None and data["model"]["calls"] == 2
    requests = scripted_llm.chat_requests
    assert len(requests) == 2
    sent = requests[1].json["messages"]
    assert sent[:2] == requests[0].json["messages"][:2]  # the same system prompt and question
    assert json.loads(sent[2]["content"])["expression"] == "sum(t.price for t in trips)"
    assert first["error"] in sent[3]["content"]  # the sandbox's error, fed back


def test_result_over_budget_is_fed_back(own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(answer("list(range(150000))"), answer("```python\nlen(trips)\n```"))
    mem = Memory.open(own)
    try:
        result = mem.ask(USER, "How many trips?")
    finally:
        mem.close()
    assert result.answered and result.value == 3 and result.expression == "len(trips)"
    assert result.attempts[0].error is not None and result.attempts[0].error.startswith("result too large")
    assert result.attempts[0].error in scripted_llm.chat_requests[1].json["messages"][3]["content"]


def test_bare_expression() -> None:
    from runtime.ask import bare_expression

    assert bare_expression("  `len(trips)` ") == "len(trips)"
    assert bare_expression("```\nlen(trips)\n```") == "len(trips)"
    assert bare_expression("```python\nsum(x for x in [1])\n```") == "sum(x for x in [1])"
    assert bare_expression("f'{len(trips)}'") == "f'{len(trips)}'"
    assert bare_expression("`a` + `b`") == "`a` + `b`"


def test_hostile_expression_is_refused_and_never_runs(uac: Uac, own: Path, tmp_path: Path,
                                                      scripted_llm: ScriptedLLM) -> None:
    marker = tmp_path / "pwned"
    scripted_llm.queue(answer(f"__import__('os').system('touch {marker}')"),
                       answer("trips[0].__class__.__init__.__globals__['os'].system('id')"))
    data = ask_json(uac, own, "Where is my dentist?")
    assert not marker.exists()
    first, second = data["attempts"]
    assert first["error"].startswith("query forbidden") and "__import__" in first["error"]
    assert second["error"].startswith("query forbidden")
    assert data["answered_by"] == "recall" and data["value"] is None and data["rests_on"] is None
    assert "both expressions failed" in data["reason"]
    assert DENTIST in data["recall"]["context"]


def test_unanswerable_question_returns_recall_context(uac: Uac, own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(answer("", answerable=False, reason="only free-text notes could say"))
    data = ask_json(uac, own, "Who is my dentist?")
    assert data["answered_by"] == "recall" and data["expression"] is None
    assert data["reason"] == "only free-text notes could say"
    assert DENTIST in data["recall"]["context"]
    assert len(scripted_llm.chat_requests) == 1  # nothing to feed back
    scripted_llm.queue(answer("", answerable=False, reason="only free-text notes could say"))
    r = uac("--home", str(own), "ask", USER, "Who is my dentist?")  # the text form
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "code could not answer: only free-text notes could say" and lines[1] == "recall:"
    assert DENTIST in r.out


def test_invalid_structured_output_falls_back_to_recall(uac: Uac, own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue("I think you spent a lot.", '{"answer": 3}')  # prose, then wrong keys
    data = ask_json(uac, own, "Who is my dentist?")
    assert data["answered_by"] == "recall" and data["attempts"] == []
    assert "not a valid expression answer" in data["reason"]
    assert DENTIST in data["recall"]["context"]
    assert data["model"]["calls"] == 2  # the endpoint's one re-ask


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_model_server_down_one_line_exit_1(uac: Uac, own: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exit 1, not 2: the question and the user were fine (exit 2 means bad input); the
    command ran and could not reach its model, so the same command may work later."""
    monkeypatch.setenv("UAC_MODEL", "m")
    r = uac("--home", str(own), "ask", USER, "trip costs?", "--base-url", f"http://127.0.0.1:{_closed_port()}/v1")
    assert r.code == 1, (r.out, r.err)
    assert r.err.startswith("error: model endpoint http://127.0.0.1:") and r.err.count("\n") == 1, r.err
    assert "cannot connect" in r.err and "Traceback" not in r.err + r.out


def test_server_errors_exit_1_json(uac: Uac, own: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(Reply(status=500), Reply(status=500), Reply(status=500))
    r = uac("--home", str(own), "ask", USER, "trip costs?", "--json")
    assert r.code == 1 and json.loads(r.out)["exit"] == 1 and "HTTP 500" in r.err
    assert r.err.count("\n") == 1 and "Traceback" not in r.err


@pytest.mark.parametrize("args, needle", [
    (("ask", "nobody", "q"), "no such user 'nobody'"),
    (("ask", "../x", "q"), "user"),
    (("ask", USER, "   "), "the question is empty"),
    (("ask", USER, "x" * 2001), "limit 2,000"),
    (("manifest", "nobody"), "no such user 'nobody'"),
    (("manifest", USER, "--version", "9"), "9"),
    (("manifest", USER, "--limit", "199"), "greater than or equal to 200"),
])
def test_bad_input_one_line(uac: Uac, own: Path, scripted_llm: ScriptedLLM, args: tuple[str, ...],
                            needle: str) -> None:
    from conftest import one_error_line

    one_error_line(uac("--home", str(own), *args), needle)
    assert scripted_llm.chat_requests == []


def test_no_model_configured_one_line(uac: Uac, own: Path) -> None:
    from conftest import one_error_line

    one_error_line(uac("--home", str(own), "ask", USER, "trip costs?"), "no model configured")


def test_user_without_version(uac: Uac, home: Path, scripted_llm: ScriptedLLM) -> None:
    from conftest import one_error_line

    assert uac("add", "bob", "likes tea").code == 0
    one_error_line(uac("ask", "bob", "what does bob like?"), "no published version", "uac checkpoint bob")
    assert scripted_llm.chat_requests == []


def _tree(home: Path) -> dict[str, int]:
    """Every file and its mtime, but SQLite's own -wal/-shm files (a reader of a WAL
    database makes them, as `uac show` does)."""
    return {str(p.relative_to(home)): p.stat().st_mtime_ns for p in sorted(home.rglob("*"))
            if not p.name.endswith(("-wal", "-shm"))}


def test_manifest_command(uac: Uac, own: Path) -> None:
    before = _tree(own)
    r = uac("--home", str(own), "manifest", USER)
    assert r.code == 0, r.err
    assert _tree(own) == before  # it only reads
    assert r.out.startswith("v2: 3 collections, 6 records.") and "trips: list[Trip] (3)" in r.out
    assert "active alerts" not in r.out  # no constraint has run yet
    assert uac("--home", str(own), "alerts", USER, "--now", "2026-12-01").code == 0
    r = uac("--home", str(own), "manifest", USER, "--json")
    data = json.loads(r.out)
    assert data["version"] == 2 and data["alerts_version"] == 2 and data["user"] == USER
    assert data["collections"]["trips"]["size"] == 3 and len(data["alerts"]) == 1
    assert "active alerts (1):" in data["text"] and data["alerts"][0] in data["text"]
    old = uac("--home", str(own), "manifest", USER, "--version", "1", "--limit", "200").out
    assert old.startswith("v1: ") and len(old.rstrip("\n")) <= 200


def test_memory_agent_manifest(own: Path) -> None:
    mem = Memory.open(own)
    try:
        context = mem.agent_manifest(USER)
    finally:
        mem.close()
    assert context.version == 2 and context.text.startswith("v2: ") and context.alerts_version is None


def test_an_agent_manifest_below_its_minimum_is_refused(own: Path) -> None:
    from factlog.errors import InputError

    mem = Memory.open(own)
    try:
        with pytest.raises(InputError, match="limit 199 is below 200"):
            mem.agent_manifest(USER, limit=199)
    finally:
        mem.close()

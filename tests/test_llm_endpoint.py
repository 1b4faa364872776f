"""The model endpoint (codegen.llm), driven through the real `openai` client against the
scripted OpenAI-compatible server on 127.0.0.1 (tests/scripted_llm.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict
from scripted_llm import Reply, ScriptedLLM

from codegen.llm import (
    Endpoint,
    EndpointConfig,
    ModelRequestRefused,
    ModelUnavailable,
    NoModelConfigured,
    StructuredOutputError,
    Usage,
)
from codegen.llm.json_answer import extract_json, json_candidates, strict_schema
from factlog.errors import InputError, UacError
from runtime.settings import LlmSettings, Settings

REPO = Path(__file__).resolve().parents[1]
MESSAGES = [{"role": "system", "content": "You extract facts."}, {"role": "user", "content": "I flew to Oslo."}]


class Trip(BaseModel):
    model_config = ConfigDict(extra="forbid")
    city: str
    nights: int


class Facts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    trips: list[Trip]
    default: str | None = None  # a field named like a JSON Schema keyword


def endpoint(llm: ScriptedLLM, **config: float | int) -> Endpoint:
    return Endpoint(EndpointConfig(base_url=llm.url, api_key=None, model=llm.model, **config))  # type: ignore[arg-type]


def one_line(exc: BaseException, *needles: str) -> None:
    message = str(exc)
    assert "\n" not in message and "Traceback" not in message, message
    assert isinstance(exc, UacError)
    for needle in needles:
        assert needle in message, message


VALID = '{"trips": [{"city": "Oslo", "nights": 3}]}'


# -- structured output ------------------------------------------------------------------
def test_valid_json_first_time_sends_a_strict_schema_and_records_the_servers_usage(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(VALID)
    ep = endpoint(scripted_llm)
    facts = ep.complete_json(MESSAGES, Facts, purpose="extract")
    assert facts == Facts(trips=[Trip(city="Oslo", nights=3)])
    [request] = scripted_llm.chat_requests
    assert request.json["messages"] == MESSAGES and request.json["model"] == scripted_llm.model
    fmt = request.json["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert fmt["json_schema"]["name"] == "Facts"
    assert schema["additionalProperties"] is False and sorted(schema["required"]) == ["default", "trips"]
    assert schema["$defs"]["Trip"]["additionalProperties"] is False
    [call] = ep.usage.calls
    sent = sum(len(m["content"]) for m in MESSAGES)
    assert (call.purpose, call.ok, call.estimated, call.attempt, call.reask) == ("extract", True, False, 1, False)
    assert (call.prompt_tokens, call.completion_tokens) == (-(-sent // 4), -(-len(VALID) // 4))


@pytest.mark.parametrize("answer", [
    f"Sure! Here are the facts:\n```json\n{VALID}\n```\nAnything else?",
    f"```\n{VALID}\n```",
    f"The set {{a, b}} is not JSON; this is: {VALID} (done)",
    f"{VALID}\n\nI hope this helps, {{friend}}.",
    f"Trips found: [1] Oslo. Answer: {VALID}",  # an earlier value that does not validate
    f'```json\n{{"trips": "wrong"}}\n```\nSorry, corrected: {VALID}',
])
def test_json_wrapped_in_prose_or_fences_is_parsed_without_a_reask(scripted_llm: ScriptedLLM, answer: str) -> None:
    scripted_llm.queue(answer)
    assert endpoint(scripted_llm).complete_json(MESSAGES, Facts, purpose="extract").trips[0].city == "Oslo"
    assert len(scripted_llm.chat_requests) == 1


def test_wrong_keys_are_reasked_with_the_error_and_the_wrong_answer(scripted_llm: ScriptedLLM) -> None:
    wrong = '{"trip": [{"town": "Oslo", "nights": 3}]}'
    scripted_llm.queue(wrong, VALID)
    ep = endpoint(scripted_llm)
    assert ep.complete_json(MESSAGES, Facts, purpose="extract").trips == [Trip(city="Oslo", nights=3)]
    first, second = scripted_llm.chat_requests
    assert second.json["messages"][: len(MESSAGES)] == MESSAGES
    assistant, user = second.json["messages"][len(MESSAGES):]
    assert assistant == {"role": "assistant", "content": wrong}
    assert user["role"] == "user" and "trips: Field required" in user["content"]
    assert "trip: Extra inputs are not permitted" in user["content"]
    assert [c.reask for c in ep.usage.calls] == [False, True] and all(c.ok for c in ep.usage.calls)


def test_still_invalid_after_the_reask_raises_with_the_raw_answer(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue("I cannot help with that.", '{"trips": [{"city": "Oslo", "nights": "three"}]}')
    ep = endpoint(scripted_llm)
    with pytest.raises(StructuredOutputError) as caught:
        ep.complete_json(MESSAGES, Facts, purpose="extract")
    one_line(caught.value, "extract", "Facts", "after one re-ask", "trips.0.nights")
    assert caught.value.raw == '{"trips": [{"city": "Oslo", "nights": "three"}]}'
    assert "trips.0.nights" in caught.value.errors
    assert "no JSON" in scripted_llm.chat_requests[1].json["messages"][-1]["content"]
    assert len(scripted_llm.chat_requests) == 2 and ep.usage.totals()["calls"] == 2


def test_a_server_without_structured_output_falls_back_and_is_remembered() -> None:
    with ScriptedLLM(json_schema=False, model="no-schema-model") as llm:
        llm.queue(VALID, VALID)
        ep = endpoint(llm)
        assert ep.complete_json(MESSAGES, Facts, purpose="extract").trips[0].nights == 3
        refused, plain = llm.chat_requests
        assert "response_format" in refused.json and "response_format" not in plain.json
        assert '"city"' in plain.json["messages"][-1]["content"]  # the schema went into the prompt
        assert [c.ok for c in ep.usage.calls] == [False, True]
        assert ep.usage.calls[0].error == "response_format refused"
        again = endpoint(llm)  # another endpoint, same server and model: no second refusal
        assert again.complete_json(MESSAGES, Facts, purpose="extract").trips[0].city == "Oslo"
        assert len(llm.chat_requests) == 3 and "response_format" not in llm.chat_requests[2].json
        assert not again.structured_output()


def test_another_client_error_is_no_reason_to_drop_structured_output(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(Reply(status=400, text="this prompt is longer than the context"))
    ep = endpoint(scripted_llm)
    with pytest.raises(ModelUnavailable) as caught:
        ep.complete_json(MESSAGES, Facts, purpose="extract")
    one_line(caught.value, "HTTP 400 after 1 attempt: this prompt is longer than the context")
    assert len(scripted_llm.chat_requests) == 1 and ep.structured_output()


# -- failures and retries --------------------------------------------------------------
def test_500_500_200_is_retried_by_the_client_and_every_attempt_recorded(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(Reply(status=500), Reply(status=503), "hello")
    ep = endpoint(scripted_llm)
    assert ep.complete_text(MESSAGES, purpose="ask") == "hello"
    assert len(scripted_llm.chat_requests) == 3
    calls = ep.usage.calls
    assert [(c.attempt, c.ok, c.error) for c in calls] == [(1, False, "HTTP 500"), (2, False, "HTTP 503"), (3, True, "")]
    totals = ep.usage.totals()
    assert totals["calls"] == 3 and totals["failed_calls"] == 2 and totals["completion_tokens"] == 2


def test_500_forever_is_a_one_line_model_unavailable(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.respond = lambda request: Reply(status=503, text="overloaded")
    ep = endpoint(scripted_llm)
    with pytest.raises(ModelUnavailable) as caught:
        ep.complete_text(MESSAGES, purpose="ask")
    one_line(caught.value, f"model endpoint {scripted_llm.url} (model {scripted_llm.model})",
             "HTTP 503 after 3 attempts", "overloaded")
    assert len(scripted_llm.chat_requests) == 3
    assert [c.ok for c in ep.usage.calls] == [False] * 3 and ep.usage.totals()["failed_calls"] == 3


def test_a_timeout_is_retried_then_a_one_line_model_unavailable(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.respond = lambda request: Reply(text="late", delay_s=30)
    ep = endpoint(scripted_llm, timeout_s=0.2, max_retries=1)
    with pytest.raises(ModelUnavailable) as caught:
        ep.complete_text(MESSAGES, purpose="ask")
    one_line(caught.value, "no answer within 0.2 s, after 2 attempts")
    assert len(scripted_llm.chat_requests) == 2
    assert [(c.attempt, c.ok) for c in ep.usage.calls] == [(1, False), (2, False)]
    assert all(c.seconds < 10 for c in ep.usage.calls)  # it did not wait for the 30 s answer


def test_a_client_error_is_not_retried_and_names_the_servers_message(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(Reply(status=404, text="model 'nope' not found"))
    with pytest.raises(ModelUnavailable) as caught:
        endpoint(scripted_llm).complete_text(MESSAGES, purpose="ask")
    one_line(caught.value, "HTTP 404 after 1 attempt: model 'nope' not found")
    assert len(scripted_llm.chat_requests) == 1


def test_a_malformed_answer_and_a_closed_port_are_one_line_errors(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(Reply(body={"hello": "world"}))
    with pytest.raises(ModelUnavailable) as caught:
        endpoint(scripted_llm).complete_text(MESSAGES, purpose="ask")
    one_line(caught.value, "not a chat completion")
    closed = ScriptedLLM()
    url = closed.url
    closed.close()
    ep = Endpoint(EndpointConfig(base_url=url, api_key=None, model="m", max_retries=0))
    with pytest.raises(ModelUnavailable) as caught:
        ep.complete_text(MESSAGES, purpose="ask")
    one_line(caught.value, "cannot connect", "after 1 attempt")
    assert [c.ok for c in ep.usage.calls] == [False]


# -- usage -------------------------------------------------------------------------------
def test_usage_sums_server_counts_and_estimates_and_is_shared(scripted_llm: ScriptedLLM) -> None:
    usage = Usage()
    scripted_llm.queue("a" * 40, Reply(text="b" * 41, usage=False))
    ep = Endpoint(EndpointConfig(base_url=scripted_llm.url, api_key=None, model=scripted_llm.model), usage)
    ep.complete_text(MESSAGES, purpose="one")
    ep.complete_text(MESSAGES, purpose="two")
    first, second = usage.calls
    assert (first.estimated, second.estimated) == (False, True)
    assert (first.completion_tokens, second.completion_tokens) == (10, 11)
    prompt = -(-sum(len(m["content"]) for m in MESSAGES) // 4)
    totals = usage.totals()
    assert totals["prompt_tokens"] == 2 * prompt and totals["completion_tokens"] == 21
    assert totals["calls"] == 2 and totals["failed_calls"] == 0 and totals["seconds"] > 0


def test_threads_share_one_endpoint_and_each_call_counts_its_own_attempts(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.respond = lambda request: request["messages"][-1]["content"].upper()
    ep = endpoint(scripted_llm)
    answers: dict[int, str] = {}

    def ask(i: int) -> None:
        answers[i] = ep.complete_text([{"role": "user", "content": f"q{i}"}], purpose=f"p{i}")

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == {i: f"Q{i}" for i in range(8)}
    assert sorted(c.purpose for c in ep.usage.calls) == sorted(f"p{i}" for i in range(8))
    assert all(c.attempt == 1 and c.ok for c in ep.usage.calls)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_makes_its_own_client(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue("parent", "child")
    ep = endpoint(scripted_llm)
    assert ep.complete_text(MESSAGES, purpose="parent") == "parent"
    pid = os.fork()
    if pid == 0:  # the child: a new endpoint gets a new client, and its call works
        child = endpoint(scripted_llm)
        ok = child._openai() is not ep._client and child.complete_text(MESSAGES, purpose="child") == "child"
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and len(scripted_llm.chat_requests) == 2


def test_models_lists_the_servers_model(scripted_llm: ScriptedLLM) -> None:
    assert endpoint(scripted_llm).models() == [scripted_llm.model]


# -- the test switch ---------------------------------------------------------------------
@pytest.mark.parametrize("base_url", ["http://example.com/v1", "https://10.0.0.5:8000/v1", None])
def test_the_switch_refuses_a_non_local_endpoint_before_any_request(base_url: str | None) -> None:
    assert os.environ["UAC_ALLOW_MODEL_REQUESTS"] == "0"  # conftest's autouse fixture
    with pytest.raises(ModelRequestRefused) as caught:
        Endpoint(EndpointConfig(base_url=base_url, api_key="sk-test", model="m"))
    one_line(caught.value, "UAC_ALLOW_MODEL_REQUESTS=0", "no request was made")
    assert isinstance(caught.value, InputError)


def test_the_switch_is_read_again_at_each_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UAC_ALLOW_MODEL_REQUESTS", "1")
    ep = Endpoint(EndpointConfig(base_url="http://example.com/v1", api_key=None, model="m"))
    monkeypatch.setenv("UAC_ALLOW_MODEL_REQUESTS", "0")
    with pytest.raises(ModelRequestRefused):
        ep.complete_json(MESSAGES, Facts, purpose="extract")
    assert ep._client is None and ep.usage.calls == []  # no client was made, nothing sent


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
def test_the_switch_lets_local_servers_through(host: str) -> None:
    Endpoint(EndpointConfig(base_url=f"http://{host}:11434/v1", api_key=None, model="m"))


# -- configuration -----------------------------------------------------------------------
def test_config_precedence_is_arguments_then_environment_then_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = LlmSettings(base_url="http://localhost:1/v1", model="from-settings", timeout_seconds=7)
    config = EndpointConfig.resolve(settings=settings)
    assert (config.base_url, config.model, config.timeout_s, config.api_key) == (
        "http://localhost:1/v1", "from-settings", 7.0, None)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:2/v1/")
    monkeypatch.setenv("UAC_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    config = EndpointConfig.resolve(settings=settings)
    assert (config.base_url, config.model, config.api_key) == ("http://localhost:2/v1", "from-env", "sk-env")
    config = EndpointConfig.resolve(base_url="http://localhost:3/v1", model="from-arg", api_key="sk-arg",
                                    timeout_s=2.5, settings=settings)
    assert (config.base_url, config.model, config.api_key, config.timeout_s) == (
        "http://localhost:3/v1", "from-arg", "sk-arg", 2.5)
    assert EndpointConfig.resolve().timeout_s == 60.0 and EndpointConfig.resolve().max_retries == 2


def test_the_key_stays_out_of_the_configs_repr() -> None:
    config = EndpointConfig.resolve(api_key="sk-secret-123", model="m")
    assert config.api_key == "sk-secret-123" and "sk-secret" not in repr(config)


def test_a_key_alone_means_openai_with_its_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = EndpointConfig.resolve()
    assert config.base_url is None and config.url == "https://api.openai.com/v1" and config.model


@pytest.mark.parametrize(("kwargs", "env", "needles"), [
    ({}, {}, ("no model configured", "OPENAI_BASE_URL", "UAC_MODEL", "OPENAI_API_KEY")),
    ({"base_url": "http://localhost:11434/v1"}, {}, ("no model named", "UAC_MODEL")),
    ({"model": "llama3"}, {}, ("no endpoint", "OPENAI_BASE_URL")),
    ({"base_url": "ftp://host/v1", "model": "m"}, {}, ("--base-url", "ftp://host/v1", "http://")),
    ({"model": "m"}, {"OPENAI_BASE_URL": "localhost:11434/v1"}, ("OPENAI_BASE_URL", "not an http")),
    ({"base_url": "http://:80/v1", "model": "m"}, {}, ("not an http",)),
    ({"base_url": "http://localhost:99999/v1", "model": "m"}, {}, ("not an http",)),
    ({"base_url": "http://localhost/v1", "model": "m", "timeout_s": 0}, {}, ("timeout",)),
])
def test_bad_or_missing_configuration_is_one_line(monkeypatch: pytest.MonkeyPatch, kwargs: dict[str, object],
                                                  env: dict[str, str], needles: tuple[str, ...]) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(NoModelConfigured) as caught:
        EndpointConfig.resolve(**kwargs)  # type: ignore[arg-type]
    one_line(caught.value, *needles)


def test_a_bad_url_in_settings_names_the_setting() -> None:
    with pytest.raises(NoModelConfigured) as caught:
        EndpointConfig.resolve(settings=LlmSettings(base_url="file:///etc/passwd", model="m"))
    one_line(caught.value, "settings.json llm.base_url")


def test_settings_hold_no_api_key() -> None:
    with pytest.raises(InputError) as caught:
        Settings.parse(json.dumps({"format": 1, "llm": {"base_url": "http://localhost/v1", "api_key": "sk"}}),
                       source="settings.json")
    assert "environment" in str(caught.value)


# -- pieces -----------------------------------------------------------------------------
def test_extract_json_takes_the_first_balanced_value_that_parses() -> None:
    assert extract_json('  {"a": 1} ') == {"a": 1}
    assert extract_json('x {"a": "}{"} y {"b": 2}') == {"a": "}{"}
    assert extract_json('see [1] and {"a": [1, {"b": "\\"}"}]}') == [1]
    assert list(json_candidates('see [1] and {"a": [1, {"b": "\\"}"}]}')) == [[1], {"a": [1, {"b": '"}'}]}]
    assert extract_json("```json\n[1, 2]\n```") == [1, 2]
    with pytest.raises(ValueError):
        extract_json("no json here {")


def test_strict_schema_keeps_a_property_named_default_and_open_dicts() -> None:
    schema = {"type": "object", "properties": {"default": {"type": "string", "default": "x"},
                                               "tags": {"type": "object", "additionalProperties": {"type": "string"}}}}
    strict = strict_schema(schema)
    assert strict["required"] == ["default", "tags"] and strict["additionalProperties"] is False
    assert strict["properties"]["default"] == {"type": "string"}
    assert strict["properties"]["tags"]["additionalProperties"] == {"type": "string"}


def test_importing_the_endpoint_loads_neither_openai_nor_pydantic() -> None:
    code = "import sys, codegen.llm; print(sorted({'openai', 'pydantic', 'httpx', 'httpx2'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.slow  # a fresh interpreter importing openai: a few seconds
def test_a_subprocess_reaches_the_scripted_server_through_the_environment(scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue("from the child")
    code = ("from codegen.llm import Endpoint, EndpointConfig\n"
            "ep = Endpoint(EndpointConfig.resolve())\n"
            "print(ep.complete_text([{'role': 'user', 'content': 'hi'}], purpose='child'))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60,
                            env={**os.environ})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "from the child" and len(scripted_llm.chat_requests) == 1

"""Extraction by a model (`uac ingest USER FILE --llm`), against the scripted OpenAI-compatible
server: typed facts, dates, subjects, re-asks, failures kept as raw text and retried, outages,
idempotency. Nothing a session said is ever dropped."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import pytest
from scripted_llm import Reply, ScriptedLLM

from codegen.llm.endpoint import Endpoint, EndpointConfig, StructuredOutputError
from codegen.llm.extract import LlmExtractor
from factlog.transcripts import Message, Session
from runtime.llm_ingest import ingest_with_model
from runtime.memory import Memory

Uac = Callable[..., Any]

TRANSCRIPT = {"sessions": [
    {"id": "s1", "timestamp": "2024-11-15 10:30:00", "metadata": {"business": "Clinic"}, "messages": [
        {"role": "user", "content": "I'm allergic to penicillin, and my husband Tom is allergic to peanuts."},
        {"role": "assistant", "content": "Noted. Anything else?"},
        {"role": "user", "content": "I'm flying to Tokyo next Friday. My daughter's passport expires in June."},
    ]},
]}
# what the offline extractor types in TRANSCRIPT (its facts are the raw fallback): "flying to Tokyo" is a
# trip, the user's and the husband's allergies are allergies, the daughter's passport expiring "in June" a
# document (its expiry the end of June)
OFFLINE_KINDS = (None, "profile", "trip", "allergy", "relative", "document")  # "my husband Tom": a relative
TWO_SESSIONS = {"sessions": [
    TRANSCRIPT["sessions"][0],
    {"id": "s2", "timestamp": "2024-11-20 09:00:00", "messages": [
        {"role": "user", "content": "My phone number is 503-555-8924."},
    ]},
]}


def fact(index: int, text: str, kind: str | None = None, subject: str | None = None,
         valid_from: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"message_index": index, "text": text, "subject": subject, "kind": kind,
            "fields": [{"name": k, "value": v} for k, v in fields.items()],
            "valid_from": valid_from, "valid_to": None, "entity": None}


GOOD = json.dumps({"facts": [
    fact(0, "The user is allergic to penicillin.", "allergy", allergen="penicillin", drug_class="penicillins"),
    fact(0, "Tom, the user's husband, is allergic to peanuts.", "allergy", subject="husband Tom", allergen="peanuts"),
    fact(2, "The user flies to Tokyo next Friday.", "trip", valid_from="next Friday",
         destination="Tokyo", departure_date="next Friday"),
    fact(2, "The user's daughter's passport expires in June 2025.", "passport", subject="daughter",
         expiry_date="2025-06-30"),
]})


def write(tmp_path: Path, data: dict[str, Any], name: str = "chat.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def log(uac: Uac) -> list[dict[str, Any]]:
    r = uac("log", "alice", "--json")
    assert r.code == 0, r.err
    facts: list[dict[str, Any]] = json.loads(r.out)
    return facts


def failures(uac: Uac, *extra: str) -> list[dict[str, Any]]:
    r = uac("log", "alice", "--failed", "--json", *extra)
    assert r.code == 0, r.err
    found: list[dict[str, Any]] = json.loads(r.out)
    return found


def test_valid_extraction_types_facts_resolves_dates_and_keeps_subjects(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(GOOD)
    r = uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--llm", "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    assert report["count"] == 4 and report["extraction"]["extracted_sessions"] == 1
    usage = report["extraction"]["usage"]
    assert usage["calls"] == 1 and usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    facts = log(uac)
    mine, his, trip, passport = facts
    assert mine["kind"] == "allergy" and mine["fields"] == {"allergen": "penicillin", "drug_class": "penicillins"}
    assert mine["provenance"] == {"session_id": "s1", "message_index": 0, "role": "user",
                                  "session_ts": "2024-11-15T10:30:00"}
    # a third person's fact keeps its subject and is never the user's own record
    assert his["kind"] == "allergy" and his["fields"]["subject"] == "husband Tom"
    assert his["fields"]["person"] == "husband Tom"
    assert passport["kind"] is None and passport["fields"]["subject"] == "daughter"
    assert passport["fields"]["proposed_kind"] == "passport"
    # relative dates resolved against the session's timestamp (Friday 2024-11-15 -> 2024-11-22)
    assert trip["valid_from"] == "2024-11-22" and trip["fields"]["departure_date"] == "2024-11-22"
    assert trip["provenance"]["message_index"] == 2
    sent = scripted_llm.chat_requests[0].json
    prompt = "\n".join(m["content"] for m in sent["messages"])
    assert "2024-11-15 10:30:00" in prompt and "allergy [many]: allergen (str)" in prompt
    assert all(m["content"] in prompt for m in TRANSCRIPT["sessions"][0]["messages"])  # type: ignore[index]


def test_the_same_file_twice_adds_nothing_and_asks_nothing(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    path = write(tmp_path, TRANSCRIPT)
    scripted_llm.queue(GOOD)
    assert uac("ingest", "alice", str(path), "--llm").code == 0
    before = log(uac)
    r = uac("ingest", "alice", str(path), "--llm", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["count"] == 0 and json.loads(r.out)["extraction"]["skipped_sessions"] == 1
    assert len(scripted_llm.chat_requests) == 1 and log(uac) == before


def test_prose_wrapped_json_is_read(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(f"Sure! Here are the facts I found:\n```json\n{GOOD}\n```\nLet me know if you need more.")
    assert uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--llm").code == 0
    assert [f["kind"] for f in log(uac)] == ["allergy", "allergy", "trip", None]
    assert len(scripted_llm.chat_requests) == 1


def test_wrong_keys_are_re_asked_then_valid(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    wrong = json.dumps({"facts": [{"msg": 0, "statement": "The user is allergic to penicillin."}]})
    scripted_llm.queue(wrong, GOOD)
    r = uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--llm")
    assert r.code == 0, r.err
    assert len(log(uac)) == 4 and failures(uac) == []
    reask = scripted_llm.chat_requests[1].json["messages"]
    assert reask[-2]["content"] == wrong and "msg" in reask[-1]["content"]


def test_an_impossible_date_is_a_validation_error(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    bad = json.dumps({"facts": [fact(2, "Trip.", "trip", departure_date="2025-02-30")]})
    scripted_llm.queue(bad, GOOD)
    assert uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--llm").code == 0
    assert "2025-02-30" in scripted_llm.chat_requests[1].json["messages"][-1]["content"]
    assert len(log(uac)) == 4


def test_still_invalid_is_kept_raw_listed_and_a_retry_resolves_it(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    path = write(tmp_path, TRANSCRIPT)
    scripted_llm.queue("I cannot do that.", '{"facts": "none"}')
    r = uac("ingest", "alice", str(path), "--llm")
    assert r.code == 1 and "failed" in r.out and "session s1" in r.out
    raw = log(uac)
    texts = " ".join(f["text"] for f in raw)
    assert "penicillin" in texts and "Tokyo" in texts  # nothing the session said was dropped
    assert all(f["kind"] in OFFLINE_KINDS for f in raw)
    [failure] = failures(uac)
    assert failure["session_id"] == "s1" and failure["raw"] == '{"facts": "none"}'
    assert failure["fact_ids"] == [f["id"] for f in raw] and failure["attempts"] == 1
    assert "uac ingest USER FILE --llm --retry-failed" in uac("log", "alice", "--failed").out
    # an ingest without --retry-failed does not ask again
    assert uac("ingest", "alice", str(path), "--llm").code == 0 and len(scripted_llm.chat_requests) == 2
    # a retry that fails again stays listed
    scripted_llm.queue("no", "still no")
    assert uac("ingest", "alice", str(path), "--llm", "--retry-failed").code == 1
    [again] = failures(uac)
    assert again["attempts"] == 2 and again["fact_ids"] == failure["fact_ids"] and len(log(uac)) == len(raw)
    # a retry that works: typed facts appended, the raw ones retracted, the failure resolved
    scripted_llm.queue(GOOD)
    r = uac("ingest", "alice", str(path), "--llm", "--retry-failed", "--json")
    assert r.code == 0, r.out
    extraction = json.loads(r.out)["extraction"]
    assert extraction["resolved_failures"] == [1] and extraction["retracted"] == len(raw)
    facts = log(uac)
    retracted = {f["retracts"] for f in facts if f["retracts"] is not None}
    assert retracted == set(failure["fact_ids"])
    assert [f["kind"] for f in facts if f["retracts"] is None and f["id"] > len(raw)] == \
        ["allergy", "allergy", "trip", None]
    assert failures(uac) == []
    [done] = failures(uac, "--resolved")
    assert done["resolved_at"] and len(done["resolved_by"]) == 4 + len(raw)


def test_outage_is_one_line_keeps_raw_facts_and_asks_no_more(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(*[Reply(status=500)] * 3)
    r = uac("ingest", "alice", str(write(tmp_path, TWO_SESSIONS)), "--llm", "--json")
    assert r.code == 1
    extraction = json.loads(r.out)["extraction"]
    assert extraction["failed_sessions"] == ["s1", "s2"]
    assert [(f["session_id"], f["first_message"], f["last_message"]) for f in extraction["failed_chunks"]] == \
        [("s1", 0, 2), ("s2", 0, 0)]
    reason = extraction["failed_chunks"][0]["reason"]
    assert "HTTP 500" in reason and "\n" not in reason
    assert len(scripted_llm.chat_requests) == 3  # the client's retries, then s2 is not sent
    texts = " ".join(f["text"] for f in log(uac))
    assert "penicillin" in texts and "503-555-8924" in texts
    assert [f["session_id"] for f in failures(uac)] == ["s1", "s2"]
    out = uac("ingest", "alice", str(write(tmp_path, TWO_SESSIONS, "again.json")), "--llm").out
    assert "Traceback" not in out


def test_timeouts_are_a_clean_failure(tmp_path: Path, scripted_llm: ScriptedLLM, home: Path) -> None:
    scripted_llm.queue(*[Reply(text=GOOD, delay_s=2)] * 2)
    config = EndpointConfig(scripted_llm.url, None, scripted_llm.model, timeout_s=0.2, max_retries=1)
    mem = Memory.open(home)
    try:
        with Endpoint(config) as endpoint:
            stored, _, report = ingest_with_model(mem.facts, "alice", write(tmp_path, TWO_SESSIONS),
                                                  LlmExtractor(endpoint), endpoint.usage)
        [first] = report.failed[:1]
        session, reason = first.session_id, first.reason
        assert session == "s1" and "no answer within 0.2 s, after 2 attempts" in reason and "\n" not in reason
        assert report.failed_sessions == ["s1", "s2"] and report.usage["failed_calls"] == 2
        assert "penicillin" in " ".join(f.text for f in stored) and "503-555-8924" in " ".join(f.text for f in stored)
        assert [f.session_id for f in mem.extraction_failures("alice")] == ["s1", "s2"]
    finally:
        mem.close()


def test_unknown_kind_or_field_is_kept_as_text(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(json.dumps({"facts": [
        fact(0, "The user has a cat named Miso.", "pet", name="Miso"),
        fact(0, "The user gets hives from penicillin.", "allergy", allergen="penicillin", reaction="hives"),
    ]}))
    assert uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--llm").code == 0
    cat, hives = log(uac)[:2]
    assert cat["kind"] is None and cat["fields"] == {"name": "Miso", "proposed_kind": "pet"}
    assert hives["kind"] is None and hives["fields"]["reaction"] == "hives"
    assert hives["fields"]["proposed_kind"] == "allergy"


def test_a_message_the_model_skips_keeps_its_offline_facts(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(json.dumps({"facts": [fact(0, "The user is allergic to penicillin.", "allergy",
                                                  allergen="penicillin")]}))
    assert uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--llm").code == 0
    facts = log(uac)
    assert facts[0]["kind"] == "allergy"
    assert {f["provenance"]["message_index"] for f in facts[1:]} == {2}
    assert "Tokyo" in " ".join(f["text"] for f in facts[1:])


def test_no_model_configured_is_exit_2_and_writes_nothing(uac: Uac, tmp_path: Path) -> None:
    r = uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--llm")
    assert r.code == 2 and "no model configured" in r.err and len(r.err.strip().splitlines()) == 1
    assert uac("users", "--json").out.strip() == "[]"
    r = uac("ingest", "alice", str(write(tmp_path, TRANSCRIPT)), "--retry-failed")
    assert r.code == 2 and "--llm" in r.err


def test_long_sessions_go_in_chunks_and_every_message_is_sent(scripted_llm: ScriptedLLM) -> None:
    messages = [Message("user" if i % 2 == 0 else "assistant", f"message number {i} " + "x" * (i * 10), i)
                for i in range(7)]
    session = Session("long", None, messages)
    scripted_llm.respond = lambda request: json.dumps({"facts": []})
    config = EndpointConfig.resolve(base_url=scripted_llm.url, model=scripted_llm.model)
    with Endpoint(config) as endpoint:
        LlmExtractor(endpoint, max_messages=2, max_chars=10_000).extract(session, user_only=False)
    sent = [r.json["messages"][-1]["content"] for r in scripted_llm.chat_requests]
    assert len(sent) == 4
    for message in messages:
        assert sum(f"[{message.index}] {message.role}: {message.content}" in s for s in sent) == 1


def test_a_relative_date_without_a_session_time_is_refused(scripted_llm: ScriptedLLM) -> None:
    session = Session("untimed", None, [Message("user", "I fly out next Friday.", 0)])
    answer = json.dumps({"facts": [fact(0, "Flight.", "trip", departure_date="next Friday")]})
    scripted_llm.queue(answer, answer)
    config = EndpointConfig.resolve(base_url=scripted_llm.url, model=scripted_llm.model)
    with Endpoint(config) as endpoint, pytest.raises(StructuredOutputError) as raised:
        LlmExtractor(endpoint).extract(session, user_only=True)
    assert "no timestamp" in raised.value.errors


def test_facts_the_log_refuses_fall_back_to_raw_text(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    # an allergy's subject is a number here: the model's allergy of the husband (subject "husband
    # Tom") is refused; the offline extractor reads no allergy in this session ("reacts badly to"
    # is no allergy cue), so its facts are stored
    assert uac("add", "alice", "An allergy", "--kind", "allergy", "--field", "subject=5").code == 0
    session = {**TRANSCRIPT["sessions"][0], "messages": [
        {"role": "user", "content": "My husband Tom reacts badly to peanuts."}, *TRANSCRIPT["sessions"][0]["messages"][1:]]}
    scripted_llm.queue(GOOD)
    r = uac("ingest", "alice", str(write(tmp_path, {"sessions": [session]})), "--llm")
    assert r.code == 1 and "the log refused the model's facts" in r.out, r
    facts = log(uac)[1:]
    assert facts and all(f["kind"] in OFFLINE_KINDS for f in facts), [f["kind"] for f in facts]
    assert "peanuts" in " ".join(f["text"] for f in facts)
    [failure] = failures(uac)
    assert failure["raw"] == "" and failure["fact_ids"] == [f["id"] for f in facts]


def test_the_schema_uses_only_what_strict_structured_output_accepts() -> None:
    from codegen.llm.fact_schema import ExtractedFacts

    schema = json.dumps(ExtractedFacts.model_json_schema())
    assert "maxLength" not in schema and "minLength" not in schema and '"additionalProperties": true' not in schema


def test_user_only_refuses_a_fact_cited_from_the_assistant(scripted_llm: ScriptedLLM) -> None:
    session = Session("s", datetime(2024, 11, 15), [Message("user", "Book it.", 0),
                                                     Message("assistant", "Booked: ref ABC123.", 1)])
    cited = json.dumps({"facts": [fact(1, "Booking ABC123 is confirmed.")]})
    scripted_llm.queue(cited, json.dumps({"facts": [fact(0, "The user asked to book it.")]}))
    config = EndpointConfig.resolve(base_url=scripted_llm.url, model=scripted_llm.model)
    with Endpoint(config) as endpoint:
        [only] = LlmExtractor(endpoint).extract(session, user_only=True)
    assert only.provenance.role == "user" and "message_index 1" in \
        scripted_llm.chat_requests[1].json["messages"][-1]["content"]


def test_a_failure_with_nothing_to_keep_is_still_listed(uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    hello = {"sessions": [{"id": "hi", "timestamp": "2024-11-15", "messages": [{"role": "user", "content": "Hi!"}]}]}
    scripted_llm.queue("nope", "nope")
    assert uac("ingest", "alice", str(write(tmp_path, hello)), "--llm").code == 1
    [failure] = failures(uac)
    assert failure["session_id"] == "hi" and failure["fact_ids"] == []
    r = uac("log", "nobody", "--failed")
    assert r.code == 2 and "no such user" in r.err

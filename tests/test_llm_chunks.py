"""The chunk is the unit of extraction by a model: a long session's valid chunks keep their
typed facts when one chunk fails (invalid JSON after the re-ask, or an outage); the failed
chunk is kept as the offline extractor's raw facts of exactly its messages, listed with its
message range, and a retry re-extracts only that chunk. Older whole-session failures still
list and retry. Against the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any, Callable

from scripted_llm import Reply, ScriptedLLM

from factlog import migrations
from factlog.extract import RuleExtractor
from factlog.ingest import sourced_session_facts
from factlog.sources import content_digest
from factlog.sqlite import SqliteFactStore
from factlog.store import NewFailure
from factlog.transcripts import parse_transcript, read_transcript_text
from runtime.memory import Memory

Uac = Callable[..., Any]

# 170 messages: chunks of 80 messages are 0-79, 80-159 and 160-169
LONG = {"sessions": [{"id": "long", "timestamp": "2024-11-15 10:30:00", "messages": [
    {"role": "user", "content": f"I keep a jar of {i} red marbles on the shelf."} for i in range(170)]}]}
CHUNKS = {0: (0, 79), 80: (80, 159), 160: (160, 169)}


def typed(index: int) -> str:
    return json.dumps({"facts": [{
        "message_index": index, "text": f"The user keeps a jar of {index} red marbles (model).", "subject": None,
        "kind": None, "fields": [{"name": "marbles", "value": index}], "valid_from": None, "valid_to": None,
        "entity": None}]})


def first_index(request: Any) -> int:
    """The first message index a chunk's request sends (its second message is the chunk)."""
    found = re.search(r"^\[(\d+)\] ", request["messages"][1]["content"], re.M)
    assert found is not None
    return int(found.group(1))


class Model:
    """Answers each chunk by its first message: a typed fact citing its 6th message, or,
    for the chunks in `broken`, garbage (`"garbage"`) or HTTP 500 (`"down"`)."""

    def __init__(self, **broken: str) -> None:
        self.broken = {int(k.removeprefix("c")): v for k, v in broken.items()}
        self.asked: list[int] = []

    def __call__(self, request: Any) -> Reply | str:
        first = first_index(request)
        self.asked.append(first)
        mode = self.broken.get(first)
        if mode == "garbage":
            return "Sorry, I lost count of the marbles."
        if mode == "down":
            return Reply(status=500, text="overloaded")
        return typed(first + 5)


def write(tmp_path: Path, data: dict[str, Any], name: str = "long.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run_json(uac: Uac, *args: str) -> tuple[int, Any]:
    r = uac(*args, "--json")
    assert "Traceback" not in r.out + r.err
    return r.code, json.loads(r.out)


def facts(uac: Uac) -> list[dict[str, Any]]:
    code, found = run_json(uac, "log", "alice")
    assert code == 0
    return list(found)


def failures(uac: Uac, *extra: str) -> list[dict[str, Any]]:
    code, found = run_json(uac, "log", "alice", "--failed", *extra)
    assert code == 0
    return list(found)


def index_of(fact: dict[str, Any]) -> int:
    return int(fact["provenance"]["message_index"])


def model_facts(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in log if f["text"].endswith("(model).")]


def test_an_invalid_chunk_keeps_the_other_chunks_typed_facts_and_retries_alone(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    path = write(tmp_path, LONG)
    scripted_llm.respond = model = Model(c80="garbage")
    r = uac("ingest", "alice", str(path), "--llm")
    assert r.code == 1 and "session long messages 80-159:" in r.out and "1 chunk of 1 session failed" in r.out
    assert model.asked == [0, 80, 80, 160]  # the middle chunk re-asked once, the last one still sent
    log = facts(uac)
    # the valid chunks' typed facts are kept, each citing its own message
    assert [(index_of(f), f["fields"]) for f in model_facts(log)] == [(5, {"marbles": 5}), (165, {"marbles": 165})]
    # the failed chunk is the offline extractor's facts of exactly its messages
    [failure] = failures(uac)
    assert (failure["session_id"], failure["first_message"], failure["last_message"]) == ("long", 80, 159)
    assert failure["messages"] == "messages 80-159" and failure["raw"] == "Sorry, I lost count of the marbles."
    raw = [f for f in log if f["id"] in failure["fact_ids"]]
    assert sorted(index_of(f) for f in raw) == list(range(80, 160))
    assert all(f["kind"] is None and not f["text"].endswith("(model).") for f in raw)
    # every message is still covered once: the model's or the offline fact of each message
    assert sorted(index_of(f) for f in log if not f["text"].endswith("(model).")) == \
        [i for i in range(170) if i not in (5, 165)]
    listing = uac("log", "alice", "--failed").out
    assert "session long messages 80-159: " in listing and "--retry-failed" in listing
    # the same file again adds nothing and asks nothing
    code, again = run_json(uac, "ingest", "alice", str(path), "--llm")
    assert code == 0 and again["count"] == 0 and model.asked == [0, 80, 80, 160] and facts(uac) == log
    # the retry sends only the failed chunk, retracts exactly its raw facts, resolves it
    model.broken.clear()
    code, retried = run_json(uac, "ingest", "alice", str(path), "--llm", "--retry-failed")
    assert code == 0, retried
    assert model.asked[4:] == [80]
    sent = scripted_llm.chat_requests[-1].json["messages"][1]["content"]
    assert "[80] user:" in sent and "[159] user:" in sent and "[79] user:" not in sent and "[160] user:" not in sent
    assert retried["extraction"]["resolved_failures"] == [1] and retried["extraction"]["retracted"] == 80
    after = facts(uac)
    assert {f["retracts"] for f in after if f["retracts"] is not None} == set(failure["fact_ids"])
    assert [index_of(f) for f in model_facts(after)] == [5, 165, 85]
    added = [f for f in after if f["id"] > len(log) and f["retracts"] is None]
    assert sorted(index_of(f) for f in added) == list(range(80, 160))  # typed 85, the others' offline facts
    [done] = failures(uac, "--resolved")
    assert done["resolved_at"] and failures(uac) == []
    # retrying twice adds nothing the second time
    code, twice = run_json(uac, "ingest", "alice", str(path), "--llm", "--retry-failed")
    assert code == 0 and twice["count"] == 0 and model.asked[5:] == [] and facts(uac) == after


def test_an_outage_in_the_middle_chunk_keeps_the_first_and_a_later_retry_succeeds(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    path = write(tmp_path, LONG)
    scripted_llm.respond = model = Model(c80="down")
    code, report = run_json(uac, "ingest", "alice", str(path), "--llm")
    assert code == 1
    assert model.asked == [0, 80, 80, 80]  # the client's retries; the last chunk is not sent after the outage
    extraction = report["extraction"]
    assert [(f["first_message"], f["last_message"]) for f in extraction["failed_chunks"]] == [(80, 159), (160, 169)]
    assert "HTTP 500" in extraction["failed_chunks"][0]["reason"] and extraction["failed_sessions"] == ["long"]
    log = facts(uac)
    assert [index_of(f) for f in model_facts(log)] == [5]
    rows = failures(uac)
    assert [(f["first_message"], f["last_message"]) for f in rows] == [(80, 159), (160, 169)]
    for row in rows:
        assert sorted(index_of(f) for f in log if f["id"] in row["fact_ids"]) == \
            list(range(row["first_message"], row["last_message"] + 1))
    model.broken.clear()
    code, retried = run_json(uac, "ingest", "alice", str(path), "--llm", "--retry-failed")
    assert code == 0 and model.asked[4:] == [80, 160]
    assert retried["extraction"]["resolved_failures"] == [1, 2] and retried["extraction"]["retracted"] == 90
    assert [index_of(f) for f in model_facts(facts(uac))] == [5, 85, 165] and failures(uac) == []


def test_a_failed_chunk_retried_and_failing_again_counts_an_attempt(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    path = write(tmp_path, LONG)
    scripted_llm.respond = model = Model(c160="garbage")
    assert uac("ingest", "alice", str(path), "--llm").code == 1
    log = facts(uac)
    r = uac("ingest", "alice", str(path), "--llm", "--retry-failed")
    assert r.code == 1 and "session long messages 160-169:" in r.out and model.asked[4:] == [160, 160]
    [row] = failures(uac)
    assert row["attempts"] == 2 and (row["first_message"], row["last_message"]) == (160, 169)
    assert facts(uac) == log


def _older_failure(home: Path, path: Path) -> list[int]:
    """What an ingest before chunk failures left: the whole session stored raw, and one
    failure without a message range. Returns the raw facts' ids."""
    text, fmt = read_transcript_text(path)
    digest = content_digest(text.encode("utf-8"))
    [session] = parse_transcript(text, str(path), fmt)
    mem = Memory.open(home)
    try:
        items = list(sourced_session_facts(session, digest, RuleExtractor(), user_only=False))
        done = mem.facts.append_extraction("alice", list(items), failure=NewFailure(
            digest, str(path), session.session_id, "model endpoint: HTTP 500", ""))
        return [f.id for f in done.stored]
    finally:
        mem.close()


def test_an_older_whole_session_failure_lists_and_retries_whole(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM, home: Path) -> None:
    path = write(tmp_path, LONG)
    raw_ids = _older_failure(home, path)
    [row] = failures(uac)
    assert row["first_message"] is None and row["messages"] == "all messages" and row["fact_ids"] == raw_ids
    assert "session long all messages: model endpoint: HTTP 500" in uac("log", "alice", "--failed").out
    scripted_llm.respond = model = Model(c80="garbage")
    assert uac("ingest", "alice", str(path), "--llm").code == 0 and model.asked == []  # stored: skipped
    # a retry is all or nothing for a whole session: one chunk failing leaves it open
    r = uac("ingest", "alice", str(path), "--llm", "--retry-failed")
    assert r.code == 1 and "session long all messages:" in r.out and model.asked == [0, 80, 80]
    assert failures(uac)[0]["attempts"] == 2 and len(facts(uac)) == len(raw_ids)
    model.broken.clear()
    code, retried = run_json(uac, "ingest", "alice", str(path), "--llm", "--retry-failed")
    assert code == 0 and model.asked[3:] == [0, 80, 160]
    assert retried["extraction"]["resolved_failures"] == [1] and retried["extraction"]["retracted"] == 170
    assert [index_of(f) for f in model_facts(facts(uac))] == [5, 85, 165] and failures(uac) == []


def test_a_log_with_m005_failures_migrates_them_as_whole_sessions(tmp_path: Path) -> None:
    path = tmp_path / "facts.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for migration in migrations.MIGRATIONS[:5]:
        migration(db)
        db.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", (migration.__name__,))
    assert migrations.MIGRATIONS[4].__name__ == "m005_extraction_failures"
    db.execute("INSERT INTO extraction_failures (user, id, source, path, session_id, reason, raw, failed_at, "
               "attempts, fact_ids) VALUES ('alice', 3, 'd', 'chat.json', 's1', 'why', '{', 'now', 2, '[1, 2]')")
    db.close()
    store = SqliteFactStore(path)
    try:
        [row] = store.extraction_failures("alice")
        assert (row.id, row.session_id, row.attempts, row.fact_ids, row.first_message, row.last_message) == \
            (3, "s1", 2, (1, 2), None, None)
        # the same session's chunk is another failure; the whole-session one counts its own attempts
        store.append_extraction("alice", [], failure=NewFailure("d", "chat.json", "s1", "bad", "", 0, 9))
        store.append_extraction("alice", [], failure=NewFailure("d", "chat.json", "s1", "again", ""))
        old, chunk = store.extraction_failures("alice")
        assert (old.id, old.attempts, old.reason) == (3, 3, "again")
        assert (chunk.id, chunk.first_message, chunk.last_message, chunk.attempts) == (4, 0, 9, 1)
    finally:
        store.close()


def test_two_retries_racing_resolve_once(tmp_path: Path, scripted_llm: ScriptedLLM, home: Path) -> None:
    from codegen.llm.endpoint import Endpoint, EndpointConfig
    from codegen.llm.extract import LlmExtractor
    from runtime.llm_ingest import ingest_with_model

    path = write(tmp_path, LONG)
    scripted_llm.respond = model = Model(c80="garbage")
    config = EndpointConfig.resolve(base_url=scripted_llm.url, model=scripted_llm.model)
    mem = Memory.open(home)
    try:
        with Endpoint(config) as endpoint:
            ingest_with_model(mem.facts, "alice", path, LlmExtractor(endpoint), None)
            model.broken.clear()
            [failure] = mem.extraction_failures("alice")
            stale = [failure]  # what a second retry read before the first one resolved it
            real = mem.facts.extraction_failures
            _, _, first = ingest_with_model(mem.facts, "alice", path, LlmExtractor(endpoint), None,
                                            retry_failed=True)
            head = mem.facts.head("alice")
            mem.facts.extraction_failures = lambda *a, **k: stale  # type: ignore[method-assign]
            try:
                stored, _, second = ingest_with_model(mem.facts, "alice", path, LlmExtractor(endpoint), None,
                                                      retry_failed=True)
            finally:
                mem.facts.extraction_failures = real  # type: ignore[method-assign]
        assert first.resolved == [1] and second.resolved == [] and second.failed == [] and stored == []
        assert mem.facts.head("alice") == head
        [resolved] = mem.extraction_failures("alice", include_resolved=True)
        assert not resolved.open and resolved.attempts == 1
    finally:
        mem.close()


def test_a_chunk_citing_a_message_of_another_chunk_is_re_asked(
        uac: Uac, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    asked: list[int] = []

    def model(request: Any) -> str:
        first = first_index(request)
        asked.append(first)
        if first == 80 and asked.count(80) == 1:
            return typed(5)  # message 5 is chunk 0's: not sent in this request
        return typed(first + 5)

    scripted_llm.respond = model
    assert uac("ingest", "alice", str(write(tmp_path, LONG)), "--llm").code == 0
    assert asked == [0, 80, 80, 160] and "message_index" in scripted_llm.chat_requests[2].json["messages"][-1]["content"]
    log = facts(uac)
    assert [index_of(f) for f in model_facts(log)] == [5, 85, 165]
    assert sorted(index_of(f) for f in log) == list(range(170))  # one fact per message, each in its place
    assert all(f["provenance"]["session_id"] == "long" for f in log) and failures(uac) == []

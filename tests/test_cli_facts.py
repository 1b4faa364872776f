"""The `uac` fact commands, with the bad inputs the issue lists: exit 2, clear message, nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

Uac = Callable[..., Any]


def snapshot(uac: Uac) -> str:
    return str(uac("log", "alice", "--json").out)


def test_add_log_retract_verify_export_import_forget(uac: Uac, tmp_path: Path) -> None:
    r = uac("add", "alice", "Flying to Tokyo", "--kind", "trip", "--field", "destination=Tokyo",
            "--field", "departure_date=2025-01-15", "--field", "cost_usd=1200.5", "--key", "tokyo-2025",
            "--json")
    assert r.code == 0, r.err
    fact = json.loads(r.out)
    assert fact["fields"] == {"destination": "Tokyo", "departure_date": "2025-01-15", "cost_usd": 1200.5}
    assert fact["key"] == "tokyo-2025" and fact["id"] == 1
    assert uac("add", "alice", "I like green tea", "--valid-from", "2024-05-01").code == 0
    assert uac("retract", "alice", "2", "--reason", "changed my mind").code == 0
    log = json.loads(uac("log", "alice", "--json").out)
    assert [f["id"] for f in log] == [1, 2, 3] and log[2]["retracts"] == 2
    assert "Flying to Tokyo" in uac("log", "alice").out
    assert json.loads(uac("verify", "--json").out)["ok"] is True
    export = tmp_path / "alice.jsonl"
    assert uac("export", str(export)).code == 0
    assert uac("forget", "alice", "--yes").code == 0
    assert json.loads(uac("users", "--json").out) == []
    assert json.loads(uac("import", str(export), "--json").out) == {"imported": 3}
    assert json.loads(uac("log", "alice", "--json").out) == log


@pytest.mark.parametrize("args, message", [
    (("add", "../x", "hi"), "user id"),
    (("add", "/etc", "hi"), "user id"),
    (("add", "", "hi"), "user id"),
    (("add", "a" * 65, "hi"), "64"),
    (("add", "b\u0430d", "hi"), "user id"),
    (("add", "alice", "x" * (64 * 1024 + 1)), "64 KiB"),
    (("add", "alice", "trip", "--kind", "trip", "--field", "destination"), "no '='"),
    (("add", "alice", "trip", "--kind", "trip", "--field", "departure_date=2025-02-30"), "not a valid date"),
    (("add", "alice", "x", "--valid-from", "yesterday-ish"), "not a valid date"),
    (("add", "alice", "x", "--valid-from", "2025-13-01"), "not a valid date"),
    (("retract", "alice", "99"), "no fact 99"),
    (("add", "alice", "t", "--kind", "trip", "--field", "x=" + "[" * 50_000 + "]" * 50_000), "nests too deeply"),
    (("forget", "alice"), "--yes"),
])
def test_bad_input_exits_2_with_a_message_and_writes_nothing(uac: Uac, args: tuple[str, ...], message: str) -> None:
    assert uac("add", "alice", "keep me").code == 0
    before = snapshot(uac)
    r = uac(*args)
    assert r.code == 2, (r.out, r.err)
    assert message in r.err
    assert snapshot(uac) == before


def test_record_file_ingest_keeps_field_names_and_keys(uac: Uac, tmp_path: Path) -> None:
    records = tmp_path / "trips.jsonl"
    records.write_text("\n".join(json.dumps(r) for r in [
        {"id": "T1", "destination": "Tokyo", "date": "2024-03-01", "type": "leisure", "cost_usd": 1200},
        {"id": "T2", "destination": "Lima", "date": "2024-07-09", "type": "work", "cost_usd": 640.5},
    ]) + "\n")
    r = uac("ingest", "alice", str(records), "--kind", "trip", "--key-field", "id", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["count"] == 2
    log = json.loads(uac("log", "alice", "--json").out)
    assert [f["key"] for f in log] == ["T1", "T2"]
    assert log[1]["fields"] == {"id": "T2", "destination": "Lima", "date": "2024-07-09", "type": "work",
                                "cost_usd": 640.5}


@pytest.mark.parametrize("content, where", [
    ('{"destination": "Tokyo"}\n{"destination": "Lima"\n', ", line 2:"),
    ('{"destination": "Tokyo"}\n[1, 2]\n', ", line 2:"),
    ('[{"destination": "Tokyo"}, {"destination": ]', ", line 1:"),
    ('{"departure_date": "2024-02-30"}\n', ", line 1:"),
    ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
    ('{"a": 1}\n' + "[" * 100_000 + "]" * 100_000 + "\n", ", line 2: JSON nests too deeply"),
])
def test_malformed_record_file_names_file_and_line_and_writes_nothing(
        uac: Uac, tmp_path: Path, content: str, where: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    before = snapshot(uac)
    r = uac("ingest", "alice", str(path), "--kind", "trip")
    assert r.code == 2 and "bad.jsonl" in r.err and where in r.err, r.err
    assert snapshot(uac) == before


def test_text_that_looks_like_markup_is_printed_as_is(uac: Uac) -> None:
    text = "[bold red]not markup[/] and [link=x]y[/link] list[int]"
    assert text in uac("add", "alice", text).out
    assert "[bold red]not" in uac("log", "alice").out


def test_malformed_transcript_names_file_and_line_and_writes_nothing(uac: Uac, tmp_path: Path) -> None:
    path = tmp_path / "chat.yaml"
    path.write_text("conversation_histories:\n- conversation_id: s1\n  messages:\n    - role: user\n"
                    "      content: [unclosed\n")
    before = snapshot(uac)
    r = uac("ingest", "alice", str(path))
    assert r.code == 2 and "chat.yaml" in r.err and "line" in r.err, r.err
    assert snapshot(uac) == before


def test_a_transcript_ingests_in_one_go_citing_sessions(uac: Uac, tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"sessions": [
        {"session_id": "later", "timestamp": "2024-05-02 10:00:00",
         "messages": [{"role": "user", "content": "My email is sam@example.org."}]},
        {"session_id": "earlier", "timestamp": "2024-05-01 09:00:00",
         "messages": [{"role": "user", "content": "I moved to Lisbon last month."}]},
    ]}))
    r = uac("ingest", "alice", str(path), "--user-only", "--json")
    assert r.code == 0, r.err
    log = json.loads(uac("log", "alice", "--json").out)
    sessions = [f["provenance"]["session_id"] for f in log]
    assert sessions[0] == "earlier" and "later" in sessions  # sessions in timestamp order
    assert all(f["provenance"]["role"] == "user" and f["provenance"]["message_index"] == 0 for f in log)

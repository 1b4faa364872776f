"""Item 2 and 5 of issue 7: a fact the log accepts always compiles; bad input files are one line.

Every refusal: exit 2, one line on stderr, no traceback, nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from codegen.safety_rules import Limits
from factlog import limits
from factlog.errors import InputError
from factlog.model import JsonValue, check_fields
from factlog.transcripts import parse_transcript
from runtime.memory import Memory
from users.checkpoint import Published

Uac = Callable[..., Any]


def refused(uac: Uac, *args: str, match: str) -> None:
    before = uac("log", "me", "--json").out
    r = uac(*args)
    assert r.code == 2, (r.code, r.out, r.err)
    lines = [line for line in r.err.splitlines() if line.strip()]
    assert len(lines) == 1 and match in lines[0], r.err
    assert "Traceback" not in r.err
    assert uac("log", "me", "--json").out == before


def test_codegen_limits_come_from_factlog() -> None:
    assert Limits().max_string == limits.MAX_STRING_CHARS == 256 * 1024
    assert Limits().max_int_digits == limits.MAX_INT_DIGITS == 32
    assert Limits().max_depth == limits.MAX_SOURCE_DEPTH
    assert Limits().max_file_bytes == limits.MAX_FILE_BYTES


@pytest.mark.parametrize("fields, message", [
    ({"__secret": "x"}, "'__secret' is not allowed"),
    ({"n": 10 ** 32}, "more than 32 digits"),
    ({"n": -(10 ** 32)}, "more than 32 digits"),
    ({"n": [1, {"deep": 10 ** 40}]}, "more than 32 digits"),
    ({"s": "a" * (256 * 1024 + 1)}, "262145 characters"),
    ({"d": {"k" * (256 * 1024 + 1): 1}}, "object key of 262145 characters"),
    ({f"f{i}": "x" * 200_000 for i in range(3)}, "fields are too large"),
])
def test_check_fields_refuses_what_the_compiler_cannot_hold(fields: dict[str, JsonValue], message: str) -> None:
    with pytest.raises(InputError, match=message):
        check_fields(fields)


def test_add_refuses_the_issue_reproducers(uac: Uac) -> None:
    refused(uac, "add", "me", "--kind", "x", "--field", "__secret=x", match="'__secret' is not allowed")
    refused(uac, "add", "me", "--kind", "x", "--field", "n=" + "9" * 33, match="more than 32 digits")
    refused(uac, "add", "me", "--kind", "x", "--field", "n=" + "9" * 5000, match="too many digits")
    refused(uac, "add", "me", "--kind", "x", "--field", "s=" + "a" * 262_145, match="262145 characters")


def test_ingest_refuses_int_float_mix_with_a_400_digit_integer(uac: Uac, tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"n": 1.5}\n{"n": ' + "7" * 400 + "}\n", encoding="utf-8")
    refused(uac, "ingest", "me", str(path), "--kind", "item", match="line 2: field 'n': integer has more than 32")


def test_record_file_with_a_5000_digit_integer_is_one_line(uac: Uac, tmp_path: Path) -> None:
    for name, text in (("big.jsonl", '{"n": ' + "1" * 5000 + "}\n"), ("big.json", '[{"n": ' + "1" * 5000 + "}]")):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        refused(uac, "ingest", "me", str(path), "--kind", "item", match="a number has too many digits")


@pytest.mark.parametrize("name, text", [
    ("s.json", '{"sessions": [{"id": ' + "1" * 5000 + ', "messages": []}]}'),
    ("s.jsonl", '{"session_id": ' + "1" * 5000 + ', "role": "user", "content": "hi"}\n'),
    ("s.yaml", "sessions:\n- id: " + "1" * 5000 + "\n  messages: []\n"),
    ("t.yaml", "sessions:\n- id: " + "1" * 4000 + "\n  messages: []\n"),
])
def test_transcript_session_id_with_thousands_of_digits_is_one_line(uac: Uac, tmp_path: Path, name: str,
                                                                    text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    r = uac("ingest", "me", str(path))
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err, r.err
    assert "digits" in r.err or "session id" in r.err


def test_record_file_without_kind_says_so(uac: Uac, tmp_path: Path) -> None:
    path = tmp_path / "bills.jsonl"
    path.write_text('{"payee": "Gas", "amount_usd": 40}\n', encoding="utf-8")
    refused(uac, "ingest", "me", str(path), match="--kind")
    array = tmp_path / "bills.json"
    array.write_text('[{"payee": "Gas", "amount_usd": 40}]', encoding="utf-8")
    refused(uac, "ingest", "me", str(array), match="--kind")


def test_yaml_alias_bomb_in_messages_is_refused_before_it_is_built() -> None:
    lines = ['m0: &m0 [{role: user, content: "I fly to Oslo on 2025-01-02"}, {role: user, content: hi}]']
    lines += [f"m{i}: &m{i} [*m{i - 1}, *m{i - 1}, *m{i - 1}, *m{i - 1}, *m{i - 1}, *m{i - 1}, *m{i - 1}, "
              f"*m{i - 1}, *m{i - 1}, *m{i - 1}]" for i in range(1, 8)]
    text = "\n".join(lines) + "\nsessions:\n- id: s\n  messages: *m7\n"
    assert len(text) < 2000  # expands to 20 million messages
    with pytest.raises(InputError, match="alias bomb"):
        parse_transcript(text, "bomb.yaml", "yaml")


def test_yaml_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match="refers to itself"):
        parse_transcript("sessions: &s\n- id: s\n  messages: []\n  metadata: {again: *s}\n", "loop.yaml", "yaml")


def test_yaml_with_a_few_aliases_still_reads() -> None:
    text = "who: &u user\nsessions:\n- id: s\n  messages:\n  - {role: *u, content: hello}\n  - {role: *u, content: bye}\n"
    [session] = parse_transcript(text, "ok.yaml", "yaml")
    assert [m.content for m in session.messages] == ["hello", "bye"]


def test_export_import_round_trips_line_and_paragraph_separators(uac: Uac, tmp_path: Path) -> None:
    text = "first\u2028second\u2029third"
    assert uac("add", "me", text, "--json").code == 0
    assert uac("add", "me", "--kind", "x", "--field", f"s={text}").code == 0
    export = tmp_path / "me.jsonl"
    assert uac("export", str(export)).code == 0
    log = json.loads(uac("log", "me", "--json").out)
    assert uac("forget", "me", "--yes").code == 0
    r = uac("import", str(export), "--json")
    assert r.code == 0, r.err
    assert json.loads(uac("log", "me", "--json").out) == log
    assert log[0]["text"] == text and log[1]["fields"]["s"] == text


def test_record_file_jsonl_keeps_separators_inside_strings(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({"s": "a\u2028b"}, ensure_ascii=False) + "\n", encoding="utf-8")
    mem = Memory.open(home)
    try:
        report = mem.ingest_records("me", path, "memo")
        assert [f.fields for f in report.facts] == [{"s": "a\u2028b"}]
    finally:
        mem.close()


def test_everything_the_door_accepts_at_its_limits_compiles(home: Path) -> None:
    """The largest accepted values, a kind named like a builtin, and hostile-but-legal names."""
    deep: JsonValue = "leaf"
    for _ in range(limits.MAX_JSON_DEPTH - 1):
        deep = [deep]
    mem = Memory.open(home)
    try:
        mem.add("me", "edge", kind="edge", fields={
            "big": 10 ** 32 - 1, "small": -(10 ** 32 - 1), "mix": 2.5, "s": "\ue000" * (256 * 1024),
            "deep": deep, "__class__": 1, "_private": 2, "huge": 1.7976931348623157e308,
            "a b": 1, "a_b": 2, "a-b": 3, "class": 4, "class_": 5, "fact_ids": 6, "int": 7,
        })
        mem.add("me", "edge 2", kind="edge", fields={"mix": 10 ** 31, "big": 5, "small": 1})
        mem.add("me", "a list kind", kind="list", fields={"a": 1})
        result = mem.checkpoint("me")
        assert isinstance(result, Published), result
        module = mem.module("me")
        assert [e.big for e in module.edges] == [10 ** 32 - 1, 5]
        assert [e.mix for e in module.edges] == [2.5, float(10 ** 31)]
    finally:
        mem.close()


def test_an_export_holding_facts_stored_before_the_limits_still_imports(uac: Uac, tmp_path: Path) -> None:
    """Nothing lost: the door refuses new facts, but restoring a log keeps what it held."""
    from factlog.hashing import GENESIS, canonical_json, content_hash

    body: dict[str, Any] = {
        "user": "me", "id": 1, "recorded_at": "2024-06-01T12:00:00+00:00", "text": "old", "kind": "x",
        "fields": {"__secret": "x", "n": 10 ** 40}, "key": None, "valid_from": None, "valid_to": None,
        "retracts": None, "provenance": {"session_id": None, "message_index": None, "role": None,
                                         "session_ts": None}, "prev_hash": GENESIS}
    export = tmp_path / "old.jsonl"
    export.write_text(canonical_json({**body, "hash": content_hash(body)}) + "\n", encoding="utf-8")
    r = uac("import", str(export), "--json")
    assert r.code == 0 and json.loads(r.out) == {"imported": 1}, r.err
    refused(uac, "add", "me", "--kind", "x", "--field", "__secret=y", match="'__secret' is not allowed")


@pytest.mark.parametrize("kind, fields, message", [
    ("x", {"n": [10 ** 5000]}, "more than 32 digits"),
    ("x", {"d": {"a": 10 ** 5000}}, "more than 32 digits"),
    ("trip", {"departure_date": 10 ** 5000}, "not a valid date"),
    ("event", {"start": 10 ** 5000}, "not a valid date"),
])
def test_api_giant_integers_are_input_errors(home: Path, kind: str, fields: dict[str, JsonValue],
                                             message: str) -> None:
    mem = Memory.open(home)
    try:
        with pytest.raises(InputError, match=message):
            mem.add("me", kind=kind, fields=fields)
        assert list(mem.log("me")) == []
    finally:
        mem.close()

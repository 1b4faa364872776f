"""Reading transcripts: every accepted format, ordering, and clear errors for bad input."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from factlog.errors import InputError
from factlog.transcripts import MAX_TRANSCRIPT_BYTES, read_transcript

BOOK_YAML = """\
test_id: t1
category: layer1
conversation_histories:
- conversation_id: late
  timestamp: '2024-11-15 10:30:00'
  metadata:
    business: First National Bank
  messages:
  - role: user
    content: Hi, I'd like to open a checking account.
  - role: assistant
    content: Sure. Your date of birth?
  - role: user
    content: March 15th, 1985.
- conversation_id: early
  timestamp: '2024-11-01'
  messages:
  - role: user
    content: My cell is 503-555-8924.
user_question: What was my account number?
evaluation_criteria: irrelevant here
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_book_yaml_format_is_read_and_ordered(tmp_path: Path) -> None:
    sessions = read_transcript(write(tmp_path, "case.yaml", BOOK_YAML))
    assert [s.session_id for s in sessions] == ["early", "late"]
    early, late = sessions
    assert early.timestamp == datetime(2024, 11, 1)
    assert late.timestamp == datetime(2024, 11, 15, 10, 30)
    assert late.metadata == {"business": "First National Bank"}
    assert [(m.role, m.index) for m in late.messages] == [("user", 0), ("assistant", 1), ("user", 2)]
    assert late.messages[2].content == "March 15th, 1985."


def test_unquoted_yaml_timestamps_are_accepted(tmp_path: Path) -> None:
    text = "sessions:\n- id: a\n  timestamp: 2024-03-10\n  messages: []\n- id: b\n  timestamp: 2024-03-09 08:00:00\n  messages: []\n"
    sessions = read_transcript(write(tmp_path, "s.yml", text))
    assert [s.session_id for s in sessions] == ["b", "a"]


def session(sid: str, ts: str | None, *contents: str) -> dict[str, object]:
    return {"id": sid, "timestamp": ts, "messages": [{"role": "user", "content": c} for c in contents]}


def test_json_sessions_object_bare_list_and_single_session(tmp_path: Path) -> None:
    data = [session("b", "2024-02-01T09:00:00Z", "x"), session("a", "2024-01-01", "y")]
    for name, payload in (("obj.json", {"sessions": data}), ("list.json", data)):
        sessions = read_transcript(write(tmp_path, name, json.dumps(payload)))
        assert [s.session_id for s in sessions] == ["a", "b"]
    single = read_transcript(write(tmp_path, "one.json", json.dumps(session("solo", None, "hello"))))
    assert [(s.session_id, s.timestamp) for s in single] == [("solo", None)]


def test_ties_and_missing_timestamps_keep_file_order(tmp_path: Path) -> None:
    data = [session("n1", None), session("t2", "2024-05-01"), session("n2", None), session("t1", "2024-05-01")]
    sessions = read_transcript(write(tmp_path, "ties.json", json.dumps(data)))
    assert [s.session_id for s in sessions] == ["t2", "t1", "n1", "n2"]


def test_jsonl_session_per_line(tmp_path: Path) -> None:
    lines = [json.dumps(session("s2", "2024-02-02", "b")), "", json.dumps(session("s1", "2024-02-01", "a"))]
    sessions = read_transcript(write(tmp_path, "s.jsonl", "\n".join(lines)))
    assert [s.session_id for s in sessions] == ["s1", "s2"]


def test_jsonl_message_per_line_groups_by_session(tmp_path: Path) -> None:
    rows = [
        {"session_id": "x", "timestamp": "2024-06-02 10:00:00", "role": "user", "content": "one"},
        {"session_id": "y", "timestamp": "2024-06-01", "role": "user", "content": "two"},
        {"session_id": "x", "role": "assistant", "content": "three"},
    ]
    sessions = read_transcript(write(tmp_path, "m.jsonl", "\n".join(json.dumps(r) for r in rows)))
    assert [s.session_id for s in sessions] == ["y", "x"]
    x = sessions[1]
    assert [(m.index, m.role, m.content) for m in x.messages] == [(0, "user", "one"), (1, "assistant", "three")]


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("bad.yaml", "sessions:\n- id: a\n  messages: [\n    {role: user\n", None),
        ("bad.json", '{\n  "sessions": [\n    {"id": "a",,}\n  ]\n}', 3),
        ("bad.jsonl", json.dumps(session("a", None, "x")) + "\n{not json}\n", 2),
    ],
)
def test_malformed_input_names_file_and_line(tmp_path: Path, name: str, text: str, line: int | None) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as caught:
        read_transcript(path)
    message = str(caught.value)
    assert str(path) in message
    assert "line " in message
    if line is not None:
        assert f"line {line}" in message


def test_yaml_error_line_is_the_problem_line(tmp_path: Path) -> None:
    path = write(tmp_path, "tab.yaml", "sessions:\n  - id: a\n    messages: []\n  bad: : :\n")
    with pytest.raises(InputError, match=r"line 4"):
        read_transcript(path)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"sessions": [{"id": "a"}]}, "no 'messages'"),
        ({"sessions": [{"id": "a", "messages": "hello"}]}, "must be a list"),
        ({"sessions": [{"id": "a", "messages": [{"role": "wizard", "content": "x"}]}]}, "unknown role 'wizard'"),
        ({"sessions": [{"id": "a", "messages": [{"role": "user", "content": 42}]}]}, "content must be a string"),
        ({"sessions": [{"id": "a", "messages": [{"role": "user"}]}]}, "content must be a string"),
        ({"sessions": [{"id": "a", "timestamp": "last Tuesday", "messages": []}]}, "not an ISO date"),
        ({"sessions": [{"id": "a", "messages": []}, {"id": "a", "messages": []}]}, "appears more than once"),
        ({"sessions": "nope"}, "must be a list of sessions"),
        ({"other": 1}, "expected 'conversation_histories'"),
        ("just text", "expected a session object"),
        ({"sessions": [{"id": ["x"], "messages": []}]}, "session id must be a string"),
    ],
)
def test_wrong_shapes_are_refused_clearly(tmp_path: Path, payload: object, expected: str) -> None:
    path = write(tmp_path, "shape.json", json.dumps(payload))
    with pytest.raises(InputError, match=expected) as caught:
        read_transcript(path)
    assert str(path) in str(caught.value)


def test_jsonl_wrong_shapes_name_the_line(tmp_path: Path) -> None:
    rows = [json.dumps({"session_id": "a", "role": "user", "content": "x"}), json.dumps({"role": "user", "content": "y"})]
    with pytest.raises(InputError, match=r"line 2: missing 'session_id'"):
        read_transcript(write(tmp_path, "m.jsonl", "\n".join(rows)))
    with pytest.raises(InputError, match=r"line 1: expected a JSON object"):
        read_transcript(write(tmp_path, "n.jsonl", "[1, 2]\n"))


def test_other_file_problems(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown transcript type"):
        read_transcript(write(tmp_path, "notes.txt", "hello"))
    with pytest.raises(InputError, match="cannot read"):
        read_transcript(tmp_path / "missing.json")
    bad = tmp_path / "latin.json"
    bad.write_bytes(b'{"sessions": []}\n\xff')
    with pytest.raises(InputError, match=r"line 2: not valid UTF-8"):
        read_transcript(bad)


def test_oversize_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_TRANSCRIPT_BYTES + 1)  # sparse: no real disk use
    with pytest.raises(InputError, match="at most"):
        read_transcript(path)


def test_yaml_alias_bomb_in_metadata_is_bounded(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    text = "\n".join(lines) + "\nsessions:\n- id: s\n  metadata: {bomb: *a8}\n  messages: []\n"
    with pytest.raises(InputError, match="metadata is too large|alias bomb"):
        read_transcript(write(tmp_path, "bomb.yaml", text))


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"sessions": [{"id": "a", "title": "x", "messages": []}]}, "sessions[0]: unknown key 'title'"),
        ({"sessions": [{"id": "a", "messages": [{"role": "user", "content": "x", "name": "sam"}]}]},
         "sessions[0].messages[0]: unknown key 'name'"),
        ({"sessions": [{"id": "a", "messages": ["hello"]}]},
         "sessions[0].messages[0]: a message must be an object with 'role' and 'content'"),
        ({"sessions": [{"id": "a", "metadata": [1], "messages": []}]}, "sessions[0]: 'metadata' must be an object"),
        ({"id": "a", "messages": [], "extra": 1}, "session: unknown key 'extra'"),
    ],
)
def test_unknown_keys_and_wrong_parts_are_refused_where_they_are(tmp_path: Path, payload: object,
                                                                  expected: str) -> None:
    path = write(tmp_path, "shape.json", json.dumps(payload))
    with pytest.raises(InputError) as caught:
        read_transcript(path)
    assert str(caught.value) == f"{path}, {expected}"


def test_a_message_line_with_an_unknown_key_is_refused(tmp_path: Path) -> None:
    rows = [{"session_id": "a", "role": "user", "content": "x"},
            {"session_id": "a", "role": "user", "content": "y", "mood": "happy"}]
    path = write(tmp_path, "m.jsonl", "\n".join(json.dumps(r) for r in rows))
    with pytest.raises(InputError, match=r"line 2: unknown key 'mood'"):
        read_transcript(path)


def test_every_known_key_is_still_accepted(tmp_path: Path) -> None:
    sessions = read_transcript(write(tmp_path, "all.json", json.dumps([
        {"session_id": "s", "timestamp": "2024-01-01", "metadata": {"n": [1, {"k": None}]},
         "messages": [{"role": " User ", "content": "hi"}]},
        {"conversation_id": 7, "messages": []},
    ])))
    assert [(s.session_id, s.metadata) for s in sessions] == [("s", {"n": [1, {"k": None}]}), ("7", {})]
    assert sessions[0].messages[0].role == "user"
    rows = [{"conversation_id": "c", "timestamp": "2024-01-02T10:00:00Z", "role": "tool", "content": "ok"},
            {"id": "c", "role": "system", "content": "more"}]
    [one] = read_transcript(write(tmp_path, "m.jsonl", "\n".join(json.dumps(r) for r in rows)))
    assert one.session_id == "c" and one.timestamp is not None and one.timestamp.utcoffset() is not None
    assert [m.role for m in one.messages] == ["tool", "system"]

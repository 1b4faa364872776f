"""Reading chat transcripts (JSON, JSONL or YAML) into ordered `Session`s.

Accepted shapes (all untrusted; anything else is refused with an `InputError` that names
the file and, where the parser knows it, the line):

- the book evaluation format: `{"conversation_histories": [{"conversation_id", "timestamp",
  "metadata", "messages": [{"role", "content"}]}], ...}` (other top-level keys are ignored);
- `{"sessions": [session, ...]}`, a bare list of sessions, or one session object, where a
  session is `{"id" | "session_id" | "conversation_id", "timestamp", "metadata",
  "messages": [...]}`;
- JSONL where each line is a session, or each line is a message carrying `session_id`
  (and optionally `timestamp`, the session's time; the first one given wins).

A session or a message with a key not named above is refused (the shapes are the pydantic
models `SessionShape`, `MessageShape` and `MessageLine` at the end of this module); the
book format's other top-level keys are ignored.

Sessions come back in timestamp order; ties and sessions without a timestamp keep file order
(untimed sessions sort after timed ones).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Annotated, Any, Optional, TypeVar

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from factlog.errors import InputError
from factlog.jsonfile import json_document, json_object_lines, read_text, type_name
from factlog.model import ROLES, JsonValue
from factlog.timeparse import parse_datetime

MAX_TRANSCRIPT_BYTES = 50 * 1024 * 1024
MAX_SESSION_ID = 256
MAX_METADATA_NODES = 10_000
# YAML aliases may repeat at most this many nodes beyond the file's own (an alias bomb
# expands a small file to millions of messages); counted on the node graph, before building.
MAX_ALIAS_EXPANSION = 100_000
RECORD_FILE_HINT = "a record file? give its kind: uac ingest USER FILE --kind KIND"
SUFFIXES = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml"}
_ID_KEYS = ("session_id", "id", "conversation_id")


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    index: int  # position in its session, 0-based; provenance cites it


@dataclass(frozen=True)
class Session:
    session_id: str
    timestamp: datetime | None
    messages: list[Message]
    metadata: dict[str, JsonValue] = field(default_factory=dict)


def read_transcript(path: Path) -> list[Session]:
    """Read one transcript file; sessions ordered by timestamp (stable)."""
    text, fmt = read_transcript_text(path)
    return parse_transcript(text, str(path), fmt)


def read_transcript_text(path: Path) -> tuple[str, str]:
    """The file's text and its format (`json`, `jsonl` or `yaml`, from the suffix)."""
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise InputError(f"{path}: unknown transcript type {path.suffix!r}; use one of {sorted(SUFFIXES)}")
    return read_text(path, MAX_TRANSCRIPT_BYTES), fmt


def parse_transcript(text: str, source: str, fmt: str) -> list[Session]:
    """Parse transcript text of format `json`, `jsonl` or `yaml`; `source` names it in errors."""
    if fmt == "jsonl":
        sessions = _sessions_from_jsonl(text, source)
    elif fmt == "json":
        sessions = sessions_from_data(json_document(text, source), source)
    elif fmt == "yaml":
        sessions = sessions_from_data(_load_yaml(text, source), source)
    else:
        raise InputError(f"{source}: unknown transcript format {fmt!r}")
    return order_sessions(sessions, source)


def order_sessions(sessions: list[Session], source: str) -> list[Session]:
    """Timestamp order, stable; untimed sessions last. Session ids must be unique."""
    seen: set[str] = set()
    for session in sessions:
        if session.session_id in seen:
            raise InputError(f"{source}: session id {session.session_id!r} appears more than once")
        seen.add(session.session_id)
    timed = [s for s in sessions if s.timestamp is not None]
    untimed = [s for s in sessions if s.timestamp is None]
    return sorted(timed, key=lambda s: _sort_key(s.timestamp)) + untimed


def _sort_key(ts: datetime | None) -> datetime:
    assert ts is not None
    return ts.astimezone(timezone.utc).replace(tzinfo=None) if ts.tzinfo else ts


def _load_yaml(text: str, source: str) -> Any:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, source)
        return loader.construct_document(node)
    except InputError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f", line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"{source}{where}: malformed YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"{source}: malformed YAML: {exc}") from None
    except RecursionError:
        raise InputError(f"{source}: YAML nests too deeply") from None
    except ValueError:  # int() past Python's integer-digit limit
        raise InputError(f"{source}: a YAML number has too many digits") from None
    finally:
        loader.dispose()


def _check_expansion(root: yaml.Node, source: str) -> None:
    """Refuse a node graph whose aliases expand it past MAX_ALIAS_EXPANSION extra nodes, or
    that refers to itself; sizes are memoised per node, so the walk is linear in the graph."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise InputError(f"{source}: YAML refers to itself (a recursive alias)")
        open_nodes.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        open_nodes.discard(key)
        if total > limit:
            raise InputError(f"{source}: YAML aliases expand it past {MAX_ALIAS_EXPANSION} repeated values "
                             "(an alias bomb?); write the values out")
        sizes[key] = total
        return total

    limit = _count_nodes(root) + MAX_ALIAS_EXPANSION
    size(root)


def _count_nodes(root: yaml.Node) -> int:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.extend((k, v))
    return len(seen)


def sessions_from_data(data: Any, source: str) -> list[Session]:
    """Sessions from already-parsed JSON/YAML data, in file order."""
    if isinstance(data, dict):
        for key in ("conversation_histories", "sessions"):
            if key in data:
                items = data[key]
                if not isinstance(items, list):
                    raise InputError(f"{source}: {key!r} must be a list of sessions")
                return [_session(item, source, f"{key}[{i}]", i) for i, item in enumerate(items)]
        if "messages" in data:
            return [_session(data, source, "session", 0)]
        raise InputError(
            f"{source}: expected 'conversation_histories', 'sessions', 'messages' or a list of sessions; "
            f"found keys {sorted(map(str, data))[:10]} ({RECORD_FILE_HINT})"
        )
    if isinstance(data, list):
        return [_session(item, source, f"[{i}]", i) for i, item in enumerate(data)]
    raise InputError(f"{source}: expected a session object or a list of sessions, not {type_name(data)}")


def _sessions_from_jsonl(text: str, source: str) -> list[Session]:
    lines = json_object_lines(text, source)
    if not lines:
        raise InputError(f"{source}: no sessions (the file is empty)")
    first = lines[0][1]
    if "messages" in first:
        return [_session(item, source, f"line {n}", i) for i, (n, item) in enumerate(lines)]
    if "role" not in first and "content" not in first:
        raise InputError(f"{source}, line {lines[0][0]}: neither a session (no 'messages') nor a chat message "
                         f"(no 'role' or 'content'); {RECORD_FILE_HINT}")
    return _sessions_from_message_lines(lines, source)


def _sessions_from_message_lines(lines: list[tuple[int, dict[str, Any]]], source: str) -> list[Session]:
    grouped: dict[str, tuple[list[Message], list[datetime | None]]] = {}
    for number, item in lines:
        where = f"line {number}"
        if "messages" in item:
            raise InputError(f"{source}, {where}: a session line among message lines; use one kind per file")
        session_id = _session_id(item, source, where, None)
        line = _validated(MessageLine, item, source, where)
        messages, stamps = grouped.setdefault(session_id, ([], []))
        messages.append(Message(line.role, line.content, len(messages)))
        stamps.append(line.timestamp)
    return [
        Session(sid, next((s for s in stamps if s is not None), None), messages, {})
        for sid, (messages, stamps) in grouped.items()
    ]


def _session(item: Any, source: str, where: str, position: int) -> Session:
    if not isinstance(item, dict):
        raise InputError(f"{source}, {where}: a session must be an object, not {type_name(item)}")
    session_id = _session_id(item, source, where, f"{Path(source).stem}-{position + 1}")
    raw_messages = item.get("messages")
    if raw_messages is None:
        raise InputError(f"{source}, {where}: session {session_id!r} has no 'messages' ({RECORD_FILE_HINT})")
    if not isinstance(raw_messages, list):
        raise InputError(f"{source}, {where}: 'messages' of session {session_id!r} must be a list")
    read = _validated(SessionShape, item, source, where)
    messages = [Message(m.role, m.content, i) for i, m in enumerate(read.messages)]
    return Session(session_id, read.timestamp, messages, read.metadata)


def _session_id(item: dict[str, Any], source: str, where: str, default: str | None) -> str:
    value = next((item[k] for k in _ID_KEYS if item.get(k) not in (None, "")), default)
    if value is None:
        raise InputError(f"{source}, {where}: missing 'session_id'")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"{source}, {where}: session id must be a string, not {type_name(value)}")
    if isinstance(value, int) and abs(value) >= 10 ** MAX_SESSION_ID:  # str() would raise past 4300 digits
        raise InputError(f"{source}, {where}: session id must be printable, at most {MAX_SESSION_ID} characters")
    text = str(value)
    if len(text) > MAX_SESSION_ID or not text.isprintable():
        raise InputError(f"{source}, {where}: session id must be printable, at most {MAX_SESSION_ID} characters")
    return text


# -- the accepted shapes, as models (unknown keys refused) -----------------------------


def _role(value: object) -> str:
    if not isinstance(value, str) or value.strip().lower() not in ROLES:
        raise ValueError(f"unknown role {value!r}; expected one of {sorted(ROLES)}")
    return value.strip().lower()


def _content(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"message content must be a string, not {type_name(value)}")
    return value


def _timestamp(value: object) -> datetime | None:
    """ISO date or date-time ('YYYY-MM-DD HH:MM:SS', 'YYYY-MM-DD', '...T...Z'); YAML may pre-parse it."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, str) and len(value) <= 64:
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            return parse_datetime(text)
        except ValueError:
            pass
    raise ValueError(f"timestamp {str(value)[:64]!r} is not an ISO date or date-time "
                     "(expected 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD')")


def _metadata(value: object) -> dict[str, JsonValue]:
    """Metadata as JSON: dates become ISO strings; a node budget defeats YAML alias bombs."""
    if not value:
        return {}
    if not isinstance(value, dict):
        raise ValueError("'metadata' must be an object")
    budget = [MAX_METADATA_NODES]
    return {str(k): _json_value(v, budget) for k, v in value.items()}


def _json_value(value: Any, budget: list[int]) -> JsonValue:
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"metadata is too large (over {MAX_METADATA_NODES} values)")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, list):
        return [_json_value(v, budget) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v, budget) for k, v in value.items()}
    raise ValueError(f"metadata value of type {type_name(value)} is not JSON")


_Role = Annotated[str, BeforeValidator(_role)]
_Content = Annotated[str, BeforeValidator(_content)]
_Timestamp = Annotated[Optional[datetime], BeforeValidator(_timestamp)]
_SessionId = Any  # checked by `_session_id` (any one of the three keys names the session)


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MessageShape(_Shape):
    """A message: `{"role", "content"}`."""

    role: _Role = Field(default=None, validate_default=True)
    content: _Content = Field(default=None, validate_default=True)


class MessageLine(MessageShape):
    """A JSONL line that is one message of the session it names: a message plus
    `session_id` (or `id` / `conversation_id`) and, optionally, the session's `timestamp`."""

    session_id: _SessionId = None
    id: _SessionId = None
    conversation_id: _SessionId = None
    timestamp: _Timestamp = None


class SessionShape(_Shape):
    """A session: `{"id" | "session_id" | "conversation_id", "timestamp", "metadata", "messages"}`."""

    session_id: _SessionId = None
    id: _SessionId = None
    conversation_id: _SessionId = None
    messages: list[MessageShape]
    metadata: Annotated[dict[str, Any], BeforeValidator(_metadata)] = Field(default_factory=dict)
    timestamp: _Timestamp = None


S = TypeVar("S", bound=_Shape)


def _validated(shape: type[S], item: dict[str, Any], source: str, where: str) -> S:
    """`item` read as `shape`; InputError naming the file, the place and the first problem."""
    try:
        return shape.model_validate(item)
    except ValidationError as exc:
        raise _refusal(exc, source, where) from None
    except RecursionError:
        raise InputError(f"{source}, {where}: nests too deeply") from None


def _refusal(exc: ValidationError, source: str, where: str) -> InputError:
    error = exc.errors(include_url=False)[0]
    loc = list(error.get("loc", ()))
    name = loc.pop() if loc and isinstance(loc[-1], str) else None
    place = where + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    kind = error.get("type")
    if kind == "extra_forbidden":
        text = f"unknown key {name!r}"
    elif kind == "value_error":
        text = str(error.get("ctx", {}).get("error", error.get("msg")))
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        text = "a message must be an object with 'role' and 'content'"
    else:
        text = f"{name or 'value'}: {error.get('msg', 'invalid')}"
    return InputError(f"{source}, {place}: {text}")

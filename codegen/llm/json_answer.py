"""Reading a model's JSON answer tolerantly, and the JSON Schema sent for structured output.

A model may wrap its JSON in prose or ``` fences; the candidates are the whole text, the
fenced blocks, then every balanced JSON object or array in the text that parses, in order
(the caller takes the first that validates). The schema sent with `response_format` is the
pydantic schema made strict (every object closed and every property listed as required),
as OpenAI's strict mode demands; pydantic still validates the answer against the model.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

NO_JSON = "the answer holds no JSON object or array"
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.S)


def _balanced_end(text: str, start: int) -> int:
    """The index after the bracket that closes the one at `start`, or -1."""
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def _balanced_values(text: str) -> Iterator[Any]:
    """Every balanced JSON object or array in `text` that parses, in order (not nested ones
    of a value already found)."""
    start = 0
    while start < len(text):
        if text[start] in "{[":
            end = _balanced_end(text, start)
            if end > 0:
                try:
                    yield json.loads(text[start:end])
                    start = end
                    continue
                except ValueError:
                    pass
        start += 1


def json_candidates(text: str) -> Iterator[Any]:
    """The JSON values a model's answer may mean, most likely first: the whole text, each
    ``` fenced block's values, then every balanced object or array in the text."""
    stripped = text.strip()
    try:
        yield json.loads(stripped)
        return
    except ValueError:
        pass
    for block in _FENCE.findall(stripped):
        yield from _balanced_values(block)
    yield from _balanced_values(stripped)


def extract_json(text: str) -> Any:
    """The first JSON value in a model's answer (`json_candidates`); ValueError if none."""
    for value in json_candidates(text):
        return value
    raise ValueError(NO_JSON)


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")


def strict_schema(schema: Any) -> Any:
    """`schema` (a pydantic JSON Schema) with every object that lists properties closed and
    all of them required, and no `default`s: what strict structured output accepts."""
    if isinstance(schema, list):
        return [strict_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "default":
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: strict_schema(sub) for name, sub in value.items()}
        else:
            out[key] = strict_schema(value)
    if "$ref" in out and len(out) > 1:  # strict mode allows no siblings next to a $ref
        out = {"$ref": out["$ref"]}
    properties = out.get("properties")
    if isinstance(properties, dict):
        out["additionalProperties"] = False
        out["required"] = list(properties)
    elif out.get("type") == "object" and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def schema_name(name: str) -> str:
    """A `json_schema.name` the API accepts: [A-Za-z0-9_-], at most 64 characters."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]
    return cleaned or "answer"

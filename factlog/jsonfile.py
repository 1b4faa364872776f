"""Reading untrusted input files: size-capped UTF-8 text, JSON documents and JSON lines.

Every error is an `InputError` that names the file and, where there is one, the line.
Record files, exports and transcripts all read through here. JSON lines are split on
`\n` only (a raw U+2028 or U+2029 inside a string is part of its line), and a number past
Python's integer-digit limit is a clear error, not a traceback.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from factlog.errors import InputError


def read_text(path: Path, limit: int) -> str:
    """The file's text (UTF-8, a BOM allowed), refusing files over `limit` bytes."""
    source = str(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or a device could block or never end
            raise InputError(f"{source}: not a regular file")
        size = info.st_size
        if size > limit:
            raise InputError(f"{source}: file is {size} bytes; at most {limit} are allowed")
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{source}: cannot read it: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise InputError(f"{source}: file is over {limit} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{source}, line {line}: not valid UTF-8") from None


def json_document(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}, line {exc.lineno}: malformed JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{source}: JSON nests too deeply") from None
    except ValueError as exc:  # int() past sys.get_int_max_str_digits()
        raise InputError(f"{source}: {_number_problem(exc)}") from None


def json_object_lines(text: str, source: str) -> list[tuple[int, dict[str, Any]]]:
    """JSONL: one object per non-blank line, with its line number."""
    found: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{source}, line {number}: malformed JSON: {exc.msg}") from None
        except RecursionError:
            raise InputError(f"{source}, line {number}: JSON nests too deeply") from None
        except ValueError as exc:
            raise InputError(f"{source}, line {number}: {_number_problem(exc)}") from None
        if not isinstance(item, dict):
            raise InputError(f"{source}, line {number}: expected a JSON object, not {type_name(item)}")
        found.append((number, item))
    return found


def _number_problem(exc: ValueError) -> str:
    if "digits" in str(exc):
        return "a number has too many digits"
    return "malformed JSON"


def type_name(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)

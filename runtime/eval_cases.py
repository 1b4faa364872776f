"""Reading `uac eval` case files: a bad FILE is refused whole (InputError, one line, exit
2); a bad CASE inside a good file is a `CaseError`, reported as that case's error row
while the run goes on."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factlog.errors import InputError
from factlog.kinds import singular
from runtime.eval_score import ANSWER_KINDS, AnswerKind

MAX_FILE_BYTES = 256 * 1024 * 1024


class CaseError(Exception):
    """One case cannot be run as written; its message says why (one line)."""


def read_json_file(path: Path, container: str) -> tuple[dict[str, Any], list[Any]]:
    """The file's top-level object and its `container` list (`cases`, `scenarios`)."""
    try:
        if path.is_dir():
            raise InputError(f"{path}: is a folder, not a case file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({type(exc).__name__})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"{path}: not JSON ({exc})") from None
    except RecursionError:
        raise InputError(f"{path}: nests too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get(container), list):
        raise InputError(f"{path}: expected a JSON object with a {container!r} list")
    return data, data[container]


def case_label(item: object, index: int, id_key: str) -> str:
    """The case's id when it has a usable one, else `#<position>` (1-based)."""
    if isinstance(item, Mapping):
        value = item.get(id_key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            text = str(value)
            return text if len(text) <= 200 and text.isprintable() else text[:200].encode("unicode_escape").decode()
    return f"#{index + 1}"


@dataclass(frozen=True)
class AnalyticalCase:
    case_id: str
    type: str
    n: int | None
    question: str
    answer_kind: AnswerKind
    gold: Any
    records: list[dict[str, Any]]
    kind: str
    expression: str | None


def analytical_case(item: object) -> AnalyticalCase:
    """A case of the analytical format, or CaseError naming its first problem."""
    if not isinstance(item, Mapping):
        raise CaseError(f"a case must be an object, not {type(item).__name__}")
    case_id, type_name = item.get("case_id"), item.get("type")
    if not isinstance(case_id, str) or not case_id.strip():
        raise CaseError("'case_id' must be a non-empty string")
    if not isinstance(type_name, str) or not type_name.strip():
        raise CaseError("'type' must be a non-empty string")
    n = item.get("n")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int)):
        raise CaseError("'n' must be an integer")
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        raise CaseError("'question' must be a non-empty string")
    answer_kind = item.get("answer_kind")
    if answer_kind not in ANSWER_KINDS:
        raise CaseError(f"'answer_kind' must be one of {', '.join(ANSWER_KINDS)}, not {answer_kind!r}")
    if "gold" not in item:
        raise CaseError("no 'gold' answer")
    records = item.get("records")
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise CaseError("'records' must be a list of objects")
    kind = item.get("kind")
    if kind is None:
        kind = singular(type_name.strip().lower().replace(" ", "_").replace("-", "_"))
    if not isinstance(kind, str) or not kind.strip():
        raise CaseError("'kind' must be a non-empty string")
    expression = item.get("expression")
    if expression is not None and (not isinstance(expression, str) or not expression.strip()):
        raise CaseError("'expression' must be a non-empty string")
    return AnalyticalCase(case_id, type_name, n, question, answer_kind, item["gold"], list(records), kind,
                          expression)

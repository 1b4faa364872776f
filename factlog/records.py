"""Structured facts as given: `--field name=value` pairs and record files (JSONL or a JSON array).

Field names are kept exactly as given. Values are typed JSON: a value that reads as a JSON
number, boolean, null, array or object is taken as that; anything else stays a string
(`007`, `2025-01-15` and `Tokyo` are strings). Dates in canonical date fields are checked,
so `departure_date=2025-02-30` is refused instead of silently becoming text.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import Any, Sequence

from codegen.vocabulary import canonical
from factlog.errors import InputError
from factlog.jsonfile import json_document, json_object_lines, read_text, type_name
from factlog.model import JsonValue, NewFact, check_kind, parse_iso_date

MAX_RECORD_FILE_BYTES = 100 * 1024 * 1024


def parse_value(raw: str) -> JsonValue:
    try:
        value: JsonValue = json.loads(raw)
    except ValueError:
        return raw
    except RecursionError:
        raise InputError("a --field value nests too deeply") from None
    if isinstance(value, str):  # a quoted JSON string: keep the quotes' content
        return value
    if isinstance(value, float) and value != value:
        return raw
    return value


def parse_field_options(options: Sequence[str]) -> dict[str, JsonValue]:
    fields: dict[str, JsonValue] = {}
    for option in options:
        name, sep, raw = option.partition("=")
        if not sep:
            raise InputError(f"--field {option!r} has no '=': write it as name=value")
        name = name.strip()
        if not name:
            raise InputError(f"--field {option!r} has an empty name")
        fields[name] = parse_value(raw)
    return fields


def check_canonical_dates(kind: str | None, fields: dict[str, JsonValue]) -> None:
    """Refuse an invalid date in a field the canonical vocabulary types as a date."""
    domain = canonical(kind) if kind else None
    if domain is None:
        return
    for name, annotation in domain.fields.items():
        value = fields.get(name)
        if value is None or annotation not in ("date", "datetime"):
            continue
        if annotation == "date":
            parse_iso_date(value if isinstance(value, str) else repr(value), f"field {name}")
        else:
            try:
                datetime.fromisoformat(str(value))
            except ValueError:
                raise InputError(f"field {name} {value!r} is not a valid date-time (ISO 8601)") from None


def describe(kind: str, fields: dict[str, JsonValue]) -> str:
    """A readable one-line text for a structured fact that came without one."""
    parts = ", ".join(f"{k}={v}" for k, v in fields.items())
    return f"{kind}: {parts}" if parts else kind


def structured_fact(kind: str, fields: dict[str, JsonValue], *, text: str | None = None,
                    key: str | None = None, valid_from: str | date | None = None,
                    valid_to: str | date | None = None) -> NewFact:
    check_kind(kind)
    check_canonical_dates(kind, fields)
    return NewFact(
        text=text if text is not None else describe(kind, fields),
        kind=kind,
        fields=fields,
        key=key,
        valid_from=parse_iso_date(valid_from, "valid-from"),
        valid_to=parse_iso_date(valid_to, "valid-to"),
    )


def read_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Objects from a JSONL file (one per line) or a JSON array, with their line numbers."""
    text = read_text(path, MAX_RECORD_FILE_BYTES)
    if not text.lstrip().startswith("["):
        return json_object_lines(text, str(path))
    data = json_document(text, str(path))
    for item in data:
        if not isinstance(item, dict):
            raise InputError(f"{path}, line 1: each record must be a JSON object, not {type_name(item)}")
    return [(1, item) for item in data]


def record_facts(path: Path, kind: str, key_field: str | None = None) -> list[NewFact]:
    """Each object in a record file becomes one structured fact of `kind`."""
    check_kind(kind)
    facts: list[NewFact] = []
    for lineno, record in read_records(path):
        key: str | None = None
        if key_field is not None:
            if record.get(key_field) is None:
                raise InputError(f"{path}:{lineno}: record has no {key_field!r} (the --key-field)")
            key = str(record[key_field])
        try:
            facts.append(structured_fact(kind, record, key=key))
        except InputError as exc:
            raise InputError(f"{path}, line {lineno}: {exc}") from None
    return facts

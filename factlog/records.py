"""Structured facts as given: `--field name=value` pairs and record files (JSONL or a JSON array).

Field names are kept exactly as given. Values are typed JSON: a value that reads as a JSON
number, boolean, null, array or object is taken as that; anything else stays a string
(`007`, `2025-01-15` and `Tokyo` are strings). Dates in canonical date fields are checked,
so `departure_date=2025-02-30` is refused instead of silently becoming text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Mapping, Sequence

from factlog.errors import InputError
from factlog.jsonfile import json_document, json_object_lines, read_text, type_name
from factlog.model import MAX_FIELD_NAME, JsonValue, NewFact, check_fields, check_kind, parse_iso_date
from factlog.sources import content_digest, record_source
from factlog.timeparse import parse_datetime
from factlog.vocabulary import canonical

MAX_RECORD_FILE_BYTES = 100 * 1024 * 1024


_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?", re.ASCII)


def parse_value(raw: str) -> JsonValue:
    try:
        value: JsonValue = json.loads(raw)
    except ValueError:
        if _JSON_NUMBER.fullmatch(raw.strip()):  # past Python's integer-digit limit
            raise InputError(f"--field value {raw[:20]}... is a number with too many digits") from None
        return raw
    except RecursionError:
        raise InputError("a --field value nests too deeply") from None
    if isinstance(value, str):  # a quoted JSON string: keep the quotes' content
        return value
    if isinstance(value, float) and value != value:
        return raw
    return value


def _split_option(flag: str, option: str, form: str) -> tuple[str, str]:
    """`name=value` of a repeatable command-line option, the name stripped."""
    name, sep, value = option.partition("=")
    if not sep:
        raise InputError(f"{flag} {option!r} has no '=': write it as {form}")
    return name.strip(), value


def parse_field_options(options: Sequence[str]) -> dict[str, JsonValue]:
    fields: dict[str, JsonValue] = {}
    for option in options:
        name, raw = _split_option("--field", option, "name=value")
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
        if not isinstance(value, str):  # (repr of a huge integer would itself raise)
            raise InputError(f"field {name} is {type_name(value)}, not a valid date "
                             f"({'YYYY-MM-DD' if annotation == 'date' else 'ISO 8601 date-time'})")
        if annotation == "date":
            parse_iso_date(value, f"field {name}")
        else:
            try:
                parse_datetime(value)
            except ValueError:
                raise InputError(f"field {name} {value[:64]!r} is not a valid date-time (ISO 8601)") from None


_SHOWN_VALUE = 200  # characters of one value in a made-up text
_SHOWN_TEXT = 4000  # characters of the whole made-up text (well under MAX_TEXT_BYTES)


def describe(kind: str, fields: dict[str, JsonValue]) -> str:
    """A readable one-line text for a structured fact that came without one; long values are
    cut (the fields keep them whole), so the text never refuses a fact its fields allow."""
    parts = ", ".join(f"{k}={_shown(v)}" for k, v in fields.items())
    text = f"{kind}: {parts}" if parts else kind
    return text if len(text) <= _SHOWN_TEXT else text[:_SHOWN_TEXT - 3] + "..."


def _shown(value: JsonValue) -> str:
    text = str(value)
    return text if len(text) <= _SHOWN_VALUE else text[:_SHOWN_VALUE - 3] + "..."


def structured_fact(kind: str, fields: dict[str, JsonValue], *, text: str | None = None,
                    key: str | None = None, valid_from: str | date | None = None,
                    valid_to: str | date | None = None) -> NewFact:
    check_kind(kind)
    check_canonical_dates(kind, fields)
    if text is None:
        try:
            text = describe(kind, fields)
        except ValueError:  # str() of an integer past Python's digit limit
            check_fields(fields)  # names the field and the limit
            raise
    return NewFact(
        text=text,
        kind=kind,
        fields=fields,
        key=key,
        valid_from=parse_iso_date(valid_from, "valid-from"),
        valid_to=parse_iso_date(valid_to, "valid-to"),
    )


@dataclass(frozen=True)
class RecordEntry:
    line: int  # 1-based line of the record (JSONL), 1 for every item of a JSON array
    index: int | None  # position in a JSON array; None in JSONL
    record: dict[str, Any]

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.index is None else f"item {self.index + 1}"


def read_record_file(path: Path) -> tuple[str, list[RecordEntry]]:
    """The file's content digest and its objects: JSONL (one per line) or a JSON array."""
    text = read_text(path, MAX_RECORD_FILE_BYTES)
    digest = content_digest(text.encode("utf-8", "surrogatepass"))
    if not text.lstrip().startswith("["):
        return digest, [RecordEntry(n, None, item) for n, item in json_object_lines(text, str(path))]
    data = json_document(text, str(path))
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(f"{path}, item {index + 1}: each record must be a JSON object, not {type_name(item)}")
    return digest, [RecordEntry(1, i, item) for i, item in enumerate(data)]


def read_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Objects from a JSONL file (one per line) or a JSON array, with their line numbers."""
    return [(entry.line, entry.record) for entry in read_record_file(path)[1]]


def check_field_map(field_map: Mapping[str, str] | None) -> dict[str, str]:
    """`--map old=new` pairs: names non-empty, no name mapped twice, no two onto one."""
    result: dict[str, str] = {}
    for old, new in (field_map or {}).items():
        if not isinstance(old, str) or not isinstance(new, str) or not old.strip() or not new.strip():
            raise InputError("a field mapping needs two non-empty names: --map old=new")
        if len(new) > MAX_FIELD_NAME:
            raise InputError(f"--map target {new[:40]!r} is longer than {MAX_FIELD_NAME} characters")
        result[old] = new
    targets = list(result.values())
    doubled = sorted({t for t in targets if targets.count(t) > 1})
    if doubled:
        raise InputError(f"--map maps more than one field onto {doubled[0]!r}")
    return result


def parse_map_options(options: Sequence[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for option in options:
        old, new = _split_option("--map", option, "old=new (e.g. amount=amount_usd)")
        if old in pairs:
            raise InputError(f"--map names field {old!r} twice")
        pairs[old] = new.strip()
    return check_field_map(pairs)


def map_fields(fields: Mapping[str, Any], field_map: Mapping[str, str]) -> dict[str, Any]:
    """The fields with mapped names; a mapped name that is also given as is is a conflict."""
    if not field_map:
        return dict(fields)
    result: dict[str, Any] = {}
    for name, value in fields.items():
        target = field_map.get(name, name)
        if target in result:
            raise InputError(f"field {target!r} is given twice (once through --map {name}={target})")
        result[target] = value
    return result


def unused_mappings(field_map: Mapping[str, str], seen: set[str]) -> None:
    missing = sorted(set(field_map) - seen)
    if missing:
        raise InputError(f"--map {missing[0]}={field_map[missing[0]]}: there is no field {missing[0]!r} to rename")


def record_facts(path: Path, kind: str, key_field: str | None = None,
                 field_map: Mapping[str, str] | None = None) -> list[tuple[NewFact, str]]:
    """Each object in a record file becomes one structured fact of `kind`, with its source
    (`factlog.sources`: the file's content digest and the record's line or index). Field
    names are mapped first (`--map`); `key_field` names a field after mapping."""
    check_kind(kind)
    mapping = check_field_map(field_map)
    digest, entries = read_record_file(path)
    facts: list[tuple[NewFact, str]] = []
    seen: set[str] = set()
    for entry in entries:
        seen.update(entry.record)
        try:
            record = map_fields(entry.record, mapping)
            key: str | None = None
            if key_field is not None:
                if record.get(key_field) is None:
                    raise InputError(f"record has no {key_field!r} (the --key-field)")
                key = str(record[key_field])
            facts.append((structured_fact(kind, record, key=key), record_source(digest, entry.line, entry.index)))
        except InputError as exc:
            raise InputError(f"{path}, {entry.where}: {exc}") from None
    unused_mappings(mapping, seen)
    return facts

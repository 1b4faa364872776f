"""What a fact is: the input shape (`NewFact`) and the stored shape (`Fact`).

Every check on untrusted input happens here, before anything touches storage, so that a
bad fact is refused with a clear `InputError` and nothing is written.
"""

from __future__ import annotations

import re
from dataclasses import InitVar, dataclass, field
from datetime import date, datetime
from typing import Any, TypeAlias

from factlog.errors import InputError
from factlog.limits import (
    MAX_FACT_ID,
    MAX_FIELD_NAME,
    MAX_FIELDS,
    MAX_FIELDS_CHARS,
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    MAX_KEY,
    MAX_STRING_CHARS,
    MAX_TEXT_BYTES,
    int_too_long,
    reserved_field_name,
)
from factlog.timeparse import parse_date

JsonValue: TypeAlias = "str | int | float | bool | None | list[JsonValue] | dict[str, JsonValue]"

__all__ = ["MAX_FIELD_NAME", "MAX_FIELDS", "MAX_JSON_DEPTH", "MAX_KEY", "MAX_TEXT_BYTES"]  # re-exported

USER_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", re.ASCII)
KIND_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}", re.ASCII)
ROLES = frozenset({"user", "assistant", "system", "tool"})


def check_user_id(user: str) -> str:
    """A user id names folders and rows: ASCII letters, digits, `._-`, 1-64 chars, no `..`."""
    if not isinstance(user, str) or not user:
        raise InputError("user id must be a non-empty string")
    if len(user) > 64:
        raise InputError(f"user id is {len(user)} characters; at most 64 are allowed")
    if not USER_ID_PATTERN.fullmatch(user) or ".." in user:
        raise InputError(
            f"user id {user!r} is not allowed: use ASCII letters, digits, '.', '_' or '-', "
            "starting with a letter or digit, and no '..'"
        )
    return user


def check_kind(kind: str) -> str:
    if not KIND_PATTERN.fullmatch(kind):
        raise InputError(
            f"kind {kind!r} is not allowed: use lowercase ASCII letters, digits and '_', "
            "starting with a letter, at most 64 characters"
        )
    return kind


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROL_OR_SPACE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _has_control(text: str, allow_newlines: bool) -> bool:
    """Control characters (Unicode Cc) and lone surrogates; tab, CR and LF only in text."""
    return (_CONTROL if allow_newlines else _CONTROL_OR_SPACE).search(text) is not None


def check_text(text: str) -> str:
    if not isinstance(text, str):
        raise InputError("fact text must be a string")
    if not text.strip():
        raise InputError("fact text is empty")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_TEXT_BYTES:
        raise InputError(f"fact text is {size} bytes; at most {MAX_TEXT_BYTES} (64 KiB) are allowed")
    if _has_control(text, allow_newlines=True):
        raise InputError("fact text contains control characters or lone surrogates")
    return text


def check_fields(fields: dict[str, Any], *, compilable: bool = True) -> dict[str, JsonValue]:
    """The one predicate for fact fields: JSON the compiler can always turn into a module
    (the limits live in `factlog.limits`). Raises `InputError` naming the first problem.
    `compilable=False` checks only that they are safe JSON (restoring an export of facts
    stored before these limits: the log keeps them and the compiler quarantines them)."""
    if not isinstance(fields, dict):
        raise InputError("fields must be a JSON object")
    if len(fields) > MAX_FIELDS:
        raise InputError(f"a fact has {len(fields)} fields; at most {MAX_FIELDS} are allowed")
    for name in fields:
        if not isinstance(name, str) or not name.strip():
            raise InputError("field names must be non-empty strings")
        if len(name) > MAX_FIELD_NAME or _has_control(name, allow_newlines=False):
            raise InputError(f"field name {name[:40]!r} is too long or has control characters")
        if compilable and reserved_field_name(name):
            raise InputError(f"field name {name[:40]!r} is not allowed: a name starting with '__' is "
                             "private in Python; rename it (e.g. --map)")
    budget = [MAX_FIELDS_CHARS if compilable else 2 ** 62]
    for name, value in fields.items():
        _check_json(value, 1, name, budget, compilable)
    return fields


def _spend(budget: list[int], chars: int) -> None:
    budget[0] -= chars
    if budget[0] < 0:
        raise InputError(f"a fact's fields are too large: at most {MAX_FIELDS_CHARS} characters of JSON")


def _check_json(value: Any, depth: int, name: str, budget: list[int], compilable: bool) -> None:
    if depth > MAX_JSON_DEPTH:
        raise InputError(f"field {name[:40]!r}: values nest deeper than {MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, bool):
        _spend(budget, 5)
        return
    if isinstance(value, str):
        _check_string(value, name, "value", compilable)
        _spend(budget, len(value) + 2)
        return
    if isinstance(value, int):
        if compilable and int_too_long(value):
            raise InputError(f"field {name[:40]!r}: integer has more than {MAX_INT_DIGITS} digits")
        _spend(budget, MAX_INT_DIGITS + 1)
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"field {name[:40]!r}: values must be finite numbers (no NaN or infinity)")
        _spend(budget, 24)
        return
    if isinstance(value, list):
        _spend(budget, 2)
        for item in value:
            _check_json(item, depth + 1, name, budget, compilable)
        return
    if isinstance(value, dict):
        _spend(budget, 2)
        for k, item in value.items():
            if not isinstance(k, str):
                raise InputError(f"field {name[:40]!r}: object keys in field values must be strings")
            _check_string(k, name, "object key", compilable)
            _spend(budget, len(k) + 3)
            _check_json(item, depth + 1, name, budget, compilable)
        return
    raise InputError(f"field {name[:40]!r}: a value of type {type(value).__name__} is not JSON")


def _check_string(text: str, name: str, what: str, compilable: bool) -> None:
    if compilable and len(text) > MAX_STRING_CHARS:
        raise InputError(f"field {name[:40]!r}: a string {what} of {len(text)} characters; "
                         f"at most {MAX_STRING_CHARS} are allowed")
    if _has_control(text, allow_newlines=True):
        raise InputError(f"field {name[:40]!r}: a {what} contains control characters or lone surrogates")


def parse_iso_date(value: str | date | None, what: str) -> date | None:
    """Accept `date`, an ISO date string or None; refuse anything else with a clear message."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return parse_date(str(value))
    except ValueError:
        raise InputError(f"{what} {value!r} is not a valid date (expected YYYY-MM-DD)") from None


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a fact came from: the conversation turn (or tool call) that said it."""

    session_id: str | None = None
    message_index: int | None = None
    role: str | None = None
    session_ts: str | None = None  # ISO date-time of the session, as given

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "session_id": self.session_id,
            "message_index": self.message_index,
            "role": self.role,
            "session_ts": self.session_ts,
        }


@dataclass(frozen=True)
class NewFact:
    """A fact as offered for appending: checked on construction, not yet stored."""

    text: str
    kind: str | None = None
    fields: dict[str, JsonValue] = field(default_factory=dict)
    key: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    retracts: int | None = None
    provenance: Provenance = field(default_factory=Provenance)
    # Restoring an export: fields need only be safe JSON (older facts may exceed today's
    # compile limits; the checkpoint quarantines them rather than losing them).
    restoring: InitVar[bool] = False

    def __post_init__(self, restoring: bool) -> None:
        check_text(self.text)
        if self.kind is not None:
            check_kind(self.kind)
        check_fields(self.fields, compilable=not restoring)
        if self.key is not None:
            if not self.key.strip() or len(self.key) > MAX_KEY or _has_control(self.key, False):
                raise InputError(f"identity key must be 1-{MAX_KEY} characters without control characters")
            if self.kind is None:
                raise InputError("an identity key needs a kind (the same kind and key name one entity)")
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise InputError(f"valid_to {self.valid_to} is before valid_from {self.valid_from}")
        if self.retracts is not None and (isinstance(self.retracts, bool) or not isinstance(self.retracts, int)
                                          or not 1 <= self.retracts <= MAX_FACT_ID):
            raise InputError("retracts must name a fact id (a positive integer)")


@dataclass(frozen=True, slots=True)
class Fact:
    """A stored fact. Immutable: a correction or retraction is another fact."""

    user: str
    id: int
    recorded_at: str  # ISO date-time, UTC, transaction time
    text: str
    kind: str | None
    fields: dict[str, JsonValue]
    key: str | None
    valid_from: date | None
    valid_to: date | None
    retracts: int | None
    provenance: Provenance
    prev_hash: str
    hash: str

    def body(self) -> dict[str, JsonValue]:
        """Everything the content hash covers (all but the hash itself)."""
        return {
            "user": self.user,
            "id": self.id,
            "recorded_at": self.recorded_at,
            "text": self.text,
            "kind": self.kind,
            "fields": self.fields,
            "key": self.key,
            "valid_from": self.valid_from.isoformat() if self.valid_from else None,
            "valid_to": self.valid_to.isoformat() if self.valid_to else None,
            "retracts": self.retracts,
            "provenance": self.provenance.to_json(),
            "prev_hash": self.prev_hash,
        }

    def to_json(self) -> dict[str, JsonValue]:
        data = self.body()
        data["hash"] = self.hash
        return data

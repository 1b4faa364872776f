"""The schema a model's extraction answer must validate against (`Endpoint.complete_json`).

An answer is `{"facts": [fact, ...]}`; a fact is

    {"message_index": 3, "text": "...", "subject": null | "husband", "kind": null | "allergy",
     "fields": [{"name": "allergen", "value": "penicillin"}, ...],
     "valid_from": null | "2024-11-22" | "next Friday", "valid_to": null | ...,
     "entity": null | "trip-tokyo-2025"}

Unknown keys are refused (`extra="forbid"`), and so is, as a validation error the model is
re-asked with: a `message_index` that is not one of the messages sent, a field name that is
not a lowercase identifier or is given twice, a date the model gives that names no real day
(`2025-02-30`), and a value of a canonical field that is not of the field's type (a `date`
field holding "soon", a number field holding "expensive"). Dates given as words ("next
Friday", "March 5") are resolved here with `dateparser` against the session's timestamp, so
a validated answer holds ISO dates only. Fields are a list of name/value pairs rather than an
open object, so that the strict JSON Schema servers enforce still lets the model name them.

The checks that need the session (its timestamp, its message indices) read the
`ChunkContext` set by `validation_context` around the call; without one, only the
context-free checks run. Kinds and field names outside the canonical vocabulary are not
errors here: the extractor keeps such a fact as text (`codegen.llm.extract`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from factlog.kinds import normalize_kind
from factlog.model import check_text
from factlog.timeparse import try_date, try_datetime
from factlog.vocabulary import CANONICAL

FIELD_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
MAX_FACT_TEXT = 4000
MAX_VALUE_CHARS = 2000
MAX_FIELDS_PER_FACT = 32
MAX_FACTS_PER_ANSWER = 500
LENGTHS = {"text": MAX_FACT_TEXT, "subject": 200, "kind": 64, "valid_from": 100, "valid_to": 100, "entity": 100}


@dataclass(frozen=True)
class ChunkContext:
    """What validation needs to know of the chunk sent: the session's time (the base of
    relative dates; None when the transcript gives none) and each message index sent, with
    its speaker."""

    session_time: datetime | None
    roles: dict[int, str]


_CONTEXT: ContextVar[ChunkContext | None] = ContextVar("extraction_context", default=None)


@contextmanager
def validation_context(context: ChunkContext) -> Iterator[None]:
    """Validate answers against `context` inside the block."""
    token = _CONTEXT.set(context)
    try:
        yield
    finally:
        _CONTEXT.reset(token)


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


Scalar = str | int | float | bool | None


class FieldValue(_Closed):
    """One field of a fact: its name and a JSON scalar."""

    name: str
    value: Scalar


class ExtractedFact(_Closed):
    """One atomic fact stated in one message."""

    message_index: Annotated[int, Field(ge=0)]
    text: str
    subject: str | None = None
    kind: str | None = None
    fields: Annotated[list[FieldValue], Field(max_length=MAX_FIELDS_PER_FACT)] = Field(default_factory=list)
    valid_from: str | None = None
    valid_to: str | None = None
    entity: str | None = None

    @model_validator(mode="after")
    def _checked(self) -> ExtractedFact:
        for name, limit in LENGTHS.items():  # checked here: strict JSON Schema takes no maxLength
            value = getattr(self, name)
            if isinstance(value, str) and len(value) > limit:
                raise ValueError(f"{name} is {len(value)} characters; at most {limit}")
        check_text(self.text)  # an InputError is a ValueError: pydantic reports it
        if self.entity is not None and self.entity.strip():
            check_text(self.entity)
        context = _CONTEXT.get()
        if context is not None and self.message_index not in context.roles:
            sent = sorted(context.roles)
            raise ValueError(f"message_index {self.message_index} is not one of the messages sent "
                             f"({sent[0]}..{sent[-1]})" if sent else "no messages were sent")
        base = context.session_time if context is not None else None
        seen: set[str] = set()
        kind = canonical_kind(self.kind)
        for item in self.fields:
            if not FIELD_NAME.fullmatch(item.name):
                raise ValueError(f"field name {item.name!r} is not a lowercase identifier (a-z, 0-9, _)")
            if item.name in seen:
                raise ValueError(f"field {item.name!r} is given twice")
            seen.add(item.name)
            if isinstance(item.value, str):
                if item.value.strip():
                    check_text(item.value)
                if len(item.value) > MAX_VALUE_CHARS:
                    raise ValueError(f"field {item.name!r}: at most {MAX_VALUE_CHARS} characters")
            annotation = CANONICAL[kind].fields.get(item.name) if kind is not None else None
            if annotation is not None:
                item.value = typed_value(item.name, annotation, item.value, base)
        self.valid_from = _day(self.valid_from, "valid_from", base)
        self.valid_to = _day(self.valid_to, "valid_to", base)
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError(f"valid_to {self.valid_to} is before valid_from {self.valid_from}")
        return self


class ExtractedFacts(_Closed):
    """The whole answer for one chunk of a session."""

    facts: Annotated[list[ExtractedFact], Field(max_length=MAX_FACTS_PER_ANSWER)]


def canonical_kind(kind: str | None) -> str | None:
    """The canonical kind a model's `kind` names (`"Trips"` -> `trip`), or None."""
    if kind is None or not kind.strip():
        return None
    name = normalize_kind(kind.strip().lower().replace(" ", "_").replace("-", "_"))
    return name if name in CANONICAL else None


def typed_value(name: str, annotation: str, value: Scalar, base: datetime | None) -> Scalar:
    """`value` as the canonical field's type (dates as ISO text); ValueError if it is not one."""
    if value is None:
        return None
    if annotation == "str":
        return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
    if annotation == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
            return value.strip().lower() in ("true", "yes")
        raise ValueError(f"field {name!r} is true or false, not {value!r}")
    if annotation in ("int", "float"):
        return _number(name, annotation, value)
    if annotation == "date":
        return _day(_text(name, value), name, base)
    if annotation == "datetime":
        return _moment(_text(name, value), name, base)
    return value


def _text(name: str, value: Scalar) -> str:
    if not isinstance(value, str):
        raise ValueError(f"field {name!r} is a date: give it as YYYY-MM-DD, not {value!r}")
    return value


def _number(name: str, annotation: str, value: Scalar) -> Scalar:
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        cleaned = re.sub(r"^[$€£]|,|\s|(?i:usd)$", "", value.strip())
        try:
            number = float(cleaned)
        except ValueError:
            number = None
    if number is None or number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"field {name!r} is a number, not {value!r}")
    if annotation == "int":
        if number != int(number):
            raise ValueError(f"field {name!r} is a whole number, not {value!r}")
        return int(number)
    return int(number) if isinstance(value, int) and not isinstance(value, bool) else number


def _parsed(text: str, what: str, base: datetime | None) -> datetime:
    """Words or ISO text as a date-time: relative words against `base`. Without a base, a
    phrase whose day depends on when it is read ("next Friday") is refused. Weekday phrases
    follow the offline rule (`factlog.relative_dates`: "next Friday" is next week's)."""
    import dateparser

    from factlog.relative_dates import RELATIVE_DAY, relative_day

    if base is not None and RELATIVE_DAY.fullmatch(text.strip()):
        day = relative_day(text.strip(), base.date())
        if day is not None:
            return datetime(day.year, day.month, day.day)

    def parse(at: datetime) -> datetime | None:
        settings = {"RELATIVE_BASE": at, "PREFER_DATES_FROM": "future", "RETURN_AS_TIMEZONE_AWARE": False}
        found: datetime | None = dateparser.parse(text, languages=["en"], settings=settings)
        return found

    found = parse(base if base is not None else datetime(2000, 1, 1))
    if found is None or not 1000 <= found.year <= 2999:
        raise ValueError(f"{what} {text!r} is not a real date (give YYYY-MM-DD)")
    if base is None and parse(datetime(2011, 6, 15)) != found:
        raise ValueError(f"{what} {text!r} is relative and the session has no timestamp: give YYYY-MM-DD")
    return found


def _day(text: str | None, what: str, base: datetime | None) -> str | None:
    if text is None or not text.strip():
        return None
    text = text.strip()
    exact = try_date(text)
    if exact is not None:
        return exact.isoformat()
    if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", text):
        raise ValueError(f"{what} {text!r} is not a real date")
    moment = try_datetime(text)
    if moment is not None:
        return moment.date().isoformat()
    return _parsed(text, what, base).date().isoformat()


def _moment(text: str, what: str, base: datetime | None) -> str | None:
    if not text.strip():
        return None
    moment = try_datetime(text.strip())
    if moment is not None:
        return moment.replace(tzinfo=None).isoformat()
    if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}.*", text.strip()):
        raise ValueError(f"{what} {text!r} is not a real date-time")
    return _parsed(text.strip(), what, base).isoformat()


def day_of(value: str | None) -> date | None:
    """A validated `valid_from` / `valid_to` as a date."""
    return try_date(value) if value else None

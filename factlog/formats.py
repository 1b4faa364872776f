"""Persisted formats: every file we write and read back is a pydantic model with one
explicit format version.

    class AlertStateFile(Format):
        FORMAT: ClassVar[int] = 2
        active: list[ActiveAlertModel] = []

        @classmethod
        def upgrade(cls, data: dict[str, Any], found: int) -> dict[str, Any]:
            if found == 1:  # format 1 had no `format` key and called `active` `alerts`
                data = {"active": data.get("alerts", [])}
            return data

    state = AlertStateFile.parse(path.read_text(), source=str(path))
    path.write_text(state.dump())

Reading: a document without a `format` key was written before formats were versioned and
reads as format 1; `upgrade` turns an older format's data into the current shape; a
format newer than the code is refused (it was written by a newer release). That rule is
`factlog.strict_json.format_body`, shared with the documents read without pydantic (a
version's `meta.json` and manifest). Unknown keys are refused, and so is anything else
the model does not accept: always one `InputError` line naming the source and the first
problem, never a traceback.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer, ValidationError

from factlog.errors import InputError
from factlog.strict_json import format_body
from factlog.timeparse import parse_date, parse_datetime

F = TypeVar("F", bound="Format")


class Format(BaseModel):
    """A persisted document. Subclasses set `FORMAT` (the version they write) and, when it
    is above 1, an `upgrade` that reads every older format they still open."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    FORMAT: ClassVar[int] = 1
    format: int = 1

    def __init__(self, **data: Any) -> None:
        data.setdefault("format", type(self).FORMAT)
        super().__init__(**data)

    @classmethod
    def upgrade(cls, data: dict[str, Any], found: int) -> dict[str, Any]:
        """`data` as written in format `found` (< FORMAT), in the current shape."""
        return data

    @classmethod
    def load(cls: type[F], data: object, *, source: str) -> F:
        """Validate a decoded JSON document (upgrading an older format); InputError if bad."""
        body, found = format_body(data, source=source, current=cls.FORMAT)
        if found < cls.FORMAT:
            body = cls.upgrade(body, found)
        try:
            return cls.model_validate({**body, "format": cls.FORMAT})
        except ValidationError as exc:
            raise InputError(f"{source}: {first_problem(exc)}") from None

    @classmethod
    def parse(cls: type[F], text: str | bytes, *, source: str) -> F:
        """Decode JSON text and `load` it."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, digits
            raise InputError(f"{source}: not valid JSON ({type(exc).__name__})") from None
        return cls.load(data, source=source)

    def dump(self, *, indent: int | None = 2) -> str:
        """The document as JSON text (keys sorted, so equal documents have equal bytes)."""
        return json.dumps(self.model_dump(mode="json"), indent=indent, sort_keys=True, ensure_ascii=False)


def first_problem(exc: ValidationError) -> str:
    """One line for a pydantic error: where, what, and how many more."""
    errors = exc.errors(include_url=False)
    if not errors:
        return "invalid"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "document"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def _iso_moment(value: object) -> object:
    return parse_datetime(value) if isinstance(value, str) else value


def _iso_day(value: object) -> object:
    return parse_date(value) if isinstance(value, str) else value


# A moment / a day as stored: ISO text read by `factlog.timeparse` and written with
# `isoformat()` (`+00:00`, never pydantic's `Z`), so rewriting a file keeps its bytes.
IsoDateTime = Annotated[datetime, BeforeValidator(_iso_moment),
                        PlainSerializer(lambda moment: moment.isoformat(), return_type=str, when_used="json")]
IsoDate = Annotated[date, BeforeValidator(_iso_day),
                    PlainSerializer(lambda day: day.isoformat(), return_type=str, when_used="json")]

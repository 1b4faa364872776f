"""`events.jsonl`: one line per version event (a version published, or made current
again by a rollback), appended as it happens, oldest first."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field

from factlog.errors import InputError
from factlog.formats import Format
from factlog.timeparse import parse_datetime


def _iso_moment(text: str) -> str:
    parse_datetime(text)  # ValueError: not a date-time
    return text


class VersionEvent(Format):
    """A line of `events.jsonl`. Format 1: `{"action", "at", "previous", "version"}`, the
    lines written before formats were versioned (they have no `format` key)."""

    FORMAT: ClassVar[int] = 1

    action: Literal["publish", "rollback"]
    version: Annotated[int, Field(ge=1, strict=True)]
    previous: Annotated[int, Field(ge=1, strict=True)] | None = None  # the version current before
    at: Annotated[str, AfterValidator(_iso_moment)]  # ISO date-time, UTC

    def line(self) -> str:
        """The event as one line of JSON (no newline)."""
        return self.dump(indent=None)

    @classmethod
    def from_line(cls, line: str, *, source: str) -> VersionEvent | None:
        """The event on `line`; None for a line that is not one (a torn last line from a crash)."""
        try:
            return cls.parse(line, source=source)
        except InputError:
            return None


def read_events(text: str, *, source: str) -> list[VersionEvent]:
    """Every event of an `events.jsonl` text, oldest first; lines that are not events are skipped."""
    events = (VersionEvent.from_line(line, source=source) for line in text.splitlines())
    return [event for event in events if event is not None]

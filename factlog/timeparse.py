"""Dates and times stored as ISO 8601 text, read back: the one place for the rule.

Every package reads stored dates through here (fact `valid_from`/`valid_to`, `recorded_at`,
a session's `session_ts`, typed field values, version and alert timestamps).

- Strict: `parse_date`, `parse_datetime`, `parse_time` return the value or raise
  `ValueError` (the caller turns that into its own message). They are the standard
  library's ISO readers themselves, so the hot paths (every fact read) pay nothing extra.
- Lenient: `try_date`, `try_datetime` return None for text that is no such value.
- `day_of(stamp)`: the day of a stored timestamp (its leading `YYYY-MM-DD`), or None.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time

parse_date: Callable[[str], date] = date.fromisoformat
"""An ISO date, `YYYY-MM-DD`; `ValueError` otherwise."""

parse_datetime: Callable[[str], datetime] = datetime.fromisoformat
"""An ISO date-time (or a bare date, read as midnight); `ValueError` otherwise."""

parse_time: Callable[[str], time] = time.fromisoformat
"""An ISO time of day, `HH:MM[:SS[.ffffff]]`; `ValueError` otherwise."""


def try_date(text: str) -> date | None:
    """`text` as an ISO date, or None when it is not one."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def try_datetime(text: str) -> datetime | None:
    """`text` as an ISO date-time (a bare date is midnight), or None when it is not one."""
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def day_of(stamp: str | None) -> date | None:
    """The day of a stored timestamp (`recorded_at`, `session_ts`, ...): its first ten
    characters as an ISO date, or None when they are not one (or there is no stamp)."""
    return try_date(stamp[:10]) if stamp else None

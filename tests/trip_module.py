"""Trips, written as a generated package's trip module: the validation benchmark packages
this very file, and the query tests and benchmark hold their trips in its class."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True, kw_only=True)
class Trip:
    """One trip."""

    destination: str
    country: str
    departure_date: date
    return_date: date | None = None
    is_international: bool | None = None
    cost_usd: float | None = None
    fact_ids: list[int] = field(default_factory=list)

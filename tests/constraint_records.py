"""Record classes shaped like a generated module's, built from the canonical vocabulary.

Tests and the constraints benchmark build user modules out of these, the way codegen
would: frozen, keyword-only dataclasses whose canonical fields default to None, plus
`fact_ids`.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import field, make_dataclass
from datetime import date, timedelta
from typing import Any

from factlog.vocabulary import CANONICAL, PROVENANCE_FIELD


def record_class(kind: str, *, without: tuple[str, ...] = ()) -> Any:
    """The canonical class for `kind`, optionally lacking some fields entirely."""
    domain = CANONICAL[kind]
    columns: list[Any] = [(name, Any, None) for name in domain.fields if name not in without]
    columns.append((PROVENANCE_FIELD, list[int], field(default_factory=list)))
    return make_dataclass(domain.class_name, columns, frozen=True, kw_only=True)


Passport = record_class("passport")
Document = record_class("document")
Trip = record_class("trip")
Allergy = record_class("allergy")
Medication = record_class("medication")
Appointment = record_class("appointment")
Payment = record_class("payment")
Bill = record_class("bill")
Vehicle = record_class("vehicle")
Event = record_class("event")
Deadline = record_class("deadline")


def user_module(**attributes: object) -> types.SimpleNamespace:
    return types.SimpleNamespace(**attributes)


def days_from(today: date) -> Callable[[int], date]:
    """`day(n)`: the date `n` days after `today` (before it, for a negative `n`)."""
    return lambda offset: today + timedelta(days=offset)

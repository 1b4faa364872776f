"""Built-in constraints over the canonical vocabulary (factlog.vocabulary).

Each reads the canonical attributes and fields it names; a record lacking a field (or
holding None there) is ignored, a module lacking the attribute or every record lacking
the field skips the constraint. The fields each one reads are declared (`fields=`), so
records lacking them are reported as notices (`constraints.notices`). Only current and
future things raise: past trips, finished medications and past appointments do not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import date, datetime

from constraints.model import Constraint, Finding, MissingInput, Severity, constraint
from constraints.overlaps import Span, overlapping_pairs
from constraints.records import (
    as_date,
    as_datetime,
    as_float,
    as_str,
    fold,
    label,
    person_of,
    records,
    require,
    require_value,
)

PASSPORT_SPARE_DAYS = 180  # validity many countries require after arrival
EXPIRY_THRESHOLDS: tuple[tuple[int, Severity], ...] = ((30, "critical"), (60, "warning"), (90, "info"))
DUE_SOON_DAYS = 7
SERVICE_SOON_DAYS = 14


def _days(n: int) -> str:
    return "1 day" if abs(n) == 1 else f"{abs(n)} days"


def _in_days(n: int) -> str:
    if n == 0:
        return "today"
    return f"in {_days(n)}" if n > 0 else f"{_days(n)} ago"


def _money(amount: float | None) -> str:
    return "unknown amount" if amount is None else f"${amount:,.2f}"


def _whose(record: object) -> str:
    who = as_str(getattr(record, "person", None))
    return "your" if not person_of(record) or who is None else f"{who}'s"


# --- travel ---------------------------------------------------------------------------


def _is_international(trip: object, home: str | None) -> bool:
    """The explicit flag wins; without one, a trip abroad is one whose country differs."""
    flag = getattr(trip, "is_international", None)
    if isinstance(flag, bool):
        return flag
    country = fold(getattr(trip, "country", None))
    return country is not None and home is not None and country != home


@constraint(name="passport_valid_for_trips", needs=("passport", "trips"),
            fields={"passport": ("expiry_date",), "trips": ("departure_date",)})
def passport_valid_for_trips(module: object, now: datetime) -> Iterator[Finding]:
    """The passport must be valid for each upcoming international trip, with 180 days to spare."""
    passport = getattr(module, "passport")
    require_value(passport, "the passport", "expiry_date")
    expiry = as_date(getattr(passport, "expiry_date"))
    if expiry is None:
        raise MissingInput("the passport's expiry_date is not a date")
    home = fold(getattr(passport, "country", None))
    trips = records(module, "trips")
    require(trips, "trip", "departure_date")
    if trips and not any(hasattr(t, "is_international") or hasattr(t, "country") for t in trips):
        raise MissingInput("trip records have neither 'is_international' nor 'country'")
    today = now.date()
    for trip in trips:
        departure = as_date(getattr(trip, "departure_date", None))
        if departure is None:
            continue
        back = max(as_date(getattr(trip, "return_date", None)) or departure, departure)
        if back < today or not _is_international(trip, home):
            continue
        place = label(trip, "destination", "country", "booking_ref", default="international")
        if expiry < back:
            leg, when = ("departure", departure) if expiry < departure else ("return", back)
            verb = "expired" if expiry < today else "expires"
            message = f"passport {verb} {_days((when - expiry).days)} before your {place} {leg} (expiry {expiry})"
            yield Finding("critical", message, (passport, trip), due=departure)
        elif (expiry - departure).days < PASSPORT_SPARE_DAYS:
            gap = (expiry - back).days
            relation = f"{_days(gap)} after" if gap else "on the day of"
            message = (
                f"passport expires {relation} your {place} return (expiry {expiry}); many countries require "
                f"{PASSPORT_SPARE_DAYS} days' validity after arrival"
            )
            yield Finding("warning", message, (passport, trip), due=departure)


def _trip_span(trip: object) -> Span[object] | None:
    departure = as_date(getattr(trip, "departure_date", None))
    if departure is None:
        return None
    return Span(departure, as_date(getattr(trip, "return_date", None)) or departure, trip)


def _trip_words(span: Span[object]) -> str:
    place = label(span.item, "destination", "country", "booking_ref", default="")
    dates = f"{span.start}" if span.end == span.start else f"{span.start} – {span.end}"
    return f"trip to {place} ({dates})" if place else f"trip ({dates})"


@constraint(name="overlapping_trips", needs=("trips",), fields={"trips": ("departure_date",)})
def overlapping_trips(module: object, now: datetime) -> Iterator[Finding]:
    """Two upcoming trips whose dates overlap (a return day may be the next departure day)."""
    trips = records(module, "trips")
    require(trips, "trip", "departure_date")
    today = now.date()
    spans = [s for s in map(_trip_span, trips) if s is not None and s.end >= today]
    for first, second in overlapping_pairs(spans):
        message = f"{_trip_words(first)} overlaps {_trip_words(second)}"
        yield Finding("warning", message, (first.item, second.item), due=second.start)


# --- schedule -------------------------------------------------------------------------


def _appointment_words(record: object) -> str:
    provider = as_str(getattr(record, "provider", None))
    return f"appointment with {provider}" if provider else "appointment"


def _event_words(record: object) -> str:
    return label(record, "title", "location", default="event")


@constraint(name="overlapping_schedule", fields={"appointments": ("start",), "events": ("start",)})
def overlapping_schedule(module: object, now: datetime) -> Iterator[Finding]:
    """Appointments and events of the same person that overlap in time."""
    sources = [
        (attribute, describe)
        for attribute, describe in (("appointments", _appointment_words), ("events", _event_words))
        if getattr(module, attribute, None) is not None
    ]
    if not sources:
        raise MissingInput("the module has neither 'appointments' nor 'events'")
    by_person: dict[str, list[Span[tuple[object, str]]]] = defaultdict(list)
    for attribute, describe in sources:
        items = records(module, attribute)
        require(items, attribute.rstrip("s"), "start")
        for record in items:
            start = as_datetime(getattr(record, "start", None), now)
            if start is None:
                continue
            end = as_datetime(getattr(record, "end", None), now) or start
            if max(start, end) >= now:
                by_person[person_of(record)].append(Span(start, end, (record, describe(record))))
    for spans in by_person.values():
        for first, second in overlapping_pairs(spans):
            (a, a_words), (b, b_words) = first.item, second.item
            message = (
                f"{_whose(a)} {a_words} ({first.start:%Y-%m-%d %H:%M}) overlaps "
                f"{b_words} ({second.start:%Y-%m-%d %H:%M})"
            )
            yield Finding("warning", message, (a, b), due=as_date(second.start))


def _due_soon(module: object, now: datetime, attribute: str, what: str) -> Iterator[tuple[object, date, int]]:
    items = records(module, attribute)
    require(items, what, "due_date")
    for record in items:
        due = as_date(getattr(record, "due_date", None))
        if due is not None and (due - now.date()).days <= DUE_SOON_DAYS:
            yield record, due, (due - now.date()).days


@constraint(name="bills_due", needs=("bills",), fields={"bills": ("due_date", "amount_usd")})
def bills_due(module: object, now: datetime) -> Iterator[Finding]:
    """Bills due within 7 days (warning) or overdue (critical)."""
    for bill, due, days in _due_soon(module, now, "bills", "bill"):
        payee = label(bill, "payee", default="a payee")
        amount = _money(as_float(getattr(bill, "amount_usd", None)))
        if days < 0:
            yield Finding("critical", f"bill from {payee} ({amount}) is {_days(days)} overdue ({due})", (bill,), due)
        else:
            yield Finding("warning", f"bill from {payee} ({amount}) is due {_in_days(days)} ({due})", (bill,), due)


@constraint(name="deadlines_due", needs=("deadlines",), fields={"deadlines": ("due_date",)})
def deadlines_due(module: object, now: datetime) -> Iterator[Finding]:
    """Deadlines within 7 days (warning) or missed (critical)."""
    for deadline, due, days in _due_soon(module, now, "deadlines", "deadline"):
        title = label(deadline, "title", default="a deadline")
        if days < 0:
            yield Finding("critical", f"deadline {title!r} passed {_days(days)} ago ({due})", (deadline,), due)
        else:
            yield Finding("warning", f"deadline {title!r} is due {_in_days(days)} ({due})", (deadline,), due)


# --- documents and vehicles ------------------------------------------------------------


def _expiry_severity(days: int) -> Severity | None:
    for limit, severity in EXPIRY_THRESHOLDS:
        if days <= limit:
            return severity
    return None


def _expiry_finding(record: object, what: str, expiry: date, today: date) -> Finding | None:
    days = (expiry - today).days
    severity = _expiry_severity(days)
    if severity is None:
        return None
    verb = "expired" if days < 0 else "expires"
    return Finding(severity, f"{what} {verb} {_in_days(days)} ({expiry})", (record,), due=expiry)


@constraint(name="passport_expiry", needs=("passport",), fields={"passport": ("expiry_date",)})
def passport_expiry(module: object, now: datetime) -> Iterator[Finding]:
    """The passport expires within 90 days (30: critical, 60: warning, 90: info) or has expired."""
    passport = getattr(module, "passport")
    require_value(passport, "the passport", "expiry_date")
    expiry = as_date(getattr(passport, "expiry_date"))
    if expiry is None:
        raise MissingInput("the passport's expiry_date is not a date")
    finding = _expiry_finding(passport, "your passport", expiry, now.date())
    if finding is not None:
        yield finding


@constraint(name="document_expiry", needs=("documents",), fields={"documents": ("expiry_date",)})
def document_expiry(module: object, now: datetime) -> Iterator[Finding]:
    """Documents expiring within 90 days (30: critical, 60: warning, 90: info) or expired."""
    documents = records(module, "documents")
    require(documents, "document", "expiry_date")
    for document in documents:
        expiry = as_date(getattr(document, "expiry_date", None))
        if expiry is None:
            continue
        holder = as_str(getattr(document, "holder", None))
        kind = label(document, "kind", default="document")
        number = as_str(getattr(document, "number", None))
        owner = f"{holder}'s" if holder else "your"
        what = f"{owner} {kind} {number}" if number else f"{owner} {kind}"
        finding = _expiry_finding(document, what, expiry, now.date())
        if finding is not None:
            yield finding


@constraint(name="vehicle_service_due", needs=("vehicles",), fields={"vehicles": ("next_service_date",)})
def vehicle_service_due(module: object, now: datetime) -> Iterator[Finding]:
    """A vehicle's next service is due within 14 days (or overdue)."""
    vehicles = records(module, "vehicles")
    require(vehicles, "vehicle", "next_service_date")
    for vehicle in vehicles:
        due = as_date(getattr(vehicle, "next_service_date", None))
        if due is None or (due - now.date()).days > SERVICE_SOON_DAYS:
            continue
        days = (due - now.date()).days
        name = " ".join(filter(None, (as_str(getattr(vehicle, f, None)) for f in ("make", "model")))) or "vehicle"
        plate = as_str(getattr(vehicle, "plate", None))
        what = f"{name} ({plate})" if plate else name
        when = f"was due {_days(days)} ago" if days < 0 else f"is due {_in_days(days)}"
        yield Finding("info", f"service for your {what} {when} ({due})", (vehicle,), due)


# --- health and finance ---------------------------------------------------------------


@constraint(name="medication_allergy", needs=("medications", "allergies"),
            fields={"medications": ("drug_class",), "allergies": ("drug_class",)})
def medication_allergy(module: object, now: datetime) -> Iterator[Finding]:
    """A current medication in a drug class the same person is allergic to."""
    medications = records(module, "medications")
    allergies = records(module, "allergies")
    require(medications, "medication", "drug_class")
    require(allergies, "allergy", "drug_class")
    allergic: dict[tuple[str, str], list[object]] = defaultdict(list)
    for allergy in allergies:
        drug_class = fold(getattr(allergy, "drug_class", None))
        if drug_class:
            allergic[(person_of(allergy), drug_class)].append(allergy)
    for medication in medications:
        ended = as_date(getattr(medication, "end_date", None))
        drug_class = fold(getattr(medication, "drug_class", None))
        if drug_class is None or (ended is not None and ended < now.date()):
            continue
        for allergy in allergic.get((person_of(medication), drug_class), ()):
            name = label(medication, "name", default="a medication")
            cls = label(medication, "drug_class", default=drug_class)
            allergen = label(allergy, "allergen", "drug_class", default=drug_class)
            whose = _whose(medication)
            message = f"{whose} medication {name} ({cls}) clashes with {whose} allergy to {allergen}"
            yield Finding("critical", message, (medication, allergy))


def _distinct(values: list[object]) -> list[str]:
    seen: dict[str, str] = {}
    for value in values:
        text = as_str(value)
        if text is not None:
            seen.setdefault(text.casefold(), text)
    return list(seen.values())


@constraint(name="conflicting_payments", needs=("payments",), fields={"payments": ("payee", "status")})
def conflicting_payments(module: object, now: datetime) -> Iterator[Finding]:
    """Pending payments to one payee that disagree on amount, reference or requester."""
    payments = records(module, "payments")
    require(payments, "payment", "payee", "status")
    pending: dict[str, list[object]] = defaultdict(list)
    for payment in payments:
        payee = fold(getattr(payment, "payee", None))
        if payee and fold(getattr(payment, "status", None)) == "pending":
            pending[payee].append(payment)
    for payee, group in pending.items():
        if len(group) < 2:
            continue
        amounts = sorted({round(a, 2) for p in group if (a := as_float(getattr(p, "amount_usd", None))) is not None})
        references = _distinct([getattr(p, "reference", None) for p in group])
        requesters = _distinct([getattr(p, "requested_by", None) for p in group])
        conflicts = []
        if len(amounts) > 1:
            conflicts.append("amounts " + " vs ".join(map(_money, amounts)))
        if len(references) > 1:
            conflicts.append("references " + " vs ".join(references))
        if len(requesters) > 1:
            conflicts.append("requested by " + " vs ".join(requesters))
        if not conflicts:
            continue
        dates = [d for p in group if (d := as_date(getattr(p, "scheduled_date", None))) is not None]
        name = label(group[0], "payee", default=payee)
        message = f"{len(group)} pending payments to {name} disagree: {'; '.join(conflicts)}"
        yield Finding("warning", message, tuple(group), due=min(dates, default=None), key=f"payee={payee}")


BUILTIN: tuple[Constraint, ...] = (
    passport_valid_for_trips,
    passport_expiry,
    document_expiry,
    overlapping_trips,
    overlapping_schedule,
    medication_allergy,
    conflicting_payments,
    bills_due,
    deadlines_due,
    vehicle_service_due,
)

"""Built-in constraints over the canonical vocabulary (factlog.vocabulary).

Each reads the canonical records through the typed views of `constraints.views`, so a
misspelt field is a type error. A record lacking a field (or holding None or a value of
another type there) is ignored; a module lacking the attribute or every record lacking
the field skips the constraint. The fields each one reads are declared (`fields=`), so
records lacking them are reported as notices (`constraints.notices`). Only current and
future things raise: past trips, finished medications and past appointments do not.
Each declares what its findings depend on (`reads`, `clock`, `per_record`: see
`constraints.model.constraint`), so a long-lived process runs it again only over what changed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from functools import cache
from typing import TypeVar

from constraints.conversation_fields import is_going, is_users
from constraints.document_rules import is_trip_policy, is_trip_visa, is_warranty, warranty_expiring
from constraints.medicines import (
    AllergyIndex,
    allergies_with_drugs,
    class_words,
    current_medications,
    drug_interactions,
    knows_drugs,
)
from constraints.medicines import drop_kept as drop_kept_medicines
from constraints.model import Constraint, Finding, MissingInput, Severity, constraint, entity_key
from constraints.money_rules import (
    covered_by_payment,
    promotion_ending_with_balance,
    subscription_charge_before_cancel,
)
from constraints.overlaps import Span, overlapping_groups, overlapping_pairs
from constraints.payment_rules import conflicting_payments
from constraints.phrases import days_words as _days
from constraints.phrases import in_days as _in_days
from constraints.phrases import money as _money
from constraints.phrases import whose as _whose
from constraints.places import RequiredValidity, home_of, is_international, required_validity, trip_country
from constraints.record_memo import RecordMemo
from constraints.records import align, family_of, fold, person_of, taker_of
from constraints.recurring import recurring_conflicts
from constraints.trip_rules import (
    insurance_covers_trip,
    others_passports_for_trips,
    schengen_90_180,
    visa_covers_trip,
)
from constraints.views import (
    AllergyRecord,
    AppointmentRecord,
    BillRecord,
    DeadlineRecord,
    DocumentRecord,
    EventRecord,
    MedicationRecord,
    PassportRecord,
    PaymentRecord,
    RelativeRecord,
    TripRecord,
    VehicleRecord,
    read_all,
    read_one,
    read_present,
    reads,
    require,
    require_value,
)
from constraints.warranty_faults import warranty_fault_open

PASSPORT_SPARE_DAYS = 180  # validity many countries require after arrival
EXPIRY_THRESHOLDS: tuple[tuple[int, Severity], ...] = ((30, "critical"), (60, "warning"), (90, "info"))
DUE_SOON_DAYS = 7
SERVICE_SOON_DAYS = 14
NAMED_TRIPS = 5  # trips an overlap alert names; the rest are counted


# --- travel ---------------------------------------------------------------------------


def _passport_expiry(passport: PassportRecord) -> date:
    require_value(passport, "the passport", "expiry_date")
    expiry = passport.expiry_date
    if expiry is None:
        raise MissingInput("the passport's expiry_date is not a date")
    return expiry


@constraint(name="passport_valid_for_trips", needs=(PassportRecord.ATTRIBUTE, TripRecord.ATTRIBUTE),
            reads=(PassportRecord.ATTRIBUTE, TripRecord.ATTRIBUTE), clock="date", per_record=TripRecord.ATTRIBUTE,
            fields=dict([reads(PassportRecord, "expiry_date"), reads(TripRecord, "departure_date")]))
def passport_valid_for_trips(module: object, now: datetime) -> Iterator[Finding]:
    """The passport must be valid for each upcoming international trip (critical when not),
    for as long as the destination country requires (the bundled country table: critical when
    not), and with 180 days to spare after arrival, as many countries and carriers expect (a
    warning). Only the user's own trips that go ahead are checked against the user's passport:
    not someone else's (`subject`), not planned or cancelled ones (`booking_status`)."""
    passport = read_one(module, PassportRecord)
    expiry = _passport_expiry(passport)
    home = home_of(passport)
    trips = read_all(module, TripRecord)
    require(trips, "trip", "departure_date")
    if trips and not any(t.has("is_international") or t.has("country") for t in trips):
        raise MissingInput("trip records have neither 'is_international' nor 'country'")
    today = now.date()
    if not is_users(passport):
        return
    for trip in trips:
        departure = trip.departure_date
        if departure is None or not (is_users(trip) and is_going(trip)):
            continue
        back = max(trip.return_date or departure, departure)
        if back < today:
            continue
        country = trip_country(trip)
        if not is_international(trip, home, country):
            continue
        place = trip.destination or trip.country or trip.booking_ref or "international"
        required = None if country is None else required_validity(country, departure, back)
        if expiry < back:
            leg, when = ("departure", departure) if expiry < departure else ("return", back)
            verb = "expired" if expiry < today else "expires"
            message = f"passport {verb} {_days((when - expiry).days)} before your {place} {leg} (expiry {expiry})"
            yield Finding("critical", message, (passport.source, trip.source), due=departure)
        elif required is not None and expiry < required.until:
            yield Finding("critical", _short_for_country(expiry, departure, back, place, required),
                          (passport.source, trip.source), due=departure)
        elif (expiry - departure).days < PASSPORT_SPARE_DAYS:
            gap = (expiry - back).days
            relation = f"{_days(gap)} after" if gap else "on the day of"
            message = (
                f"passport expires {relation} your {place} return (expiry {expiry}); many countries require "
                f"{PASSPORT_SPARE_DAYS} days' validity after arrival"
            )
            yield Finding("warning", message, (passport.source, trip.source), due=departure)


def _short_for_country(expiry: date, departure: date, back: date, place: str, required: RequiredValidity) -> str:
    """Why a passport valid for the whole trip is still too short for the country's rule."""
    name = required.country.name
    area = f"{name} (Schengen area)" if required.country.schengen else name
    after = (expiry - departure).days
    relation = f"{_days(after)} after" if after else "on the day of"
    short = (required.until - expiry).days
    return (
        f"passport expires {relation} your {place} departure on {departure} (expiry {expiry}); {area} requires "
        f"{required.rule}, to {required.until}: {_days(short)} short"
    )


def _trip_words(span: Span[TripRecord]) -> str:
    trip = span.item
    place = trip.destination or trip.country or trip.booking_ref
    dates = f"{span.start}" if span.end == span.start else f"{span.start} – {span.end}"
    return f"trip to {place} ({dates})" if place else f"trip ({dates})"


def _anchor(records: list[object]) -> str:
    """The entity key naming a group of trips: its earliest-booked trip's (the smallest first
    fact id; records without provenance after those, by their digest), so trips booked
    later, joining the group, leave its alert's id as it was."""
    keys = [entity_key(record) for record in records]
    return min(keys, key=lambda key: (0, int(key[1:]), "") if key.startswith("f") else (1, 0, key))


def _trip_span(source: object) -> Span[TripRecord] | None:
    """A trip's days (None without a departure date): what overlapping_trips derives from it alone."""
    trip = TripRecord(source)
    departure = trip.departure_date
    return None if departure is None else Span(departure, trip.return_date or departure, trip)


_TRIP_SPANS: RecordMemo[object, Span[TripRecord] | None] = RecordMemo(_trip_span)


@constraint(name="overlapping_trips", needs=(TripRecord.ATTRIBUTE,), reads=(TripRecord.ATTRIBUTE,), clock="date",
            fields=dict([reads(TripRecord, "departure_date")]))
def overlapping_trips(module: object, now: datetime) -> Iterator[Finding]:
    """The user's upcoming trips whose dates overlap (a return day may be the next departure
    day; someone else's trip, `subject`, and one only planned or cancelled, `booking_status`,
    overlap none of the user's): one alert per group of
    trips connected by overlaps, naming them (at most `NAMED_TRIPS`).

    The alert's id is the group's earliest-booked trip (`_anchor`): a trip joining the group
    updates its message; two groups merging keep the older one's id (the other resolves);
    a group splitting keeps it for the part holding that trip."""
    trips = read_all(module, TripRecord)
    require(trips, "trip", "departure_date")
    today = now.date()
    spans = [span for span in _TRIP_SPANS.values([trip.source for trip in trips])
             if span is not None and span.end >= today and is_users(span.item) and is_going(span.item)]
    for group in overlapping_groups(spans):
        if len(group) == 2:
            message = f"{_trip_words(group[0])} overlaps {_trip_words(group[1])}"
        else:
            named = ", ".join(map(_trip_words, group[:NAMED_TRIPS]))
            more = f" and {len(group) - NAMED_TRIPS} more" if len(group) > NAMED_TRIPS else ""
            last = max(span.end for span in group)
            message = f"{len(group)} trips overlap between {group[0].start} and {last}: {named}{more}"
        records = [span.item for span in group]
        yield Finding("warning", message, tuple(record.source for record in records), due=group[1].start,
                      key=_anchor([record.source for record in records]))


# --- schedule -------------------------------------------------------------------------

# What overlapping_schedule keeps of a record: the record, its words, whose it is.
_Slot = tuple[object, str, str | None]


def _day(moment: date) -> date:
    return moment.date() if isinstance(moment, datetime) else moment


def _slot_words(span: Span[_Slot]) -> str:
    return f"{span.item[1]} ({span.start:%Y-%m-%d %H:%M})"


def _appointment_words(record: AppointmentRecord) -> str:
    provider = record.provider
    return f"appointment with {provider}" if provider else "appointment"


def _event_words(record: EventRecord) -> str:
    return record.title or record.location or "event"


# What overlapping_schedule derives from a record alone, for one kind of `now` (naive, or
# aware in a zone): its span (moments aligned with such a `now`) and whose it is; None
# for a record without a start.
_Derived = tuple[Span[_Slot], str] | None
_MEMOS: dict[tuple[str, object], RecordMemo[object, _Derived]] = {}
_MEMO_ZONES = 4  # kinds of `now` kept at once (a process's clock has one)


def _derive(view: type[AppointmentRecord] | type[EventRecord], reference: datetime) -> Callable[[object], _Derived]:
    naive = reference.tzinfo is None

    def derive(source: object) -> _Derived:
        record = view(source)
        start, end = record.start, record.end
        if start is None or isinstance(record, EventRecord) and (
                record.recurrence or fold(record.status) in ("cancelled", "canceled")):
            return None  # weekly events are recurring_conflicts'; a cancelled occurrence takes no time
        if (start.tzinfo is None) is not naive:
            start = align(start, reference)
        if end is None:
            end = start
        elif (end.tzinfo is None) is not naive:
            end = align(end, reference)
        words = _appointment_words(record) if isinstance(record, AppointmentRecord) else _event_words(record)
        person = record.person
        return Span(start, end, (source, words, person)), person_of(person)

    return derive


def _derived(view: type[AppointmentRecord] | type[EventRecord], records: list[object],
             now: datetime) -> list[_Derived]:
    """What `_derive` gives for each record, kept from the last run over the same records."""
    key = (view.KIND, now.tzinfo)
    memo = _MEMOS.get(key)
    if memo is None:
        if len(_MEMOS) >= _MEMO_ZONES:
            _MEMOS.clear()
        reference = datetime(2000, 1, 1, tzinfo=now.tzinfo)  # `align` reads only its zone
        memo = _MEMOS.setdefault(key, RecordMemo(_derive(view, reference)))
    return memo.values(records)


def drop_kept() -> None:
    """Drop what the overlap constraints keep of the records they saw last (a user forgotten
    leaves none of its records alive here)."""
    _MEMOS.clear()
    _TRIP_SPANS.clear()
    drop_kept_medicines()


@constraint(name="overlapping_schedule",
            fields=dict([reads(AppointmentRecord, "start"), reads(EventRecord, "start")]))
def overlapping_schedule(module: object, now: datetime) -> Iterator[Finding]:
    """Appointments and events of the same person that overlap in time."""
    appointments = read_present(module, AppointmentRecord)
    events = read_present(module, EventRecord)
    if appointments is None and events is None:
        raise MissingInput("the module has neither 'appointments' nor 'events'")
    by_person: dict[str, list[Span[_Slot]]] = defaultdict(list)
    derived: list[_Derived] = []
    if appointments is not None:
        require(appointments, "appointment", "start")
        derived += _derived(AppointmentRecord, [a.source for a in appointments], now)
    if events is not None:
        require(events, "event", "start")
        derived += _derived(EventRecord, [e.source for e in events], now)
    for entry in derived:
        if entry is not None and entry[0].end >= now:  # the span's end: the later of start and end
            by_person[entry[1]].append(entry[0])
    described = cache(_slot_words)  # a slot may overlap many others
    for spans in by_person.values():
        for first, second in overlapping_pairs(spans):
            message = f"{_whose(first.item[2])} {described(first)} overlaps {described(second)}"
            yield Finding("warning", message, (first.item[0], second.item[0]), due=_day(second.start))


Dated = TypeVar("Dated")
Due = TypeVar("Due", BillRecord, DeadlineRecord)


def _dated(records: Iterable[Dated], when: Callable[[Dated], date | None], now: datetime,
           within: int | None = None) -> Iterator[tuple[Dated, date, int]]:
    """Each record with a date (`when`), the date and the days from today to it; only those
    at most `within` days away when `within` is given."""
    today = now.date()
    for record in records:
        day = when(record)
        if day is not None and (within is None or (day - today).days <= within):
            yield record, day, (day - today).days


def _due_soon(module: object, now: datetime, view: type[Due], what: str) -> Iterator[tuple[Due, date, int]]:
    items = read_all(module, view)
    require(items, what, "due_date")
    yield from _dated(items, lambda record: record.due_date, now, DUE_SOON_DAYS)


@constraint(name="bills_due", needs=(BillRecord.ATTRIBUTE,), reads=(BillRecord.ATTRIBUTE, PaymentRecord.ATTRIBUTE),
            clock="date",
            per_record=BillRecord.ATTRIBUTE,
            fields=dict([reads(BillRecord, "due_date", "amount_usd")]))
def bills_due(module: object, now: datetime) -> Iterator[Finding]:
    """Bills due within 7 days (warning) or overdue (critical); not those on autopay or
    covered by a payment to their payee (`money_rules.covered_by_payment`)."""
    payments = read_present(module, PaymentRecord) or []
    for bill, due, days in _due_soon(module, now, BillRecord, "bill"):
        if bill.autopay or covered_by_payment(bill, payments):
            continue  # paid, or paid automatically: nothing due on the user's side
        payee = bill.payee or "a payee"
        amount = _money(bill.amount_usd)
        if days < 0:
            yield Finding("critical", f"bill from {payee} ({amount}) is {_days(days)} overdue ({due})",
                          (bill.source,), due)
        else:
            yield Finding("warning", f"bill from {payee} ({amount}) is due {_in_days(days)} ({due})",
                          (bill.source,), due)


@constraint(name="deadlines_due", needs=(DeadlineRecord.ATTRIBUTE,), reads=(DeadlineRecord.ATTRIBUTE,), clock="date",
            per_record=DeadlineRecord.ATTRIBUTE, fields=dict([reads(DeadlineRecord, "due_date")]))
def deadlines_due(module: object, now: datetime) -> Iterator[Finding]:
    """Deadlines within 7 days (warning) or missed (critical)."""
    for deadline, due, days in _due_soon(module, now, DeadlineRecord, "deadline"):
        title = deadline.title or "a deadline"
        if days < 0:
            yield Finding("critical", f"deadline {title!r} passed {_days(days)} ago ({due})", (deadline.source,), due)
        else:
            yield Finding("warning", f"deadline {title!r} is due {_in_days(days)} ({due})", (deadline.source,), due)


# --- documents and vehicles ------------------------------------------------------------


def _expiry_severity(days: int) -> Severity | None:
    for limit, severity in EXPIRY_THRESHOLDS:
        if days <= limit:
            return severity
    return None


def _expiry_finding(record: object, what: str, expiry: date, days: int, severity: Severity) -> Finding:
    verb = "expired" if days < 0 else "expires"
    return Finding(severity, f"{what} {verb} {_in_days(days)} ({expiry})", (record,), due=expiry)


@constraint(name="passport_expiry", needs=(PassportRecord.ATTRIBUTE,), reads=(PassportRecord.ATTRIBUTE,), clock="date",
            fields=dict([reads(PassportRecord, "expiry_date")]))
def passport_expiry(module: object, now: datetime) -> Iterator[Finding]:
    """The passport expires within 90 days (30: critical, 60: warning, 90: info) or has expired."""
    passport = read_one(module, PassportRecord)
    expiry = _passport_expiry(passport)
    days = (expiry - now.date()).days
    severity = _expiry_severity(days)
    if severity is not None:
        yield _expiry_finding(passport.source, "your passport", expiry, days, severity)


@constraint(name="document_expiry", needs=(DocumentRecord.ATTRIBUTE,), reads=(DocumentRecord.ATTRIBUTE,), clock="date",
            per_record=DocumentRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "expiry_date")]))
def document_expiry(module: object, now: datetime) -> Iterator[Finding]:
    """Documents expiring within 90 days (30: critical, 60: warning, 90: info) or expired;
    not warranties, which `warranty_expiring` owns, nor a policy bought for one trip
    (`is_trip_policy`: its end is the trip's; `insurance_covers_trip` judges its cover), nor a
    visa granted for one trip (`is_trip_visa`; `visa_covers_trip` judges it)."""
    documents = read_all(module, DocumentRecord)
    require(documents, "document", "expiry_date")
    documents = [document for document in documents if not is_warranty(document.kind)
                 and not is_trip_policy(document) and not is_trip_visa(document)]
    for document, expiry, days in _dated(documents, lambda document: document.expiry_date, now):
        severity = _expiry_severity(days)
        if severity is None:
            continue
        holder = document.holder
        kind = document.kind or "document"
        number = document.number
        owner = f"{holder}'s" if holder else "your"
        what = f"{owner} {kind} {number}" if number else f"{owner} {kind}"
        yield _expiry_finding(document.source, what, expiry, days, severity)


@constraint(name="vehicle_service_due", needs=(VehicleRecord.ATTRIBUTE,), reads=(VehicleRecord.ATTRIBUTE,),
            clock="date", per_record=VehicleRecord.ATTRIBUTE,
            fields=dict([reads(VehicleRecord, "next_service_date")]))
def vehicle_service_due(module: object, now: datetime) -> Iterator[Finding]:
    """A vehicle's next service is due within 14 days (or overdue)."""
    vehicles = read_all(module, VehicleRecord)
    require(vehicles, "vehicle", "next_service_date")
    for vehicle, due, days in _dated(vehicles, lambda vehicle: vehicle.next_service_date, now, SERVICE_SOON_DAYS):
        name = " ".join(filter(None, (vehicle.make, vehicle.model))) or "vehicle"
        plate = vehicle.plate
        what = f"{name} ({plate})" if plate else name
        when = f"was due {_days(days)} ago" if days < 0 else f"is due {_in_days(days)}"
        yield Finding("info", f"service for your {what} {when} ({due})", (vehicle.source,), due)


# --- health and finance ---------------------------------------------------------------


@constraint(name="medication_allergy", needs=(MedicationRecord.ATTRIBUTE, AllergyRecord.ATTRIBUTE),
            reads=(MedicationRecord.ATTRIBUTE, AllergyRecord.ATTRIBUTE, RelativeRecord.ATTRIBUTE), clock="date",
            fields=dict([reads(MedicationRecord, "drug_class"), reads(AllergyRecord, "drug_class")]))
def medication_allergy(module: object, now: datetime) -> Iterator[Finding]:
    """A current medication the same person is allergic to: the same drug or drug class
    (critical), or a class the bundled drug table says cross-reacts with it (a warning).
    Drug names, brand names and class names go through the table (`constraints.medicines`)."""
    medications = read_all(module, MedicationRecord)
    allergies = read_all(module, AllergyRecord)
    if medications and not any(m.has("drug_class") for m in medications) \
            and not any(knows_drugs(m.name) for m in medications):
        raise MissingInput("medication records have no 'drug_class' field and no name the drug table knows")
    if allergies and not any(a.has("drug_class") for a in allergies) \
            and not any(knows_drugs(a.allergen) for a in allergies):
        raise MissingInput("allergy records have no 'drug_class' field and no allergen the drug table knows")
    family = family_of((r.name, r.relationship) for r in read_present(module, RelativeRecord) or ())
    allergic = AllergyIndex(allergies_with_drugs(allergies), family)
    for item in current_medications(medications, now.date()):  # one person however named (`taker_of`)
        medication, person = item.medication, taker_of(item.medication.person, item.medication.subject, family)
        direct = allergic.direct(person, item.drugs)
        for allergy, shared in direct:
            name = medication.name or "a medication"
            allergen = allergy.allergen or allergy.drug_class or "a drug"
            owner = _whose(medication.person)
            what = medication.drug_class or shared
            yield Finding("critical", f"{owner} medication {name} ({what}) clashes with {owner} allergy to {allergen}",
                          (medication.source, allergy.source))
        for allergy, key, cross in allergic.cautions(person, item.drugs, {id(a) for a, _ in direct}):
            name = medication.name or "a medication"
            allergen = allergy.allergen or allergy.drug_class or "a drug"
            owner = _whose(medication.person)
            message = (f"{owner} medication {name} ({class_words(cross.caution)}) needs caution with {owner} "
                       f"allergy to {allergen} ({class_words(key)}): {cross.reason}")
            yield Finding("warning", message, (medication.source, allergy.source))


BUILTIN: tuple[Constraint, ...] = (
    passport_valid_for_trips,
    passport_expiry,
    document_expiry,
    overlapping_trips,
    overlapping_schedule,
    recurring_conflicts,
    medication_allergy,
    drug_interactions,
    schengen_90_180,
    insurance_covers_trip,
    visa_covers_trip,
    others_passports_for_trips,
    warranty_expiring,
    warranty_fault_open,
    conflicting_payments,
    subscription_charge_before_cancel,
    promotion_ending_with_balance,
    bills_due,
    deadlines_due,
    vehicle_service_due,
)

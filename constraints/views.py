"""Typed views of the canonical records a user's module holds.

A module is generated, so its records are checked at this boundary rather than trusted:
a record may lack a canonical field entirely or hold a value of another type. Each
canonical kind of `factlog.vocabulary` has a view class here (`TripRecord` for "trip",
...) whose attributes are the kind's fields, typed (`trip.departure_date: date | None`),
so a misspelt field is a mypy error instead of a silent skip. A view reads its record on
access; a missing field, None, or a value of the wrong type reads as None. Strings are
stripped (blank reads as None), dates also accept datetimes and ISO strings, datetimes
also accept dates and ISO strings (`records.align` makes them comparable with `now`).

Read a module through the accessors: `read_all(module, TripRecord) -> list[TripRecord]`,
`read_one(module, PassportRecord) -> PassportRecord` (both raise `MissingInput` when the
module lacks the attribute, whose name comes from the vocabulary). `require` and
`View.holds` take field names typed per kind (`TripField`), and `reads` builds a
constraint's `fields=` declaration from them. Cite `view.source`, the module's own
record, in a `Finding`.

The field lists are written out so that mypy sees them; tests/test_constraint_views.py
checks that they agree with the vocabulary (every canonical field, with its type).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, overload

from constraints.model import MissingInput
from constraints.records import field_value
from factlog.timeparse import day_of, try_datetime
from factlog.vocabulary import CANONICAL, PROVENANCE_FIELD

T = TypeVar("T")
F = TypeVar("F", bound=str)


class Field(Generic[T]):
    """One typed field of a view: reads the record's value as `T`, or None when it is not one.

    Each subclass reads one type of the vocabulary (`TYPE_NAME`); its reading is written
    out in `_read`, with no helper call, since fields are read in the constraints' hot loops.
    """

    __slots__ = ("name",)
    TYPE_NAME: ClassVar[str]  # the vocabulary's annotation string, e.g. "date"

    def __init__(self) -> None:
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, view: None, owner: type | None = None) -> Field[T]: ...
    @overload
    def __get__(self, view: View[Any], owner: type | None = None) -> T | None: ...
    def __get__(self, view: View[Any] | None, owner: type | None = None) -> Field[T] | T | None:
        raise NotImplementedError  # each subclass reads with its own `_read`


class Text(Field[str]):
    """A string, stripped of surrounding blanks; blank reads as None."""

    __slots__ = ()
    TYPE_NAME = "str"

    def _read(self, view: View[Any] | None, owner: type | None = None) -> Field[str] | str | None:
        if view is None:
            return self
        value = getattr(view.source, self.name, None)
        if isinstance(value, str):
            return value.strip() or None
        return None

    if not TYPE_CHECKING:
        __get__ = _read


class Number(Field[float]):
    """A float; an int reads as a float, a bool as None."""

    __slots__ = ()
    TYPE_NAME = "float"

    def _read(self, view: View[Any] | None, owner: type | None = None) -> Field[float] | float | None:
        if view is None:
            return self
        value = getattr(view.source, self.name, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None

    if not TYPE_CHECKING:
        __get__ = _read


class Integer(Field[int]):
    """An int; a bool reads as None."""

    __slots__ = ()
    TYPE_NAME = "int"

    def _read(self, view: View[Any] | None, owner: type | None = None) -> Field[int] | int | None:
        if view is None:
            return self
        value = getattr(view.source, self.name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return None

    if not TYPE_CHECKING:
        __get__ = _read


class Flag(Field[bool]):
    """A bool; anything else reads as None."""

    __slots__ = ()
    TYPE_NAME = "bool"

    def _read(self, view: View[Any] | None, owner: type | None = None) -> Field[bool] | bool | None:
        if view is None:
            return self
        value = getattr(view.source, self.name, None)
        return value if isinstance(value, bool) else None

    if not TYPE_CHECKING:
        __get__ = _read


class Day(Field[date]):
    """A date; a datetime reads as its date, a string as its leading ISO date."""

    __slots__ = ()
    TYPE_NAME = "date"

    def _read(self, view: View[Any] | None, owner: type | None = None) -> Field[date] | date | None:
        if view is None:
            return self
        value = getattr(view.source, self.name, None)
        if isinstance(value, datetime):
            return value.date()
        if isinstance(value, date):
            return value
        if isinstance(value, str):
            return day_of(value.strip())
        return None

    if not TYPE_CHECKING:
        __get__ = _read


class Moment(Field[datetime]):
    """A datetime; a date reads as its midnight, a string as ISO 8601 (`records.align` it with `now`)."""

    __slots__ = ()
    TYPE_NAME = "datetime"

    def _read(self, view: View[Any] | None, owner: type | None = None) -> Field[datetime] | datetime | None:
        if view is None:
            return self
        value = getattr(view.source, self.name, None)
        if isinstance(value, datetime):
            return value
        if isinstance(value, date):
            return datetime.combine(value, time.min)
        if isinstance(value, str):
            return try_datetime(value.strip())
        return None

    if not TYPE_CHECKING:
        __get__ = _read


class View(Generic[F]):
    """A typed view of one record of a canonical kind; `F` names the kind's fields."""

    __slots__ = ("source",)

    KIND: ClassVar[str]  # the canonical kind, e.g. "trip"
    ATTRIBUTE: ClassVar[str]  # the module attribute, from the vocabulary, e.g. "trips"
    EXTRA: ClassVar[frozenset[str]]  # fields read beyond the vocabulary's

    def __init_subclass__(cls, *, kind: str, extra: tuple[str, ...] = (), **options: Any) -> None:
        super().__init_subclass__(**options)
        cls.KIND = kind
        cls.ATTRIBUTE = CANONICAL[kind].attribute
        cls.EXTRA = frozenset(extra)

    def __init__(self, source: object) -> None:
        self.source = source  # the module's own record: cite this in a Finding

    def has(self, name: F) -> bool:
        """The record has this field at all (it may hold None)."""
        return hasattr(self.source, name)

    def holds(self, name: F) -> bool:
        """The record holds a value (not None) for this field, of whatever type."""
        return field_value(self.source, name) is not None

    @property
    def fact_ids(self) -> object:
        """The record's provenance, so that a view cited by mistake still names its facts."""
        return field_value(self.source, PROVENANCE_FIELD)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.source!r})"


V = TypeVar("V", bound=View[Any])


def _value(module: object, view: type[View[Any]]) -> object:
    value = field_value(module, view.ATTRIBUTE)
    if value is None:
        raise MissingInput(f"the module has no {view.ATTRIBUTE!r}")
    return value


def read_all(module: object, view: type[V]) -> list[V]:
    """Views of the records under the kind's attribute (a single record counts as a list of one)."""
    value = _value(module, view)
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(map(view, value))
    return [view(value)]


def read_one(module: object, view: type[V]) -> V:
    """A view of the record under a singular kind's attribute (e.g. `passport`)."""
    return view(_value(module, view))


def read_present(module: object, view: type[V]) -> list[V] | None:
    """Like `read_all`, but None when the module lacks the attribute."""
    try:
        return read_all(module, view)
    except MissingInput:
        return None


def require(items: Sequence[View[F]], what: str, *names: F) -> None:
    """Raise `MissingInput` when records exist but none of them has one of `names`."""
    if not items:
        return
    for name in names:
        if not any(item.has(name) for item in items):
            raise MissingInput(f"{what} records have no {name!r} field")


def require_value(item: View[F], what: str, name: F) -> None:
    """Raise `MissingInput` when a single record lacks a field or holds None there."""
    if not item.holds(name):
        raise MissingInput(f"{what} has no {name!r}")


def reads(view: type[View[F]], *names: F) -> tuple[str, tuple[str, ...]]:
    """One entry of a constraint's `fields=`: `dict([reads(TripRecord, "departure_date")])`."""
    return view.ATTRIBUTE, tuple(names)


# --- one view per canonical kind (same order and fields as factlog.vocabulary) -----------

ProfileField = Literal["full_name", "home_city", "email", "phone", "occupation", "employer", "birth_date"]


class ProfileRecord(View[ProfileField], kind="profile"):
    __slots__ = ()
    full_name = Text()
    home_city = Text()
    email = Text()
    phone = Text()
    occupation = Text()
    employer = Text()
    birth_date = Day()


PassportField = Literal["number", "country", "issue_date", "expiry_date", "subject"]


class PassportRecord(View[PassportField], kind="passport", extra=("subject",)):
    """`subject` is not in the vocabulary: conversations name whom a record is about."""

    __slots__ = ()
    number = Text()
    country = Text()
    issue_date = Day()
    expiry_date = Day()
    subject = Text()


DocumentField = Literal["kind", "number", "holder", "expiry_date", "country", "issue_date", "start_date", "item",
                        "provider", "purchase_date", "subject"]


class DocumentRecord(View[DocumentField], kind="document", extra=("subject",)):
    """`subject`: whom the document is about (as for passports)."""

    __slots__ = ()
    kind = Text()
    number = Text()
    holder = Text()
    expiry_date = Day()
    country = Text()
    issue_date = Day()
    start_date = Day()
    item = Text()
    provider = Text()
    purchase_date = Day()
    subject = Text()


TripField = Literal["destination", "country", "purpose", "booking_ref", "carrier", "departure_date",
                    "return_date", "is_international", "cost_usd", "departure_time", "return_time",
                    "booking_status", "confirmation", "subject"]


class TripRecord(View[TripField], kind="trip", extra=("subject",)):
    """`subject`: who travels (as for passports)."""

    __slots__ = ()
    destination = Text()
    country = Text()
    purpose = Text()
    booking_ref = Text()
    carrier = Text()
    departure_date = Day()
    return_date = Day()
    is_international = Flag()
    cost_usd = Number()
    departure_time = Text()
    return_time = Text()
    booking_status = Text()
    confirmation = Text()
    subject = Text()


LoyaltyProgramField = Literal["program", "number", "provider", "tier"]


class LoyaltyProgramRecord(View[LoyaltyProgramField], kind="loyalty_program"):
    __slots__ = ()
    program = Text()
    number = Text()
    provider = Text()
    tier = Text()


AllergyField = Literal["allergen", "drug_class", "severity", "person", "subject"]


class AllergyRecord(View[AllergyField], kind="allergy", extra=("subject",)):
    """`subject`: whose allergy, when read from conversation ("son"; as for trips)."""

    __slots__ = ()
    allergen = Text()
    drug_class = Text()
    severity = Text()
    person = Text()
    subject = Text()


MedicationField = Literal["name", "drug_class", "dose", "person", "start_date", "end_date", "prescriber", "status",
                          "subject"]


class MedicationRecord(View[MedicationField], kind="medication", extra=("subject",)):
    """`subject`: whose medication, when read from conversation ("father"; as for trips)."""

    __slots__ = ()
    name = Text()
    drug_class = Text()
    dose = Text()
    person = Text()
    start_date = Day()
    end_date = Day()
    prescriber = Text()
    status = Text()
    subject = Text()


AppointmentField = Literal["provider", "location", "person", "start", "end"]


class AppointmentRecord(View[AppointmentField], kind="appointment"):
    __slots__ = ()
    provider = Text()
    location = Text()
    person = Text()
    start = Moment()
    end = Moment()


AccountField = Literal["institution", "kind", "last4"]


class AccountRecord(View[AccountField], kind="account"):
    __slots__ = ()
    institution = Text()
    kind = Text()
    last4 = Text()


PaymentField = Literal["payee", "reference", "status", "requested_by", "amount_usd", "scheduled_date",
                       "from_account", "to_account", "amount_eur", "amount_gbp"]


class PaymentRecord(View[PaymentField], kind="payment"):
    __slots__ = ()
    payee = Text()
    reference = Text()
    status = Text()
    requested_by = Text()
    amount_usd = Number()
    scheduled_date = Day()
    from_account = Text()
    to_account = Text()
    amount_eur = Number()
    amount_gbp = Number()


SubscriptionField = Literal["vendor", "amount_usd", "cadence", "due_date", "promo_end_date", "status", "amount_eur",
                            "amount_gbp", "subject"]


class SubscriptionRecord(View[SubscriptionField], kind="subscription", extra=("subject",)):
    """`subject`: whose subscription, when read from conversation ("sister")."""

    __slots__ = ()
    vendor = Text()
    amount_usd = Number()
    cadence = Text()
    due_date = Day()
    promo_end_date = Day()
    status = Text()
    amount_eur = Number()
    amount_gbp = Number()
    subject = Text()


BillField = Literal["payee", "amount_usd", "due_date", "recurring", "autopay", "amount_eur", "amount_gbp"]


class BillRecord(View[BillField], kind="bill"):
    __slots__ = ()
    payee = Text()
    amount_usd = Number()
    due_date = Day()
    recurring = Flag()
    autopay = Flag()
    amount_eur = Number()
    amount_gbp = Number()


VehicleField = Literal["make", "model", "plate", "vin", "year", "next_service_date"]


class VehicleRecord(View[VehicleField], kind="vehicle"):
    __slots__ = ()
    make = Text()
    model = Text()
    plate = Text()
    vin = Text()
    year = Integer()
    next_service_date = Day()


RelativeField = Literal["name", "relationship", "birth_date", "age", "birthday"]


class RelativeRecord(View[RelativeField], kind="relative"):
    __slots__ = ()
    name = Text()
    relationship = Text()
    birth_date = Day()
    age = Integer()
    birthday = Text()


EventField = Literal["title", "location", "start", "end", "recurrence", "weekday", "start_time", "end_time", "status",
                     "person", "subject"]


class EventRecord(View[EventField], kind="event", extra=("person", "subject", "status")):
    """`person` is not in the vocabulary, but an event record that names one is read per person;
    `subject`: whom an event read from conversation is about (as for trips); `status`
    "cancelled" for an occurrence of a weekly event called off ("no standup next Tuesday")."""

    __slots__ = ()
    title = Text()
    location = Text()
    start = Moment()
    end = Moment()
    recurrence = Text()
    weekday = Text()
    start_time = Text()
    end_time = Text()
    status = Text()
    person = Text()
    subject = Text()


DeadlineField = Literal["title", "due_date"]


class DeadlineRecord(View[DeadlineField], kind="deadline"):
    __slots__ = ()
    title = Text()
    due_date = Day()


PreferenceField = Literal["topic", "value", "condition"]


class PreferenceRecord(View[PreferenceField], kind="preference"):
    __slots__ = ()
    topic = Text()
    value = Text()
    condition = Text()


VIEWS: tuple[type[View[Any]], ...] = (
    ProfileRecord, PassportRecord, DocumentRecord, TripRecord, LoyaltyProgramRecord, AllergyRecord,
    MedicationRecord, AppointmentRecord, AccountRecord, PaymentRecord, SubscriptionRecord, BillRecord, VehicleRecord,
    RelativeRecord, EventRecord, DeadlineRecord, PreferenceRecord,
)

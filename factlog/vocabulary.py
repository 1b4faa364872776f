"""The canonical vocabulary: stable class, attribute and field names for common domains.

This table is the one place where the names live. Extractors use it to pick kinds and
field names, the compiler uses it for class names and types, the LLM prompt quotes it, and
built-in constraints read the attributes it names. Extend it here, as data.

Field types are written as Python annotation strings over `str`, `int`, `float`, `bool`,
`date` (datetime.date) and `datetime` (datetime.datetime). Every canonical field is optional
in a record (`T | None = None`): structured facts keep the names they were given and simply
lack the canonical fields they did not mention.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

__all__ = ["CANONICAL", "NOTE_ATTRIBUTE", "NOTE_CLASS", "NOTE_FIELDS", "NOTE_REQUIRED", "PROVENANCE_FIELD",
           "SESSION_METADATA", "Domain", "canonical"]


@dataclass(frozen=True)
class Domain:
    kind: str  # the fact kind, e.g. "trip"
    class_name: str  # the generated class, e.g. "Trip"
    attribute: str  # the module-level name, e.g. "trips" or "passport"
    singular: bool  # one per user (`passport: Passport | None`) or a list
    fields: Mapping[str, str]  # field name -> annotation string
    domain: str  # identity, documents, travel, health, ...


def _domain(domain: str, kind: str, class_name: str, attribute: str, singular: bool, /, **fields: str) -> Domain:
    return Domain(kind, class_name, attribute, singular, MappingProxyType(dict(fields)), domain)


_DOMAINS = (
    _domain("identity", "profile", "Profile", "profile", True,
            full_name="str", home_city="str", email="str", phone="str", occupation="str",
            employer="str", birth_date="date"),
    _domain("documents", "passport", "Passport", "passport", True,
            number="str", country="str", issue_date="date", expiry_date="date"),
    # kind: passport, visa, drivers_licence, id_card, insurance, warranty or certificate
    _domain("documents", "document", "Document", "documents", False,
            kind="str", number="str", holder="str", expiry_date="date", country="str", issue_date="date",
            start_date="date", item="str", provider="str", purchase_date="date"),
    _domain("travel", "trip", "Trip", "trips", False,
            destination="str", country="str", purpose="str", booking_ref="str", carrier="str",
            departure_date="date", return_date="date", is_international="bool", cost_usd="float",
            departure_time="str", return_time="str", booking_status="str", confirmation="str"),
            # departure_time / return_time: HH:MM; booking_status: booked, planned or cancelled
    _domain("travel", "loyalty_program", "LoyaltyProgram", "loyalty_programs", False,
            program="str", number="str", provider="str", tier="str"),  # provider: the airline or hotel chain
    _domain("health", "allergy", "Allergy", "allergies", False,
            allergen="str", drug_class="str", severity="str", person="str"),
    _domain("health", "medication", "Medication", "medications", False,
            name="str", drug_class="str", dose="str", person="str", start_date="date", end_date="date",
            prescriber="str", status="str"),  # status: current, stopped or planned
    _domain("health", "appointment", "Appointment", "appointments", False,
            provider="str", location="str", person="str", start="datetime", end="datetime"),
    _domain("finance", "account", "Account", "accounts", False,
            institution="str", kind="str", last4="str"),
    _domain("finance", "payment", "Payment", "payments", False,  # status: pending / done / cancelled
            payee="str", reference="str", status="str", requested_by="str", amount_usd="float",
            scheduled_date="date", from_account="str", to_account="str", amount_eur="float", amount_gbp="float"),
            # amount_eur, amount_gbp: a price said in euros or pounds, never converted (as a note's amounts_eur)
    _domain("finance", "subscription", "Subscription", "subscriptions", False,  # cadence: monthly, yearly, ...
            vendor="str", amount_usd="float", cadence="str", due_date="date", promo_end_date="date", status="str",
            amount_eur="float", amount_gbp="float"),
            # status: active, trial, cancelling (the user means to cancel) or cancelled; due_date: next charge
    _domain("finance", "bill", "Bill", "bills", False,
            payee="str", amount_usd="float", due_date="date", recurring="bool", autopay="bool", amount_eur="float",
            amount_gbp="float"),
            # autopay: paid automatically (never overdue)
    _domain("vehicles", "vehicle", "Vehicle", "vehicles", False,
            make="str", model="str", plate="str", vin="str", year="int", next_service_date="date"),
    _domain("family", "relative", "Relative", "relatives", False,
            name="str", relationship="str", birth_date="date", age="int", birthday="str"),
            # relationship: daughter, husband, mother, child, ...; age as stated; birthday: MM-DD without a year
    _domain("schedule", "event", "Event", "events", False,
            title="str", location="str", start="datetime", end="datetime",
            recurrence="str", weekday="str", start_time="str", end_time="str"),  # weekly, tuesday, HH:MM
    _domain("schedule", "deadline", "Deadline", "deadlines", False,
            title="str", due_date="date"),
    _domain("preferences", "preference", "Preference", "preferences", False,
            topic="str", value="str", condition="str"),
            # topic: seat, diet, bed, airline, stops, flight time, contact; condition e.g. "long flights"
)

CANONICAL: Mapping[str, Domain] = MappingProxyType({d.kind: d for d in _DOMAINS})

# Free-text facts that fit no class become notes: `notes: list[Note]`.
NOTE_CLASS = "Note"
NOTE_ATTRIBUTE = "notes"

# A note's fields: its text, the values its sentence states (as `factlog.recognizers` found
# them; USD amounts apart from other currencies, which are never converted), who said it and
# in which session (from the fact's provenance). `factlog.note_fields` reads them from a
# kind-less fact. Every record gives the NOTE_REQUIRED ones; a list the fact does not give
# is empty (so `sum(a for n in notes for a in n.amounts_usd)` works), a scalar None.
NOTE_FIELDS: Mapping[str, str] = MappingProxyType({
    "text": "str", "dates": "list[date]", "times": "list[str]",  # times: HH:MM
    "amounts_usd": "list[float]", "amounts_eur": "list[float]", "amounts_gbp": "list[float]",
    "percentages": "list[float]", "identifiers": "list[str]", "emails": "list[str]", "phones": "list[str]",
    "speaker": "str", "session_id": "str",  # speaker: user, assistant, ... (the provenance's role)
})
NOTE_REQUIRED = frozenset({"text", "dates"})

# Every generated record carries its provenance under this field name.
PROVENANCE_FIELD = "fact_ids"

# Facts extracted from a conversation keep their session's metadata (e.g. the business the
# user talked to) under this field name; recall indexes it.
SESSION_METADATA = "session_metadata"


def canonical(kind: str) -> Domain | None:
    return CANONICAL.get(kind)

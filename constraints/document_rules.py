"""Built-in constraints over documents of one kind: a warranty running out on an item with
an open fault; and which documents' own expiry is worth a reminder (`is_trip_policy`)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from constraints.fault_notes import fault_on, notes_of
from constraints.model import Finding, constraint
from constraints.phrases import in_days
from constraints.records import fold, person_of
from constraints.views import DocumentRecord, read_all, reads, require
from factlog.vocabulary import NOTE_ATTRIBUTE

WARRANTY_SOON_DAYS = 30
# a policy whose whole cover is at most this long was bought for one trip (single-trip cover)
TRIP_POLICY_DAYS = 92


def is_warranty(kind: str | None) -> bool:
    folded = fold(kind)
    return folded is not None and "warranty" in folded


def is_trip_policy(document: DocumentRecord) -> bool:
    """Travel cover: an insurance policy said to be travel insurance (`item` "travel", or a
    kind naming it), or one bought for one trip (a start and an end at most
    `TRIP_POLICY_DAYS` apart). Its end is a trip's, not a renewal to remind of
    (`document_expiry` leaves it out); whether it covers each trip is
    `insurance_covers_trip`'s question. Ongoing cover (health, car, home) keeps its expiry
    reminder."""
    kind = fold(document.kind)
    if kind is None or "insurance" not in kind:
        return False
    if "travel" in kind or fold(document.item) in ("travel", "trip cancellation", "trip"):
        return True  # travel cover: whether it covers each trip is what matters, not its renewal
    start, end = document.start_date, document.expiry_date
    return start is not None and end is not None and 0 <= (end - start).days <= TRIP_POLICY_DAYS


def is_trip_visa(document: DocumentRecord) -> bool:
    """A visa granted for one trip: a start and an end at most `TRIP_POLICY_DAYS` apart (a
    30-day e-visa). Like a trip policy its end is the trip's, not a renewal to remind of
    (`document_expiry` leaves it out): whether it covers the trip is `visa_covers_trip`'s
    question, and a companion's visa is theirs to judge."""
    start, end = document.start_date, document.expiry_date
    return fold(document.kind) == "visa" and start is not None and end is not None and \
        0 <= (end - start).days <= TRIP_POLICY_DAYS


@constraint(name="warranty_expiring", needs=(DocumentRecord.ATTRIBUTE,),
            reads=(DocumentRecord.ATTRIBUTE, NOTE_ATTRIBUTE), clock="date", per_record=DocumentRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "kind", "expiry_date")]))
def warranty_expiring(module: object, now: datetime) -> Iterator[Finding]:
    """A warranty (a document of kind "warranty") expiring within 30 days on an item with an
    open fault the user reported (`constraints.fault_notes`): claim it before then. A warranty
    running out on an item that works is no alert: nothing is lost by it (and a fault on
    another appliance is not this one's)."""
    yield from faulty_warranties(module, now, 0, WARRANTY_SOON_DAYS)


def faulty_warranties(module: object, now: datetime, first: int, last: int) -> Iterator[Finding]:
    """A finding for each warranty ending in `first` to `last` days (both included) on an item
    with an open fault the user reported."""
    documents = read_all(module, DocumentRecord)
    require(documents, "document", "kind", "expiry_date")
    notes = notes_of(module)
    today = now.date()
    warranties = tuple(d for d in documents if is_warranty(d.kind))
    for warranty in warranties:
        expiry = warranty.expiry_date
        if expiry is None or not first <= (expiry - today).days <= last:
            continue
        fault = fault_on(warranty, notes, warranties)
        if fault is not None:
            yield fault_finding(warranty, (expiry - today).days, fault)


def fault_finding(warranty: DocumentRecord, days: int, fault: str) -> Finding:
    """The alert on a warranty running out with a fault open: the item (and whose), the
    computation, the fault as the user said it."""
    expiry = warranty.expiry_date
    assert expiry is not None
    holder = warranty.holder
    owner = f"{holder}'s" if person_of(holder) else "your"
    item = warranty.item or warranty.provider or "item"
    what = f"the warranty on {owner} {item}" + (f" ({warranty.number})" if warranty.number else "")
    message = f"{what} expires {in_days(days)} ({expiry}) and you reported a fault (\"{fault}\"); claim it before then"
    return Finding("warning", message, (warranty.source,), due=expiry)

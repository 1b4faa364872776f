"""The built-in over a warranty with an open fault: the user said the item is broken
(`constraints.fault_notes`) and the warranty runs out within 60 days (beyond the 30 days
`warranty_expiring` owns)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from constraints.document_rules import WARRANTY_SOON_DAYS, fault_finding, is_warranty
from constraints.fault_notes import FAULT, FIXED, fault_on, item_words, notes_of, open_fault
from constraints.model import Finding, constraint
from constraints.views import DocumentRecord, read_all, reads, require
from factlog.vocabulary import NOTE_ATTRIBUTE

__all__ = ["FAULT", "FIXED", "item_words", "open_fault", "warranty_fault_open"]

FAULT_WINDOW_DAYS = 60


@constraint(name="warranty_fault_open", needs=(DocumentRecord.ATTRIBUTE,),
            reads=(DocumentRecord.ATTRIBUTE, NOTE_ATTRIBUTE), clock="date", per_record=DocumentRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "kind", "expiry_date")]))
def warranty_fault_open(module: object, now: datetime) -> Iterator[Finding]:
    """A warranty ending within 60 days on an item with an open fault the user reported."""
    documents = read_all(module, DocumentRecord)
    require(documents, "document", "kind", "expiry_date")
    notes = notes_of(module)
    today = now.date()
    warranties = tuple(d for d in documents if is_warranty(d.kind))
    for warranty in warranties:
        expiry = warranty.expiry_date
        if not is_warranty(warranty.kind) or expiry is None:
            continue
        days = (expiry - today).days
        if not WARRANTY_SOON_DAYS < days <= FAULT_WINDOW_DAYS:
            continue
        fault = fault_on(warranty, notes, warranties)
        if fault is not None:
            yield fault_finding(warranty, days, fault)

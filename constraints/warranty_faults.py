"""The built-in over a warranty with an open fault: the user said the item is broken
(`constraints.fault_notes`) and the warranty runs out within 60 days (beyond the 30 days
`warranty_expiring` owns)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from constraints.document_rules import WARRANTY_SOON_DAYS, faulty_warranties
from constraints.fault_notes import FAULT, FIXED, item_words, open_fault
from constraints.model import Finding, constraint
from constraints.views import DocumentRecord, reads
from factlog.vocabulary import NOTE_ATTRIBUTE

__all__ = ["FAULT", "FIXED", "item_words", "open_fault", "warranty_fault_open"]

FAULT_WINDOW_DAYS = 60


@constraint(name="warranty_fault_open", needs=(DocumentRecord.ATTRIBUTE,),
            reads=(DocumentRecord.ATTRIBUTE, NOTE_ATTRIBUTE), clock="date", per_record=DocumentRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "kind", "expiry_date")]))
def warranty_fault_open(module: object, now: datetime) -> Iterator[Finding]:
    """A warranty ending in 31 to 60 days on an item with an open fault the user reported."""
    yield from faulty_warranties(module, now, WARRANTY_SOON_DAYS + 1, FAULT_WINDOW_DAYS)

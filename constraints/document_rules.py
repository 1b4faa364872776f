"""Built-in constraints over documents of one kind: warranties running out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from constraints.model import Finding, constraint
from constraints.phrases import in_days
from constraints.records import fold, person_of
from constraints.views import DocumentRecord, read_all, reads, require

WARRANTY_SOON_DAYS = 30


def is_warranty(kind: str | None) -> bool:
    folded = fold(kind)
    return folded is not None and "warranty" in folded


@constraint(name="warranty_expiring", needs=(DocumentRecord.ATTRIBUTE,), reads=(DocumentRecord.ATTRIBUTE,),
            clock="date", per_record=DocumentRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "kind", "expiry_date")]))
def warranty_expiring(module: object, now: datetime) -> Iterator[Finding]:
    """A warranty (a document of kind "warranty") expiring within 30 days: a fault to claim
    must be reported before then."""
    documents = read_all(module, DocumentRecord)
    require(documents, "document", "kind", "expiry_date")
    warranties = [d for d in documents if is_warranty(d.kind)]
    today = now.date()
    for warranty in warranties:
        expiry = warranty.expiry_date
        if expiry is None:
            continue
        days = (expiry - today).days
        if not 0 <= days <= WARRANTY_SOON_DAYS:
            continue
        item = warranty.item
        holder = warranty.holder
        owner = f"{holder}'s" if person_of(holder) else "your"
        what = f"the warranty on {owner} {item}" if item else f"{owner} warranty"
        if warranty.number:
            what += f" ({warranty.number})"
        message = f"{what} expires {in_days(days)} ({expiry}); claim any fault before then"
        yield Finding("warning", message, (warranty.source,), due=expiry)

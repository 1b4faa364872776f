"""Notices: a constraint ran on records that lack a field it reads.

Record files keep their own field names, so a bill file with `amount` (not `amount_usd`)
or trips with `date` (not `departure_date`) compile fine, and the built-in constraints then
find nothing, or say "unknown amount", without a word about why. A constraint declares the
fields it reads per attribute (`@constraint(fields={"trips": ("departure_date",)})`); after
a run, every record lacking one (absent or None) is counted, one notice per constraint and
field, and when those records hold a similarly named field it is suggested as the source
for ingest's `--map SOURCE=FIELD`.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass

from constraints.model import Constraint
from constraints.records import field_value
from factlog.vocabulary import CANONICAL, PROVENANCE_FIELD

# Likely source names for the canonical fields built-in constraints read, most likely first.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "departure_date": ("date", "departure", "depart_date", "departs", "start_date", "leave_date", "from_date"),
    "return_date": ("return", "end_date", "back_date", "to_date"),
    "amount_usd": ("amount", "amount_due", "total", "cost", "price", "usd", "value"),
    "due_date": ("due", "due_on", "date", "pay_by", "deadline"),
    "expiry_date": ("expiry", "expires", "expiration_date", "expiration", "expires_on", "valid_until"),
    "next_service_date": ("next_service", "service_date", "service_due", "due_date"),
    "start": ("start_time", "starts", "begin", "when", "datetime", "date"),
    "drug_class": ("class", "drug_family", "category"),
    "payee": ("to", "recipient", "vendor", "merchant"),
    "status": ("state",),
}


@dataclass(frozen=True)
class FieldNotice:
    constraint: str
    attribute: str  # the module attribute, e.g. "trips"
    field: str  # the field the constraint reads, e.g. "departure_date"
    missing: int  # records lacking it
    total: int  # records under the attribute
    source: str | None  # a field those records have that probably holds it, e.g. "date"

    @property
    def message(self) -> str:
        noun = _noun(self.attribute, self.missing, self.total)
        if self.source is not None:
            hint = f"map your field with --map {self.source}={self.field}"
        else:
            hint = f"add it, or map the field that holds it with --map FIELD={self.field}"
        return f"{noun} no {self.field}; {hint}"

    def to_json(self) -> dict[str, object]:
        return {"constraint": self.constraint, "attribute": self.attribute, "field": self.field,
                "missing": self.missing, "total": self.total, "suggested_source": self.source,
                "message": self.message}


def _noun(attribute: str, missing: int, total: int) -> str:
    domain = next((d for d in CANONICAL.values() if d.attribute == attribute), None)
    if domain is not None and domain.singular:
        return f"the {attribute} has"
    one = domain.kind if domain is not None else attribute.removesuffix("s")
    if missing == 1:
        return f"1 {one} (of {total}) has" if total > 1 else f"1 {one} has"
    return f"{missing} {attribute}" + (f" (of {total})" if total > missing else "") + " have"


def _records(value: object) -> list[object]:
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _present_fields(record: object) -> list[str]:
    """Names of the record's fields that hold a value (its provenance aside)."""
    if is_dataclass(record) and not isinstance(record, type):
        names = [f.name for f in fields(record)]
    else:
        names = [n for n in getattr(record, "__dict__", {}) if not n.startswith("_")]
    return [n for n in names if n != PROVENANCE_FIELD and field_value(record, n) is not None]


def _similar(wanted: str, name: str) -> int | None:
    """How likely `name` holds `wanted` (lower is likelier), or None when unrelated."""
    synonyms = SYNONYMS.get(wanted, ())
    if name in synonyms:
        return synonyms.index(name)
    if wanted.startswith(name + "_"):  # `amount` for `amount_usd`
        return len(synonyms)
    if difflib.SequenceMatcher(None, wanted, name).ratio() >= 0.8:
        return len(synonyms) + 1
    return None


def suggest_source(wanted: str, lacking: Iterable[object], taken: Iterable[str] = ()) -> str | None:
    """The similarly named field most of the lacking records hold (canonical names aside)."""
    skip = set(taken) | {wanted}
    held: Counter[str] = Counter()
    for record in lacking:
        held.update(n for n in _present_fields(record) if n not in skip)
    ranked = [(held[n], -rank, n) for n in held if (rank := _similar(wanted, n)) is not None]
    return max(ranked)[2] if ranked else None


def field_notices(module: object, constraints: Iterable[Constraint]) -> tuple[FieldNotice, ...]:
    """One notice per constraint and field it reads that some of the records lack; a
    constraint whose `needs` the module lacks does not run, and has none."""
    notices: list[FieldNotice] = []
    found: dict[tuple[str, str], tuple[int, int, str | None]] = {}  # several constraints read one field
    for item in constraints:
        if any(field_value(module, attribute) is None for attribute in item.needs):
            continue
        for attribute, names in item.fields.items():
            for name in dict.fromkeys(names):
                if (attribute, name) not in found:
                    found[(attribute, name)] = _lacking(module, attribute, name)
                missing, total, source = found[(attribute, name)]
                if missing:
                    notices.append(FieldNotice(item.name, attribute, name, missing, total, source))
    return tuple(notices)


def _lacking(module: object, attribute: str, name: str) -> tuple[int, int, str | None]:
    """How many records under `attribute` lack `name`, of how many, and the likely source field."""
    value = field_value(module, attribute)
    if value is None:
        return 0, 0, None
    records = _records(value)
    lacking = [r for r in records if getattr(r, name, None) is None]
    if not lacking:
        return 0, len(records), None
    domain = next((d for d in CANONICAL.values() if d.attribute == attribute), None)
    canonical = set(domain.fields) if domain is not None else set()
    return len(lacking), len(records), suggest_source(name, lacking, canonical)

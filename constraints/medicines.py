"""Medications and allergies through the bundled drug table (`factlog.reference.drugs`):
what a record names (its generic names and drug classes), whether a medication is current,
and the `drug_interactions` constraint.

A record's drug classes are its `drug_class` (a class name the table knows, e.g. "SSRI",
becomes the table's class; any other text is compared as given, case-insensitively) plus
the classes of its drug name: a medication's `name`, an allergy's `allergen`, a brand name
read as its generic ("Zoloft" -> sertraline -> SSRIs). An allergy to one drug extends to
its class only for classes the table marks as allergy groups (penicillins, sulfonamides,
NSAIDs, ...): an allergy to codeine is not an allergy to every opioid.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime

from constraints.model import Finding, MissingInput, Severity, constraint
from constraints.optional_fields import optional_text
from constraints.phrases import whose
from constraints.records import fold, person_of
from constraints.views import AllergyRecord, MedicationRecord, read_all, reads
from factlog.reference.drugs import class_id, drug_classes, drug_index, generic_names, interaction
from factlog.reference.tables import Interaction

STOPPED = frozenset({"stopped", "discontinued", "ended", "finished", "completed", "cancelled", "canceled"})
SEVERITY: dict[str, Severity] = {"contraindicated": "critical", "major": "critical", "moderate": "warning"}


@dataclass(frozen=True)
class Drugs:
    """What a medication or allergy record names: generic names and class keys (a table
    class id, or the record's own class text, case-folded)."""

    generics: frozenset[str]
    classes: tuple[str, ...]


def class_key(text: str | None) -> str | None:
    """A `drug_class` value as a class key: the table's class id, or the text case-folded."""
    if text is None:
        return None
    return class_id(text) or fold(text)


def class_words(key: str) -> str:
    """A class key as words: the table's class name, or the key itself."""
    found = drug_index().classes.get(key)
    return found.name if found is not None else key


def medication_drugs(medication: MedicationRecord) -> Drugs:
    classes: dict[str, None] = {}
    if (own := class_key(medication.drug_class)) is not None:
        classes[own] = None
    name = medication.name
    generics = generic_names(name) if name else ()
    if name:
        classes.update(dict.fromkeys(drug_classes(name)))
    return Drugs(frozenset(generics), tuple(classes))


def allergy_drugs(allergy: AllergyRecord) -> Drugs:
    classes: dict[str, None] = {}
    if (own := class_key(allergy.drug_class)) is not None:
        classes[own] = None
    allergen = allergy.allergen
    generics: tuple[str, ...] = ()
    if allergen:
        named = class_id(allergen)
        if named is not None:
            classes[named] = None
        else:
            generics = generic_names(allergen)
            index = drug_index()
            classes.update(dict.fromkeys(c for c in drug_classes(allergen) if index.classes[c].allergy_group))
    return Drugs(frozenset(generics), tuple(classes))


def knows_drugs(name: str | None) -> bool:
    """The table knows this name as a drug, a brand or a class."""
    return name is not None and bool(generic_names(name) or class_id(name))


def is_current(medication: MedicationRecord, today: date) -> bool:
    """Taken now or later: not stopped (`status`) and not ended before today."""
    ended = medication.end_date
    status = fold(optional_text(medication, "status"))
    return not (ended is not None and ended < today) and status not in STOPPED


def _medication_words(medication: MedicationRecord, drugs: Drugs, classes: list[str]) -> str:
    name = medication.name or (min(drugs.generics) if drugs.generics else "a medication")
    return f"{name} ({', '.join(class_words(c) for c in classes)})"


@constraint(name="drug_interactions", needs=(MedicationRecord.ATTRIBUTE,), reads=(MedicationRecord.ATTRIBUTE,),
            clock="date", fields=dict([reads(MedicationRecord, "name")]))
def drug_interactions(module: object, now: datetime) -> Iterator[Finding]:
    """Two current medications of the same person whose drug classes interact (the bundled
    drug table: contraindicated or major -> critical, moderate -> warning)."""
    medications = read_all(module, MedicationRecord)
    if medications and not any(m.has("name") or m.has("drug_class") for m in medications):
        raise MissingInput("medication records have neither 'name' nor 'drug_class'")
    today = now.date()
    by_person: dict[str, list[tuple[MedicationRecord, Drugs]]] = defaultdict(list)
    for medication in medications:
        drugs = medication_drugs(medication)
        if drugs.classes and is_current(medication, today):
            by_person[person_of(medication.person)].append((medication, drugs))
    for taken in by_person.values():
        for i, (first, first_drugs) in enumerate(taken):
            for second, second_drugs in taken[i + 1:]:
                if first_drugs.generics & second_drugs.generics:
                    continue  # the same drug recorded twice, not two drugs
                found = _interactions(first_drugs, second_drugs)
                if found:
                    yield _interaction_finding(first, first_drugs, second, second_drugs, found)


def _interactions(first: Drugs, second: Drugs) -> list[tuple[str, str, Interaction]]:
    found: dict[frozenset[str], tuple[str, str, Interaction]] = {}
    for a in first.classes:
        for b in second.classes:
            entry = interaction(a, b) if a != b else None
            if entry is not None:
                found.setdefault(frozenset((a, b)), (a, b, entry))
    return list(found.values())


_RANK = {"contraindicated": 0, "major": 1, "moderate": 2}


def _interaction_finding(first: MedicationRecord, first_drugs: Drugs, second: MedicationRecord,
                         second_drugs: Drugs, found: list[tuple[str, str, Interaction]]) -> Finding:
    found.sort(key=lambda item: (_RANK[item[2].severity], item[0], item[1]))
    worst = found[0][2]
    first_classes = list(dict.fromkeys(a for a, _, _ in found))
    second_classes = list(dict.fromkeys(b for _, b, _ in found))
    reasons = "; ".join(dict.fromkeys(f"{entry.reason} ({entry.severity})" for _, _, entry in found))
    message = (
        f"{whose(first.person)} medications {_medication_words(first, first_drugs, first_classes)} and "
        f"{_medication_words(second, second_drugs, second_classes)} interact: {reasons}"
    )
    return Finding(SEVERITY[worst.severity], message, (first.source, second.source))

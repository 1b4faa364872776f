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
from constraints.phrases import whose
from constraints.record_memo import RecordMemo
from constraints.records import Family, family_of, fold, person_of, taker_of
from constraints.views import AllergyRecord, MedicationRecord, RelativeRecord, read_all, read_present, reads
from factlog.reference.drugs import class_id, cross_reactions, drug_classes, drug_index, generic_names
from factlog.reference.tables import CrossReactivity, Interaction

STOPPED = frozenset({"stopped", "discontinued", "ended", "finished", "completed", "cancelled", "canceled",
                     "paused"})  # a paused drug is not taken now (the readers read "on hold" so)
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


class AllergyIndex:
    """A person's allergies by what they name, so a medication finds its clashes by lookup:
    `direct` (the same drug or class) and `cautions` (a class the table says cross-reacts)."""

    def __init__(self, allergies: list[tuple[AllergyRecord, Drugs]], family: Family | None = None) -> None:
        self._order: dict[int, int] = {}
        self._by_class: dict[tuple[str, str], list[AllergyRecord]] = defaultdict(list)
        self._by_generic: dict[tuple[str, str], list[AllergyRecord]] = defaultdict(list)
        self._cautions: dict[tuple[str, str], list[tuple[AllergyRecord, str, CrossReactivity]]] = defaultdict(list)
        for number, (allergy, drugs) in enumerate(allergies):
            self._order[id(allergy)] = number
            person = taker_of(allergy.person, allergy.subject, family)
            for key in drugs.classes:
                self._by_class[(person, key)].append(allergy)
                for cross in cross_reactions(key):
                    self._cautions[(person, cross.caution)].append((allergy, key, cross))
            for generic in drugs.generics:
                self._by_generic[(person, generic)].append(allergy)

    def direct(self, person: str, taken: Drugs) -> list[tuple[AllergyRecord, str]]:
        """The person's allergies to one of the drugs or classes taken, in their records' order,
        each with what they share (a class name, else the generic name)."""
        found: dict[int, tuple[AllergyRecord, str]] = {}
        for key in taken.classes:
            for allergy in self._by_class.get((person, key), ()):
                found.setdefault(id(allergy), (allergy, class_words(key)))
        for generic in sorted(taken.generics):
            for allergy in self._by_generic.get((person, generic), ()):
                found.setdefault(id(allergy), (allergy, generic))
        return sorted(found.values(), key=lambda item: self._order[id(item[0])])

    def cautions(self, person: str, taken: Drugs,
                 skip: set[int]) -> list[tuple[AllergyRecord, str, CrossReactivity]]:
        """The person's allergies whose class cross-reacts with a class taken (one per allergy),
        except those in `skip` (already a direct clash)."""
        found: dict[int, tuple[AllergyRecord, str, CrossReactivity]] = {}
        for key in taken.classes:
            for allergy, allergy_class, cross in self._cautions.get((person, key), ()):
                if id(allergy) not in skip:
                    found.setdefault(id(allergy), (allergy, allergy_class, cross))
        return sorted(found.values(), key=lambda item: self._order[id(item[0])])


def knows_drugs(name: str | None) -> bool:
    """The table knows this name as a drug, a brand or a class."""
    return name is not None and bool(generic_names(name) or class_id(name))


@dataclass(frozen=True)
class Taken:
    """What a medication record gives alone: the record, its drugs, whose it is, when it ends
    and whether it was stopped (kept per record object by `taken`)."""

    medication: MedicationRecord
    drugs: Drugs
    person: str
    ended: date | None
    stopped: bool

    def is_current(self, today: date) -> bool:
        """Taken now or later: not stopped (`status`) and not ended before today."""
        ended = self.ended
        return not (ended is not None and ended < today) and not self.stopped


def _taken(source: object) -> Taken:
    medication = MedicationRecord(source)
    stopped = fold(medication.status) in STOPPED
    return Taken(medication, medication_drugs(medication), person_of(medication.person), medication.end_date, stopped)


_TAKEN: RecordMemo[object, Taken] = RecordMemo(_taken)
_ALLERGIES: RecordMemo[object, tuple[AllergyRecord, Drugs]] = RecordMemo(
    lambda source: (AllergyRecord(source), allergy_drugs(AllergyRecord(source))))


def current_medications(medications: list[MedicationRecord], today: date) -> list[Taken]:
    """The current medications among these, with their drugs (derived once per record object)."""
    return [item for item in _TAKEN.values([m.source for m in medications]) if item.is_current(today)]


def allergies_with_drugs(allergies: list[AllergyRecord]) -> list[tuple[AllergyRecord, Drugs]]:
    """Each allergy with what it names (derived once per record object)."""
    return _ALLERGIES.values([a.source for a in allergies])


def drop_kept() -> None:
    """Drop what the medicine constraints keep of the records they saw last."""
    _TAKEN.clear()
    _ALLERGIES.clear()


def _medication_words(medication: MedicationRecord, drugs: Drugs, classes: list[str]) -> str:
    name = medication.name or (min(drugs.generics) if drugs.generics else "a medication")
    return f"{name} ({', '.join(class_words(c) for c in classes)})"


@constraint(name="drug_interactions", needs=(MedicationRecord.ATTRIBUTE,),
            reads=(MedicationRecord.ATTRIBUTE, RelativeRecord.ATTRIBUTE), clock="date",
            fields=dict([reads(MedicationRecord, "name")]))
def drug_interactions(module: object, now: datetime) -> Iterator[Finding]:
    """Two current medications of the same person whose drug classes interact (the bundled
    drug table: contraindicated or major -> critical, moderate -> warning)."""
    medications = read_all(module, MedicationRecord)
    if medications and not any(m.has("name") or m.has("drug_class") for m in medications):
        raise MissingInput("medication records have neither 'name' nor 'drug_class'")
    family = family_of((r.name, r.relationship) for r in read_present(module, RelativeRecord) or ())
    by_person: dict[str, list[tuple[MedicationRecord, Drugs]]] = defaultdict(list)
    for item in current_medications(medications, now.date()):
        if item.drugs.classes:  # one person however named: "Da", "father", "Seamus" (`taker_of`)
            by_person[taker_of(item.medication.person, item.medication.subject, family)].append(
                (item.medication, item.drugs))
    pairs = drug_index().interactions
    for taken in by_person.values():
        holders: dict[str, list[int]] = defaultdict(list)
        for number, (_, drugs) in enumerate(taken):
            for key in drugs.classes:
                holders[key].append(number)
        found: dict[tuple[int, int], dict[frozenset[str], tuple[str, str, Interaction]]] = defaultdict(dict)
        for classes, entry in pairs.items():
            a, b = sorted(classes)
            for i in holders.get(a, ()):
                for j in holders.get(b, ()):
                    if i != j and not taken[i][1].generics & taken[j][1].generics:  # not one drug twice
                        first, second = (a, b) if i < j else (b, a)
                        found[(min(i, j), max(i, j))].setdefault(classes, (first, second, entry))
        for (i, j), entries in sorted(found.items()):
            yield _interaction_finding(taken[i][0], taken[i][1], taken[j][0], taken[j][1], list(entries.values()))


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

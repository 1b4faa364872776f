"""Small helpers for reading module records: a field's raw value, moments comparable with
`now`, and who a record is about.

Fields of the canonical kinds are read, typed and converted, through the views of
`constraints.views`; these helpers work on what the views give.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from factlog.relations import family_word


def field_value(record: object, name: str) -> object:
    """A record's value for a field, None when the record lacks it."""
    return getattr(record, name, None)


def align(moment: datetime, now: datetime) -> datetime:
    """A datetime comparable with `now`: naive values take `now`'s zone, aware ones move to it."""
    if (moment.tzinfo is None) == (now.tzinfo is None):
        return moment
    if moment.tzinfo is None:
        return moment.replace(tzinfo=now.tzinfo)
    return moment.astimezone().replace(tzinfo=None)


def fold(text: str | None) -> str | None:
    """A string normalised for comparison (the views give it stripped): case-folded; None if None or empty."""
    return text.casefold() if text else None


_THE_USER = frozenset({"", "me", "myself", "self", "user", "the user", "i"})
_TITLE = re.compile(r"^(?:mr|mrs|ms|miss|mx|dr|prof)\.?\s+")


def person_of(person: str | None) -> str:
    """Who a `person` field names, case-folded: '' for the user (None, "me", "myself", ...)."""
    if not person:
        return ""
    who = " ".join(person.casefold().split())
    if who in _THE_USER:
        return ""
    untitled = _TITLE.sub("", who)  # "Mr Osei" and "Osei" are one person, as one reader or another writes him
    return family_word(who) or untitled or who  # "mom" and "mother" are one person


@dataclass(frozen=True)
class Family:
    """The user's named relatives: each name (case-folded) whose relation no other named
    relative shares -> its family word; `shared`: the relations two or more named relatives
    have ("son" for Ben and Leo), where a name, not the relation, tells them apart."""

    names: Mapping[str, str] = field(default_factory=dict)
    shared: frozenset[str] = frozenset()


def family_of(relatives: Iterable[tuple[str | None, str | None]]) -> Family:
    """The `Family` of (name, relationship) pairs (the module's relative records)."""
    named: dict[str, set[str]] = defaultdict(set)
    for name, relationship in relatives:
        word = family_word(relationship) if relationship else None
        if name and word is not None:
            named[word].add(name.casefold())
    return Family({name: word for word, names in named.items() if len(names) == 1 for name in names},
                  frozenset(word for word, names in named.items() if len(names) > 1))


def taker_of(person: str | None, subject: str | None, family: Family | None = None) -> str:
    """Whose a medication or allergy is, for comparing two records: the relative a family-word
    `subject` or `person` names, or a name the user's relatives give ("father", whether `person`
    says "Da" or "Seamus"); a name where two relatives share the relation; else `person_of`."""
    known = family or Family()
    for said in (subject, person):
        relation = (family_word(said) or known.names.get(said.casefold())) if said else None
        if relation is None:
            continue
        if relation in known.shared and person and family_word(person) is None and person_of(person):
            return person_of(person)  # "son" Ben and "son" Leo are two people
        return relation
    return person_of(person)

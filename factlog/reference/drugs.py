"""Drug names through the bundled drug table: brand -> generic names, generic -> classes,
class names -> class ids, and the interactions and allergy cross-reactivity between classes.

Names match case-insensitively; a medication name with a dose or a form after it
("sertraline 50 mg", "Zoloft tablets") is matched by its longest leading words that the
table knows.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache, lru_cache

from factlog.reference.tables import CrossReactivity, DrugClass, Interaction, drug_table, fold_name

__all__ = ["DrugIndex", "class_id", "cross_reactions", "drug_classes", "drug_index", "generic_names", "interaction",
           "name_words"]

_WORD = re.compile(r"#?[a-z0-9][a-z0-9'.\-]*")


def name_words(text: str) -> str:
    """A name as the index keys it: case-folded words ("Tylenol #3" -> "tylenol #3")."""
    return " ".join(_WORD.findall(text.casefold()))


@dataclass(frozen=True)
class DrugIndex:
    classes: dict[str, DrugClass]  # class id -> class
    class_names: dict[str, str]  # folded id, name or alias (and its plural) -> class id
    member_classes: dict[str, tuple[str, ...]]  # generic name -> class ids, in table order
    brands: dict[str, tuple[str, ...]]  # folded brand -> generic names
    interactions: dict[frozenset[str], Interaction]  # the two class ids -> interaction
    cross: dict[str, tuple[CrossReactivity, ...]]  # allergy class id -> cautions


@cache
def drug_index() -> DrugIndex:
    table = drug_table()
    class_names: dict[str, str] = {}
    members: dict[str, list[str]] = defaultdict(list)
    for item in table.classes:
        for name in (item.id.replace("_", " "), item.name, *item.aliases):
            folded = fold_name(name)
            class_names.setdefault(folded, item.id)
            if not folded.endswith("s"):
                class_names.setdefault(folded + "s", item.id)
        for member in item.members:
            members[member].append(item.id)
    cross: dict[str, list[CrossReactivity]] = defaultdict(list)
    for entry in table.cross_reactivity:
        cross[entry.allergy].append(entry)
    return DrugIndex(
        classes={item.id: item for item in table.classes},
        class_names=class_names,
        member_classes={name: tuple(ids) for name, ids in members.items()},
        brands={name_words(brand): names for brand, names in table.all_brands().items()},
        interactions={frozenset(entry.classes): entry for entry in table.interactions},
        cross={allergy: tuple(entries) for allergy, entries in cross.items()},
    )


def _prefixes(text: str) -> list[str]:
    words = _WORD.findall(text.casefold())
    return [" ".join(words[:n]) for n in range(len(words), 0, -1)]


@lru_cache(maxsize=4096)
def generic_names(name: str) -> tuple[str, ...]:
    """The generic names a drug name stands for: itself when the table lists it, a brand's
    generics, () when the table knows neither. A combination written with "/" or "+"
    ("amoxicillin/clavulanate") stands for each of its parts the table knows."""
    if "/" in name or "+" in name:
        parts = [part for part in re.split(r"\s*[/+]\s*", name) if part.strip()]
        return tuple(dict.fromkeys(generic for part in parts for generic in generic_names(part)))
    index = drug_index()
    for candidate in _prefixes(name):
        if candidate in index.member_classes:
            return (candidate,)
        brand = index.brands.get(candidate)
        if brand is not None:
            return brand
    return ()


@lru_cache(maxsize=4096)
def drug_classes(name: str) -> tuple[str, ...]:
    """The class ids of a drug name (generic or brand); () when the table does not know it."""
    index = drug_index()
    found: dict[str, None] = {}
    for generic in generic_names(name):
        found.update(dict.fromkeys(index.member_classes[generic]))
    return tuple(found)


@lru_cache(maxsize=4096)
def class_id(text: str) -> str | None:
    """The class id a drug-class name stands for ("SSRI", "penicillin", "blood thinners"); None if unknown."""
    index = drug_index()
    folded = fold_name(text)
    return index.class_names.get(folded) or index.class_names.get(folded.replace("-", " "))


def interaction(first: str, second: str) -> Interaction | None:
    """The table's interaction between two class ids, in either order."""
    return drug_index().interactions.get(frozenset((first, second)))


def cross_reactions(allergy_class: str) -> tuple[CrossReactivity, ...]:
    """The classes to use with caution given an allergy to a class."""
    return drug_index().cross.get(allergy_class, ())

"""The bundled reference tables (JSON files next to this module), validated when loaded.

`drugs.json`: drug classes with their members (generic names), brand -> generic names,
class-level interactions and allergy cross-reactivity. `countries.json`: countries with the
entry rules for a U.S. passport holder (passport validity, Schengen membership, visa),
and common destination cities -> country. Each table and each entry names its source.

The tables ship with the package and are trusted, but checked: a table that does not
match its schema, or whose entries refer to names it does not define, raises
`ReferenceTableError` naming the file and the problem, never a silent partial table.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = [
    "Country", "CountryTable", "CrossReactivity", "DrugClass", "DrugTable", "Interaction", "ReferenceTableError",
    "SchengenRule", "Validity", "country_table", "drug_table", "fold_name", "load_country_table", "load_drug_table",
]

Text = Field(min_length=1)


class ReferenceTableError(RuntimeError):
    """A bundled reference table is missing or invalid: a packaging bug, not user input."""


def fold_name(text: str) -> str:
    """A name as the tables compare it: case-folded, blanks collapsed."""
    return " ".join(text.casefold().split())


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# --- drugs ----------------------------------------------------------------------------

InteractionSeverity = Literal["contraindicated", "major", "moderate"]


class DrugClass(_Entry):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str = Text
    atc: tuple[str, ...]  # WHO ATC codes of the class; empty where the class is not an ATC group
    allergy_group: bool  # an allergy to one member is read as an allergy to the class
    aliases: tuple[str, ...]
    members: tuple[str, ...] = Field(min_length=1)
    source: str = Text


class Interaction(_Entry):
    classes: tuple[str, str]
    severity: InteractionSeverity
    reason: str = Text
    source: str = Text


class CrossReactivity(_Entry):
    allergy: str = Text  # a class id: the allergy
    caution: str = Text  # a class id: medications to use with caution
    reason: str = Text
    source: str = Text


class DrugTable(_Entry):
    format: Literal[1]
    title: str = Text
    source: str = Text
    assumptions: str = Text
    severities: dict[InteractionSeverity, str]
    classes: tuple[DrugClass, ...] = Field(min_length=1)
    brands_source: str = Text
    brands: dict[str, tuple[str, ...]]
    # names used outside the U.S. (British approved names of combinations, UK, Australian
    # and Indian brands), with their own source; read as brands
    other_names_source: str = Text
    other_names: dict[str, tuple[str, ...]]
    interactions: tuple[Interaction, ...]
    cross_reactivity: tuple[CrossReactivity, ...]

    @model_validator(mode="after")
    def _consistent(self) -> DrugTable:
        ids = [c.id for c in self.classes]
        _unique(ids, "class id")
        known = set(ids)
        class_names: dict[str, str] = {}
        for item in self.classes:
            for name in {item.id.replace("_", " "), fold_name(item.name), *map(fold_name, item.aliases)}:
                if class_names.setdefault(name, item.id) != item.id:
                    raise ValueError(f"class name {name!r} names both {class_names[name]!r} and {item.id!r}")
            if any(fold_name(member) != member or not member for member in item.members):
                raise ValueError(f"class {item.id!r}: members must be lower-case generic names")
        generics = {member for item in self.classes for member in item.members}
        for brand, names in (*self.brands.items(), *self.other_names.items()):
            if not names or not set(names) <= generics:
                raise ValueError(f"brand {brand!r} names a generic no class lists: {list(names)}")
            if fold_name(brand) in generics:
                raise ValueError(f"brand {brand!r} is also a generic name")
        _unique([fold_name(brand) for brand in (*self.brands, *self.other_names)], "brand")
        pairs = []
        for interaction in self.interactions:
            first, second = interaction.classes
            if not {first, second} <= known or first == second:
                raise ValueError(f"interaction {list(interaction.classes)}: two different known class ids needed")
            pairs.append(" + ".join(sorted(interaction.classes)))
        _unique(pairs, "interaction")
        for cross in self.cross_reactivity:
            if not {cross.allergy, cross.caution} <= known or cross.allergy == cross.caution:
                raise ValueError(f"cross-reactivity {cross.allergy!r} -> {cross.caution!r}: unknown class id")
        return self

    def all_brands(self) -> dict[str, tuple[str, ...]]:
        """U.S. brands and the names used elsewhere, each to its generic names."""
        return {**self.brands, **self.other_names}


# --- countries ------------------------------------------------------------------------

Visa = Literal["none", "eta", "evisa", "visa_on_arrival", "required"]


class Validity(_Entry):
    """The passport validity a country requires: `months` and `days` past the day of entry,
    or past the day the traveller leaves (`counted_from`); 0 and 0 from departure: the whole stay."""

    months: int = Field(ge=0, le=24)
    days: int = Field(ge=0, le=730)
    counted_from: Literal["entry", "departure"] = Field(alias="from")


class Country(_Entry):
    name: str = Text
    iso2: str = Field(pattern=r"^[A-Z]{2}$")
    aliases: tuple[str, ...]
    schengen: bool
    eu: bool
    passport_validity: Validity | None  # None: the table does not say
    us_visa: Visa | None  # for a U.S. passport holder; None: the table does not say
    source: str = Text
    note: str | None = None


class SchengenRule(_Entry):
    days: int = Field(gt=0)
    window_days: int = Field(gt=0)
    validity_note: str = Text
    source: str = Text


class CountryTable(_Entry):
    format: Literal[1]
    title: str = Text
    source: str = Text
    assumptions: str = Text
    schengen: SchengenRule
    cities_source: str = Text
    countries: tuple[Country, ...] = Field(min_length=1)
    cities: dict[str, str]

    @model_validator(mode="after")
    def _consistent(self) -> CountryTable:
        codes = [c.iso2 for c in self.countries]
        _unique(codes, "country code")
        _unique([fold_name(name) for c in self.countries for name in (c.name, *c.aliases)], "country name")
        for country in self.countries:
            if country.schengen and country.passport_validity is None:
                raise ValueError(f"{country.name}: a Schengen country needs its passport validity")
        unknown = sorted(city for city, code in self.cities.items() if code not in set(codes))
        if unknown:
            raise ValueError(f"cities name unknown country codes: {unknown[:5]}")
        _unique([fold_name(city) for city in self.cities], "city")
        if self.schengen.days > self.schengen.window_days:
            raise ValueError("the Schengen limit exceeds its window")
        return self


# --- loading --------------------------------------------------------------------------

def _unique(values: list[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"duplicate {what} {value!r}")
        seen.add(value)


Table = TypeVar("Table", DrugTable, CountryTable)


def _load(model: type[Table], name: str, path: Path | None) -> Table:
    where = str(path) if path is not None else name
    try:
        raw = path.read_bytes() if path is not None else resources.files(__package__).joinpath(name).read_bytes()
        return model.model_validate(json.loads(raw))
    except (OSError, ValueError) as exc:  # json's and pydantic's errors are ValueErrors
        problem = _first_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise ReferenceTableError(f"reference table {where}: {problem}") from exc


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    place = ".".join(str(part) for part in error["loc"])
    return f"{place}: {error['msg']}" if place else str(error["msg"])


def load_drug_table(path: Path | None = None) -> DrugTable:
    """The drug table: the bundled one, or the file at `path` (tests check a corrupt copy fails)."""
    return _load(DrugTable, "drugs.json", path)


def load_country_table(path: Path | None = None) -> CountryTable:
    """The country table: the bundled one, or the file at `path`."""
    return _load(CountryTable, "countries.json", path)


@cache
def drug_table() -> DrugTable:
    """The bundled drug table, loaded and validated once per process."""
    return load_drug_table()


@cache
def country_table() -> CountryTable:
    """The bundled country table, loaded and validated once per process."""
    return load_country_table()

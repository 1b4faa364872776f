"""Places through the bundled country table: a country by its name or an alias, a city's
country, and the entry rules the table records for each country.

A place is matched as a whole field value, case-insensitively ("Tokyo", "Paris, France"),
never searched for inside free text: several city names are also common words.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from factlog.reference.tables import Country, SchengenRule, country_table, fold_name

__all__ = ["CountryIndex", "country_index", "country_named", "country_of_city", "country_of_place", "schengen_rule"]


@dataclass(frozen=True)
class CountryIndex:
    by_name: dict[str, Country]  # folded name or alias -> country
    by_city: dict[str, Country]  # folded city -> country


@cache
def country_index() -> CountryIndex:
    table = country_table()
    by_code = {country.iso2: country for country in table.countries}
    by_name = {fold_name(name): country for country in table.countries for name in (country.name, *country.aliases)}
    by_city = {fold_name(city): by_code[code] for city, code in table.cities.items()}
    return CountryIndex(by_name, by_city)


def country_named(name: str) -> Country | None:
    """The country a name or alias names ("Japan", "USA", "Holland"); None if the table lacks it."""
    return country_index().by_name.get(fold_name(name).removeprefix("the "))


def country_of_city(city: str) -> Country | None:
    """The country of a destination city ("Tokyo" -> Japan); None if the table lacks it."""
    return country_index().by_city.get(fold_name(city))


@lru_cache(maxsize=4096)
def country_of_place(place: str) -> Country | None:
    """The country a place names: a country, a city, or "City, Country" (the last part wins)."""
    parts = [part for part in (p.strip() for p in place.split(",")) if part]
    for part in reversed(parts):
        found = country_named(part) or country_of_city(part)
        if found is not None:
            return found
    return None


def schengen_rule() -> SchengenRule:
    """The Schengen short-stay rule: at most `days` days in any `window_days` days."""
    return country_table().schengen

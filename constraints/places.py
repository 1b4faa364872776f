"""Where a trip goes, through the bundled country table (`factlog.reference`): a trip's
country, whether it is international, and the passport validity its country requires.

A trip's `country` names its country when the table knows that name; otherwise its
`destination` ("Tokyo", "Paris, France") does. Names the table does not know are compared
as given, case-insensitively, as before the table existed.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

from constraints.records import fold
from constraints.views import PassportRecord, TripRecord
from factlog.reference.countries import country_of_place
from factlog.reference.tables import Country, Validity


def trip_country(trip: TripRecord) -> Country | None:
    """The table's country for a trip: by its `country`, else by its `destination`."""
    for place in (trip.country, trip.destination):
        if place is not None and (found := country_of_place(place)) is not None:
            return found
    return None


def country_key(name: str | None) -> str | None:
    """A country name for comparison: the table's name for it when known, else case-folded."""
    if name is None:
        return None
    found = country_of_place(name)
    return found.name.casefold() if found is not None else fold(name)


def home_of(passport: PassportRecord | None) -> str | None:
    """The passport's country, for comparison (`country_key`); None without one."""
    return None if passport is None else country_key(passport.country)


# the home of a passport that names no country: the holder the country table's rules are for
ASSUMED_HOME = "united states"


def is_international(trip: TripRecord, home: str | None, found: Country | None) -> bool:
    """The explicit flag wins; without one, a trip abroad is one whose country (`found`, the
    trip's `trip_country`, else its `country` as given) differs from the passport's, or, with
    no passport country known, from the United States (whose passport holders the country
    table's entry rules are written for)."""
    flag = trip.is_international
    if flag is not None:
        return flag
    home = ASSUMED_HOME if home is None else home
    country = found.name.casefold() if found is not None else fold(trip.country)
    return country is not None and country != home


def add_months(day: date, months: int) -> date:
    """The same day `months` calendar months later (the month's last day when it is shorter)."""
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


@dataclass(frozen=True)
class RequiredValidity:
    """The last day a country requires the passport to be valid on, for one trip, and why."""

    country: Country
    until: date
    rule: str  # e.g. "6 months' validity from entry"


def _rule_words(validity: Validity) -> str:
    parts = []
    if validity.months:
        parts.append("1 month" if validity.months == 1 else f"{validity.months} months")
    if validity.days:
        parts.append("1 day" if validity.days == 1 else f"{validity.days} days")
    if not parts:
        return "validity for the whole stay"
    span = " and ".join(parts)
    span += "'" if span.endswith("s") else "'s"
    return f"{span} validity from entry" if validity.counted_from == "entry" else f"{span} validity beyond departure"


def required_validity(country: Country, arrival: date, leaving: date) -> RequiredValidity | None:
    """What `country` requires of a passport for a stay from `arrival` to `leaving`; None when
    the table does not say."""
    validity = country.passport_validity
    if validity is None:
        return None
    start = arrival if validity.counted_from == "entry" else leaving
    until = add_months(start, validity.months) + timedelta(days=validity.days)
    return RequiredValidity(country, until, _rule_words(validity))

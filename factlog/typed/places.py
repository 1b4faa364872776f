"""Places named in conversation: a city or a country, and the country it lies in.

The bundled country table (`factlog.reference.countries`) is the one owner of which
country a place lies in; this module finds places in text and asks the table. `ALIASES`
adds the few names conversation uses that the table does not list as places: nicknames
("Vegas"), and U.S. states and regions ("Hawaii", "Tuscany"); each maps to a place the table
knows, so the country still comes from the table. `ADJECTIVES` maps adjectives naming a
country ("a Japanese visa").

`country_of(name)` is the lookup every reader uses; `find_place(text)` finds the first
known place a travel phrase names ("to Tokyo", "in Paris", "visiting Japan"); `any_place`
the first known place named anywhere.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from types import MappingProxyType
from typing import Mapping

from factlog.reference.countries import country_of_place
from factlog.reference.tables import country_table, fold_name

# names conversation uses that the table does not list -> a place the table knows
ALIASES: Mapping[str, str] = MappingProxyType({
    "Vegas": "Las Vegas", "DC": "Washington DC", "Cabo": "Cabo San Lucas",
    "Hawaii": "United States", "Alaska": "United States", "Florida": "United States",
    "California": "United States", "Texas": "United States", "Colorado": "United States",
    "Arizona": "United States", "Tuscany": "Italy", "Andalusia": "Spain", "Quebec": "Canada",
    # U.S. territories and holiday places the table does not list (a trip there is domestic for a U.S. passport)
    "Puerto Rico": "United States", "Guam": "United States", "US Virgin Islands": "United States",
    "St. Thomas": "United States", "St. Croix": "United States", "Outer Banks": "United States",
    "Nags Head": "United States", "Cape Cod": "United States", "Martha's Vineyard": "United States",
    "Lake Tahoe": "United States", "Myrtle Beach": "United States", "Yellowstone": "United States",
    "Grand Canyon": "United States", "Maui": "United States", "Kauai": "United States",
})

# adjectives that name a country ("a Japanese visa", "my US passport")
ADJECTIVES: Mapping[str, str] = MappingProxyType({
    "japanese": "Japan", "american": "United States", "us": "United States", "u.s.": "United States",
    "british": "United Kingdom", "uk": "United Kingdom", "french": "France", "italian": "Italy",
    "spanish": "Spain", "german": "Germany", "dutch": "Netherlands", "portuguese": "Portugal",
    "greek": "Greece", "irish": "Ireland", "swiss": "Switzerland", "chinese": "China", "korean": "South Korea",
    "thai": "Thailand", "vietnamese": "Vietnam", "indian": "India", "australian": "Australia",
    "canadian": "Canada", "mexican": "Mexico", "brazilian": "Brazil", "turkish": "Turkey",
    "indonesian": "Indonesia", "egyptian": "Egypt", "kenyan": "Kenya", "russian": "Russia",
    "schengen": "Schengen Area",
})


@cache
def _places() -> Mapping[str, tuple[str, str]]:
    """Folded name -> (its spelling, its country's name in the table), for every city, country,
    country alias and `ALIASES` entry; a short country alias ("USA") is spelled as the country."""
    table: dict[str, tuple[str, str]] = {}
    reference = country_table()
    names = {country.iso2: country.name for country in reference.countries}
    for city, code in reference.cities.items():
        table[fold_name(city)] = (city, names[code])
    for country in reference.countries:
        for name in (country.name, *country.aliases):
            table.setdefault(fold_name(name), (country.name if len(name) <= 4 else name, country.name))
    for name, place in ALIASES.items():
        found = country_of_place(place)
        if found is None:
            raise ValueError(f"place alias {name!r} names {place!r}, which the country table lacks")
        table.setdefault(fold_name(name), (name, found.name))
    return MappingProxyType(table)


def _known(name: str) -> tuple[str, str] | None:
    return _places().get(" ".join(name.split()).strip(" .").casefold())


@cache
def _longest() -> int:
    return max(len(name.split()) for name in _places())


_PLACE_AFTER = re.compile(
    r"\b(?:to|in|about|visit(?:ing)?|for|into|around|explore|exploring|tour(?:ing)?)\s+(?:the\s+)?"
    r"(?P<place>[A-Z][\w.'-]*(?:\s+(?:de\s+)?[A-Z][\w.'-]*){0,3})"
)


def country_of(name: str) -> str | None:
    """The country a city or country name lies in ("Tokyo" -> "Japan"), or None if unknown."""
    found = _known(name)
    return found[1] if found is not None else None


def place_name(name: str) -> str | None:
    """The canonical spelling of a known place ("nyc" -> "NYC"), or None if unknown."""
    found = _known(name)
    return found[0] if found is not None else None


def place_key(name: str) -> str:
    """A place as an entity key: case-folded, blanks collapsed, accents dropped ("Cancún" and
    "Cancun" are one trip)."""
    decomposed = unicodedata.normalize("NFKD", " ".join(name.casefold().split()))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def find_place(text: str) -> tuple[str, str | None] | None:
    """(place, country) of the first place named after a travel preposition: the longest
    known name it starts with; an unknown capitalised name comes back with country None."""
    unknown: tuple[str, str | None] | None = None
    for match in _PLACE_AFTER.finditer(text):
        words = match.group("place").split()
        for size in range(min(len(words), _longest()), 0, -1):
            candidate = " ".join(words[:size]).rstrip(".,'")
            if candidate.endswith("'s"):
                continue
            known = place_name(candidate)
            if known is not None:
                return known, country_of(candidate)
        if unknown is None and words[0].casefold().rstrip(".,") not in _CALENDAR:  # "flight to March 22": a date
            unknown = (" ".join(words).rstrip(".,"), None)
    return unknown


_CALENDAR = frozenset("january february march april may june july august september october november december jan feb "
                      "mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday "
                      "sunday today tomorrow tonight".split())
# a place one leaves from or passes through is not where one goes
_PASSING = re.compile(r"\b(?:via|through|from|out of|departing|connecting (?:in|through)|layover in|stopover in|"
                      r"leav(?:e|es|ing)|(?:fly|flying|flies) out of)\s+$", re.I)
# a place followed by where one goes is where one leaves from: "Toronto to Lisbon", "sydney to nadi"
_ORIGIN = re.compile(r"\s*(?:,\s*)?(?:to|->|→|–|-)\s+(?:the\s+)?")
# place names that are also common words or given names: found in free text only capitalised
_AMBIGUOUS = frozenset(
    "nice la dc us uk rio cabo vegas bali goa perth lima santiago victoria split bath cork buffalo providence darwin "
    "salvador phoenix columbus charlotte florence sofia savannah aspen boulder kingston york cali petra nara faro "
    "bled reading mobile male malé nadi napa austin dallas jordan chad georgia turkey china jersey".split())


@cache
def _any_place_pattern() -> re.Pattern[str]:
    names = sorted((re.escape(name) for name in _places()), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?P<place>" + "|".join(names) + r")(?![\w-])", re.I)


def any_place(text: str) -> tuple[str, str | None] | None:
    """(place, country) of the first known city the text names anywhere, else of the first
    known country; lower case counts except for names that are also common words."""
    found: list[tuple[str, str]] = []
    places = _places()
    routed = -1  # where a place a route goes to begins: "sydney to nadi" names Nadi, though "nadi" is also a word
    for match in _any_place_pattern().finditer(text):
        name = match.group("place")
        if name.islower() and name in _AMBIGUOUS and match.start() != routed or \
                _PASSING.search(text, 0, match.start()):
            continue
        towards = _ORIGIN.match(text, match.end())
        if towards is not None and _any_place_pattern().match(text, towards.end()) is not None:
            routed = towards.end()
            continue  # "Air Transat, Toronto to Lisbon": Toronto is where the flight leaves from
        found.append(places[name.casefold()])
    city = next((place for place in found if place[0] != place[1]), None)
    return city or (found[0] if found else None)

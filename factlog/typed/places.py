"""Places named in conversation: a city or a country, and the country it lies in.

`country_of(name)` is the one lookup every reader uses (a bundled reference table may
replace the small map below without changing a caller). `find_place(text)` finds the
first known place a travel phrase names ("to Tokyo", "in Paris", "visiting Japan").
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping

_CITIES = {
    "Japan": "Tokyo Osaka Kyoto Sapporo Nagoya Fukuoka Hiroshima Okinawa Yokohama",
    "United States": "New York|NYC|Los Angeles|LA|San Francisco|Chicago|Boston|Seattle|Miami|Denver|Austin|Dallas|"
                     "Houston|Atlanta|Orlando|Las Vegas|Vegas|Phoenix|Portland|San Diego|Washington DC|DC|"
                     "Philadelphia|Nashville|New Orleans|Honolulu|Hawaii|Minneapolis|Detroit|Salt Lake City|"
                     "Anchorage|Charlotte|Raleigh|Pittsburgh|Baltimore|Sacramento|San Jose|St. Louis|Tampa|"
                     "Kansas City|Cleveland|Columbus|Indianapolis|Milwaukee|Albuquerque|Tucson|Savannah|"
                     "Charleston|Maui|Alaska|Florida|California|Texas|Colorado|Arizona",
    "France": "Paris Nice Lyon Marseille Bordeaux",
    "United Kingdom": "London|Edinburgh|Manchester|Glasgow|Liverpool|Oxford|Cambridge|Scotland|England",
    "Italy": "Rome Milan Florence Venice Naples Tuscany Sicily",
    "Spain": "Madrid Barcelona Seville Valencia Ibiza Mallorca Andalusia Malaga Granada",
    "Germany": "Berlin Munich Frankfurt Hamburg Cologne",
    "Netherlands": "Amsterdam Rotterdam",
    "Portugal": "Lisbon Porto",
    "Greece": "Athens Santorini Mykonos Crete",
    "Ireland": "Dublin",
    "Switzerland": "Zurich Geneva",
    "Austria": "Vienna Salzburg",
    "Czech Republic": "Prague",
    "Hungary": "Budapest",
    "Denmark": "Copenhagen",
    "Sweden": "Stockholm",
    "Norway": "Oslo",
    "Iceland": "Reykjavik",
    "Belgium": "Brussels",
    "Turkey": "Istanbul",
    "China": "Beijing Shanghai Shenzhen Guangzhou",
    "Hong Kong": "Hong Kong",
    "South Korea": "Seoul Busan",
    "Taiwan": "Taipei",
    "Thailand": "Bangkok Phuket",
    "Vietnam": "Hanoi|Ho Chi Minh City",
    "Singapore": "Singapore",
    "Indonesia": "Bali Jakarta",
    "Philippines": "Manila",
    "India": "Delhi|New Delhi|Mumbai|Bangalore|Bengaluru|Goa|Chennai|Hyderabad|Kolkata",
    "United Arab Emirates": "Dubai|Abu Dhabi",
    "Israel": "Tel Aviv|Jerusalem",
    "Egypt": "Cairo",
    "Morocco": "Marrakech Casablanca",
    "South Africa": "Cape Town|Johannesburg",
    "Kenya": "Nairobi",
    "Australia": "Sydney Melbourne Brisbane Perth",
    "New Zealand": "Auckland Queenstown Wellington",
    "Canada": "Toronto Vancouver Montreal Calgary Ottawa Quebec",
    "Mexico": "Mexico City|Cancun|Cancún|Cabo|Tulum|Guadalajara|Puerto Vallarta",
    "Brazil": "Rio de Janeiro|Rio|Sao Paulo",
    "Argentina": "Buenos Aires",
    "Peru": "Lima|Cusco",
    "Colombia": "Bogota|Medellin|Cartagena",
    "Costa Rica": "San Jose de Costa Rica",
    "Chile": "Santiago",
    "Cuba": "Havana",
}
_COUNTRY_NAMES = {
    "Japan": "Japan", "USA": "United States", "US": "United States", "U.S.": "United States",
    "America": "United States", "United States": "United States", "UK": "United Kingdom",
    "Britain": "United Kingdom", "United Kingdom": "United Kingdom", "Korea": "South Korea",
    "South Korea": "South Korea", "UAE": "United Arab Emirates", "Czechia": "Czech Republic",
    **{name: name for name in (
        "France", "Italy", "Spain", "Germany", "Netherlands", "Portugal", "Greece", "Ireland", "Switzerland",
        "Austria", "Czech Republic", "Hungary", "Denmark", "Sweden", "Norway", "Iceland", "Belgium", "Turkey",
        "China", "Taiwan", "Thailand", "Vietnam", "Singapore", "Indonesia", "Philippines", "India",
        "United Arab Emirates", "Israel", "Egypt", "Morocco", "South Africa", "Kenya", "Australia",
        "New Zealand", "Canada", "Mexico", "Brazil", "Argentina", "Peru", "Colombia", "Costa Rica", "Chile",
        "Cuba", "Croatia", "Poland", "Finland", "Jamaica", "Bahamas", "Fiji", "Nepal", "Russia",
    )},
}
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


def _table() -> dict[str, tuple[str, str]]:
    table: dict[str, tuple[str, str]] = {}
    for country, cities in _CITIES.items():
        for city in cities.split("|") if "|" in cities else cities.split():
            table[city.casefold()] = (city, country)
    for name, country in _COUNTRY_NAMES.items():
        table.setdefault(name.casefold(), (country if len(name) <= 4 else name, country))
    return table


_PLACES: Mapping[str, tuple[str, str]] = MappingProxyType(_table())
_LONGEST = max(len(name.split()) for name in _PLACES)
_PLACE_AFTER = re.compile(
    r"\b(?:to|in|about|visit(?:ing)?|for|into|around|explore|exploring|tour(?:ing)?)\s+(?:the\s+)?"
    r"(?P<place>[A-Z][\w.'-]*(?:\s+(?:de\s+)?[A-Z][\w.'-]*){0,3})"
)


def country_of(name: str) -> str | None:
    """The country a city or country name lies in ("Tokyo" -> "Japan"), or None if unknown."""
    found = _PLACES.get(" ".join(name.split()).strip(" .").casefold())
    return found[1] if found is not None else None


def place_name(name: str) -> str | None:
    """The canonical spelling of a known place ("nyc" -> "NYC"), or None if unknown."""
    found = _PLACES.get(" ".join(name.split()).strip(" .").casefold())
    return found[0] if found is not None else None


def find_place(text: str) -> tuple[str, str | None] | None:
    """(place, country) of the first place named after a travel preposition: the longest
    known name it starts with; an unknown capitalised name comes back with country None."""
    unknown: tuple[str, str | None] | None = None
    for match in _PLACE_AFTER.finditer(text):
        words = match.group("place").split()
        for size in range(min(len(words), _LONGEST), 0, -1):
            candidate = " ".join(words[:size]).rstrip(".,'")
            if candidate.endswith("'s"):
                continue
            known = place_name(candidate)
            if known is not None:
                return known, country_of(candidate)
        if unknown is None:
            unknown = (" ".join(words).rstrip(".,"), None)
    return unknown


# a place one leaves from or passes through is not where one goes
_PASSING = re.compile(r"\b(?:via|through|from|out of|departing|connecting (?:in|through)|layover in|stopover in)\s+$",
                      re.I)
_AMBIGUOUS = frozenset("nice la dc us uk rio cabo vegas bali goa perth lima santiago victoria".split())
_ANY_PLACE = re.compile(
    r"(?<![\w-])(?P<place>" + "|".join(sorted((re.escape(name) for name in _PLACES), key=len, reverse=True))
    + r")(?![\w-])",
    re.I,
)


def any_place(text: str) -> tuple[str, str | None] | None:
    """(place, country) of the first known city the text names anywhere, else of the first
    known country; lower case counts except for names that are also common words."""
    found: list[tuple[str, str]] = []
    for match in _ANY_PLACE.finditer(text):
        name = match.group("place")
        if name.islower() and name in _AMBIGUOUS or _PASSING.search(text, 0, match.start()):
            continue
        known = _PLACES[name.casefold()]
        found.append(known)
    city = next((place for place in found if place[0] != place[1]), None)
    return city or (found[0] if found else None)

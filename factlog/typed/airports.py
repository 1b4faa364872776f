"""Airport codes in pasted itineraries ("Depart: 04 MAR 10:15 LHR -> LOS", "YVR-PVG"): the
city each code serves, spelled as the country table knows it (so the country still comes
from `factlog.reference.countries`; `tests/test_typed_trip_families.py` checks every city
is known there).

Codes: IATA three-letter location identifiers of commonly flown airports, as published in
the OurAirports data set (ourairports.com, public domain). A code is read only as a route
end ("LHR -> NRT", "YVR-PVG", "LHR to LOS"), never as a word on its own ("CAN", "SIN",
"MAN" are words).
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Mapping

from factlog.typed.places import place_name

CITIES: Mapping[str, str] = MappingProxyType({
    # United States
    "ATL": "Atlanta", "LAX": "Los Angeles", "ORD": "Chicago", "MDW": "Chicago", "DFW": "Dallas", "DEN": "Denver",
    "JFK": "New York", "LGA": "New York", "SFO": "San Francisco", "SEA": "Seattle", "LAS": "Las Vegas",
    "MCO": "Orlando", "MIA": "Miami", "BOS": "Boston", "PHX": "Phoenix", "IAH": "Houston", "HOU": "Houston",
    "MSP": "Minneapolis", "DTW": "Detroit", "PHL": "Philadelphia", "CLT": "Charlotte", "SAN": "San Diego",
    "IAD": "Washington DC", "DCA": "Washington DC", "BWI": "Baltimore", "SLC": "Salt Lake City", "PDX": "Portland",
    "AUS": "Austin", "BNA": "Nashville", "MSY": "New Orleans", "HNL": "Honolulu", "TPA": "Tampa",
    "FLL": "Fort Lauderdale", "STL": "St. Louis", "PIT": "Pittsburgh", "CLE": "Cleveland", "RDU": "Raleigh",
    "SJC": "San Jose", "OAK": "Oakland", "SMF": "Sacramento", "ANC": "Anchorage",
    # Canada, Mexico, the Caribbean, Central and South America
    "YYZ": "Toronto", "YVR": "Vancouver", "YUL": "Montreal", "YYC": "Calgary", "YOW": "Ottawa", "YEG": "Edmonton",
    "YHZ": "Halifax", "YWG": "Winnipeg", "MEX": "Mexico City", "CUN": "Cancun", "GDL": "Guadalajara",
    "SJD": "Cabo San Lucas", "PVR": "Puerto Vallarta", "HAV": "Havana", "SJU": "San Juan", "PUJ": "Punta Cana",
    "SDQ": "Santo Domingo", "MBJ": "Montego Bay", "NAS": "Nassau", "GRU": "Sao Paulo", "GIG": "Rio de Janeiro",
    "EZE": "Buenos Aires", "SCL": "Santiago", "LIM": "Lima", "CUZ": "Cusco", "BOG": "Bogota", "MDE": "Medellin",
    "CTG": "Cartagena", "UIO": "Quito", "PTY": "Panama City",
    # Europe
    "LHR": "London", "LGW": "London", "STN": "London", "LTN": "London", "MAN": "Manchester", "EDI": "Edinburgh",
    "GLA": "Glasgow", "BHX": "Birmingham", "DUB": "Dublin", "SNN": "Shannon", "ORK": "Cork", "CDG": "Paris",
    "ORY": "Paris", "NCE": "Nice", "LYS": "Lyon", "MRS": "Marseille", "AMS": "Amsterdam", "FRA": "Frankfurt",
    "MUC": "Munich", "BER": "Berlin", "HAM": "Hamburg", "ZRH": "Zurich", "GVA": "Geneva", "VIE": "Vienna",
    "BRU": "Brussels", "CPH": "Copenhagen", "ARN": "Stockholm", "OSL": "Oslo", "HEL": "Helsinki", "KEF": "Reykjavik",
    "MAD": "Madrid", "BCN": "Barcelona", "AGP": "Malaga", "LIS": "Lisbon", "OPO": "Porto", "FCO": "Rome",
    "MXP": "Milan", "LIN": "Milan", "VCE": "Venice", "NAP": "Naples", "FLR": "Florence", "ATH": "Athens",
    "IST": "Istanbul", "PRG": "Prague", "BUD": "Budapest", "WAW": "Warsaw", "KRK": "Krakow", "DBV": "Dubrovnik",
    "SPU": "Split",
    # Middle East and Africa
    "DXB": "Dubai", "AUH": "Abu Dhabi", "DOH": "Doha", "TLV": "Tel Aviv", "CAI": "Cairo", "AMM": "Amman",
    "RUH": "Riyadh", "JED": "Jeddah", "JNB": "Johannesburg", "CPT": "Cape Town", "DUR": "Durban", "NBO": "Nairobi",
    "DAR": "Dar es Salaam", "ZNZ": "Zanzibar", "CMN": "Casablanca", "RAK": "Marrakech", "LOS": "Lagos",
    "ABV": "Abuja", "ACC": "Accra", "ADD": "Addis Ababa", "KGL": "Kigali", "EBB": "Entebbe",
    # Asia and the Pacific
    "NRT": "Tokyo", "HND": "Tokyo", "KIX": "Osaka", "ITM": "Osaka", "NGO": "Nagoya", "CTS": "Sapporo",
    "FUK": "Fukuoka", "ICN": "Seoul", "GMP": "Seoul", "PUS": "Busan", "PEK": "Beijing", "PKX": "Beijing",
    "PVG": "Shanghai", "SHA": "Shanghai", "CAN": "Guangzhou", "SZX": "Shenzhen", "CTU": "Chengdu",
    "HKG": "Hong Kong", "TPE": "Taipei", "SIN": "Singapore", "KUL": "Kuala Lumpur", "BKK": "Bangkok",
    "DMK": "Bangkok", "HKT": "Phuket", "CNX": "Chiang Mai", "SGN": "Ho Chi Minh City", "HAN": "Hanoi",
    "DAD": "Da Nang", "MNL": "Manila", "CEB": "Cebu", "CGK": "Jakarta", "DPS": "Bali", "REP": "Siem Reap",
    "PNH": "Phnom Penh", "DEL": "Delhi", "BOM": "Mumbai", "BLR": "Bengaluru", "MAA": "Chennai", "HYD": "Hyderabad",
    "CCU": "Kolkata", "GOI": "Goa", "KTM": "Kathmandu", "CMB": "Colombo", "SYD": "Sydney", "MEL": "Melbourne",
    "BNE": "Brisbane", "PER": "Perth", "ADL": "Adelaide", "OOL": "Gold Coast", "CNS": "Cairns", "AKL": "Auckland",
    "WLG": "Wellington", "CHC": "Christchurch", "ZQN": "Queenstown", "NAN": "Nadi",
})

# a route between two codes: "LHR -> LOS", "YVR-PVG", "LHR to NRT", "LOS→LHR"
ROUTE = re.compile(r"\b(?P<a>[A-Z]{3})\s*(?:->|→|–|-|/|>|\bto\b)\s*(?P<b>[A-Z]{3})\b")


# the same in a line read in sentence case (a shouted itinerary: "OUTBOUND 02APR 18:25 JFK-CDG" reads
# "Outbound 02APR 18:25 jfk-cdg"): only with a dash, arrow or slash, and only beside a clock time
ROUTE_LOWER = re.compile(r"(?<![\w-])(?P<a>[a-z]{3})\s*(?:->|→|–|-|/)\s*(?P<b>[a-z]{3})(?![\w-])")
_CLOCK = re.compile(r"\b[0-2]?\d:[0-5]\d\b")
# an e-ticket's line, each code with its clock: "LH 569  12APR  LOS 22:40  FRA 05:30+1"
ROUTE_TIMED = re.compile(r"\b(?P<a>[A-Z]{3})\s+[0-2]?\d:?[0-5]\d\s+(?P<b>[A-Z]{3})\b")
# a route between two places by name, as an agency's itinerary writes it: "London Heathrow - Singapore",
# "Lagos → Frankfurt" (a dash only between spaces; the names are asked of the country table)
_NAME = r"[A-Z][\w'.]*(?:\s+[A-Z][\w'.]*){0,3}"
ROUTE_NAMED = re.compile(rf"(?<![\w-])(?P<a>{_NAME})(?:\s+(?:-|–)\s+|\s*(?:->|→)\s*)(?P<b>{_NAME})")
# what the reader's trigger looks for (the reader compiles its triggers ignoring case)
TRIGGER = re.compile(r"(?-i:\b[A-Z]{3}\s*(?:->|→|–|-|/|>|\bto\b)\s*[A-Z]{3}\b)|"
                     r"(?-i:(?<![\w-])[a-z]{3}\s*(?:->|→|–|-|/)\s*[a-z]{3}(?![\w-]))|"
                     r"(?-i:[A-Z][\w'.]*(?:\s+(?:-|–)\s+|\s*(?:->|→)\s*)[A-Z])|"
                     r"(?-i:\b[A-Z]{3}\s+[0-2]?\d:?[0-5]\d\s+[A-Z]{3}\b)")


def route(text: str) -> tuple[str, str] | None:
    """(from city, to city) of the first route between two known airport codes ("LHR -> NRT",
    "LOS 22:40 FRA 05:30"), or None; else
    of a route between two places by name ("London Heathrow - Singapore": an airport's name
    after its city's is the city's)."""
    matches = [*ROUTE.finditer(text), *ROUTE_TIMED.finditer(text)]
    if not matches and _CLOCK.search(text):
        matches = [*ROUTE_LOWER.finditer(text)]
    for match in matches:
        a, b = CITIES.get(match.group("a").upper()), CITIES.get(match.group("b").upper())
        if a is not None and b is not None and a != b:
            return a, b
    for match in ROUTE_NAMED.finditer(text):
        a, b = _city(match.group("a"), last=True), _city(match.group("b"), last=False)
        if a is not None and b is not None and a != b:
            return a, b
    return None


def _city(said: str, *, last: bool) -> str | None:
    """The known place `said` names: from its start ("London Heathrow" -> "London"), or for the
    route's first end also ending it ("SQ 317 London" -> "London")."""
    words = said.split()
    for size in range(min(len(words), 4), 0, -1):
        for part in ([words[:size], words[-size:]] if last else [words[:size]]):
            found = place_name(" ".join(part).rstrip(".,'"))
            if found is not None:
                return found
    return None

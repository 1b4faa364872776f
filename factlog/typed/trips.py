"""Trips and flights from a sentence: destination (city -> country), departure and return
dates and times, booking state, carrier, confirmation number and cost.

A sentence is about a trip when it names travel ("fly", "flight", "trip", "heading to",
...). The destination is the place a travel preposition names ("to Tokyo", "in Paris");
without one, the session's last trip is meant ("we leave on March 3"). The key is the
destination, folded, so every sentence about the Tokyo trip updates one entity.

Dates and times before a return cue ("back", "return", "fly home") are the departure's,
after it the return's; two dates with no return cue are a range (departure, return).
Booking state: cancelled > planned ("thinking about", "might") > booked ("booked",
"have tickets", "confirmation").
"""

from __future__ import annotations

import re

from factlog.model import JsonValue
from factlog.recognizers import recognize
from factlog.timeparse import try_date
from factlog.typed.common import (
    BOOKED,
    Cue,
    booking_status,
    confirmation_code,
    conversation_fields,
    dates_by_cue,
    subject_of,
    times_by_cue,
)
from factlog.typed.model import Context, TypedFact
from factlog.typed.places import any_place, find_place

DOMAIN = "trip"
TRAVEL = re.compile(
    r"\b(?:fly|flying|flies|flew|flight|flights|trip|trips|travel\w*|heading to|head to|going to|go to|"
    r"visit|visiting|vacation|holiday|getaway|honeymoon|cruise|itinerary|depart\w*|leave for|leaving for|"
    r"layover|plane tickets?|round[- ]trip|one[- ]way)\b",
    re.I,
)
STRONG = re.compile(
    r"\b(?:fly(?:ing)? (?:in)?to|flight (?:to|for)|trip to|travel(?:l?ing)? to|heading to|head(?:ing)? out to|"
    r"visit(?:ing)?|vacation (?:in|to)|holiday (?:in|to)|honeymoon (?:in|to)|tickets? to|"
    r"(?:sending|send|sent|taking|take|took) (?:me|us) to)\s+[A-Z]",
    re.I,
)
FOLLOW_UP = re.compile(
    r"\b(?:leav\w*|depart\w*|fly(?:ing)? out|flights?|outbound|return(?:ing)?|back|fly(?:ing)? home|"
    r"head(?:ing)? home|coming home|get home|lands?|landing|boarding|takes? off|tickets?|confirmation|"
    r"(?:booking |confirmation )?code)\b",
    re.I,
)
NOT_TRIPS = re.compile(r"\b(?:going to (?:be|have|need|get|do|make|try|call|take|pay|buy|see if))\b", re.I)
# habits and generalities are no trip: "I travel to Asia twice a year"
HABITUAL = re.compile(r"\b(?:(?:once|twice|\w+ times) a (?:year|month|week)|every (?:year|summer|winter)|usually|"
                      r"often|always|sometimes|never)\b", re.I)
CUES = (
    Cue("return", re.compile(r"\b(?:return\w*|back|fly(?:ing)? home|head(?:ing)? home|coming home|get home|"
                             r"inbound)\b", re.I)),
)
AIRLINES = (
    "Delta", "United Airlines", "United", "American Airlines", "Southwest", "JetBlue", "Alaska Airlines",
    "Spirit", "Frontier", "Hawaiian Airlines", "Air Canada", "British Airways", "Air France", "Lufthansa",
    "KLM", "Emirates", "Qatar Airways", "Singapore Airlines", "Cathay Pacific", "Japan Airlines", "JAL", "ANA",
    "Korean Air", "Qantas", "Turkish Airlines", "Iberia", "Aer Lingus", "Virgin Atlantic", "Ryanair",
    "easyJet", "Air New Zealand", "Aeromexico", "Aeroméxico", "Etihad", "EVA Air", "LATAM Airlines", "LATAM",
    "ITA Airways", "Vietnam Airlines", "Thai Airways", "Air India", "Avianca", "Copa Airlines", "Finnair",
    "SAS", "TAP Air Portugal", "Icelandair", "WestJet", "Sun Country", "Allegiant", "Breeze",
)
_AIRLINE = re.compile(
    r"\b(?P<name>" + "|".join(sorted(map(re.escape, AIRLINES), key=len, reverse=True))
    + r")\b(?!\s+(?:States|Kingdom|Arab|Nations))"
)
_FLIGHT_CODE = re.compile(r"\b(?P<code>DL|UA|AA|WN|B6|AS|BA|AF|LH|JL|NH|AC|EK)\s?\d{1,4}\b")
_CODES = {"DL": "Delta", "UA": "United", "AA": "American Airlines", "WN": "Southwest", "B6": "JetBlue",
          "AS": "Alaska Airlines", "BA": "British Airways", "AF": "Air France", "LH": "Lufthansa",
          "JL": "Japan Airlines", "NH": "ANA", "AC": "Air Canada", "EK": "Emirates"}
TRIGGERS = (TRAVEL, STRONG, FOLLOW_UP, BOOKED)  # a sentence without one of these is about no trip
# an amount is the trip's cost only in a sentence about what its travel cost
COST = re.compile(r"\b(?:flights?|tickets?|fares?|airfare|trip|itinerary|booking)\b[^.;]*?"
                  r"\b(?:cost|costs|was|were|came to|total|paid|for)\b|\b(?:paid|spent)\b[^.;]*?"
                  r"\b(?:flights?|tickets?|fares?|airfare|trip)\b|\bfare\b", re.I)


def read(sentence: str, context: Context) -> list[TypedFact]:
    travel = TRAVEL.search(sentence)
    place = find_place(sentence) if travel or STRONG.search(sentence) else None
    if place is not None and place[1] is None and not STRONG.search(sentence):
        place = None
    if place is None and (travel or BOOKED.search(sentence) or FOLLOW_UP.search(sentence)):
        place = any_place(_AIRLINE.sub(" ", sentence))
    if NOT_TRIPS.search(sentence) and place is None or HABITUAL.search(sentence):
        return []
    previous = context.last.get(DOMAIN)
    key: str | None
    if place is not None:
        key = place[0].casefold()
        if previous is not None and previous.fields.get("destination") == place[1] == previous.fields.get("country"):
            key = previous.key or key  # "a flight to Japan", then "your flight to Tokyo": one trip
        fields: dict[str, JsonValue] = {"destination": place[0]}
        if place[1] is not None:
            fields["country"] = place[1]
    elif previous is not None and (travel or FOLLOW_UP.search(sentence)):
        key = previous.key
        fields = {}
    elif context.speaker == "assistant" and previous is not None and BOOKED.search(sentence):
        key, fields = previous.key, {}
    else:
        return []
    fields.update(_details(sentence, context))
    if place is None and not fields:
        return []
    if context.speaker == "assistant" and (previous is None or previous.key != key) and \
            fields.get("booking_status") != "booked":
        return []  # the assistant's general travel talk is not the user's trip
    subject = subject_of(sentence, context) if place is not None or previous is None else \
        str(previous.fields.get("subject", "user"))
    return [TypedFact(DOMAIN, key, conversation_fields(context, subject, fields))]


def _details(sentence: str, context: Context) -> dict[str, JsonValue]:
    fields: dict[str, JsonValue] = {}
    dates = dates_by_cue(sentence, context, CUES)
    going, back = dates.get("", []), dates.get("return", [])
    if going:
        fields["departure_date"] = going[0]
        if len(going) > 1 and not back:
            fields["return_date"] = going[1]
    if back:
        fields["return_date"] = back[0]
    _return_after_departure(fields)
    times = times_by_cue(sentence, context, CUES)
    if times.get(""):
        fields["departure_time"] = times[""][0]
    if times.get("return"):
        fields["return_time"] = times["return"][0]
    status = booking_status(sentence)
    code = confirmation_code(sentence)
    if code is not None:
        fields["confirmation"] = code
        status = status if status == "cancelled" else "booked"
    if status is not None:
        fields["booking_status"] = status
    airline = _AIRLINE.search(sentence)
    flight_code = _FLIGHT_CODE.search(sentence)
    if airline is not None:
        fields["carrier"] = airline.group("name")
    elif flight_code is not None:
        fields["carrier"] = _CODES[flight_code.group("code")]
    if COST.search(sentence):
        amounts = recognize(sentence, context.timestamp).amounts_usd
        if amounts:
            fields["cost_usd"] = amounts[0]
    return fields


def _return_after_departure(fields: dict[str, JsonValue]) -> None:
    """A year-less return read as before its departure ("Dec 20 ... back Jan 6") is next year's."""
    going, back = fields.get("departure_date"), fields.get("return_date")
    if isinstance(going, str) and isinstance(back, str) and back < going:
        later = try_date(back)
        if later is not None:
            try:
                fields["return_date"] = later.replace(year=later.year + 1).isoformat()
            except ValueError:  # February 29th
                fields["return_date"] = later.replace(year=later.year + 1, day=28).isoformat()

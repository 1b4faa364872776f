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
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.recognizers import MONTHS, NUMBER_WORDS, dates_and_times_at, recognize, spoken_days
from factlog.relations import BARE, FAMILY, family_word
from factlog.timeparse import try_date
from factlog.typed import airports
from factlog.typed.common import (
    _NOT_NAMES,
    _RELATION,
    BOOKED,
    CANCELLED,
    CORRECTION,
    SAME_MONTH_END,
    Cue,
    booking_status,
    confirmation_code,
    conversation_fields,
    dates_by_cue,
    given_names,
    leading_days,
    relation_of,
    times_by_cue,
)
from factlog.typed.model import Context, TypedFact
from factlog.typed.places import any_place, country_of, find_place, place_key, place_name
from factlog.typed.stance import PLAN_OPENERS, drops_idea, is_question

DOMAIN = "trip"
TRAVEL = re.compile(
    r"\b(?:fly|flying|flies|flew|flight|flights|trip|trips|travel\w*|heading to|head to|going to|go to|"
    r"go(?:ing)? (?:down|up|over|out|across|back) to|"
    r"visit|visiting|vacation|holiday|getaway|honeymoon|cruise|itinerary|depart\w*|leave for|leaving for|"
    r"layover|plane tickets?|round[- ]trip|one[- ]way|off to)\b",
    re.I,
)
STRONG = re.compile(
    r"\b(?:fl(?:y|ying|ies) (?:in)?to|flight (?:to|for)|trip to|travel(?:l?ing)? to|heading to|head(?:ing)? out to|"
    r"visit(?:ing)?|vacation (?:in|to)|holiday (?:in|to)|honeymoon (?:in|to)|tickets? to|off to|"
    r"(?:sending|send|sent|taking|take|took) (?:me|us) to|(?:need|have|has|needs) to be in|(?:'ll|’ll|will) be in)"
    r"\s+[A-Z]",
    re.I,
)
FOLLOW_UP = re.compile(
    r"\b(?:leav\w*|depart\w*|fly(?:ing)? out|flights?|outbound|return(?:ing)?|back|fly(?:ing)? home|"
    r"head(?:ing)? home|coming home|get home|way home|lands?|landing|boarding|takes? off|tickets?|confirmation|"
    r"(?:booking |confirmation )?code|(?:booking )?(?:reference|ref)|record locator|pnr|conf)\b",
    re.I,
)
NOT_TRIPS = re.compile(r"\b(?:going to (?:be|have|need|get|do|make|try|call|take|pay|buy|see if))\b", re.I)
# habits and generalities are no trip: "I travel to Asia twice a year"
HABITUAL = re.compile(r"\b(?:(?:once|twice|\w+ times) a (?:year|month|week)|every (?:year|summer|winter)|usually|"
                      r"often|always|sometimes|never|all the time|used to)\b", re.I)
CUES = (
    Cue("return", re.compile(r"\b(?:return\w*|back(?!\s+from\b)|fl(?:y|ying|ies|ew) home|head(?:ing)? home|coming home|"
                             r"get home|home (?:on|from)|inbound|(?:flights?|trip|way|journey|plane) home|"
                             r"home (?:flight|leg)|"
                             r"home,?\s+(?=(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|\d))\b",
                             re.I)),  # not "I'm back from Germany": a past trip
)
AIRLINES = (
    "Delta", "United Airlines", "United", "American Airlines", "Southwest", "JetBlue", "Alaska Airlines",
    "Spirit", "Frontier", "Hawaiian Airlines", "Air Canada", "British Airways", "Air France", "Lufthansa",
    "KLM", "Emirates", "Qatar Airways", "Singapore Airlines", "Cathay Pacific", "Japan Airlines", "JAL", "ANA",
    "Korean Air", "Qantas", "Turkish Airlines", "Iberia", "Aer Lingus", "Virgin Atlantic", "Ryanair",
    "easyJet", "Air New Zealand", "Aeromexico", "Aeroméxico", "Etihad", "EVA Air", "LATAM Airlines", "LATAM",
    "ITA Airways", "Vietnam Airlines", "Thai Airways", "Air India", "Avianca", "Copa Airlines", "Finnair",
    "SAS", "TAP Air Portugal", "TAP", "Icelandair", "WestJet", "Sun Country", "Allegiant", "Breeze",
    "EgyptAir", "Ethiopian Airlines", "Kenya Airways", "Royal Air Maroc", "South African Airways", "Saudia",
    "Gulf Air", "Oman Air", "El Al", "Aegean Airlines", "Swiss International Air Lines", "Austrian Airlines",
    "Brussels Airlines", "LOT Polish Airlines", "Norwegian Air", "Vueling", "Wizz Air", "Eurowings", "Jet2",
    "Porter Airlines", "Air Transat", "Volaris", "Viva Aerobus", "China Airlines", "China Eastern", "China Southern",
    "Air China", "Hainan Airlines", "Asiana", "Philippine Airlines", "Cebu Pacific", "Garuda Indonesia",
    "Malaysia Airlines", "AirAsia", "Jetstar", "Virgin Australia", "IndiGo", "Air Tahiti Nui", "Fiji Airways",
    "Starlux", "Zipair", "Aerolineas Argentinas", "Aerolíneas Argentinas", "JetSMART", "Caribbean Airlines",
    "Bahamasair", "Cayman Airways", "Air Europa", "French Bee", "Air Serbia", "Croatia Airlines", "airBaltic",
    "flydubai", "Air Arabia", "FlySafair", "Airlink", "Kulula", "Air Peace", "Arik Air", "Scoot", "SpiceJet",
    "Akasa Air", "Azul", "Flair Airlines", "Porter", "RwandAir", "Air Mauritius", "Air Seychelles", "Uganda Airlines",
    "Air Tanzania", "Batik Air", "Lion Air", "VietJet", "Bamboo Airways", "Jeju Air", "Peach Aviation",
)
# a name that says it is an airline ("Fiji Airways", "Air New Zealand") in any case: "fiji airways sydney to nadi"
_SAYS_AIRLINE = re.compile(r"\b(?:Airways|Airlines|Air Lines)\b|^Air ")
_AIRLINE = re.compile(
    r"\b(?P<name>" + "|".join(f"(?i:{re.escape(name)})" if _SAYS_AIRLINE.search(name) else re.escape(name)
                              for name in sorted(AIRLINES, key=len, reverse=True))
    + r")\b(?!\s+(?:States|Kingdom|Arab|Nations))"
)
_CARRIER = {name.casefold(): name for name in AIRLINES}  # a carrier said in any case, spelled as listed
_CODES = {"DL": "Delta", "UA": "United", "AA": "American Airlines", "WN": "Southwest", "B6": "JetBlue",
          "AS": "Alaska Airlines", "BA": "British Airways", "AF": "Air France", "LH": "Lufthansa",
          "JL": "Japan Airlines", "NH": "ANA", "AC": "Air Canada", "EK": "Emirates", "KL": "KLM",
          "QF": "Qantas", "SQ": "Singapore Airlines", "CX": "Cathay Pacific", "TK": "Turkish Airlines",
          "QR": "Qatar Airways", "EY": "Etihad", "IB": "Iberia", "EI": "Aer Lingus", "VS": "Virgin Atlantic",
          "FR": "Ryanair", "U2": "easyJet", "NZ": "Air New Zealand", "AM": "Aeromexico", "KE": "Korean Air",
          "MS": "EgyptAir", "LX": "Swiss", "OS": "Austrian Airlines", "AY": "Finnair", "TP": "TAP Air Portugal",
          "FI": "Icelandair", "WS": "WestJet", "HA": "Hawaiian Airlines", "F9": "Frontier", "NK": "Spirit"}
# a flight number: the carrier's code and digits, written "UA 837" or "UA837" (not "TP8K4R", a booking code)
_FLIGHT_CODE = re.compile(r"\b(?P<code>" + "|".join(_CODES) + r")\s?\d{1,4}\b(?![A-Z])")
HOTEL = re.compile(r"\b(?:hotel|motel|hostel|resort|airbnb|lodging|check-?in|check-?out|Hilton|Marriott|Hyatt|"
                   r"Sheraton|Westin|Holiday Inn)\b", re.I)
# a document's validity stated: its dates are the document's ("my visa expires May 31, before my flight home")
_DOCUMENT_DATE = re.compile(r"\b(?:e-?visa|visa|passport|licen[cs]e|eTA|ESTA)\b[^.;]{0,40}?\b(?:valid|expir\w*|ends?|"
                            r"runs? out|good (?:until|till|through|thru))\b", re.I)
FLIGHT = re.compile(r"\b(?:fly|flying|flight|flights|airlines?|plane|outbound|layover)\b", re.I)
INSURANCE = re.compile(r"\b(?:insurance|insured|policy|coverage)\b", re.I)
# the assistant stating the user's own booking: "Your flight to Tokyo departs at 10:05 on March 3"
_YOURS = re.compile(r"\byour (?:\w+ )?(?:flight|trip|booking|reservation|itinerary|return|departure)\b", re.I)
# an assistant's recap of what the user said: "Noted: Air France to Paris, March 3 to March 30"
RECAP = re.compile(r"^\W*(?:noted|saved|recorded|updated|booked|got it|confirmed|so)\b", re.I)
NAMING = frozenset({"destination", "country", "is_international"})
HOME = "United States"  # whose trips are domestic when the user's passport names no other country
_TRAVELLED = r"(?:flight|trip|ticket|plane|vacation|holiday|travel)"
_OTHERS_TRIP = re.compile(
    rf"\b(?:my|our|your)\s+(?P<rel>{_RELATION})(?:\s+(?P<n1>(?-i:[A-Z][a-z]+)))?(?:'s|’s|s')\s+(?:[\w-]+\s+){{0,3}}"
    rf"{_TRAVELLED}|"
    rf"\b(?:my|our|your)\s+(?P<rel2>{_RELATION})(?:\s+(?P<n2>(?-i:[A-Z][a-z]+)))?\s+(?:is\s+|was\s+|will\s+be\s+)?"
    r"(?:flying|flies|fly|traveling|travelling|travels|leaving|leaves|going to|heading|departing|departs|"
    r"booked(?!\s+(?:me|us|for (?:me|us))\b)|bought|is visiting|visits|is taking)\b|"
    rf"\b(?P<name>[A-Z][a-z]{{2,}})(?:'s|’s)\s+(?:[\w-]+\s+){{0,3}}{_TRAVELLED}|"
    # someone the user speaks for, by title: "Mr Osei flies to Lagos", "Ms Tanaka's flight"
    r"\b(?P<titled>(?-i:(?:Mr|Mrs|Ms|Miss|Mx|Prof|Professor|Sir|Dame)\.?\s+[A-Z][a-z]+))(?:(?:'s|’s)\s+|\s+(?:is\s+)?"
    r"(?=fl(?:y|ies|ying)\b|travel|leav|depart|head))|"
    # "Harold's off to Leeds", "Mum is flying to Delhi", "Priya flies to Chicago"
    r"(?:^|[.;:,]\s+|\b(?:but|so|then)\s+)(?P<name3>(?-i:[A-Z][a-z]{2,}))"
    r"(?:'s|’s|\s+is|\s+will\s+be|\s+will)?\s+(?:off|flying|flies|fly|travels|travelling|traveling|heading|heads|"
    r"leaving|leaves|departs|departing|going)\s+(?:up\s+|down\s+|over\s+|out\s+|back\s+)?to\b",
    re.I,
)
_WITH = re.compile(
    r"\b(?:for|with)\s+(?:my\s+\w+\s+)?(?P<name>[A-Z][a-z]+)\s+and\s+(?:myself|me)\b|"
    r"\b(?P<name2>[A-Z][a-z]+)\s+and\s+I\b(?!['’])"
    r"(?!\s+(?:(?:were|was)\s+(?:in|at|on)|went|flew|used to|had been|visited|travell?ed)\b)|"
    r"\byou and (?P<name3>[A-Z][a-z]+)\b")
# what the trip is for, said with it: "for my cousin's wedding", "to visit the grandchildren",
# "for Hannover Messe", "our honeymoon trip", "the honeymoon is booked" (`purpose`)
_EVENT_HEADS = (
    r"(?:[\w-]+ )?party|conference|workshop|wedding|course|meeting|summit|negotiation|offsite|off-site|retreat|"
    r"funeral|reunion|graduation|interview|training|engagement|convention|expo|trade show|tournament|concert|"
    r"festival|birthday|anniversary|audit|inspection|site visit|hackathon|trade fair|kick-?off|launch|onboarding|"
    r"orientation|christening|baptism|bar mitzvah|bat mitzvah|memorial|celebration|board meeting|"
    r"semester abroad|semester|term abroad|year abroad|study abroad|internship|placement|residency|fellowship|"
    r"(?:half )?marathon|triathlon|ironman|race|match|competition|exhibition|congress|symposium|seminar|recital|"
    r"ceremony|pilgrimage|stag do|hen do|hen party|"
    r"[\w-]+['’]s \d{1,3}(?:st|nd|rd|th)(?: birthday)?")
# an event by its own name: "Hannover Messe", "the Tokyo Marathon", "Frankfurt Book Fair"
_NAMED_EVENT = (r"(?-i:(?:[A-Z][\w'’&.-]*\s+){1,3}(?:Marathon|Half Marathon|Messe|Fair|Expo|Festival|Summit|Congress|"
                r"Conference|Open|Cup|Games|Grand Prix|Week|Show|Convention|Biennale|Olympics|Fashion Week|"
                r"Fringe|Carnival|Triathlon|Ironman)\b)")
_WHOM = (r"parents|family|grandparents|grandchildren|grandkids|grandson|granddaughter|friends?|mom|mum|dad|sister|"
         r"brother|son|daughter|kids|children|cousins?|aunt|uncle|in-laws|relatives|folks|grandma|grandpa|nan|nana")
PURPOSE = re.compile(
    r"\bpurpose(?:\s+of\s+(?:the\s+)?(?:travel|trip|visit|journey|stay))?:?\s+(?:is\s+)?(?P<stated>[\w'’ -]+?)\s*"
    r"(?=[.,;!]|$)|"
    rf"\b(?:for|in|at|running|run|doing|entered|exhibiting at|speaking at|presenting at)\s+(?:the\s+)?"
    rf"(?P<named>{_NAMED_EVENT})|"
    rf"\b(?:for|to attend|attending) (?:(?:the|a|an|my|our|your|me) |(?=(?-i:[A-Z][a-z]+)['’]s ))"
    rf"(?P<event>(?:[\w'’-]+ ){{0,2}}?(?:{_EVENT_HEADS}))\b|"
    rf"\b(?:to|for) visit(?:ing)? (?:my |our |the |me )?(?P<whom>{_WHOM})\b|"
    rf"\bto see (?:my |our |the |me )?(?P<see>{_WHOM})\b|"
    # what for, in a word: "for work", "on business", "on holiday"
    r"\b(?:for|on)\s+(?:a\s+)?(?P<plain>work|business|vacation|holiday|pleasure|leisure)\b"
    r"(?!\s+(?:trip|travel|class|lounge|card|account|days?|hours|email|phone|laptop)\b)|"
    # "I have a conference in Denver"
    rf"\b(?:have|got|there's|there’s)\s+(?:a|an|the|my|our)\s+(?P<have>(?:[\w'’-]+ ){{0,2}}?(?:{_EVENT_HEADS}))"
    r"\s+(?:in|at)\b|"
    r"\b(?:my|our|the|a|an|this)\s+(?P<occasion>anniversary|birthday|honeymoon|graduation|bachelorette|bachelor|"
    r"wedding|business|work)\s+(?:trip|getaway|holiday|vacation)\b|"
    r"\b(?:my|our|the|a|on|for)\s+(?P<alone>honeymoon|babymoon|pilgrimage|hajj|umrah)\b|"
    # the event said first, where it is: "my best friend's wedding is in phoenix", "site visit in toronto thursday"
    rf"\b(?:my|our|the)\s+(?P<there>(?:[\w'’-]+ ){{0,2}}?(?:{_EVENT_HEADS}))\s+(?:is|was|'s|’s)\s+(?:in|at)\b|"
    rf"^\W*(?:(?:a|an|the|my|our)\s+)?(?P<lead>(?:[\w'’-]+ ){{0,1}}?(?:{_EVENT_HEADS}))\s+(?:in|at)\s",
    re.I,
)
# a sentence saying only what the trip just named is for: "It's for my mate's wedding", "Na for Hannover
# Messe I dey go", "The trip is mainly for the conference"
_PURPOSE_OPENER = re.compile(r"^\W*(?:(?:so|and|but|oh)\s+)?(?:it'?s|it’s|it is|this is|that'?s|that’s|that is|"
                             r"the trip(?:'s|’s| is)|we(?:'re|’re| are) going|i'?m going|i’m going|na)\s+"
                             r"(?:(?:all|mainly|mostly|partly|just|really|actually|basically)\s+)?for\b", re.I)
# taking part in a named event, said before the trip: "got my place in the Tokyo Marathon", "I'm running the ..."
_TAKING_PART = re.compile(r"\b(?:got (?:my|a|our) (?:place|spot|entry|slot|ticket|tickets) (?:in|at|for)|"
                          r"registration (?:for|to)|(?:my|our) (?:place|spot|registration) (?:in|at|for)|"
                          r"(?:i'?m|i’m|i am|we'?re|we’re|we are) (?:running|exhibiting at|speaking at|presenting at|"
                          r"competing in|doing|racing)|(?:entered|registered for|signed up for|accepted (?:in|to|into|"
                          r"for)|invited to speak at))\s+(?:the\s+)?(?:" + _NAMED_EVENT + rf"|(?:[\w'’-]+ ){{0,2}}?"
                          rf"(?:{_EVENT_HEADS})\b)", re.I)
# an event said with where it is: "my cousin's wedding is in Lisbon"
_EVENT_THERE = re.compile(rf"\b(?:{_EVENT_HEADS})\s+(?:is|'s|’s)\s+(?:in|at)\b", re.I)
# going somewhere for something, said without a travel word: "confirm going Seoul for my exchange semester"
_GOING_FOR = re.compile(r"\b(?:go|going|coming|heading|headed|off)\b[^.;!?]{0,40}?\bfor\b", re.I)
_PURPOSE_SAID = "\x00purpose"  # `Context.pending` key of what a trip is for, said before the trip


def purpose_of(sentence: str) -> str | None:
    """What the sentence says a trip is for, a short noun phrase as said ("cousin's wedding",
    "visit grandchildren", "Hannover Messe", "honeymoon"), or None."""
    match = PURPOSE.search(sentence)
    if match is None:
        return None
    whom = match.group("whom")
    if whom:
        return f"visit {whom.lower()}"
    if match.group("see"):
        return f"see {match.group('see').lower()}"
    said = next(match.group(name) for name in ("stated", "named", "event", "occasion", "alone", "there", "lead",
                                               "plain", "have") if match.group(name))
    if match.group("plain"):
        return said.lower()
    # "my sister Maureen's 80th": Maureen's 80th, by the name given
    return _RELATION_BEFORE_NAME.sub("", " ".join(said.split()))


_RELATION_BEFORE_NAME = re.compile(rf"^(?i:{_RELATION})\s+(?=[A-Z][a-z]+['’]s\s)")


# the sentence adds to the trip talked about: its total, or its dates alone ("Thursday April 10 to April 24")
TOTAL = re.compile(r"\b(?:total (?:came to|comes to|is|was|of)|(?:air)?fare (?:is|was|came to))\b", re.I)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
RANGE = re.compile(
    rf"\b(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH})\b[^.;]{{0,30}}?"
    rf"(?:\bto\b|\bthrough\b|\buntil\b|\btill\b|-|–)\s*(?:\w+day,?\s+)?(?:{_MONTH}\s+)?\d{{1,2}}\b",
    re.I,
)
_AIRLINE_WORDS = re.compile(_AIRLINE.pattern, re.I)  # the prefilter's spelling; `_AIRLINE` decides
# a sentence without one of these is about no trip
_PLANS_TO_GO = re.compile(rf"\b{PLAN_OPENERS} (?:\w+ ){{0,2}}?(?:go|going|head (?:out|over|there))\b", re.I)
# the assistant saving a code the user spelled out or read aloud: "Saved: TP44XN."
_RECAPPED_CODE = re.compile(r"^\W*(?i:saved|noted|got it|recorded|updated)\W+"
                            r"(?P<code>(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,8})\W*$")
# a ticket's passenger line: "Passenger: OKONKWO/EMEKA MR", "Passenger 2: HARGREAVES/DENNIS MR"
_PASSENGER = re.compile(r"^\W*(?:passenger|traveller|traveler|pax)(?:\s+name)?(?:\s*\(?\d\)?)?\s*:"
                        r"\s*(?P<who>\S.*?)\s*$", re.I)
_PASSENGERS = "\x00passengers"  # `Context.pending` key of the given names a pasted ticket's passenger lines gave
TRIGGERS = (airports.TRIGGER, TRAVEL, STRONG, FOLLOW_UP, BOOKED, FLIGHT, TOTAL, RANGE, _AIRLINE_WORDS, _PLANS_TO_GO,
            _RECAPPED_CODE, CANCELLED, _PURPOSE_OPENER, _TAKING_PART, _GOING_FOR, _PASSENGER, _EVENT_THERE)
# an amount is the trip's cost only in a sentence about what its travel cost
COST = re.compile(r"\btotal (?:came to|comes to|is|was|of)\b|"
                  r"\b(?:flights?|tickets?|fares?|airfare|trip|itinerary|booking)\b[^.;]*?"
                  r"\b(?:cost|costs|was|were|came to|total|paid|for)\b|\b(?:paid|spent)\b[^.;]*?"
                  r"\b(?:flights?|tickets?|fares?|airfare|trip)\b|\bfare\b", re.I)


def read(sentence: str, context: Context) -> list[TypedFact]:
    facts = _read(sentence, context)
    if not facts and context.speaker == "user":
        _keep_purpose(sentence, context)
    return facts


# a hypothesis or someone else's plan says nothing the user's next trip is for
_IF = re.compile(r"\b(?:if|whether|unless|in case|should i|might)\b", re.I)


def _keep_purpose(sentence: str, context: Context) -> None:
    """Keep what a sentence that makes no trip says the user travels for ("Eh confirm going
    Seoul for my exchange semester!", "It's for my mate's wedding"), for the session's next
    trip (`_purpose_said_before`); not a question, a hypothesis, travel done or someone else's."""
    said = purpose_of(sentence)
    if said is None or is_question(sentence) or _IF.search(sentence) or _PAST_TRIP.search(sentence) or \
            HABITUAL.search(sentence) or trip_subject(sentence) != "user" or drops_idea(sentence):
        return
    there = any_place(sentence)
    context.pending[_PURPOSE_SAID] = {"purpose": said, **({"country": there[1]} if there and there[1] else {})}




def _ticket_holders(context: Context) -> list[str]:
    """The passengers the session's pasted ticket names whom the conversation knows (a relative
    or a companion, by given name), or [] when none or it names none."""
    said = str(context.pending.get(_PASSENGERS, {}).get("names", ""))
    return [name for name in said.split("|") if name and (relation_of(name, context) is not None
                                                           or name in context.companions)]


def _read(sentence: str, context: Context) -> list[TypedFact]:
    passenger = _PASSENGER.match(sentence)
    if passenger is not None:
        given = given_names(passenger.group("who"))
        if given:
            said = str(context.pending.get(_PASSENGERS, {}).get("names", ""))
            context.pending[_PASSENGERS] = {"names": "|".join(filter(None, [said, given[0]]))}
        return []
    legs = airports.route(sentence)
    if legs is not None:  # a pasted itinerary line: "Depart: 04 MAR 10:15 LHR -> LOS BA075"
        sentence = _ITINERARY_DAY.sub(_itinerary_day, sentence)
    flight = FLIGHT.search(sentence) or _AIRLINE.search(sentence) or legs
    if HOTEL.search(sentence) and not flight:
        context.topic = "hotel"  # "the hotel is ...; the confirmation is 884120": not the flight's
        return []
    booked, follow_up = BOOKED.search(sentence), FOLLOW_UP.search(sentence)
    if INSURANCE.search(sentence) and not flight and not booked:
        return []  # "travel insurance for Italy": the document's, not a trip
    if _DOCUMENT_DATE.search(sentence) and not booked and not _AIRLINE.search(sentence):
        return []  # "your visa is valid until 31 May, twelve days before your flight home": the visa's date
    _companions(sentence, context)
    taking_part = _TAKING_PART.search(sentence)
    if taking_part is not None and context.speaker == "user" and not is_question(sentence) and \
            (taken := purpose_of(taking_part.group(0))) is not None:
        context.pending[_PURPOSE_SAID] = {"purpose": taken}  # "got my place in the Tokyo Marathon!", then the flights
    travel = TRAVEL.search(sentence)
    strong = STRONG.search(sentence)
    previous = context.last.get(DOMAIN)
    known: dict[str, JsonValue] = {} if previous is None or previous.key is None else \
        {**context.pending.get(previous.key, {}), **context.entities.get(previous.key, {})}
    referred = referred_trip(sentence, context) if previous is None else None
    if referred is not None:  # "Qantas moved my return": the trip an earlier session booked
        previous, known = TypedFact(DOMAIN, referred[0], referred[1]), referred[1]
    dropped = _cancelled_by_place(sentence, context) if referred is None and CANCELLED.search(sentence) and \
        not (travel or strong or booked or follow_up) else None  # "We cancelled Paris.": the Paris trip on record
    if dropped is not None:
        previous, known = TypedFact(DOMAIN, dropped[0], dropped[1]), dropped[1]
    aim = _PURPOSE_OPENER.search(sentence) if previous is not None and purpose_of(sentence) is not None else None
    triggered = travel or strong or booked or follow_up or aim
    correcting = previous is not None and CORRECTION.search(sentence) is not None
    place = find_place(sentence) if triggered or correcting else None
    if place is not None and place[1] is None and not strong:
        place = None
    without_airlines = _AIRLINE.sub(" ", sentence) if flight else sentence
    if place is None and (travel or flight or booked or follow_up):
        place = any_place(without_airlines)
    if place is not None and previous is not None and _inside_event_name(sentence, place[0]):
        place = None  # "Na for Hannover Messe I dey go" after the Frankfurt flights: the fair's name, no new trip
    if place is not None and _homeward(sentence, place[0]):
        place = None  # "my return flight to Boston": home, not where the trip goes
    homebound = onward_leg = False
    if legs is not None:
        homebound, onward_leg, place = _leg(legs, sentence, context, previous, known, place)
    total = TOTAL.search(sentence)
    adds = total is not None or (len(sentence.split()) <= 10 and RANGE.search(sentence) is not None)
    # "I booked Aer Lingus to Dublin ..., and when Harold and I were in Rome he said we'd never fly again": booked
    habitual = HABITUAL.search(sentence) is not None and not (booked and place is not None and place[1] is not None)
    if NOT_TRIPS.search(sentence) and place is None or habitual or drops_idea(sentence):
        return []
    if _PAST_TRIP.search(sentence) and not booked and booking_status(sentence) is None and \
            not _day_ahead(sentence, context):
        return []  # "I was in Rome last year", "when I lived in Berlin": travel done, nothing ahead
    if place is None and context.topic in ("hotel", "document") and not flight and \
            not (context.topic == "hotel" and total) and not (context.topic == "document" and (
                _FLIGHT_CODE_WORDS.search(sentence) or _about_a_passport(context)) and confirmation_code(sentence)):
        return []  # a follow-up of the hotel or the document talked about
    key: str | None
    if place is not None:
        if place[0] == place[1]:  # "Iberia to Spain ... a course in Andalusia": the more precise place
            inside = any_place(without_airlines)
            place = inside if inside is not None and inside[1] == place[1] else place
        key = place_key(place[0])
        fields: dict[str, JsonValue] = {"destination": place[0]}
        if previous is not None and place[1] is not None and known.get("country") == place[1]:
            if referred is not None and known.get("destination") != place[0]:
                key, fields = previous.key or key, {}  # "my friend in Rome ... pushed my return": the Milan trip
            elif known.get("destination") in (place[0], place[1]) or correcting:
                key = previous.key or key  # "a flight to Japan", then "your flight to Tokyo": one trip
            elif place[0] == place[1]:  # "Andalusia", then "Iberia to Spain": the more precise place stays
                key, fields = previous.key or key, {}
        if place[1] is not None:
            fields["country"] = place[1]
            if place[1] == HOME and context.prior.entities.get(("passport", "passport"), {}).get("country") in (
                    None, HOME) and _origin_abroad(sentence) is None:
                fields["is_international"] = False  # the country table's rules are a U.S. traveller's
            elif place[1] == HOME and _origin_abroad(sentence) is not None:
                fields["is_international"] = True  # "flying out of Glasgow ... to Orlando": abroad for them
    elif previous is not None and (travel or flight or adds or follow_up or aim or _weak(sentence, context, previous)
                                   or _recapped_code(sentence, context)
                                   or dropped is not None or referred is not None and CANCELLED.search(sentence)):
        key = previous.key
        fields = {}
    elif context.speaker == "assistant" and previous is not None and booked:
        key, fields = previous.key, {}
    else:
        if previous is None and context.speaker == "user" and travel and booking_status(sentence) == "booked" and \
                not _WENT.search(sentence):
            # "We booked our trip!", then "Air Transat to Lisbon"
            context.pending[_UNNAMED] = {"booking_status": "booked"}
        return []
    if place is None and previous is not None and known.get("booking_status") == "booked" and \
            booking_status(sentence) == "planned" and _ANOTHER.search(sentence):
        # "I might go back in September too": another trip, only thought of, to the same country
        there = known.get("country")
        if not isinstance(there, str) or is_question(sentence):
            return []
        fields = {"destination": there, "country": there, "booking_status": "planned"}
        return [TypedFact(DOMAIN, f"{place_key(there)} (again)",
                          conversation_fields(context, str(previous.fields.get("subject", "user")), fields))]
    onward = _onward_of(sentence, context, place) if place is not None and not onward_leg else None
    if onward is not None:  # "goes on from Singapore to Sydney on the 19th": the Singapore trip, longer
        key, fields = onward, {}
    if onward_leg and previous is not None:  # an itinerary's next leg; past a layover, where it goes
        onward = previous.key
        key, fields = onward, {} if place is None else {"destination": place[0], "country": place[1]}
    question = is_question(sentence) and not booked
    if not question:  # "how long is the flight to Tokyo?" names a place, and books nothing
        fields.update(_details(sentence, context, known))
        fields.update(_shifted(sentence, known, fields))
        if onward is not None:  # the onward leg's day is no departure of the trip
            fields.pop("departure_date", None)
            fields.pop("departure_time", None)
        if homebound:  # "Leg 3: 27APR 17:35 CAN-YVR": the flight home
            for leg in ("date", "time"):
                if f"departure_{leg}" in fields and f"return_{leg}" not in fields:
                    fields[f"return_{leg}"] = fields.pop(f"departure_{leg}")
    if place is None and not fields or question and (key is None or key in context.entities):
        return []
    if context.speaker == "assistant" and (previous is None or previous.key != key) and \
            fields.get("booking_status") != "booked" and not RECAP.search(sentence) and not _YOURS.search(sentence):
        return []  # the assistant's general travel talk is not the user's trip
    subject = trip_subject(sentence) if place is not None or previous is None else \
        str(previous.fields.get("subject", "user"))
    if subject == "user" and previous is not None and key == previous.key:
        subject = str(previous.fields.get("subject", "user"))  # "Sofia's trip", then "France requires ...": hers
    if subject == "user" and place is not None and _PRONOUN_GOES.match(sentence):
        if previous is None or previous.fields.get("subject", "user") == "user":
            return []  # "He flies to Lagos on the 4th": someone's trip, whose the session does not say
        subject = str(previous.fields["subject"])
    if subject == "user" and (holders := _ticket_holders(context)):
        passengers = str(context.pending.get(_PASSENGERS, {}).get("names", "")).split("|")
        if len(passengers) == 1:
            subject = holders[0]  # "Passenger: OKAFOR/ADAEZE MISS" after "my daughter Adaeze": her ticket
        else:  # "Passenger 1: ... MARGARET", "Passenger 2: ... DENNIS": Dennis travels along
            context.companions.extend(name for name in holders if name not in context.companions)
    if subject != "user" and fields.get("is_international") is False:
        del fields["is_international"]  # "domestic" reads the user's passport; whose passport they travel on is unsaid
    if context.speaker == "assistant" and set(fields) <= NAMING and referred is None:
        return []  # the assistant naming the country again states nothing
    if key is not None and set(fields) <= NAMING and key not in context.entities:
        # named only ("Work is sending me to Singapore"): what later sentences are about
        context.pending[key] = {**context.pending.get(key, {}), **fields}
        context.last[DOMAIN] = TypedFact(DOMAIN, key, conversation_fields(context, subject, fields))
        context.topic = DOMAIN
        return []
    if key is not None:
        fields = {**context.pending.pop(_UNNAMED, {}), **context.pending.pop(key, {}), **fields}
        _purpose_said_before(key, fields, context)
        if "confirmation" in fields and context.entities.get(key, {}).get("confirmation") not in (None, fields[
                "confirmation"]) and not flight:
            del fields["confirmation"]  # a second code without a flight named is the hotel's or the car's
        context.entities[key] = {**context.entities.get(key, {}), **fields}
    fact = TypedFact(DOMAIN, key, conversation_fields(context, subject, fields))
    if subject != "user" or key is None:
        return [fact]
    lead = _COMPANION_LEADS.match(sentence)
    if lead is not None and lead.group("name") in context.companions:  # "Jonas comes only the first week, ...":
        who = lead.group("name")  # his trip changes, not the user's
        return [TypedFact(DOMAIN, f"{key}/{who.casefold()}", conversation_fields(context, who, fields))]
    along = [*context.companions, *(who for who in _earlier_companions(key, context) if who not in context.companions)]
    return [*(TypedFact(DOMAIN, f"{key}/{who.casefold()}", conversation_fields(context, who, fields))
              for who in along), fact]


def _inside_event_name(sentence: str, place: str) -> bool:
    """`place` is named in the sentence only inside an event's own name ("Hannover Messe")."""
    named = PURPOSE.search(sentence)
    if named is None or named.group("named") is None:
        return False
    at = [match.start() for match in re.finditer(rf"\b{re.escape(place)}\b", sentence, re.I)]
    return bool(at) and all(named.start("named") <= start < named.end("named") for start in at)


def _purpose_said_before(key: str, fields: dict[str, JsonValue], context: Context) -> None:
    """The trip takes what an earlier sentence of the session said the user takes part in ("got
    my place in the Tokyo Marathon!", then "Flights are booked to Tokyo") when it has no purpose
    yet and the event's name names no other country than the trip's."""
    said = context.pending.get(_PURPOSE_SAID, {}).get("purpose")
    if not isinstance(said, str) or "purpose" in fields or "purpose" in context.entities.get(key, {}):
        return
    there = fields.get("country") or context.entities.get(key, {}).get("country") or \
        context.pending.get(key, {}).get("country")
    named = any_place(said)
    where = named[1] if named is not None and named[1] is not None else context.pending[_PURPOSE_SAID].get("country")
    if where is not None and where != there:
        return  # "I'm running the Boston Marathon", then flights to Paris: not what Paris is for
    fields["purpose"] = said
    del context.pending[_PURPOSE_SAID]


def _earlier_companions(key: str, context: Context) -> list[str]:
    """Who an earlier session said travels along on the trip `key`, still ahead and not
    cancelled ("Luc and I booked Lisbon", then "we leave May 8"): their copies change with it."""
    today = context.timestamp.date().isoformat() if context.timestamp is not None else ""
    return [str(fields.get("subject")) for other, fields in context.prior.of_kind(DOMAIN)
            if other.startswith(f"{key}/") and isinstance(fields.get("subject"), str)
            and fields.get("booking_status") != "cancelled"
            and str(fields.get("return_date") or fields.get("departure_date") or "9999") >= today]


def _ends_a_place(sentence: str, start: int, name: str | None) -> bool:
    """`name` at `start` ends a place's name ("lives in Mexico City and I"): no companion."""
    if name is None or start < 0:
        return False
    words = sentence[:start].split()[-2:]
    return any(place_name(" ".join([*words[-n:], name])) is not None for n in (1, 2) if len(words) >= n)


_UNNAMED = "\x00trip"  # `Context.pending` key of a booking said before its place
_LEGS = "\x00legs"  # `Context.pending` key of the itinerary read so far: where it left from, where it is
_MONTH_CAPS = {"JAN": "January", "FEB": "February", "MAR": "March", "APR": "April", "MAY": "May", "JUN": "June",
               "JUL": "July", "AUG": "August", "SEP": "September", "OCT": "October", "NOV": "November",
               "DEC": "December"}
# an itinerary's day and clock: "04 MAR 10:15", "15APR 13:40", "11 MAR 2026 23:05"
_ITINERARY_DAY = re.compile(r"\b(?P<d>\d{1,2})\s?(?P<m>" + "|".join(_MONTH_CAPS) + r")\b(?:\s+(?P<y>20\d\d))?"
                            r"(?:\s+(?P<t>[0-2]?\d:[0-5]\d))?")


def _itinerary_day(match: re.Match[str]) -> str:
    day = f"{int(match.group('d'))} {_MONTH_CAPS[match.group('m')]}"
    day += f" {match.group('y')}" if match.group("y") else ""
    return day + (f" at {match.group('t')}" if match.group("t") else "")


def _leg(legs: tuple[str, str], sentence: str, context: Context, previous: TypedFact | None,
         known: dict[str, JsonValue], place: tuple[str, str | None] | None
         ) -> tuple[bool, bool, tuple[str, str | None] | None]:
    """(homebound, onward, place) of an itinerary line's route. Back to where the itinerary
    left from or passed through (or said to be the return) is the trip's return, its first
    such leg only; on from where it is, an onward leg of the same trip, where a connection
    within a day makes the leg's end the destination ("SFO/ICN" then "ICN/HAN" the next
    morning: Hanoi, Seoul a layover); else a trip to the route's end."""
    seen = context.pending.get(_LEGS, {})
    passed = str(seen.get("via", "")).split("|")
    dates = recognize(sentence, context.timestamp).dates if context.timestamp is not None else []
    day = try_date(dates[0]) if dates else None
    if previous is not None and seen and (CUES[0].pattern.search(sentence) or legs[1] in passed):
        context.pending[_LEGS] = {**seen, "home": True}
        return seen.get("home") is None, seen.get("home") is not None, None
    if previous is not None and seen and legs[0] == seen.get("at"):
        before = try_date(str(seen.get("day", "")))
        context.pending[_LEGS] = {**seen, "at": legs[1], "via": "|".join([*passed, legs[0]]),
                                  "day": day.isoformat() if day else ""}
        if day is not None and before is not None and 0 <= (day - before).days <= 1 and \
                known.get("destination") == place_name(legs[0]):
            return False, True, (place_name(legs[1]) or legs[1], country_of(legs[1]))  # a layover
        return False, True, None
    context.pending[_LEGS] = {"origin": legs[0], "at": legs[1], "via": legs[0], "day": day.isoformat() if day else ""}
    return False, False, (place_name(legs[1]) or legs[1], country_of(legs[1]))


# travel told as done: "I was in Rome last year", "we went to Paris in 2019", "just got back from Lisbon"
_PAST_TRIP = re.compile(r"\b(?:flew|went|was in|were in|got back|came back|just back|visited|travell?ed|lived|"
                        r"spent (?:a|an|one|two|three|four|\d+) (?:week|weeks|days|months?))\b", re.I)
# someone else, said by pronoun, travels: "He flies to Lagos on the 4th", "she's off to Rome"
_PRONOUN_GOES = re.compile(r"^\W*(?:and\s+|so\s+|then\s+)?(?:he|she|they)(?:'s|’s|'ll|’ll|\s+is|\s+was|\s+will be|"
                           r"\s+are|\s+were)?\s+(?:\w+\s+)?(?:fly|flies|flying|travel\w*|leav\w*|head\w*|going|"
                           r"goes|off|depart\w*)\b", re.I)
# home, not the destination: "my return flight to Boston", "flying home to Chicago", "the flight back to NYC"
_HOMEWARD = re.compile(r"\b(?:return(?:ing)?|back|home|inbound)(?:\s+(?:flight|leg|trip))?\s+(?:to|into)\s+"
                       r"(?:the\s+)?$", re.I)


def _homeward(sentence: str, place: str) -> bool:
    """The sentence names `place` as where the return flight goes."""
    at = re.search(rf"\b{re.escape(place)}\b", sentence, re.I)
    return at is not None and _HOMEWARD.search(sentence, 0, at.start()) is not None


def _day_ahead(sentence: str, context: Context) -> bool:
    """The sentence names a day after the session's."""
    if context.timestamp is None:
        return False
    today = context.timestamp.date().isoformat()
    return any(day > today for day in recognize(sentence, context.timestamp).dates)


# another trip than the one talked about: "I might go back in September", "maybe again next year"
_ANOTHER = re.compile(r"\b(?:go(?:ing)? back|come back|again|another (?:trip|visit|one)|next time|second trip)\b", re.I)
# where a flight leaves from: "out of Dublin", "from Manchester", "leaving Heathrow"
_FROM = re.compile(r"\b(?:from|out of|leav(?:e|es|ing)|depart(?:s|ing)?)\s+(?P<place>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)")


def _origin_abroad(sentence: str) -> str | None:
    """The country of a place the sentence says the flight leaves from, when it is not `HOME`."""
    for match in _FROM.finditer(sentence):
        words = match.group("place").split()
        for size in range(len(words), 0, -1):
            found = place_name(" ".join(words[:size]))
            if found is not None:
                country = any_place(found)
                if country is not None and country[1] not in (None, HOME):
                    return country[1]
                break
    return None


_ONWARD = r"\b(?i:from|after|leaving)\s+(?:the\s+)?"


def _onward_of(sentence: str, context: Context, place: tuple[str, str | None]) -> str | None:
    """The key of the trip on record whose destination the sentence leaves from on to `place`
    ("two days in Sydney after Singapore", "on from Singapore to Sydney"): one trip, a leg longer."""
    known = [*context.prior.of_kind(DOMAIN), *context.entities.items()]
    for key, fields in reversed(known):
        there = fields.get("destination")
        if not isinstance(there, str) or there == place[0] or fields.get("booking_status") == "cancelled":
            continue
        if re.search(_ONWARD + re.escape(there) + r"\b", sentence) and \
                re.search(r"\b(?:to|in|for)\s+" + re.escape(place[0]) + r"\b", sentence):
            return key
    return None


# "thinking about going in April": a trip only right after one was named
_WEAK = re.compile(r"\b(?:go|going|head(?:ing)? (?:out|over|there)|do it|book(?:ing)? it)\b", re.I)


def _weak(sentence: str, context: Context, previous: TypedFact) -> bool:
    """A sentence saying only how far the trip just named is planned ("thinking about going")."""
    return context.topic == DOMAIN and previous.key in context.pending and _WEAK.search(sentence) is not None \
        and booking_status(sentence) is not None


# a change to a booked trip, not a new one: "moved my return", "pushed it back a week", "rebooked"
CHANGED = re.compile(
    r"\b(?:mov(?:e|ed|ing)|chang(?:e|ed|ing)|rebook\w*|reschedul\w*|push(?:ed|ing)?|extend\w*|delay\w*|"
    r"postpon\w*|bump(?:ed)?|switch(?:ed)?|new (?:return|departure|flight|date|dates|time)|instead|now|"
    r"cancel+(?:ed|ing)?|called off|scrapped|not going|no longer)\b", re.I)
# a leg cancelled and replaced is no cancelled trip: "they cancelled my return flight and moved me"
_REPLACED = re.compile(r"\b(?:mov(?:ed|ing)|rebook\w*|put (?:me|us) on|new (?:flight|return|departure)|"
                       r"reschedul\w*|instead)\b|\b(?:return|outbound|connecting|inbound) flight\b", re.I)


def referred_trip(sentence: str, context: Context) -> tuple[str, dict[str, JsonValue]] | None:
    """The earlier session's trip a sentence refers back to: one with its confirmation code,
    or, in a sentence about changing a trip ("moved my return"), one with the carrier or
    country it names, or the only trip still ahead; None when none is clearly meant."""
    today = context.timestamp.date().isoformat() if context.timestamp is not None else ""
    theirs = _THEIRS.search(sentence) is not None  # "her return got pushed": someone else's trip
    ahead = [(key, fields) for key, fields in context.prior.of_kind(DOMAIN)
             if fields.get("booking_status") != "cancelled" and (fields.get("subject", "user") != "user") == theirs
             and "/" not in key and str(fields.get("return_date") or fields.get("departure_date") or "9999") >= today]
    if not ahead:
        return None
    code = confirmation_code(sentence) or next(
        (token for token in re.findall(r"\b[A-Z0-9]{6}\b", sentence) if any(ch.isdigit() for ch in token)), None)
    by_code = [trip for trip in ahead if code is not None and trip[1].get("confirmation") == code]
    if by_code:
        return by_code[-1]
    if not CHANGED.search(sentence) and not CUES[0].pattern.search(sentence) and not CANCELLED.search(sentence):
        # "Dates are March 3 to March 10": the days of the one trip ahead booked without them
        undated = len(ahead) == 1 and "departure_date" not in ahead[0][1] and any_place(sentence) is None
        return ahead[0] if undated and (RANGE.search(sentence) or _DATES_ARE.search(sentence)) else None
    airline = _AIRLINE.search(sentence)
    if airline is not None:
        carrier = airline.group("name").casefold()
        named = [trip for trip in ahead if str(trip[1].get("carrier", "")).casefold() == carrier]
        return named[-1] if len(named) == 1 else None
    place = any_place(sentence)
    if place is not None:
        named = [trip for trip in ahead if place[1] is not None and trip[1].get("country") == place[1]]
        return named[-1] if len(named) == 1 and CHANGED.search(sentence) else None
    return ahead[-1] if len(ahead) == 1 and (FOLLOW_UP.search(sentence) or TRAVEL.search(sentence) or
                                             CANCELLED.search(sentence)) else None


_THEIRS = re.compile(r"\b(?:her|his|their)\b", re.I)
_DATES_ARE = re.compile(r"\b(?:dates?|we leave|i leave|leaving|out on|fly out)\b", re.I)


def _cancelled_by_place(sentence: str, context: Context) -> tuple[str, dict[str, JsonValue]] | None:
    """The one trip on record (this session or an earlier one) to the place a cancelling
    sentence names."""
    place = any_place(sentence)
    if place is None:
        return None
    name = re.escape(place[0])
    if not re.search(rf"\b(?:cancel+(?:ed|ing)?|called off|scrapped|dropped)\s+(?:the\s+|our\s+|my\s+)?{name}\b|"
                     rf"\b{name}\s+(?:is|was|got|has been)\s+(?:cancel+ed|off|called off|scrapped)\b", sentence, re.I):
        return None  # "they cancelled the museum tour in Paris": not the trip
    known = [*context.prior.of_kind(DOMAIN), *context.entities.items()]
    named = {key: fields for key, fields in known if fields.get("destination") in place or
             (place[0] == place[1] and fields.get("country") == place[1])}
    return next(iter(named.items())) if len(named) == 1 else None


def trip_subject(sentence: str) -> str:
    """Who travels: someone else only when the sentence says so ("my daughter's flight", "my
    son is flying"); "for my cousin's wedding" is the user's trip."""
    match = _OTHERS_TRIP.search(sentence)
    if match is None:
        third = _THIRD_PERSON.search(sentence)
        if third is not None:
            if third.group("role"):
                return third.group("role").lower()  # "my manager flies to Singapore": the manager's
            name = third.group("sur") or third.group("sur2") or third.group("given")
            if name.lower() not in _NOT_NAMES and name.lower() not in _CALENDAR and \
                    (third.group("given") is None or place_name(name) is None):
                return name  # "Mr Osei flies to Lagos": his (`common.person_named` gives the title back)
        return "user"
    if match.group("titled"):
        return re.sub(r"\s+", " ", match.group("titled"))
    if match.group("name3"):  # a person named as the one travelling
        said = match.group("name3")
        if said.lower() in FAMILY_NAMES:
            return FAMILY_NAMES[said.lower()]
        if said.lower() in _NOT_NAMES or place_name(said) is not None or said.lower() in _CARRIER_NAMES or \
                said.lower() in _CALENDAR or said.lower() in _NOT_TRAVELLERS:
            return "user"
        return said
    name = match.group("name")
    if name is not None and name.lower() in FAMILY_NAMES:
        return FAMILY_NAMES[name.lower()]  # "Papa's tickets", "Mom's flight": the father's, the mother's
    if name is not None:
        return "user" if name.lower() in _NOT_NAMES or place_name(name) is not None else name
    named = match.group("n1") or match.group("n2")  # "my daughter Sofia is flying": Sofia, as her passport says
    if named is not None and named.lower() not in _NOT_NAMES and named.lower() not in _CALENDAR:
        return named  # after "my daughter" a capitalised word is her name, even one a city has
    return str(match.group("rel") or match.group("rel2")).lower()


_HONORIFIC = r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+(?:[A-Z][a-z]+\s+)?"
_GOES = (r"(?:is\s+|was\s+|will\s+be\s+|'s\s+)?(?:flying|flies|fly|travell?ing|travels|leaving|leaves|departing|"
         r"departs|heading|heads|(?:is\s+)?off\s+to|going\s+to\s+(?=[A-Z])|goes\s+on|returns|returning)\b(?!\s+(?:me|us)\b)")
# someone else travels, said in the third person (an assistant speaking for the boss, a parent
# about a child): "Mr Osei flies to Lagos", "Ms Fairbanks's flight", "Saved: Mr Osei, BA to
# Lagos", "Aoife, our eldest, is off to Boston" (not "I'm flying with Mr Osei")
_THIRD_PERSON = re.compile(
    rf"(?<!with )(?<!and )\b{_HONORIFIC}(?P<sur>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?:'s|’s)?\s+"
    rf"(?:{_GOES}|(?:[\w-]+\s+){{0,3}}{_TRAVELLED}|itinerary)|"
    rf"^\W*(?i:noted|saved|updated|recorded|got it)\W+{_HONORIFIC}(?P<sur2>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\s*,|"
    rf"^\W*(?P<given>[A-Z][a-z]{{2,}}),[^,]{{1,40}},\s+{_GOES}|"
    rf"\b(?i:my|our)\s+(?P<role>(?i:manager|supervisor|ceo|cfo|coo|director|client|employer|mentor|teammate|"
    rf"business partner|assistant))\s+{_GOES}")


# what family members are called as if by name: "Papa's tickets", "Mom's flight"
FAMILY_NAMES = {word: FAMILY[word] for word in BARE}  # the vocabulary of `factlog.relations`
_CARRIER_NAMES = frozenset(name.lower() for name in AIRLINES)
_NOT_TRAVELLERS = frozenset("we you they work everyone nobody somebody someone she he it this that which who what "
                            "flight plane train bus ferry car".split())
_CALENDAR = frozenset("january february march april may june july august september october november december "
                      "monday tuesday wednesday thursday friday saturday sunday".split())


# a relation travelling along: "flying with my wife", "for me and my son Leo", "my husband and I"
_WITH_RELATION = re.compile(
    rf"(?:(?<!stay )(?<!staying )(?<!stays )(?<!live )(?<!lives )(?<!living )(?<!meet )(?<!dinner )(?<!lunch )"
    rf"(?<!up )\bwith|\b(?:for|with)\s+(?i:me|myself)\s+and)\s+(?i:my|our)\s+"
    rf"(?P<rel>(?i:{_RELATION}))(?:\s+(?P<name>[A-Z][a-z]+))?\b(?!'s|’s)|"
    rf"\b(?i:my|our|the)\s+(?P<rel2>(?i:{_RELATION}))(?:\s+(?P<name2>[A-Z][a-z]+))?\s+and\s+(?i:I|me|myself)\b"
    r"(?!\s+(?:(?:were|was)\s+(?:in|at|on)|went|flew|used to|had been|visited|travell?ed)\b)|"
    # "me and the hubby fly Emirates", "me and my sister are off to Rome"
    rf"\b(?i:me|myself)\s+and\s+(?i:my|the|our)\s+(?P<rel3>(?i:{_RELATION}))(?:\s+(?P<name3>[A-Z][a-z]+))?\b(?!'s|’s)"
    r"(?!\s+(?:(?:were|was)\s+(?:in|at|on)|went|flew|used to|had been|visited|travell?ed)\b)")


# a sentence about one of the user's companions: "Jonas comes only the first week", "Emma flies back on the 9th"
_COMPANION_LEADS = re.compile(r"^\W*(?:but\s+|and\s+)?(?P<name>(?-i:[A-Z][a-z]+))\s+(?:only\s+|just\s+|also\s+)?"
                              r"(?:comes|is coming|flies|is flying|returns|is returning|leaves|is leaving|stays|"
                              r"is staying|goes|is going|gets|has to|needs to|will|can only)\b")


def _companions(sentence: str, context: Context) -> None:
    """Remember who travels with the user ("for Emma and myself", "you and Emma fly", "with
    my wife", "my son Leo and I"): the name when given, else the relation."""
    found = [match.group("name") or match.group("name2") or match.group("name3") for match in _WITH.finditer(sentence)
             if not _ends_a_place(sentence, match.start("name2"), match.group("name2"))]
    if TRAVEL.search(sentence) or FLIGHT.search(sentence) or BOOKED.search(sentence):
        found += [match.group("name") or match.group("name2") or match.group("name3") or
                  _family((match.group("rel") or match.group("rel2") or match.group("rel3")).lower())
                  for match in _WITH_RELATION.finditer(sentence)]
    for listed in _LISTED_WITH.finditer(sentence):  # "you, Isla and Callum fly ...", "me, Marc and Chloe"
        found += [name for name in re.findall(r"[A-Z][a-z]+", listed.group("names"))]
    found += _the_family(sentence, context)
    for name in found:
        if name and name.lower() not in _NOT_NAMES and name not in context.companions \
                and name.lower() not in _CALENDAR and (name.islower() or place_name(name) is None or
                                                       re.search(rf"\b(?:{_RELATION})\s+{name}\b", sentence, re.I)):
            context.companions.append(name)


# the user and others listed by name: "you, Isla and Callum fly Virgin Atlantic", "me, Marc and Chloe"
_LISTED_WITH = re.compile(r"\b(?i:you|me|myself)(?P<names>(?:,\s*[A-Z][a-z]+)+,?\s+and\s+[A-Z][a-z]+)\b(?!['’])")
# the user's party counted: "for the four of us", "all three of us are flying"
_PARTY = re.compile(r"\b(?:for|with)\s+(?:the|all)\s+(?P<n>two|three|four|five|six|seven|[2-7])\s+of\s+us\b|"
                    r"\ball\s+(?P<n2>two|three|four|five|six|seven|[2-7])\s+of\s+us\b", re.I)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def _family(word: str) -> str:
    """A relation word in its one spelling ("hubby" -> "husband"), so "my husband" and "the hubby" are one companion."""
    return family_word(word) or word


def _the_family(sentence: str, context: Context) -> list[str]:
    """The named relatives the conversation gave, when the sentence counts the user's party and
    they are exactly the others ("for the four of us" after "me, Marc, Chloe and Liam")."""
    party = _PARTY.search(sentence)
    if party is None or not (TRAVEL.search(sentence) or FLIGHT.search(sentence) or BOOKED.search(sentence)
                             or _AIRLINE.search(sentence) or context.topic == DOMAIN):
        return []
    said = (party.group("n") or party.group("n2")).lower()
    count = int(said) if said.isdigit() else _COUNTS[said]
    known = [*context.entities.items(), *context.prior.of_kind("relative")]
    names = list(dict.fromkeys(str(fields["name"]) for key, fields in known
                               if key.startswith("relative/") and isinstance(fields.get("name"), str)))
    return names if len(names) == count - 1 else []


def _details(sentence: str, context: Context, known: dict[str, JsonValue]) -> dict[str, JsonValue]:
    fields: dict[str, JsonValue] = {}
    dated = _BOOKED_ON.sub(r"\g<verb>\g<mid>", sentence)  # "mom booked the flights today": no leg's day
    aim = PURPOSE.search(dated)
    event_day = _EVENT_DAY.match(dated, aim.end()) if aim is not None else None
    if event_day is not None:  # "for Maureen's 80th, which is on the 20th of May": the party's day, no leg's
        dated = dated[:event_day.start()] + " " * len(event_day.group(0)) + dated[event_day.end():]
    dates = dates_by_cue(dated, context, CUES, _days_of_month(dated, context, known))
    going, back = dates.get("", []), dates.get("return", [])
    if going:
        fields["departure_date"] = going[0]
        if len(going) > 1 and not back:
            fields["return_date"] = going[1]
    if back:
        fields["return_date"] = back[0]
    _return_after_departure(fields)
    if "return_date" not in fields and isinstance(fields.get("departure_date"), str):
        length = _LENGTH.search(sentence)
        start = try_date(str(fields["departure_date"]))
        if length is not None and start is not None:  # "two weeks starting June 3"
            raw = (length.group("n") or length.group("n2")).lower()
            n = int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]
            days = n * 7 if (length.group("unit") or length.group("unit2")).lower().startswith("week") else n
            fields["return_date"] = (start + timedelta(days=days)).isoformat()
    times = times_by_cue(sentence, context, CUES)
    if times.get(""):
        fields["departure_time"] = times[""][0]
    if times.get("return"):
        fields["return_time"] = times["return"][0]
    status = booking_status(sentence) or ("booked" if _BOOKED_TOO.search(sentence) else None)
    if status == "cancelled" and _REPLACED.search(sentence):
        status = None
    airline = _AIRLINE.search(sentence)
    flight_code = _FLIGHT_CODE.search(sentence)
    code = confirmation_code(sentence) or _recapped_code(sentence, context) or _code_said_later(sentence)
    if code is not None:
        fields["confirmation"] = code
        status = status if status == "cancelled" else "booked"
    if status is None and "departure_date" in fields and (airline is not None or flight_code is not None or (
            _FLIES.search(sentence) is not None and _IF.search(sentence) is None)):
        status = "booked"  # "I'm flying Air France on Monday March 3", "Mr Osei flies to Lagos on the 4th of June"
    if status is not None:
        fields["booking_status"] = status
    if airline is not None:
        fields["carrier"] = _CARRIER[airline.group("name").casefold()]
    elif flight_code is not None:
        fields["carrier"] = _CODES[flight_code.group("code")]
    purpose = purpose_of(sentence)
    if purpose is not None:
        fields["purpose"] = purpose
    if (fields.get("booking_status") or known.get("booking_status")) in ("booked", "planned") and \
            context.timestamp is not None and not _WENT.search(sentence):
        _ahead(sentence, fields, context.timestamp.date())
    if COST.search(sentence) and not _BOUND.search(sentence):
        amounts = recognize(sentence, context.timestamp).amounts_usd
        if amounts:
            fields["cost_usd"] = amounts[0]
    return fields


# the day of the event the trip is for, said right after it: ", which is on the 20th of May", "(on June 3)"
_EVENT_DAY = re.compile(r"\s*(?:,\s*(?:which|that)\s+(?:is|was|'s|’s|falls)\s+(?:on\s+)?|\(\s*(?:on\s+)?)"
                        r"[^,;.()]{3,30}\)?")
# a flight said as fixed, with where to: "flies to Lagos on the 4th", "I'm flying out to Denver" (not "want to
# fly", "would fly"; "Flying out December 2nd" alone says no more than when)
_FLIES = re.compile(r"(?<!to )(?<!would )(?<!could )(?<!might )(?<!should )(?<!can )(?<!may )(?<!'d )(?<!’d )"
                    r"\b(?:flies|fly out|flying(?: out)?)\s+(?:\w+\s+)?(?:to|into)\s+(?-i:[A-Z])", re.I)
# when the booking was made, not when anyone flies: "booked the flights today", "paid for it yesterday"
_BOOKED_ON = re.compile(r"\b(?P<verb>booked|bought|paid for|reserved|purchased|got)"
                        r"(?P<mid>(?:\s+(?!on\b|for\b)[\w']+){0,3}?)"
                        r"\s+(?:today|yesterday|this morning|last night|tonight|just now|earlier)\b", re.I)


# a booking's code said after what it is for: "Booking ref for the Paris flights is XJ7K2P"
_LATER_CODE = re.compile(r"\b(?i:confirmation|booking|reservation|pnr)(?:\s+(?i:ref|reference|number|code|no\.?))?"
                         r"\s+(?i:for|on)\b[^.;:]{1,40}?\s(?i:is|are|was)\s+#?"
                         r"(?P<code>(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,8})\b")


def _code_said_later(sentence: str) -> str | None:
    match = _LATER_CODE.search(sentence)
    return match.group("code") if match is not None else None


def _recapped_code(sentence: str, context: Context) -> str | None:
    if context.speaker != "assistant" or context.topic != DOMAIN:
        return None
    match = _RECAPPED_CODE.match(sentence)
    return match.group("code") if match is not None else None


# booked, said the other way round: "Tickets are bought", "flights paid", "the trip is a go"
_BOOKED_TOO = re.compile(r"\b(?:tickets?|flights?|seats?)\s+(?:are\s+|is\s+|were\s+|was\s+|all\s+)?(?:bought|booked|"
                         r"purchased|paid(?:\s+for)?|sorted|confirmed)\b|\b(?:is|it's|its)\s+a\s+go\b", re.I)
_COUNT = "|".join(["a", "an", "one", *NUMBER_WORDS])
# how long a trip lasts, said with its start: "two weeks starting June 3", "June 3 for ten days"
_LENGTH = re.compile(
    rf"\b(?P<n>\d{{1,2}}|{_COUNT})[- ](?P<unit>weeks?|days?|nights?)\s+(?:starting|from|beginning|leaving|departing)\b|"
    rf"\bfor\s+(?:about\s+)?(?P<n2>\d{{1,2}}|{_COUNT})\s+(?P<unit2>weeks?|days?|nights?)\b", re.I)
def _about_a_passport(context: Context) -> bool:
    """The document talked about is a passport or a visa, which has no confirmation code of its own."""
    last = context.last.get("document")
    return last is not None and (last.kind == "passport" or last.fields.get("kind") in ("passport", "visa"))


# "Booking reference is AT7RB5" after talk of the insurance: still the booking's
_FLIGHT_CODE_WORDS = re.compile(r"\b(?:booking|reservation|record locator|pnr|flight)\b", re.I)
# a day of the month alone: "out the 3rd, back the 17th" (not "Thursday the 3rd", not "the 2nd of August")
_DAY_ONLY = re.compile(
    r"(?<!day )(?<!day, )\b(?:the|on)\s+(?P<dd>\d{1,2})(?:st|nd|rd|th)\b"
    r"(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)", re.I)


def _days_of_month(sentence: str, context: Context, known: dict[str, JsonValue]) -> tuple[tuple[int, str], ...]:
    """(position, ISO date) of each day of the month said alone: on or after the date before
    it in the sentence, else after the trip's known departure, else after the session's day."""
    if context.timestamp is None:
        return ()
    found = dates_and_times_at(sentence, context.timestamp)[0]
    out: list[tuple[int, str]] = list(leading_days(sentence, context))  # "3rd to 10th of June": the 3rd of June
    leading = {start for start, _ in out}
    for match in [*_DAY_ONLY.finditer(spoken_days(sentence)), *SAME_MONTH_END.finditer(sentence)]:
        if match.start("dd") in leading:
            continue
        before = [day for start, day in sorted([*found, *out]) if start < match.start("dd")]
        anchor = try_date(before[-1] if before else str(known.get("departure_date") or "")) or \
            _month_named(sentence[:match.start()], context.timestamp.date()) or \
            _month_named(context.said[-2] if len(context.said) > 1 else "", context.timestamp.date()) or \
            context.timestamp.date()  # "... to Boston in April. Out on the 9th": April's 9th
        day = _on_or_after(anchor, int(match.group("dd")))
        if day is not None:
            out.append((match.start("dd"), day.isoformat()))
    taken = [start for start, _ in [*found, *out]]
    for match in _BARE_WEEKDAY.finditer(sentence):  # "flying to Chicago on Monday": the coming Monday
        if not any(abs(start - match.start("wd")) <= 12 for start in taken):
            before = [day for start, day in sorted([*found, *out]) if start < match.start("wd")]
            since = try_date(before[-1]) if before else context.timestamp.date()
            if since is not None:
                ahead = (_WEEKDAYS.index(match.group("wd").lower()[:3]) - since.weekday()) % 7 or 7
                out.append((match.start("wd"), (since + timedelta(days=ahead)).isoformat()))
    return tuple(sorted(out))


_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# a weekday said alone (not "next Friday", "Mondays", "Monday the 3rd", "Monday March 2"): the next one, after
# the day said before it ("Tuesday the 7th of April, coming home on the Friday", "back the following Monday")
_BARE_WEEKDAY = re.compile(
    r"(?<!next )(?<!last )(?<!this )(?<!coming )(?<!every )\b(?:on|by|until|till|back|out|return\w*|leav\w*|"
    r"fly\w*|depart\w*)\s+(?:the\s+(?:following\s+|next\s+)?)?(?P<wd>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b(?!s)"
    r"(?!,?\s+(?:the\s+)?\d)(?!,?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d)", re.I)


# a month said alone: "for March", "in early June" (not "March 3")
_BARE_MONTH = re.compile(rf"\b(?:in|for|during|over|early|mid|late|end of|start of)\s+(?:early\s+|mid\s+|late\s+)?"
                         rf"(?P<month>{_MONTH})(?!\s*\d)", re.I)


def _month_named(text: str, today: date) -> date | None:
    """The first day of the month `text` names alone, this one or the next one of its name."""
    found = list(_BARE_MONTH.finditer(text))
    if not found:
        return None
    name = found[-1].group("month").lower().rstrip(".")
    month = MONTHS.get(name) or MONTHS.get(name[:3])
    if month is None:
        return None
    first = date(today.year, month, 1)
    return first if (first.year, first.month) >= (today.year, today.month) else first.replace(year=today.year + 1)


def _on_or_after(anchor: date, dd: int) -> date | None:
    """The first day numbered `dd` on or after `anchor` (within two months)."""
    for months in range(3):
        year, month = divmod(anchor.month - 1 + months, 12)
        try:
            day = date(anchor.year + year, month + 1, dd)
        except ValueError:
            continue
        if day >= anchor:
            return day
    return None
_SHIFT = re.compile(
    rf"\b(?:push\w*|mov\w*|extend\w*|delay\w*|postpon\w*|bump\w*|stay\w*|chang\w*)\b[^.;]{{0,40}}?"
    rf"\b(?:by\s+)?(?:exactly\s+|another\s+|an extra\s+)?(?P<n>\d{{1,2}}|{_COUNT})\s+"
    r"(?P<unit>day|week|night)s?\b(?:\s+(?P<way>later|earlier|longer|sooner|back|forward|up))?", re.I)


def _shifted(sentence: str, known: dict[str, JsonValue], fields: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A return (or departure) moved by a stated length ("pushed my return back a week",
    "extended by three days") from the date an earlier sentence gave; {} when the sentence
    gives the new date itself or says no length."""
    if "return_date" in fields or "departure_date" in fields:
        return {}
    match = _SHIFT.search(sentence)
    if match is None:
        return {}
    leg = "return_date" if CUES[0].pattern.search(sentence) or match.group("way") in ("longer", None) and \
        re.search(r"\b(?:stay|extend)", sentence, re.I) else "departure_date" if re.search(
            r"\b(?:departure|outbound|leav\w*)\b", sentence, re.I) else None
    day = try_date(str(known.get(leg or "", "")))
    if leg is None or day is None:
        return {}
    raw = match.group("n").lower()
    n = int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]
    days = n * 7 if match.group("unit").lower() == "week" else n
    if (match.group("way") or "").lower() in ("earlier", "sooner", "forward", "up"):
        days = -days
    return {leg: (day + timedelta(days=days)).isoformat()}


# a bound is no price: "I looked at flights and they were over $1,600"
_BOUND = re.compile(r"\b(?:over|under|more than|less than|at least|upwards of|starting (?:at|from)|from)\s+"
                    r"(?:\$|\d[\d,.]*\s*(?:dollars|bucks|usd)\b)", re.I)


_YEAR_SAID = re.compile(r"\b(?:19|20)\d\d\b|\d{1,2}/\d{1,2}/\d{2,4}")


# a day said as a calendar day ("March 3", "the 3rd", "3/4"), not a relative one ("yesterday")
_CALENDAR_DAY = re.compile(rf"\b{_MONTH}\s+\d|\d(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|\b\d{{1,2}}/\d{{1,2}}\b|"
                           r"\bthe\s+\d{1,2}(?:st|nd|rd|th)\b", re.I)
# travel told as done: its dates are past on purpose ("we flew back on the 3rd")
_WENT = re.compile(r"\b(?:flew|got back|came back|returned|landed|went|arrived|was in|were in)\b", re.I)


def _ahead(sentence: str, fields: dict[str, JsonValue], today: date) -> None:
    """A trip booked or planned is ahead: a year-less departure read as past ("Booked Paris
    Dec 20", said in February) is next year's, and its return with it; a departure read as
    past before a return ahead ("September 25 to October 5, 2026") is the return's year's;
    a past day said only relatively ("booked it yesterday") is when it was booked, no leg's."""
    going = try_date(str(fields.get("departure_date", "")))
    if going is None or going >= today:
        return
    back = try_date(str(fields.get("return_date", "")))
    if not _CALENDAR_DAY.search(sentence):
        for name in ("departure_date", "return_date"):
            if str(fields.get(name, "9999")) < today.isoformat():
                del fields[name]
        return
    if back is not None and back >= today:
        while (later := _next_year(going)) <= back:
            going = later
        fields["departure_date"] = going.isoformat()
        return
    if _YEAR_SAID.search(sentence):
        return
    for name in ("departure_date", "return_date"):
        day = try_date(str(fields.get(name, "")))
        if day is not None:
            fields[name] = (day.replace(year=day.year + 1) if (day.month, day.day) != (2, 29)
                            else day.replace(year=day.year + 1, day=28)).isoformat()


def _next_year(day: date) -> date:
    return day.replace(year=day.year + 1) if (day.month, day.day) != (2, 29) else day.replace(year=day.year + 1, day=28)


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

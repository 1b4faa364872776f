"""Built-in constraints over trips and the country table: the Schengen 90/180-day rule,
travel insurance that ends before a trip does, a visa that does not cover a trip to its
country, and someone else's passport too short for their trip."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from constraints.conversation_fields import is_going, is_users
from constraints.model import Finding, MissingInput, constraint
from constraints.phrases import days_words
from constraints.places import country_key, home_of, is_international, required_validity, trip_country
from constraints.records import fold, person_of
from constraints.views import DocumentRecord, PassportRecord, TripRecord, read_all, read_present, reads, require
from factlog.reference.countries import country_of_place, schengen_rule

SCHENGEN_HORIZON_DAYS = 3 * 366  # how far ahead stays are counted


@dataclass(frozen=True)
class _Stay:
    start: date
    end: date
    trip: TripRecord


def _trip_words(stay: _Stay) -> str:
    place = stay.trip.destination or stay.trip.country or "the Schengen area"
    return f"{place} ({stay.start} – {stay.end})" if stay.end != stay.start else f"{place} ({stay.start})"


def _free_to_move(passport: PassportRecord | None) -> bool:
    """A passport of an EU or Schengen country: the short-stay limit does not apply."""
    country = None if passport is None or passport.country is None else country_of_place(passport.country)
    return country is not None and (country.eu or country.schengen)


def _passport(module: object) -> PassportRecord | None:
    found = read_present(module, PassportRecord)
    return found[0] if found else None


@constraint(name="schengen_90_180", needs=(TripRecord.ATTRIBUTE,),
            reads=(TripRecord.ATTRIBUTE, PassportRecord.ATTRIBUTE), clock="date",
            fields=dict([reads(TripRecord, "departure_date")]))
def schengen_90_180(module: object, now: datetime) -> Iterator[Finding]:
    """Stays in Schengen countries adding up to more than 90 days in some 180-day period that
    ends today or later (entry and exit days count; for a passport from outside the EU and
    the Schengen area). One alert, for the first such day, naming the stays counted. Only
    the user's trips that go ahead count (not someone else's, not planned or cancelled)."""
    trips = read_all(module, TripRecord)
    require(trips, "trip", "departure_date")
    if trips and not any(t.has("country") or t.has("destination") for t in trips):
        raise MissingInput("trip records have neither 'country' nor 'destination'")
    if _free_to_move(_passport(module)):
        return
    rule = schengen_rule()
    today = now.date()
    first, last = today - timedelta(days=rule.window_days - 1), today + timedelta(days=SCHENGEN_HORIZON_DAYS)
    stays = []
    for trip in trips:
        departure = trip.departure_date
        if departure is None or departure > last or not (is_users(trip) and is_going(trip)):
            continue
        end = max(trip.return_date or departure, departure)
        if end < first:
            continue
        country = trip_country(trip)
        if country is not None and country.schengen:
            stays.append(_Stay(max(departure, first), min(end, last), trip))
    over = _first_day_over(stays, today, rule.days, rule.window_days)
    if over is None:
        return
    window_start = over - timedelta(days=rule.window_days - 1)
    counted = sorted((s for s in stays if s.start <= over and s.end >= window_start),
                     key=lambda s: (s.start, s.end))
    named = ", ".join(map(_trip_words, counted))
    message = (
        f"Schengen stays exceed {rule.days} days in {rule.window_days}: day {rule.days + 1} falls on {over} "
        f"(counting {window_start} – {over}): {named}"
    )
    due = max((s.start for s in counted if s.start <= over), default=over)
    yield Finding("critical", message, tuple(s.trip.source for s in counted), due=due)


def _first_day_over(stays: list[_Stay], today: date, limit: int, window: int) -> date | None:
    """The first day from today on whose `window` days (itself included) hold more than
    `limit` days of stays; overlapping stays count a day once."""
    days = sorted({s.start + timedelta(days=n) for s in stays for n in range((s.end - s.start).days + 1)})
    low = 0
    for high, day in enumerate(days):
        while days[low] <= day - timedelta(days=window):
            low += 1
        if high - low + 1 > limit and day >= today:
            return day
    return None


# --- insurance ----------------------------------------------------------------------------

NOT_TRAVEL = ("car", "auto", "vehicle", "home", "renter", "life", "pet", "property", "dental")


def is_travel_insurance(kind: str | None) -> bool:
    """A document kind naming insurance that can cover a trip (not car, home, life ...)."""
    folded = fold(kind)
    return folded is not None and "insurance" in folded and not any(word in folded for word in NOT_TRAVEL)


@dataclass(frozen=True)
class _Policy:
    start: date | None
    end: date
    document: DocumentRecord


def _policy_words(policy: _Policy) -> str:
    number = policy.document.number
    kind = policy.document.kind or "insurance"
    return f"your {kind} {number}" if number else f"your {kind}"


@constraint(name="insurance_covers_trip", needs=(DocumentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE),
            reads=(DocumentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE, PassportRecord.ATTRIBUTE), clock="date",
            per_record=TripRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "kind", "expiry_date"), reads(TripRecord, "departure_date")]))
def insurance_covers_trip(module: object, now: datetime) -> Iterator[Finding]:
    """An upcoming international trip that the user's insurance (documents of kind
    "insurance") covers only in part: a policy in force during the trip ends before its
    return (or starts after its departure), and no other policy covers the whole trip. Only
    the user's trips that go ahead, and the user's own policies, count."""
    documents = read_all(module, DocumentRecord)
    require(documents, "document", "kind", "expiry_date")
    policies = []
    for document in documents:
        end = document.expiry_date
        if is_travel_insurance(document.kind) and end is not None and not person_of(document.holder) \
                and is_users(document):
            policies.append(_Policy(document.start_date, end, document))
    trips = read_all(module, TripRecord)
    require(trips, "trip", "departure_date")
    if not policies:
        return
    home = home_of(_passport(module))
    today = now.date()
    for trip in trips:
        departure = trip.departure_date
        if departure is None or not (is_users(trip) and is_going(trip)):
            continue
        back = max(trip.return_date or departure, departure)
        if back < today or not is_international(trip, home, trip_country(trip)):
            continue
        overlapping = [p for p in policies if p.end >= departure and (p.start is None or p.start <= back)]
        if not overlapping or any(p.start is None or p.start <= departure for p in overlapping if p.end >= back):
            continue
        policy = max(overlapping, key=lambda p: (p.end, -(p.start or departure).toordinal()))
        yield Finding("warning", _gap_words(policy, trip, departure, back), (policy.document.source, trip.source),
                      due=departure)


def _gap_words(policy: _Policy, trip: TripRecord, departure: date, back: date) -> str:
    place = trip.destination or trip.country or "international"
    what = _policy_words(policy)
    if policy.start is not None and policy.start > departure:
        late = (policy.start - departure).days
        return (f"{what} starts {policy.start}, {days_words(late)} after your {place} departure ({departure}): "
                f"the first {days_words(late)} of the trip are not covered")
    short = (back - policy.end).days
    return (f"{what} ends {policy.end}, {days_words(short)} before your {place} return ({back}): "
            f"the last {days_words(short)} of the trip are not covered")



# --- visas --------------------------------------------------------------------------------


def _visa_country(document: DocumentRecord) -> str | None:
    """The visa's country for comparison ("schengen area" for a Schengen visa), or None."""
    name = fold(document.country)
    if name is None:
        return None
    return "schengen area" if "schengen" in name else country_key(document.country)


@constraint(name="visa_covers_trip", needs=(DocumentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE),
            reads=(DocumentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE), clock="date",
            per_record=TripRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "kind", "country", "expiry_date"),
                         reads(TripRecord, "departure_date")]))
def visa_covers_trip(module: object, now: datetime) -> Iterator[Finding]:
    """An upcoming trip to a country the user holds a visa for (a document of kind "visa"
    with that `country`; a Schengen visa for any Schengen country) that the visa does not
    cover: it ends before the return or starts after the departure, and no other visa for
    that country covers the whole trip (critical). Only the user's trips that go ahead and
    the user's own visas count; a trip to a country with no visa on record is not judged."""
    documents = read_all(module, DocumentRecord)
    require(documents, "document", "kind", "expiry_date")
    visas = [d for d in documents if fold(d.kind) == "visa" and d.expiry_date is not None
             and not person_of(d.holder) and is_users(d) and _visa_country(d) is not None]
    trips = read_all(module, TripRecord)
    require(trips, "trip", "departure_date")
    today = now.date()
    for trip in trips:
        departure = trip.departure_date
        if departure is None or not visas or not (is_users(trip) and is_going(trip)):
            continue
        back = max(trip.return_date or departure, departure)
        country = trip_country(trip)
        if back < today or country is None:
            continue
        names = {country.name.casefold(), *(("schengen area",) if country.schengen else ())}
        held = [v for v in visas if _visa_country(v) in names]
        if not held or any((v.start_date is None or v.start_date <= departure) and v.expiry_date is not None
                           and v.expiry_date >= back for v in held):
            continue
        visa = max(held, key=lambda v: (v.expiry_date or departure, -(v.start_date or departure).toordinal()))
        yield Finding("critical", _visa_words(visa, trip, departure, back), (visa.source, trip.source),
                      due=departure)


def _visa_words(visa: DocumentRecord, trip: TripRecord, departure: date, back: date) -> str:
    place = trip.destination or trip.country or "the trip"
    what = f"your {visa.country} visa" + (f" {visa.number}" if visa.number else "")
    start, end = visa.start_date, visa.expiry_date
    if start is not None and start > departure:
        late = (start - departure).days
        return (f"{what} starts {start}, {days_words(late)} after your {place} departure ({departure}): "
                f"entry before then is not covered")
    assert end is not None
    short = (back - end).days
    return (f"{what} ends {end}, {days_words(short)} before your {place} return ({back}); "
            f"leave by {end} or extend the visa")


# --- other people's passports ----------------------------------------------------------------


@constraint(name="others_passports_for_trips", needs=(DocumentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE),
            reads=(DocumentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE, PassportRecord.ATTRIBUTE), clock="date",
            per_record=TripRecord.ATTRIBUTE,
            fields=dict([reads(DocumentRecord, "kind", "holder", "expiry_date"),
                         reads(TripRecord, "departure_date")]))
def others_passports_for_trips(module: object, now: datetime) -> Iterator[Finding]:
    """Someone else's passport (a document of kind "passport" with a `holder`) that does not
    last through an upcoming international trip of theirs (a trip whose `subject` is the
    holder, or the relation it is about: `subject` "son" for Daniel's), or not as long as the
    country requires (the bundled table): critical."""
    documents = read_all(module, DocumentRecord)
    require(documents, "document", "kind", "expiry_date")
    passports = {who: d for d in documents
                 if fold(d.kind) == "passport" and person_of(d.holder) and d.expiry_date is not None
                 for who in {person_of(d.holder), person_of(d.subject)} if who}  # "Daniel", or "son"
    trips = read_all(module, TripRecord)
    require(trips, "trip", "departure_date")
    if not passports:
        return
    home = home_of(_passport(module))
    today = now.date()
    for trip in trips:
        passport = passports.get(person_of(trip.subject))
        departure = trip.departure_date
        if passport is None or departure is None or not is_going(trip):
            continue
        back = max(trip.return_date or departure, departure)
        country = trip_country(trip)
        expiry = passport.expiry_date
        own = country_key(passport.country) if passport.country else home  # "her Irish passport": Ireland's
        if back < today or expiry is None or not is_international(trip, own, country):
            continue
        who, place = passport.holder, trip.destination or trip.country or "international"
        if expiry < back:
            leg, when = ("departure", departure) if expiry < departure else ("return", back)
            yield Finding("critical", f"{who}'s passport expires {expiry}, {days_words((when - expiry).days)} "
                          f"before {who}'s {place} {leg} ({when})", (passport.source, trip.source), due=departure)
            continue
        required = None if country is None else required_validity(country, departure, back)
        if required is not None and expiry < required.until:
            yield Finding("critical", f"{who}'s passport expires {expiry}; for {who}'s {place} trip "
                          f"({departure} – {back}) {required.country.name} requires {required.rule}, to "
                          f"{required.until}: {days_words((required.until - expiry).days)} short",
                          (passport.source, trip.source), due=departure)

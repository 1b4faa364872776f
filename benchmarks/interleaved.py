"""A seeded, interleaved user log: facts as `uac add` produces them over time.

    .venv/bin/python benchmarks/interleaved.py --facts 100000 [--seed 9] [--home DIR --user U] [--stats]

Facts of eleven kinds arrive mixed in one stream, the way a person's assistant adds them day
by day: expenses, flights, trips, contacts, appointments, medications, subscriptions,
documents, kind-less free-text notes, and the singular profile and passport. A share of the
keyed facts update an entity seen before (same kind and key; the later fact restates some
fields: a new seat, a corrected amount, a cancelled subscription, a field cleared with
null), about 1 % retract an earlier fact, and values are dates, datetimes, amounts, strings
and booleans.

The simulated calendar never runs past `END`, a fixed date (no wall clock): the fact at
position p is written on day 6·√p after `START` (`day_of`), and `START` is 6,000 days before
`END`, so the millionth fact is written on `END` (a log beyond that keeps writing on `END`).
More facts arrive per day as the log grows (16 a day at 10,000 facts, 330 at 1,000,000).
What a fact schedules lies at most `LOOKAHEAD` days after the day it is written (trips,
flights, appointments, renewals, document expiries; a new passport is valid 10 years), so
only the last months of a million-fact log reach past `END`: about 1 % of the dated
values, the upcoming trips, flights and appointments of a busy user.

The stream is a pure function of the seed and the position: `InterleavedLog(seed).take(n)`
twice with the same seed gives equal facts, and `take(a)` then `take(b)` equals `take(a + b)`.
Retractions name fact ids, assuming the user's log holds only this stream, from fact
`first_id` on (1 for a new user); `load` checks that as it appends.

`load(memory, user, count)` writes the stream through the fact log's batch append
(`Memory.facts.append`, one transaction and one fsync per batch), which is what makes a
million facts feasible.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence, TypeVar

from factlog.model import JsonValue, NewFact

if TYPE_CHECKING:
    from runtime.memory import Memory

T = TypeVar("T")
END = date(2026, 11, 30)  # the stream's "today": no fact is written after it
LAST_DAY = 6_000  # the day offset of END, reached at position 1,000,000 (6·√1,000,000)
START = END - timedelta(days=LAST_DAY)
LOOKAHEAD = 366  # the furthest a fact schedules something after its day (a passport's 10 years apart)
PASSPORT_YEARS_DAYS = 3652
_DAYS = [(START + timedelta(days=i)).isoformat() for i in range(LAST_DAY + LOOKAHEAD + 1)]  # ISO text by day offset

CITIES = (("Tokyo", "Japan"), ("Paris", "France"), ("Lima", "Peru"), ("Nairobi", "Kenya"),
          ("Toronto", "Canada"), ("Rome", "Italy"), ("Santiago", "Chile"), ("Delhi", "India"),
          ("Berlin", "Germany"), ("Lisbon", "Portugal"), ("Boston", "USA"), ("Denver", "USA"),
          ("Austin", "USA"), ("Seattle", "USA"), ("Oslo", "Norway"), ("Seoul", "South Korea"),
          ("Cairo", "Egypt"), ("Hanoi", "Vietnam"), ("Madrid", "Spain"), ("Dublin", "Ireland"))
HOME = "USA"
PAYEES = ("Blue Bottle", "Whole Foods", "Shell", "Amazon", "Uber", "Lyft", "Target", "Costco",
          "Trader Joe's", "CVS", "Walgreens", "Home Depot", "IKEA", "Delta", "Hilton", "Airbnb",
          "Chipotle", "Starbucks", "Apple", "REI", "Local Diner", "Farmers Market", "Parking SF")
CATEGORIES = ("food", "groceries", "transport", "travel", "health", "home", "shopping", "fun")
CARRIERS = (("UA", "United"), ("DL", "Delta"), ("AA", "American"), ("LH", "Lufthansa"),
            ("AF", "Air France"), ("JL", "JAL"), ("BA", "British Airways"), ("AC", "Air Canada"))
AIRPORTS = ("SFO", "JFK", "BOS", "SEA", "DEN", "AUS", "NRT", "CDG", "LIM", "NBO", "YYZ", "FCO",
            "SCL", "DEL", "BER", "LIS", "ICN", "CAI", "HAN", "MAD", "DUB", "OSL")
FIRST = ("Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jo", "Kofi",
         "Lena", "Mateo", "Nina", "Omar", "Priya", "Quinn", "Rosa", "Sam", "Tariq", "Uma", "Vera")
LAST = ("Silva", "Okafor", "Nguyen", "Smith", "Kowalski", "Haddad", "Ito", "Garcia", "Müller",
        "Rossi", "Dubois", "Kim", "Patel", "Olsen", "Byrne", "Moreau", "Santos", "Novak")
RELATIONS = ("friend", "colleague", "family", "doctor", "neighbour", "client", "plumber")
PEOPLE = ("me", "me", "me", "partner", "daughter", "son", "mother")
DRUGS = (("amoxicillin", "penicillin"), ("ibuprofen", "nsaid"), ("lisinopril", "ace inhibitor"),
         ("metformin", "biguanide"), ("atorvastatin", "statin"), ("sertraline", "ssri"),
         ("cetirizine", "antihistamine"), ("omeprazole", "ppi"), ("levothyroxine", "thyroid"))
PROVIDERS = ("Dr. Lee", "Dr. Moreno", "City Dental", "Vision Center", "Dr. Adeyemi", "Physio Plus",
             "Dr. Schmidt", "Dermatology Clinic", "Vet: Happy Paws", "Hair Studio")
SERVICES = ("Netflix", "Spotify", "iCloud", "NYT", "Gym", "Dropbox", "Duolingo", "Hulu",
            "Audible", "Patreon", "GitHub", "Notion", "Disney+", "Headspace", "Xbox Game Pass")
CYCLES = ("monthly", "monthly", "monthly", "yearly")
DOC_KINDS = ("driver license", "insurance card", "visa", "lease", "warranty", "tax return", "id card")
NOTE_TEMPLATES = (
    "I prefer {a} seats on flights longer than {n} hours.",
    "Remember to call {p} about the {t}.",
    "{p} recommended {c} for a weekend trip.",
    "My {t} password hint is the name of my first {x}.",
    "Don't book {c} in {m}; too crowded last time.",
    "Gate code for the {t} building is changing next {m}.",
    "I'm allergic to {x}, mildly.",
    "Pick up {x} from {c} on the way home.",
    "{p} owes me {n}0 dollars for the {t}.",
    "Idea: a {t} app that tracks {x}.",
)
NOTE_WORDS = {"a": ("aisle", "window", "exit-row"), "t": ("dentist", "lease", "car", "garden", "tax", "office",
                                                          "wedding", "bike"),
              "x": ("pet", "shellfish", "peanuts", "dry cleaning", "plants", "receipts", "books"),
              "m": ("January", "March", "May", "July", "August", "October", "December")}
MONTHS = NOTE_WORDS["m"]

# (kind, share of arrivals, share of its keyed arrivals that update an entity seen before)
KINDS: tuple[tuple[str, float, float], ...] = (
    ("note", 0.22, 0.0),
    ("expense", 0.24, 0.10),
    ("flight", 0.09, 0.35),
    ("trip", 0.07, 0.30),
    ("contact", 0.08, 0.25),
    ("appointment", 0.08, 0.30),
    ("medication", 0.04, 0.30),
    ("subscription", 0.05, 0.40),
    ("document", 0.03, 0.20),
    ("retraction", 0.01, 0.0),
    ("profile", 0.003, 1.0),
    ("passport", 0.001, 1.0),
)
RECENT = 2_000  # retractions and most updates reach this far back

# A fact before `NewFact` checks it: (text, kind, key, fields, valid_from, retracts).
Draft = tuple[str, "str | None", "str | None", "dict[str, JsonValue] | None", "date | None", "int | None"]


def _draft(text: str, *, kind: str | None = None, key: str | None = None, fields: dict[str, JsonValue] | None = None,
           valid_from: date | None = None, retracts: int | None = None) -> Draft:
    return (text, kind, key, fields, valid_from, retracts)


def as_fact(draft: Draft) -> NewFact:
    text, kind, key, fields, valid_from, retracts = draft
    return NewFact(text, kind=kind, key=key, fields=fields or {}, valid_from=valid_from, retracts=retracts)


def day_of(position: int) -> int:
    """The simulated day (offset from START) the fact at 0-based `position` is written on:
    6·√position (600 at 10,000 facts, 6,000 = END at 1,000,000), never past END."""
    return min(int(6 * math.sqrt(position)), LAST_DAY)


@dataclass
class InterleavedLog:
    """The stream's state: what exists (to update or retract) and where it stands."""

    seed: int = 9
    first_id: int = 1  # the id the user's log gives this stream's first fact
    position: int = 0  # facts generated so far
    keys: dict[str, list[str]] = field(default_factory=dict)  # kind -> keys in creation order
    retracted: set[int] = field(default_factory=set)  # ids retracted or retracting
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._rnd = self._rng.random  # only random() draws: the stream is the same on every Python
        self._weights: list[float] = []
        total = 0.0
        for _, share, _ in KINDS:
            total += share
            self._weights.append(total)
        self._makers: dict[str, Callable[[int, str | None], Draft]] = {
            "expense": self._expense, "flight": self._flight, "trip": self._trip,
            "contact": self._contact, "appointment": self._appointment, "medication": self._medication,
            "subscription": self._subscription, "document": self._document,
            "profile": self._profile, "passport": self._passport,
        }

    def _pick(self, items: Sequence[T]) -> T:
        return items[int(self._rnd() * len(items))]

    def _below(self, a: int, b: int | None = None) -> int:
        """A whole number in [a, b), or in [0, a)."""
        return int(self._rnd() * a) if b is None else a + int(self._rnd() * (b - a))

    # -- the stream ----------------------------------------------------------------------

    def take(self, count: int) -> list[NewFact]:
        """The next `count` facts of the stream."""
        return [as_fact(self.next_draft()) for _ in range(count)]

    def drafts(self, count: int) -> list[Draft]:
        """The next `count` facts as drafts (what `take` gives, before `NewFact` checks them)."""
        return [self.next_draft() for _ in range(count)]

    def next_draft(self) -> Draft:
        rnd = self._rnd
        day = day_of(self.position)
        fid = self.first_id + self.position
        self.position += 1
        roll = rnd() * self._weights[-1]
        index = 0
        while self._weights[index] < roll:
            index += 1
        kind, _, update_share = KINDS[index]
        if kind == "note":
            return self._note(day)
        if kind == "retraction":
            target = self._retractable(fid)
            if target is not None:
                self.retracted.update((target, fid))
                return _draft(f"Retracts fact {target}: entered by mistake", retracts=target)
            kind, update_share = "expense", 0.1
        existing = self.keys.setdefault(kind, [])
        key = None
        if existing and rnd() < update_share:
            key = existing[self._recent_index(len(existing))]
        return self._makers[kind](day, key)

    def _recent_index(self, n: int) -> int:
        """Mostly a recent entity (exponential over the last ones), sometimes any."""
        rnd, below = self._rnd, self._below
        if rnd() < 0.25:
            return below(n)
        return max(0, n - 1 - int(-40 * math.log(1.0 - rnd())))

    def _retractable(self, fid: int) -> int | None:
        for _ in range(4):
            target = self._below(max(self.first_id, fid - RECENT), fid) if fid > self.first_id else None
            if target is not None and target not in self.retracted:
                return target
        return None

    def _new_key(self, kind: str, key: str) -> str:
        self.keys[kind].append(key)
        return key

    # -- the kinds -----------------------------------------------------------------------

    def _note(self, day: int) -> Draft:
        rnd, pick, below = self._rnd, self._pick, self._below
        template = NOTE_TEMPLATES[below(len(NOTE_TEMPLATES))]
        text = template.format(
            a=pick(NOTE_WORDS["a"]), t=pick(NOTE_WORDS["t"]), x=pick(NOTE_WORDS["x"]),
            m=pick(MONTHS), n=below(2, 12), c=pick(CITIES)[0],
            p=f"{pick(FIRST)} {pick(LAST)}")
        if rnd() < 0.3:
            return _draft(text, valid_from=START + timedelta(days=day))
        return _draft(text)

    def _expense(self, day: int, key: str | None) -> Draft:
        rnd, pick, below = self._rnd, self._pick, self._below
        amount = round(self._rng.lognormvariate(3.2, 1.0), 2)
        if key is not None:  # a correction: the amount, sometimes the category or reimbursable
            fields: dict[str, JsonValue] = {"amount_usd": amount}
            if rnd() < 0.3:
                fields["category"] = pick(CATEGORIES)
            if rnd() < 0.2:
                fields["reimbursable"] = rnd() < 0.5
            return _draft(f"Correction: expense {key} was {amount:.2f} USD", kind="expense", key=key, fields=fields)
        key = self._new_key("expense", f"exp-{self.position:07d}")
        payee = pick(PAYEES)
        return _draft(f"Spent {amount:.2f} USD at {payee}", kind="expense", key=key, fields={
            "payee": payee, "amount_usd": amount, "category": pick(CATEGORIES),
            "spent_on": _DAYS[max(0, day - below(3))], "reimbursable": rnd() < 0.15})

    def _flight(self, day: int, key: str | None) -> Draft:
        rnd, pick, below = self._rnd, self._pick, self._below
        if key is not None:  # seat change, check-in, or a reschedule
            roll = rnd()
            if roll < 0.4:
                seat = f"{below(1, 40)}{'ABCDEF'[below(6)]}"
                return _draft(f"Seat on {key} changed to {seat}", kind="flight", key=key, fields={"seat": seat})
            if roll < 0.75:
                return _draft(f"Checked in for {key}", kind="flight", key=key, fields={"checked_in": True})
            when = _DAYS[day + below(1, 90)]
            return _draft(f"{key} rescheduled to {when}", kind="flight", key=key,
                           fields={"departure_date": when, "checked_in": False, "seat": None})
        code, carrier = pick(CARRIERS)
        number = f"{code}{below(10, 9999)}"
        key = self._new_key("flight", f"{number}-{self.position}")
        origin = below(len(AIRPORTS))
        origin, dest = AIRPORTS[origin], AIRPORTS[(origin + below(1, len(AIRPORTS))) % len(AIRPORTS)]
        when = _DAYS[day + below(3, 150)]
        return _draft(f"Booked {carrier} {number} {origin}->{dest} on {when}", kind="flight", key=key, fields={
            "carrier": carrier, "flight_number": number, "origin": origin, "destination": dest,
            "departure_date": when, "cost_usd": round(80 + 1720 * rnd(), 2), "checked_in": False,
            "seat": f"{below(1, 40)}{'ABCDEF'[below(6)]}"})

    def _trip(self, day: int, key: str | None) -> Draft:
        rnd, pick, below = self._rnd, self._pick, self._below
        if key is not None:
            fields: dict[str, JsonValue] = {"cost_usd": round(300 + 8700 * rnd(), 2)}
            if rnd() < 0.4:
                fields["return_date"] = _DAYS[day + below(10, 200)]
            if rnd() < 0.2:
                fields["purpose"] = pick(("work", "family", "holiday", "conference"))
            return _draft(f"Trip {key} updated", kind="trip", key=key, fields=fields)
        city, country = pick(CITIES)
        key = self._new_key("trip", f"trip-{self.position:07d}")
        leave = day + below(7, 180)
        return _draft(f"Planning a trip to {city}", kind="trip", key=key, fields={
            "destination": city, "country": country, "purpose": pick(("work", "family", "holiday")),
            "departure_date": _DAYS[leave], "return_date": _DAYS[leave + below(2, 21)],
            "is_international": country != HOME, "cost_usd": round(300 + 8700 * rnd(), 2)})

    def _contact(self, day: int, key: str | None) -> Draft:
        rnd, pick, below = self._rnd, self._pick, self._below
        phone = f"+1-555-{below(10000):04d}"
        if key is not None:
            fields: dict[str, JsonValue] = {"phone": phone} if rnd() < 0.6 else {"city": pick(CITIES)[0]}
            return _draft(f"{key} has a new {next(iter(fields))}", kind="contact", key=key, fields=fields)
        first, last = pick(FIRST), pick(LAST)
        key = self._new_key("contact", f"{first.lower()}.{last.lower()}.{self.position}@example.com")
        return _draft(f"{first} {last} is my {pick(RELATIONS)}", kind="contact", key=key, fields={
            "name": f"{first} {last}", "email": key, "phone": phone, "relationship": pick(RELATIONS),
            "city": pick(CITIES)[0], "favorite": rnd() < 0.1})

    def _appointment(self, day: int, key: str | None) -> Draft:
        rnd, pick, below = self._rnd, self._pick, self._below
        start_day = day + below(1, 60)
        hour = below(8, 18)
        start, end = f"{_DAYS[start_day]}T{hour:02d}:{pick(('00', '30'))}:00", f"{_DAYS[start_day]}T{hour + 1:02d}:00:00"
        if key is not None:
            if rnd() < 0.25:
                return _draft(f"Appointment {key} cancelled", kind="appointment", key=key, fields={"cancelled": True})
            return _draft(f"Appointment {key} moved to {start}", kind="appointment", key=key,
                           fields={"start": start, "end": end})
        provider = pick(PROVIDERS)
        key = self._new_key("appointment", f"appt-{self.position:07d}")
        return _draft(f"Appointment with {provider} on {start}", kind="appointment", key=key, fields={
            "provider": provider, "location": pick(CITIES)[0], "person": pick(PEOPLE),
            "start": start, "end": end, "cancelled": False})

    def _medication(self, day: int, key: str | None) -> Draft:
        rnd, pick = self._rnd, self._pick
        dose = f"{pick((5, 10, 20, 25, 50, 100, 250, 500))} mg"
        if key is not None:
            if rnd() < 0.5:
                return _draft(f"{key}: dose now {dose}", kind="medication", key=key, fields={"dose": dose})
            return _draft(f"{key}: stopping", kind="medication", key=key, fields={"end_date": _DAYS[day]})
        name, drug_class = pick(DRUGS)
        person = pick(PEOPLE)
        key = self._new_key("medication", f"{name}-{person}-{self.position}")
        return _draft(f"{person} takes {name} {dose}", kind="medication", key=key, fields={
            "name": name, "drug_class": drug_class, "dose": dose, "person": person,
            "start_date": _DAYS[day], "end_date": None})

    def _subscription(self, day: int, key: str | None) -> Draft:
        rnd, pick, below = self._rnd, self._pick, self._below
        amount = round(pick((4.99, 9.99, 11.99, 14.99, 19.99, 99.0, 119.0)), 2)
        if key is not None:
            if rnd() < 0.4:
                return _draft(f"Cancelled {key}", kind="subscription", key=key, fields={"active": False})
            return _draft(f"{key} now costs {amount}", kind="subscription", key=key,
                           fields={"amount_usd": amount, "renews_on": _DAYS[day + below(1, 365)]})
        service = pick(SERVICES)
        key = self._new_key("subscription", f"{service.lower()}-{self.position}")
        return _draft(f"Subscribed to {service}", kind="subscription", key=key, fields={
            "service": service, "amount_usd": amount, "billing_cycle": pick(CYCLES),
            "renews_on": _DAYS[day + below(1, 365)], "active": True})

    def _document(self, day: int, key: str | None) -> Draft:
        pick, below = self._pick, self._below
        expiry = _DAYS[day + below(30, 360)]
        if key is not None:
            return _draft(f"{key} renewed until {expiry}", kind="document", key=key, fields={"expiry_date": expiry})
        doc = pick(DOC_KINDS)
        key = self._new_key("document", f"doc-{self.position:07d}")
        return _draft(f"My {doc} expires {expiry}", kind="document", key=key, fields={
            "kind": doc, "number": f"{below(10**8):08d}X", "holder": pick(PEOPLE), "expiry_date": expiry})

    def _profile(self, day: int, key: str | None) -> Draft:
        pick, below = self._pick, self._below
        city = pick(CITIES)[0]
        fields: dict[str, JsonValue] = {"home_city": city, "employer": f"{pick(LAST)} & Co",
                                        "phone": f"+1-555-{below(10000):04d}"}
        if not self.keys.get("profile"):
            self.keys["profile"] = ["me"]
            fields.update(full_name="Alex Rivera", email="alex@example.com", birth_date="1987-04-12")
        return _draft(f"I live in {city} now", kind="profile", fields=fields)

    def _passport(self, day: int, key: str | None) -> Draft:
        below = self._below
        self.keys["passport"] = ["me"]
        issued = _DAYS[day]
        expiry = (START + timedelta(days=day + PASSPORT_YEARS_DAYS)).isoformat()
        return _draft(f"New passport issued {issued}", kind="passport", fields={
            "number": f"P{below(10**8):08d}", "country": HOME, "issue_date": issued, "expiry_date": expiry})


def load(memory: Memory, user: str, count: int, log: InterleavedLog | None = None, *,
         batch: int = 10_000, progress: Callable[[int], None] | None = None) -> InterleavedLog:
    """Append `count` facts of the stream (a new one with seed 9 unless given) to `user`
    through the batch append, `batch` facts per transaction; returns the stream to continue.
    Checks that the ids the log gave are the ones the stream assumed."""
    log = InterleavedLog(first_id=memory.facts.head(user) + 1) if log is None else log
    done = 0
    while done < count:
        expected = log.first_id + log.position
        stored = memory.facts.append(user, log.take(min(batch, count - done)))
        if stored[0].id != expected:
            raise RuntimeError(f"user {user!r}: the stream expected fact id {expected}, the log gave {stored[0].id}"
                               " (a log of this user must hold only this stream)")
        done += len(stored)
        if progress is not None:
            progress(done)
    return log


def stats(drafts: list[Draft]) -> dict[str, int]:
    """Arrivals by kind, and how many update an entity or retract a fact."""
    counts: Counter[str] = Counter()
    seen: set[tuple[str, str | None]] = set()
    for text, kind, key, _, _, retracts in drafts:
        if retracts is not None:
            counts["(retraction)"] += 1
            continue
        counts[kind or "(note)"] += 1
        if kind is not None:
            if (kind, key) in seen:
                counts["(update)"] += 1
            seen.add((kind, key))
    return dict(counts.most_common())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--home", type=Path, help="write the facts to this workspace (else only generate)")
    parser.add_argument("--user", default="bench")
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--stats", action="store_true", help="print arrivals by kind, updates and retractions")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.home is None:
        drafts = InterleavedLog(args.seed).drafts(args.facts)
        print(f"generated {len(drafts):,} facts in {time.perf_counter() - start:.2f} s (drafts; "
              "`NewFact` checks them as they are appended)")
        if args.stats:
            for name, n in stats(drafts).items():
                print(f"  {name:<14} {n:>9,}  {100 * n / len(drafts):5.1f} %")
        return
    from runtime.memory import Memory

    memory = Memory.open(args.home)
    try:
        stream = InterleavedLog(args.seed, first_id=memory.facts.head(args.user) + 1)
        load(memory, args.user, args.facts, stream, batch=args.batch)
    finally:
        memory.close()
    print(f"appended {args.facts:,} facts for {args.user!r} in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()

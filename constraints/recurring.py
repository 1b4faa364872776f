"""The `recurring_conflicts` constraint: a dated event, appointment or flight of the user's
that falls on an occurrence of one of the user's weekly events.

A weekly event (`recurrence` "weekly", a `weekday`, `start_time` and `end_time` as HH:MM;
`start` and `end` optionally bound the weeks it runs) occurs on every such weekday from
today on. An occurrence is skipped when an event with the same title (case-folded) and
`status` "cancelled" is on that day ("no standup next Tuesday").

- A dated event or appointment (not weekly, not cancelled) clashes when its time overlaps
  the occurrence's (an item without an end lasts `DEFAULT_MINUTES`; one with only a day
  and no time of day is not compared).
- A booked flight (a trip going ahead with `departure_date` and `departure_time`) clashes
  when the user must be at the airport (`AIRPORT_HOURS` before departure) before the
  occurrence ends and is still in the air (`FLIGHT_HOURS` after departure) after it starts.

Only the user's own schedule is compared (records whose `person` / `subject` name the
user or no one): a relative's calendar is theirs to manage. Severity warning; the message
states the two times compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, time, timedelta

from constraints.conversation_fields import is_going, is_users
from constraints.model import Finding, MissingInput, constraint
from constraints.records import fold, person_of
from constraints.views import AppointmentRecord, EventRecord, TripRecord, read_present, reads

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DEFAULT_MINUTES = 60
AIRPORT_HOURS = 2
FLIGHT_HOURS = 1
CANCELLED = frozenset({"cancelled", "canceled", "skipped", "off"})


def _clock(text: str | None) -> time | None:
    if not text:
        return None
    try:
        hours, minutes = text.strip().split(":")[:2]
        return time(int(hours), int(minutes))
    except ValueError:
        return None


class Weekly:
    """A weekly event of the user's: its weekday, times and the days it runs."""

    def __init__(self, record: EventRecord, weekday: int, begins: time, ends: time) -> None:
        self.record = record
        self.weekday = weekday
        self.begins = begins
        self.ends = ends if ends > begins else (datetime.combine(date.min, begins) + timedelta(
            minutes=DEFAULT_MINUTES)).time()
        self.first = record.start.date() if record.start is not None else None
        self.last = record.end.date() if record.end is not None else None
        self.title = record.title or record.location or "event"

    def occurs(self, day: date, today: date, skipped: set[tuple[str | None, date]]) -> bool:
        return day.weekday() == self.weekday and day >= today and \
            (self.first is None or day >= self.first) and (self.last is None or day <= self.last) and \
            (fold(self.title), day) not in skipped

    def words(self) -> str:
        return f"weekly {self.title} ({WEEKDAYS[self.weekday].title()}s {self.begins:%H:%M}-{self.ends:%H:%M})"


def _weekly(record: EventRecord) -> Weekly | None:
    if fold(record.recurrence) not in ("weekly", "every week") or fold(record.weekday) not in WEEKDAYS:
        return None
    begins, ends = _clock(record.start_time), _clock(record.end_time)
    if begins is None:
        return None
    return Weekly(record, WEEKDAYS.index(fold(record.weekday)), begins, ends or begins)


def _users(person: str | None, subject: str | None) -> bool:
    return not person_of(person) and not person_of(subject)


@constraint(name="recurring_conflicts", clock="date",
            reads=(EventRecord.ATTRIBUTE, AppointmentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE),
            fields=dict([reads(EventRecord, "recurrence", "weekday", "start_time")]))
def recurring_conflicts(module: object, now: datetime) -> Iterator[Finding]:
    """A dated event, appointment or booked flight during an occurrence of a weekly event."""
    events = read_present(module, EventRecord)
    if events is None:
        raise MissingInput("the module has no 'events'")
    weekly = [w for e in events if _users(e.person, e.subject) and (w := _weekly(e)) is not None]
    if not weekly:
        raise MissingInput("no event of the user's is weekly with a weekday and a start time")
    today = now.date()
    skipped = {(fold(e.title), e.start.date()) for e in events
               if fold(e.status) in CANCELLED and e.start is not None and e.title}
    dated: list[tuple[object, str, datetime, datetime]] = []
    for event in events:
        if event.start is None or _weekly(event) is not None or fold(event.status) in CANCELLED or \
                not _users(event.person, event.subject) or event.recurrence:
            continue
        if event.start.time() == time(0) and event.end is None:
            continue  # a day without a time of day
        end = event.end if event.end is not None and event.end > event.start else \
            event.start + timedelta(minutes=DEFAULT_MINUTES)
        dated.append((event.source, event.title or event.location or "event", event.start, end))
    for appointment in read_present(module, AppointmentRecord) or ():
        start = appointment.start
        if start is None or not _users(appointment.person, None) or \
                (start.time() == time(0) and appointment.end is None):
            continue
        end = appointment.end if appointment.end is not None and appointment.end > start else \
            start + timedelta(minutes=DEFAULT_MINUTES)
        words = f"appointment with {appointment.provider}" if appointment.provider else "appointment"
        dated.append((appointment.source, words, start, end))
    for item, words, start, end in dated:
        start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
        for rule in weekly:
            day = start.date()
            if not rule.occurs(day, today, skipped):
                continue
            begins, ends = datetime.combine(day, rule.begins), datetime.combine(day, rule.ends)
            if start < ends and end > begins:
                message = (f"{words} on {day:%A %Y-%m-%d} {start:%H:%M}-{end:%H:%M} overlaps your "
                           f"{rule.words()}")
                yield Finding("warning", message, (rule.record.source, item), due=day)
    for trip in read_present(module, TripRecord) or ():
        departs, leaves = trip.departure_date, _clock(trip.departure_time)
        if departs is None or leaves is None or not is_going(trip) or not is_users(trip):
            continue
        moment = datetime.combine(departs, leaves)
        for rule in weekly:
            if not rule.occurs(departs, today, skipped):
                continue
            begins, ends = datetime.combine(departs, rule.begins), datetime.combine(departs, rule.ends)
            airport = moment - timedelta(hours=AIRPORT_HOURS)
            landed = moment + timedelta(hours=FLIGHT_HOURS)
            if airport < ends and landed > begins:
                flight = " ".join(part for part in (trip.carrier, "flight") if part)
                where = f" to {trip.destination}" if trip.destination else ""
                message = (f"your {flight}{where} departs {departs:%A %Y-%m-%d} at {leaves:%H:%M} (at the airport "
                           f"from {airport:%H:%M}, in the air until at least {landed:%H:%M}), during your "
                           f"{rule.words()}")
                yield Finding("warning", message, (rule.record.source, trip.source), due=departs)

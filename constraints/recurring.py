"""The `recurring_conflicts` constraint: a dated event, appointment, flight or trip of the
user's that falls on an occurrence of one of the user's recurring events.

A recurring event (`recurrence` "weekly", "biweekly", "every 3 weeks", "monthly" on one weekday of the month
(`weekday` "first monday", "last friday"; a monthly series without one is not compared) or "daily" (every
day when no weekday is given; Monday to Friday for a work meeting: a daily standup), one
`weekday` or several "monday, wednesday, friday", `start_time` / `end_time` as HH:MM, an
end before the start running past midnight: a night
shift 19:00-07:00; `start` and `end` bound the days it runs) occurs on each such weekday
from today on; a biweekly one every other week counted from its `start` (without a `start`
its weeks are unknown and it is not compared). An item in the small hours is compared with
the night before's occurrence too. It does not occur:
- on a day an event naming it (`same_event`: "standup" and "team standup", "Pottery" and
  "pottery class") with `status` "cancelled" is on ("no standup next Tuesday"), or in the
  week of such a day that is not one of its weekdays ("no pottery next week");
- at all once it has ended: its own `status` is "ended" (or "cancelled", "stopped"), or an
  event naming it with such a status and no day says so ("we stopped the tutoring"); an
  `end` day bounds it, its own or that of an event naming it with neither a start nor a
  recurrence ("the pottery class ends on May 30").

What clashes with an occurrence:
- a dated event or appointment (not recurring, not cancelled) whose time overlaps it (an
  item without an end lasts `DEFAULT_MINUTES`; one with only a day is not compared);
- a booked flight on that day: the user is at the airport `AIRPORT_HOURS` before departure
  and in the air at least `FLIGHT_HOURS` after it, or away for the rest of the day when
  the trip returns on a later day;
- the days away of a booked trip: an occurrence after the departure day and before the
  return day (any time of day), on the departure day from `LEAVING_BY` on when the trip
  gives no departure time, or on the return day before the return flight has landed
  (`return_time` + `FLIGHT_HOURS`).

Only the user's own schedule is compared (records whose `person` / `subject` name the
user or no one), and the diary of someone named by title the user keeps for them ("Mr Osei":
an assistant's principal), each with itself; a relative's calendar is not compared.
Severity warning; the message states the occurrence and the times or days compared. One
finding per clashing item and recurring event.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
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
ENDED = frozenset({"ended", "stopped", "finished", "cancelled", "canceled", "discontinued"})
INTERVALS = {"weekly": 1, "every week": 1, "biweekly": 2, "every other week": 2, "fortnightly": 2, "daily": 1,
             "every day": 1}
DAILY = frozenset({"daily", "every day"})
WORK_MEETING = re.compile(r"\b(?:stand-?ups?|scrum|huddle|sync|check-in|meeting|call)\b", re.I)
SHOWN_DAYS = 3  # occurrences a days-away message lists
LEAVING_BY = time(12, 0)  # a trip leaving on a day at an unknown hour (and away overnight) misses that day from then


def _clock(text: str | None) -> time | None:
    if not text:
        return None
    try:
        hours, minutes = text.strip().split(":")[:2]
        return time(int(hours), int(minutes))
    except ValueError:
        return None


def words_of(title: str | None) -> frozenset[str]:
    """A title's words, case-folded and singular ("Team Standups" -> {"team", "standup"})."""
    words = re.findall(r"[a-z0-9]+", (title or "").casefold())
    return frozenset(w.removesuffix("es" if w.endswith("sses") else "s") if len(w) > 3 else w for w in words)


def same_event(title: str | None, other: str | None) -> bool:
    """One title names the other's event: the words of one are all in the other ("standup" and
    "team standup", "Pottery" and "pottery class"; not "staff meeting" and "team meeting")."""
    mine, theirs = words_of(title), words_of(other)
    return bool(mine) and bool(theirs) and (mine <= theirs or theirs <= mine)


class Series:
    """A recurring event of the user's: its weekdays, times, weeks and the days it runs."""

    def __init__(self, record: EventRecord, weekdays: list[int], interval: int, begins: time | None,
                 ends: time | None, nth: int | None = None) -> None:
        self.record = record
        self.nth = nth  # a monthly series: which of the month's such weekdays (1-4, -1 the last)
        self.weekdays = weekdays
        self.interval = interval
        self.begins = begins
        # "7p to 7a": a night shift ends on the next day
        self.overnight = ends is not None and begins is not None and ends < begins
        self.ends = ends if ends is None or begins is None or ends > begins or self.overnight else None
        if self.ends is None and begins is not None:
            self.ends = (datetime.combine(date.min, begins) + timedelta(minutes=DEFAULT_MINUTES)).time()
        self.first = record.start.date() if record.start is not None else None
        self.last = record.end.date() if record.end is not None else None
        self.title = record.title or record.location or "event"

    def occurs(self, day: date, today: date, skipped: list[tuple[str, date]]) -> bool:
        if day.weekday() not in self.weekdays or day < today or (self.first is not None and day < self.first) or \
                (self.last is not None and day > self.last):
            return False
        if self.interval > 1 and (self.first is None or (day - self.first).days // 7 % self.interval):
            return False
        if self.nth is not None and _nth_of_month(day) != self.nth and \
                not (self.nth == -1 and (day + timedelta(days=7)).month != day.month):
            return False
        return not any(same_event(title, self.title) and self._cancels(off, day) for title, off in skipped)

    def _cancels(self, off: date, day: date) -> bool:
        """A cancellation on `off` calls off the occurrence on `day`: the same day, or a day of
        the same week the series does not occur on ("no pottery next week" read as its Monday)."""
        return off == day or (off.weekday() not in self.weekdays and
                              off.isocalendar()[:2] == day.isocalendar()[:2])

    def window(self, day: date) -> tuple[datetime, datetime] | None:
        if self.begins is None or self.ends is None:
            return None
        return datetime.combine(day, self.begins), datetime.combine(day + timedelta(days=self.overnight), self.ends)

    def days_touching(self, day: date) -> list[date]:
        """The days whose occurrence may be under way on `day`: that day, and the day before
        for an occurrence that runs past midnight."""
        return [day - timedelta(days=1), day] if self.overnight else [day]

    def words(self) -> str:
        days = ", ".join(f"{WEEKDAYS[d].title()}s" for d in self.weekdays)
        hours = f" {self.begins:%H:%M}-{self.ends:%H:%M}" if self.begins is not None and self.ends else ""
        if fold(self.record.recurrence) in DAILY:
            return f"daily {self.title} ({hours.strip() or 'every day'})"
        if self.nth is not None:
            which = {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}[self.nth]
            return f"monthly {self.title} ({which} {WEEKDAYS[self.weekdays[0]].title()} of the month{hours})"
        if self.interval == 1:
            return f"weekly {self.title} ({days}{hours})"
        if self.interval == 2:
            since = f", every other week from {self.first:%Y-%m-%d}" if self.first is not None else ""
            return f"every-other-week {self.title} ({days}{hours}{since})"
        since = f" from {self.first:%Y-%m-%d}" if self.first is not None else ""
        return f"{self.title} every {self.interval} weeks ({days}{hours}{since})"


def _interval(recurrence: str | None) -> int | None:
    """Weeks between occurrences: "weekly" 1, "biweekly" 2, "every 3 weeks" 3."""
    folded = fold(recurrence) or ""
    every = re.fullmatch(r"every (\d) weeks", folded)
    return int(every.group(1)) if every is not None else INTERVALS.get(folded)


NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1}


def _nth_of_month(day: date) -> int:
    """Which of its month's such weekdays `day` is (1 for the first Monday, ...)."""
    return (day.day - 1) // 7 + 1


def _series(record: EventRecord) -> Series | None:
    interval = _interval(record.recurrence)
    names = re.findall(r"[a-z0-9]+", fold(record.weekday) or "")
    if fold(record.recurrence) == "monthly":  # "first monday": one weekday of each month; a bare weekday is unknown
        nths = [NTH[n] for n in names if n in NTH]
        days = [WEEKDAYS.index(n) for n in names if n in WEEKDAYS]
        if len(nths) != 1 or len(days) != 1:
            return None
        return Series(record, days, 1, _clock(record.start_time), _clock(record.end_time), nths[0])
    weekdays = sorted({WEEKDAYS.index(n) for n in names if n in WEEKDAYS})
    if not weekdays and fold(record.recurrence) in DAILY:
        weekdays = list(range(5 if WORK_MEETING.search(record.title or "") else 7))  # a daily standup: workdays
    if interval is None or not weekdays:
        return None
    begins, ends = _clock(record.start_time), _clock(record.end_time)
    return Series(record, weekdays, interval, begins, ends)


# someone named by title whose diary the user keeps ("Mr Osei"): their calendar is compared with itself
TITLED = re.compile(r"^(?:mr|mrs|ms|miss|mx|prof|professor|sir|dame)\.?\s+\w+$")


def owner_of(person: str | None, subject: str | None) -> str | None:
    """Whose calendar a record is on: "" for the user's, the case-folded name for a principal
    named by title ("osei", the title dropped), None for anyone else's (a relative's is not compared)."""
    who = {person_of(person), person_of(subject)} - {""}
    if not who:
        return ""
    titled = any(TITLED.match(" ".join(name.casefold().split())) for name in (person, subject) if name)
    return who.pop() if len(who) == 1 and titled else None  # `person_of` drops the title: "osei"


def _users(person: str | None, subject: str | None, owner: str = "") -> bool:
    return owner_of(person, subject) == owner


def _running(events: list[EventRecord], owner: str = "") -> list[Series]:
    """The recurring events on `owner`'s calendar (the user's by default) that have not ended."""
    users = [e for e in events if _users(e.person, e.subject, owner) and not e.recurrence and e.start is None]
    over = [e.title for e in users if fold(e.status) in ENDED]
    last_days = [(e.title, e.end.date()) for e in users if e.end is not None]  # "the last class is on April 29"
    running = []
    for event in events:
        series = _series(event)
        if series is None or not _users(event.person, event.subject, owner) or fold(event.status) in ENDED or \
                any(same_event(title, event.title) for title in over):
            continue
        for title, last in last_days:
            if same_event(title, event.title):
                series.last = min(series.last or date.max, last)
        running.append(series)
    return running


def _dated(module: object, events: list[EventRecord], owner: str = "") -> list[tuple[object, str, datetime, datetime]]:
    """(record, what it is, start, end) of `owner`'s one-off events and appointments with a time."""
    dated: list[tuple[object, str, datetime, datetime]] = []
    for event in events:
        if event.start is None or event.recurrence or fold(event.status) in CANCELLED | ENDED or \
                not _users(event.person, event.subject, owner):
            continue
        if event.start.time() == time(0) and event.end is None:
            continue  # a day without a time of day
        end = event.end if event.end is not None and event.end > event.start else \
            event.start + timedelta(minutes=DEFAULT_MINUTES)
        dated.append((event.source, event.title or event.location or "event", event.start, end))
    for appointment in read_present(module, AppointmentRecord) or ():
        start = appointment.start
        if start is None or not _users(appointment.person, getattr(appointment, "subject", None), owner) or \
                (start.time() == time(0) and appointment.end is None):
            continue
        end = appointment.end if appointment.end is not None and appointment.end > start else \
            start + timedelta(minutes=DEFAULT_MINUTES)
        words = f"appointment with {appointment.provider}" if appointment.provider else "appointment"
        dated.append((appointment.source, words, start, end))
    return dated


@constraint(name="recurring_conflicts", clock="date",
            reads=(EventRecord.ATTRIBUTE, AppointmentRecord.ATTRIBUTE, TripRecord.ATTRIBUTE),
            fields=dict([reads(EventRecord, "recurrence", "weekday", "start_time")]))
def recurring_conflicts(module: object, now: datetime) -> Iterator[Finding]:
    """A dated event, appointment, booked flight or trip away during an occurrence of a recurring event."""
    events = read_present(module, EventRecord)
    if events is None:
        raise MissingInput("the module has no 'events'")
    owners = ["", *sorted({o for e in events if (o := owner_of(e.person, e.subject))})]
    calendars = [(owner, found) for owner in owners if (found := _running(events, owner))]
    if not calendars:
        raise MissingInput("no event of the user's recurs on a weekday and is still running")
    for owner, series in calendars:
        whose = f"{series[0].record.subject or series[0].record.person}'s " if owner else "your "
        for finding in _clashes(module, events, series, now, owner):  # "Mr Osei's board call", not "your"
            yield replace(finding, message=finding.message.replace("your ", whose)) if owner else finding


def _clashes(module: object, events: list[EventRecord], series: list[Series], now: datetime,
             owner: str) -> Iterator[Finding]:
    """The findings on one calendar: `owner`'s series against `owner`'s dated items and trips."""
    today = now.date()
    skipped = [(e.title, e.start.date()) for e in events
               if fold(e.status) in CANCELLED and e.start is not None and e.title and not e.recurrence]
    for item, words, start, end in _dated(module, events, owner):
        start, end = start.replace(tzinfo=None), end.replace(tzinfo=None)
        for rule in series:
            for day in rule.days_touching(start.date()):
                window = rule.window(day)
                if window is None or not rule.occurs(day, today, skipped):
                    continue
                if start < window[1] and end > window[0]:
                    message = (f"{words} on {start:%A %Y-%m-%d} {start:%H:%M}-{end:%H:%M} overlaps your "
                               f"{rule.words()}")
                    yield Finding("warning", message, (rule.record.source, item), due=start.date())
                    break
    for trip in read_present(module, TripRecord) or ():
        if trip.departure_date is None or not is_going(trip) or \
                not (is_users(trip) if not owner else owner_of(None, trip.subject) == owner):
            continue
        for rule in series:
            finding = _flight_clash(trip, rule, today, skipped) or _away_clash(trip, rule, today, skipped)
            if finding is not None:
                yield finding


def _flight(trip: TripRecord) -> str:
    flight = " ".join(part for part in (trip.carrier, "flight") if part)
    where = f" to {trip.destination}" if trip.destination else ""
    return f"your {flight}{where}"


def _flight_clash(trip: TripRecord, rule: Series, today: date, skipped: list[tuple[str, date]]) -> Finding | None:
    """The departure's airport time and first hours in the air overlap the occurrence that day."""
    departs, leaves = trip.departure_date, _clock(trip.departure_time)
    if departs is None or leaves is None:
        return None
    moment = datetime.combine(departs, leaves)
    airport, landed = moment - timedelta(hours=AIRPORT_HOURS), moment + timedelta(hours=FLIGHT_HOURS)
    away = trip.return_date is not None and trip.return_date > departs  # gone for the rest of the day
    clash = False
    for day in rule.days_touching(departs):
        window = rule.window(day)
        if rule.occurs(day, today, skipped) and (window is None and day == departs or window is not None and
                                                  airport < window[1] and (away or landed > window[0])):
            clash = True
            break
    if not clash:
        return None
    gone = f"away until {trip.return_date:%Y-%m-%d}" if away else f"in the air until at least {landed:%H:%M}"
    return Finding("warning", f"{_flight(trip)} departs {departs:%A %Y-%m-%d} at {leaves:%H:%M} (at the airport "
                              f"from {airport:%H:%M}, {gone}), during your {rule.words()}",
                   (rule.record.source, trip.source), due=departs)


def _away_clash(trip: TripRecord, rule: Series, today: date, skipped: list[tuple[str, date]]) -> Finding | None:
    """Occurrences on the days the user is away: after the departure day, before the return
    day, and on the return day before the return flight lands."""
    departs, back = trip.departure_date, trip.return_date
    if departs is None or back is None or back <= departs:
        return None
    missed = [departs + timedelta(days=n) for n in range(1, (back - departs).days)
              if rule.occurs(departs + timedelta(days=n), today, skipped)]
    if trip.departure_time is None and rule.begins is not None and rule.begins >= LEAVING_BY and \
            rule.occurs(departs, today, skipped):
        missed.insert(0, departs)  # leaving that day at an unknown hour, away overnight: gone by the afternoon
    returns = _clock(trip.return_time)
    window = rule.window(back)
    if returns is not None and window is not None and rule.occurs(back, today, skipped) and \
            window[0] < datetime.combine(back, returns) + timedelta(hours=FLIGHT_HOURS):
        missed.append(back)
    if not missed:
        return None
    days = ", ".join(f"{day:%A %Y-%m-%d}" for day in missed[:SHOWN_DAYS])
    more = f" and {len(missed) - SHOWN_DAYS} more" if len(missed) > SHOWN_DAYS else ""
    trip_words = _flight(trip).replace(" flight", " trip") if trip.carrier else \
        f"your trip{' to ' + trip.destination if trip.destination else ''}"
    back_words = f"{back:%A %Y-%m-%d}" + (f" (return flight {returns:%H:%M})" if returns is not None else "")
    return Finding("warning", f"{trip_words} has you away from {departs:%A %Y-%m-%d} to {back_words}, "
                              f"so you miss your {rule.words()} on {days}{more}",
                   (rule.record.source, trip.source), due=missed[0])

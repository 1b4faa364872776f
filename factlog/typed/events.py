"""Appointments, meetings and events from a sentence, recurring ones included ("every
Tuesday 2-4 PM", "standing meeting on Mondays at 10"), with dates and times against the
session's timestamp.

A sentence is about an event when it names one (`NOUNS`: meeting, standup, class,
appointment, cleaning, ...) with a day, a weekday or a time; a sentence naming none that
gives a time or time range ("Actually wait, it's 8:30 to 9:30") updates the session's last
event. Travel sentences are the trip reader's.

- Recurring: "every <weekday>", "<weekday>s", "on Mondays", "weekly": `recurrence`
  "weekly", `weekday` (lower case), `start_time` / `end_time` (HH:MM), `start` the first
  occurrence on or after the day it starts ("starting tmrw", else the session's day) at
  its start time, `end` the day "through the end of June" names.
- Dated: `start` (ISO date-time, or date without a time), `end` when a range gives an end
  time; weekdays ("thurs", "next tues") are the next such day after the session's day,
  "tmrw" the day after, "in 3 wks" 21 days later; "move it from April 2 to April 9" keeps
  the last date.
- Times: "2-4pm", "from 10:00 to 11:30 AM", "noon to 1:30", "8 to 9" (morning unless
  "evening", "night", "pm"; an hour from 1 to 6 without one is afternoon), "between 8 and
  noon", "at 10", "9am".
- An appointment (`kind` appointment: "appointment", "appt", a cleaning or checkup, a
  clinician or technician named) has `provider` (the clinician named, the session's last
  one, or "dentist" for a dental visit); other events have `title` and `location`.
- "no standup next tues", "cancel my Thursday squash game": the occurrence on that day is
  an event with `status` "cancelled" (its own entity: the recurring one stays).
- `subject` / `person` as for medications (`factlog.typed.care`); the assistant's words
  are not read here.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.recognizers import NUMBER_WORDS, dates_and_times_at
from factlog.timeparse import parse_date
from factlog.typed.care import care_named, catch_up, person_of
from factlog.typed.common import conversation_fields
from factlog.typed.drug_names import drug_names
from factlog.typed.model import Context, TypedFact
from factlog.typed.trips import TRAVEL

DOMAIN = "event"
APPOINTMENT = "appointment"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(
    r"\b(?P<day>mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?(?P<plural>s)?\b\.?", re.I
)
_EVERY = re.compile(r"\b(?:every|each)\s+(?:week|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b|\bweekly\b|"
                    r"\bstanding\b", re.I)
NOUNS = re.compile(
    r"\b(?:stand-?ups?|meetings?|committee|book club|club|class(?:es)?|lessons?|practice|rehearsal|"
    r"(?:physical |speech |occupational )?therapy|PT|lunch|brunch|dinner|volunteer\w*|game|match|"
    r"(?:church )?service|session|check-?ups?|(?<!\bme )(?<!\bto )(?<!'ll )(?<!\bwill )(?<!\bcan )check|"
    r"review|all-hands|offsite|off-site|workshop|"
    r"appointments?|appt|cleaning|recital|sync|one-on-one|1:1|interview|finale|party|ceremony|"
    r"visit|consultation|exam|physical|screening|scan|follow-up|surgery|procedure|haircut|camp|"
    r"dentist|doctor|vet|orthodontist|pediatrician|technician|plumber|electrician)\b",
    re.I,
)
_APPOINTMENT = re.compile(r"\b(?:appointments?|appt|cleaning|check-?ups?|consultation|exam|follow-up|"
                          r"technician|dentist|dental|doctor|Dr\.?)\b", re.I)
_CANCEL = re.compile(r"^\W*no\s+(?P<noun>[\w-]+(?:\s+[\w-]+)?)\s+(?:next|this|on)\b|\bcancel(?:l?ed)?\b|"
                     r"\bcalled off\b|\bskip(?:ping)?\b", re.I)
_RANGE = re.compile(
    r"(?<![\w:/.-])(?:from\s+|between\s+)?(?P<h1>\d{1,2}|noon)(?::(?P<m1>\d{2}))?\s*(?P<a1>[ap]\.?m\.?)?\s*"
    r"(?:-|–|—|to|until|till|and)\s*(?P<h2>\d{1,2}|noon)(?::(?P<m2>\d{2}))?\s*(?P<a2>[ap]\.?m\.?)?(?![\w/-])",
    re.I,
)
_AT = re.compile(r"\b(?:at|@)\s+(?P<h>\d{1,2}|noon)(?::(?P<m>\d{2}))?\s*(?P<a>[ap]\.?m\.?)?(?![\w/:-])", re.I)
_MONTHS = ("january february march april may june july august september october november december").split()
_MONTH_WORD = re.compile(r"\b(?:" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.?\s*$", re.I)
_EVENING = re.compile(r"\b(?:evening|night|nights|afternoon|pm|p\.m\.)\b", re.I)
_MORNING = re.compile(r"\b(?:morning|mornings|am|a\.m\.)\b", re.I)
_TOMORROW = re.compile(r"\b(?:tmrw|tmr|tomorrow|tmw)\b", re.I)
_IN_WEEKS = re.compile(rf"\bin\s+(?P<n>\d{{1,2}}|a|one|{'|'.join(NUMBER_WORDS)})\s+(?P<unit>days?|wks?|weeks?)\b", re.I)
_UNTIL_END = re.compile(r"\b(?:through|thru|until|till)\s+the\s+end\s+of\s+(?P<month>[A-Za-z]+)\b", re.I)
_PAST = re.compile(r"\b(?:following|after|had|was|went|saw)\b", re.I)
_MOVE = re.compile(r"\b(?:move|moved|moving|reschedul\w*|push(?:ed)?)\b", re.I)
_TITLE_STOP = frozenset(
    "my the a an his her our their your this that next every each on at is was has have got i we he she they "
    "and or of for to in with about new also weekly no cancel some ugh ok okay so um uh oh well then "
    "kindly please".split()
)
_LOCATION = re.compile(r"\b(?:at|in)\s+(?P<where>(?:the\s+)?(?:[A-Z0-9][\w'-]*|fourth-floor|[a-z]+-floor)"
                       r"(?:\s+(?:[A-Z0-9][\w'-]*|on|of|boardroom|room|library|center|centre|office|street|st|"
                       r"ave|avenue|road|rd)){0,4})", re.I)
_NOT_LOCATION = re.compile(r"^(?:the\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?$|"
                           r"(?:noon|night|evening|morning|am|pm|work|home)\b)", re.I)
TRIGGERS = (NOUNS, _EVERY, _RANGE)  # a sentence without one of these states no event


def read(sentence: str, context: Context) -> list[TypedFact]:
    if context.speaker != "user" or TRAVEL.search(sentence) and not NOUNS.search(_no_travel(sentence)):
        return []
    noun = NOUNS.search(sentence)
    if noun is None and not _RANGE.search(sentence):
        return []
    catch_up(context, drug_names())
    previous = context.last.get(DOMAIN)
    weekday = _WEEKDAY.search(sentence)
    recurring = weekday is not None and (bool(_EVERY.search(sentence)) or bool(weekday.group("plural"))
                                         or re.search(r"\bon\s+\w+days\b", sentence, re.I) is not None)
    times = _times(sentence)
    if noun is None:
        if previous is not None and times and re.match(r"^\W*(?:actually|sorry|no|wait|it's|its|make that|"
                                                       r"correction)\b", sentence, re.I):
            return [_update_times(previous, times, context)]
        if not (recurring and times):
            return []
    day = _day(sentence, context)
    if not recurring and day is None and not times:
        return []
    if not recurring and day is not None and _PAST.search(sentence) and day <= (_today(context) or day):
        return []  # "following today's appointment": one that took place
    if not recurring and day is None and noun is not None and not _EVERY.search(sentence):
        if previous is None or times is None:
            return []
    subject, person = person_of(sentence, context)
    if subject == "user" and context.focus is not None and noun is not None and \
            re.search(rf"\b(?:his|her)\s+(?:\w+\s+)?(?:{NOUNS.pattern})", sentence, re.I):
        subject, person = context.relations.get(context.focus, context.focus), context.focus
    title = _title(sentence, noun) if noun is not None else None
    if title is None and previous is not None:
        title = str(previous.fields.get("title") or previous.fields.get("provider") or "") or None
    cancelled = _CANCEL.search(sentence)
    fields: dict[str, JsonValue] = {}
    kind = DOMAIN
    if cancelled is not None and day is not None:
        fields = {"title": title, "start": day.isoformat(), "status": "cancelled"}
        key = f"{(title or 'event').casefold()}/{day.isoformat()}"
    elif recurring:
        assert weekday is not None
        name = _weekday_name(weekday.group("day"))
        first = _first_on_or_after(_starting(sentence, context) or _today(context), WEEKDAYS.index(name))
        fields = {"title": title, "recurrence": "weekly", "weekday": name}
        if times:
            fields["start_time"] = times[0]
            if len(times) > 1:
                fields["end_time"] = times[1]
        if first is not None:
            fields["start"] = f"{first.isoformat()}T{times[0]}:00" if times else first.isoformat()
        end = _UNTIL_END.search(sentence)
        if end is not None and end.group("month").lower() in _MONTHS and context.timestamp is not None:
            month = _MONTHS.index(end.group("month").lower()) + 1
            year = context.timestamp.year + (1 if month < context.timestamp.month else 0)
            fields["end"] = date(year, month, calendar.monthrange(year, month)[1]).isoformat()
        key = (title or name).casefold()
    else:
        if day is None:
            return []
        fields = {"start": f"{day.isoformat()}T{times[0]}:00" if times else day.isoformat()}
        if times and len(times) > 1:
            fields["end"] = f"{day.isoformat()}T{times[1]}:00"
        if _APPOINTMENT.search(sentence) or noun is None:
            kind = APPOINTMENT
            provider = _provider(sentence, context)
            if provider is not None:
                fields["provider"] = provider
            key = (provider or title or "appointment").casefold()
        else:
            fields = {"title": title, **fields}
            key = (title or "event").casefold()
    if kind == DOMAIN:
        if fields.get("title") is None:
            fields.pop("title", None)
        where = _location(sentence, str(fields["title"]) if fields.get("title") else None)
        if where is not None:
            fields["location"] = where
    if person is not None:
        fields["person"] = person
    if subject != "user":
        key = f"{subject.casefold()}/{key}"
    fact = TypedFact(kind, key, conversation_fields(context, subject, fields))
    if kind == APPOINTMENT:
        context.last[DOMAIN] = fact  # "Actually, 10:30" corrects it too
    return [fact]


def fold_words(text: str) -> str:
    return " ".join(w for w in text.casefold().split() if w not in ("the", "a", "an"))


def _no_travel(sentence: str) -> str:
    return TRAVEL.sub(" ", sentence)


def _today(context: Context) -> date | None:
    return context.timestamp.date() if context.timestamp is not None else None


def _weekday_name(word: str) -> str:
    folded = word.casefold()[:3]
    return next(name for name in WEEKDAYS if name.startswith(folded))


def _first_on_or_after(start: date | None, weekday: int) -> date | None:
    if start is None:
        return None
    return start + timedelta(days=(weekday - start.weekday()) % 7)


def _starting(sentence: str, context: Context) -> date | None:
    """The day a recurring event starts: "starting tmrw", "from March 4"."""
    match = re.search(r"\b(?:starting|from|beginning|effective|as of)\b(?P<rest>.*)", sentence, re.I)
    if match is None or context.timestamp is None:
        return None
    rest = match.group("rest")
    if _TOMORROW.search(rest):
        return context.timestamp.date() + timedelta(days=1)
    dates = dates_and_times_at(rest, context.timestamp)[0]
    return parse_date(dates[0][1]) if dates else None


def _day(sentence: str, context: Context) -> date | None:
    """The day a dated event is on (None when the sentence names none)."""
    if context.timestamp is None:
        return None
    today = context.timestamp.date()
    dates = [value for _, value in dates_and_times_at(sentence, context.timestamp)[0]]
    if dates:
        return parse_date(dates[-1] if _MOVE.search(sentence) else dates[0])
    if _TOMORROW.search(sentence):
        return today + timedelta(days=1)
    later = _IN_WEEKS.search(sentence)
    if later is not None:
        raw = later.group("n").lower()
        n = int(raw) if raw.isdigit() else 1 if raw in ("a", "one") else NUMBER_WORDS[raw]
        return today + timedelta(days=n * 7 if later.group("unit").lower().startswith("w") else n)
    weekday = _WEEKDAY.search(sentence)
    if weekday is not None and not weekday.group("plural"):
        target = WEEKDAYS.index(_weekday_name(weekday.group("day")))
        ahead = (target - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    return None


def _clock(hour: str, minute: str | None, marker: str | None, evening: bool) -> tuple[int, int]:
    h = 12 if hour.lower() == "noon" else int(hour)
    m = int(minute) if minute else 0
    pm = marker.lower().startswith("p") if marker else None
    if pm is None:
        pm = evening or 1 <= h <= 6
    if pm and h < 12:
        h += 12
    if marker and not pm and h == 12:
        h = 0
    return h, m


def _times(sentence: str) -> list[str]:
    """[start] or [start, end] as HH:MM, or [] when the sentence gives no time of day."""
    evening = _EVENING.search(sentence) is not None and _MORNING.search(sentence) is None
    for match in _RANGE.finditer(sentence):
        before = sentence[:match.start()]
        if _MONTH_WORD.search(before) or re.search(r"[$#]\s*$", before):
            continue
        h1, h2 = match.group("h1"), match.group("h2")
        if (h1.isdigit() and int(h1) > 12 and not match.group("m1")) or (h2.isdigit() and int(h2) > 24):
            continue
        a1, a2 = match.group("a1"), match.group("a2")
        end = _clock(h2, match.group("m2"), a2, evening)
        if a1 is None and a2 is not None and h1.lower() != "noon":
            hour1 = int(h1)
            start = _clock(h1, match.group("m1"), a2, evening)
            if start > end:  # "11 to 1pm"
                start = (hour1 % 12, start[1])
        else:
            start = _clock(h1, match.group("m1"), a1, evening if a1 is None and a2 is None else False)
            if a1 is None and a2 is None and start > end and end[0] < 12:
                end = (end[0] + 12, end[1])
        if start == end:
            continue
        return [f"{start[0]:02d}:{start[1]:02d}", f"{end[0]:02d}:{end[1]:02d}"]
    at = _AT.search(sentence)
    if at is not None and int(at.group("h") if at.group("h").isdigit() else 12) <= 12:
        h, m = _clock(at.group("h"), at.group("m"), at.group("a"), evening)
        return [f"{h:02d}:{m:02d}"]
    found = [value for _, value in dates_and_times_at(sentence, None)[1]]
    return found[:1]


def _update_times(previous: TypedFact, times: list[str], context: Context) -> TypedFact:
    fields = dict(previous.fields)
    if "start_time" in fields or "recurrence" in fields:
        fields["start_time"] = times[0]
        if len(times) > 1:
            fields["end_time"] = times[1]
        start = fields.get("start")
        if isinstance(start, str):
            fields["start"] = f"{start[:10]}T{times[0]}:00"
    else:
        start = fields.get("start")
        if isinstance(start, str):
            fields["start"] = f"{start[:10]}T{times[0]}:00"
            if len(times) > 1:
                fields["end"] = f"{start[:10]}T{times[1]}:00"
    fields["speaker"] = context.speaker
    return TypedFact(previous.kind, previous.key, fields)


def _title(sentence: str, noun: re.Match[str]) -> str:
    """The event's name: the noun and up to two words before it that name it ("Executive
    Committee", "Rotary lunch", "physical therapy", "INR check")."""
    words = re.findall(r"[\w'-]+", sentence[:noun.start()])
    kept: list[str] = []
    for word in reversed(words[-2:]):
        if word.casefold() in _TITLE_STOP or _WEEKDAY.fullmatch(word) or word[0].isdigit() or \
                word.casefold().endswith("'s"):
            break
        kept.insert(0, word)
    text = " ".join([*kept, noun.group(0)])
    if re.match(r"^volunteer", noun.group(0), re.I):
        after = re.match(r"\s+(?:at|for)\s+(?:the\s+)?(?P<what>[\w ]+?)(?=[,.;]|\s+(?:from|on|at|every)\b|$)",
                         sentence[noun.end():], re.I)
        if after is not None:
            text = f"{after.group('what')} volunteering"
    return text


def _provider(sentence: str, context: Context) -> str | None:
    technician = re.search(r"\b(?:(?P<who>[A-Z][\w&'-]+)\s+)?technician\b", sentence)
    if technician is not None:
        return f"{technician.group('who')} technician" if technician.group("who") else "technician"
    named = care_named(sentence)
    if named is not None:
        return named
    if re.search(r"\b(?:dental|teeth)\b", sentence, re.I):
        return "dentist"
    return context.care


_STREET = re.compile(r"\bon\s+(?P<street>(?:[A-Z0-9][\w'-]*\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|"
                     r"Lane|Ln|Drive|Dr|Way|Place|Pl)\b\.?)")


def _location(sentence: str, title: str | None = None) -> str | None:
    """Where the event is: "at the library on Oak", "in the fourth-floor boardroom"; a street
    ("on Grant Street") when the place "at" names is the event's own title."""
    for match in _LOCATION.finditer(sentence):
        where = match.group("where")
        if title is not None and (fold_words(where) in fold_words(title) or fold_words(title) in fold_words(where)):
            street = _STREET.search(sentence)
            return street.group("street").rstrip(".") if street is not None else None
        if _NOT_LOCATION.match(where) or _WEEKDAY.match(where.removeprefix("the ")):
            continue
        words = where.split()
        while words and words[0].casefold() in ("the", "their", "his", "her", "our", "my"):
            words.pop(0)
        return " ".join(words) or None
    return None

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

import re
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.recognizers import NUMBER_WORDS, dates_and_times_at
from factlog.timeparse import parse_date
from factlog.typed.care import care_named, catch_up, person_of
from factlog.typed.common import DAY_ONLY, conversation_fields
from factlog.typed.drug_names import drug_names
from factlog.typed.model import Context, TypedFact
from factlog.typed.places import place_name
from factlog.typed.recurrence import (
    ENDED,
    WEEKDAY,
    WEEKDAYS,
    cadence,
    minutes_long,
    plus_minutes,
    series_end,
    starting,
    weekday_name,
    weekdays_named,
)
from factlog.typed.trips import AIRLINES, FLIGHT, TRAVEL

DOMAIN = "event"
APPOINTMENT = "appointment"
NOUNS = re.compile(
    r"\b(?:stand-?ups?|meetings?|committee|book club|club|class(?:es)?|lessons?|practice|rehearsals?|"
    r"(?:physical |speech |occupational )?therapy|PT|lunch|brunch|dinner|volunteer\w*|game|match|"
    r"(?:church )?service|session|check-?ups?|(?<!\bme )(?<!\bto )(?<!'ll )(?<!\bwill )(?<!\bcan )check|"
    r"review|all-hands|offsite|off-site|workshop|seminar|webinar|(?<!\bof )course|tutoring|choir|yoga|pilates|"
    r"training|bootcamp|concert|musical|opera|conference|convention|wedding|(?-i:[A-Z][\w'&-]*)\s+(?:show|gig)|"
    r"bible study|study group|date night|little league|mass|orchestra|band|scouts|youth group|sunday school|"
    r"tickets? (?:for|to) (?:the )?(?-i:[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*)(?:\s+(?:show|concert|gig|game|"
    r"match|play|musical|tour))?|(?:weekly|standing|team|client|sales|zoom|video|"
    r"conference|daily|check-in) calls?|(?-i:[A-Z][\w'&-]*)(?=\s+meets\b)|"
    r"appointments?|appt|cleaning|recital|sync|one-on-one|1:1|interview|finale|party|ceremony|"
    r"visit|consultation|exam|physical|screening|scan|MRI|CT scan|x-ray|ultrasound|mammogram|colonoscopy|"
    r"blood ?work|blood test|follow-up|surgery|procedure|haircut|camp|"
    r"dentist|doctor|vet|orthodontist|pediatrician|dermatologist|therapist|counsel(?:l)?or|technician|plumber|"
    r"electrician|pottery|ceramics|piano|guitar|violin|cello|tennis|golf|soccer|swimming|karate|ballet|dance|zumba|"
    r"crossfit|gym|bowling|shifts?|(?-i:[A-Z][a-z]+) school)\b",
    re.I,
)
_APPOINTMENT = re.compile(r"\b(?:appointments?|appt|cleaning|check-?ups?|consultation|exam|follow-up|"
                          r"technician|dentist|dental|doctor|Dr\.?|orthodontist|pediatrician|dermatologist|"
                          r"optometrist|chiropractor|vet)\b", re.I)
_CANCEL = re.compile(r"^\W*no\s+(?P<noun>[\w-]+(?:\s+[\w-]+)?)\s+(?:next|this|on)\b|\bcancel(?:l?ed)?\b|"
                     r"\bcalled off\b|\bskip(?:ped|ping)?\b", re.I)
_RANGE = re.compile(
    r"(?<![\w:/.-])(?:from\s+|between\s+)?(?P<h1>\d{1,2}|noon|midday)(?:[:.](?P<m1>[0-5]\d))?\s*(?P<a1>[ap]\.?m\.?)?\s*"
    r"(?:-|–|—|to|until|till|and)\s*(?P<h2>\d{1,2}|noon|midday)(?:[:.](?P<m2>[0-5]\d))?\s*(?P<a2>[ap]\.?m\.?)?(?![\w/-])",
    re.I,
)
_AT = re.compile(r"\b(?:at|@)\s+(?P<h>\d{1,2}|noon|midday)(?:[:.](?P<m>[0-5]\d))?\s*(?P<a>[ap]\.?m\.?)?"
                 r"(?![\w/:-]|\.\d)", re.I)
_MONTHS = ("january february march april may june july august september october november december").split()
_MONTH_WORD = re.compile(r"\b(?:" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.?\s*$", re.I)
_EVENING = re.compile(r"\b(?:evening|evenings|night|nights|tonight|afternoon|afternoons|pm|p\.m\.|party|dinner|"
                      r"concert|gig|show|drinks|opera|musical|movie)\b", re.I)
_MORNING = re.compile(r"\b(?:morning|mornings|am|a\.m\.)\b", re.I)
_TOMORROW = re.compile(r"\b(?:tmrw|tmr|tomorrow|tmw)\b", re.I)
_IN_WEEKS = re.compile(rf"\bin\s+(?P<n>\d{{1,2}}|a|one|{'|'.join(NUMBER_WORDS)})\s+(?P<unit>days?|wks?|weeks?)\b", re.I)
_PAST = re.compile(r"\b(?:following|after|had|was|went|saw)\b", re.I)
_MOVE = re.compile(r"\b(?:move|moved|moving|reschedul\w*|push(?:ed)?)\b", re.I)
# not a plan of the user's: "maybe a haircut thursday if I can get one", "thinking about yoga"
_HYPOTHETICAL = re.compile(
    r"\b(?:maybe|might|perhaps|thinking (?:about|of)|considering|if i (?:can|could|get|have)|hoping to|"
    r"would (?:like|love) to|i'd (?:like|love) to|not sure (?:if|whether)|wondering (?:if|whether)|"
    r"should i|in case)\b",
    re.I,
)
_SERIES_ENDS = re.compile(r"\b(?:ends|finishes|wraps up|will (?:end|finish|wrap up)|runs (?:until|through|till)|"
                          r"last (?:class|session|lesson|meeting|one) (?:is|will be))\b", re.I)
_TO_DO = re.compile(r"\b(?:'ll|will|need to|have to|must|should|gotta|going to|remind me to|want to)\s+"
                    r"(?:call|phone|ring|email|text|contact|book|schedule|make|set up|arrange)\b", re.I)
_NO_LONGER = re.compile(r"\b(?:used to|as a (?:kid|child|teen)|back when|when i was (?:a|in|young|little))\b", re.I)
_QUESTION = re.compile(r"^\W*(?:(?:is|are|do|does|did|when|what|which|should|how|where|am i|will)\b[^.!]*\?\s*$|"
                       r"(?:can|could|may|should) i\b|is it (?:ok|okay|fine|safe)\b)", re.I)
_NEXT_ONE = re.compile(r"\b(?:next|first) (?:one|session|class|lesson|meeting)\s+(?:is|will be)\b", re.I)
_LASTS = re.compile(r"\b(?:lasts?|runs?|takes?|it(?:'s| is)|for)\b", re.I)
_FUTURE = re.compile(r"\b(?:will|next|on|until|till|through|after)\s+(?:end|finish|be over)|"
                     r"\b(?:ends|finishes)\b", re.I)
_PURPOSE = re.compile(r"\bfor\s+(?:the|a|an|my|our|his|her|their)\s+(?:[\w'-]+\s+){0,2}?"
                      r"(?=(?:conference|convention|offsite|off-site|wedding|workshop|meeting|interview|"
                      r"seminar|show|concert)\b)\w+", re.I)
_LAST_DAY = re.compile(r"\b(?:through|thru|to|until|-|–)\s*(?:the\s+)?(?P<dd>\d{1,2})(?:st|nd|rd|th)?\b"
                       r"(?!\s*(?::|[ap]\.?m\b|pm|am|\d))",
                       re.I)
_TITLE_STOP = frozenset(
    "my the a an his her our their your this that next every each on at is was has have got i we he she they "
    "and or of for to in with about new also weekly no cancel some ugh ok okay so um uh oh well then "
    "kindly please other second biweekly recurring per night morning evening afternoon coach teach lead run host play "
    "last first final quit stopped dropped finished ended joined started "
    "signed up attend attending go going take taking do doing skip skipping skipped cancelled canceled booked book "
    "hour hours minute minutes min mins".split()
)
_LOCATION = re.compile(r"\b(?:at|in)\s+(?P<where>(?:the\s+)?(?:St\.\s+[A-Z][\w'-]*|[A-Z0-9][\w'-]*|fourth-floor|"
                       r"[a-z]+-floor)(?:\s+(?:St\.?|[A-Z0-9][\w'-]*|on|of|boardroom|room|library|center|centre|"
                       r"office|street|st|ave|avenue|road|rd|hall|studio|gym|church|school)){0,4})", re.I)
_NOT_LOCATION = re.compile(r"^(?:the\s+)?(?:\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\b|"
                           r"(?:noon|midday|night|evening|morning|am|pm|work|home)\b)", re.I)
_LENGTH = re.compile(r"\b(?:lasts?|runs?|takes?)\s+(?:about\s+)?(?:\d+|an?|one|two|three)\s+(?:hours?|min)", re.I)
_NOUN_PHRASE = re.compile(rf"(?:{NOUNS.pattern})(?:\s+(?:{NOUNS.pattern}))*", re.I)  # "choir practice"
_ACTIVITY = re.compile(r"pottery|ceramics|piano|guitar|violin|cello|tennis|golf|soccer|swimming|karate|ballet|dance|"
                       r"zumba|crossfit|gym|bowling|yoga|pilates", re.I)
_GENERIC = frozenset("class classes lesson lessons session meeting one course".split())
TRIGGERS = (NOUNS, _RANGE, _NEXT_ONE, _LENGTH)  # a sentence without one of these states no event


def read(sentence: str, context: Context) -> list[TypedFact]:
    if context.speaker == "assistant":
        return _confirmed_title(sentence, context)
    if context.speaker != "user" or _TRIP_CUES.search(sentence) and not _event_beside_travel(sentence) and \
            (FLIGHT.search(sentence) or cadence(sentence, weekdays_named(sentence)) is None):
        return []
    if _HYPOTHETICAL.search(sentence) or _QUESTION.match(sentence) or _NO_LONGER.search(sentence) or \
            _TO_DO.search(sentence):
        return []
    noun = _NOUN_PHRASE.search(sentence)
    if noun is not None and _to_a_place(noun.group(0)):
        return []  # "tickets to Denver": a trip's
    if noun is None and not _RANGE.search(sentence) and not _NEXT_ONE.search(sentence) and \
            minutes_long(sentence) is None:
        return []
    catch_up(context, drug_names())
    previous = context.last.get(DOMAIN)
    names = weekdays_named(_corrected(sentence, WEEKDAY))
    how_often = cadence(sentence, names)
    if how_often is None and noun is not None and names and _CALENDAR_NAME.search(sentence[:noun.end()]):
        how_often = "weekly"  # "my Thursday spin class is at 6am": the class that is on Thursdays
    recurring = how_often is not None
    times = _times(sentence)
    named = context.last.get(_NAMED)  # newer than `previous`: each event fact clears it
    if noun is None:
        if previous is not None and named is None:
            update = _update(previous, sentence, times, context)
            if update is not None:
                return [update]
        if named is not None:
            previous = named  # "I signed up for a pottery class. It's on Tuesday evenings 7 to 9."
        elif not (recurring and (times or names)):
            return []
    if noun is not None and _ends_series(sentence, noun) and not times and not _FUTURE.search(sentence):
        return [_ended(sentence, noun, context)]
    day = _day(sentence, context)
    if noun is not None and _CANCEL.search(sentence) and re.search(r"\b(?:this|next)\s+week\b", sentence, re.I):
        day = _cancelled_week(sentence, context)  # "pottery is cancelled next week"
    if noun is not None and not recurring and day is not None and _SERIES_ENDS.search(sentence):
        return [_ending(sentence, noun, day, context)]  # "my pottery class ends on May 30"
    if not recurring and not times and noun is not None and _ACTIVITY.fullmatch(noun.group(0)) and \
            not _CANCEL.search(sentence):
        return []  # "do the gym tmrw": a bare activity on a day is no appointment
    if not recurring and day is None and not times:
        if noun is not None and re.search(r"\b(?:my|our|a|an)\b", sentence[:noun.start()], re.I):
            context.last[_NAMED] = TypedFact(DOMAIN, None, {"title": _title(sentence, noun)})
        return []
    if not recurring and day is not None and (day < (_today(context) or day) or
                                              _PAST.search(sentence) and day == _today(context)):
        return []  # "following today's appointment", "the meeting lasted 2 hours yesterday": it took place
    if not recurring and day is None and noun is not None:
        if previous is None or not times:
            return []
        if "recurrence" in previous.fields and _same_event(_title(sentence, noun), previous):
            return [_update_times(previous, times, context)]  # "The class runs from 7 to 9."
    subject, person = _whose(sentence, context, noun)
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
        assert how_often is not None
        fields = {"title": title, **_series(sentence, context, how_often, names, times)}
        key = (title or (names[0] if names else "event")).casefold()
    else:
        if day is None:
            return []
        fields = _dated(sentence, day, times)
        if _APPOINTMENT.search(sentence if noun is not None or previous is None else
                               f"{sentence} {previous.fields.get('title') or 'appointment'}"):
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
    context.last.pop(_NAMED, None)
    if kind == APPOINTMENT:
        context.last[DOMAIN] = fact  # "Actually, 10:30" corrects it too
    return [fact]


_NOT_MODIFIERS = frozenset("weekly biweekly daily monthly recurring regular usual next new first last upcoming "
                           "same whole standing today tomorrow tonight".split())


def _confirmed_title(sentence: str, context: Context) -> list[TypedFact]:
    """An assistant's confirmation that names the session's last event more fully ("standup"
    -> "Got it: weekly team standup on Tuesdays") gives that event the fuller title."""
    previous = context.last.get(DOMAIN)
    title = previous.fields.get("title") if previous is not None and previous.kind == DOMAIN else None
    if previous is None or not isinstance(title, str) or not title:
        return []
    match = re.search(rf"(?<![\w'’-])(?P<word>[A-Za-z][a-z-]+)\s+{re.escape(title)}\b", sentence, re.I)
    if match is None:
        return []
    word = match.group("word")
    if word.casefold() in _TITLE_STOP or word.casefold() in _NOT_MODIFIERS or WEEKDAY.fullmatch(word):
        return []
    return [TypedFact(DOMAIN, previous.key, {**previous.fields, "title": f"{word} {title}", "speaker": "assistant"})]


def _to_a_place(noun: str) -> bool:
    ticket = re.match(r"tickets?\s+(?:for|to)\s+(?:the\s+)?(?P<name>.+)", noun, re.I)
    return ticket is not None and place_name(ticket.group("name")) is not None


def _same_event(title: str, previous: TypedFact) -> bool:
    """`title` names the event `previous` is ("the class" for "pottery class")."""
    known = str(previous.fields.get("title") or "").casefold()
    return bool(known) and (title.casefold() in _GENERIC or title.casefold() == known
                            or known.endswith(f" {title.casefold()}"))


def _cancelled_week(sentence: str, context: Context) -> date | None:
    """The day of the week "this week" / "next week" names: the session's last weekly event's
    weekday in it, else the week's Monday (`recurring_conflicts` reads a cancelled day that
    is not the series' weekday as cancelling that week's occurrence)."""
    week = re.search(r"\b(?P<which>this|next)\s+week\b", sentence, re.I)
    today = _today(context)
    if week is None or today is None:
        return None
    monday = today - timedelta(days=today.weekday()) + timedelta(days=7 if week.group("which").lower() == "next" else 0)
    previous = context.last.get(DOMAIN)
    names = re.findall(r"[a-z]+", str(previous.fields.get("weekday") or "")) if previous is not None else []
    if names and names[0] in WEEKDAYS:
        return monday + timedelta(days=WEEKDAYS.index(names[0]))
    return monday


def _whose(sentence: str, context: Context, noun: re.Match[str] | None) -> tuple[str, str | None]:
    subject, person = person_of(sentence, context)
    if person is not None and (NOUNS.fullmatch(person) or WEEKDAY.fullmatch(person) or
                               noun is not None and person.casefold() in noun.group(0).casefold()):
        subject, person = "user", None  # "Therapy is biweekly": the event's name, not a person's
    if subject == "user" and context.focus is not None and noun is not None and \
            re.search(rf"\b(?:his|her)\s+(?:\w+\s+)?(?:{NOUNS.pattern})", sentence, re.I):
        subject, person = context.relations.get(context.focus, context.focus), context.focus
    return subject, person


_CALENDAR_NAME = re.compile(r"\b(?:my|our)\s+(?:usual\s+|regular\s+|weekly\s+)?"
                            r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
                            r"(?:\s+(?:morning|afternoon|evening|night))?\s+(?:[\w-]+\s+)?[\w-]+$", re.I)
_NAMED = "event named"  # `Context.last` slot: an event named without a day or time, for the next sentence
_TRIP_CUES = re.compile(rf"{TRAVEL.pattern}|{FLIGHT.pattern}|\b(?:dep|departs?|departing|return(?:ing)?|leaves|"
                        rf"leaving)\b|\b(?-i:[A-Z]{{2}})\s?\d{{2,4}}\b|\b[a-z]{{2}}\d{{3,4}}\b|"
                        rf"\b(?-i:{'|'.join(sorted(map(re.escape, AIRLINES), key=len, reverse=True))})\b", re.I)


def _event_beside_travel(sentence: str) -> bool:
    """A travel sentence also names an event of its own, with its own time or an appointment
    ("flight Tuesday, dentist Friday", "fly out Monday; choir is Thursday at 7"), not only
    the trip's purpose ("booked Denver for the conference", "a painting course in Andalusia")."""
    rest = _no_travel(_PURPOSE.sub(" ", sentence))
    return NOUNS.search(rest) is not None and (_APPOINTMENT.search(rest) is not None or bool(_times(rest)))


def _series(sentence: str, context: Context, how_often: str, names: list[str],
            times: list[str]) -> dict[str, JsonValue]:
    """The fields of a recurring event: recurrence, weekday(s), times, first and last day."""
    fields: dict[str, JsonValue] = {"recurrence": how_often}
    if names:
        fields["weekday"] = ", ".join(names)
    if times:
        fields["start_time"] = times[0]
        end_time = times[1] if len(times) > 1 else None
        length = minutes_long(sentence)
        if end_time is None and length is not None:
            end_time = plus_minutes(times[0], length)
        if end_time is not None:
            fields["end_time"] = end_time
    today = _today(context)
    if today is None:
        return fields
    if how_often == "monthly":
        return fields  # which week of the month: no first day computed
    begins = starting(sentence, today) or today
    first = min((_first_on_or_after(begins, WEEKDAYS.index(name)) for name in names), default=None)
    if first is not None:
        fields["start"] = f"{first.isoformat()}T{times[0]}:00" if times else first.isoformat()
    last = series_end(sentence, today, first)
    if last is not None:
        fields["end"] = last.isoformat()
    return fields


def _dated(sentence: str, day: date, times: list[str]) -> dict[str, JsonValue]:
    """`start` and `end` of a one-off event: the day, its times, or its length ("90 min")."""
    fields: dict[str, JsonValue] = {"start": f"{day.isoformat()}T{times[0]}:00" if times else day.isoformat()}
    if times and len(times) > 1:
        fields["end"] = f"{day.isoformat()}T{times[1]}:00"
    elif times:
        length = minutes_long(sentence)
        end_time = plus_minutes(times[0], length) if length is not None else None
        if end_time is not None:
            fields["end"] = f"{day.isoformat()}T{end_time}:00"
    else:
        last = _LAST_DAY.search(sentence)
        if last is not None and int(last.group("dd")) > day.day:
            try:
                fields["end"] = day.replace(day=int(last.group("dd"))).isoformat()
            except ValueError:
                pass
    return fields


_NEGATED = re.compile(r"\b(?:not|never|n't|haven't|hasn't|didn't|won't|isn't|almost|nearly)\b", re.I)


def _ends_series(sentence: str, noun: re.Match[str]) -> bool:
    """The sentence says the named series is over: "my pottery class ended", "we stopped the
    tutoring" (the verb next to the event's name, and not negated)."""
    for match in ENDED.finditer(sentence):
        between = sentence[noun.end():match.start()] if noun.end() <= match.start() else \
            sentence[match.end():noun.start()] if match.end() <= noun.start() else None
        if between is None or len(between) > 25 or _NEGATED.search(between) or \
                _NEGATED.search(sentence[max(0, match.start() - 12):match.start()]):
            continue
        return True
    return False


def _ending(sentence: str, noun: re.Match[str], day: date, context: Context) -> TypedFact:
    """ "my pottery class ends on May 30": the series' last day."""
    return _ended(sentence, noun, context, {"end": day.isoformat()})


def _ended(sentence: str, noun: re.Match[str], context: Context,
           change: dict[str, JsonValue] | None = None) -> TypedFact:
    """ "my pottery class ended last week": the whole series is off from now on."""
    subject, person = _whose(sentence, context, noun)
    title = _title(sentence, noun)
    previous = context.last.get(DOMAIN)
    if title.casefold() in _GENERIC and previous is not None and previous.kind == DOMAIN and previous.key and \
            isinstance(previous.fields.get("title"), str):
        return TypedFact(DOMAIN, previous.key, conversation_fields(  # "The last class is on April 29"
            context, str(previous.fields.get("subject") or subject), {"title": previous.fields["title"],
                                                                      **(change or {"status": "ended"})}))
    fields: dict[str, JsonValue] = {"title": title, **(change or {"status": "ended"})}
    if person is not None:
        fields["person"] = person
    key = title.casefold() if subject == "user" else f"{subject.casefold()}/{title.casefold()}"
    return TypedFact(DOMAIN, key, conversation_fields(context, subject, fields))


def _update(previous: TypedFact, sentence: str, times: list[str], context: Context) -> TypedFact | None:
    """A sentence naming no event that changes the session's last one: corrected times
    ("Actually wait, it's 8:30 to 9:30"), the next occurrence ("Next one is on 9 April"),
    its length ("it runs two hours")."""
    if times and re.match(r"^\W*(?:actually|sorry|no|wait|it's|its|make that|correction)\b", sentence, re.I):
        return _update_times(previous, times, context)
    today = _today(context)
    if _NEXT_ONE.search(sentence) and "recurrence" in previous.fields and today is not None:
        day = starting(sentence, today)
        if day is None:
            return None
        clock = times[0] if times else previous.fields.get("start_time")
        fields = dict(previous.fields)
        fields["start"] = f"{day.isoformat()}T{clock}:00" if isinstance(clock, str) else day.isoformat()
        fields["speaker"] = context.speaker
        return TypedFact(previous.kind, previous.key, fields)
    length = minutes_long(sentence)
    if length is not None and not times and _LASTS.search(sentence):
        fields = dict(previous.fields)
        begins = fields.get("start_time")
        start = fields.get("start")
        if isinstance(begins, str) and "end_time" not in fields:
            end_time = plus_minutes(begins, length)
            if end_time is None:
                return None
            fields["end_time"] = end_time
        elif isinstance(start, str) and len(start) > 10 and "end" not in fields:
            end_time = plus_minutes(start[11:16], length)
            if end_time is None:
                return None
            fields["end"] = f"{start[:10]}T{end_time}:00"
        else:
            return None
        fields["speaker"] = context.speaker
        return TypedFact(previous.kind, previous.key, fields)
    return None


def fold_words(text: str) -> str:
    return " ".join(w for w in text.casefold().split() if w not in ("the", "a", "an"))


def _no_travel(sentence: str) -> str:
    return TRAVEL.sub(" ", sentence)


def _today(context: Context) -> date | None:
    return context.timestamp.date() if context.timestamp is not None else None


def _first_on_or_after(start: date, weekday: int) -> date:
    return start + timedelta(days=(weekday - start.weekday()) % 7)


def _day(sentence: str, context: Context) -> date | None:
    """The day a dated event is on (None when the sentence names none)."""
    if context.timestamp is None:
        return None
    today = context.timestamp.date()
    dates = [value for _, value in dates_and_times_at(sentence, context.timestamp)[0]]
    if dates:
        fixed = [value for _, value in dates_and_times_at(_corrected(sentence, None, context), context.timestamp)[0]]
        return parse_date(dates[-1] if _MOVE.search(sentence) else fixed[0] if fixed else dates[0])
    if _TOMORROW.search(sentence):
        return today + timedelta(days=1)
    later = _IN_WEEKS.search(sentence)
    if later is not None:
        raw = later.group("n").lower()
        n = int(raw) if raw.isdigit() else 1 if raw in ("a", "one") else NUMBER_WORDS[raw]
        return today + timedelta(days=n * 7 if later.group("unit").lower().startswith("w") else n)
    day_only = DAY_ONLY.search(_corrected(sentence, DAY_ONLY))
    if day_only is not None:  # "on the 25th": that day this month, or next month once it is past
        for offset in (0, 1):
            year, month = divmod(today.year * 12 + today.month - 1 + offset, 12)
            try:
                found = date(year, month + 1, int(day_only.group("dd")))
            except ValueError:
                continue
            if found >= today:
                return found
    weekday = WEEKDAY.search(sentence)
    if weekday is not None and not weekday.group("plural") and not weekday.group("part"):
        target = WEEKDAYS.index(weekday_name(weekday.group("day")))
        if _PAST.search(sentence) and not _MOVE.search(sentence):  # "I had a great time at choir on Thursday"
            return today - timedelta(days=(today.weekday() - target) % 7 or 7)
        ahead = (target - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    return None


def _clock(hour: str, minute: str | None, marker: str | None, evening: bool) -> tuple[int, int]:
    h = 12 if hour.lower() in ("noon", "midday") else int(hour)
    m = int(minute) if minute else 0
    pm = marker.lower().startswith("p") if marker else None
    if pm is None:
        pm = evening or 1 <= h <= 6
    if pm and h < 12:
        h += 12
    if marker and not pm and h == 12:
        h = 0
    return h, m


_INLINE_CORRECTION = re.compile(r"(?<=\w)[,;.]?\s+(?:no\s+wait|no,?\s+sorry|sorry|i\s+mean|no|actually|make\s+that|"
                                r"correction)\b[,:]?", re.I)


def _corrected(sentence: str, pattern: re.Pattern[str] | None, context: Context | None = None) -> str:
    """The words after the sentence's last inline correction when they give what `pattern`
    finds (or, without one, a date): "every Tuesday, sorry, Wednesday" -> "Wednesday"."""
    for fix in reversed(list(_INLINE_CORRECTION.finditer(sentence))):
        tail = sentence[fix.end():]
        if pattern is not None and pattern.search(tail) or \
                pattern is None and context is not None and dates_and_times_at(tail, context.timestamp)[0]:
            return tail
    return sentence


def _times(sentence: str) -> list[str]:
    """[start] or [start, end] as HH:MM, or [] when the sentence gives no time of day; after
    an inline correction ("at 10, no wait, 10:30") the corrected time."""
    evening = _EVENING.search(sentence) is not None and _MORNING.search(sentence) is None
    for fix in reversed(list(_INLINE_CORRECTION.finditer(sentence))):
        corrected = _times_in(sentence[fix.end():], evening)
        if corrected:
            return corrected
    return _times_in(sentence, evening)


def _times_in(sentence: str, evening: bool) -> list[str]:
    for match in _RANGE.finditer(sentence):
        before = sentence[:match.start()]
        if _MONTH_WORD.search(before) or re.search(r"[$#]\s*$", before):
            continue
        h1, h2 = match.group("h1"), match.group("h2")
        if (h1.isdigit() and (int(h1) > 23 or int(h1) > 12 and not match.group("m1"))) or \
                (h2.isdigit() and int(h2) > 23):
            continue
        a1, a2 = match.group("a1"), match.group("a2")
        end = _clock(h2, match.group("m2"), a2, evening)
        if a1 is None and a2 is not None and h1.isdigit():
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
    if at is not None and (not at.group("h").isdigit() or int(at.group("h")) <= 12):
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
    ticket = re.match(r"tickets?\s+(?:for|to)\s+(?:the\s+)?(?P<name>.+)", noun.group(0), re.I)
    if ticket is not None:
        return ticket.group("name")  # "tickets for the Coldplay show" -> "Coldplay show"
    words = re.findall(r"[\w'-]+", sentence[:noun.start()])
    kept: list[str] = []
    for word in reversed(words[-2:]):
        if word.casefold() in _TITLE_STOP or WEEKDAY.fullmatch(word) or word[0].isdigit() or \
                word.casefold().endswith("'s"):
            break
        kept.insert(0, word)
    text = " ".join([*kept, noun.group(0)])
    if re.match(r"^volunteer", noun.group(0), re.I):
        after = re.match(r"\s+(?:at|for)\s+(?:the\s+)?(?P<what>[\w ]+?)(?=[,.;]|\s+(?:from|on|at|every|each|weekly|"
                         r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|\d)\b|$)",
                         sentence[noun.end():], re.I)
        if after is not None:
            text = f"{after.group('what')} volunteering"
    return text


_CLINICIAN = re.compile(r"\b(?:dentist|orthodontist|pediatrician|dermatologist|optometrist|ophthalmologist|"
                        r"cardiologist|gynecologist|physiotherapist|chiropractor|vet|GP)\b", re.I)


def _provider(sentence: str, context: Context) -> str | None:
    technician = re.search(r"\b(?:(?P<who>[A-Z][\w&'-]+)\s+)?technician\b", sentence)
    if technician is not None:
        company = technician.group("who") or _company(sentence)
        return f"{company} technician" if company else "technician"
    named = care_named(sentence)
    if named is not None:
        return named
    if re.search(r"\b(?:dental|teeth)\b", sentence, re.I):
        return "dentist"
    clinician = _CLINICIAN.search(sentence)
    if clinician is not None:
        return clinician.group(0).lower()
    return context.care


_PLACE_END = frozenset("every each weekly for from until till through thru starting at and to with".split())


def _place_words(words: list[str]) -> list[str]:
    """A place's words, up to the first that is a weekday, a number or a schedule word
    ("the animal shelter Sundays 1-4" -> "the animal shelter")."""
    kept: list[str] = []
    for word in words:
        if WEEKDAY.fullmatch(word) or (kept and word[:1].isdigit() and not re.match(r"\d+(?:st|nd|rd|th)$", word)) \
                or word.casefold() in _PLACE_END:
            break
        kept.append(word)
    while kept and kept[-1].casefold() in ("on", "of"):
        kept.pop()
    return kept


def _company(sentence: str) -> str | None:
    """The firm a technician comes from: "I contacted Whirlpool and a technician ...",
    "a technician from Bosch"."""
    match = re.search(r"\b(?:contacted|called|rang|emailed|from|with)\s+(?P<who>(?-i:[A-Z][\w&'-]+))", sentence)
    if match is None or match.group("who").casefold() in _TITLE_STOP or WEEKDAY.fullmatch(match.group("who")):
        return None
    return match.group("who")


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
        if _NOT_LOCATION.match(where) or WEEKDAY.match(where.removeprefix("the ")):
            continue
        words = where.split()
        while words and words[0].casefold() in ("the", "their", "his", "her", "our", "my"):
            words.pop(0)
        words = _place_words(words)
        if not words:
            continue
        if "on" in words[1:] and words[0][:1].isupper():  # "Core Motion on 3rd Ave": venue, street
            cut = words.index("on", 1)
            return f"{' '.join(words[:cut])}, {' '.join(words[cut + 1:])}" if words[cut + 1:] else " ".join(words[:cut])
        return " ".join(words) or None
    return None

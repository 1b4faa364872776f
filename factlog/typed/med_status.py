"""When and whether a medication is taken, from the words around its name: `status`
("stopped", "planned", "current") and the `start_date` / `end_date` a sentence gives.

- stopped: "stopped", "quit", "finished", "came off", "off the X", "was on X", "switched from
  X", "last dose", a single dose taken on an earlier day, a course said of long ago;
- planned: "will start", "starting tomorrow", a start day after the session's day;
- a date after a start cue starts it, after "until"/"ends"/"stopped" ends it; a weekday alone
  is the last one ("started Monday") or the next ("until Friday", "I'll start on Friday");
  "for ten days" ends it start + 9 days; "last week" and other vague dates give no day; a new
  prescription, course or dose today starts on the session's day (not a refill).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.recognizers import WEEKDAYS
from factlog.timeparse import parse_date
from factlog.typed.common import DAY_ONLY, Cue, dates_by_cue
from factlog.typed.doses import course_days
from factlog.typed.model import Context

MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
               "dec")
# a new prescription or course (it starts on the session's day when no day is said)
NEW = re.compile(
    r"\b(?:prescrib\w*|said (?:to )?take|told (?:me|him|her|us) to take|gave (?:me|him|her)|give it|gave it|"
    r"wrote (?:me|him|her|us) (?:a |an )?(?:new )?(?:script|scrip|prescription|rx)|"
    r"started|starting|put (?:me|him|her) on|been started on|took|switch\w*|chang\w*|replac\w*)\b",
    re.I,
)
_STOP = re.compile(
    r"\b(?:stopped|stop(?:ping)?|quit|discontinued|came off|went off|(?:taken|took) (?:me |him |her )?off|"
    r"no longer (?:on|taking|take)|not (?:on|taking) (?:the |my )?\S+ anymore|finished|done with|used to take|"
    r"ran out of|got off|(?:last|final) (?:dose|pill|tablet)|(?:was|were) (?:on|taking))\b|"
    r"\boff\s+(?:of\s+)?(?:the\s+|my\s+|his\s+|her\s+)?$|"
    # "took my last sertraline on the 16th", "had the final dose of the prednisolone"
    r"\b(?:took|had|swallowed)\s+(?:my|the|his|her)\s+(?:very\s+)?(?:last|final)\s+(?:(?:dose|one|pill|tablet)\s+of\s+"
    r"(?:the\s+|my\s+)?)?$",
    re.I,
)
# a pause, not an end: "paused", "put on hold", "holding off on", "taking a break from" (status "paused")
_PAUSE = re.compile(r"\b(?:paused|pausing|pause|(?:put|putting) (?:\w+ )?on hold|holding off on|hold off on|"
                    r"(?:taking|took|take) a break from)\b", re.I)
_PAUSED_AFTER = re.compile(r"^\s*(?:(?:is|was|'s|are|were|has been|have been)\s+)?(?:on hold|paused)\b", re.I)
SWITCH_FROM = re.compile(
    r"\b(?:switch|chang|mov|swapp?|went(?!\s+(?:with|for|ahead))|replac)\w*\s+(?!(?:by|with)\s)(?:\w+\s+){0,2}(?:from\s+)?"
    r"(?:the\s+|my\s+)?$", re.I)
SWITCH_TO = re.compile(r"^\s*(?:to|onto|over to|for|with)\s+(?:the\s+)?$", re.I)
_PLANNED = re.compile(r"\b(?:(?:will|'ll|gonna|going to) (?:start|begin)|to be started|"
                      r"wants? (?:me|him|her|us|them) (?:on|to (?:start|take|try))|"
                      r"start(?:ing|s)? (?:next|tomorrow|tmrw|tmr)|due to (?:start|begin)|should start|"
                      r"supposed to start|"
                      r"begin(?:s|ning)? (?:next|tomorrow|on))\b", re.I)
_START = Cue("start", re.compile(r"\b(?:start\w*|since|began|begun|from|took|took it|first dose)\b", re.I))
_END = Cue("end", re.compile(r"\b(?:until|till|through|thru|ending|ends|stopped|stop|quit|finished|done|"
                             r"last dose)\b", re.I))
_FROM_TO = re.compile(r"\bfrom\b.+\b(?:to|until|till|through|thru)\b|\bfrom\b.+\d\s*[-–]\s*\w", re.I)
_ENDS = re.compile(r"\b(?:ends?|ending|finishes|runs? out|last dose is|through|until|till)\b", re.I)
_LONG_AGO = re.compile(rf"\b(?:last (?:year|month|spring|summer|fall|autumn|winter)|years? ago|months? ago|"
                       rf"as a (?:kid|child|baby)|when (?:i|he|she) was|in (?:{'|'.join(MONTH_NAMES)})|back in)\b",
                       re.I)
_REFILL = re.compile(r"\b(?:refill|filled)", re.I)
_LAST_NIGHT = re.compile(r"\blast night\b", re.I)
_VAGUE = re.compile(r"\b(?:last|this|past) (?:week|month|year|spring|summer|fall|autumn|winter)\b|"
                    r"\b(?:a few|several|couple(?: of)?|some) (?:days|weeks|months|years) ago\b|"
                    r"\bearlier this (?:week|month|year)\b", re.I)
TODAY = re.compile(r"\b(?:today|this morning|tonight|first dose)\b", re.I)
_WEEKDAY = re.compile(rf"\b(?P<lead>last|this|next|on|since|until|till|through)?\s*"
                      rf"(?P<weekday>(?:{'|'.join(WEEKDAYS)})day)\b", re.I)
_THEN_COURSE = re.compile(r"\btoday\b[^.]*\bthen\b[^.]*\bfor\b", re.I)
FOLLOW_STOP = re.compile(r"\b(?:stopped|quit|finished|discontinued|done with)\s+(?:it|them|that|those|taking it)\b",
                          re.I)


_TEXTED_TOMORROW = re.compile(r"\b(?:tmrw|tmr|tmw|2moro|2morrow|tmoro)\b", re.I)


def status_of(before: str, after: str, inherited: str | None, *, previous_switch: bool) -> str | None:
    """stopped / planned / current from the words before the drug (the last cue wins), a stop
    said after it ("Zoloft, stopped that"), or the drug listed before it."""
    if previous_switch and SWITCH_TO.match(before):
        return "current"
    if SWITCH_FROM.search(before):
        return "stopped"
    if _PAUSED_AFTER.match(after):
        return "paused"  # "put my sertraline on hold", "the warfarin is on hold"
    cues = sorted([(m.start(), "stopped") for m in _STOP.finditer(before)]
                  + [(m.start(), "paused") for m in _PAUSE.finditer(before)]
                  + [(m.start(), "planned") for m in _PLANNED.finditer(before)]
                  + [(m.start(), "current") for m in NEW.finditer(before)])
    if cues:
        return cues[-1][1]
    if re.match(r"^\W*(?:[-–—,]\s*)?(?:which\s+)?(?:i\s+|we\s+|he\s+|she\s+)?(?:stopped|quit|discontinued|"
                r"finished)\b|^[^.]*\b(?:was|were|got) (?:stopped|discontinued)\b|"
                r"^\W*(?:course\s+)?(?:is|are|was|were|'s)\s+(?:all\s+)?(?:finished|done|over|gone)\b|"
                r"^[^.;]*?\(?\s*(?:replaced|swapped|substituted)\s+(?:by|with)\s+(?:the\s+|my\s+)?$", after, re.I) \
            or FOLLOW_STOP.search(after):
        return "stopped"
    if re.search(r"\b(?:will start|starts? (?:tomorrow|next)|starting (?:tomorrow|next))\b", after, re.I):
        return "planned"
    return inherited


def _weekday(sentence: str, today: date) -> tuple[str, date] | None:
    """ "started Monday" (the last one), "until Friday" (the next one): (lead, day)."""
    found = _WEEKDAY.search(sentence)
    if found is None:
        return None
    weekday = WEEKDAYS.index(found.group("weekday").lower()[:-3])
    lead = (found.group("lead") or "").lower()
    ending = _ENDS.search(sentence[:found.start()]) is not None
    lead = "until" if ending and lead in ("", "on") else lead
    ahead = lead in ("next", "until", "till", "through") or bool(
        re.search(r"(?:\bwill\b|'ll\b|\bstart(?:s|ing)? (?:on )?$)", sentence[:found.start()], re.I))
    if ahead:
        return lead, today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    return lead, today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)


def dates_and_status(sentence: str, context: Context, before: str, status: str, *, new: bool = True
                     ) -> dict[str, JsonValue]:
    """The status and days of the drug named after `before`; `new`: its words start it (a
    prescription, a course, a dose today), so it starts on the session's day when no day is said."""
    fields: dict[str, JsonValue] = {}
    today = context.timestamp.date() if context.timestamp is not None else None
    paused = status == "paused"  # its days are read as a stop's, its status kept
    status = "stopped" if paused else status
    sentence = _TEXTED_TOMORROW.sub("tomorrow", sentence)  # "starting tmrw morning"
    found = dates_by_cue(sentence, context, (_START, _END))
    start: str | None = found["start"][0] if found.get("start") else None
    end: str | None = found["end"][0] if found.get("end") else None
    if end is None and len(found.get("start", [])) == 2 and _FROM_TO.search(sentence):  # "from March 3 to March 10"
        end = found["start"][1]
    loose = found.get("", [])
    day_said = DAY_ONLY.search(sentence)
    if today is not None and day_said is not None and _starts_ahead(sentence, day_said.start()):
        ahead = _next_day_of_month(int(day_said.group("dd")), today)  # "I start X on the 31st": the next 31st
        said = [start, *loose]
        if ahead is not None and any(d is not None and d[8:] == f"{int(day_said.group('dd')):02d}" and d < ahead
                                     for d in said):
            start, loose = ahead, [d for d in loose if d[8:] != ahead[8:]]
    if today is not None and _LAST_NIGHT.search(sentence) and not (start or end or loose):
        loose = [(today - timedelta(days=1)).isoformat()]
    if _VAGUE.search(sentence) and len(loose) + (start is not None) + (end is not None) == 1:
        start = end = None  # "last week": no day to give
        loose = []
    if today is not None and not (start or end or loose) and (ordinal := _past_day(sentence, today)) is not None:
        loose = [ordinal]  # "started the Xarelto on the 3rd": the last 3rd
    elif today is not None and not (start or end or loose) and (day_only := DAY_ONLY.search(sentence)) is not None \
            and _starts_ahead(sentence, day_only.start()):
        start = _next_day_of_month(int(day_only.group("dd")), today)  # "I start X on the 31st": the next 31st
    day = _weekday(sentence, today) if today is not None and not (start or end or loose) else None
    if day is not None:
        lead, when = day
        if lead in ("until", "till", "through"):
            end = when.isoformat()
        elif status == "stopped":
            end = when.isoformat()
        else:
            start = when.isoformat()
    past_dose = re.search(r"\b(?:took|had)\s*(?:(?:a|an|one|two|three|some|my|the|\d+)\s+)?$", before,
                          re.I) is not None
    if past_dose and not (start or end or loose) and _LONG_AGO.search(sentence):
        fields["status"] = "paused" if paused else "stopped"  # "I had a Z-Pak in January": no day to give
        return fields
    if past_dose and start is None and loose:
        start = loose[0]
    if past_dose and start is None and today is not None:
        start = _previous_day(context)
        if start is None and course_days(sentence) is not None and not TODAY.search(sentence):
            fields["status"] = "stopped"  # "I took amoxicillin for 10 days in January": a past course
            return fields
        start = start or today.isoformat()
    if status == "stopped" and end is None and start is not None and not past_dose:
        start, end = None, start  # "been off lisinopril since March 1"
    if status == "stopped" and end is None and loose and not past_dose:
        end = loose[0]
    if status == "stopped" and end is None and today is not None and TODAY.search(sentence):
        end = today.isoformat()
    if start is None and loose and status != "stopped" and re.search(r"\b(?:start|since|began|begin)", sentence, re.I):
        start = loose[0]
    if start is None and today is not None and status != "stopped" and not _VAGUE.search(sentence) \
            and not _REFILL.search(sentence) and new and not _LONG_AGO.search(sentence):  # "in July when I started"
        start = today.isoformat()
    if past_dose and start is not None and today is not None and parse_date(start) < today:
        status, end = "stopped", start
    if start is not None and today is not None and parse_date(start) > today and status == "current":
        status = "planned"
    if start is not None:
        fields["start_date"] = start
    days = taper_days(sentence) or course_days(sentence)
    if days is not None and start is not None and end is None:
        days += 1 if _THEN_COURSE.search(sentence) and taper_days(sentence) is None else 0
        end = (parse_date(start) + timedelta(days=days - 1)).isoformat()
    if end is not None:
        fields["end_date"] = end
    fields["status"] = "paused" if paused and status == "stopped" else status
    return fields


_STEP_COURSE = re.compile(r"\bfor\s+(?:the\s+next\s+|another\s+)?\w+\s+(?:days?|weeks?|wks?)\b", re.I)


def taper_days(sentence: str) -> int | None:
    """The length of a course told in steps joined by "then", each with its own length ("30 mg a day
    for 5 days, then 15 mg a day for 5 days, then done" -> 10); None for fewer than two steps."""
    steps = re.split(r"\bthen\b", sentence, flags=re.I)
    lengths = [course_days(found.group(0)) for step in steps if (found := _STEP_COURSE.search(step)) is not None]
    if len(lengths) < 2 or any(n is None for n in lengths):
        return None
    return sum(n for n in lengths if n is not None)


def _past_day(sentence: str, today: date) -> str | None:
    """A day of the month said alone after a start or stop ("started on the 3rd"): the last such day."""
    found = DAY_ONLY.search(sentence)
    cues = r"\b(?:start\w*|began|since|stopped|finished|quit|last)\b"
    if found is None or not re.search(cues, sentence[:found.start()], re.I) or _starts_ahead(sentence, found.start()):
        return None
    return _day_of_month(int(found.group("dd")), today, ahead=False)


# a start said ahead, in the present or future: "I start phenelzine on the 31st", "starting it on the 2nd"
_AHEAD_START = re.compile(r"\b(?:start(?:s|ing)?|begin(?:s|ning)?)\b", re.I)
_BEFORE_AHEAD = re.compile(r"\b(?:been|was|were|had|have|has)\s+(?:\w+\s+)?$", re.I)


def _starts_ahead(sentence: str, position: int) -> bool:
    """The last start or stop cue before `position` is a start said ahead ("I start ... on the 31st")."""
    cues = list(re.finditer(r"\b(?:start\w*|began|begun|begin\w*|since|stopped|finished|quit|last|took)\b",
                            sentence[:position], re.I))
    return bool(cues) and _AHEAD_START.fullmatch(cues[-1].group(0)) is not None and \
        _BEFORE_AHEAD.search(sentence[:cues[-1].start()]) is None


def _next_day_of_month(number: int, today: date) -> str | None:
    """The next day numbered `number` on or after today."""
    return _day_of_month(number, today, ahead=True)


def _day_of_month(number: int, today: date, *, ahead: bool) -> str | None:
    """The day numbered `number` in this month or the next (`ahead`: on or after today) or the
    last (else: on or before today); None when neither month has it."""
    month = today.replace(day=1)
    for _ in range(2):
        try:
            day = month.replace(day=number)
        except ValueError:
            day = None
        if day is not None and (day >= today if ahead else day <= today):
            return day.isoformat()
        month = (month + timedelta(days=32)).replace(day=1) if ahead else (month - timedelta(days=1)).replace(day=1)
    return None


def _previous_day(context: Context) -> str | None:
    """A day before today the sentence before this one gave ("Had a headache yesterday. Took two Tylenol.")."""
    if len(context.said) < 2 or context.timestamp is None:
        return None
    earlier = dates_by_cue(context.said[-2], context, ())
    days = [d for values in earlier.values() for d in values if parse_date(d) < context.timestamp.date()]
    return days[0] if days else None

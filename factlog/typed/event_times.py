"""When an event is, for `factlog.typed.events`: its day against the session's timestamp
and its times of day.

- Days: a date the sentence gives ("move it from April 2 to April 9" keeps the last; an
  inline correction, "the 13th, no sorry, the 20th", the corrected one), "tmrw", "in 3
  wks", "the 14th" (the next 14th), a weekday (the next such day; the last one in a
  past-tense sentence).
- Times: "2-4pm", "from 10:00 to 11:30 AM", "6.30pm", "start 11.30am", "noon to 1:30", "8 to 9" (morning
  unless "evening", "night", "pm" or an evening outing such as a concert or tickets; an hour from 1 to
  6 without one is afternoon unless the sentence says morning; 7 to 9 is evening for an
  after-work activity: "choir at 7"), "between 8 and noon", "at 10", "9am", "7p to 7a" (a
  night shift: the end is before the start), clock words ("half past six", "seven thirty",
  "at seven", "quarter to eight"), "is noon", "at 7 ... till about nine", "doors at 6, show
  at seven" (the show's); hours 0-23 and minutes 00-59 only; not "2 to 4 weeks".
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from factlog.recognizers import NUMBER_WORDS, dates_and_times_at
from factlog.relative_dates import next_month_day
from factlog.timeparse import parse_date
from factlog.typed.common import DAY_ONLY
from factlog.typed.model import Context
from factlog.typed.recurrence import WEEKDAY, WEEKDAYS, weekday_name

RANGE = re.compile(
    r"(?<![\w:/.-])(?:from\s+|between\s+)?(?P<h1>\d{1,2}|noon|midday)(?:[:.](?P<m1>[0-5]\d))?"
    r"(?:\s*(?P<a1>[ap]\.?m\.?)|(?P<b1>[ap])(?![\w]))?\s*"
    r"(?:-|–|—|to|until|till|and)\s*(?P<h2>\d{1,2}|noon|midday)(?:[:.](?P<m2>[0-5]\d))?"
    r"(?:\s*(?P<a2>[ap]\.?m\.?)|(?P<b2>[ap])(?![\w]))?(?![\w/-])"
    r"(?!\s*(?:weeks?|wks?|days?|months?|years?|hours?|hrs?|minutes?|mins?|people|kids|times|%)\b)",
    re.I,
)  # "7p to 7a": a nurse's shift
_AT = re.compile(r"\b(?:at|@)\s+(?P<h>\d{1,2}|noon|midday)(?:[:.](?P<m>[0-5]\d))?\s*(?P<a>[ap]\.?m\.?)?"
                 r"(?![\w/:-]|\.\d)", re.I)
_BARE = re.compile(r"(?<![\w:/.$])(?P<h>\d{1,2}):(?P<m>[0-5]\d)\s*(?P<a>[ap]\.?m\.?)?(?![\w:/-])", re.I)
# "start 11.30am", "doors 6.45 pm": a dotted clock time needs its am/pm ("2.50" may be money)
_DOTTED = re.compile(r"(?<![\w:/.$])(?P<h>\d{1,2})\.(?P<m>[0-5]\d)\s*(?P<a>[ap]\.?m\b\.?)", re.I)
_MONTHS = ("january february march april may june july august september october november december").split()
_MONTH_WORD = re.compile(r"\b(?:" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.?\s*$", re.I)
_EVENING = re.compile(r"\b(?:evening|evenings|night|nights|tonight|afternoon|afternoons|pm|p\.m\.|party|dinner|"
                      r"concert|gig|show|drinks|opera|musical|movie|symphony|philharmonic|theat(?:re|er)|tickets?|"
                      r"date night)\b", re.I)
# activities people do after work: "choir at 7" is 7 PM (an hour from 7 to 9 without am/pm)
_AFTER_WORK = re.compile(r"\b(?:choir|rehearsals?|book club|bible study|trivia|poker|band practice|tickets?)\b", re.I)
_MORNING = re.compile(r"\b(?:morning|mornings|am|a\.m\.)\b", re.I)
_TOMORROW = re.compile(r"\b(?:tmrw|tmr|tomorrow|tmw)\b", re.I)
_IN_WEEKS = re.compile(rf"\bin\s+(?P<n>\d{{1,2}}|a|one|{'|'.join(NUMBER_WORDS)})\s+(?P<unit>days?|wks?|weeks?)\b", re.I)
_UNITS = (r"(?!\s*(?:weeks?|wks?|days?|months?|years?|yrs?|hours?|hrs?|minutes?|mins?|people|persons|kids|times|"
          r"sessions?|classes|lessons|pills?|tablets?|dollars|bucks|point|stage|time|%)\b)")
_STARTS_AT = re.compile(r"\b(?:show|starts?|begins?|curtain|kick-?off|kicks off|tip-?off|first pitch)\s*$", re.I)
_UNTIL_CLOCK = re.compile(r"[^.;]*?\b(?:goes|runs|lasts|going|running)?\s*(?:till|until|til|to)\s+"
                          r"(?:about\s+|around\s+)?"
                          r"(?P<h>\d{1,2}|noon)(?:[:.](?P<m>[0-5]\d))?\s*(?P<a>[ap]\.?m\.?)?(?![\w/:-])" + _UNITS, re.I)
# an hour said loosely: "around 6", "usually 7", "about 8:30pm" (not "around 6 weeks")
_ABOUT = re.compile(r"\b(?:around|about|roughly|approximately|approx\.?|circa|usually|normally|generally)\s+"
                    r"(?P<h>\d{1,2})(?:[:.](?P<m>[0-5]\d))?\s*(?P<a>[ap]\.?m\.?)?(?![\w/:%-]|\.\d)" + _UNITS
                    + r"(?!\s*(?:people|guests|of|or|\$))", re.I)
_NOON = re.compile(r"\b(?:is|at|@|from|around|by)\s+(?:noon|midday)\b", re.I)
PAST = re.compile(r"\b(?:following|after|had|was|went|saw|is done|got it|already (?:had|did|went))\b", re.I)
MOVE = re.compile(r"\b(?:move|moved|moving|reschedul\w*|push(?:ed)?|shift(?:ed)?\s+(?:it|them|him|her|us|me)\b)\b",
                  re.I)


# a day that dates something else than the event: "since Monday", "last Tuesday", "booked it on Monday"
_BOOKED_WHEN = re.compile(r"\b(?:since|ever since|as of last|last|booked(?: it| this| that)? on|signed up on|"
                          r"registered on|enrolled on)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|yesterday|"
                          r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|"
                          r"the\s+\d{1,2}(?:st|nd|rd|th)?(?:\s+of\s+[a-z]+)?|week|month)\b", re.I)


def today_of(context: Context) -> date | None:
    return context.timestamp.date() if context.timestamp is not None else None


def first_on_or_after(start: date, weekday: int) -> date:
    return start + timedelta(days=(weekday - start.weekday()) % 7)


def day_of(sentence: str, context: Context) -> date | None:
    """The day a dated event is on (None when the sentence names none)."""
    if context.timestamp is None:
        return None
    today = context.timestamp.date()
    sentence = _BOOKED_WHEN.sub(" ", sentence)  # "I have booked since Monday a course": the booking's day
    dates = [value for _, value in dates_and_times_at(sentence, context.timestamp)[0]]
    day_first = _day_first(sentence, today)
    if day_first is not None:
        return day_first
    if dates:
        fixed = [value for _, value in dates_and_times_at(corrected(sentence, None, context), context.timestamp)[0]]
        found = parse_date(dates[-1] if MOVE.search(sentence) else fixed[0] if fixed else dates[0])
        return _ahead(found, sentence, today)
    return _undated_day(sentence, today)


_WEEKDAY_THE_DAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b",
                              re.I)


def _ahead(found: date | None, sentence: str, today: date) -> date | None:
    """ "Wednesday the 18th" said of a plan: the next such day, not last month's nearer one
    (an event told in the past tense keeps the day the recognizer found)."""
    if found is None or found >= today or PAST.search(sentence) or not _WEEKDAY_THE_DAY.search(sentence):
        return found
    for months in range(1, 5):
        year, month = divmod(found.year * 12 + found.month - 1 + months, 12)
        try:
            later = date(year, month + 1, found.day)
        except ValueError:
            continue
        if later.weekday() == found.weekday():
            return later
    return found


_PAST_TENSE = re.compile(r"\b(?:was|were|had|went|did|saw|got back|came back|attended)\b", re.I)


def _last_month_day(day: int, today: date) -> date | None:
    """The day-of-month `day` this month if it is not after today, else last month's."""
    for back in (0, 1):
        year, month = divmod(today.year * 12 + today.month - 1 - back, 12)
        try:
            found = date(year, month + 1, day)
        except ValueError:
            continue
        if found <= today:
            return found
    return None


def _undated_day(sentence: str, today: date) -> date | None:
    """The day of a sentence that gives no date the recognizer finds: "tmrw", "in 3 wks",
    "the 14th", a weekday."""
    if _TOMORROW.search(sentence):
        return today + timedelta(days=1)
    later = _IN_WEEKS.search(sentence)
    if later is not None:
        raw = later.group("n").lower()
        n = int(raw) if raw.isdigit() else 1 if raw in ("a", "one") else NUMBER_WORDS[raw]
        return today + timedelta(days=n * 7 if later.group("unit").lower().startswith("w") else n)
    day_only = DAY_ONLY.search(corrected(sentence, DAY_ONLY))
    if day_only is not None and MOVE.search(sentence):  # "moved it from the 10th to the 17th": the new day
        day_only = list(DAY_ONLY.finditer(sentence))[-1]
    if day_only is not None and _PAST_TENSE.search(sentence) and not MOVE.search(sentence):
        last = _last_month_day(int(day_only.group("dd")), today)  # "I was at a funeral on the 1st": gone by
        if last is not None:
            return last
    if day_only is not None:  # "on the 25th": that day this month, or next month once it is past
        found = next_month_day(int(day_only.group("dd")), today)
        if found is not None:
            return found
    weekday = WEEKDAY.search(sentence)
    if weekday is not None and not weekday.group("plural") and not weekday.group("part"):
        target = WEEKDAYS.index(weekday_name(weekday.group("day")))
        if PAST.search(sentence) and not MOVE.search(sentence):  # "I had a great time at choir on Thursday"
            return today - timedelta(days=(today.weekday() - target) % 7 or 7)
        ahead = (target - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    return None


# "Tue 10/03", "Friday 13/3": a weekday then a numeric date
_WEEKDAY_NUMERIC = re.compile(r"\b(?P<day>mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+"
                              r"(?P<a>\d{1,2})[/.](?P<b>\d{1,2})(?:[/.](?P<y>\d{2,4}))?\b", re.I)


def _day_first(sentence: str, today: date) -> date | None:
    """A numeric date after a weekday read day first when only that reading falls on the
    weekday ("Tue 10/03" in March 2026 is 10 March, not 3 October, a Saturday); None when the
    month-first reading agrees with the weekday or neither does."""
    found = _WEEKDAY_NUMERIC.search(sentence)
    if found is None:
        return None
    weekday = WEEKDAYS.index(weekday_name(found.group("day")))
    a, b = int(found.group("a")), int(found.group("b"))
    year = found.group("y")

    def near(month: int, day: int) -> date | None:
        years = [int(year) + (2000 if len(year) == 2 else 0)] if year else [today.year - 1, today.year, today.year + 1]
        options = []
        for y in years:
            try:
                options.append(date(y, month, day))
            except ValueError:
                continue
        return min(options, key=lambda d: abs((d - today).days), default=None)

    month_first, day_first = near(a, b), near(b, a)
    if month_first is not None and month_first.weekday() == weekday:
        return None
    return day_first if day_first is not None and day_first.weekday() == weekday else None


def _clock(hour: str, minute: str | None, marker: str | None, evening: bool | None,
           late: bool = False) -> tuple[int, int]:
    """`evening` True or False when the sentence says evening or morning, None when it says neither
    (then an hour from 1 to 6 is in the afternoon, and from 7 to 9 too when `late`: "choir at 7")."""
    h = 12 if hour.lower() in ("noon", "midday") else int(hour)
    m = int(minute) if minute else 0
    pm = marker.strip().lower().startswith("p") if marker else None
    if pm is None:
        pm = evening if evening is not None else 1 <= h <= 6 or late and 7 <= h <= 9
    if pm and h < 12:
        h += 12
    if marker and not pm and h == 12:
        h = 0
    return h, m


_INLINE_CORRECTION = re.compile(r"(?<=\w)[,;.]?\s+(?:no\s+wait|no,?\s+sorry|sorry|i\s+mean|no|actually|make\s+that|"
                                r"correction)\b[,:]?", re.I)


def corrected(sentence: str, pattern: re.Pattern[str] | None, context: Context | None = None) -> str:
    """The words after the sentence's last inline correction when they give what `pattern`
    finds (or, without one, a date): "every Tuesday, sorry, Wednesday" -> "Wednesday"."""
    for fix in reversed(list(_INLINE_CORRECTION.finditer(sentence))):
        tail = sentence[fix.end():]
        if pattern is not None and pattern.search(tail) or \
                pattern is None and context is not None and dates_and_times_at(tail, context.timestamp)[0]:
            return tail
    return sentence


def times_of(sentence: str) -> list[str]:
    """[start] or [start, end] as HH:MM, or [] when the sentence gives no time of day; after
    an inline correction ("at 10, no wait, 10:30") the corrected time."""
    sentence = clock_digits(sentence)
    evening_words, morning_words = _EVENING.search(sentence) is not None, _MORNING.search(sentence) is not None
    evening = None if evening_words == morning_words else evening_words
    late = _AFTER_WORK.search(sentence) is not None
    for fix in reversed(list(_INLINE_CORRECTION.finditer(sentence))):
        corrected = _times_in(sentence[fix.end():], evening, late)
        if corrected:
            return corrected
    return _times_in(sentence, evening, late)


_HOUR_WORDS = {word: value for word, value in (*NUMBER_WORDS.items(), ("one", 1)) if 1 <= value <= 12}
_HOUR_WORD = "|".join(sorted(_HOUR_WORDS, key=len, reverse=True))
_MINUTE_WORDS = {"o'clock": 0, "oclock": 0, "fifteen": 15, "thirty": 30, "forty-five": 45, "forty five": 45,
                 "twenty": 20, "ten": 10, "oh five": 5, "forty": 40, "fifty": 50}
_MINUTE_WORD = "|".join(sorted(map(re.escape, _MINUTE_WORDS), key=len, reverse=True))
_PAST = re.compile(rf"\b(?P<part>half|quarter)\s+(?P<rel>past|to|after)\s+(?P<h>{_HOUR_WORD}|\d{{1,2}})\b", re.I)
_WORD_CLOCK = re.compile(rf"\b(?P<h>{_HOUR_WORD}|\d{{1,2}})\s+(?P<m>{_MINUTE_WORD})\b", re.I)
_WORD_HOUR = re.compile(r"(?P<lead>\b(?:at|from|between|till|until|til|by|around|about)\s+|"
                        r"\d(?::\d\d)?\s*(?:[ap]\.?m\.?)?\s*(?:to|and|-|till|until)\s+)"
                        rf"(?P<h>{_HOUR_WORD})\b"
                        r"(?!\s+(?:weeks?|days?|months?|years?|hours?|hrs?|minutes?|mins?|people|persons|kids|times|"
                        r"of|more|or|other|others|sessions?|classes|lessons|pills?|tablets?|dollars|bucks|point|stage|time|go)\b)|"
                        rf"\b(?P<h2>{_HOUR_WORD})(?=\s*(?:[ap]\.?m\b|in the (?:morning|evening|afternoon)|at night|"
                        r"tonight|sharp|-ish)\b)", re.I)


def clock_digits(sentence: str) -> str:
    """Clock times said in words as digits: "half past six" -> "6:30", "quarter to 8" -> "7:45",
    "seven thirty" -> "7:30", "at seven" -> "at 7", "8 o'clock" -> "8:00"."""
    def hour(raw: str) -> int:
        return int(raw) if raw.isdigit() else _HOUR_WORDS[raw.lower()]

    def past(match: re.Match[str]) -> str:
        h = hour(match.group("h"))
        if match.group("part").lower() == "half":
            return f"{h}:30" if match.group("rel").lower() != "to" else match.group(0)
        return f"{h}:15" if match.group("rel").lower() != "to" else f"{(h - 2) % 12 + 1}:45"

    def word_clock(match: re.Match[str]) -> str:
        h = hour(match.group("h"))
        if h > 12 or match.group("h").isdigit() and match.group("m").lower() not in ("o'clock", "oclock"):
            return match.group(0)
        return f"{h}:{_MINUTE_WORDS[match.group('m').lower()]:02d}"

    if not re.search(rf"\b(?:half|quarter|{_HOUR_WORD}|o'?clock)\b", sentence, re.I):
        return sentence
    sentence = _PAST.sub(past, sentence)
    sentence = _WORD_CLOCK.sub(word_clock, sentence)
    def digits(match: re.Match[str]) -> str:
        return (match.group("lead") or "") + str(_HOUR_WORDS[(match.group("h") or match.group("h2")).lower()])

    return _WORD_HOUR.sub(digits, _WORD_HOUR.sub(digits, sentence))  # "from two to four": "from 2", then "2 to 4"


_CLOCK_AFTER = re.compile(r"\s*(?:o'?clock|h|hrs|hours|uhr)\b", re.I)


def _hours_24(sentence: str, match: re.Match[str]) -> bool:
    """A range of bare hours on a 24-hour clock ("from 18 until 20 o'clock", "between 13 and 15h"):
    "from" or "between" before it or a clock word after it, the end after the start, no month."""
    h1, h2 = match.group("h1"), match.group("h2")
    if not (h1.isdigit() and h2.isdigit()) or not 12 < int(h1) < int(h2) <= 23:
        return False
    if re.match(r"\s*(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", sentence[match.end():], re.I):
        return False  # "from 18 to 20 May": days
    return re.match(r"(?:from|between)\s", match.group(0), re.I) is not None or \
        _CLOCK_AFTER.match(sentence, match.end()) is not None


def _times_in(sentence: str, evening: bool | None, late: bool = False) -> list[str]:
    for match in RANGE.finditer(sentence):
        before = sentence[:match.start()]
        if _MONTH_WORD.search(before) and not match.group("m1") or re.search(r"[$#]\s*$", before):  # "March 10-12"
            continue
        h1, h2 = match.group("h1"), match.group("h2")
        if (h1.isdigit() and (int(h1) > 23 or int(h1) > 12 and not match.group("m1") and
                              not _hours_24(sentence, match))) or (h2.isdigit() and int(h2) > 23):
            continue
        a1, a2 = match.group("a1") or match.group("b1"), match.group("a2") or match.group("b2")
        end = _clock(h2, match.group("m2"), a2, evening, late)
        if a1 is None and a2 is not None and h1.isdigit():
            hour1 = int(h1)
            start = _clock(h1, match.group("m1"), a2, evening, late)
            if start > end:  # "11 to 1pm"
                start = (hour1 % 12, start[1])
        else:
            start = _clock(h1, match.group("m1"), a1, evening if a1 is None and a2 is None else False, late)
            if late and start > end:  # "choir 9 to noon": a morning after all
                start = _clock(h1, match.group("m1"), a1, evening if a1 is None and a2 is None else False)
            if a1 is None and a2 is None and start > end and end[0] < 12:
                end = (end[0] + 12, end[1])
        if start == end:
            continue
        return [f"{start[0]:02d}:{start[1]:02d}", f"{end[0]:02d}:{end[1]:02d}"]
    ats = [at for at in _AT.finditer(sentence) if not at.group("h").isdigit() or int(at.group("h")) <= 12]
    at = next((at for at in ats if _STARTS_AT.search(sentence[max(0, at.start() - 14):at.start()])), None) or \
        next(iter(ats), None)  # "doors at 6, show at seven": the show's time
    if at is not None:
        h, m = _clock(at.group("h"), at.group("m"), at.group("a"), evening, late)
        until = _UNTIL_CLOCK.match(sentence, at.end()) or _UNTIL_CLOCK.search(sentence, at.end())
        if until is not None:  # "at 7 ... it goes till about nine"
            end = _clock(until.group("h"), until.group("m"), until.group("a"), evening if h < 12 else True, late)
            if end > (h, m):
                return [f"{h:02d}:{m:02d}", f"{end[0]:02d}:{end[1]:02d}"]
        return [f"{h:02d}:{m:02d}"]
    about = _ABOUT.search(sentence)
    if about is not None and int(about.group("h")) <= 12:  # "around 6", "usually 7"
        h, m = _clock(about.group("h"), about.group("m"), about.group("a"), evening, late)
        return [f"{h:02d}:{m:02d}"]
    if _NOON.search(sentence):  # "spin is noon"
        return ["12:00"]
    bare = _BARE.search(sentence) or _DOTTED.search(sentence)
    if bare is not None and int(bare.group("h")) <= 12:  # "thurs 5:30": afternoon, as "at 5:30"
        h, m = _clock(bare.group("h"), bare.group("m"), bare.group("a"), evening, late)
        return [f"{h:02d}:{m:02d}"]
    found = [value for _, value in dates_and_times_at(sentence, None)[1]]
    return found[:1]

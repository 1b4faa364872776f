"""Appointments, meetings and events from a sentence, recurring ones included ("every
Tuesday 2-4 PM", "every other Thursday", "Mon/Wed/Fri 6-7am"), with dates and times
against the session's timestamp. How often, which weekdays, how long and until when are
`factlog.typed.recurrence`'s.

A sentence is about an event when it names one (`NOUNS`: meeting, standup, class, lessons,
choir, concert, MRI, appointment, "tickets for Hamilton", ...) with a day, a weekday or a
time. A sentence naming none updates the session's last event: corrected times ("Actually
wait, it's 8:30 to 9:30"), the next occurrence ("Next one is on 9 April"), a length ("It
lasts one hour"); or details the event named just before without them ("I signed up for a
pottery class. It's on Tuesday evenings 7 to 9."). Not read: travel sentences whose event
is the trip's purpose ("booked Denver for the conference"), hypotheticals ("maybe",
"thinking about", "if I can get one"), questions, to-dos ("I'll call the dentist"), past
habits ("used to") and events that took place.

- Recurring: `recurrence` ("weekly", "biweekly", "monthly", "twice weekly"), `weekday` (one
  or several, "monday, wednesday, friday"), `start_time` / `end_time` (HH:MM; a length
  gives the end), `start` the first occurrence on or after the day it starts ("starting
  tmrw", else the session's day), `end` the last day ("through the end of June", "for 8
  weeks"). "My Thursday spin class" is the weekly one.
- A series that is over ("my pottery class ended last week", "we stopped the tutoring") is
  an event with `title` and `status` "ended"; "the last class is on April 29" gives its
  `end` (a generic "class" names the session's last event).
- Dated: `start` (ISO date-time, or date without a time), `end` from a range, a length
  ("90 min") or a day range ("March 18 to 20"); weekdays ("thurs", "next tues") are the
  next such day after the session's day (the last one in a past-tense sentence), "tmrw"
  the day after, "the 14th" the next 14th, "in 3 wks" 21 days later; "move it from April 2
  to April 9" keeps the last date; an inline correction ("the 13th, no sorry, the 20th";
  "every Tuesday, sorry, Wednesday") keeps the corrected value.
- Times: "2-4pm", "from 10:00 to 11:30 AM", "6.30pm", "noon to 1:30", "8 to 9" (morning
  unless "evening", "night", "pm" or an evening outing such as a concert; an hour from 1 to
  6 without one is afternoon), "between 8 and noon", "at 10", "9am".
- An appointment (`kind` appointment: "appointment", "appt", a cleaning or checkup, a
  clinician or technician named) has `provider` (the clinician named, "Whirlpool
  technician", the session's last one, or "dentist" for a dental visit); other events have
  `title` and `location` ("Core Motion on 3rd Ave" -> "Core Motion, 3rd Ave").
- "no standup next tues", "cancel my Thursday squash game", "pottery is cancelled next
  week": the occurrence on that day is an event with `status` "cancelled" (its own entity:
  the recurring one stays).
- `subject` / `person` as for medications (`factlog.typed.care`); a parent or the kids as
  the family word ("Mom's dialysis" -> "mother", "the kids' swim lessons" -> "child"), "His
  dialysis" after a sentence about Dad is the father's, "my son noah has karate" keeps Noah,
  and a later line about the same title keeps its subject. Of the assistant's words a
  confirmation naming the session's last event more fully is read ("Got it: weekly team
  standup ..." gives "standup" the title "team standup"), and an agent booking the user in
  ("You're booked for a cleaning with Dr. Lee on ...") is a fact with speaker `assistant`.
- More families: a sentence with an event per clause ("Noah has karate twice a week and I do
  spin on Mondays", "Econ 101 Mon/Wed 10-11:15, Stats Tue/Thu 1-2:15"); a name leading a
  schedule line or what someone has on a weekday ("Kumon Tuesdays 4-5", "I have Spanish on
  Tuesdays at 6"); "daily" / "every morning" (`recurrence` "daily", no weekday); "every three
  weeks" ("every 3 weeks"); "runs for ten weeks" after a first day; a new time for a series an
  earlier session named ("standup is at 10 now": same title, same entity); "we're done with
  that" ends the session's last series; "Choir is off next Thursday" cancels one day.
  Not read: requests ("I need a physio session"), conditionals ("if I sign up ... would be"),
  a dose's day ("put me on Eliquis 5 mg, starting tonight"), lines naming no event.
- Lines that go on about the event just named: its end ("Runs till the end of May.",
  "Ends: 24 June 2026"), a pasted invite's place ("Where: Boardroom 2"), a corrected day or
  time ("No wait, it's the 19th." "Sorry, the 19th at 8, not 8:30": an unmarked hour in the
  half of the day nearer the old one), the clinician ("its dr kim on 5th st btw"), terse
  answers ("Which days?" "mon wed" "What time?" "7 to 7:50 am"), a time for the day the
  sentence before named ("... the technician comes at 08:45 instead"); a series taken up in
  one sentence ("We've started salsa classes!") and scheduled in the next.
- Monthly on a weekday of the month: `weekday` "first monday", "last friday"
  (`recurrence.nth_weekday`). "Same time" keeps the times a series had when it moves. A day
  that dates the booking ("booked since Monday") is not the event's. Someone taking the user
  along ("invited me to the theatre") is the user's event; someone named by title whose diary
  the user keeps ("Mr Osei's board call", then "his ...") keeps that name as `subject`; "dinner
  at my sister's" is the user's, and so is a child's lesson the user drives to and stays at.
- Loose hours ("around 6", "usually 7"); "moved from the 10th to the 17th" keeps the 17th;
  "the 22nd and 23rd" two days running; "next one is the 9th" anchors a biweekly series.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.relations import BARE, FAMILY
from factlog.relations import pattern as relation_pattern
from factlog.timeparse import parse_date
from factlog.typed.care import catch_up, person_of, user_leads
from factlog.typed.common import CORRECTION, conversation_fields
from factlog.typed.drug_names import drug_names
from factlog.typed.event_names import CLINICIANS, TITLE_STOP, TRADES, location_of, practice_of, provider_of, title_of
from factlog.typed.event_times import MOVE, PAST, RANGE, corrected, day_of, first_on_or_after, times_of, today_of
from factlog.typed.model import Context, TypedFact
from factlog.typed.places import place_name
from factlog.typed.recurrence import (
    ENDED,
    WEEKDAY,
    WEEKDAYS,
    cadence,
    minutes_long,
    nth_weekday,
    plus_minutes,
    runs_for_weeks,
    series_end,
    starting,
    weekdays_named,
)
from factlog.typed.stance import is_question, is_tentative, is_to_do
from factlog.typed.trips import AIRLINES, FLIGHT, TRAVEL

DOMAIN = "event"
APPOINTMENT = "appointment"
NOUNS = re.compile(
    r"\b(?:stand-?ups?|meetings?|committee|book club|club|class(?:es)?|lessons?|practice|rehearsals?|"
    r"(?:physical |speech |occupational )?therapy|PT|lunch|brunch|dinner|volunteer\w*|games?|match(?:es)?|"
    r"(?:church )?service|session|check-?ups?|"
    r"(?<!\bme )(?<!\bto )(?<!'ll )(?<!\bwill )(?<!\bcan )(?<!\bby )(?<!\ba )check(?!-in)|"
    r"review|all-hands|offsite|off-site|workshop|seminar|webinar|(?<!\bof )course|tutoring|choir|yoga|pilates|"
    r"check-in calls?|"
    r"training|bootcamp|concert|musical|opera|conference|convention|wedding|(?-i:[A-Z][\w'&-]*)\s+(?:show|gig)|"
    r"bible study|study group|date night|little league|mass|orchestra|band|scouts|youth group|sunday school|"
    r"retro(?:spective)?|town hall|trivia|quiz night|poker night|game night|karaoke|open mic|meet-?up|"
    r"hockey|basketball|baseball|softball|volleyball|football|footy|netball|lacrosse|rugby|cricket|gymnastics|fencing|judo|"
    r"taekwondo|jiu-?jitsu|boxing|kickboxing|martial arts|swim team|tee time|babysitting|"
    r"support group|al-anon|echocardiogram|EKG|ECG|biopsy|lab work|stress test|endoscopy|PET scan|blood draw|"
    r"counsel+ing|(?-i:[A-Z][a-z]{1,10}\s+\d{3}[A-Z]?)|(?<!the )(?<!at )(?<!to )(?<!a )church|"
    r"tickets? (?:for|to) (?:see\s+)?(?:the )?(?-i:[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*)"
    r"(?:\s+(?:tribute\s+)?(?:show|concert|"
    r"gig|game|match|play|musical|tour|band))?|(?:weekly|standing|team|client|sales|zoom|video|"
    r"conference|daily|check-in|board|staff|leadership|investor|status|planning|project|catch-up) calls?|"
    r"(?-i:(?!(?:It|They|This|That|We|He|She|Which|Who)\b)[A-Z][\w'&-]*)"
    r"(?=\s+(?:meets|will meet|meet (?:every|each|weekly|on))\b)|"
    r"dialysis|chemo(?:therapy)?|infusions?|one-to-one|1-on-1|symphony|philharmonic|spin(?: class)?|huddle|scrum|"
    r"lectures?|tutorials?|office hours|on[- ]call|(?<=\bi )work(?=\s+(?:\d|from|nights|days|mornings|evenings|"
    r"weekends|every|(?:mon|tue|wed|thu|fri|sat|sun)))|"
    r"appointments?|appt|cleaning|recital|sync|one-on-one|1:1|interview|finale|party|ceremony|"
    r"visit|consultation|exam|physical|screening|scan|MRI|CT scan|x-ray|ultrasound|mammogram|colonoscopy|"
    r"blood ?work|blood test|follow-up|surgery|procedure|haircut|camp|operation|inspection|"
    r"parents'? evening|parent-teacher (?:conference|night|meeting)|open (?:evening|day)|sports day|school play|"
    r"nativity|prize-?giving|catch-?ups?|mentoring|supervision|coaching session|"
    r"theat(?:re|er)|cinema|exhibition|festival|gala|fundraiser|reunion|funeral|christening|graduation|"
    r"(?:historical |local |film |drama |choral |garden |photographic )?society|guild|association|lodge|"
    r"(?:sewing|knitting|quilting|reading|prayer) circle|"
    r"D&D|dinner(?:\s+and\s+|-)dance|(?:retirement|leaving|farewell|christmas|xmas|office|work|birthday|engagement|hen|"
    r"stag|fundraising) do|debut|rehearsal dinner|(?:baby|bridal|wedding) shower|pub quiz|quiz|run(?:ning)? club|laps|"
    r"five-a-side|futsal|netball|footy|(?:cup |grand )?final|"
    r"(?:farmers'?|craft|flea|night|christmas) market|market stall|minding|childminding|"
    r"mediation|(?:court|custody|tribunal|bail|sentencing) hearing|deposition|court date|"
    r"(?:eye|sight|hearing|driving|theory) test|MOT|car service|flu jab|jab|(?:book |product )?launch|book signing|"
    r"premiere|private view|opening night|smear test|pap smear|bar mitzvah|bat mitzvah|baptism|"
    r"dentist|doctor|vet|orthodontist|pediatrician|dermatologist|therapist|counsel(?:l)?or|technician|plumber|"
    r"electrician|pottery|ceramics|piano|guitar|violin|cello|tennis|golf|soccer|swimming|karate|ballet|dance|zumba|"
    r"ballroom|dancing|salsa|tango|bowls|"
    r"crossfit|gym|bowling|(?<!\bto )(?<!\btae )(?<!\bcan )(?<!\bwill )(?<!'ll )(?<!\bcould )"
    r"shifts?(?!\s+(?:it|him|her|them|things|(?-i:[A-Z]\w+))\s+(?:to|tae|till|until|back)\b)|"
    r"(?-i:(?!(?:The|A|An|My|Our|His|Her|This|That)\b)[A-Z][a-z]+) school|physio|"
    r"psychiatrist|cardiologist|handyman|repairman|"
    r"installer|cable guy|flu shot|vaccinations?|jabs|booster|Dr\.? (?-i:[A-Z][a-z]+)|" + CLINICIANS + r")\b",
    re.I,
)
_APPOINTMENT = re.compile(rf"\b(?:appointments?|appt|cleaning|check-?ups?|consultation|exam|follow-up|dental|doctor|"
                          rf"(?:ortho|derm|chiro|gyno|optom|peds|podiatry)(?=\s+(?:appt|appointment|visit))|"
                          rf"Dr\.?|{CLINICIANS}|{TRADES})\b", re.I)
_CANCEL = re.compile(r"^\W*no\s+(?P<noun>[\w-]+(?:\s+[\w-]+)?)\s+(?:next|this|on)\b|\bcancel(?:l?ed)?\b|"
                     r"\bcalled off\b|\bskip(?:ped|ping)?\b|\b(?:is|are|'s)\s+off\b", re.I)
# the agent of a clinic or a business booking the user in: "You're booked for a cleaning with Dr. Lee on ..."
_AGENT_BOOKED = re.compile(r"\b(?:you(?:'re|’re| are) (?:all )?(?:booked|scheduled|confirmed|set)|"
                           r"I(?:'ve|’ve| have) (?:booked|scheduled|moved|rescheduled) (?:you|your)|"
                           r"your (?:appointment|appt|visit|cleaning|session|consultation|check-?up|follow-up)"
                           r"(?: with [\w. ]+?)? (?:is|has been|was) (?:now )?(?:confirmed|booked|scheduled|moved|"
                           r"rescheduled)|(?:appointment|booking) (?:is )?confirmed)\b", re.I)
# a want, not a booking: "I need a physio session next week"
_WANTS = re.compile(r"^\W*(?:hi|hello|hey)?\W*i(?:'d| would)? (?:need|want|like|would like|'d like) (?:a|an|to)\b",
                      re.I)
# a series joined only on a condition: "if I sign up", "it would be on Mondays"
_CONDITIONAL = re.compile(r"\bif (?:i|we) (?:sign up|join|enrol+|register|decide|take it|go for it)\b|"
                          r"\b(?:would|could) be (?:on )?(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b", re.I)
# "we're done with that", "I quit it": the series the session just named is over
_OVER = re.compile(r"\b(?:(?:done|finished|through) with|quit|stopped|dropped|gave up|cancell?ed)\s+(?:that|it|them)\b|"
                   r"\b(?:that|it)(?:'s| is| has|’s)\s+(?:over|ended|finished)\b|\bit ended\b", re.I)
_SERIES_ENDS = re.compile(r"\b(?:ends|finishes|wraps up|will (?:end|finish|wrap up)|runs (?:until|through|till)|"
                          r"last (?:class|session|lesson|meeting|one) (?:is|will be))\b", re.I)
_NO_LONGER = re.compile(r"\b(?:used to|as a (?:kid|child|teen)|back when|when i was (?:a|in|young|little))\b", re.I)
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
# "on the 22nd and 23rd": two days running
_NEXT_DAY = re.compile(r"\b(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\s+and\s+(?:the\s+)?(?P<dd>\d{1,2})(?:st|nd|rd|th)\b", re.I)
_LENGTH = re.compile(r"\b(?:lasts?|runs?|takes?)\s+(?:about\s+)?(?:\d+|an?|one|two|three)\s+(?:hours?|min)", re.I)
_NOUN_PHRASE = re.compile(rf"(?:{NOUNS.pattern})(?:\s+(?:{NOUNS.pattern}))*", re.I)  # "choir practice"
_ACTIVITY = re.compile(r"pottery|ceramics|piano|guitar|violin|cello|tennis|golf|soccer|swimming|karate|ballet|dance|"
                       r"ballroom|salsa|tango|bowls|zumba|crossfit|gym|bowling|yoga|pilates", re.I)
_GENERIC = frozenset("class classes lesson lessons session meeting one course".split())
# a sentence naming no event that still states one's days, or when the one just named starts
_SERIES_CUE = re.compile(r"\b(?:every|each)\s+(?:other\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
                         r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b", re.I)
_STARTS_NOW = re.compile(r"^\W*(?:(?:and\s+)?(?:it\s+)?(?:starting|starts|beginning|begins|from)\s+(?:next|this)\s+"
                         r"(?:week|month)|(?:and\s+)?(?:it\s+)?(?:starts|begins|starting)\s+(?:on\s+)?(?:tomorrow|tmrw|"
                         r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|the\s+\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
                         r"nov|dec)))", re.I)
# a line naming no event that ends the series just named: "Runs till the end of May.", "Ends: 24 June 2026"
_ENDS_NOW = re.compile(r"^\W*(?:and\s+)?(?:(?:it|that|they|this)(?:'s|’s| is| will)?\s+)?"
                       r"(?:(?:runs?|goes(?: on)?|go(?: on)?|"
                       r"lasts?|continues?|carries on|keeps? going|is on|are on|happens?)\s+(?:until|till|til|through|"
                       r"thru|to)\b|(?:ends?|finish(?:es)?|wraps? up)\s+(?:on\s+|in\s+|at the end of\s+)?(?=\d|the\b|"
                       r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))|(?:until|till|through|thru)\s+the\s+end\s+of\b|"
                       r"for\s+(?:the\s+next\s+)?(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?:weeks|wks)\b|"
                       r"(?:ends|end date|until|last (?:session|class|meeting|occurrence))\s*:)", re.I)
# a pasted invite's place line: "Where: Boardroom 2, Sandton office"
_WHERE_LINE = re.compile(r"^\W*(?:where|location|venue|place|room)\s*:\s*(?P<where>\S.{0,60}?)\s*\.?$", re.I)
# "No wait, it's the 19th", "Sorry, the 19th at 8, not 8:30": a new day (and time) for the dated event just named
_DAY_FIX = re.compile(rf"{CORRECTION.pattern}|^\W*(?:no|nope)\b[,!.]?\s", re.I)
_DAY_FIX_CUE = re.compile(r"\bthe\s+\d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?::\d\d)?\s*(?:[ap]\.?m\b)|\bat\s+\d", re.I)
_NOT_TIME = re.compile(r",?\s*\bnot\s+(?:at\s+)?\d{1,2}(?:[:.]\d\d)?\s*(?:[ap]\.?m\.?)?", re.I)
# who the appointment just named is with, said after it: "its dr kim on 5th st btw", "It's with Dr. Osei."
_PROVIDER_LINE = re.compile(r"^\W*(?:oh\W+|and\W+|also\W+)?(?:it'?s|its|it’s|it is|it will be|that'?s|that’s|"
                            r"the doctor is|"
                            r"doctor is|with)\s+(?:with\s+)?(?:dr\.?|doctor)\s+(?P<name>[a-z][a-z'-]+)\b", re.I)
_LOWER_STREET = re.compile(r"\bon\s+(?P<street>(?:\d+(?:st|nd|rd|th)|[a-z]+)\s+(?:st|street|ave|avenue|rd|road|blvd|"
                           r"lane|ln|drive|dr)\b\.?)", re.I)
# a terse answer naming only weekdays: "mon wed", "Tuesdays and Thursdays", "tue/thu"
_DAYS_ONLY = re.compile(r"\W*(?:(?:on|every|and|&|,|/|\s)*(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)"
                        r"(?:day)?s?\b)+\W*", re.I)
_FIX_LINE = re.compile(rf"(?:{_DAY_FIX.pattern})[^.]*?(?:{_DAY_FIX_CUE.pattern})", re.I)
_DAYS_LINE = re.compile(rf"^(?:{_DAYS_ONLY.pattern})$", re.I)
# "it's now Thursday 3/12, same time", "they moved it to the 17th": a new day for the dated event just named
_MOVED_TO = re.compile(r"\b(?:(?:it'?s|it’s|it is|that'?s|that’s|it has been|it's been)\s+"
                       r"(?:now|been moved to|moved to)|"
                       r"(?:mov(?:e|ed)|reschedul(?:e|ed)|chang(?:e|ed)|push(?:ed)?|shift(?:ed)?|switch(?:ed)?)\s+"
                       r"(?:it\s+|them\s+|us\s+|me\s+)?"
                       r"(?:to|for|until|till|back to)|(?:now|instead)\s+(?:on|for))\s+(?:on\s+)?(?:the\s+)?"
                       r"(?=(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b|\d|(?:jan|feb|mar|apr|may|jun|"
                       r"jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|tomorrow|tmrw|next\b)", re.I)
# an assistant's recap: "Noted: Kirsty's wedding, Saturday 14 March, ceremony 11:00 AM at St Andrew's."
_RECAP = re.compile(r"^\W*(?:(?:ok(?:ay)?|sure|great|perfect|lovely|wonderful|got it|done|right)\W+)?"
                    r"(?:noted|added|got it|saved|logged|booked|scheduled|done|updated|"
                    r"in (?:the|your) (?:calendar|diary))"
                    r"\s*[:,\-–—]\s*(?P<body>\S.*)$", re.I)
_RECAP_TITLE = re.compile(r"^(?:(?:your|the|a|an)\s+)?(?P<title>[^,;:(]{2,60}?)"
                          r"(?:\s+(?:at|in|on|with|from|for)\s+[^,;]*)?"
                          r"\s*,\s*(?P<rest>\S.*)$")  # "community choir at St Mary's, Thursdays": the title
# "It's at St Michael's.", "It's in the church hall": the place of the event just named, on a line of its own
_ITS_AT = re.compile(r"^\W*(?:it'?s|it’s|it is|it will be|it'll be|that'?s)\s+(?:at|in)\s+(?:the\s+)?"
                     r"(?P<where>(?-i:[A-Z])[\w'’&.-]*(?:\s+[\w'’&.-]+){0,5}?)\s*[.!]?$", re.I)
# a pasted invite's lines: "Invitation: Quarterly board review", then "When: Thursday, March 12, 2026 2:00pm - 3:30pm"
_INVITE_TITLE = re.compile(r"^\W*(?P<field>(?:updated\s+)?invitation|event|subject|title|what|meeting)\s*:\s*"
                           r"(?P<title>[^:]{2,80}?)\s*\.?$", re.I)
_WHEN_LINE = re.compile(r"^\W*(?P<field>when|date|time|starts?|date\s*(?:/|and|&)\s*time)\s*:\s*(?P<when>\S.*)$", re.I)
TRIGGERS = (NOUNS, RANGE, _NEXT_ONE, _LENGTH, _SERIES_CUE, _STARTS_NOW, _OVER, _ENDS_NOW, _WHERE_LINE, _FIX_LINE,
            _PROVIDER_LINE, _DAYS_LINE, _MOVED_TO, _RECAP, _INVITE_TITLE, _ITS_AT,
            _WHEN_LINE)  # a sentence without one states no event


# a digression in brackets: "the historical society (I've been a member since 1987, you know ...) meets ..."
_ASIDE = re.compile(r"\s*\((?=[^()]*\s[^()]*\s[^()]*\s)[^()]{20,}\)")


def read(sentence: str, context: Context) -> list[TypedFact]:
    found = _read(sentence, context)
    if found and context.speaker == "user":
        context.last[_TURN] = TypedFact(DOMAIN, None, {"turn": context.turn})
    return found


def _read(sentence: str, context: Context) -> list[TypedFact]:
    if "(" in sentence:
        sentence = _ASIDE.sub("", sentence)
    if context.speaker == "assistant" and not _AGENT_BOOKED.search(sentence):
        clock = _confirmed_clock(sentence, context)
        if clock:  # the recap may still give what the user left out: "..., until June 30"
            context.last[DOMAIN] = clock[-1]
            if clock[-1].kind == DOMAIN and clock[-1].key is not None:
                context.entities[f"{DOMAIN}:{clock[-1].key}"] = dict(clock[-1].fields)
            return clock + _series_completed(sentence, context)
        found = _confirmed_title(sentence, context)
        if found:
            return found
        titled = _untitled(sentence, context)
        return _series_completed(sentence, context) or titled or _recap(sentence, context)
    invite = _invite_line(sentence, context)
    if invite is not None:
        return invite
    if _WHERE_LINE.match(sentence) and context.last.get(DOMAIN) is not None:
        where = _WHERE_LINE.match(sentence)
        previous = context.last[DOMAIN]
        if where is not None and previous.kind in (DOMAIN, APPOINTMENT) and "location" not in previous.fields and \
                context.topic == DOMAIN:  # "Venue: Oakfield Town Hall" under a pasted invite
            return [TypedFact(DOMAIN, previous.key, {**previous.fields, "location": where.group("where"),
                                                     "speaker": context.speaker})]
    if _PROVIDER_LINE.match(sentence):
        named = _provider_named(sentence, context)
        if named is not None:
            return [named]
    parts = _clauses(sentence)
    if len(parts) > 1:  # "Noah has karate twice a week and I do spin on Mondays": one event each
        return [fact for part in parts for fact in _read_one(part, context)]
    return _read_one(sentence, context)


_CLAUSE = re.compile(r"(?<=\w)(?<![ap]\.m)(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bvs)[.!?]\s+(?=[a-z])|"
                     r",\s+(?![\d(])(?!(?:and|but|from|at|to|on|every|each|through|until|till|"
                     r"starting|for|in|with|then|so)\b)(?!(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d)"
                     r"(?!the\s+\d)|"
                     r"\s*(?:[,;]\s*(?:and|but|while|plus)\s+|;\s*|\s+(?:and|while|but)\s+"
                     r"(?:also\s+)?)(?=(?:i|i've|i'm|we|we've|my|our|he|she|they|his|her|their|the)\b)", re.I)


def _clauses(sentence: str) -> list[str]:
    """The sentence cut where a new clause names an event of its own with its own days or
    times ("my son has karate twice a week and I do spin at lunch on Mondays"); a clause
    naming none stays with the one after it (the last with the one before); the whole
    sentence when fewer than two clauses name an event with a schedule."""
    if len(_CUES.findall(sentence)) < 2:
        return [sentence]  # two events with their own schedules need two days or times at least
    spans, begin = [], 0
    cuts = sorted([*_CLAUSE.finditer(sentence), *_AND_EVENT.finditer(sentence)], key=lambda cut: cut.start())
    for cut in cuts:
        if cut.start() < begin:
            continue  # overlaps the cut before
        spans.append((begin, cut.start(), cut.end()))
        begin = cut.end()
    if not spans:
        return [sentence]
    spans.append((begin, len(sentence), len(sentence)))
    groups: list[tuple[int, int]] = []
    open_from: int | None = None
    for start, end, _ in spans:
        part = sentence[start:end]
        if _named_part(part) and _scheduled(part):
            groups.append((start if open_from is None else open_from, end))
            open_from = None
        elif open_from is None:
            open_from = start
    if len(groups) < 2 or len(groups) > 4:
        return [sentence]
    if open_from is not None:
        groups[-1] = (groups[-1][0], len(sentence))
    return [sentence[start:end] for start, end in groups]


_CUES = re.compile(r"(?<![\w-])(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?(?![\w])|"
                   r"\b\d{1,2}(?:[:.]\d\d)?\s*(?:[ap]\.?m\b|[ap]\b|-|–|to\b)|\b(?:at|from)\s+(?:\d|noon)|\bnoon\b|"
                   r"\b(?:daily|weekly|tomorrow|tmrw|tonight|twice a week|every)\b|\b(?-i:MWF|TTh|M-F)\b|\d/\d", re.I)


# "spin at 7 a.m. tomorrow and yoga at 6 p.m. on Friday": "and" before another event's noun
_AND_EVENT = re.compile(rf"\s+and\s+(?=(?:(?:my|the|a|an|his|her|our)\s+)?(?:{NOUNS.pattern}))", re.I)


def _named_part(part: str) -> bool:
    return _NOUN_PHRASE.search(part) is not None or _leading_title(part) is not None


def _scheduled(part: str) -> bool:
    return bool(WEEKDAY.search(part) or times_of(part) or cadence(part, weekdays_named(part)) or
                DAY_ONLY_OR_DATE.search(part))


def _read_one(sentence: str, context: Context) -> list[TypedFact]:
    if context.speaker not in ("user", "assistant") or _TRIP_CUES.search(_LEAVING_DO.sub(" ", sentence)) and \
            not _event_beside_travel(sentence) and \
            (FLIGHT.search(sentence) or cadence(sentence, weekdays_named(sentence)) is None):
        return []
    if is_tentative(sentence) or is_question(sentence) or _NO_LONGER.search(sentence) or is_to_do(sentence) or \
            _CONDITIONAL.search(sentence) or _WANTS.search(sentence):
        return []  # not a plan of the user's: "maybe a haircut thursday if I can get one", "need to call the vet"
    noun = _NOUN_PHRASE.search(sentence) or _leading_title(sentence)  # "Stats Tue/Thu 1-2:15"
    if noun is not None and re.match(r"\s*:", sentence[noun.end():]):  # "Lectures: Intro to Psych MWF 9-9:50"
        noun = _leading_title(sentence) or noun
    if noun is not None and _to_a_place(noun.group(0)):
        return []  # "tickets to Denver": a trip's
    if _MONEY_TALK.search(sentence) and not _CLOCK_SAID.search(sentence) and not _VISIT.search(sentence):
        return []  # but "dentist appointment Tuesday the 4th, copay is $40" is one
    if noun is not None and _DOSING.search(sentence) and not _VISIT.search(sentence):
        return []  # "Dr. Okafor has put me on Eliquis 5 mg, starting tonight": the medicine's day
    if noun is not None and _NOT_AN_EVENT.match(sentence, noun.end()):
        return []  # "I need a dinner plan for tomorrow", "lunch ideas for Monday"
    if noun is None and not RANGE.search(sentence) and not _NEXT_ONE.search(sentence) and \
            minutes_long(sentence) is None and not _STARTS_NOW.match(sentence) and not _SERIES_CUE.search(sentence) \
            and not _OVER.search(sentence) and not _ENDS_NOW.match(sentence) and not _WHERE_LINE.match(sentence) and \
            not _day_fixed(sentence, context) and not _DAYS_LINE.match(sentence) and not _MOVED_TO.search(sentence) \
            and not _ITS_AT.match(sentence):
        return []
    catch_up(context, drug_names())
    previous = context.last.get(DOMAIN)
    names = weekdays_named(_INSTEAD.sub(" ", corrected(sentence, WEEKDAY)))  # "Thursdays instead of Tuesdays"
    how_often = cadence(sentence, names)
    if how_often is None and noun is not None and names and _CALENDAR_NAME.search(sentence[:noun.end()]):
        how_often = "weekly"  # "my Thursday spin class is at 6am": the class that is on Thursdays
    if how_often is None and noun is not None and len(names) == 1 and \
            (_A_SERIES.fullmatch(noun.group(0).split()[-1]) or _ACTIVITY.fullmatch(noun.group(0).split()[-1])) \
            and _ON_WEEKDAY.search(sentence) and not DAY_ONLY_OR_DATE.search(sentence) and not PAST.search(sentence):
        how_often = "weekly"  # "her dance class is Saturday 4 to 6": a class is on its weekday every week
    times = times_of(sentence)
    if how_often == "daily" and (not times or noun is None or _APPOINTMENT.search(noun.group(0)) or
                                 _DOSING.search(sentence)):
        how_often = None  # "Eliquis 5 mg twice daily", "the cardiologist ... daily": not a daily event
    named = context.last.get(_NAMED)  # newer than `previous`: each event fact clears it
    if noun is None and named is not None and names and _DAYS_ONLY.fullmatch(sentence) and not times:
        context.last[_NAMED] = TypedFact(DOMAIN, None, {**named.fields, "weekday": ", ".join(names)})
        return []  # "Which days?" "mon wed": kept for the time that comes next
    if noun is None and named is not None and not names and how_often is None and times and \
            isinstance(named.fields.get("weekday"), str) and day_of(sentence, context) is None:
        names, how_often = str(named.fields["weekday"]).split(", "), "weekly"  # "What time?" "7 to 7:50 am"
    recurring = how_often is not None
    if noun is None:
        if previous is not None and previous.kind == DOMAIN and "recurrence" in previous.fields and \
                isinstance(previous.fields.get("title"), str) and _OVER.search(sentence) and \
                not _FUTURE.search(sentence):
            return [TypedFact(DOMAIN, previous.key, conversation_fields(  # "Actually we're done with that."
                context, str(previous.fields.get("subject") or "user"), {"title": previous.fields["title"],
                                                                         "status": "ended"}))]
        if previous is not None and named is None:
            update = _update(previous, sentence, times, context)
            if update is not None:
                return [update]
        if named is not None:
            previous = named  # "I signed up for a pottery class. It's on Tuesday evenings 7 to 9."
        elif not (recurring and times):
            return []  # "I pay our nanny every Friday", "they release it weekly, on Tuesdays": no event's time
    if noun is not None and not times and not _FUTURE.search(sentence):
        over = next((n for n in _NOUN_PHRASE.finditer(sentence) if _ends_series(sentence, n)), None)
        if over is not None or _CANCEL.search(sentence) and _FOR_GOOD.search(sentence):
            return [_ended(sentence, over or noun, context)]  # "the therapist says we're done with PT"
    day = day_of(sentence, context)
    near = _NEXT_TO_DAY.search(sentence)
    if day is None and not recurring:
        day = _next_to_day(sentence, context)  # "the rehearsal dinner is the night before at 6"
    elif near is not None and day is not None and not recurring and noun is not None and noun.start() < near.start():
        before = (near.group("rel") or "after").lower() == "before"  # "op on the 16th, the follow-up the day after"
        day = day - timedelta(days=1) if before else day + timedelta(days=1)
    if not recurring and noun is not None and day is not None and times and _CHANGED.search(sentence) and \
            _A_SERIES.fullmatch(noun.group(0).split()[-1]) and _STARTING_DAY.search(sentence):
        return [_new_time(sentence, noun, times, context, day)]  # "Standup moved to 9:45 starting Monday"
    if not recurring and noun is not None and day is not None and runs_for_weeks(sentence) and \
            not _CANCEL.search(sentence):  # "Class starts next Tuesday at 6pm and runs for ten weeks"
        how_often, names, recurring = "weekly", [WEEKDAYS[day.weekday()]], True
    if noun is not None and _CANCEL.search(sentence) and re.search(r"\b(?:this|next)\s+week\b", sentence, re.I):
        day = _cancelled_week(sentence, context)  # "pottery is cancelled next week"
    if noun is not None and not recurring and day is not None and _SERIES_ENDS.search(sentence):
        return [_ending(sentence, noun, day, context)]  # "my pottery class ends on May 30"
    if not recurring and day is None and noun is not None and _CANCEL.search(sentence) and \
            _one_off(context, noun, sentence) is not None:
        off, gone = _one_off(context, noun, sentence) or ("", {})  # "Kevin's leaving do is off."
        return [TypedFact(str(gone.get("kind") or DOMAIN), off, conversation_fields(
            context, str(gone.get("subject") or "user"),
            {**({"title": gone["title"]} if gone.get("title") else {}),
             "start": str(gone.get("start"))[:10], "status": "cancelled"}))]
    if not recurring and day is None and noun is not None and previous is not None and \
            (noun.group(0).casefold() in _GENERIC or _APPOINTMENT.fullmatch(noun.group(0))):
        length = _length_of(previous, sentence, context)
        if length is not None:
            return [length]  # "Session is of 45 minutes only": the appointment just named lasts that long
    moved = not recurring and not times and day is not None and noun is not None and \
        bool(MOVE.search(sentence) or _MOVED_TO.search(sentence) or _SAME_TIME.search(sentence))
    if not recurring and not times and noun is not None and (_ACTIVITY.fullmatch(noun.group(0)) or
                                                             noun.group(0).startswith("Dr")) and \
            not _CANCEL.search(sentence) and not moved and \
            (day is not None or not _TAKES_UP.search(sentence[:noun.start()])):
        return []  # "do the gym tmrw", "Dr. Brennan wants to see me in six weeks": no time, no appointment
    if not recurring and day is None and not times:
        taken = next((n for n in _NOUN_PHRASE.finditer(sentence) if _TAKES_UP.search(sentence[:n.start()])), None)
        if taken is None and noun is not None and re.search(r"\b(?:my|our|a|an)\b", sentence[:noun.start()], re.I):
            taken = noun
        if taken is not None:
            where = location_of(sentence, title_of(sentence, taken))
            context.last[_NAMED] = TypedFact(DOMAIN, None, {"title": title_of(sentence, taken),
                                                            **({"location": where} if where else {})})
        return []
    if not recurring and day is not None and (day < (today_of(context) or day) or
                                              PAST.search(sentence) and day == today_of(context)):
        return []  # "following today's appointment", "the meeting lasted 2 hours yesterday": it took place
    if not recurring and day is None and times and noun is not None and _SAME_DAY.search(sentence):
        day = _day_before(context)  # "I'm using that morning for the oven service, the technician comes at 08:45"
    if day is not None:
        context.last[_DAY] = TypedFact(DOMAIN, None, {"day": day.isoformat(), "at": len(context.said)})
    if not recurring and day is None and noun is not None:
        known = _known(context, title_of(sentence, noun))
        if times and known is not None and "recurrence" in known[1]:  # "spin is noon, 45 min": the spin named before
            return [_update_times(TypedFact(DOMAIN, known[0], known[1]), times, context, sentence)]
        if times and _A_SERIES.fullmatch(noun.group(0).split()[-1]) and _CHANGED.search(sentence) and \
                (previous is None or not _same_event(title_of(sentence, noun), previous)):
            return [_new_time(sentence, noun, times, context)]  # "standup is at 10 now": the series named before
        if previous is None or not times:
            return []
        if "recurrence" in previous.fields and _same_event(title_of(sentence, noun), previous):
            return [_update_times(previous, times, context, sentence)]  # "The class runs from 7 to 9."
    subject, person = _whose(sentence, context, noun)
    title = title_of(sentence, noun) if noun is not None else None
    if noun is not None and title is not None and subject == "user":
        title = _owned_title(sentence, noun, title)  # "my son's school play" -> "son's school play"
    if noun is not None and title is not None and title.casefold() == noun.group(0).casefold():
        title = _named_before(sentence, noun, context) or title  # "... my cousin's wedding. The wedding is ..."
    if noun is not None and title is not None and _ONE_ON_ONE.fullmatch(noun.group(0)):
        title = _with_whom(sentence, noun, title)  # "1:1 with my manager"
    known = _known(context, title)
    if known is not None and known[1].get("subject") not in (None, "user") and \
            (subject == "user" and person is None or subject == known[1].get("subject") and person == subject):
        subject = str(known[1]["subject"])  # "karate's tue and thu 5:30 to 6:30": Noah's karate, named before
        person = str(known[1]["person"]) if isinstance(known[1].get("person"), str) else None
    if title is None and previous is not None:
        title = str(previous.fields.get("title") or previous.fields.get("provider") or "") or None
    cancelled = _CANCEL.search(sentence)
    fields: dict[str, JsonValue] = {}
    kind = DOMAIN
    if cancelled is not None and day is not None:
        fields = {"title": title, "start": day.isoformat(), "status": "cancelled"}
        key = f"{(title or 'event').casefold()}/{day.isoformat()}"
        one_off = _one_off_on(context, title, day)
        if one_off is not None:  # "the retirement do has been cancelled": that event, not an occurrence
            key = one_off
    elif recurring:
        assert how_often is not None
        title = _prior_series(context, title, subject) or title  # "the class moved to Fridays": the pottery class
        if not times and _SAME_TIME.search(sentence):
            times = _times_before(context, title)  # "moved piano to thursdays, same time"
        fields = {"title": title, **_series(sentence, context, how_often, names, times)}
        key = (title or (names[0] if names else "event")).casefold()
    else:
        if day is None:
            return []
        known_one = _one_off(context, noun, sentence) if moved and noun is not None else None
        if known_one is not None and isinstance(known_one[1].get("start"), str) and \
                len(str(known_one[1]["start"])) > 10:
            times = [str(known_one[1]["start"])[11:16]]  # "moved my appointment to the 19th": same time
        fields = _dated(sentence, day, times)
        if _APPOINTMENT.search(sentence if noun is not None or previous is None else
                               f"{sentence} {previous.fields.get('title') or 'appointment'}"):
            kind = APPOINTMENT
            provider = provider_of(sentence, context)
            if provider is not None:
                fields["provider"] = provider
            practice = practice_of(sentence)
            if practice is not None and practice != provider:  # "with Dr. Ramos at ClearView Optometry"
                fields["location"] = practice
            key = (provider or title or "appointment").casefold()
            if known_one is not None and known_one[1].get("kind") == APPOINTMENT:
                key = known_one[0]
        else:
            fields = {"title": title, **fields}
            key = (title or "event").casefold()
            if known_one is not None and known_one[1].get("kind") == DOMAIN:
                key, fields["title"] = known_one[0], known_one[1].get("title") or title  # "the hen do": Sarah's
    if kind == DOMAIN:
        if fields.get("title") is None:
            fields.pop("title", None)
        where = location_of(sentence, str(fields["title"]) if fields.get("title") else None)
        if where is None and noun is None and named is not None and isinstance(named.fields.get("location"), str):
            where = str(named.fields["location"])  # "I booked a course at the VHS. It is every Tuesday 6-8."
        if where is not None:
            fields["location"] = where
        if "title" not in fields and "location" not in fields:
            return []  # "I'm free Tuesdays at 3": no event named
    if person is not None:
        fields["person"] = person
    if subject != "user":
        key = f"{subject.casefold()}/{key}"
    fact = TypedFact(kind, key, conversation_fields(context, subject, fields))
    context.last.pop(_NAMED, None)
    if kind == DOMAIN:
        context.entities[f"{DOMAIN}:{key}"] = {**context.entities.get(f"{DOMAIN}:{key}", {}), **fact.fields}
    if kind == APPOINTMENT:
        context.last[DOMAIN] = fact  # "Actually, 10:30" corrects it too
    return [fact]


_ONE_ON_ONE = re.compile(r"1:1|one-on-one|one-to-one|1-on-1|catch-?ups?|mentoring|supervision", re.I)
_VISIT = re.compile(r"\b(?:appointments?|appt|visit|check-?up|follow-?up|consult\w*|session|infusion|injection|"
                    r"shot|clinic)\b", re.I)
_DOSING = re.compile(r"\b(?:mg|mcg|ml|pills?|tablets?|tabs?|capsules?|doses?|prescribed|puffs?|drops?|injections?)\b",
                     re.I)
# money talk without a clock time ("Paid Greenway $480 for the spring cleanup by check today") is the money readers'
_CLOCK_SAID = re.compile(r"\b\d{1,2}(?::\d\d|\s*[ap]\.?m\b)|\b(?:at|from)\s+(?:\d{1,2}|noon)\b|\bnoon\b", re.I)
_MONEY_TALK = re.compile(r"[$€£]\s?\d|\b\d[\d,.]*\s*(?:dollars?|bucks|usd|eur|gbp)\b|\b(?:invoice|paid|owe|deposit|"
                         r"financing|interest|tuition|balance|refund)\b", re.I)
_TAKES_UP = re.compile(r"\b(?:to do|to take|to try|to join|to start|doing|taking|signed up for|joined|enrolled in|"
                       r"registered for|started|starting|booked|took up|taken up)\s+(?:(?:a|an|the|some|my|our)\s+)?"
                       r"(?:(?!(?:and|or|but|to|for|with|on|at|in|since|from|every|each)\b)[\w'-]+\s+){0,2}$", re.I)
_A_SERIES = re.compile(r"class(?:es)?|lessons?|practice|rehearsal|club|choir|tutoring|training|standup|stand-up|"
                       r"sync|1:1|one-on-one|one-to-one|bootcamp|shifts?", re.I)
_ON_WEEKDAY = re.compile(r"\b(?:is|are|meets)\s+(?:on\s+)?(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|"
                         r"sun)(?:day)?\b(?!\s*,?\s*(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b)", re.I)
_NOT_AN_EVENT = re.compile(r"\s+(?:plans?|ideas?|recipes?|menus?|suggestions?|options?|outfits?|playlists?|"
                           r"lists?|tips|prep)\b", re.I)
DAY_ONLY_OR_DATE = re.compile(r"\b(?:the\s+\d{1,2}(?:st|nd|rd|th)|\d{1,2}/\d{1,2}|tomorrow|tmrw|tonight|"
                              r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2})\b", re.I)
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
    if match is None or re.match(r"\s+(?:unit|centre|center|clinic|room|hall|studio|office|building|church|school|"
                                 r"ward|gym|pool)\b", sentence[match.end():], re.I):
        return []  # "at the Riverside dialysis unit": a place, not the event's name
    word = match.group("word")
    if word.casefold() in TITLE_STOP or word.casefold() in _NOT_MODIFIERS or WEEKDAY.fullmatch(word):
        return []
    return [TypedFact(DOMAIN, previous.key, {**previous.fields, "title": f"{word} {title}", "speaker": "assistant"})]


_MARKED_CLOCK = re.compile(r"\b\d{1,2}(?::\d\d)?\s*[ap]\.?m\b", re.I)
_TURN = "event turn"  # `Context.last` slot: the number of the last user message that gave an event


# a title with a day or a clock time in it is no title: "14 March", "7:00 PM", "the 3rd", "3/12"
_DATE_OR_CLOCK = re.compile(r"\d{1,2}(?::\d\d|\s*[ap]\.?m\b|(?:st|nd|rd|th)\b|/\d)|\b\d{1,2}\s+[A-Za-z]{3}|"
                            r"\b[A-Za-z]{3,9}\.?\s+\d{1,2}\b|\b\d{4}\b", re.I)


_LANDING = re.compile(r"\b(?:land(?:s|ing)?|arriv(?:e|es|ing)|depart(?:s|ing)?|boarding|check-?in)\b", re.I)


_INVITE = "invite"  # `Context.last` slot: a pasted invite's title line and that line's number


def _invite_line(sentence: str, context: Context) -> list[TypedFact] | None:
    """A pasted invite's lines: its title ("Invitation: ...", "Event: ...", "Subject: ..." naming
    an event), then its day and times ("When: Thu 12 Mar 2026 2-3:30pm", or "Date: ..." and
    "Time: ...") make a dated event or appointment (its "Where:" line is read as for any event).
    None when the sentence is no such line (the other rules read it)."""
    titled = _INVITE_TITLE.match(sentence)
    if titled is not None:
        title, _, when = titled.group("title").partition(" @ ")  # "Invitation: Standup @ Thu Mar 12 ..."
        field = titled.group("field").lower()
        if field == "subject" and not _NOUN_PHRASE.search(title) or _MONEY_TALK.search(title) or \
                FLIGHT.search(title):
            return None  # "Subject: Invoice 4471": an e-mail's, not an event's
        context.last[_INVITE] = TypedFact(DOMAIN, None, {"title": title.strip(), "at": len(context.said)})
        return _invite_event(title.strip(), when, context) if when else None  # the other rules may name it too
    line = _WHEN_LINE.match(sentence)
    pending = context.last.get(_INVITE)
    if line is None or pending is None or not isinstance(pending.fields.get("at"), int) or \
            len(context.said) - int(str(pending.fields["at"])) > 4:
        return None
    field, when = line.group("field").lower(), line.group("when")
    previous = context.last.get(DOMAIN)
    mine, theirs = _title_words(str(pending.fields.get("title") or "")), \
        _title_words(str(previous.fields.get("title") or "") if previous is not None else "")
    if cadence(when, weekdays_named(when)) is not None or previous is not None and "recurrence" in previous.fields \
            and theirs and (mine <= theirs or theirs <= mine):
        return None  # "When: Every Wednesday 14:00-15:00", its "Starts:" line: a series, read as one
    context.last[_INVITE] = TypedFact(DOMAIN, None, {**pending.fields, "at": len(context.said)})
    start = previous.fields.get("start") if previous is not None else None
    if field == "time" and previous is not None and isinstance(start, str) and len(start) == 10:
        day = parse_date(start)  # "Date: Sat 21 Mar" then "Time: 19:00 - 23:00"
        times = times_of(when)
        if day is None or not times:
            return []
        fact = TypedFact(previous.kind, previous.key, {**previous.fields, **_dated(when, day, times),
                                                       "speaker": context.speaker})
        context.last[DOMAIN] = fact
        return [fact]
    return _invite_event(str(pending.fields["title"]), when, context)


def _invite_event(title: str, when: str, context: Context) -> list[TypedFact]:
    day = day_of(when, context)
    today = today_of(context)
    if day is None or today is None or day < today:
        return []
    fields = _dated(when, day, times_of(when))
    if _APPOINTMENT.search(title):
        provider = provider_of(title, context)
        fields = {**({"provider": provider} if provider else {}), **fields}
        kind, key = APPOINTMENT, (provider or title).casefold()
    else:
        fields = {"title": title, **fields}
        kind, key = DOMAIN, title.casefold()
    fact = TypedFact(kind, key, conversation_fields(context, "user", fields))
    context.last[DOMAIN] = fact
    if kind == DOMAIN:
        context.entities[f"{DOMAIN}:{key}"] = dict(fact.fields)
    return [fact]


def _user_turn_silent(context: Context) -> bool:
    """The user's message just before this reply gave no event or appointment."""
    said = context.last.get(_TURN)
    return said is None or said.fields.get("turn") != context.turn - 1


def _recap(sentence: str, context: Context) -> list[TypedFact]:
    """An assistant's recap of a one-off event the user's message just before named in words
    no rule reads ("the Saturday after next", a pasted invite, a "debut"): "Noted: Bea's debut,
    Monday 23 March at 7:00 PM at Villa Caceres." is that event, with speaker `assistant`; a
    recap naming a known event noun is read as the user's sentence would be (a cancelled do)."""
    recap = _RECAP.match(sentence)
    if recap is None or _TRIP_CUES.search(sentence) or _MONEY_TALK.search(sentence) or _DOSING.search(sentence):
        return []
    body = recap.group("body")
    named = _RECAP_TITLE.match(body)
    title = named.group("title") if named is not None else None
    if title is not None and (WEEKDAY.search(title) or _DATE_OR_CLOCK.search(title) or len(title.split()) > 7):
        title = None
    if title is not None and re.fullmatch(r"[A-Z0-9-]{4,}", title) or _LANDING.search(body):
        return []  # "Saved: A3QR7M, landing back at 06:40": a booking's code and a flight's time
    rest = named.group("rest") if named is not None and title is not None else body
    if cadence(rest, weekdays_named(rest)) is not None:
        return []  # a series the user's words did not give: left to them
    day = day_of(rest, context)
    today = today_of(context)
    if day is None or today is None or day < today:
        return []
    times = times_of(rest)
    completed = _completed(rest, day, times, context, title)
    previous = context.last.get(DOMAIN)
    if completed is not None or not _user_turn_silent(context) or \
            previous is not None and str(previous.fields.get("start") or "")[:10] == day.isoformat():
        return [completed] if completed is not None else []  # the event the session named on that day
    noun = _NOUN_PHRASE.search(title or body)
    if not times and not _CANCEL.search(body) or re.search(r"\b(?:a|per)\s+day\b|\bdaily\b", body, re.I):
        return []  # "Noted: Septra twice a day for 7 days, March 10 to 16": a course, no event
    if title is None:
        if noun is None:
            return []
        found = _read_one(body, context)
        return [TypedFact(f.kind, f.key, {**f.fields, "speaker": "assistant"}) for f in found]
    if noun is None and not times:
        return []  # "Noted: Ferrari, Friday": a name and a day, no event
    fields = _dated(rest, day, times)
    if _CANCEL.search(rest) and noun is not None:
        fields = {"start": day.isoformat(), "status": "cancelled"}
    if _APPOINTMENT.search(title):
        provider = provider_of(body, context)
        fields = {**({"provider": provider} if provider else {}), **fields}
        where = practice_of(body)
        if where is not None and where != provider:
            fields["location"] = where
        key = (provider or title).casefold()
        kind = APPOINTMENT
    else:
        fields = {"title": title, **fields}
        where = location_of(rest)
        if where is not None:
            fields["location"] = where
        key = f"{title.casefold()}/{day.isoformat()}" if fields.get("status") == "cancelled" else title.casefold()
        kind = DOMAIN
    fact = TypedFact(kind, key, conversation_fields(context, "user", fields))
    context.last[DOMAIN] = fact
    if kind == DOMAIN:
        context.entities[f"{DOMAIN}:{key}"] = dict(fact.fields)
    return [fact]


def _completed(rest: str, day: date, times: list[str], context: Context, title: str | None = None) -> TypedFact | None:
    """The session's last dated event on the recap's day, given the time and place the user's
    words left out ("our niece's wedding is the Saturday after next. Ceremony's at 11 ..." ->
    "Noted: ..., Saturday 14 March, ceremony 11:00 AM at St Andrew's"); None when it is on
    another day or lacks nothing the recap gives."""
    previous = context.last.get(DOMAIN)
    start = previous.fields.get("start") if previous is not None else None
    if previous is None or not isinstance(start, str) or start[:10] != day.isoformat() or \
            "recurrence" in previous.fields:
        return None
    fields = dict(previous.fields)
    if len(start) == 10 and times:
        fields.update(_dated(rest, day, times))
    had = str(fields.get("title") or "")
    if title and had and title != had and str(fields.get("subject") or "user") == "user" and \
            title.split()[-1].casefold() == had.split()[-1].casefold() and \
            "'s " in title.replace("’s ", "'s ") and "'s " not in had:
        fields["title"] = title  # "Yung debut" -> "Bea's debut": whose it is, as the recap says
    if previous.kind == DOMAIN and "location" not in fields:
        where = location_of(rest)
        if where is not None:
            fields["location"] = where
    if fields == previous.fields:
        return None
    fact = TypedFact(previous.kind, previous.key, {**fields, "speaker": "assistant"})
    context.last[DOMAIN] = fact
    return fact


def _untitled(sentence: str, context: Context) -> list[TypedFact]:
    """An assistant's recap naming the series the user's last message gave without a name
    ("five-a-side fitba every Tuesday night, 7 till 8" -> "Noted: five-a-side football, Tuesdays
    7:00-8:00 PM"): the same event, with the recap's title, when its days agree."""
    recap = _RECAP.match(sentence)
    if recap is None or _user_turn_silent(context):
        return []
    series = [(name.removeprefix(f"{DOMAIN}:"), fields) for name, fields in reversed(context.entities.items())
              if name.startswith(f"{DOMAIN}:") and fields.get("recurrence")]
    for part in re.split(r";\s*", recap.group("body")):
        named = _RECAP_TITLE.match(part)
        if named is None or WEEKDAY.search(named.group("title")) or _DATE_OR_CLOCK.search(named.group("title")):
            continue
        title = named.group("title").strip()
        days = ", ".join(weekdays_named(named.group("rest")))
        for key, fields in series:
            had = _title_words(str(fields.get("title") or ""))
            if str(fields.get("subject") or "user") != "user" or re.search(r"\w(?:'s|’s|s')(?:\s|$)", title):
                continue  # "Noah's karate", "father's dialysis": whose it is, already in `subject`
            added = _title_words(title) - had
            if not days or days != fields.get("weekday") or had and (not had < _title_words(title) or
                                                                      added & _PLAIN_WORDS):
                continue  # another series, or one the recap does not name more fully ("five-a-side football")
            change: dict[str, JsonValue] = {"title": title}
            last = context.last.get(DOMAIN)
            if last is not None and last.key == key:
                context.last[DOMAIN] = TypedFact(DOMAIN, key, {**last.fields, **change})
            context.entities[f"{DOMAIN}:{key}"] = {**fields, **change}
            return [TypedFact(DOMAIN, key, conversation_fields(context, str(fields.get("subject") or "user"), change))]
    return []


# words a recap adds that name no more than the user did: "weekly physical therapy", "spin class"
_PLAIN_WORDS = frozenset(w.removesuffix("s") for w in (*_NOT_MODIFIERS, *_GENERIC, "classe", "every", "each", "my",
                                                       "your", "our"))


def _series_completed(sentence: str, context: Context) -> list[TypedFact]:
    """An assistant's recap of the series the user's last message gave, with the last day or
    the place the user's words left out ("Zumba ko every Monday 7 to 8pm ..., hanggang March 16"
    -> "Noted: Zumba, Mondays 7:00-8:00 PM at the barangay hall, until March 16.")."""
    recap = _RECAP.match(sentence)
    named = _RECAP_TITLE.match(recap.group("body")) if recap is not None else None
    if named is None or _user_turn_silent(context):
        return []
    known = _known(context, named.group("title").strip())
    if known is None or "recurrence" not in known[1] or \
            str(known[1].get("title") or "").casefold() != named.group("title").strip().casefold():
        return []
    previous, title = TypedFact(DOMAIN, known[0], known[1]), named.group("title").strip()
    rest = named.group("rest")
    if ", ".join(weekdays_named(rest)) != previous.fields.get("weekday"):
        return []
    fields: dict[str, JsonValue] = {}
    today = today_of(context)
    began = previous.fields.get("start")
    if "end" not in previous.fields and today is not None and \
            re.search(r"\b(?:until|till|through|thru|ends?)\b", rest, re.I):
        last = series_end(rest, today, parse_date(began[:10]) if isinstance(began, str) else None)
        if last is not None:
            fields["end"] = last.isoformat()
    if "location" not in previous.fields:
        where = location_of(rest, title)
        if where is not None:
            fields["location"] = where
    if not fields:
        return []
    context.entities[f"{DOMAIN}:{previous.key}"] = {**previous.fields, **fields}
    return [TypedFact(DOMAIN, previous.key, conversation_fields(context, str(previous.fields.get("subject") or "user"),
                                                              fields))]


def _confirmed_clock(sentence: str, context: Context) -> list[TypedFact]:
    """An assistant's recap that names the session's last event with the same clock time and
    an explicit AM or PM ("choir at 7" -> "Noted: choir, Thursdays at 7:00 PM") settles the
    half of the day the user left open: the same hours, twelve apart, take the recap's."""
    previous = context.last.get(DOMAIN)
    if previous is None or not _MARKED_CLOCK.search(sentence):
        return []
    name = previous.fields.get("title") or previous.fields.get("provider")
    if not isinstance(name, str) or not name or not re.search(rf"\b{re.escape(name)}\b", sentence, re.I):
        return []
    said = times_of(sentence)
    fields = dict(previous.fields)
    changed = False
    for field, value in zip(("start_time", "end_time"), said):
        old = fields.get(field)
        if isinstance(old, str) and old != value and int(old[:2]) % 12 == int(value[:2]) % 12 and old[3:] == value[3:]:
            fields[field] = value
            changed = True
    start = fields.get("start")
    if said and isinstance(start, str) and len(start) > 10 and start[11:16] != said[0] and \
            int(start[11:13]) % 12 == int(said[0][:2]) % 12 and start[14:16] == said[0][3:]:
        fields["start"] = f"{start[:10]}T{said[0]}:00"
        changed = True
    if not changed:
        return []
    return [TypedFact(previous.kind, previous.key, {**fields, "speaker": "assistant"})]


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
    today = today_of(context)
    if week is None or today is None:
        return None
    monday = today - timedelta(days=today.weekday()) + timedelta(days=7 if week.group("which").lower() == "next" else 0)
    previous = context.last.get(DOMAIN)
    names = weekdays_named(sentence) or \
        (re.findall(r"[a-z]+", str(previous.fields.get("weekday") or "")) if previous is not None else [])
    if names and names[0] in WEEKDAYS:
        return monday + timedelta(days=WEEKDAYS.index(names[0]))
    return monday


_OWNER = re.compile(r"\b(?P<name>(?-i:[A-Z][a-z]{2,}))(?:'s|’s)\s+(?:[\w-]+\s+)?(?:appointments?|appt|lessons?|"
                    r"class(?:es)?|practice|recital|game|match|check-?up|cleaning|therapy|session|tutoring|camp|"
                    r"football|rugby|hockey|netball|basketball|baseball|cricket|footy|final|concert|play|show|nativity|"
                    r"lunch|dinner|meeting|shifts?|rehearsal|choir|club|dialysis|training|swim\w*|karate|ballet|"
                    r"dance|piano|soccer|tennis|orchestra|band|scouts|physio|PT)\b",
                    re.I)
_KIDS = re.compile(r"\b(?:the|my|our)\s+(?:kids|children|kids'|children's|kids’)\s*(?:'|’)?\s", re.I)
_NOT_OWNER = re.compile(r"today|tomorrow|tonight|yesterday|this|next|last|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
                        r"january|february|march|april|may|june|july|august|september|october|november|december|"
                        r"everyone|nobody|someone|it|that|there|what|let", re.I)


# someone else takes the user along: "my colleague has invited me to the theatre", "Sam got us tickets"
_TAKES_ME = re.compile(r"\b(?:invit(?:ed|es|ing)|tak(?:es|ing)|took|bring(?:s|ing)?|brought|got|gets|bought|booked)\s+"
                       r"(?:me|us|the two of us|both of us)\b", re.I)


# someone the user speaks for, by title: "Mr Osei's board call", "Ms Tanaka has ...", "I manage Mr Osei's diary"
_TITLED = r"(?-i:(?:Mr|Mrs|Ms|Miss|Mx|Prof|Professor|Sir|Dame|Lady|Lord)\.?\s+[A-Z][a-z]+(?:-[A-Z][a-z]+)?)"
_PRINCIPAL_OWNS = re.compile(rf"(?<!\bwith )(?<!\bsee )(?<!\bmeet )(?<!\bcall )(?<!\bto )(?<!\bfor )(?<!\bby )"
                             rf"\b(?P<who>{_TITLED})(?:(?:'s|’s)\s|\s+(?:also\s+|usually\s+|now\s+)?(?:has|is|will|flies|"
                             rf"attends|sees|takes|plays|goes)\b)", re.I)  # not "chairs it": a meeting the user attends
_PRINCIPAL_DIARY = re.compile(rf"\b(?P<who>{_TITLED})(?:'s|’s)\s+(?:diary|calendar|schedule|week|day|agenda|"
                              rf"appointments|travel)\b", re.I)
_THIRD = re.compile(r"\b(?:he|she|his|her|him)\b", re.I)


def _principal(sentence: str, context: Context) -> str | None:
    """The person named by title whose event the sentence states ("Mr Osei's board call is ...",
    "Ms Tanaka has ..."), or whose diary an earlier sentence of the session said the user keeps
    when this one says "his" / "her" ("I manage Mr Osei's diary. His board call is ...")."""
    owns = _PRINCIPAL_OWNS.search(sentence)
    if owns is not None:
        return re.sub(r"\s+", " ", owns.group("who"))
    if not _THIRD.search(sentence) or re.search(r"\b(?:my|our|I|I'm|I've|we)\b", sentence):
        return None
    for earlier in reversed(context.said[-4:-1]):
        diary = _PRINCIPAL_DIARY.search(earlier) or _PRINCIPAL_OWNS.search(earlier)
        if diary is not None:
            return re.sub(r"\s+", " ", diary.group("who"))
    return None


_AT_THEIRS = re.compile(r"\b(?:at|to|round|over at|over to)\s+(?:my|our)\s+[a-z]+(?:'s|’s)"
                        r"(?!\s+(?:house|place|flat|home)?\s*"
                        r"(?:appointment|appt|lesson|class|game|recital|practice|session|party))", re.I)
_I_STAY = re.compile(r"\bI\s+(?:drive|take|bring|walk)\s+(?:him|her|them|the kids|[A-Z][a-z]+)\b[^.;]{0,40}?"
                     r"\b(?:stay|wait|watch)(?:s|ing)?\b", re.I)
_OWNED_EVENT = re.compile(r"^\W*(?:my|our)\s+[a-z]+(?:'s|’s)\s", re.I)  # "My son's recital at my mum's": his


_VET = re.compile(r"\b(?:vets?|veterinar\w+|animal hospital)\b", re.I)
# events a guest or a parent goes to: "our niece Kirsty's wedding", "parents' evening for Chidi's class"
_GUEST = re.compile(r"\b(?:wedding|funeral|christening|baptism|memorial|graduation|reunion|debut|bar mitzvah|"
                    r"bat mitzvah|(?:retirement|leaving|farewell|engagement|birthday|christmas|xmas|hen|stag|office|"
                    r"work) (?:do|party)|(?:baby|bridal|wedding) shower|rehearsal dinner|parents'? evening|"
                    r"parent-teacher (?:conference|night|"
                    r"meeting|interview)s?|pta meeting|open (?:evening|day)|prize-?giving|sports day)\b", re.I)
# the user cares for someone, in the user's own time: "minding my grandson Oliver", "I babysit for my sister"
_CARING = re.compile(r"\b(?:minding|childminding|babysit(?:ting)?|looking after|watching|mind)\s+"
                     r"(?:my|our|the|her|his)?\s*", re.I)
# the user will be at someone else's event: "I'm going", "I wouldn't miss it", "na me go attend"
_I_ATTEND = re.compile(r"\b(?:i|i'm|i’m|i'll|i’ll|me|we|we're|we'll)\b(?P<gap>[^.;!?]{0,24}?)"
                       r"(?:(?:am|'m|’m|are|'re|’re)\s+(?:all\s+|both\s+|definitely\s+|obviously\s+)?"
                       r"(?:going|attending|coming)\b|"
                       r"(?:will|'ll|’ll|must|have to|need to|go|gonna|promised(?: i'd| to)?|"
                       r"want to|plan to|'d|’d)\s+(?:be there|attend|go\b|be at|come)|attending\b|"
                       r"(?:would|will|could|can)(?:n't|’t| not|not)\s+miss\b)", re.I)
_NOT_GOING = re.compile(r"\b(?:i|we)\s*(?:can(?:'t|’t|not)|won(?:'t|’t)|will not|(?:'m|’m|am|are|'re)\s+not)\s+"
                        r"(?:go|going|make it|be there|attend|come)\b", re.I)
_NOT_ATTEND = re.compile(r"\b(?:not|never|n't|n’t|no)\b|\bcan(?:'t|’t|not)\b", re.I)
# what others perform in, the user watching: a recital, a school play, a game
_PERFORMED = re.compile(r"\b(?:recital|play|concert|show|game|match|performance|nativity|musical|gala|tournament|meet|"
                        r"competition|showcase|exhibition|ceremony|final|football|soccer|rugby|hockey|netball|"
                        r"basketball|baseball|cricket|footy)\b", re.I)


_POSSESSOR = re.compile(r"(?P<owner>\b(?:(?-i:[A-Z])[\w-]*\s+(?:&|and)\s+)?[A-Za-z][\w-]*(?:'s|’s))\s+"
                        r"(?:(?:\d{1,3}(?:st|nd|rd|th)|big|surprise|little)\s+)?$", re.I)
_NOT_POSSESSOR = frozenset("it's that's what's there's here's he's she's let's who's where's today's tonight's "
                           "tomorrow's this's one's everyone's somebody's someone's".split())


_WHEN_WORD = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tonight|tomorrow|yesterday|week|weekend|"
                        r"month|"
                        r"year|morning|evening|night|afternoon|january|february|march|april|may|june|july|august|"
                        r"september|october|november|december|next|last|this", re.I)


# "the night before", "the day after", "the next morning": a day next to the one the session just gave
_NEXT_TO_DAY = re.compile(r"\bthe\s+(?:(?:night|day|evening|morning|afternoon)\s+(?P<rel>before|after)|"
                          r"(?:next|following)\s+(?:day|morning|evening|afternoon))\b", re.I)


def _next_to_day(sentence: str, context: Context) -> date | None:
    """The day before or after the day this session's last dated sentence gave an event, as
    "the night before" / "the day after" / "the next morning" says; None without one."""
    near = _NEXT_TO_DAY.search(sentence)
    found = context.last.get(_DAY)
    if near is None or found is None:
        return None
    base = parse_date(str(found.fields["day"]))
    if base is None:
        return None
    return base - timedelta(days=1) if (near.group("rel") or "after").lower() == "before" else base + timedelta(days=1)


def _length_of(previous: TypedFact, sentence: str, context: Context) -> TypedFact | None:
    """The dated event or appointment just named with the end its length gives ("It's a
    45-minute session", "Session is of 45 minutes only"), when it has a time and no end."""
    length = minutes_long(sentence)
    start = previous.fields.get("start")
    if length is None or "recurrence" in previous.fields or "end" in previous.fields or \
            not isinstance(start, str) or len(start) <= 10:
        return None
    end_time = plus_minutes(start[11:16], length)
    if end_time is None:
        return None
    return TypedFact(previous.kind, previous.key, {**previous.fields, "end": f"{start[:10]}T{end_time}:00",
                                                   "speaker": context.speaker})


def _named_before(sentence: str, noun: re.Match[str], context: Context) -> str | None:
    """ "The wedding" after a sentence of the session named whose it is ("for my college
    roommate's wedding"): that title ("college roommate's wedding"); else None."""
    if not re.search(rf"\bthe\s+{re.escape(noun.group(0))}\b", sentence, re.I):
        return None
    named = re.compile(rf"(?P<title>(?:(?!(?:my|our|the|for|to|a|an|his|her|their)\b)[\w-]+\s+)?"
                       rf"[\w-]+(?:'s|’s)\s+{re.escape(noun.group(0))})\b", re.I)
    for earlier in reversed(context.said[-6:-1]):
        found = named.search(earlier)
        if found is not None and found.group("title").split()[0].casefold().replace("’", "'") not in _NOT_POSSESSOR:
            return found.group("title")
    return None


def _owned_title(sentence: str, noun: re.Match[str], title: str) -> str:
    """The title with the name or family word whose event it is, written just before it, when
    the user goes ("our niece Kirsty's wedding" -> "Kirsty's wedding"); else as it is."""
    at = sentence.rfind(title, 0, noun.end())
    if at < 0:
        return title
    owner = _POSSESSOR.search(sentence[:at])
    if owner is None or owner.group("owner").casefold().replace("’", "'") in _NOT_POSSESSOR or \
            _WHEN_WORD.fullmatch(owner.group("owner")[:-2]):
        return title  # "Monday's budget review": a day, not whose
    return f"{sentence[owner.start():at]}{title}"


# someone else goes: "my son is going to Jake's birthday party", "I'm dropping her off"
_OTHER_GOES = re.compile(r"\b(?:he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our)\s+\w+)\s+(?:is|are|'s)\s+(?:going|invited)\s+"
                         r"to\b|"
                         r"\bdropping\s+(?:him|her|them)\s+off\b", re.I)
_MISS_IT = re.compile(r"^\W*(?:wouldn'?t|won'?t|would not|will not|can'?t|cannot)\s+miss\s+(?:it|that|this)\b", re.I)


def _attending(sentence: str, context: Context) -> bool | None:
    """Whether the user says they will be at the event this sentence names, in it or in the
    message's next sentence ("Ella has her recital on the 3rd. I wouldn't miss it."): True,
    False when they say they will not ("but I can't go"), None when they say neither."""
    said = [sentence]
    if context.message and context.speaker == "user":
        from factlog.sentences import split_sentences
        parts = split_sentences(context.message)
        here = next((i for i, part in enumerate(parts) if part[:24] in sentence or sentence[:24] in part), None)
        if here is not None and here + 1 < len(parts):
            said.append(parts[here + 1])
    answer: bool | None = None
    for text in said:
        if _MISS_IT.match(text):
            return True
        for found in _I_ATTEND.finditer(text):
            if not _NOT_ATTEND.search(found.group("gap")) and not _NOT_ATTEND.search(found.group(0)[-14:]):
                return True
        if _NOT_GOING.search(text):
            answer = False
    return answer


def _whose(sentence: str, context: Context, noun: re.Match[str] | None) -> tuple[str, str | None]:
    """(subject, person) of the event: "mom" and "dad" as the family words "mother" and "father";
    the user's for an event the user goes to as a guest or a parent (a niece's wedding, a
    parents' evening), for minding someone, and for someone else's recital or play the user
    says they will be at."""
    if _TAKES_ME.search(sentence) or _VET.search(sentence):
        return "user", None  # the user goes: the inviter's name is no owner; a pet's vet visit is the user's
    if noun is not None and (_GUEST.search(sentence[max(0, noun.start() - 24):noun.end()]) and
                             not _OTHER_GOES.search(sentence) and _attending(sentence, context) is not False or
                             _CARING.match(sentence, noun.start())) or \
            noun is not None and _PERFORMED.search(noun.group(0)) and _attending(sentence, context):
        return "user", None
    if _I_STAY.search(sentence) or user_leads(sentence):
        return "user", None  # "I drive them and stay", "I coach my stepson's under-9s": the user's time too
    if _AT_THEIRS.search(sentence) and not _OWNED_EVENT.search(sentence):
        return "user", None  # "dinner at my sister's on Sunday": her place, the user's dinner
    principal = _principal(sentence, context)
    if principal is not None:
        return principal, principal
    subject, person = _whose_words(sentence, context, noun)
    if person is not None and context.said and person.casefold() not in sentence.casefold() and \
            person.casefold() in context.said[-1].casefold() and \
            not re.search(r"\b(?:he|she|his|her|him|they|their)\b", sentence, re.I) and \
            not re.match(rf"[^:]{{0,40}}\b{re.escape(person)}\b[^:]{{0,20}}:", context.said[-1], re.I):
        return "user", None  # a name in another clause of the same sentence: "Intro to Psych MWF 9-9:50, Calc TTh"
    word = _FAMILY_WORD.get(subject.casefold())
    if word is not None:
        return word, word if person is None or person.casefold() == subject.casefold() else person
    return subject, person


def _whose_words(sentence: str, context: Context, noun: re.Match[str] | None) -> tuple[str, str | None]:
    subject, person = person_of(sentence, context)
    parent = re.search(rf"\b(?P<who>{_BARE})(?:'s|’s)\s", sentence, re.I)
    if subject == "user" and parent is not None:  # "Mom's cardiologist appointment"
        return parent.group("who").lower(), parent.group("who").lower()
    if subject == "user" and _KIDS.search(sentence):  # "the kids' swim lessons"
        return "child", "child"
    child = _MY_KID.search(sentence)
    if subject == "user" and child is not None:  # "my son noah has karate": a name written in lower case
        name = child.group("name").capitalize()
        return child.group("rel").lower(), name if name.casefold() not in TITLE_STOP else child.group("rel").lower()
    if subject == "user" and person is None and noun is not None and \
            (re.search(r"\b(?:his|her)\s+(?:\w+\s+)?$", sentence[:noun.start()], re.I) or
             re.match(r"^\W*(?:he|she)\b", sentence, re.I)):
        parent_word = _parent_before(context)
        if parent_word is not None:  # "I'm sorting out Dad's week. His dialysis is Mondays ..."
            return parent_word, parent_word
    owner = _OWNER.search(sentence)
    if subject == "user" and owner is not None and not _NOT_OWNER.fullmatch(owner.group("name")) and \
            place_name(owner.group("name")) is None and not NOUNS.fullmatch(owner.group("name")):
        name = owner.group("name")  # "moved Jake's appointment to Monday"
        return context.relations.get(name, name), name
    if person is not None and (NOUNS.fullmatch(person) or WEEKDAY.fullmatch(person) or
                               noun is not None and person.casefold() in noun.group(0).casefold()):
        subject, person = "user", None  # "Therapy is biweekly": the event's name, not a person's
    if subject == "user" and context.focus is not None and noun is not None and \
            re.search(rf"\b(?:his|her)\s+(?:\w+\s+)?(?:{NOUNS.pattern})", sentence, re.I):
        subject, person = context.relations.get(context.focus, context.focus), context.focus
    return subject, person


_MY_KID = re.compile(r"\b(?:my|our)\s+(?P<rel>son|daughter|husband|wife|partner|kid)\s+(?P<name>[a-z]{3,})\s+"
                     r"(?:has|have|is|does|goes|takes|plays|starts|started|had)\b", re.I)
_BARE = relation_pattern(BARE)
_PARENT = re.compile(rf"\b(?P<who>{relation_pattern(w for w in BARE if len(w) > 2)}|mother|father|grandmother|"
                     r"grandfather)\b", re.I)  # not "ma" (ma'am), "pa" or "da" in a sentence before
_FAMILY_WORD = {word: FAMILY[word] for word in BARE}  # "Mom", "Da", "Nan": as the family words (`factlog.relations`)


def _parent_before(context: Context) -> str | None:
    """The parent the sentence just before this one is about ("Dad's week"), as the family word."""
    for earlier in reversed(context.said[-3:-1]):
        found = _PARENT.search(earlier)
        if found is not None:
            word = found.group("who").lower()
            return _FAMILY_WORD.get(word, word)
    return None


_CALENDAR_NAME = re.compile(r"\b(?:my|our)\s+(?:usual\s+|regular\s+|weekly\s+)?"
                            r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
                            r"(?:\s+(?:morning|afternoon|evening|night))?\s+(?:[\w-]+\s+)?[\w-]+$", re.I)
_NAMED = "event named"  # `Context.last` slot: an event named without a day or time, for the next sentence
_DAY = "event day"  # `Context.last` slot: the day the last dated sentence named and that sentence's number
# a sentence that goes on about the day the one before named
_SAME_DAY = re.compile(r"\b(?:that|the same|the)\s+(?:day|morning|afternoon|evening)\b|\binstead\b|\bafter that\b|"
                       r"\bbefore that\b|\bafterwards\b|\bthen\b", re.I)


_SAME_TIME = re.compile(r"\b(?:same|usual) (?:time|times|hours?|slot)\b", re.I)


def _times_before(context: Context, title: str | None) -> list[str]:
    """[start_time, end_time] of the series named `title` this session or an earlier one said."""
    if not title:
        return []
    for _, fields in [*reversed(context.entities.items()), *context.prior.of_kind(DOMAIN)[::-1]]:
        if str(fields.get("title") or "").casefold() == title.casefold() and isinstance(fields.get("start_time"), str):
            return [str(fields["start_time"]), *([str(fields["end_time"])] if isinstance(fields.get("end_time"), str)
                                                 else [])]
    return []


def _day_before(context: Context) -> date | None:
    """The day the sentence just before this one gave an event (None when it gave none)."""
    found = context.last.get(_DAY)
    if found is None or found.fields.get("at") != len(context.said) - 1:
        return None
    return parse_date(str(found.fields["day"]))
# a farewell, not a departure; going to a celebration, not a place: "I'm going to my nephew's bar mitzvah"
_LEAVING_DO = re.compile(r"\bleaving (?:do|party|drinks|lunch|dinner)\b|\bgoing to (?:my|our|his|her|their|the|a)\s+"
                         r"(?:[\w'’-]+\s+){0,3}(?:wedding|funeral|christening|baptism|graduation|bar mitzvah|"
                         r"bat mitzvah|party|recital|concert|play|reunion|debut)\b", re.I)
_TRIP_CUES = re.compile(rf"{TRAVEL.pattern}|{FLIGHT.pattern}|\b(?:dep|departs?|departing|return(?:ing)?|leaves|"
                        rf"leaving)\b|\b(?-i:[A-Z]{{2}})\s?\d{{2,4}}\b|\b[a-z]{{2}}\d{{3,4}}\b|"
                        rf"\b(?-i:{'|'.join(sorted(map(re.escape, AIRLINES), key=len, reverse=True))})\b", re.I)


def _event_beside_travel(sentence: str) -> bool:
    """A travel sentence also names an event of its own, with its own time or an appointment
    ("flight Tuesday, dentist Friday", "fly out Monday; choir is Thursday at 7"), not only
    the trip's purpose ("booked Denver for the conference", "a painting course in Andalusia")."""
    rest = _no_travel(_PURPOSE.sub(" ", sentence))
    if NOUNS.search(rest) is None or _APPOINTMENT.search(rest) is None and not times_of(rest):
        return False
    # the event and its time in a part of the sentence that is not about the travel ("southwest, sat the
    # 1st at 8:30pm" is the flight's time, not the wedding's)
    return any(NOUNS.search(part) is not None and (_APPOINTMENT.search(part) is not None or bool(times_of(part)))
               for part in re.split(r"[,;.]\s+|\s+(?:and|but)\s+", sentence) if not _TRIP_CUES.search(part))


def _series(sentence: str, context: Context, how_often: str, names: list[str],
            times: list[str]) -> dict[str, JsonValue]:
    """The fields of a recurring event: recurrence, weekday(s), times, first and last day."""
    fields: dict[str, JsonValue] = {"recurrence": how_often}
    if names:
        fields["weekday"] = ", ".join(names)
    nth = nth_weekday(sentence) if how_often == "monthly" else None
    if nth is not None:
        fields["weekday"] = nth  # "the first Monday of every month" -> "first monday"
    if times:
        fields["start_time"] = times[0]
        end_time = times[1] if len(times) > 1 else None
        length = minutes_long(sentence)
        if end_time is None and length is not None:
            end_time = plus_minutes(times[0], length)
        if end_time is not None:
            fields["end_time"] = end_time
    today = today_of(context)
    if today is None:
        return fields
    if how_often == "monthly":
        return fields  # which week of the month: no first day computed
    begins = starting(sentence, today) or today
    first = min((first_on_or_after(begins, WEEKDAYS.index(name)) for name in names), default=None)
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
        last = _LAST_DAY.search(sentence) or _NEXT_DAY.search(sentence)
        if last is not None and int(last.group("dd")) > day.day and \
                (last.re is _LAST_DAY or int(last.group("dd")) == day.day + 1):
            try:
                fields["end"] = day.replace(day=int(last.group("dd"))).isoformat()
            except ValueError:
                pass
    return fields


_FOR_GOOD = re.compile(r"\b(?:for good|permanently|altogether|indefinitely|for the rest of the (?:year|season|term))\b",
                       re.I)
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
    title = title_of(sentence, noun)
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
    today = today_of(context)
    if _MOVED_TO.search(sentence) and "recurrence" not in previous.fields and \
            isinstance(previous.fields.get("start"), str) and today is not None and \
            day_of(sentence, context) is not None:
        return _new_day(previous, sentence, context)  # "they called back - it's now Thursday 3/12, same time"
    if _day_fixed(sentence, context) and "recurrence" not in previous.fields and \
            isinstance(previous.fields.get("start"), str) and today is not None:
        return _new_day(previous, sentence, context)
    if times and re.match(r"^\W*(?:actually|sorry|no|wait|it's|its|make that|correction)\b", sentence, re.I):
        return _update_times(previous, times, context)
    if today is not None and "recurrence" in previous.fields and "end" not in previous.fields and \
            _ENDS_NOW.match(sentence):
        began = previous.fields.get("start")
        said = re.sub(r"^\W*(?:and\s+)?(?:(?:it|that|they|this)(?:'s|’s| is| will)?\s+)?(?:ends?|finish(?:es)?|"
                      r"wraps? up|end date|until|last [a-z]+)\s*(?::|on\b)?", "until ", sentence, flags=re.I)
        last = series_end(said, today,
                          parse_date(began[:10]) if isinstance(began, str) else None)
        if last is None:
            return None
        return TypedFact(previous.kind, previous.key, {**previous.fields, "end": last.isoformat(),
                                                       "speaker": context.speaker})
    where = _WHERE_LINE.match(sentence) or _ITS_AT.match(sentence)
    if where is not None and previous.kind == DOMAIN and "location" not in previous.fields and \
            (where.re is _WHERE_LINE or context.topic == DOMAIN and not times and day_of(sentence, context) is None):
        return TypedFact(previous.kind, previous.key, {**previous.fields, "location": where.group("where").rstrip("."),
                                                       "speaker": context.speaker})
    if _STARTS_NOW.match(sentence) and "recurrence" in previous.fields and today is not None:
        from_day = starting(sentence, today)  # "Starting next week, heaven help me."
        if from_day is None:
            return None
        names = [name for name in re.findall(r"[a-z]+", str(previous.fields.get("weekday") or "")) if name in WEEKDAYS]
        first = min((first_on_or_after(from_day, WEEKDAYS.index(name)) for name in names), default=from_day)
        at = previous.fields.get("start_time")
        fields = {**previous.fields, "speaker": context.speaker,
                  "start": f"{first.isoformat()}T{at}:00" if isinstance(at, str) else first.isoformat()}
        return TypedFact(previous.kind, previous.key, fields)
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


_DAY_WORD = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?"
_INSTEAD = re.compile(rf"\b(?:instead of|rather than|not|no longer(?: on)?)\s+(?:on\s+)?{_DAY_WORD}\b", re.I)
_STARTING_DAY = re.compile(r"\b(?:starting|from|as of|effective|beginning)\b", re.I)
_CHANGED = re.compile(r"\b(?:now|from now on|instead|moved|changed|switched|going forward|anymore|these days|"
                      r"starting|as of|effective)\b", re.I)
_LEADING = re.compile(r"^\W*(?:[A-Za-z][\w ]{0,24}:\s+)?(?:(?:my|our|the)\s+)?"
                      r"(?P<title>[A-Za-z][\w'&+-]*(?:\s+[A-Za-z0-9][\w'&+-]*){0,3}?)\s*,?\s*"
                      r"(?:(?:is|are|meets|happens)\s+)?(?:(?:on|every|each)\s+)?(?:other\s+)?"
                      r"(?=(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?\b|(?-i:MWF|TTh|M-F)\b|"
                      r"weekdays\b|weekends\b)", re.I)
_HAS = re.compile(r"\b(?:i|we|he|she|they|[A-Z][a-z]+)\s+(?:have|has|had|got|do|does|attend|attends|take|takes|"
                  r"teach|teaches|play|plays|coach|coaches|go to|goes to)\s+(?:(?:a|an|my|his|her|our|their)\s+)?"
                  r"(?P<title>[A-Za-z][\w'&+-]*(?:\s+(?!(?:on|every|each|at|from|in)\b)[A-Za-z][\w'&+-]*)?)\s+"
                  r"(?:(?:on|every|each)\s+)?(?:other\s+)?"
                  r"(?=(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?\b|(?-i:MWF|TTh|M-F)\b|"
                  r"weekdays\b|weekends\b)", re.I)
_JOINING = frozenset("to of and for in the".split())
_NOT_LEADING = frozenset("i i'm i've it it's its that that's this these those they they're we we're he she you "
                         "only usually normally mostly then now still just also every each next this last see "
                         "meet call text busy free off work working home out back fly flying leave leaving "
                         "arrive arriving time plans nothing something stuff everything them one two off free comes "
                         "come coming arrives "
                         "opens closes due delivers delivery charges pays paid bills renews works picks collects "
                         "available sorry no nope wait actually oops oh correction".split())


def _leading_title(sentence: str) -> re.Match[str] | None:
    """The name a schedule line begins with when it is no known event noun ("Kumon Tuesdays
    4-5", "Stats Tue/Thu 1-2:15", "Bharatanatyam is Saturdays 4 to 6"), or what someone has or
    does on a weekday ("I have Spanish on Tuesdays at 6"): up to three words before its weekday,
    none a pronoun, a schedule word or a weekday; the line must give a time."""
    if not times_of(sentence):
        return None
    for lead in (_LEADING.match(sentence), _HAS.search(sentence)):
        if lead is None:
            continue
        words = lead.group("title").split()
        inner = words[1:-1]  # "Intro to Psych": a joining word inside a name
        if any((w.casefold() in TITLE_STOP and not (w in inner and w.casefold() in _JOINING)) or
               w.casefold() in _NOT_LEADING or WEEKDAY.fullmatch(w) for w in words) or \
                _TRIP_CUES.search(lead.group("title")) or \
                lead.re is _LEADING and place_name(lead.group("title")) is not None:  # "Denver Tuesdays at 6"
            continue
        return re.compile(re.escape(lead.group("title"))).search(sentence, lead.start("title"))
    return None


def _new_time(sentence: str, noun: re.Match[str], times: list[str], context: Context,
              day: date | None = None) -> TypedFact:
    """A new time for a series an earlier session named ("from now on standup is at 10",
    "standup moved to 9:45 starting Monday"): the same entity (its title is its key), so its
    days stay as they were."""
    subject, person = _whose(sentence, context, noun)
    title = _prior_series(context, title_of(sentence, noun), subject) or title_of(sentence, noun)
    fields: dict[str, JsonValue] = {"title": title, "start_time": times[0]}
    if len(times) > 1:
        fields["end_time"] = times[1]
    if day is not None:
        fields["start"] = f"{day.isoformat()}T{times[0]}:00"
    if person is not None:
        fields["person"] = person
    key = title.casefold() if subject == "user" else f"{subject.casefold()}/{title.casefold()}"
    return TypedFact(DOMAIN, key, conversation_fields(context, subject, fields))


def _singular(word: str) -> str:
    folded = word.casefold()
    if folded.endswith("sses"):
        return folded[:-2]
    return folded if folded.endswith("ss") else folded.removesuffix("s")


def _prior_series(context: Context, title: str | None, subject: str) -> str | None:
    """The full title of the one running series an earlier session named that a generic title
    names ("the class" -> "pottery class", "lessons" -> "swim lessons"), else None."""
    if title is None or title.casefold() not in _GENERIC:
        return None
    word = _singular(title)
    found = {str(fields["title"]) for _, fields in context.prior.of_kind(DOMAIN)
             if fields.get("recurrence") and isinstance(fields.get("title"), str) and
             fields.get("status") not in ("ended", "cancelled") and str(fields.get("subject") or "user") == subject and
             len(str(fields["title"]).split()) > 1 and _singular(str(fields["title"]).split()[-1]) == word}
    return found.pop() if len(found) == 1 else None


def _title_words(title: str) -> set[str]:
    return {w.replace("'s", "").replace("’s", "").replace("'", "").removesuffix("s") for w in title.casefold().split()}


def _one_off(context: Context, noun: re.Match[str], sentence: str) -> tuple[str, dict[str, JsonValue]] | None:
    """(key, fields with its `kind`) of the one-off event or appointment this session or an
    earlier one named that the sentence's noun names again ("the hen do", "my dental
    appointment", "Dr Amin"), the latest first; None when none or several differ."""
    title = title_of(sentence, noun)
    mine = _title_words(title)
    provider = provider_of(sentence, context) if _APPOINTMENT.search(sentence) else None
    session = [(kind, name.split(":", 1)[1], fields) for name, fields in reversed(context.entities.items())
               for kind in (DOMAIN,) if name.startswith(f"{DOMAIN}:")]
    last = context.last.get(DOMAIN)
    if last is not None and last.key is not None:
        session.insert(0, (last.kind, last.key, dict(last.fields)))
    earlier = [(kind, key, fields) for kind in (APPOINTMENT, DOMAIN)
               for key, fields in context.prior.of_kind(kind)[::-1]]
    for kind, key, fields in [*session, *earlier]:
        if fields.get("recurrence") or not isinstance(fields.get("start"), str) or \
                fields.get("status") in ("cancelled", "ended"):
            continue
        if kind == APPOINTMENT and provider is not None and key == provider.casefold() or \
                kind == DOMAIN and (theirs := _title_words(str(fields.get("title") or ""))) and \
                (mine <= theirs or theirs <= mine) and mine - {"the", "my", "our"}:
            return key, {**fields, "kind": kind}
    return None


def _one_off_on(context: Context, title: str | None, day: date) -> str | None:
    """The key of the one-off event on `day` this session or an earlier one named with `title`
    (its words all in the other's, "Kevins" = "Kevin's"), else None."""
    if not title:
        return None
    mine = _title_words(title)
    known = [(name.removeprefix(f"{DOMAIN}:"), fields) for name, fields in reversed(context.entities.items())
             if name.startswith(f"{DOMAIN}:")]
    for key, fields in [*known, *context.prior.of_kind(DOMAIN)[::-1]]:
        theirs = _title_words(str(fields.get("title") or ""))
        if not fields.get("recurrence") and str(fields.get("start") or "")[:10] == day.isoformat() and theirs and \
                (mine <= theirs or theirs <= mine):
            return key
    return None


def _known(context: Context, title: str | None) -> tuple[str, dict[str, JsonValue]] | None:
    """(key, fields) of the event of this session whose title `title` names, the latest first."""
    if not title:
        return None
    for name, fields in reversed(context.entities.items()):
        known = fields.get("title")
        if name.startswith(f"{DOMAIN}:") and isinstance(known, str) and \
                (known.casefold() == title.casefold() or title.casefold() not in _GENERIC and
                 known.casefold().endswith(f" {title.casefold()}")):
            return name.removeprefix(f"{DOMAIN}:"), fields
    return None


def _with_whom(sentence: str, noun: re.Match[str], title: str) -> str:
    """ "1:1 with my manager" -> "1:1 with manager": a meeting of two is named by the other."""
    whom = re.match(r"\s+with\s+(?:my|our|the|his|her)?\s*(?P<who>(?:line\s+|team\s+|direct\s+|new\s+|clinical\s+|"
                    r"practice\s+|project\s+|academic\s+|phd\s+|thesis\s+)?"
                    r"(?:manager|boss|supervisor|lead|mentor|mentee|report|director|coach|advisor|adviser|tutor)|"
                    r"(?-i:[A-Z][a-z]+))\b", sentence[noun.end():], re.I)
    return f"{title} with {whom.group('who')}" if whom is not None else title


def _no_travel(sentence: str) -> str:
    return TRAVEL.sub(" ", sentence)


def _update_times(previous: TypedFact, times: list[str], context: Context, sentence: str = "") -> TypedFact:
    fields = dict(previous.fields)
    if "start_time" in fields or "recurrence" in fields:
        fields["start_time"] = times[0]
        length = minutes_long(sentence)
        if len(times) > 1:
            fields["end_time"] = times[1]
        elif length is not None and plus_minutes(times[0], length) is not None:
            fields["end_time"] = plus_minutes(times[0], length)
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


def _day_fixed(sentence: str, context: Context) -> bool:
    """The sentence corrects the day or time of the event the session's last sentence named
    ("No wait, that's wrong, it's the 19th"), not of another domain's fact."""
    return context.topic == DOMAIN and _DAY_FIX.search(sentence) is not None and \
        _DAY_FIX_CUE.search(sentence) is not None


def _new_day(previous: TypedFact, sentence: str, context: Context) -> TypedFact | None:
    """A dated event moved by a correction: the new day, the new time (a time without am/pm
    in the same half of the day as before: "8:30" -> "the 19th at 8" is 20:00), "not 8:30" left out."""
    start = str(previous.fields["start"])
    text = _NOT_TIME.sub("", sentence)
    day = day_of(text, context) or parse_date(start[:10])
    times = times_of(text)
    clock = start[11:16] if len(start) > 10 else None
    if times:
        hour = int(times[0][:2])
        explicit = re.search(r"\d\s*[ap]\.?m\b|\b(?:morning|evening|night|afternoon)\b", text, re.I)
        if clock is not None and explicit is None and hour < 12 and \
                abs(hour + 12 - int(clock[:2])) < abs(hour - int(clock[:2])):
            hour += 12  # nearer the time it corrects twelve hours on
        clock = f"{hour:02d}{times[0][2:]}"
    new = f"{day.isoformat()}T{clock}:00" if clock else day.isoformat()
    if new == start:
        return None
    fields = {**previous.fields, "start": new, "speaker": context.speaker}
    fields.pop("end", None)
    return TypedFact(previous.kind, previous.key, fields)


def _provider_named(sentence: str, context: Context) -> TypedFact | None:
    """The clinician (and street) of the appointment this session just named, said in a line
    of its own after it ("its dr kim on 5th st btw"): the same appointment, provider set."""
    previous = context.last.get(DOMAIN)
    line = _PROVIDER_LINE.match(sentence)
    if previous is None or previous.kind != APPOINTMENT or line is None or day_of(sentence, context) is not None or \
            times_of(sentence) or context.topic != DOMAIN:
        return None
    fields: dict[str, JsonValue] = {**previous.fields, "provider": f"Dr. {line.group('name').capitalize()}",
                                    "speaker": context.speaker}
    street = _LOWER_STREET.search(sentence, line.end())
    if street is not None and "location" not in fields:
        fields["location"] = " ".join(w.capitalize() if not w[0].isdigit() else w.lower()
                                      for w in street.group("street").rstrip(".").split())
    return TypedFact(APPOINTMENT, previous.key, fields)

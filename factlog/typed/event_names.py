"""What an event is called, where it is and with whom, for `factlog.typed.events`.

- Title: the event's noun and up to two words before it that name it ("Executive
  Committee", "Rotary lunch", "INR check"), "tickets for Hamilton" -> "Hamilton", "volunteer
  at the food bank" -> "food bank volunteering".
- Location: "at the library on Oak", "in the fourth-floor boardroom", "at Core Motion on
  3rd Ave" -> "Core Motion, 3rd Ave"; it stops at a weekday, a number or a schedule word.
- Provider of an appointment: a technician ("Whirlpool technician", from "I contacted
  Whirlpool and a technician ..."), the clinician named, "dentist" for a dental visit, a
  clinician's noun ("orthodontist"), else the session's last one.
"""

from __future__ import annotations

import re

from factlog.typed.care import care_named
from factlog.typed.model import Context
from factlog.typed.recurrence import WEEKDAY

TITLE_STOP = frozenset(
    "my the a an his her our their your this that next every each on at is was has have got i we he she they "
    "and or of for to in with about new also weekly no cancel some ugh ok okay so um uh oh well then "
    "kindly please other second biweekly fortnightly monthly daily recurring per night morning evening afternoon "
    "coach teach lead run host play "
    "last first final quit stopped dropped finished ended joined started "
    "signed up attend attending go going take taking do doing skip skipping skipped cancelled canceled booked book "
    "hour hours minute minutes min mins remind me fyi btw note just today tonight tomorrow tmrw reminder know "
    "calendar diary kids children takes plays attends does teaches coaches goes has i'm im i've we're we've he's "
    "she's they're moved changed switched rescheduled shifted pushed add put set hey assistant siri alexa".split()
)
# overlapping ("at 7 starting next thursday at the methodist church": the second "at" is found too)
_LOCATION = re.compile(r"(?<!-)(?=\b(?:at|in)\s+(?P<where>(?:the\s+)?(?:St\.\s+[A-Z][\w'-]*|[A-Z0-9][\w'-]*|"
                       r"fourth-floor|[a-z]+-floor)(?:\s+(?:St\.?(?!\w)|&\s+[A-Z][\w'-]*|[A-Z0-9][\w'-]*|on|of|boardroom|room|library|"
                       r"center|centre|office|street|st|ave|avenue|road|rd|hall|studio|gym|church|school)){0,4}))",
                       re.I)
_NOT_LOCATION = re.compile(r"^(?:the\s+)?(?:\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\b|"
                           r"(?:noon|midday|night|evening|morning|am|pm|work|home|lunch|one|two|three|four|five|six|"
                           r"seven|eight|nine|ten|eleven|twelve|half|quarter)\b)", re.I)
_ONLINE = re.compile(r"\b(?:on|over|via)\s+(?P<where>zoom|teams|google meet|meet|webex|skype|facetime)\b", re.I)


def fold_words(text: str) -> str:
    return " ".join(w for w in text.casefold().split() if w not in ("the", "a", "an"))


_WHEN_BEFORE = re.compile(r"\b(?:after|before)\s+(?:work|school|lunch|dinner|class|church)\s*$", re.I)


def title_of(sentence: str, noun: re.Match[str]) -> str:
    """The event's name: the noun and up to two words before it that name it ("Executive
    Committee", "Rotary lunch", "physical therapy", "INR check")."""
    ticket = re.match(r"tickets?\s+(?:for|to)\s+(?:see\s+)?(?:the\s+)?(?P<name>.+)", noun.group(0), re.I)
    if ticket is not None:
        return ticket.group("name")  # "tickets for the Coldplay show" -> "Coldplay show"
    before = sentence[:noun.start()]
    # a name does not reach back over a comma or a time of day: "after work, training's half 6"
    before = _WHEN_BEFORE.sub("", before[max((before.rfind(mark) for mark in ".!?;:,"), default=-1) + 1:])
    words = re.findall(r"[\w'-]+", before)
    kept: list[str] = []
    for word in reversed(words[-2:]):
        if word.casefold() in TITLE_STOP or WEEKDAY.fullmatch(word) or word[0].isdigit() or \
                word.casefold().endswith(("'s", "'", "’s", "’")):
            break
        kept.insert(0, word)
    text = " ".join([*kept, noun.group(0)])
    if re.match(r"^(?:minding|childminding|babysitting)$", noun.group(0), re.I):  # "minding my grandson Oliver"
        whom = re.match(r"\s+(?:(?:my|our|the|her|his)\s+)?(?:[a-z]+\s+)?(?P<name>(?-i:[A-Z][a-z]+))\b",
                        sentence[noun.end():])
        name = whom.group("name") if whom is not None else None
        if name is not None and name.casefold() not in TITLE_STOP and not WEEKDAY.fullmatch(name):
            return f"{noun.group(0).lower()} {name}"
    if re.match(r"^volunteer", noun.group(0), re.I):
        after = re.match(r"\s+(?:at|for)\s+(?:the\s+)?(?P<what>[\w ]+?)(?=[,.;]|\s+(?:from|on|at|every|each|weekly|"
                         r"the (?:first|second|third|fourth|last)|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
                         r"\d)\b|$)",
                         sentence[noun.end():], re.I)
        if after is not None:
            text = f"{after.group('what')} volunteering"
    return text


CLINICIANS = (r"dentist|orthodontist|pediatrician|dermatologist|optometrist|ophthalmologist|cardiologist|gynecologist|"
              r"allergist|neurologist|oncologist|urologist|podiatrist|audiologist|endocrinologist|rheumatologist|"
              r"gastroenterologist|hematologist|nephrologist|pulmonologist|surgeon|midwife|ob-?gyn|"
              r"physiotherapist|physio|chiropractor|vets?|veterinarian|GP|therapist|psychiatrist|counsel+or|"
              r"(?:eye|family|foot|skin) doctor")  # a clinician's noun: the provider of an appointment with one
TRADES = (r"technician|plumber|electrician|handyman|repairman|installer|cable guy|"  # who comes to fix something
          r"solicitor|lawyer|attorney|accountant|notary|optician|hairdresser|barber|mechanic")  # whom the user sees
_CLINICIAN = re.compile(rf"\b(?:{CLINICIANS}|{TRADES})\b", re.I)


# a practice named by its trade: "at Bayview Physio", "with Smile Dental", "Northside Medical Centre"
_PRACTICE = re.compile(r"\b(?:at|with|from)\s+(?:the\s+)?(?P<name>(?:[A-Z][\w&'-]*\s+){1,3}"
                       r"(?:Physio(?:therapy)?|Dental(?:\s+(?:Care|Clinic|Practice|Surgery|Centre|Center))?|Dentistry|"
                       r"Orthodontics|Chiropractic|Podiatry|Optometry|Opticians?|Eye\s+Care|Vision|Medical(?:\s+"
                       r"(?:Centre|Center|Practice|Group|Clinic))?|Health(?:\s+(?:Centre|Center|Clinic))?|Clinic|"
                       r"Surgery|Family\s+Practice|Vet(?:s|erinary)?(?:\s+(?:Clinic|Hospital|Surgery))?|Animal\s+Hospital))\b")
# a clinician's short name: "ortho appt", "derm", "chiro", "gyno"
_SHORT_CLINICIAN = {"ortho": "orthodontist", "derm": "dermatologist", "chiro": "chiropractor", "gyno": "gynecologist",
                    "optom": "optometrist", "obgyn": "ob-gyn", "peds": "pediatrician", "psych": "psychiatrist",
                    "podiatry": "podiatrist", "cardio": "cardiologist", "neuro": "neurologist",
                    "endo": "endocrinologist"}
_SHORT = re.compile(rf"\b(?P<word>{'|'.join(_SHORT_CLINICIAN)})\s+(?:appt|appointment|visit|check-?up|follow-?up)\b",
                    re.I)


# a clinic's text message names its sender first: "ClearView Optometry: Your appointment with Dr. Ramos ..."
_SENDER = re.compile(r"(?:^|:\s)\W*(?P<name>(?:[A-Z][\w&'-]*\s+){1,3}(?:Physio(?:therapy)?|"
                     r"Dental(?:\s+(?:Care|Clinic|Practice|"
                     r"Surgery|Centre|Center))?|Dentistry|Orthodontics|Chiropractic|Podiatry|Optometry|Opticians?|"
                     r"Eye\s+Care|Vision|Medical(?:\s+(?:Centre|Center|Practice|Group|Clinic))?|Clinic|Surgery|"
                     r"Vet(?:s|erinary)?(?:\s+(?:Clinic|Hospital|Surgery))?|Animal\s+Hospital))\s*:\s")


def practice_of(sentence: str) -> str | None:
    """The practice an appointment is at: "at Bayview Physio", "with Smile Dental", or the
    sender a clinic's text message begins with ("Lambton Quay Dental: Hi Aroha, ...")."""
    practice = _PRACTICE.search(sentence) or _SENDER.search(sentence)
    if practice is None or practice.group("name").split()[0].casefold() in TITLE_STOP:
        return None
    return practice.group("name")


def provider_of(sentence: str, context: Context) -> str | None:
    """Who the appointment is with; a doctor named beside a practice is the provider (the
    practice is the place, `practice_of`)."""
    practice = practice_of(sentence)
    if practice is not None:
        named = care_named(sentence)
        return named if named is not None and named.startswith("Dr.") else practice
    short = _SHORT.search(sentence)
    if short is not None:
        return _SHORT_CLINICIAN[short.group("word").lower()]
    technician = re.search(r"\b(?:(?P<who>[A-Z][\w&'-]+)\s+)?technician\b", sentence)
    if technician is not None:
        company = technician.group("who") or _company(sentence)
        return f"{company} technician" if company else "technician"
    named = care_named(sentence)
    if named is not None and not WEEKDAY.fullmatch(named.split()[-1]):  # not "Dr. Friday" from "doctor Friday"
        return named
    if re.search(r"\b(?:dental|teeth)\b", sentence, re.I):
        return "dentist"
    clinician = _CLINICIAN.search(sentence)
    if clinician is not None:
        return clinician.group(0).lower()
    return context.care


_MONTH = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?", re.I)
_NUMBERED = frozenset("room suite unit ward floor building studio hall court field gate level".split())
_PLACE_END = frozenset("every each weekly for from until till through thru starting at and to with first last "
                       "is are was were meets meet runs run starts start happens will".split())  # "bakery is every"


def _place_words(words: list[str]) -> list[str]:
    """A place's words, up to the first that is a weekday, a number or a schedule word
    ("the animal shelter Sundays 1-4" -> "the animal shelter")."""
    kept: list[str] = []
    for word in words:
        numbered = kept and kept[-1].casefold() in _NUMBERED and \
            re.fullmatch(r"\d{1,4}[A-Za-z]?", word) is not None  # "Room 3B"
        if WEEKDAY.fullmatch(word) or (kept and word[:1].isdigit() and not numbered and
                                       not re.match(r"\d+(?:st|nd|rd|th)$", word)) \
                or word.casefold() in _PLACE_END or kept and _MONTH.fullmatch(word):
            break
        kept.append(word)
    while kept and kept[-1].casefold() in ("on", "of", "the"):
        kept.pop()
    return kept


def _company(sentence: str) -> str | None:
    """The firm a technician comes from: "I contacted Whirlpool and a technician ...",
    "a technician from Bosch"."""
    match = re.search(r"\b(?:contacted|called|rang|emailed|from|with)\s+(?P<who>(?-i:[A-Z][\w&'-]+))", sentence)
    if match is None or match.group("who").casefold() in TITLE_STOP or WEEKDAY.fullmatch(match.group("who")):
        return None
    return match.group("who")


_STREET = re.compile(r"\bon\s+(?P<street>(?:[A-Z0-9][\w'-]*\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|"
                     r"Lane|Ln|Drive|Dr|Way|Place|Pl)\b\.?)")


def location_of(sentence: str, title: str | None = None) -> str | None:
    """Where the event is: "at the library on Oak", "in the fourth-floor boardroom"; a street
    ("on Grant Street") when the place "at" names is the event's own title; "on zoom" -> "Zoom"."""
    online = _ONLINE.search(sentence)
    if online is not None and online.group("where").lower() != "meet":
        word = online.group("where")
        return {"zoom": "Zoom", "teams": "Teams", "google meet": "Google Meet", "webex": "Webex", "skype": "Skype",
                "facetime": "FaceTime"}.get(word.lower(), word)
    for match in _LOCATION.finditer(sentence):
        where = match.group("where")
        if title is not None and fold_words(where) in fold_words(title):
            street = _STREET.search(sentence)
            return street.group("street").rstrip(".") if street is not None else None
        if _NOT_LOCATION.match(where) or WEEKDAY.match(where.removeprefix("the ")) or \
                _MONTH.fullmatch(where.split()[0]):
            continue
        words = where.split()
        while words and words[0].casefold() in ("the", "their", "his", "her", "our", "my"):
            words.pop(0)
        words = _place_words(words)
        if not words:
            continue
        if "on" in words[1:] and words[0][:1].isupper():  # "Core Motion on 3rd Ave": venue, street
            cut = words.index("on", 1)
            place = " ".join(words[:cut])
            if words[cut + 1:]:
                place = f"{place}, {' '.join(words[cut + 1:])}"
            return place.rstrip(".")  # "King St." at a sentence's end
        return " ".join(words).rstrip(".") or None
    return None

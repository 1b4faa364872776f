"""The dates a document sentence states: after an expiry cue the expiry, after a start cue
the start, after an issue cue the issue date, after a purchase cue the purchase date; an
insurance range ("from March 1 to March 20", "through Allianz, June 3 to June 15", "covers
14 days starting June 3") is start and end; a year-less expiry lies ahead unless told as
past; an expiry said by its month is the month's first day ("the end of June": its last).
`factlog.typed.documents` reads the rest of the sentence.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.recognizers import MONTHS
from factlog.timeparse import try_date
from factlog.typed.common import Cue, add_months, dates_by_cue, leading_days, same_month_ends
from factlog.typed.model import Context

EXPIRY = re.compile(
    r"\b(?:expir\w*|exp\b\.?|valid (?:until|till|through|thru|to)|good (?:until|till|through|thru)|runs? out|"
    r"up for renewal|renews(?:\s+on)?|stops?|terminat\w*|"
    r"ends?|ending|finish\w*|lapses?|renewal (?:date|due)|due for renewal|(?:must )?leave by|until|till|through|"
    r"thru|to)\b",
    re.I,
)
CUES = (
    Cue("expiry", EXPIRY),
    Cue("start", re.compile(r"\b(?:start\w*|begin\w*|effective|from|coverage starts|covers|covering)\b", re.I)),
    Cue("issue", re.compile(r"\b(?:issued|issue date|renewed)\b", re.I)),
    Cue("purchase", re.compile(r"\b(?:bought|purchased|got it|picked up|ordered)\b", re.I)),
)
STATES_EXPIRY = re.compile(r"\b(?:expir\w*|exp\b\.?|up for renewal|renews|cover(?:age)? stops|terminat\w*|"
                            r"valid (?:until|till|through|thru|from)|"
                            r"valid(?=\s+\d)|"
                            r"good (?:until|through)|runs? out|runs? (?:from|until|till|through|to)|lapses?|"
                            r"ends? on|finish\w*|(?:must )?leave by|cover(?:age)? (?:starts|begins|ends|runs))\b", re.I)


def document_dates(sentence: str, context: Context, kind: str) -> dict[str, JsonValue]:
    fields = _cued_dates(sentence, context, kind)
    if "expiry_date" not in fields and kind != "warranty" or kind == "warranty" and not fields:
        month_end = _month_expiry(sentence, context)
        if month_end is not None:
            fields["expiry_date"] = month_end
    expiry = try_date(str(fields.get("expiry_date", "")))
    years = set(_YEAR.findall(sentence))
    if expiry is not None and len(years) == 1 and str(expiry.year) not in years and \
            not any(year in value for value in fields.values() if isinstance(value, str) for year in years):
        try:  # "the new one expires in 2036, on March 5": the year said apart from its day
            fields["expiry_date"] = expiry.replace(year=int(years.pop())).isoformat()
        except ValueError:
            pass
    elif expiry is not None and context.timestamp is not None and expiry < context.timestamp.date() and \
            (other := _other_order(sentence, expiry)) is not None and other >= context.timestamp.date() and \
            not _WAS.search(sentence):
        fields["expiry_date"] = other.isoformat()  # "it expires 2/7/26", said in February 2026: 2 July (day first)
    elif expiry is not None and not years and not _SLASHED.search(sentence) and context.timestamp is not None \
            and expiry < context.timestamp.date() and not _WAS.search(sentence):
        try:  # "my passport expires on the 30th of August", said in January: this August, not last
            fields["expiry_date"] = expiry.replace(year=expiry.year + 1).isoformat()
        except ValueError:
            fields["expiry_date"] = expiry.replace(year=expiry.year + 1, day=28).isoformat()
    return fields


# an expiry said by its month only: "good until March next year", "runs out in August", "until the end of
# June", "until September 2027", "exp 03/2027"
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_MONTH_EXPIRY = re.compile(
    rf"\b(?:expir\w*|exp\b\.?|valid (?:until|till|through|thru)|good (?:until|till|through|thru)|runs? out|"
    rf"lapses?|ends?|until|till|through|thru|up for renewal)(?:\s+date)?(?:\s+is|:)?\s+(?:on\s+|in\s+|by\s+)?"
    rf"(?:(?P<end>the end of)\s+)?"
    rf"(?:(?P<next>next)\s+)?(?:(?P<month>{_MONTH_NAMES})\.?(?:,?\s+(?P<year>(?:19|20)\d\d)|\s+(?P<rel>next year))?"
    rf"|(?P<mm>0?[1-9]|1[0-2])/(?P<yyyy>20\d\d))(?![\w/-]|\s+\d)", re.I)


_END_OF_MONTH = re.compile(r"\b(?:the\s+)?end\s+of\s+(?P<which>next|this)\s+month\b", re.I)


def _month_expiry(sentence: str, context: Context) -> str | None:
    """The expiry a month names without its day: its first day (the earliest it can be; the
    last with "the end of"), in the year said, else the month's next coming."""
    match = _MONTH_EXPIRY.search(sentence)
    if context.timestamp is None or _WAS.search(sentence):
        return None
    today = context.timestamp.date()
    relative = _END_OF_MONTH.search(sentence) if STATES_EXPIRY.search(sentence) or match is None else None
    if relative is not None:  # "finishes end of next month"
        first = add_months(date(today.year, today.month, 1), 1 if relative.group("which").lower() == "next" else 0)
        return (add_months(first, 1) - timedelta(days=1)).isoformat()
    if match is None:
        return None
    if match.group("mm") is not None:
        month, year = int(match.group("mm")), int(match.group("yyyy"))
    else:
        month = MONTHS[match.group("month").lower().rstrip(".")]
        year = int(match.group("year")) if match.group("year") else today.year + 1 if match.group("rel") else \
            today.year if month > today.month or month == today.month and match.group("end") else today.year + 1
    first = date(year, month, 1)
    return (add_months(first, 1) - timedelta(days=1)).isoformat() if match.group("end") else first.isoformat()


# an expiry told as past: "it expired on March 3", "the cover ended in May"
_WAS = re.compile(r"\b(?:expired|ran out|lapsed|ended|finished|was (?:valid|good)|stopped|terminated|"
                  r"(?:has|had|have) (?:expired|lapsed|ended|run out))\b", re.I)


# a date with its year written with slashes or dots: "2/7/26", "14.05.2026" (the year is said, two digits or four)
_SLASHED = re.compile(r"(?<![\d/])(?<!\d\.)(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{2}|\d{4})"
                      r"(?![\d/]|\.\d)")



def _other_order(sentence: str, read: date) -> date | None:
    """The other reading of the slashed date read as `read` ("2/7/26": 7 February, or 2 July), or
    None when the sentence has none or it reads only one way."""
    for match in _SLASHED.finditer(sentence):
        a, b, y = int(match.group("a")), int(match.group("b")), int(match.group("y"))
        year = y + 2000 if y < 100 else y
        if a > 12 or b > 12 or a == b or year != read.year or {a, b} != {read.month, read.day}:
            continue
        try:
            return date(year, read.day, read.month)
        except ValueError:
            return None
    return None


_YEAR = re.compile(r"(?<![\d/-])(?:19[5-9]\d|20[0-4]\d)(?![\d/-])")  # not a card's last four ("ending 2087")


# two dates joined as a range ("June 3 to June 15", "3 Jun - 15 Jun"), not "ends Feb 25, before a March 5 return"
_DAY_AND_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|"
                           r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*",
                           re.I)
_RANGE_OF_TWO = re.compile(rf"(?:{_DAY_AND_MONTH.pattern})(?:,?\s+\d{{4}})?\s*(?:to|-|–|through|thru|until|till)\s*"
                           rf"(?:the\s+)?(?:{_DAY_AND_MONTH.pattern})", re.I)
# how long cover lasts from its start: "covers 14 days starting June 3" (the 14th day is its last)
_COVER_LENGTH = re.compile(r"\b(?:covers?|covering|for|lasts?)\s+(?:me\s+|us\s+)?(?:for\s+)?(?P<n>\d{1,3})\s+"
                           r"(?P<unit>days?|weeks?)\b", re.I)


def _cued_dates(sentence: str, context: Context, kind: str) -> dict[str, JsonValue]:
    found = dates_by_cue(sentence, context, CUES, tuple(sorted((*same_month_ends(sentence, context),
                                                                *leading_days(sentence, context)))))
    fields: dict[str, JsonValue] = {}
    for cue, name in (("expiry", "expiry_date"), ("start", "start_date"), ("issue", "issue_date"),
                      ("purchase", "purchase_date")):
        if found.get(cue):
            fields[name] = found[cue][0]
    if kind == "insurance" and "start_date" in fields and "expiry_date" not in fields and len(found["start"]) > 1:
        fields["expiry_date"] = found["start"][1]
    if kind in ("insurance", "visa") and "start_date" not in fields and len(found.get("expiry", [])) > 1 and \
            _RANGE_OF_TWO.search(sentence):
        # "through Allianz, June 3 to June 15": a range after a cue word
        fields["start_date"], fields["expiry_date"] = found["expiry"][0], found["expiry"][-1]
    if kind == "insurance" and "start_date" in fields and "expiry_date" not in fields and \
            (length := _COVER_LENGTH.search(sentence)) is not None and (first := try_date(str(fields["start_date"]))):
        n, unit = int(length.group("n")), length.group("unit").lower()
        fields["expiry_date"] = (first + timedelta(days=n * (7 if unit.startswith("week") else 1) - 1)).isoformat()
    bare = found.get("", [])
    if kind in ("insurance", "visa") and bare and "expiry_date" in fields and "start_date" not in fields:
        fields["start_date"] = bare[0]  # "valid 1/15 to 2/3"
    if bare and not fields:
        if kind == "insurance" and len(bare) > 1:
            fields["start_date"], fields["expiry_date"] = bare[0], bare[1]
        elif kind == "warranty":
            fields["purchase_date"] = bare[0]
        elif STATES_EXPIRY.search(sentence) or re.search(r"\bexpir|valid", sentence, re.I):
            fields["expiry_date"] = bare[-1]
    if kind == "warranty" and "purchase_date" not in fields and "expiry_date" in fields and \
            re.search(r"\b(?:bought|purchased)\b", sentence, re.I) and found.get("", []):
        fields["purchase_date"] = found[""][0]
    return fields

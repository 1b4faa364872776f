"""Doses, how often and how long, as people say them about a medication.

- `dose(text)`: "400 mg three times a day" from "advil 400 3x a day"; an amount ("5mg",
  "1,000 units" -> "1000 IU", "2.5 milligrams"), a count of a strength ("two of 500 mg", "2 x 200mg",
  "two 500 mg tablets" -> "1000 mg"), or a count of a form ("one tablet", "two puffs"),
  then the first frequency ("twice daily", "3x/day", "bid", "every 6 hours", "as needed",
  "every day" -> "daily", "four times in day" -> "four times a day"). A frequency alone is
  a dose too; `amount_before(text)` reads an amount just before a drug name ("20mg of Lexapro").
- `canonical_dose(text)`: the dose in one wording of each frequency, so two spellings of the
  same dose compare equal ("25 mg daily" = "25 mg once a day" = "25mg qd"; "400 mg twice
  daily" = "400 mg two times a day"; "at bedtime" = "at night"; "each morning" = "in the
  morning"); None when no dose is read.
- `course_days(text)`: the length of a course ("for ten days", "x 10 days", "a 5-day
  course", "for two weeks" -> 14), None when none is stated.
"""

from __future__ import annotations

import re

from factlog.recognizers import NUMBER_WORDS

_UNITS = {"mg": "mg", "milligram": "mg", "milligrams": "mg", "mgs": "mg", "mcg": "mcg", "microgram": "mcg",
          "micrograms": "mcg", "µg": "mcg", "ml": "mL", "milliliter": "mL", "milliliters": "mL", "millilitre": "mL",
          "millilitres": "mL", "cc": "mL", "g": "g", "gram": "g", "grams": "g", "iu": "IU", "units": "IU",
          "unit": "IU"}
_UNIT = r"mg|mgs|milligrams?|mcg|micrograms?|µg|ml|milliliters?|millilitres?|cc|iu|units?|grams?|g"
_NUMBER = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
_COUNT_WORDS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_COUNT_NAMES = {1: "one", 2: "two", 3: "three", 4: "four"}
_FORMS = r"tablets?|tabs?|pills?|capsules?|caps|puffs?|drops?|teaspoons?|tsp|tablespoons?|sprays?|patch(?:es)?|" \
         r"gummies|gummy|softgels?|lozenges?|injections?|shots?"
# a combination's strengths are one amount: "875/125 mg" (amoxicillin/clavulanate)
AMOUNT = re.compile(rf"(?<![\w.,/])(?P<n>(?:\d{{1,4}}/)?(?:{_NUMBER}))\s*(?P<unit>{_UNIT})\b", re.I)
_TIMES_STRENGTH = re.compile(
    rf"\b(?:(?P<count>one|two|three|four|[1-4])\s*(?:x|of|\*)\s*(?:the\s+)?|(?P<countw>two|three|four)\s+)"
    rf"(?P<n>{_NUMBER})\s*"
    rf"(?P<unit>{_UNIT})\b|"
    rf"\b(?P<count2>two|three|four|[2-4])\s+(?:{_FORMS})\s+of\s+(?P<n2>{_NUMBER})\s*(?P<unit2>{_UNIT})\b",
    re.I,
)
FORM_AMOUNT = re.compile(rf"\b(?P<n>one|two|three|four|half(?: a)?|a|an|[1-4])\s+(?P<form>{_FORMS})\b", re.I)
_TIMES = {"once": "once", "one time": "once", "twice": "twice", "two times": "twice", "three times": "three times",
          "four times": "four times", "1": "once", "2": "twice", "3": "three times", "4": "four times"}
FREQUENCY = re.compile(
    r"\b(?P<times>once|twice|one time|two times|three times|four times|(?P<digit>[1-4])\s*(?:x|times))\s*"
    r"(?:(?:a|per|in|each|every|/)\s*)?(?:the\s+)?(?P<per>day|daily|a day|/\s*day)\b|"
    # British prescriptions first ("500mg bd", "tds", "q.d.s.", "10mg od", "nocte", "mane"), so "q.d.s." is not "q.d"
    r"\b(?P<abbrev>t\.?d\.?s|q\.?d\.?s|b\.?d|o\.?d|nocte|mane|"
    r"b\.?i\.?d|t\.?i\.?d|q\.?i\.?d|q\.?d|q\.?h\.?s|h\.?s|q\.?am|q\.?pm)\b\.?|"
    r"\b(?P<perweek>once|twice|three times|(?P<wdigit>[2-4])\s*(?:x|times))\s*(?:a|per|each|every|/)\s*week\b|"
    r"\b(?P<fixed>every (?:morning|evening|night|day|other day|(?:\d+|two|three|four|six|eight|twelve)"
    r"(?:\s*(?:-|to)\s*(?:\d+|three|four|six|eight))?\s*(?:hours|hrs|hr)|week)|"
    r"each (?:morning|evening|night|day)|daily|nightly|weekly|once a week|as needed|when needed|if needed|prn|"
    r"when(?:ever)? (?:i|you|he|she|we|they) (?:need|needs) (?:it|them|one|some)|"  # "when I need it"
    r"when(?:ever)? (?:my|the|his|her|a) (?:\w+ )?(?:pain|ache|back|head|headache|migraine|knee|joints?|"
    r"shoulder|neck|stomach|tummy|chest|cough|allergies|asthma|hay fever) (?:hurts?|comes?|flares? up|flares?|"
    r"starts?|is bad|gets bad|acts up|plays up|kicks in|is playing up)|"
    r"as necessary|at bedtime|at night|before bed|in the (?:morning|evening)|"
    r"at (?:the )?(?:onset|first sign|start) of (?:a |an |the )?(?:migraine|headache|attack|symptoms|cold sore))\b|"
    r"(?<=\d)\s*(?P<bare>a day|per day)\b|(?:mg|mcg|units?|iu)\s+(?P<bare2>a day|per day)\b",
    re.I,
)
_ABBREVIATIONS = {"bid": "twice a day", "tid": "three times a day", "qid": "four times a day", "qd": "once a day",
                  "qhs": "at bedtime", "hs": "at bedtime", "qam": "every morning", "qpm": "every evening",
                  "bd": "twice a day", "tds": "three times a day", "qds": "four times a day", "od": "once a day",
                  "nocte": "at night", "mane": "in the morning"}
_FIXED = {"every day": "daily", "each day": "daily", "when needed": "as needed", "if needed": "as needed",
          "prn": "as needed", "as necessary": "as needed", "each morning": "every morning",
          "each evening": "every evening", "each night": "every night"}
_BARE = re.compile(rf"^[\s,:(-]*(?P<n>\d{{2,4}}/\d{{2,4}}(?!/)|\d{{2,4}}|\d+\.\d+|"
                   rf"\d(?=\s*(?:once|twice|three times|four times|daily|every|"
                   rf"a day|per day|bid|tid|qid|qd|at bedtime|at night|nightly)\b))\b"
                   rf"(?!\s*(?:days?|weeks?|x\b|times|hours?|%|[-/]|{_UNIT}\b))",
                   re.I)
_COURSE = re.compile(
    rf"\bfor\s+(?:the\s+next\s+|another\s+)?(?P<n>\d{{1,2}}|a|an|one|{'|'.join(NUMBER_WORDS)})\s+"
    rf"(?P<unit>days?|weeks?|wks?)\b|"
    rf"\bx\s*(?P<n3>\d{{1,2}})\s*(?P<unit3>days?|d|weeks?|wks?)\b|"
    rf"(?<!\bin )(?<!\bevery )(?<!\bago )\b(?P<n2>\d{{1,2}}|{'|'.join(NUMBER_WORDS)})[\s-]+"
    rf"(?P<unit2>days?|weeks?|wks?)\b"
    rf"(?!\s+ago|\s+later|\s+before|\s+after|\s+from now)",
    re.I,
)


_SMALL = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
          "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SPELLED_WORD = rf"(?:{'|'.join(_SMALL)}|hundred|thousand|a|and)"
# "five milligrams", "six hundred milligrams", "twelve and a half milligrams" is left alone
_SPELLED = re.compile(rf"\b(?P<words>(?:{'|'.join(_SMALL)})(?:[\s-]+{_SPELLED_WORD})*?)\s+(?=(?:{_UNIT})\b)", re.I)


def _spelled_value(words: str) -> int | None:
    total = current = 0
    last: int | None = None
    for word in re.split(r"[\s-]+", words.casefold()):
        if word in _SMALL:
            if last is not None and (last < 20 or last % 10 or _SMALL[word] >= 10):
                return None  # "two five hundred": a count and a strength, not one number
            last = _SMALL[word]
            current += last
            continue
        last = None
        if word == "hundred":
            current = (current or 1) * 100
        elif word == "thousand":
            total, current = total + (current or 1) * 1000, 0
        elif word not in ("and", "a"):
            return None
    return total + current or None


def digits(text: str) -> str:
    """A text with its spelled amounts written in digits ("six hundred milligrams" -> "600 milligrams")."""
    if not _SPELLED.search(text):
        return text
    def value(found: re.Match[str]) -> str:
        number = _spelled_value(found.group("words"))
        return found.group(0) if number is None else f"{number} "
    return _SPELLED.sub(value, text)


def _number(text: str) -> str:
    value = text.replace(",", "")
    return value[:-2] if value.endswith(".0") else value


def _unit(unit: str) -> str:
    return _UNITS[unit.casefold()]


def amount(text: str) -> str | None:
    """The amount a text gives first: a count times a strength, an amount, or a count of a form."""
    text = digits(text)
    times = _TIMES_STRENGTH.search(text)
    if times is not None:
        count = _COUNT_WORDS[(times.group("count") or times.group("countw") or times.group("count2")).casefold()]
        n, unit = (times.group("n"), times.group("unit")) if times.group("n") else \
            (times.group("n2"), times.group("unit2"))
        total = float(n.replace(",", "")) * count
        return f"{_number(f'{total:g}')} {_unit(unit)}"
    found = AMOUNT.search(text)
    if found is not None:
        return f"{_number(found.group('n'))} {_unit(found.group('unit'))}"
    form = FORM_AMOUNT.search(text)
    if form is not None:
        raw = form.group("n").casefold()
        noun = form.group("form").casefold()
        noun = {"tab": "tablet", "tabs": "tablets", "caps": "capsules"}.get(noun, noun)
        if raw.startswith("half"):
            return f"half {noun.rstrip('s') if not noun.endswith('ches') else noun[:-2]}"
        count = _COUNT_WORDS[raw]
        if count == 1:
            noun = noun[:-2] if noun.endswith("ches") else noun.rstrip("s") if noun not in ("gummies",) else "gummy"
        return f"{_COUNT_NAMES[count]} {noun}"
    bare = _BARE.match(text)
    if bare is not None:
        return f"{bare.group('n')} mg"
    return None


# a limit is no frequency: "take one when it starts, max 2 a day"
_LIMIT = re.compile(r"\b(?:max(?:imum)?|no more than|at most|not more than)\s+(?:of\s+)?$", re.I)


def _first_frequency(text: str, pos: int = 0) -> re.Match[str] | None:
    for found in FREQUENCY.finditer(text, pos):
        if not _LIMIT.search(text, 0, found.start() - (len(found.group("bare") or "") and 0)) \
                and not _LIMIT.search(re.sub(r"\s*\d+(?:\.\d+)?\s*$", " ", text[:found.start()])):
            return found
    return None


def frequency(text: str) -> str | None:
    """The first frequency a text gives, in a normal wording ("3x/day" -> "three times a day"),
    with "as needed" when that follows it ("every 6 hours as needed"); a limit ("max 2 a day") is none."""
    found = _first_frequency(text)
    if found is None:
        return None
    first = _frequency(found)
    if found.group("times") and re.search(r"\bup to\s+$", text[:found.start()], re.I):
        first = f"up to {first}"  # "up to three times a day": at most, as needed
    if found.group("times") and (when := _WHEN_IN_DAY.match(text, found.end())) is not None:
        first = f"{first} {' '.join(when.group('fixed').casefold().split())}"  # "once daily at bedtime"
    if first != "as needed":
        later = _first_frequency(text, found.end())
        if later is not None and _frequency(later) == "as needed":
            return f"{first} as needed"
    return first


# the time of day said right after a count per day: "once daily at bedtime", "twice a day, morning and night" is none
_WHEN_IN_DAY = re.compile(r"\s*,?\s*(?P<fixed>at bedtime|at night|before bed|in the (?:morning|evening))\b", re.I)


def _frequency(found: re.Match[str]) -> str:
    if found.group("times"):
        raw = found.group("digit") or " ".join(found.group("times").casefold().split())
        per = found.group("per").casefold()
        return f"{_TIMES[raw]} {'daily' if per == 'daily' else 'a day'}"
    if found.group("abbrev"):
        return _ABBREVIATIONS[found.group("abbrev").casefold().replace(".", "")]
    if found.group("perweek"):  # "twice a week", "3x per week"
        said = found.group("wdigit") or " ".join(found.group("perweek").casefold().split())
        return "weekly" if said == "once" else f"{_TIMES[said]} a week"
    if found.group("bare") or found.group("bare2"):
        return "daily"
    fixed = " ".join(found.group("fixed").casefold().split())
    if fixed.startswith("when"):  # "when my back hurts", "whenever I need it"
        return "as needed"
    fixed = re.sub(r"(?<=\d)\s*(?:hours|hrs|hr)$", " hours", fixed)  # "every 6 hrs" -> "every 6 hours"
    fixed = re.sub(r"^at (?:the )?(?:onset|first sign|start) of (?:a |an |the )?", "at onset of ", fixed)
    return _FIXED.get(fixed, fixed)


_LOADING = re.compile(
    rf"^\W*(?P<n>{_NUMBER})\s*(?P<unit>{_UNIT})\b[^.;]{{0,20}}?\b(?P<first>one|two|three|four|[1-4])\s+(?:{_FORMS})\s+"
    rf"(?:today|the first day|on (?:the )?first day|on day (?:one|1)|first)\b,?\s+(?:and\s+)?then\s+"
    rf"(?P<then>one|two|three|four|[1-4])\b(?:\s+(?:{_FORMS}))?",
    re.I,
)


def dose(text: str) -> str | None:
    """Amount and frequency, as far as the text gives them; a first-day dose and the one after
    ("250 milligrams, two tablets today and then one daily" -> "500 mg then 250 mg daily")."""
    loading = _LOADING.search(text)
    if loading is not None:
        strength = float(loading.group("n").replace(",", ""))
        unit = _unit(loading.group("unit"))
        first, then = (_COUNT_WORDS[loading.group(g).casefold()] * strength for g in ("first", "then"))
        how_often = frequency(text[loading.end():])
        later = f"{_number(f'{then:g}')} {unit}" + (f" {how_often}" if how_often else "")
        return f"{_number(f'{first:g}')} {unit} then {later}"
    how_much = _count_of_strength(text) or amount(text)
    how_often = frequency(text)
    exception = _EXCEPT.search(text)
    if how_much and how_often and exception is not None and AMOUNT.match(how_much + " ") is not None:
        day = exception.group("day").capitalize()  # "3 mg every day except 4 mg on Sundays"
        other = f"{_number(exception.group('n'))} {_unit(exception.group('unit'))}"
        return f"{how_much} {how_often} except {other} on {day if day.endswith('s') else day + 's'}"
    if how_much and how_often:
        return f"{how_much} {how_often}"
    return how_much or how_often


# another dose on one weekday: "3 mg every day except 4 mg on Sundays", "but 5 mg on Fridays"
_EXCEPT = re.compile(rf"\b(?:except|but|apart from|other than|and)\s+(?P<n>{_NUMBER})\s*(?P<unit>{_UNIT})\s+on\s+"
                     r"(?P<day>(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b", re.I)
# a count of tablets and, apart, their strength: "2 tablets 3 times a day, the 200 mg ones"
_STRENGTH_APART = re.compile(rf"\b(?:the|of the|those|these)\s+(?P<n>{_NUMBER})\s*(?P<unit>{_UNIT})\s+"
                             r"(?:ones|tablets|tabs|pills|capsules|caps)\b", re.I)


def _count_of_strength(text: str) -> str | None:
    """A count of tablets times the strength said apart: "2 tablets ..., the 200 mg ones" -> "400 mg"."""
    apart = _STRENGTH_APART.search(text)
    form = FORM_AMOUNT.search(text)
    if apart is None or form is None or form.start() > apart.start() or form.group("n").casefold().startswith("half"):
        return None
    total = float(apart.group("n").replace(",", "")) * _COUNT_WORDS[form.group("n").casefold()]
    return f"{_number(f'{total:g}')} {_unit(apart.group('unit'))}"


# one wording per frequency (after `dose` has read it)
_CANONICAL = ((re.compile(r"\b(once|twice|three times|four times) daily\b"), r"\1 a day"),
              (re.compile(r"\bdaily\b"), "once a day"),
              (re.compile(r"\b(?:in the|each) (morning|evening)\b"), r"every \1"),
              (re.compile(r"\b(?:at bedtime|before bed|nightly|every night)\b"), "at night"))


def canonical_dose(text: str) -> str | None:
    """`dose(text)` in one wording per frequency, for comparing two doses."""
    read = dose(text)
    if read is None:
        return None
    for pattern, wording in _CANONICAL:
        read = pattern.sub(wording, read)
    return read


_TRAILING = re.compile(rf"(?P<n>{_NUMBER})\s*(?P<unit>{_UNIT})\s+(?:of\s+)?(?:the\s+|my\s+|a\s+)?$", re.I)


def trailing_amount(text: str) -> re.Match[str] | None:
    """An amount a text ends with (the next drug's: "daily and 20 mg" atorvastatin)."""
    return _TRAILING.search(text)


def amount_before(text: str) -> str | None:
    """An amount right before a drug name: "I take 20mg of" -> "20 mg"; a count of tablets
    ("took two" Tylenol) -> "two tablets"."""
    form = re.search(rf"\b(?:one|two|three|four|half(?: a)?|a|an|[1-4])\s+(?:{_FORMS})\s+of\s+(?:the\s+|my\s+)?$",
                     text, re.I)
    if form is not None:
        return amount(form.group(0))  # "half a tablet of" Ambien
    for times in _TIMES_STRENGTH.finditer(text):
        if re.fullmatch(r"\s*(?:of\s+)?(?:the\s+|my\s+)?", text[times.end():]):
            return amount(times.group(0))  # "took 2 x 200mg" Advil
    found = _TRAILING.search(text)
    if found is None:
        count = re.search(r"\b(?:took|take|takes|taking|swallowed|popped|had)\s+(?P<n>two|three|four|[2-4])\s+$",
                          text, re.I)
        return None if count is None else f"{_COUNT_NAMES[_COUNT_WORDS[count.group('n').casefold()]]} tablets"
    return f"{_number(found.group('n'))} {_unit(found.group('unit'))}"


def course_days(text: str) -> int | None:
    match = _COURSE.search(text)
    if match is None:
        return None
    raw = (match.group("n") or match.group("n2") or match.group("n3")).casefold()
    unit = (match.group("unit") or match.group("unit2") or match.group("unit3")).casefold()
    n = int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]
    return n * 7 if unit.startswith("w") else n

"""The sentence as the typed readers see it: dictated and shouted text in the written form
the readers know. The stored fact keeps the sentence as said; only what the readers read
(`factlog.typed.reader.read_sentence`) goes through `for_readers`.

- Fillers go: "uh", "um", "erm", ", like," ("so uh pay mike" -> "so pay mike").
- Digits read out one by one become digits: "ending four four one two" -> "ending 4412".
- Spoken clock times become written ones: "half six" / "half past six" -> "6:30",
  "quarter to seven" -> "6:45", "seven o'clock" -> "7:00", "7ish" -> "at 7", a word hour
  closing a range ("6:30 till eight" -> "6:30 till 8"); a dictated "p m" / "a m" after an hour
  ("seven p m", "7 a m") -> "pm" / "am". Whether a time is morning or evening otherwise stays
  the readers' rule.
- A sentence in capitals ("JUST BOUGHT A 4K TV AT BEST BUY") is read in sentence case;
  words with digits ("NH4K2Q", "4K") keep their case.
- Emoji are spaces ("tramadol 🙃 50mg" reads as "tramadol 50mg"); a list item's bullet or
  number ("- Netflix $15.49", "2) pay rent") and an e-mail quote mark ("> ") go.
"""

from __future__ import annotations

import re
import unicodedata

from factlog.number_words import DIGIT_RUN, UNITS, digits_of

_FILLER = re.compile(r"(?:(?<=\s)|^)(?:u+h+|u+m+|e+r+m+|uhm+|er|ah+m*)\b[,.]?\s*|,\s*like\s*,", re.I)
_HOUR_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_HOUR = rf"(?P<h>1[0-2]|[1-9]|{_HOUR_WORD})"
_HALF = re.compile(rf"\bhalf(?:\s+past)?\s+{_HOUR}\b"
                   r"(?!\s+(?:of|an?|the|hours?|days?|weeks?|months?|years?|dozen|kilos?|pounds?|miles?)\b)", re.I)
_QUARTER = re.compile(rf"\b(?:a\s+)?quarter\s+(?P<dir>past|after|to|of|till)\s+{_HOUR}\b", re.I)
_OCLOCK = re.compile(rf"\b{_HOUR}\s*o['’]?\s?clock\b", re.I)
_ISH = re.compile(r"(?<![\w:.$])(?P<at>(?:at|around|about)\s+)?(?P<h>1[0-2]|[1-9])(?P<m>:[0-5]\d)?\s*-?ish\b"
                  r"(?=\s*(?:[ap]\.?m\b|[,.;!?)]|$|\s(?:tonight|tomorrow|today|on|in|at|or|and|but|then)\b))", re.I)
_RANGE_END = re.compile(rf"(?P<start>\b\d{{1,2}}(?::[0-5]\d)?\s*(?:-|–|to|till|until|and)\s*){_HOUR_WORD}\b", re.I)
_LETTERS = re.compile(r"[A-Za-z]")
_FILLER_HINT = re.compile(r"[uU][hmHM]|[eE][rR][mM]?\b|[aA][hH]|like\s*,")
_CLOCK_HINT = re.compile(r"half|quarter|clock|ish\b|\d\s*(?:-|–|to|till|until|and)\s*[a-z]|\s[ap]\s+m\b", re.I)
# "seven p m", "7 a m", "six thirty p m": the letters a speech-to-text wrote apart
_SPACED_MERIDIEM = re.compile(rf"(?P<w>(?:\d|\b{_HOUR_WORD}|\bthirty|\bfifteen|\bforty[- ]five|\bo'clock))\s+"
                              r"(?P<ap>[ap])\s+m\b(?!')", re.I)
_SHOUT_HINT = re.compile(r"\b[A-Z]{2,}\W+[A-Z]{2,}\W+[A-Z]{2,}")
_DIGIT_HINT = re.compile(r"\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\s", re.I)
_CAPS_WORD = re.compile(r"[A-Za-z'’]+(?![\w])|[\w'’]*\d[\w'’]*")


_BULLET = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*•·–—▪◦‣]|\d{1,2}[.)](?!\d))\s+)?")


def for_readers(sentence: str) -> str:
    """`sentence` with fillers, spoken digits and clock times, and capitals normalised."""
    text = _BULLET.sub("", sentence)
    if not text.isascii():
        text = _without_emoji(text)
    text = _sentence_case(text) if _is_shouted(text) else text
    if _FILLER_HINT.search(text) and _FILLER.search(text):
        text = re.sub(r"\s{2,}", " ", _FILLER.sub(" ", text)).strip()
    if _DIGIT_HINT.search(text):
        text = DIGIT_RUN.sub(lambda m: digits_of(m.group(0)), text)
    if _SHORT_DAY.search(text):
        text = _SHORT_DAY.sub(lambda m: "tomorrow" if m.group(0).lower() not in _NIGHTS else "tonight", text)
    if _HHMM_HINT.search(text):
        text = _HHMM.sub(_hhmm, text)
    return _clock_times(text)


# days texted short: "i fly to delhi tmrw", "2moro", "tonite"
_SHORT_DAY = re.compile(r"\b(?:tmrw|tmr|tmw|tmrrw|2moro|2morrow|2mrw|tomoz|2nite|tonite)\b", re.I)
_NIGHTS = frozenset({"2nite", "tonite"})
# a 24-hour clock in four digits: "1745 hrs", "0900 hours", "05 JUN 1745" (after a day and month; never a
# year's digits, "5 June 2026", nor an amount)
_HHMM_HINT = re.compile(r"\d{4}\s*(?:hrs|hours|h)\b|[A-Za-z]\s+\d{4}\b", re.I)
_HHMM = re.compile(r"(?P<before>\b\d{1,2}\s?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+"
                   r"(?:at\s+)?)?(?<![\d:$£€.,])(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)(?P<unit>\s*(?:hrs|hours|h)\b)?"
                   r"(?![\d:,.]\d|\d)", re.I)


def _hhmm(match: re.Match[str]) -> str:
    before = match.group("before")
    if match.group("unit") is None and (before is None or match.group("h") in ("19", "20")):
        return match.group(0)  # "in 1745", "5 June 2026": not a clock
    lead = "" if before is None else before if re.search(r"\bat\s+$", before, re.I) else f"{before}at "
    return f"{lead}{match.group('h')}:{match.group('m')}"


def _without_emoji(text: str) -> str:
    if not any(_is_emoji(ch) for ch in text):
        return text
    spaced = "".join(" " if _is_emoji(ch) else ch for ch in text)
    return re.sub(r"\s{2,}", " ", spaced).strip()


def _is_emoji(ch: str) -> bool:
    code = ord(ch)
    return code in (0x200D, 0xFE0F) or code >= 0x2190 and unicodedata.category(ch) in ("So", "Sk")


def _hour(text: str) -> int:
    return int(text) if text.isdigit() else UNITS[text.lower()]


def _clock_times(text: str) -> str:
    if _CLOCK_HINT.search(text) is None:
        return text
    text = _SPACED_MERIDIEM.sub(lambda m: f"{m.group('w')} {m.group('ap').lower()}m", text)
    text = _HALF.sub(lambda m: f"{_hour(m.group('h'))}:30", text)
    text = _QUARTER.sub(_quarter, text)
    text = _OCLOCK.sub(lambda m: f"{_hour(m.group('h'))}:00", text)
    text = _ISH.sub(lambda m: f"{m.group('at') or 'at '}{m.group('h')}{m.group('m') or ''}", text)
    return _RANGE_END.sub(lambda m: f"{m.group('start')}{_hour(m.group(0)[len(m.group('start')):])}", text)


def _quarter(match: re.Match[str]) -> str:
    hour = _hour(match.group("h"))
    if match.group("dir").lower() in ("past", "after"):
        return f"{hour}:15"
    return f"{hour - 1 if hour > 1 else 12}:45"


def _is_shouted(sentence: str) -> bool:
    if _SHOUT_HINT.search(sentence) is None:
        return False
    letters = _LETTERS.findall(sentence)
    if len(letters) < 12:
        return False
    upper = sum(ch.isupper() for ch in letters)
    return upper / len(letters) >= 0.85 and len(re.findall(r"\b[A-Z]{2,}\b", sentence)) >= 3


def _sentence_case(sentence: str) -> str:
    def lower(match: re.Match[str]) -> str:
        word = match.group(0)
        return word if any(ch.isdigit() for ch in word) else word.lower()

    text = _CAPS_WORD.sub(lower, sentence)
    text = re.sub(r"\bi\b", "I", text)
    return re.sub(r"^(\W*)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)

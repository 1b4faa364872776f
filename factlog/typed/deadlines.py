"""Deadlines said as something to do by a day, beside the "X is due on the 18th" that
`factlog.typed.money` reads: "need to renew my car registration by the end of next month"
(title "car registration renewal"), "submit the expense report by Friday" ("expense
report"), "the deadline for the FAFSA is June 30" ("FAFSA"), "Emma's school term ends on
June 20" ("Emma's school term ends"; a term, semester, lease, enrollment or grace period).

Entities and keys: "deadline/<title>", as money keys its deadlines, so the assistant's
"Noted: ..." with the same title updates the same deadline. Not read: questions,
hypotheticals ("if I renew it by Friday"), the assistant's advice (only its confirmations,
`money.CONFIRMING`), and a date already past unless named by month.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date

from factlog.model import JsonValue
from factlog.typed.common import conversation_fields, subject_of
from factlog.typed.model import Context, TypedFact
from factlog.typed.money import charge_date, confirms, is_ahead, session_day
from factlog.typed.stance import is_question

DOMAIN = "deadlines"
SEEN = "deadline:"  # `Context.entities` keys of the deadlines the session stated

_WORDS = r"[A-Za-z][\w'&-]*(?:\s+[A-Za-z][\w'&-]*){0,3}?"
_OWNER = r"(?:my|the|our|her|his|their|(?-i:[A-Z])[a-z]+(?:'s|’s))"
_TO_DO = re.compile(
    rf"\b(?P<verb>renew|submit|file|send in|turn in|hand in)\s+{_OWNER}\s+"
    rf"(?P<title>{_WORDS})\s+(?P<by>by|before|no later than)\s", re.I)
_DEADLINE_IS = re.compile(
    rf"\b(?:the\s+)?deadline\s+(?:for|to\s+(?:file|submit|apply for|renew))\s+(?:the\s+|my\s+|our\s+)?"
    rf"(?P<title>{_WORDS})\s+is\s", re.I)
# "I have until June 15 to file my taxes", "we've got till Friday to submit the forms"
_UNTIL = re.compile(
    r"\b(?:i|we)(?:\s+have|'ve got|\s+have got|\s+got|'ve)\s+(?P<by>until|till|til|up to)\s+[^,;]{1,30}?\s+to\s+"
    rf"(?P<verb>renew|submit|file|send in|turn in|hand in|pay|register|apply for)\s+(?:{_OWNER}\s+)?"
    rf"(?P<title>{_WORDS})(?=\s*(?:[,.;!]|$|\s+(?:or|and|before|otherwise)\b))", re.I)
_ENDS = re.compile(
    rf"(?P<owner>{_OWNER})\s+(?P<title>(?:school\s+)?(?:term|semester)|lease|(?:open\s+)?enrollment|grace period)\s+"
    r"(?:ends|runs out|is up)\s+(?:on\s+)?", re.I)
_NOT_STATED = re.compile(r"\b(?:if|unless|whether|should i|could i|can i|what if|thinking (?:about|of)|might)\b", re.I)
_END_OF_MONTH = re.compile(r"\b(?:the\s+)?end of (?P<which>next|this|the)\s+month\b", re.I)
_TRIGGER = re.compile(r"\b(?:by|before|no later than|deadline|ends|runs out|is up|until|till|til)\b", re.I)
TRIGGERS = (re.compile(r"\b(?:by|before|no later than|deadline|ends|runs out|is up|until|till|done|sorted|filed|"
                      r"submitted|renewed|sent in|handed in|turned in|taken care of|don (?:renew|submit|file))\b",
                      re.I),)


# a deadline met: "Sticker's done", "renewed the registration", "the expense report is in", "filed it"
_DONE = re.compile(
    r"^\W*(?:(?:ok|okay|so|well|good news|update)\W+)?(?:the\s+|my\s+|our\s+)?"
    r"(?P<what>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)"
    r"(?:'s|’s|\s+is|\s+was|\s+has been|\s+got)\s+(?:all\s+)?(?:done|sorted|filed|submitted|renewed|sent in|handed in|"
    r"turned in|paid|taken care of)\b|"
    # "I renewed the registration", "we've filed the FAFSA", Nigerian Pidgin "I don renew the vehicle licence"
    r"(?:\b(?:i|we)(?:'ve|\s+have|\s+had|\s+don|\s+done)?\s+|^\W*)(?:just\s+|finally\s+|already\s+|now\s+)?"
    r"(?:renewed|submitted|filed|sent in|"
    r"handed in|turned in|(?<=don )renew|(?<=done )renew|(?<=don )submit|(?<=don )file)\s+"
    r"(?:the\s+|my\s+|our\s+)(?P<what2>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)(?=\s*(?:[,.;!]|$|\s+(?:today|yesterday|"
    r"this|last|on|at|online|already|now|finally|in time|early)\b))|"
    # "got the registration renewed", "had my licence renewed this morning"
    r"\b(?:got|had)\s+(?:the\s+|my\s+|our\s+)(?P<what3>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)\s+"
    r"(?:renewed|done|sorted|filed|sent in|submitted)\b", re.I)
_NOT_DONE = re.compile(r"\b(?:not|n't|never|yet|almost|nearly|half)\b", re.I)
_DONE_TRIGGER = re.compile(r"\b(?:done|sorted|filed|submitted|renewed|sent in|handed in|turned in|taken care of|"
                           r"don (?:renew|submit|file))\b", re.I)


def _met(sentence: str, context: Context) -> list[TypedFact]:
    """A deadline the session or an earlier one stated, said to be met: the same deadline with
    no date left to meet (a head word of its title named: "Sticker's done" for "licence plate
    sticker renewal")."""
    done = _DONE.search(sentence)
    if done is None or _NOT_DONE.search(sentence) or is_question(sentence) or context.speaker != "user":
        return []
    said = done.group("what") or done.group("what2") or done.group("what3")
    words = {w for w in re.findall(r"[a-z]+", said.casefold())
             if len(w) > 3 and w not in ("renewal", "thing", "form", "that", "this")}
    known = list(context.prior.of_kind("deadline"))
    known += [(key[len(SEEN):], dict(fields)) for key, fields in context.entities.items() if key.startswith(SEEN)]
    last = context.last.get("deadline")
    if last is not None and last.key is not None:
        known.append((last.key, dict(last.fields)))
    for key, fields in reversed(known):
        title = str(fields.get("title", ""))
        title_words = set(re.findall(r"[a-z]+", title.casefold()))
        if key.startswith("deadline/") and fields.get("due_date") and \
                words & (title_words | {w.rstrip("s") for w in title_words}):
            return [TypedFact("deadline", key, conversation_fields(context, str(fields.get("subject", "user")),
                                                                   {"title": title, "due_date": None}))]
    return []


def read(sentence: str, context: Context) -> list[TypedFact]:
    if _DONE_TRIGGER.search(sentence) is not None and (met := _met(sentence, context)):
        return met
    if _TRIGGER.search(sentence) is None:
        return []
    if context.speaker == "assistant" and not confirms(sentence):
        return []
    if is_question(sentence) or _NOT_STATED.search(sentence):
        return []
    for pattern in (_TO_DO, _DEADLINE_IS, _ENDS, _UNTIL):
        match = pattern.search(sentence)
        if match is None:
            continue
        start = match.start("by") if "by" in pattern.groupindex else match.end() - 1
        when = _day(sentence[start:], context)
        if when is None or not is_ahead(when, sentence, session_day(context)):
            return []
        title = " ".join(match.group("title").split())
        if pattern in (_TO_DO, _UNTIL) and match.group("verb").lower() == "renew":
            title = f"{title} renewal"
        elif pattern is _ENDS:
            owner = match.group("owner")
            title = f"{owner} {title} ends" if owner[0].isupper() and owner.lower() != "the" else f"{title} ends"
        subject = subject_of(sentence, context)
        fields: dict[str, JsonValue] = {"title": title, "due_date": when}
        key = f"deadline/{title.casefold()}"
        previous = context.last.get("deadline")
        if previous is not None and previous.key is not None and previous.key.startswith("deadline/") \
                and previous.fields.get("due_date") == when and _same_title(title, str(previous.fields["title"])):
            key = previous.key  # the assistant's "Noted: Emma's school term ends on June 20" restates it
            subject = str(previous.fields.get("subject", subject)) if subject == "user" else subject
        fact = TypedFact("deadline", key, conversation_fields(context, subject, fields))
        context.last["deadline"] = fact
        context.entities[f"{SEEN}{key}"] = dict(fact.fields)  # "I renewed the car papers" after a later deadline
        return [fact]
    return []


def _same_title(one: str, other: str) -> bool:
    """ "school term ends" and "Emma's school term ends": one's words end the other's."""
    short, long = sorted((one.casefold().split(), other.casefold().split()), key=len)
    return long[len(long) - len(short):] == short


def _day(text: str, context: Context) -> str | None:
    """The date `text` starts with: "the end of next month" its last day, else money's
    reading ("Friday", "June 3", "the 15th")."""
    today = session_day(context)
    end = _END_OF_MONTH.match(re.sub(r"^\s*(?:by|before|no later than|is|on)\s+", "", text, flags=re.I))
    if end is not None and today is not None:
        year, month = today.year, today.month
        if end.group("which").lower() == "next":
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return date(year, month, monthrange(year, month)[1]).isoformat()
    return charge_date(text[:40], context)

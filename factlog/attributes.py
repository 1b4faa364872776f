"""Attributes named in conversation ("your date of birth", "my cell is ...") and their typed
values, plus the one table mapping attribute phrases to canonical vocabulary fields.

An `Attribute` is what a question asks for or a statement sets: a phrase, whether it belongs
to the user (`self_`: "your ..." asked by the assistant, "my ..." said by the user), and the
value once an answer is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factlog.model import JsonValue
from factlog.recognizers import Values
from factlog.vocabulary import CANONICAL

# attribute phrase (full match, lowercase) -> (kind, field, value type the field needs)
CANONICAL_ATTRIBUTES: tuple[tuple[re.Pattern[str], str, str, str], ...] = tuple(
    (re.compile(pattern), kind, field_name, value_type)
    for pattern, kind, field_name, value_type in (
        (r"(?:full |legal |complete |first and last )*name", "profile", "full_name", "name"),
        (r"date of birth|birth ?date|birthday|dob|d\.o\.b\.?", "profile", "birth_date", "date"),
        (r"e-?mail(?: address)?", "profile", "email", "email"),
        (r"(?:(?:cell|mobile|home|tele)\s?)?phone(?: number)?|(?:cell|mobile|contact) number|cell|mobile",
         "profile", "phone", "phone"),
        (r"occupation|profession|job title|job", "profile", "occupation", "text"),
        (r"employer|company", "profile", "employer", "text"),
        (r"(?:home )?(?:city|town)", "profile", "home_city", "text"),
        (r"passport (?:expiration|expiry)(?: date)?", "passport", "expiry_date", "date"),
        (r"passport (?:issue|issuance|issued)(?: date)?", "passport", "issue_date", "date"),
        (r"passport(?: number| no\.?| #)?", "passport", "number", "identifier"),
        (r"passport (?:issuing )?country|country of (?:your )?passport", "passport", "country", "text"),
    )
)
for _row in CANONICAL_ATTRIBUTES:  # the table must name real vocabulary fields
    assert _row[2] in CANONICAL[_row[1]].fields, _row

_LEAD = re.compile(
    r"^(?:(?:and|now|first|second|third|next|also|finally|lastly|great|ok|okay|so|perfect|thank you|"
    r"thanks|alright|then)\b[,.!]?\s*|[^:?]{0,30}:\s*)+",
    re.I,
)
_ASK = re.compile(
    r"\b(?:what(?:'s| is| was| are| were)|may i (?:have|get)|can i (?:have|get)|could i (?:have|get)|"
    r"(?:could|can|would) you (?:please |also )?(?:provide|give me|tell me|confirm|verify|share|spell|list)|"
    r"please (?:provide|confirm|verify|share|give me)|i(?:'ll| will)? (?:also )?need|do you have|"
    r"let me (?:get|have)|when(?:'s| is| was)|who(?:'s| is)|and|how about)\s+"
    r"(?P<poss>your|the|an?|any)\s+(?P<attr>[^?]+)\?",
    re.I,
)
_BARE = re.compile(r"^(?P<poss>your |the |any )?(?P<attr>[a-z][a-z'/ -]{1,40})\?$", re.I)
_NOT_BARE = frozenset(
    "is are do does did can could would will should have has how what when where who why which "
    "shall may might was were am".split()
)
_STATEMENT = re.compile(
    r"^(?:(?:oh|so|and|also|well|actually|yes|yeah|sure|ok|okay|great|perfect|alright)[,!.]?\s+)*"
    r"(?P<poss>my|our|his|her|their|the|your)\s+(?P<attr>[a-z][\w' -]{0,40}?)\s+(?:is|are|was|were)\s+"
    r"(?P<value>[^\s,].*)$",
    re.I,
)
_CUT = re.compile(
    r"\s(?:as|for|to|so|that|on file|please|with|in case|we|you|i|which|at the|if)\b.*$|,.*$"
)
_TRAILING = re.compile(r"(?:\s+(?:on|of|in|for|with|to|at|from|about|by))+$")
_ADJECTIVES = re.compile(r"^(?:(?:best|current|preferred|primary|main|new|correct)\s+)+")
_ANSWER_LEAD = re.compile(
    r"^(?:(?:yes|yeah|yep|sure|ok|okay|of course|absolutely|certainly|so|well|oh|um|uh)\b[,.!]?\s*)*"
    r"(?:(?:it's|it is|that's|that is|this is|i'm|i am|it was|that would be|i work (?:for|at))\s+|"
    r"(?:my|the|our)\s+[\w' -]{1,30}?\s+(?:is|are)\s+)?",
    re.I,
)
_YOU = re.compile(r"\byou(?:r)?\b", re.I)
_NAME = re.compile(r"[A-Z][A-Za-z'.-]*(?:\s+[A-Z][A-Za-z'.-]*){1,5}")
_TYPE_HINTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), t)
    for p, t in (
        (r"\b(?:e-?mail)\b", "email"),
        (r"\b(?:phone|cell|mobile|fax|telephone)\b", "phone"),
        (r"\b(?:address|name|street)\b", "text"),
        (r"\b(?:date|birth|birthday|dob|expir\w*|when|deadline|due)\b", "date"),
        (r"\b(?:cost|price|amount|income|salary|fee|balance|budget|rent|payment|deposit|limit|pay)\b", "amount_usd"),
        (r"\b(?:percent\w*|rate|apr|apy)\b", "percentage"),
        (r"\b(?:number|id|code|account|policy|confirmation|member|license|reference|ssn|pin|no)\b", "identifier"),
    )
)
_VALUE_ORDER = ("date", "email", "phone", "amount_usd", "percentage", "identifier", "count")


@dataclass(frozen=True)
class Attribute:
    phrase: str  # lowercase, e.g. "date of birth"
    self_: bool  # the user's own attribute


def question_attribute(question: str) -> Attribute | None:
    """What an assistant question asks for: "could you provide your date of birth?" -> date of birth."""
    text = _LEAD.sub("", question.strip())
    match = _ASK.search(text)
    if match is None:
        bare = _BARE.match(text)
        if bare is None or bare.group("attr").split()[0].lower() in _NOT_BARE:
            return None
        match = bare
    poss = (match.group("poss") or "").strip().lower()
    phrase = _clean(match.group("attr"))
    # "the best phone number to reach you" is the user's too
    own = poss in ("", "your", "any", "a", "an") or (poss == "the" and _YOU.search(question) is not None)
    return Attribute(phrase, own) if phrase else None


def statement_attribute(sentence: str, role: str) -> tuple[Attribute, str] | None:
    """ "My cell is 503-555-8924." -> (cell, "503-555-8924."); the speaker's own when my/your fits."""
    match = _STATEMENT.match(sentence.strip())
    if match is None:
        return None
    poss = match.group("poss").lower()
    own = "my" if role == "user" else "your"
    phrase = _clean(match.group("attr"))
    if not phrase:
        return None
    if poss not in (own, "the"):
        phrase = f"{poss} {phrase}"
    return Attribute(phrase, poss == own), match.group("value")


def _clean(attr: str) -> str:
    phrase = _CUT.sub("", " ".join(attr.lower().split()))
    phrase = _TRAILING.sub("", _ADJECTIVES.sub("", phrase))
    return phrase.strip(" .'-")


def answer_text(answer: str) -> str:
    """The answer without lead-ins: "Sure, it's Michael James Robertson." -> "Michael James Robertson"."""
    stripped = _ANSWER_LEAD.sub("", answer.strip()).strip().rstrip(".!")
    return stripped or answer.strip().rstrip(".!")


def typed_value(attribute: Attribute, answer: str, values: Values) -> tuple[JsonValue, str]:
    """(value, value_type): the recognised value the attribute most likely asks for, else text."""
    found: dict[str, JsonValue] = {}
    for value_type, items in (
        ("date", values.dates), ("email", values.emails), ("phone", values.phones),
        ("amount_usd", values.amounts_usd), ("percentage", values.percentages),
        ("identifier", values.identifiers or values.phones),
        ("count", [c["value"] for c in values.counts]),
    ):
        if items:
            found[value_type] = items[0]
    for pattern, hinted in _TYPE_HINTS:
        if pattern.search(attribute.phrase) and (hinted in found or hinted == "text"):
            return (answer_text(answer), "text") if hinted == "text" else (found[hinted], hinted)
    for value_type in _VALUE_ORDER:
        if value_type in found:
            return found[value_type], value_type
    return answer_text(answer), "text"


def canonical_field(attribute: Attribute, value: JsonValue, value_type: str) -> tuple[str, str, JsonValue] | None:
    """(kind, field, value) when a user's attribute is a canonical vocabulary field of the right type."""
    if not attribute.self_:
        return None
    for pattern, kind, field_name, needed in CANONICAL_ATTRIBUTES:
        if not pattern.fullmatch(attribute.phrase):
            continue
        if needed == "name":
            ok = value_type == "text" and isinstance(value, str) and _NAME.fullmatch(value) is not None
        elif needed == "text":
            ok = value_type == "text" and isinstance(value, str) and 0 < len(value) <= 80
        else:
            ok = value_type == needed
        return (kind, field_name, value) if ok else None
    return None

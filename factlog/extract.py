"""Turning conversation sessions into facts: the pluggable `Extractor` protocol and the
offline `RuleExtractor` (no LLM, deterministic).

What `RuleExtractor` emits for each user turn:

- every sentence that is not a pleasantry becomes one free-text fact (kind None) whose
  `fields` hold the recognised values (shape in `factlog.recognizers`); user questions are
  kept too, since they say what the user cares about;
- an answer to the assistant's question becomes ONE fact joining both ("Date of birth:
  March 15th, 1985."); `fields` then also hold `question` (the assistant's sentence) and,
  when the question names an attribute, `attribute`, `value` (typed) and `value_type`
  (date, email, phone, amount_usd, percentage, identifier, count or text);
- "my X is V" statements get the same `attribute` / `value` / `value_type` fields;
- an attribute of the user that is a canonical vocabulary field (`CANONICAL_ATTRIBUTES`)
  also yields a structured fact of that kind (key = kind for singular kinds).

With `user_only=False`, assistant sentences that state recognisable values (not questions)
become facts too, with role "assistant" in their provenance.

Typed facts (`factlog.typed`): every sentence is also read by the domain readers (trips,
documents, money) with a per-session context; a sentence that states typed facts becomes those
facts (kind, key, fields with `subject` and `speaker`, the sentence as text), plus a note
with its recognised values when some value is held by no typed field; any other sentence
stays as above. A sentence whose "my X is V" attribute already maps to a canonical field
keeps the attribute path. Notes and typed facts of a session with metadata keep it in the
field `session_metadata`.
"""

from __future__ import annotations

import json
import re
from typing import Protocol

from factlog.attributes import (
    Attribute,
    answer_text,
    canonical_field,
    question_attribute,
    statement_attribute,
    typed_value,
)
from factlog.model import JsonValue, NewFact, Provenance
from factlog.recognizers import Values, recognize
from factlog.sentences import is_acknowledgement, is_small_talk, split_sentences
from factlog.transcripts import Message, Session
from factlog.typed import Context, read_sentence
from factlog.typed.prior import Prior
from factlog.typed.stance import (
    checked_back,
    ends_in_question,
    is_check_back,
    is_small_talk_question,
    is_yes_no_question,
)
from factlog.vocabulary import CANONICAL, SESSION_METADATA

# self-descriptions without "my X is": (pattern with a `value` group, attribute phrase)
SELF_STATEMENTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, flags), phrase)
    for pattern, flags, phrase in (
        (r"\bi was born on (?P<value>.+)", re.I, "date of birth"),
        (r"\b(?:[Ii] work|employed|working)\b[\w -]*? (?:for|at) (?P<value>[A-Z][\w&'. -]*?)(?:[.,!;]|\s+as\b|$)",
         0, "employer"),
        (r"\b(?:work(?:ing)?|employed)(?: full-time| part-time)? as an? "
         r"(?P<value>[a-z][a-z -]*?)(?: at | for |[.,!;]|$)",
         0, "occupation"),
        (r"\bmy name is (?P<value>.+)", re.I, "full name"),
    )
)


class Extractor(Protocol):
    """Anything that turns a session into facts (rules now, an LLM later)."""

    def extract(self, session: Session, *, user_only: bool) -> list[NewFact]: ...


class RuleExtractor:
    """Offline extraction: sentence splitting, value recognisers and question/answer pairing.
    `prior`: what the user's earlier sessions said (`factlog.typed.prior`), for sentences
    that refer back to an entity without naming it."""

    def __init__(self, prior: Prior | None = None) -> None:
        self.prior = prior if prior is not None else Prior()

    def extract(self, session: Session, *, user_only: bool) -> list[NewFact]:
        facts: list[NewFact] = []
        previous: Message | None = None
        business = session.metadata.get("business")
        context = Context(session.timestamp, business=business if isinstance(business, str) else None,
                          prior=self.prior)
        from factlog.typed.people import prescan  # loaded with the readers, on first use

        for message in session.messages:  # "... Anna is my wife." names the pasted form above it
            if message.role in ("user", "assistant"):
                prescan(message.content, context, message.role)
        for message in session.messages:
            context.speaker = message.role
            context.message = message.content
            context.turn += 1
            if message.role == "user":
                facts += self._user_turn(session, message, previous, context)
            elif message.role == "assistant" and not user_only:
                facts += self._assistant_turn(session, message, context)
            previous = message
        for fact in facts:  # what the next session may refer back to
            self.prior.add(self.prior.seen, fact.kind, fact.key, fact.fields)
        return facts

    def _user_turn(self, session: Session, message: Message, previous: Message | None,
                   context: Context) -> list[NewFact]:
        sentences = split_sentences(message.content)
        facts: list[NewFact] = []
        question = _open_question(previous)
        if question and sentences and not ends_in_question(sentences[0]):
            answer = sentences.pop(0)
            checked = checked_back(question) if _YES.match(answer) else None
            if checked is not None:  # "Just to confirm: $2,800 to Brian Fitch on Friday?" "yep"
                facts += _typed_facts(session, message, answer, context, f"{checked} {answer}")
            elif not is_acknowledgement(answer) or is_yes_no_question(question) or is_check_back(question):
                facts += _typed_facts(session, message, answer, context, _reading(question, answer)) or \
                    _answer_facts(session, message, question, answer)
        for sentence in sentences:
            if not is_small_talk(sentence):
                facts += _typed_facts(session, message, sentence, context) or \
                    _statement_facts(session, message, sentence)
        return facts

    def _assistant_turn(self, session: Session, message: Message, context: Context) -> list[NewFact]:
        facts: list[NewFact] = []
        for sentence in split_sentences(message.content):
            if ends_in_question(sentence):
                context.said.append(sentence)  # what the user's answer answers ("Did they prescribe anything?")
            if ends_in_question(sentence) or is_small_talk(sentence):
                continue
            typed = _typed_facts(session, message, sentence, context)
            if typed:
                facts += typed
                continue
            values = recognize(sentence, session.timestamp)
            if values.to_fields().keys() - {"counts"}:
                facts += _statement_facts(session, message, sentence, values)
        return facts


def recognize_dates_or_days(text: str) -> bool:
    """Whether a short answer names a date or a day of the month ("the 3rd", "March 12")."""
    return bool(re.search(r"\b\d{1,2}(?:st|nd|rd|th)\b", text)) or bool(recognize(text).dates) or bool(
        re.search(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d", text, re.I))


_CODE_QUESTION = re.compile(r"\b(?:confirmation|booking|reservation|reference|locator|record)\b", re.I)
_POLICY_QUESTION = re.compile(r"\bpolicy\b", re.I)
_BARE_CODE = re.compile(r"^\W*(?:(?:yes|yeah|yep|sure|ok|okay)\W+)?(?:(?:it'?s|it is|that'?s|that is)\s+)?"
                        r"(?P<code>(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{4,11})\W*$", re.I)


_WHEN_QUESTION = re.compile(r"\bwhen\s+(?:do|does|will|are|did)\s+(?:you|they|we|he|she)\s+(?:\w+\s+)?"
                            r"(?P<leg>leave|leaving|fly out|depart|departing|go|return|returning|come back|"
                            r"coming back|get back|fly back|fly home)\b", re.I)
_SHORT_DATE = re.compile(r"^\W*(?:on\s+)?(?:the\s+)?\w+(?:\s+\w+){0,3}\W*$")


# a "yes" to a check-back, perhaps with more ("Yes, Bangkok then the islands"), but no "yes, but ..."
_YES = re.compile(r"^\W*(?:yep|yes|yeah|yup|correct|that's (?:it|right|correct)|thats right|right|exactly|confirmed)\b"
                  r"(?![^.!?]*\b(?:but|actually|except|not|no)\b)", re.I)


# "Where is it?", "Where's the recital being held?": the place of what was just named
_WHERE_QUESTION = re.compile(r"\bwhere(?:'s|’s| is| will)\s+(?:it|that|this|the\s+[\w' -]{2,30}?)"
                             r"(?:\s+(?:be|being held|held|taking place|happening|going to be))?\s*\?\s*$", re.I)
_PLACE_ANSWER = re.compile(r"^\W*(?:(?:it'?s|it’s|it is|it will be|it'll be)\s+)?(?:(?:at|in)\s+)?(?:the\s+)?"
                           r"(?P<place>[A-Za-z0-9][^?!]{1,60}?)\W*$", re.I)
_WHEN_WORDS = re.compile(r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tomorrow|tonight|\d{1,2}(?::\d\d)?\s*"
                         r"(?:[ap]\.?m\b)|at\s+\d)", re.I)


def _reading(question: str, answer: str) -> str | None:
    """What an answer says in full when it is a bare code answering a question about one,
    or a bare date answering when the user leaves or comes back ("The 3rd." -> "Leaving the 3rd."),
    or a place answering "Where is it?" ("The church hall on Elm Road." -> "Where: church hall on Elm Road")."""
    place = _PLACE_ANSWER.match(answer) if _WHERE_QUESTION.search(question) and len(answer.split()) <= 10 else None
    if place is not None and not recognize_dates_or_days(answer) and not _WHEN_WORDS.search(answer):
        return f"Where: {place.group('place')}"
    when = _WHEN_QUESTION.search(question)
    if when is not None and _SHORT_DATE.match(answer) and recognize_dates_or_days(answer):
        leg = when.group("leg").lower()
        back = leg.startswith(("return", "come", "coming", "get", "fly back", "fly home"))
        return f"{'Back' if back else 'Leaving'} {answer.strip()}"
    bare = _BARE_CODE.match(answer)
    if bare is None or not bare.group("code").isupper() and not bare.group("code").isdigit():
        return None
    if _POLICY_QUESTION.search(question):
        return f"Policy number {bare.group('code')}."
    if _CODE_QUESTION.search(question):
        return f"Confirmation number {bare.group('code')}."
    return None


def _typed_facts(session: Session, message: Message, sentence: str, context: Context,
                 reading: str | None = None) -> list[NewFact]:
    """The typed facts a sentence states (`factlog.typed`), each citing the sentence; none
    when it states none (or states an attribute the canonical mapping already types).
    `reading`: the sentence as the reader should see it (an answer with its question's topic)."""
    typed = read_sentence(reading or sentence, context)  # read always: later sentences lean on the context
    if not typed or (statement_attribute(sentence, message.role) is not None
                     and _attribute_facts_typed(session, message, sentence)):
        return []
    facts = [_fact(session, message, sentence, _with_session(fact.fields, session), fact.kind, fact.key)
             for fact in typed]
    values = recognize(sentence, session.timestamp).to_fields()
    held = {json.dumps(v) for fact in typed for v in fact.fields.values()}
    if any(json.dumps(v) not in held for name, items in values.items() if name != "counts"
           for v in (items if isinstance(items, list) else [])):
        # some value is held by no typed field: the sentence is kept as a note too
        facts.insert(0, _fact(session, message, sentence, _with_session(values, session)))
    return facts


def _attribute_facts_typed(session: Session, message: Message, sentence: str) -> bool:
    return any(f.kind is not None for f in _statement_facts(session, message, sentence))


def _open_question(previous: Message | None) -> str | None:
    """The assistant's closing question, when the user's turn answers it."""
    if previous is None or previous.role != "assistant":
        return None
    sentences = split_sentences(previous.content)
    if not sentences or not ends_in_question(sentences[-1]) or is_small_talk_question(sentences[-1]):
        return None
    return sentences[-1]


def _answer_facts(session: Session, message: Message, question: str, answer: str) -> list[NewFact]:
    values = recognize(answer, session.timestamp)  # only the user's words carry values
    fields = {**values.to_fields(), "question": question}
    attribute = question_attribute(question)
    if attribute is None:
        text = f"{question} {answer}"
        attributes = []
    else:
        text = f"{attribute.phrase[0].upper()}{attribute.phrase[1:]}: {answer_text(answer)}."
        attributes = [(attribute, answer)]
    return _attribute_facts(session, message, text, fields, attributes + _self_statements(answer, message.role))


def _statement_facts(
    session: Session, message: Message, sentence: str, values: Values | None = None
) -> list[NewFact]:
    values = values if values is not None else recognize(sentence, session.timestamp)
    stated = statement_attribute(sentence, message.role)
    attributes = ([stated] if stated else []) + _self_statements(sentence, message.role)
    return _attribute_facts(session, message, sentence, values.to_fields(), attributes)


def _self_statements(sentence: str, role: str) -> list[tuple[Attribute, str]]:
    if role != "user":
        return []
    found: list[tuple[Attribute, str]] = []
    for pattern, phrase in SELF_STATEMENTS:
        match = pattern.search(sentence)
        if match is not None and match.group("value").strip():
            found.append((Attribute(phrase, True), match.group("value").strip()))
    return found


def _attribute_facts(
    session: Session,
    message: Message,
    text: str,
    fields: dict[str, JsonValue],
    attributes: list[tuple[Attribute, str]],
) -> list[NewFact]:
    """One free-text fact, typed by the first attribute, plus a structured fact for every
    attribute that is a canonical field of the user."""
    structured: dict[tuple[str, str], NewFact] = {}
    for position, (attribute, value_text) in enumerate(attributes):
        value, value_type = typed_value(attribute, value_text, recognize(value_text, session.timestamp))
        if position == 0:
            fields = {**fields, "attribute": attribute.phrase, "value": value, "value_type": value_type}
        mapped = canonical_field(attribute, value, value_type)
        if mapped is not None and mapped[:2] not in structured:
            kind, field_name, canonical_value = mapped
            key = kind if CANONICAL[kind].singular else None
            structured[mapped[:2]] = _fact(session, message, text, {field_name: canonical_value}, kind, key)
    return [_fact(session, message, text, _with_session(fields, session)), *structured.values()]


def _with_session(fields: dict[str, JsonValue], session: Session) -> dict[str, JsonValue]:
    """`fields` plus the session's metadata (e.g. the business the user talked to), if any."""
    return {**fields, SESSION_METADATA: dict(session.metadata)} if session.metadata else fields


def _fact(
    session: Session,
    message: Message,
    text: str,
    fields: dict[str, JsonValue],
    kind: str | None = None,
    key: str | None = None,
) -> NewFact:
    provenance = Provenance(
        session_id=session.session_id,
        message_index=message.index,
        role=message.role,
        session_ts=session.timestamp.isoformat() if session.timestamp else None,
    )
    return NewFact(text=text, kind=kind, fields=fields, key=key, provenance=provenance)

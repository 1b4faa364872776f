"""Extraction by a model: a session becomes atomic facts (`LlmExtractor`, an `Extractor`).

The rules:

- The prompt gives the session's timestamp and metadata, quotes the canonical vocabulary
  (`factlog.vocabulary`), and sends the messages numbered by their index in the session.
  A long session goes in chunks of at most `max_messages` messages and `max_chars`
  characters (a longer message goes alone, whole): every message is sent, none is cut.
- The answer must validate against `codegen.llm.fact_schema.ExtractedFacts` (unknown keys,
  message indices not sent, impossible dates and mistyped canonical values are errors the
  endpoint re-asks once with); relative dates come back resolved against the session time.
- Kinds and fields are checked after: a fact whose kind is not canonical, or that names a
  field its kind does not have, is kept as a text fact (kind None) with its fields and the
  kind it proposed (`proposed_kind`); nothing the model said is dropped.
- Subject: a fact about someone else (the user's husband's allergy) keeps them in
  `fields["subject"]` (no subject: the user). It is never the user's own record: a kind with
  a `person` (or `holder`) field names them there, `relative` is about them by definition,
  and any other kind (the user's `passport`, `trips`, ...) is kept as text.
- Speaker and place: each fact's provenance is its message's session, index and role.
- Coverage: a message the offline extractor keeps facts of (`factlog.extract.RuleExtractor`)
  that the model cited in no fact keeps those offline facts, so a model that skips a
  message loses nothing.

The unit of extraction is the chunk: `chunks_of(session)` splits a session, and
`extract_chunk` asks for one chunk and returns its facts (every fact cites a message of
that chunk). It raises what the endpoint raises (`StructuredOutputError`,
`ModelUnavailable`); the caller stores that chunk's raw facts and records the failure
(`runtime.llm_ingest`), keeping the other chunks' facts. `extract` is every chunk in turn,
all or nothing (the `Extractor` protocol).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from codegen.llm.fact_schema import (
    ChunkContext,
    ExtractedFact,
    ExtractedFacts,
    canonical_kind,
    day_of,
    validation_context,
)
from factlog.extract import RuleExtractor
from factlog.limits import MAX_KEY
from factlog.model import JsonValue, NewFact, Provenance
from factlog.transcripts import Message, Session
from factlog.vocabulary import CANONICAL

if TYPE_CHECKING:
    from codegen.llm.endpoint import Endpoint

PURPOSE = "extract"
MAX_CHUNK_MESSAGES = 80
MAX_CHUNK_CHARS = 12_000
USER_WORDS = frozenset({"", "user", "me", "i", "myself", "self", "the user", "you", "yourself"})
# kinds whose records name the person they are about in this field
PERSON_FIELDS = ("person", "holder")
ABOUT_OTHERS = frozenset({"relative"})
NO_KIND = frozenset({"", "none", "null", "note", "notes", "text", "other"})  # what models say for "no kind"

SYSTEM_PROMPT = """\
You turn one conversation between a user and an assistant into atomic facts for the user's \
long-term memory. Answer with JSON only: {{"facts": [...]}}.

Each fact is one self-contained statement, e.g. "The user's passport expires on 2025-03-05.":
- message_index: the index [n] of the message that states it ({which});
- text: the fact in one sentence, naming who it is about;
- subject: null when it is about the user; otherwise who it is about, as the user calls \
them ("husband", "daughter Emma", "my landlord");
- kind: one of the kinds below when the fact fits one, else null;
- fields: a list of {{"name": ..., "value": ...}} using only the field names of that kind \
(and no fields when kind is null unless a value is worth keeping); values are strings, \
numbers, true/false or null;
- valid_from / valid_to: the dates the fact holds from / until, or null;
- entity: a short stable name for the thing the fact is about when several facts describe \
the same one (e.g. "trip-tokyo-2025"), else null.
Dates are YYYY-MM-DD and date-times YYYY-MM-DDTHH:MM. Resolve relative dates ("next \
Friday", "in two weeks") against the session time: {session_time}. Amounts in US dollars \
are plain numbers. Do not invent facts; skip greetings and small talk. An assistant \
message counts only when it confirms something (a booking, a number, a balance).

Kinds and their fields (type in parentheses):
{vocabulary}
"""


def vocabulary_text() -> str:
    """The canonical vocabulary as the prompt quotes it: one kind a line, with its fields."""
    lines = []
    for domain in CANONICAL.values():
        fields = ", ".join(f"{name} ({annotation})" for name, annotation in domain.fields.items())
        many = "one per person" if domain.singular else "many"
        lines.append(f"- {domain.kind} [{many}]: {fields}")
    return "\n".join(lines)


def chunks(messages: list[Message], max_messages: int = MAX_CHUNK_MESSAGES,
           max_chars: int = MAX_CHUNK_CHARS) -> Iterator[list[Message]]:
    """Consecutive runs of at most `max_messages` messages and `max_chars` characters of
    content; a message longer than `max_chars` is a chunk of its own, whole."""
    run: list[Message] = []
    size = 0
    for message in messages:
        if run and (len(run) >= max_messages or size + len(message.content) > max_chars):
            yield run
            run, size = [], 0
        run.append(message)
        size += len(message.content)
    if run:
        yield run


class LlmExtractor:
    """`factlog.extract.Extractor` through a model endpoint (`codegen.llm.endpoint.Endpoint`)."""

    def __init__(self, endpoint: Endpoint, *, max_messages: int = MAX_CHUNK_MESSAGES,
                 max_chars: int = MAX_CHUNK_CHARS) -> None:
        if max_messages < 1 or max_chars < 1:
            raise ValueError("chunks hold at least one message")
        self.endpoint = endpoint
        self.max_messages = max_messages
        self.max_chars = max_chars

    def chunks_of(self, session: Session) -> list[list[Message]]:
        """The session's chunks, as `extract` sends them."""
        return list(chunks(session.messages, self.max_messages, self.max_chars))

    def extract(self, session: Session, *, user_only: bool) -> list[NewFact]:
        offline = RuleExtractor().extract(session, user_only=user_only)
        return [fact for run in self.chunks_of(session)
                for fact in self.extract_chunk(session, run, user_only=user_only, offline=offline)]

    def extract_chunk(self, session: Session, run: list[Message], *, user_only: bool,
                      offline: list[NewFact] | None = None) -> list[NewFact]:
        """The facts of one chunk (`run`, consecutive messages of `session`): the model's,
        plus the offline facts (`offline`: the `RuleExtractor`'s of the whole session, computed
        here when not given) of the chunk's messages it cited in none. A chunk with no
        message of the speakers asked for makes no request. Offline facts citing no message
        go with the chunk that holds the session's first message."""
        speakers = ("user",) if user_only else ("user", "assistant")
        facts: list[NewFact] = []
        cited: set[int] = set()
        roles = {m.index: m.role for m in run if m.role in speakers}
        if roles:
            context = ChunkContext(session.timestamp, roles)
            with validation_context(context):
                answer = self.endpoint.complete_json(self.prompt(session, run, speakers), ExtractedFacts,
                                                     purpose=PURPOSE)
            for extracted in sorted(answer.facts, key=lambda f: f.message_index):
                facts.append(to_new_fact(session, roles[extracted.message_index], extracted))
                cited.add(extracted.message_index)
        if offline is None:
            offline = RuleExtractor().extract(session, user_only=user_only)
        return _with_uncited(facts, cited, in_chunk(offline, session, run))

    def prompt(self, session: Session, run: list[Message], speakers: tuple[str, ...]) -> list[dict[str, str]]:
        """The messages of one chunk's request."""
        when = session.timestamp.isoformat(sep=" ") if session.timestamp else "not given (use only dates stated)"
        which = "a user message" if speakers == ("user",) else "a user or assistant message"
        system = SYSTEM_PROMPT.format(which=which, session_time=when, vocabulary=vocabulary_text())
        header = f"Session {session.session_id}, time {when}"
        if session.metadata:
            header += f", metadata {json.dumps(session.metadata, ensure_ascii=False, sort_keys=True)}"
        body = "\n".join(f"[{m.index}] {m.role}: {m.content}" for m in run)
        return [{"role": "system", "content": system}, {"role": "user", "content": f"{header}\n\n{body}"}]


def subject_of(subject: str | None) -> str | None:
    """Who a fact is about: None for the user, else the name the model gave."""
    if subject is None:
        return None
    name = " ".join(subject.split())
    return None if name.casefold().removeprefix("the ").strip() in USER_WORDS or name.casefold() in USER_WORDS \
        else name


def to_new_fact(session: Session, role: str, extracted: ExtractedFact) -> NewFact:
    """One validated extracted fact as a `NewFact`, by the rules of the module docstring."""
    fields: dict[str, JsonValue] = {item.name: item.value for item in extracted.fields}
    kind = canonical_kind(extracted.kind)
    subject = subject_of(extracted.subject)
    named_kind = (extracted.kind or "").strip()
    demote = kind is None and named_kind.casefold() not in NO_KIND
    if kind is not None:
        domain = CANONICAL[kind]
        if any(name not in domain.fields and name != "subject" for name in fields):
            demote = True
        named = next((fields[f] for f in PERSON_FIELDS if f in domain.fields and isinstance(fields.get(f), str)), None)
        if subject is None and isinstance(named, str):
            subject = subject_of(named)
    if subject is not None:
        fields["subject"] = subject
        if kind is not None and not demote and kind not in ABOUT_OTHERS:
            slot = next((f for f in PERSON_FIELDS if f in CANONICAL[kind].fields), None)
            if slot is None:
                demote = True  # someone else's passport or trip is not the user's record
            else:
                given = fields.get(slot)
                if subject_of(given if isinstance(given, str) else None) is None:
                    fields[slot] = subject
    if demote:
        fields["proposed_kind"] = named_kind
        kind = None
    key = None
    if kind is not None and CANONICAL[kind].singular:
        key = kind
    elif kind is not None and extracted.entity:
        key = " ".join(extracted.entity.split())[:MAX_KEY] or None
    provenance = Provenance(session_id=session.session_id, message_index=extracted.message_index, role=role,
                            session_ts=session.timestamp.isoformat() if session.timestamp else None)
    return NewFact(text=extracted.text.strip(), kind=kind, fields=fields, key=key,
                   valid_from=day_of(extracted.valid_from), valid_to=day_of(extracted.valid_to),
                   provenance=provenance)


def in_chunk(facts: list[NewFact], session: Session, run: list[Message]) -> list[NewFact]:
    """Those of a session's `facts` that belong to the chunk `run`: citing one of its
    messages, or citing none when the chunk holds the session's first message."""
    indices = {m.index for m in run}
    first = bool(run) and bool(session.messages) and run[0].index == session.messages[0].index
    return [f for f in facts if (f.provenance.message_index in indices
                                 or (first and f.provenance.message_index is None))]


def _with_uncited(facts: list[NewFact], cited: set[int], offline: list[NewFact]) -> list[NewFact]:
    """`facts`, with the `offline` facts of every message the model cited in none, each in
    its message's place."""
    offline = [f for f in offline if f.provenance.message_index not in cited]
    if not offline:
        return facts
    merged = facts + offline
    return sorted(merged, key=lambda f: -1 if f.provenance.message_index is None else f.provenance.message_index)

"""What a domain reader returns and what a session remembers between sentences.

A `TypedFact` is a fact of a canonical kind read from one sentence: its `key` names the
entity (the same kind and key are one entity, so a later fact with them updates or
corrects the earlier one), its `fields` the values the sentence states.

A `Context` belongs to one session: its time (relative and year-less dates resolve
against it), who is speaking, and what the session last talked about, per domain
(`last`), overall (`recent`, the target of a correction such as "actually it's the
12th") and by topic (`topic`: the domain, or "hotel", of the last sentence that named
one, so "April 10 to April 24" after "got travel insurance" is the insurance's).
`pending` holds the naming fields of entities mentioned without values ("Work is sending
me to Singapore"), given to the entity's first fact; `entities` the fields each entity's
facts stated so far in the session; `companions` the people the session
says travel with the user ("for Emma and myself"). Health and schedule readers also keep
the clinician last named (`care`), the person other than the user the session is about
(`focus`), the relations names were given ("my husband Mike") and the sentences so far
("No wait." before "Keflex."); these are brought up to date only when a reader needs them
(`factlog.typed.care.catch_up`). `prior` holds what earlier sessions said about trips and
documents, so "Qantas moved my return" names the Sydney trip booked last week. `form_owner` is
the person a pasted form's "Applicant:" / "Passenger:" / "Patient:" line names, for the
"Field: value" lines after it (`factlog.typed.common.note_form_owner`). `message` is the whole
message the sentence is in and `turn` its number in the session (the extractor sets both), so
a reader may look at the rest of the message ("Ella's recital is Friday. I wouldn't miss it.")
or ask whether the user's last message gave it something.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from factlog.model import JsonValue
from factlog.typed.prior import Prior


@dataclass(frozen=True)
class TypedFact:
    kind: str
    key: str | None
    fields: dict[str, JsonValue]


@dataclass
class Context:
    timestamp: datetime | None
    speaker: str = "user"
    business: str | None = None  # whom the user talked to (the session's metadata), e.g. an insurer
    last: dict[str, TypedFact] = field(default_factory=dict)  # domain name -> its last fact
    recent: TypedFact | None = None  # the last typed fact with a date or time
    purchase: tuple[str | None, str] | None = None  # (item, ISO date) of the last purchase mentioned
    care: str | None = None  # the clinician or place of care last named ("Dr. Kim", "urgent care")
    focus: str | None = None  # the person other than the user last named as the one concerned
    relations: dict[str, str] = field(default_factory=dict)  # a name -> its relation ("Mike" -> "husband")
    said: list[str] = field(default_factory=list)  # the session's sentences so far, this one last
    heard: int = 0  # how many of `said` `care`, `focus` and `relations` reflect (read when needed)
    purchase_number: str | None = None  # its order number, if stated
    purchases: list[tuple[str, str]] = field(default_factory=list)  # (item, ISO date) of each bought this session
    topic: str | None = None  # the domain (or "hotel") the last sentence naming one was about
    pending: dict[str, dict[str, JsonValue]] = field(default_factory=dict)  # key -> naming fields, not yet stated
    companions: list[str] = field(default_factory=list)  # who travels with the user this session
    entities: dict[str, dict[str, JsonValue]] = field(default_factory=dict)  # key -> fields stated this session
    prior: Prior = field(default_factory=Prior)  # the entities earlier sessions stated (factlog.typed.prior)
    form_owner: str | None = None  # whose lines a pasted form gives ("Applicant: KOWALSKA, ANNA"), while they last
    message: str = ""  # the message the sentence read is in, whole
    turn: int = 0  # that message's number in the session (1 for the first)

    def remember(self, domain: str, fact: TypedFact) -> None:
        self.last[domain] = fact
        self.topic = domain
        if any(name.endswith(("_date", "_time")) for name in fact.fields):
            self.recent = fact

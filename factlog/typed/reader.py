"""Reading one sentence of a session into typed facts: each domain reader in turn (people's
facts, `factlog.typed.people`, are never the session's topic), then,
when none found anything, a correction of the session's last dated fact ("actually it's
the 12th" gives the same entity the corrected date; its later fact wins).

`read_sentence` is deterministic: the same sentence in the same context gives the same
facts, and the context changes the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from factlog.model import JsonValue
from factlog.recognizers import recognize
from factlog.spoken import for_readers
from factlog.typed import allergies, bills, deadlines, documents, events, medicines, money, payments, people, trips
from factlog.typed.common import CORRECTION, DAY_ONLY, conversation_fields, corrected_day, note_form_owner
from factlog.typed.model import Context, TypedFact
from factlog.typed.triggers import Triggers
from factlog.vocabulary import CANONICAL

Reader = Callable[[str, Context], list[TypedFact]]
READERS: tuple[tuple[str, Reader], ...] = (
    (documents.DOMAIN, documents.read), (trips.DOMAIN, trips.read),
    (medicines.MEDICATION, medicines.read_medications), (allergies.ALLERGY, allergies.read_allergies),
    (events.DOMAIN, events.read), (payments.DOMAIN, payments.read), (money.DOMAIN, money.read),
    (bills.DOMAIN, bills.read), (deadlines.DOMAIN, deadlines.read), (people.DOMAIN, people.read),
)
# domains whose facts are not a topic or a correction's target (a relative named in a trip's
# sentence leaves the trip the topic); their readers keep what they need themselves
_NOT_TOPICS = frozenset({people.DOMAIN})


# every reader needs one of these to find anything; most sentences have none
_TRIGGERS = Triggers((*trips.TRIGGERS, *documents.TRIGGERS, *money.TRIGGERS, *bills.TRIGGERS, CORRECTION))
# readers run only on the sentences their own triggers find (so their cues cost the others nothing)
_HEALTH = Triggers((*medicines.TRIGGERS, *allergies.TRIGGERS))
_SCHEDULE = Triggers(events.TRIGGERS)
_PEOPLE = Triggers(people.TRIGGERS)


@lru_cache(maxsize=8)
def _health(text: str) -> bool:
    """The sentence may state a medication or an allergy (asked once for both readers)."""
    return _HEALTH.search(text) or medicines.names_a_drug(text)


# readers that run on the shared triggers and on cues of their own: "I already cancelled it" needs no money word
_ALSO: dict[str, Callable[[str], bool]] = {money.DOMAIN: lambda text: money.CANCEL_WORDS.search(text) is not None}

_OWN_TRIGGERS: dict[str, Callable[[str], bool]] = {
    medicines.MEDICATION: _health,
    allergies.ALLERGY: _health,
    events.DOMAIN: _SCHEDULE.search,
    people.DOMAIN: _PEOPLE.search,
    payments.DOMAIN: payments.triggered,
    deadlines.DOMAIN: lambda text: deadlines.TRIGGERS[0].search(text) is not None,
}


def read_sentence(sentence: str, context: Context) -> list[TypedFact]:
    """The typed facts `sentence` states in `context` (which it updates); the readers see it
    as `factlog.spoken.for_readers` writes it (no fillers, digits and clock times written)."""
    sentence = for_readers(sentence)
    context.said.append(sentence)
    note_form_owner(sentence, context)  # "Applicant: KOWALSKA, ANNA": whose the next lines are
    triggered = _TRIGGERS.search(sentence)
    facts: list[TypedFact] = []
    for domain, reader in READERS:
        own = _OWN_TRIGGERS.get(domain)
        also = _ALSO.get(domain)
        if not (own(sentence) if own is not None else triggered or (also is not None and also(sentence))):
            continue
        found = _priced(reader(sentence, context), sentence, context)
        for fact in found if domain not in _NOT_TOPICS else ():
            context.remember(domain, fact)
        facts += found
    if triggered and not facts and context.recent is not None and CORRECTION.search(sentence):
        corrected = _correction(sentence, context, context.recent)
        if corrected is not None:
            context.recent = corrected
            facts.append(corrected)
    return facts


_PRICED = frozenset({"payment", "subscription", "bill"})  # with `amount_eur`, `amount_gbp` beside `amount_usd`


def _priced(facts: list[TypedFact], sentence: str, context: Context) -> list[TypedFact]:
    """`facts`, those of a priced kind without a USD amount given the one amount in euros or
    pounds the sentence states ("£380", "12.99 euros") as `amount_eur` / `amount_gbp`, never
    converted; as they are when the sentence states a USD amount or several others."""
    if not any(fact.kind in _PRICED and "amount_usd" not in fact.fields for fact in facts):
        return facts
    values = recognize(sentence, context.timestamp)
    said = {(item.get("value"), item.get("currency")) for item in values.amounts_other}
    if values.amounts_usd or len(said) != 1:
        return facts
    [(value, currency)] = said
    field = f"amount_{str(currency).lower()}"
    if any(field not in CANONICAL[kind].fields for kind in _PRICED):
        return facts  # a currency the vocabulary has no field for stays in the note
    return [TypedFact(fact.kind, fact.key, {**fact.fields, field: value})
            if fact.kind in _PRICED and "amount_usd" not in fact.fields else fact for fact in facts]


def _correction(sentence: str, context: Context, target: TypedFact) -> TypedFact | None:
    """The last date (or time) field of `target` set to the date (time) the sentence gives."""
    names = [name for name in target.fields if name.endswith(("_date", "_time"))]
    if not names:
        return None
    name = names[-1]
    old = target.fields[name]
    values = recognize(sentence, context.timestamp)
    new: JsonValue = None
    if name.endswith("_date"):
        if values.dates:
            new = values.dates[0]
        elif isinstance(old, str) and DAY_ONLY.search(sentence):
            new = corrected_day(old, sentence)
    elif values.times:
        new = values.times[0]
    if new is None or new == old:
        return None
    subject = str(target.fields.get("subject", "user"))
    return TypedFact(target.kind, target.key, conversation_fields(context, subject, {name: new}))

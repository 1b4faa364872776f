"""What a recall question asks for: the kinds it names and whether it enumerates.

A question *names a kind* when one of its words is a canonical kind (`factlog.vocabulary`),
its module attribute, the plural of either, or a synonym from `SYNONYMS` ("meds",
"prescriptions", "flights", "subscriptions" ...); recall then puts the typed records of that
kind first.

A question *enumerates* (it needs many facts, so recall widens its budgets) when any of:
- it has a word of `ENUMERATING_WORDS` ("all", "every", "each", "everything", "list", ...);
- it asks "how many";
- it has "which" followed later by "and" ("which trips are booked and when do they leave?");
- it starts a clause with "what are" / "what're" ("what are my subscriptions?");
- it names a kind in the plural ("which medications am I on?").

Expansion (`expansion`): the text of a conversation rarely names the kind ("my flight to
Tokyo", not "my trip"), so the words of `KIND_TERMS` of each named kind are searched too, after
the question's own words, taken in turn from each kind (the index keeps the first
`recall_index.MAX_QUERY_TOKENS` distinct words).

Widening (`widened`): the item and character budgets are multiplied by `WIDEN_FACTOR`, never
past `MAX_WIDE_ITEMS` / `MAX_WIDE_CHARS` and never below what the caller gave; the time
budget is not widened. A question is analysed on its first `MAX_QUESTION_WORDS` words only,
so a huge question costs no more than a long one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factlog.errors import InputError
from factlog.vocabulary import CANONICAL

WIDEN_FACTOR = 3
MAX_WIDE_ITEMS = 60
MAX_WIDE_CHARS = 12_000
MAX_QUESTION_WORDS = 64
MAX_CLI_QUESTION_CHARS = 20_000  # a question given on the command line (`check_question`)
ENUMERATING_WORDS = frozenset({"all", "every", "each", "everything", "list", "enumerate", "overview", "summary",
                               "summarize", "summarise"})
# Everyday words for a canonical kind (a kind absent from the vocabulary is ignored).
SYNONYMS: dict[str, str] = {
    "med": "medication", "meds": "medication", "medicine": "medication", "medicines": "medication",
    "prescription": "medication", "prescriptions": "medication", "drug": "medication", "drugs": "medication",
    "pill": "medication", "pills": "medication",
    "allergic": "allergy",
    "flight": "trip", "flights": "trip", "travel": "trip", "travels": "trip", "journey": "trip",
    "journeys": "trip", "booking": "trip", "bookings": "trip",
    "subscription": "subscription", "subscriptions": "subscription",
    "meeting": "event", "meetings": "event",
    "transfer": "payment", "transfers": "payment",
    "car": "vehicle", "cars": "vehicle",
    "family": "relative", "relatives": "relative",
    "warranty": "document", "warranties": "document", "visa": "document", "visas": "document",
    "policy": "document", "policies": "document", "licence": "document", "license": "document",
}
# Words that a sentence about the kind tends to use (searched as stemmed prefixes).
KIND_TERMS: dict[str, tuple[str, ...]] = {
    "trip": ("flight", "flying", "booked", "travel", "depart", "return", "hotel", "airline", "trip"),
    "passport": ("passport", "expire", "expiry", "renew"),
    "document": ("passport", "visa", "warranty", "insurance", "policy", "licence", "coverage", "expire"),
    "medication": ("prescribed", "taking", "dose", "pharmacy", "tablet", "pill", "started", "daily"),
    "allergy": ("allergic", "allergy", "reaction", "rash", "hives"),
    "appointment": ("appointment", "dentist", "doctor", "clinic", "scheduled", "visit"),
    "event": ("meeting", "weekly", "standup", "recurring", "class", "lunch", "every"),
    "payment": ("payment", "paid", "transfer", "wire", "send", "invoice", "account"),
    "bill": ("bill", "due", "autopay", "monthly", "statement", "payment"),
    "subscription": ("subscription", "renew", "monthly", "trial", "cancel", "plan", "charged"),
    "account": ("account", "bank", "checking", "savings", "card"),
    "deadline": ("deadline", "due", "expires", "renewal", "until"),
    "relative": ("daughter", "son", "wife", "husband", "mother", "father", "sister", "brother"),
    "vehicle": ("car", "vehicle", "service", "mileage"),
    "loyalty_program": ("member", "miles", "points", "rewards"),
    "preference": ("prefer", "favourite", "favorite", "love", "hate"),
}
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Question:
    """The kinds a question names (first mention first) and whether it enumerates."""

    kinds: tuple[str, ...]
    enumerates: bool


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _kind_names() -> dict[str, str]:
    """Every word that names a kind: kind, attribute, their singular forms, synonyms."""
    names: dict[str, str] = {}
    for kind, domain in CANONICAL.items():
        for name in (kind, domain.attribute, _singular(domain.attribute)):
            for form in (name, name.replace("_", " ")):
                names.setdefault(form, kind)
    for word, kind in SYNONYMS.items():
        if kind in CANONICAL:
            names.setdefault(word, kind)
    return names


_KIND_NAMES = _kind_names()


def analyse(question: str) -> Question:
    """The kinds `question` names and whether it enumerates (module docstring)."""
    found = [w.lower() for w in _WORD.findall(question[: MAX_QUESTION_WORDS * 32])][:MAX_QUESTION_WORDS]
    kinds: list[str] = []
    plural = False
    for word in found:
        kind = _KIND_NAMES.get(word) or _KIND_NAMES.get(_singular(word))
        if kind is None:
            continue
        if kind not in kinds:
            kinds.append(kind)
        plural = plural or (word != kind and _singular(word) != word)
    pairs = set(zip(found, found[1:]))
    enumerates = (
        plural
        or any(w in ENUMERATING_WORDS for w in found)
        or ("how", "many") in pairs
        or ("what", "are") in pairs
        or ("what", "re") in pairs
        or ("which" in found and "and" in found[found.index("which") + 1:])
    )
    return Question(tuple(kinds), enumerates)


def expansion(kinds: tuple[str, ...]) -> list[str]:
    """The `KIND_TERMS` of `kinds`, one from each kind in turn, without repeats."""
    lists = [KIND_TERMS.get(kind, ()) for kind in kinds]
    taken = [terms[i] for i in range(max(map(len, lists), default=0)) for terms in lists if i < len(terms)]
    return list(dict.fromkeys(taken))


def check_question(text: str) -> str:
    """A question from the command line, or InputError (one line): not empty, at most
    `MAX_CLI_QUESTION_CHARS` characters, no control character but tab and line breaks."""
    if not text.strip():
        raise InputError("question: empty; ask something, e.g. 'which medications am I on?'")
    if len(text) > MAX_CLI_QUESTION_CHARS:
        raise InputError(f"question: {len(text)} characters, over the limit of {MAX_CLI_QUESTION_CHARS}")
    for position, char in enumerate(text):
        if not char.isprintable() and char not in "\t\n\r" and not char.isspace():
            raise InputError(f"question: control character U+{ord(char):04X} at position {position}")
    return text


def widened(max_items: int, max_chars: int) -> tuple[int, int]:
    """The item and character budgets of an enumerating question (module docstring)."""
    return (max(max_items, min(max_items * WIDEN_FACTOR, MAX_WIDE_ITEMS)),
            max(max_chars, min(max_chars * WIDEN_FACTOR, MAX_WIDE_CHARS)))

"""One spelling per kind: English plurals and singulars, and the kind a fact's `kind` names.

A kind given in the plural names the same thing as its singular (`trips` is `trip`), and
canonical attributes name their kind (`allergies` is `allergy`). The compiler names classes
by it (`codegen.naming`) and the door keys established field types by it.
"""

from __future__ import annotations

from functools import lru_cache

from factlog.vocabulary import CANONICAL

_IRREGULAR = {
    "person": "people", "child": "children", "man": "men", "woman": "women",
    "mouse": "mice", "goose": "geese", "tooth": "teeth", "foot": "feet", "ox": "oxen",
    "leaf": "leaves", "knife": "knives", "life": "lives", "wife": "wives", "half": "halves",
    "shelf": "shelves", "wolf": "wolves", "loaf": "loaves", "thief": "thieves",
    "hero": "heroes", "potato": "potatoes", "tomato": "tomatoes", "echo": "echoes",
    "analysis": "analyses", "diagnosis": "diagnoses", "crisis": "crises", "thesis": "theses",
    "basis": "bases", "hypothesis": "hypotheses", "synopsis": "synopses", "axis": "axes",
    "criterion": "criteria", "quiz": "quizzes",
    # -ie words, so that their plurals do not singularize to -y
    "movie": "movies", "cookie": "cookies", "calorie": "calories", "pie": "pies", "tie": "ties",
    "selfie": "selfies", "rookie": "rookies", "zombie": "zombies", "brownie": "brownies",
    "smoothie": "smoothies", "hoodie": "hoodies", "lie": "lies",
}
_SINGULAR_OF = {p: s for s, p in _IRREGULAR.items()}
_UNCOUNTABLE = frozenset({
    "news", "series", "species", "equipment", "information", "info", "data", "money",
    "luggage", "baggage", "feedback", "software", "hardware", "advice", "furniture", "staff",
    "sheep", "fish", "deer", "aircraft", "music", "homework", "research", "mail", "physics",
    "mathematics", "economics", "clothing", "jewelry", "traffic", "weather", "health",
})
# Singular words that end in "s" but not in "ss", "us" or "is" (those are never stripped).
_SINGULAR_IN_S = frozenset({
    "gas", "canvas", "atlas", "alias", "lens", "bias", "pancreas", "christmas", "yes", "plus",
    "chaos", "cosmos", "ethos", "pathos", "kudos", "tennis", "diabetes", "herpes", "measles",
})


def _split_last(word: str) -> tuple[str, str]:
    head, sep, last = word.rpartition("_")
    return head + sep, last


def plural(word: str) -> str:
    """English plural of the last `_`-separated part: `loyalty_program` -> `loyalty_programs`."""
    head, last = _split_last(word)
    if not last or last in _UNCOUNTABLE:
        return word
    if last in _IRREGULAR:
        return head + _IRREGULAR[last]
    if last[-1] == "y" and len(last) > 1 and last[-2] not in "aeiou":
        return head + last[:-1] + "ies"
    if last.endswith(("s", "x", "z", "ch", "sh")):
        return head + last + "es"
    return head + last + "s"


def singular(word: str) -> str:
    """Undo `plural` when `word` is recognisably a plural; otherwise return it unchanged."""
    head, last = _split_last(word)
    if not last or last in _UNCOUNTABLE or last in _SINGULAR_IN_S:
        return word
    if last in _SINGULAR_OF:
        return head + _SINGULAR_OF[last]
    if last.endswith(("ss", "us", "is")) or not last.endswith("s"):
        return word
    candidates = [last[:-3] + "y"] if last.endswith("ies") else []
    if last.endswith("es"):
        candidates.append(last[:-2])
    candidates.append(last[:-1])
    for candidate in candidates:
        if candidate and plural(candidate) == last:
            return head + candidate
    return word


@lru_cache(maxsize=4096)
def normalize_kind(kind: str) -> str:
    """The one spelling of a kind: canonical attributes and plurals map to the singular."""
    for domain in CANONICAL.values():
        if kind == domain.attribute:
            return domain.kind
    return singular(kind)

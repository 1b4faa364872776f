"""The relation vocabulary: the one owner of the words for family members and the other people
a conversation names beside the user. Every reader (`factlog.typed.people`, `.common`, `.care`,
`.events`, `.trips`, `.accounts`), the constraints (`constraints.records.person_of`) and the label
matcher (`runtime.eval_labels`) ask it, so "mom" in one place is "mother" everywhere.

- `family_word(word)`: the canonical family word, singular, lower case ("Mum's" -> "mother",
  "hubby" -> "husband", "step-mom" -> "stepmother", "Mother-in-law" -> "mother-in-law",
  "kid" -> "child", "ex-hubby" -> "ex-husband"), or None for a word that names no relative.
- `gendered(word, female)`: "grandchild" as "granddaughter" / "grandson" by a she or he.
- `composed(outer, inner)`: a relation of a relation as the user's ("wife", "mum") -> "mother-in-law".
- `plural_word(word)`: the family word of a plural ("kids" -> "child", "boys" -> "son"); ""
  for a group of mixed relations ("parents", "in-laws").
- `BARE`: the words said bare, as a name ("Mom's flight", "Da has a chest infection",
  "Papa's tickets"); `ASSOCIATES`: people who are not relatives but own facts (a boss, a
  colleague); `FEMALE` / `MALE`: the family words a "she" / "he" can stand for.
- `subject_word(value)`: a `subject` as compared: "user" for the user ("me", "myself", ""),
  the family word for a relation word, else the name case-folded without a title.
- `same_subject(got, want)`: two `subject`s name the same person: equal `subject_word`s, or
  two names one of whose words are all words of the other ("Mr Osei" / "Osei").

Standard library only (layer 0).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# word -> canonical family word (the README's label convention: the singular family word)
_CANONICAL: dict[str, tuple[str, ...]] = {
    "mother": ("mother", "mom", "mum", "mommy", "mummy", "mama", "mamma", "mam", "mammy", "ma", "momma"),
    "father": ("father", "dad", "daddy", "papa", "pappa", "pa", "da", "dada"),
    "husband": ("husband", "hubby", "hubs", "esposo", "marido"),  # Spanish said in English ("mi esposo Carlos")
    "wife": ("wife", "wifey", "missus", "esposa"),
    "partner": ("partner",),
    "spouse": ("spouse",),
    "boyfriend": ("boyfriend",),
    "girlfriend": ("girlfriend",),
    "fiance": ("fiance", "fiancé"),
    "fiancee": ("fiancee", "fiancée"),
    "son": ("son", "hijo"),
    "daughter": ("daughter", "hija"),
    "child": ("child", "kid", "bairn", "wean"),
    "brother": ("brother", "bro", "half-brother"),
    "sister": ("sister", "sis", "half-sister"),
    "grandmother": ("grandmother", "grandma", "granny", "gran", "nan", "nana", "nanna", "nani", "dadi", "grandmom",
                    "grandmum", "gramma"),
    "grandfather": ("grandfather", "grandpa", "grandad", "granddad", "gramps", "grandpop", "nanaji", "dadaji"),
    "grandson": ("grandson",),
    "granddaughter": ("granddaughter",),
    "grandchild": ("grandchild", "grandkid", "apo"),  # "apo": Tagalog, said in English ("my apo Bea")
    "aunt": ("aunt", "auntie", "aunty"),
    "uncle": ("uncle",),
    "niece": ("niece",),
    "nephew": ("nephew",),
    "cousin": ("cousin",),
    "stepson": ("stepson",),
    "stepdaughter": ("stepdaughter",),
    "stepmother": ("stepmother", "stepmom", "stepmum"),
    "stepfather": ("stepfather", "stepdad"),
    "stepbrother": ("stepbrother",),
    "stepsister": ("stepsister",),
    "mother-in-law": ("mother-in-law",),
    "father-in-law": ("father-in-law",),
    "sister-in-law": ("sister-in-law",),
    "brother-in-law": ("brother-in-law",),
    "son-in-law": ("son-in-law",),
    "daughter-in-law": ("daughter-in-law",),
    "ex-husband": ("ex-husband",),
    "ex-wife": ("ex-wife",),
    "ex-partner": ("ex-partner",),
    "ex-boyfriend": ("ex-boyfriend",),
    "ex-girlfriend": ("ex-girlfriend",),
}
FAMILY: dict[str, str] = {word: canonical for canonical, words in _CANONICAL.items() for word in words}
PLURALS: dict[str, str] = {"kids": "child", "children": "child", "sons": "son", "daughters": "daughter",
                           "twins": "child", "boys": "son", "girls": "daughter", "bairns": "child", "weans": "child",
                           "parents": "", "grandkids": "",
                           "grandchildren": "", "in-laws": "", "folks": ""}
# said bare, as a name: "Mom's flight", "Da has a chest infection", "Nan's birthday"
BARE = frozenset("mom mum mommy mummy mama mamma mam ma momma dad daddy papa pappa pa da dada grandma grandpa "
                 "granny gran nan nana nanna nani dadi nanaji dadaji grandad granddad gramps".split())
# people who own facts without being relatives
ASSOCIATES = frozenset("friend boss colleague coworker co-worker roommate flatmate housemate neighbour neighbor "
                       "manager assistant client patient resident employee".split())
FEMALE = frozenset("mother wife daughter sister granddaughter grandmother aunt niece stepdaughter stepmother "
                   "stepsister girlfriend fiancee mother-in-law sister-in-law daughter-in-law ex-wife "
                   "ex-girlfriend".split())
MALE = frozenset("father husband son brother grandson grandfather uncle nephew stepson stepfather stepbrother "
                 "boyfriend fiance father-in-law brother-in-law son-in-law ex-husband ex-boyfriend".split())

_THE_USER = frozenset({"", "user", "the user", "me", "myself", "self", "i", "you", "yourself"})
_TITLES = frozenset("mr mrs ms miss mx dr prof sir madam".split())
_POSSESSIVE = re.compile(r"(?:'s|’s|s'|'|’)$")
_STEP = re.compile(r"^step[- ]?(?P<rest>\w+)$")
_IN_LAW = re.compile(r"^(?P<rel>\w+)[- ]in[- ]laws?$")
_EX = re.compile(r"^ex[- ]?(?P<rest>\w+)$")


def family_word(word: str) -> str | None:
    """The canonical family word for `word` ("Mum's" -> "mother"), or None."""
    text = _POSSESSIVE.sub("", " ".join(word.casefold().replace("’", "'").split()))
    if text in FAMILY:
        return FAMILY[text]
    step = _STEP.match(text)
    if step is not None:
        base = FAMILY.get(step.group("rest"))
        if base is not None and f"step{base}" in FAMILY:
            return f"step{base}"
    in_law = _IN_LAW.match(text)
    if in_law is not None:
        base = FAMILY.get(in_law.group("rel"))
        if base is not None and f"{base}-in-law" in FAMILY:
            return f"{base}-in-law"
    ex = _EX.match(text)
    if ex is not None:
        base = FAMILY.get(ex.group("rest"))
        if base is not None and f"ex-{base}" in FAMILY:
            return f"ex-{base}"
    return None


# a relation of a relation: (the user's relative, that relative's relative) -> the user's relation to the second
_SPOUSES = ("husband", "wife", "partner", "spouse")
_COMPOSED: dict[tuple[str, str], str] = {
    **{(outer, inner): grand for outer in ("son", "daughter", "child", "stepson", "stepdaughter")
       for inner, grand in (("son", "grandson"), ("daughter", "granddaughter"), ("child", "grandchild"))},
    **{(outer, inner): law for outer in _SPOUSES
       for inner, law in (("mother", "mother-in-law"), ("father", "father-in-law"), ("brother", "brother-in-law"),
                          ("sister", "sister-in-law"), ("son", "stepson"), ("daughter", "stepdaughter"))},
    **{(outer, inner): elder for outer in ("mother", "father")
       for inner, elder in (("mother", "grandmother"), ("father", "grandfather"), ("brother", "uncle"),
                            ("sister", "aunt"), ("husband", "stepfather"), ("wife", "stepmother"),
                            ("partner", ""))},
    **{(outer, inner): side for outer in ("brother", "sister")
       for inner, side in (("son", "nephew"), ("daughter", "niece"), ("wife", "sister-in-law"),
                           ("husband", "brother-in-law"))},
    ("son", "wife"): "daughter-in-law", ("son", "partner"): "", ("daughter", "husband"): "son-in-law",
    ("daughter", "partner"): "",
}


_GENDERED = {"grandchild": ("granddaughter", "grandson"), "child": ("daughter", "son"),
             "spouse": ("wife", "husband"), "partner": ("partner", "partner")}


def gendered(word: str, female: bool) -> str:
    """A family word that leaves the sex open as the "she" or "he" said of the person gives it
    ("grandchild", she -> "granddaughter"); other words as they are."""
    pair = _GENDERED.get(word)
    return word if pair is None else pair[0] if female else pair[1]


def composed(outer: str, inner: str) -> str | None:
    """The user's relation to a relative's relative ("my wife's mum" -> "mother-in-law", "my
    daughter's kids" -> "grandchild", "Aroha's brother" after "my partner Aroha" ->
    "brother-in-law"); None when the vocabulary has no one word for it ("my mum's partner")."""
    first, second = family_word(outer) or plural_word(outer), family_word(inner) or plural_word(inner)
    if not first or not second:
        return None
    return _COMPOSED.get((first, second)) or None


def plural_word(word: str) -> str | None:
    """The family word of a plural ("kids" -> "child"); "" for a mixed group; None for no relation."""
    return PLURALS.get(word.casefold().replace("’", "'").rstrip("'"))


def is_relation_word(word: str) -> bool:
    """A family word, its plural, or an associate ("boss")."""
    folded = word.casefold()
    return family_word(folded) is not None or folded in PLURALS or folded in ASSOCIATES


def pattern(words: Iterable[str]) -> str:
    """A regular-expression alternation of `words`, longest first (escaped)."""
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


def subject_word(value: str | None) -> str:
    """A `subject` as compared: "user", a family word, or a name folded without its title."""
    if value is None:
        return "user"
    text = " ".join(value.casefold().replace("’", "'").split())
    if text in _THE_USER:
        return "user"
    family = family_word(text) or (plural_word(text) or None)
    if family is not None:
        return family
    words = [w.rstrip(".") for w in text.split()]
    return " ".join(w for w in words if w not in _TITLES) or text


def same_subject(got: str | None, want: str | None) -> bool:
    """`got` and `want` name the same person ("mom" / "mother", "Mr Osei" / "Osei", "user" / "me")."""
    mine, theirs = subject_word(got), subject_word(want)
    if mine == theirs:
        return True
    if "user" in (mine, theirs) or family_word(mine) or family_word(theirs):
        return False
    a, b = set(_POSSESSIVE.sub("", mine).split()), set(_POSSESSIVE.sub("", theirs).split())
    return bool(a and b) and (a <= b or b <= a)

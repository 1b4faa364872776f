"""The entity comparison of `uac eval alerts` (`precision_entity`, `recall_entity`): a labelled
field and an extracted one agree when they name the same thing, not only when they are
spelled alike. Writers spell names differently ("team standup" / "standup", "Con Edison" /
"Con Edison electric bill"); the strict comparison (`runtime.eval_labels.same_value`) counts
those as misses, this one does not.

Which fields are what is declared here, once, from the vocabulary (`factlog.vocabulary`):

- **closed** fields (`CLOSED`: status, cadence, booking_status, relationship, drug_class, ...)
  and every field that is not a `str` in the vocabulary (dates, numbers, flags) or that the
  vocabulary does not list: as strictly as ever;
- **clock** fields (`CLOCK`: HH:MM times, an MM-DD birthday): strictly;
- **doses** (`QUANTITIES`): the same amount and frequency once both are read into one wording
  by `factlog.typed.doses.canonical_dose` ("25 mg daily" = "25 mg once a day", "400 mg
  twice daily" = "400 mg two times a day"); strictly when either cannot be read;
- **identifiers** (`IDENTIFIERS`: confirmation codes, numbers, last four digits, ...): equal
  once case and separators (spaces, dashes, dots, slashes, parentheses, "#") are removed;
- **drug names** (`DRUGS`: a medication's name, an allergen): the same generic names or the
  same drug class through the bundled drug table (`factlog.reference.drugs`: Coumadin is
  warfarin, "penicillin" the penicillins), else as names;
- **places** (`PLACES`): as names, or a country and a city that lies in it, or two names of
  one country, through `factlog.typed.places` ("Japan" / "Tokyo", "USA" / "United States");
- **family words** in `RELATION_FIELDS` (relationship, person, holder, requested_by): two words of
  the one relation vocabulary (`factlog.relations`) agree when they name one relation ("mom" /
  "mother", "hubby" / "husband"), in the strict comparison too;
- every other `str` field is a **name**: its content words (case and accents folded,
  punctuation and a possessive "'s" removed, a plural "s" dropped, the words of `STOPWORDS`
  and `GENERIC` left out) of one are a subset of the other's, and they share at least one
  (a name of only generic words is compared strictly); an owner one of them names (the word
  before "'s") must be a word of the other too, as whose thing it is tells entities apart.
  So "Chase Sapphire credit card" and "Chase Sapphire card" agree, "Chase Freedom" and
  "Chase Sapphire" do not, nor do "Dr. Patel" and "Dr. Patil", nor "savings" and
  "husband's savings".
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from factlog.typed.doses import canonical_dose
from factlog.vocabulary import CANONICAL

CLOSED = frozenset({"status", "cadence", "recurrence", "booking_status", "relationship", "kind", "topic",
                    "weekday", "drug_class", "severity", "tier"})
CLOCK = frozenset({"departure_time", "return_time", "start_time", "end_time", "birthday"})
QUANTITIES = frozenset({"dose"})  # an amount with its unit and how often ("250 mg twice a day")
IDENTIFIERS = frozenset({"number", "booking_ref", "confirmation", "last4", "reference", "plate", "vin", "phone",
                         "email"})
DRUGS = frozenset({("medication", "name"), ("allergy", "allergen")})
PLACES = frozenset({"destination", "country", "home_city"})
# fields that may hold a family word ("mother", "mom"): compared through `factlog.relations` first
RELATION_FIELDS = frozenset({"relationship", "person", "holder", "requested_by"})

# words that never tell two names apart: articles, possessives, prepositions, titles
STOPWORDS = frozenset("the a an my our his her their your its of for to at on in with and dr mr mrs ms prof".split())
# words naming what sort of thing it is, not which one ("Con Edison bill", "Chase credit card")
GENERIC = frozenset("bill card credit account class appointment payment subscription membership plan".split())

_WORD = re.compile(r"([a-z0-9]+)('s\b|(?<=s)'(?!\w))?")  # a word, and its possessive
_IDENTIFIER_SEPARATORS = re.compile(r"[\s\-\u2010-\u2015./()#]+")


@cache
def name_fields() -> frozenset[tuple[str, str]]:
    """(kind, field) of every vocabulary field compared as a name: its `str` fields that are
    not closed, clock, quantity, identifier, drug or place fields."""
    return frozenset((kind, name) for kind, domain in CANONICAL.items() for name, annotation in domain.fields.items()
                     if annotation == "str" and name not in CLOSED | CLOCK | QUANTITIES | IDENTIFIERS | PLACES
                     and (kind, name) not in DRUGS)


def role(kind: str, field: str) -> str:
    """How a field is compared: "name", "place", "drug", "identifier", "dose" or "strict"."""
    if (kind, field) in DRUGS:
        return "drug"
    if field in PLACES:
        return "place"
    if field in IDENTIFIERS:
        return "identifier"
    if field in QUANTITIES:
        return "dose"
    return "name" if (kind, field) in name_fields() else "strict"


def content_words(text: str) -> frozenset[str]:
    """A name's words as the comparison sees them ("Gary Morales (landlord)" -> gary, morale,
    landlord; "the Chase Sapphire credit card" -> chase, sapphire)."""
    return frozenset(word for word, _ in _words(text))


def owners(text: str) -> frozenset[str]:
    """The content words a name marks as an owner ("husband's savings" -> husband)."""
    return frozenset(word for word, owner in _words(text) if owner)


def _words(text: str) -> list[tuple[str, bool]]:
    folded = unicodedata.normalize("NFKD", text.casefold().replace("\u2019", "'"))
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    found = ((_singular(m.group(1)), m.group(2) is not None) for m in _WORD.finditer(plain))
    return [(word, owner) for word, owner in found if word not in STOPWORDS and word not in GENERIC]


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def same_name(got: str, want: str) -> bool:
    """One name's content words are a subset of the other's and they share one, and an owner
    either names is a word of the other ("savings" is not "husband's savings"); names of no
    content words are compared as case- and space-folded text."""
    mine, theirs = content_words(got), content_words(want)
    if not mine or not theirs:
        return _folded(got) == _folded(want)
    if not owners(got) <= theirs or not owners(want) <= mine:
        return False
    return bool(mine & theirs) and (mine <= theirs or theirs <= mine)


def same_identifier(got: str, want: str) -> bool:
    return _IDENTIFIER_SEPARATORS.sub("", got.casefold()) == _IDENTIFIER_SEPARATORS.sub("", want.casefold())


def same_drug(got: str, want: str) -> bool:
    from factlog.reference.drugs import class_id, generic_names

    mine, theirs = generic_names(got), generic_names(want)
    if mine and theirs:
        return set(mine) == set(theirs)
    group = class_id(got)
    if group is not None and group == class_id(want):
        return True
    return same_name(got, want)


def same_place(got: str, want: str) -> bool:
    from factlog.typed.places import country_of

    if same_name(got, want):
        return True
    country = country_of(got)
    if country is None or country != country_of(want):
        return False
    return _is_country(got) or _is_country(want)


def _is_country(name: str) -> bool:
    from factlog.reference.countries import country_named

    return country_named(name) is not None


def same_relation(field: str, got: object, want: object) -> bool | None:
    """Whether two values of a field naming a relative (`RELATION_FIELDS`) agree as family words
    through the one relation vocabulary (`factlog.relations`: "mom" is "mother"); None when the
    field names none or either value is no family word."""
    from factlog.relations import family_word

    if field not in RELATION_FIELDS or not isinstance(got, str) or not isinstance(want, str):
        return None
    mine, theirs = family_word(got), family_word(want)
    return None if mine is None or theirs is None else mine == theirs


def same_entity_value(kind: str, field: str, got: object, want: object) -> bool | None:
    """Whether two text values of a field agree by its role; None when the field (or a value
    that is not text) is compared strictly."""
    if not isinstance(got, str) or not isinstance(want, str):
        return None
    how = role(kind, field)
    if how == "name":
        return same_name(got, want)
    if how == "place":
        return same_place(got, want)
    if how == "drug":
        return same_drug(got, want)
    if how == "identifier":
        return same_identifier(got, want)
    if how == "dose":
        return same_dose(got, want)
    return None


def same_dose(got: str, want: str) -> bool | None:
    """Two doses read into one wording agree; None (strictly) when either cannot be read."""
    first, second = canonical_dose(got), canonical_dose(want)
    return None if first is None or second is None else first == second


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()

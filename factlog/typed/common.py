"""Rules every domain reader shares: whose thing a sentence is about, which date belongs
to which cue ("leave March 3, back March 12"), booking state, confirmation numbers and
durations ("a 2-year warranty").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from factlog.model import JsonValue
from factlog.recognizers import NUMBER_WORDS, dates_and_times_at
from factlog.relations import ASSOCIATES, BARE, FAMILY, FEMALE, MALE, family_word, is_relation_word
from factlog.relations import pattern as relation_pattern
from factlog.timeparse import try_date
from factlog.typed.model import Context
from factlog.typed.places import ADJECTIVES, place_name
from factlog.typed.stance import PLANNED

# the words of `factlog.relations` (the one owner of the relation vocabulary), with the plurals and the
# non-relatives these readers have always treated as people with things of their own
RELATIONS = sorted({
    *"daughter son wife husband partner spouse boyfriend girlfriend fiance fiancee fiancé fiancée mom mother mum dad "
     "father brother sister kid kids child children grandson granddaughter grandmother grandfather grandma grandpa "
     "aunt uncle niece nephew cousin stepson stepdaughter stepmother stepfather mother-in-law father-in-law "
     "sister-in-law brother-in-law mam da nan gran granny sis bro hubby missus esposo esposa marido hijo hija "
     "ex-husband ex-wife ex-partner apo".split(),
    "friend", "boss", "colleague", "coworker", "roommate"})  # the common words of `FAMILY`: alternations stay short
assert all(word in FAMILY for word in RELATIONS if word not in ("kids", "children", "friend", "boss", "colleague",
                                                                 "coworker", "roommate"))
_RELATION = "|".join(sorted(map(re.escape, RELATIONS), key=len, reverse=True))
_POSSESSIVE = re.compile(
    rf"\b(?:my|our|your)\s+(?P<rel>{_RELATION})(?:'s|’s|s'|\s+(?P<name>[A-Z][a-z]+)(?:'s|’s))", re.I)

_PERSON_DOES = re.compile(
    rf"\b(?:my|our|your)\s+(?P<rel>{_RELATION})(?:\s+[A-Z][a-z]+)?\s+(?:is|was|will be|has|had|'s|just|also)\b", re.I
)
_NOT_NAMES = frozenset(
    "i it that there what here let today tomorrow everyone nobody someone one who mom dad".split()
)

BOOKED = re.compile(
    r"\b(?:booked|have (?:my |our |the )?(?:plane |flight )?tickets|got (?:my |our |the )?tickets|"
    r"bought (?:my |our |the )?(?:plane |flight )?tickets|purchased|reserved|confirmed|confirmation|"
    r"all set|locked in|paid for|i book|"
    # British and Antipodean "sorted": "finally sorted Bali", "sorted the flights"
    r"(?:finally|just) sorted|sorted (?:out )?(?:the |my |our )?(?:flights?|tickets?|trip|travel|holiday|bookings?))\b",
    re.I,
)
CANCELLED = re.compile(r"\b(?:cancel+(?:ed|ing)?|called off|scrapped|no longer (?:going|flying|traveling)|"
                       r"(?:not|n't) (?:going|flying|traveling|travelling)(?: to [\w ]{1,30}?)? any ?more|"
                       r"(?:trip|vacation|holiday) is off)\b", re.I)
CONFIRMATION = re.compile(
    r"\b(?:(?:booking|reservation|confirmation)\s+)?"
    r"(?:confirmation|booking|reservation|record locator|locator|pnr|reference|ref\b|conf\b|code(?=\s+is|:)|"
    r"(?<!promo )(?<!discount )(?<!coupon )(?<!zip )(?<!postal )(?<!area )(?<!access )(?<!door )(?<!gate )"
    r"(?<!dress )(?<!country )code(?=\s+(?=[A-Z0-9]*\d)[A-Z0-9]{5,8}\b))"
    r"(?:\s+(?:number|code|no\.?|#|ref))?\s*(?:is|'s|’s|:|#|of|-)?\s*#?\s*(?P<code>[A-Z0-9][A-Z0-9-]{4,11})\b",
    re.I,
)
_DURATION = re.compile(
    rf"\b(?P<n>\d{{1,2}}|{'|'.join(['a', 'an', 'one', *NUMBER_WORDS])})[- ](?P<unit>year|yr|month|mo)s?\b", re.I
)
CORRECTION = re.compile(
    r"^\W*(?:(?:oh|um|uh|wait|sorry|no|oops|hmm|ah)\b[,!.]?\s*)*"
    r"(?:actually|sorry|correction|i meant|i mean|make that|scratch that|my mistake|my bad|wait)\b",
    re.I,
)
DAY_ONLY = re.compile(r"\bthe\s+(?P<dd>\d{1,2})(?:st|nd|rd|th)\b", re.I)


def subject_of(sentence: str, context: Context) -> str:
    """Whose thing the sentence is about: "user", or a relation or name ("my daughter's
    passport" -> "daughter", "Emma's visa" -> "Emma"; else `named_owner`: "Mum's", "Dana has")."""
    match = _POSSESSIVE.search(sentence) or _PERSON_DOES.search(sentence)
    if match is not None:
        return match.group("rel").lower()
    named = _NAME_POSSESSIVE.search(sentence)
    if named is not None:
        name = named.group("name")
        if name.lower() not in _NOT_NAMES and place_name(name) is None and name.lower() not in ADJECTIVES:
            return name
    return named_owner(sentence, context) or "user"


# a parent said bare, as a name: "Mum's passport", "mom's runs out", "moms runs out june 3"
# ("Mum's on at me to check me passport", "Dad's been asking": "'s" is "is" or "has", Mum owns nothing)
_CONTRACTED = (r"(?!(?:on|in|at|been|going|gone|got|getting|not|never|always|just|still|also|so|very|really|worried|"
               r"asking|saying|telling|making|having|taking|off|away|back|home|here|there|up|out|coming|a|an|the)\b)")
_NAME_POSSESSIVE = re.compile(r"\b(?P<name>[A-Z][a-z]{2,})(?:'s|’s)\s+" + _CONTRACTED +
                              r"(?!\w+\s+(?:rules|requirements|policy))")
_BARE_OWNER = re.compile(rf"\b(?P<rel>{relation_pattern(BARE)})(?:'s|’s)\s+{_CONTRACTED}"
                         r"(?!\w+\s+(?:rules|requirements|policy))|"
                         r"\b(?P<rel2>mom|mum|dad)s\s+(?=(?:runs|ran|expires|expired|is|was|has|needs|ends)\b)", re.I)
_OWNER_VERBS = r"(?:has|had|is|was|says|said|wants|needs|pays|plans|got|gets|holds|keeps|uses|will|just|also|takes)"
_BARE_NAMES = relation_pattern(word.capitalize() for word in BARE)
_BARE_DOES = re.compile(rf"(?:^|[.;:,]\s+|\b(?:and|but|so)\s+)(?P<rel>(?-i:{_BARE_NAMES}))\s+{_OWNER_VERBS}\b")
# a person named as the one doing or having: "Dana (my wife) has the Peloton app", "Mr Osei takes ..."
_NAME_DOES = re.compile(rf"(?:^|[.;:,]\s+|\b(?:and|but|so)\s+)(?P<title>(?-i:Mr|Mrs|Ms|Miss|Mx)\.?\s+)?"
                        rf"(?P<name>(?-i:[A-Z][a-z]+))(?:\s*\((?P<paren>[^)]*)\)|,\s+(?P<appos>(?:my|our)\s+[\w-]+),)?"
                        rf"\s+{_OWNER_VERBS}\b")
# a known person's possessive typed without the apostrophe: "thats Devs, he pays it", "mias got her own"
_UNMARKED_OWNER = re.compile(r"\b(?:thats|that['’]s|its|it['’]s|is)\s+(?P<name>[A-Za-z][a-z]+)s\b|"
                             r"(?:^|[.;,]\s+|\band\s+)(?P<name2>[A-Za-z][a-z]+)s\s+(?=(?:got|has|gets|own|is|pays)\b)")
_HIS_HER = re.compile(r"^\W*(?P<pronoun>his|her)\s+(?!own\b)\w", re.I)


# a pasted form's line naming whose it is, and any "Field: value" line
_FORM_OWNER = re.compile(r"^\W*(?:applicant|passenger|traveller|traveler|patient|guest|holder|policyholder|insured|"
                         r"member|student|full name|name)(?:\s+name)?(?:\s*\(?\d\)?)?\s*:"
                         r"\s*(?P<who>[^:|]+?)\s*(?:\||$)",
                         re.I)
_FORM_LINE = re.compile(r"^\W*[A-Za-z][\w /'()&.-]{0,30}:\s*\S")
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")


def note_form_owner(sentence: str, context: Context) -> None:
    """Keep whose lines a pasted form gives: set by "Applicant: KOWALSKA, ANNA" / "Passenger:
    Tom Alvarez", kept over the "Field: value" lines after it, dropped by any other sentence."""
    if ":" not in sentence:
        context.form_owner = None
        return
    owner = _FORM_OWNER.match(sentence)
    if owner is not None:
        context.form_owner = owner.group("who")
    elif not _FORM_LINE.match(sentence):
        context.form_owner = None


# a title a ticket or form writes after or before the name: "OKONKWO/EMEKA MR", "Mrs Anna Kowalska"
_TITLES = frozenset("mr mrs ms miss mstr master mx dr prof sir".split())


def given_names(said: str) -> list[str]:
    """The given names a form's name line writes, capitalised, surname and title left out:
    "KOWALSKA, ANNA" and "KOWALSKA/ANNA MRS" (surname first) -> ["Anna"]; "Tom Alvarez" ->
    ["Tom", "Alvarez"] (which word is the surname is unsaid)."""
    for mark in (",", "/"):
        first, found, rest = said.partition(mark)
        if found and rest.strip():
            said = rest
            break
    return [word.capitalize() for word in _NAME_WORD.findall(said) if word.lower() not in _TITLES]


def form_owner(context: Context) -> str | None:
    """The relative (or companion) the current form block names, by a first name the
    conversation knows ("KOWALSKA, ANNA" -> "Anna" after "Anna is my wife"); None for the user's
    own form, or none."""
    if context.form_owner is None:
        return None
    for word in given_names(context.form_owner):
        if relation_of(word, context) is not None or word in context.companions:
            return word
    return None


def named_owner(sentence: str, context: Context) -> str | None:
    """Someone other than the user whom the sentence makes the owner or doer, or None: a
    parent said bare ("Mum's passport" -> "mother"), a titled name ("Mr Osei has" -> "Mr
    Osei"), a name the conversation gave a relation or a trip ("Dana has" -> "Dana"), or
    "His"/"Her" opening the sentence for the person the session last spoke of."""
    listed = form_owner(context)
    if listed is not None:  # "Applicant: KOWALSKA, ANNA", then "Valid until: 19/10/2027": hers
        return listed
    bare = _BARE_OWNER.search(sentence) or _BARE_DOES.search(sentence)
    if bare is not None:
        word = bare.groupdict().get("rel") or bare.groupdict().get("rel2") or ""
        return family_word(word) or word.lower()
    for match in _NAME_DOES.finditer(sentence):
        name = match.group("name")
        if match.group("title"):
            return f"{match.group('title').strip()} {name}"
        said = match.group("paren") or match.group("appos") or ""
        if relation_of(name, context) is not None or name in context.companions or \
                re.match(r"\s*(?:my|our)\s+([\w-]+)\s*$", said) and is_relation_word(said.split()[-1]):
            relation = family_word(said.split()[-1]) if said else None
            if relation is not None:
                context.relations.setdefault(name, relation)
            return name  # "Dana (my wife) has", "Tom, my husband, pays"
    for unmarked in _UNMARKED_OWNER.finditer(sentence):  # "thats Devs", "mias got her own crunchyroll"
        name = (unmarked.group("name") or unmarked.group("name2")).capitalize()
        if name in context.relations or relation_of(name, context) is not None:
            return name
    pronoun = _HIS_HER.match(sentence)
    if pronoun is not None:
        from factlog.typed.care import catch_up  # care reads this module; asked only here

        catch_up(context)
        focus = context.focus  # a person the session gave a relation or a trip ("my colleague Jonas"), not "to Lagos"
        known = focus is not None and (focus in context.relations or focus in context.companions
                                       or family_word(focus) is not None or relation_of(focus, context) is not None)
        if focus is not None and known and focus not in _NOT_NAMES:
            rel = family_word(context.relations.get(focus, focus)) or relation_of(focus, context)
            female = pronoun.group("pronoun").casefold() == "her"
            if rel is None or (rel in FEMALE) == female or rel not in FEMALE | MALE:
                return rel or focus  # "His passport" after "my father ... His name is Ramesh": the father's
    return None


def named_relation(sentence: str) -> str | None:
    """The name a sentence gives a relation's thing ("my son Daniel's passport" -> "Daniel"), or None."""
    match = _POSSESSIVE.search(sentence)
    name = match.group("name") if match is not None else None
    return name if name is not None and name.lower() not in _NOT_NAMES else None


@dataclass(frozen=True)
class Cue:
    name: str
    pattern: re.Pattern[str]


def dates_by_cue(sentence: str, context: Context, cues: tuple[Cue, ...],
                 extra: tuple[tuple[int, str], ...] = ()) -> dict[str, list[str]]:
    """The sentence's dates (and the `extra` (position, ISO date) a reader found itself),
    each listed under the last cue before it ("" when none is)."""
    return _by_cue(sentence, cues, sorted([*dates_and_times_at(sentence, context.timestamp)[0], *extra]))


def times_by_cue(sentence: str, context: Context, cues: tuple[Cue, ...]) -> dict[str, list[str]]:
    """Like `dates_by_cue`, for times of day (HH:MM)."""
    return _by_cue(sentence, cues, dates_and_times_at(sentence, context.timestamp)[1])


# the end of a range in one month: "June 10 to 24", "March 1-20"
SAME_MONTH_END = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\s*(?:to|-|–|through|thru|"
    r"until|till)\s*(?P<dd>\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:/|:|am|pm|a\.m|p\.m|(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|"
    r"aug|sep|oct|nov|dec)))", re.I)


# a range whose month follows its second day only: "3rd to 10th of June", "the 3rd to the 15th of June"
LEADING_DAY = re.compile(
    r"(?<![\d/])\b(?P<dd>\d{1,2})(?:st|nd|rd|th)?\s*(?:to|-|–|through|thru|till|until)\s*(?:the\s+)?"
    r"(?P<dd2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", re.I)


def leading_days(sentence: str, context: Context) -> tuple[tuple[int, str], ...]:
    """(position, ISO date) of each range start said as a day alone before a day with its
    month ("3rd to 10th of June" -> June 3 of that June)."""
    found = dates_and_times_at(sentence, context.timestamp)[0]
    out = []
    for match in LEADING_DAY.finditer(sentence):
        end = try_date(next((day for start, day in found if start >= match.start("dd2")), ""))
        if end is not None and int(match.group("dd")) < end.day:
            out.append((match.start("dd"), end.replace(day=int(match.group("dd"))).isoformat()))
    return tuple(out)


def same_month_ends(sentence: str, context: Context) -> tuple[tuple[int, str], ...]:
    """(position, ISO date) of each range end said as a day alone after a date of the same
    month ("March 1-20" -> March 20 of March 1's year)."""
    found = dates_and_times_at(sentence, context.timestamp)[0]
    out = []
    for match in SAME_MONTH_END.finditer(sentence):
        before = [day for start, day in found if start < match.start("dd")]
        start_day = try_date(before[-1]) if before else None
        if start_day is None:
            continue
        try:
            end = start_day.replace(day=int(match.group("dd")))
        except ValueError:
            continue
        if end > start_day:
            out.append((match.start("dd"), end.isoformat()))
    return tuple(out)


def _by_cue(sentence: str, cues: tuple[Cue, ...], found: list[tuple[int, str]]) -> dict[str, list[str]]:
    if not found:
        return {}
    marks = sorted((m.start(), cue.name) for cue in cues for m in cue.pattern.finditer(sentence))
    out: dict[str, list[str]] = {}
    for start, value in found:
        name = next((cue_name for begin, cue_name in reversed(marks) if begin < start), "")
        out.setdefault(name, []).append(value)
    return out


def booking_status(sentence: str) -> str | None:
    if CANCELLED.search(sentence):
        return "cancelled"
    if PLANNED.search(sentence):
        return "planned"
    if BOOKED.search(sentence):
        return "booked"
    return None


def confirmation_code(sentence: str) -> str | None:
    for match in CONFIRMATION.finditer(sentence):
        code = match.group("code")
        if any(ch.isdigit() for ch in code) or (code.isupper() and len(code) >= 5):
            return code.upper() if code.isalnum() else code
    return None


def duration_months(sentence: str) -> int | None:
    """The length of a warranty or term in months ("1-year" -> 12, "six month" -> 6)."""
    match = _DURATION.search(sentence)
    if match is None:
        return None
    raw = match.group("n").lower()
    n = int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]
    return n * 12 if match.group("unit").lower().startswith("y") else n


def add_months(start: date, months: int) -> date:
    year, month = divmod(start.month - 1 + months, 12)
    year += start.year
    for day in range(start.day, 27, -1):
        try:
            return date(year, month + 1, day)
        except ValueError:
            continue
    return date(year, month + 1, min(start.day, 28))


def corrected_day(old: str, sentence: str) -> str | None:
    """ "the 12th" applied to the date `old` (same month and year), or None."""
    match = DAY_ONLY.search(sentence)
    day = try_date(old)
    if match is None or day is None:
        return None
    try:
        return day.replace(day=int(match.group("dd"))).isoformat()
    except ValueError:
        return None


def conversation_fields(context: Context, subject: str, fields: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """`fields` plus who it is about (`whose`) and who said it; a `person` or `holder` said
    as a family word is that word's canonical form ("Mom" -> "mother"), a name as
    `person_named` gives it ("Osei" after "Mr Osei" -> "Mr Osei")."""
    out = {**fields, "subject": whose(subject, context), "speaker": context.speaker}
    for name in ("person", "holder"):
        value = out.get(name)
        if not isinstance(value, str):
            continue
        word = family_word(value)
        out[name] = word if word is not None else person_named(value, context)
    return out


# someone named with a title: "Mr Osei", "Ms. Lund", "Dr Daniel Osei"
_TITLED_NAME = re.compile(r"\b(?P<title>Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+(?:[A-Z][a-z]+\s+)?"
                          r"(?P<surname>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")


def person_named(name: str, context: Context) -> str:
    """The one name every reader gives a person: someone the session has named with a title
    keeps it however they are named later or earlier ("Osei", "Daniel Osei" -> "Mr Osei"),
    so their trips, passport and diary are one person's. Other names are kept as given."""
    if (" " not in name and not name[:1].isupper()) or _TITLED_NAME.fullmatch(name):
        return name  # "user", "son", "mother"; "Mr. Alvarez" as given
    if " " not in name:  # "Tom" after "old Tom Bell next farm over": the full name the conversation gave him
        full = _full_name(name, context)
        if full is not None:
            return full
    surname = name.split()[-1]
    for said in reversed(context.said):
        for found in _TITLED_NAME.finditer(said):
            if found.group("surname") == surname:
                return f"{found.group('title')} {surname}"
    return name


_FULL_NAME = re.compile(r"^(?-i:[A-Z][a-z]+)\s+(?-i:[A-Z][a-z]+)$")


def _full_name(first: str, context: Context) -> str | None:
    """The one "First Surname" a person of this session (`relations`) or of an earlier session's
    health facts (`person`) was called whose first name is `first`, or None."""
    known = [*context.relations, *(str(fields.get("person")) for kind in ("medication", "allergy", "event")
                                   for _, fields in context.prior.of_kind(kind))]
    found = {said for said in known if said.startswith(f"{first} ") and _FULL_NAME.match(said)}
    return found.pop() if len(found) == 1 else None


def whose(subject: str, context: Context) -> str:
    """A reader's `subject` as the label conventions write it: "user"; a family word in its
    canonical form ("mom" -> "mother", "Da" -> "father"); a name whose relation this session or an
    earlier one gave ("my daughter Maya" -> "daughter"); else the name as `person_named` gives
    it ("Jonas"; "Osei" after "Mr Osei" -> "Mr Osei")."""
    if subject == "user":
        return subject
    word = family_word(subject)
    if word is not None:
        return word
    if subject.casefold() in ASSOCIATES:  # "my colleague Jonas": a non-relative's fact has his name
        names = [name for name, rel in context.relations.items() if rel == subject.casefold() and name != rel]
        return names[0] if len(names) == 1 else subject
    relation = relation_of(subject, context)
    return relation if relation is not None else person_named(subject, context)


def name_for(relation: str, context: Context) -> str | None:
    """The one name this session or an earlier one gave the relation ("my dad Seamus", then
    "Da has a chest infection" -> "Seamus"), or None (none given, or two: "my sons Ben and Leo")."""
    word = family_word(relation)
    if word is None:
        return None
    known = [*context.entities.items(), *((key, fields) for key, fields in context.prior.of_kind("relative"))]
    names = {str(fields["name"]) for key, fields in known if key.startswith("relative/") and fields.get("name")
             and isinstance(fields.get("relationship"), str) and family_word(str(fields["relationship"])) == word}
    return names.pop() if len(names) == 1 else None


def relation_of(name: str, context: Context) -> str | None:
    """The family word this session or an earlier one gave `name` ("my husband Mike"), or None."""
    key = f"relative/{name.casefold()}"
    stated = context.entities.get(key) or context.prior.entities.get(("relative", key)) or {}
    rel = stated.get("relationship") or context.relations.get(name)
    word = family_word(rel) if isinstance(rel, str) else None
    return word

"""Medications and allergies from a sentence, through the bundled drug table
(`factlog.reference.drugs`).

A medication is named by a drug or brand the table knows ("Coumadin", "amoxicillin 500");
its `name` is the generic ("warfarin"), `drug_class` the table's first class for it as
lower-case words ("anticoagulants", "ace inhibitors"). A sentence without a drug name that
gives a dose, a course ("for two weeks") or a prescriber ("Doctor Nguyen give it") updates
the session's last medication. Fields: `dose` ("400 mg three times a day", "one tablet
twice a day"), `start_date` (a date after a start cue, else the session's day for a new
prescription or course), `end_date` (start + course - 1 day), `status` (stopped for
"stopped", "quit", "no longer"; planned for "will start"; else current), `prescriber`
(the doctor or place of care the sentence or, for a new prescription, the session last
named), and whose it is: `subject` and `person` (see `factlog.typed.care`).

An allergy is "allergic to X", "X allergy", "allergy to X", or, once the session talks
about allergies, a user's sentence that starts with a drug or class name ("penicillin.
hives as a kid"). `allergen` is the generic name of a drug, the word said for a class
("penicillin") or for anything else ("cats"); `drug_class` the table's class; `severity`
the reactions named ("hives", "rash", "mild"). "not allergic to", "no allergy" state
nothing; after a correction ("No wait." then "Keflex.") the new allergen replaces the
session's last allergy (same entity). The assistant's words are never read here: they
restate what the user said.
"""

from __future__ import annotations

import re
from datetime import timedelta

from factlog.model import JsonValue
from factlog.recognizers import NUMBER_WORDS
from factlog.reference.drugs import class_id, drug_classes, drug_index, generic_names
from factlog.timeparse import parse_date
from factlog.typed.care import care_named, catch_up, person_of
from factlog.typed.common import CORRECTION, Cue, conversation_fields, dates_by_cue
from factlog.typed.drug_names import Found, drug_names
from factlog.typed.model import Context, TypedFact

MEDICATION = "medication"
ALLERGY = "allergy"


ALLERGY_CUE = re.compile(r"\ballerg(?:ic|y|ies)\b", re.I)
_NOT_ALLERGIC = re.compile(r"\b(?:not|n't|never been|no(?: known| other)?(?: drug)?)\s+(?:allergic|allerg(?:y|ies))\b",
                           re.I)
_ALLERGIC_TO = re.compile(r"\ballergic\s+to\s+(?:the\s+|a\s+|an\s+)?(?P<what>[A-Za-z][\w-]*(?:\s+[a-z][\w-]*)?)", re.I)
_ALLERGY_OF = re.compile(r"\b(?P<what>[A-Za-z][\w-]*)\s+allerg(?:y|ies)\b|\ballergy\s+to\s+(?P<to>[A-Za-z][\w-]*)",
                         re.I)
_REACTIONS = re.compile(
    r"\b(?:hives|rash|swelling|anaphylaxis|anaphylactic shock|itching|wheezing|throat (?:closing|swelling)|"
    r"blisters|vomiting|nausea)\b",
    re.I,
)
_FACIAL = re.compile(r"\bswelling of (?:the |my |her |his )?(?P<part>face|lips|tongue|throat)\b", re.I)
_PARTS = {"face": "facial", "lips": "lip", "tongue": "tongue", "throat": "throat"}
_MILD = re.compile(r"\b(?P<degree>mild|severe)(?:ly)?\b", re.I)
_NOT_ALLERGEN = frozenset(
    "it this that them something anything medicine medicines medication meds drugs the for my your his her our their "
    "any no other drug of these those some food seasonal".split())
_FOOD_WORDS = re.compile(r"\b(?:medicine|medication|meds|drugs?|antibiotics?)\b", re.I)

_UNITS = {"mg": "mg", "milligram": "mg", "milligrams": "mg", "mcg": "mcg", "microgram": "mcg", "micrograms": "mcg",
          "ml": "mL", "milliliter": "mL", "milliliters": "mL", "millilitre": "mL", "millilitres": "mL",
          "g": "g", "gram": "g", "grams": "g", "iu": "IU", "units": "units", "unit": "units"}
_COUNTS = {"one": "one", "1": "one", "two": "two", "2": "two", "three": "three", "3": "three", "four": "four",
           "4": "four", "half": "half", "a": "one"}
_FORMS = r"tablets?|pills?|capsules?|caps|puffs?|drops?|teaspoons?|tsp|tablespoons?|sprays?|patch(?:es)?"
_AMOUNT = re.compile(
    r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>mg|milligrams?|mcg|micrograms?|ml|milliliters?|millilitres?|"
    r"iu|units?|grams?|g)\b",
    re.I,
)
_FORM_AMOUNT = re.compile(rf"\b(?P<n>one|two|three|four|half|a|[1-4])\s+(?P<form>{_FORMS})\b", re.I)
_TIMES = {"once": "once", "1x": "once", "twice": "twice", "2x": "twice", "three times": "three times",
          "3x": "three times", "3 times": "three times", "four times": "four times", "4x": "four times",
          "4 times": "four times"}
_FREQUENCY = re.compile(
    r"\b(?P<times>once|twice|three times|four times|[1-4]\s*x|[1-4] times)\s+(?:(?:a|per|in|each)\s+)?"
    r"(?P<per>day|daily)\b|\b(?P<fixed>every (?:morning|evening|night|day|other day|\d+ hours)|daily|as needed|"
    r"at bedtime|nightly)\b",
    re.I,
)
_COURSE = re.compile(
    rf"\bfor\s+(?P<n>\d{{1,2}}|a|an|one|{'|'.join(NUMBER_WORDS)})\s+(?P<unit>days?|weeks?|wks?)\b|"
    rf"(?<!\bin )(?<!\bevery )\b(?P<n2>\d{{1,2}}|{'|'.join(NUMBER_WORDS)})\s+(?P<unit2>days?|weeks?|wks?)\b(?!\s+ago)",
    re.I,
)
_FOLLOW_COURSE = re.compile(r"^\W*(?:and\s+)?for\s+\w+\s+(?:days?|weeks?)\b", re.I)
_STOPPED = re.compile(r"\b(?:stopped|quit|discontinued|no longer (?:on|taking)|came off|went off|finished)\b", re.I)
_PLANNED = re.compile(r"\b(?:will start|going to start|to be started|start(?:ing)? next|should start|might start)\b",
                      re.I)
_PRESCRIBED = re.compile(
    r"\b(?:prescrib\w*|said (?:to )?take|told (?:me|him|her) to take|gave (?:me|him|her)|give it|gave it|"
    r"started (?:me |him |her )?on|put (?:me|him|her) on|been started on|took)\b",
    re.I,
)
_START = Cue("start", re.compile(r"\b(?:start\w*|since|began|begun|from)\b", re.I))
_TODAY = re.compile(r"\b(?:today|this morning|tonight|first dose)\b", re.I)
_FOLLOW_UP_DOSE = re.compile(r"^\W*(?:(?:no|sorry|actually|wait|it's|its|it is|that's)\b[\s,.]*)*"
                             r"(?:\d|one|two|three|half|a\b)", re.I)


def _class_words(class_ids: tuple[str, ...]) -> str | None:
    return class_ids[0].replace("_", " ") if class_ids else None


def _mentions(sentence: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each drug, brand or class name in the sentence."""
    return [(m.start(), m.end(), m.group(0)) for m in drug_names().finditer(sentence)]


def read_medications(sentence: str, context: Context) -> list[TypedFact]:
    if context.speaker != "user":
        return []
    catch_up(context, drug_names())
    care = care_named(sentence)
    facts: list[TypedFact] = []
    if ALLERGY_CUE.search(sentence) or _is_allergy_answer(sentence, context):
        return []
    drugs = [(start, end, text, generic_names(text)) for start, end, text in _mentions(sentence)]
    drugs = [item for item in drugs if item[3]]
    previous = context.last.get(MEDICATION)
    if not drugs:
        if previous is not None:
            update = _follow_up(sentence, context, previous, care)
            if update is not None:
                facts.append(update)
        return facts
    by_generic: dict[str, tuple[int, int, str]] = {}
    for start, end, text, generics in drugs:
        key = "/".join(generics)
        if key not in by_generic:
            by_generic[key] = (start, end, text)
    starts = sorted(start for start, _, _ in by_generic.values())
    subject, person = person_of(sentence, context, drug_names())
    for name, (start, end, text) in by_generic.items():
        if previous is not None and previous.fields.get("name") == name and not _AMOUNT.search(sentence) \
                and not _FREQUENCY.search(sentence) and not _is_new(sentence) and not _STOPPED.search(sentence):
            continue  # "the bottle says cefdinir": the drug just named, nothing new
        following = [s for s in starts if s > start]
        part = sentence[end:following[0]] if following else sentence[end:]
        fields: dict[str, JsonValue] = {"name": name}
        drug_class = _class_words(drug_classes(text))
        if drug_class is not None:
            fields["drug_class"] = drug_class
        dose = _dose(part)
        if dose is not None:
            fields["dose"] = dose
        fields.update(_dates_and_status(sentence, context, part))
        prescriber = care if care is not None else context.care if _is_new(sentence) else None
        if prescriber is not None:
            fields["prescriber"] = prescriber
        if person is not None:
            fields["person"] = person
        key = name if subject == "user" else f"{subject.casefold()}/{name}"
        facts.append(TypedFact(MEDICATION, key, conversation_fields(context, subject, fields)))
    return facts


def _is_new(sentence: str) -> bool:
    return bool(_PRESCRIBED.search(sentence) or _COURSE.search(sentence) or _TODAY.search(sentence))


def _dose(text: str) -> str | None:
    """ "400 mg three times a day" from the words after a drug name ("advil 400 3x a day")."""
    amount = _AMOUNT.search(text)
    words: str | None = None
    if amount is not None:
        words = f"{amount.group('n')} {_UNITS[amount.group('unit').lower()]}"
    else:
        form = _FORM_AMOUNT.search(text)
        if form is not None:
            count = _COUNTS[form.group("n").lower()]
            noun = form.group("form").lower()
            noun = noun if count != "one" else noun.rstrip("s") if not noun.endswith("ches") else noun[:-2]
            words = f"{count} {noun}"
        else:
            bare = re.match(r"^[\s,]*(?P<n>\d{2,4})\b(?!\s*(?:days?|weeks?|x\b|times))", text)
            if bare is not None:
                words = f"{bare.group('n')} mg"
    frequency = _FREQUENCY.search(text)
    if frequency is not None:
        if frequency.group("times"):
            times = _TIMES.get(re.sub(r"\s+", "", frequency.group("times").lower()).replace("times", " times"),
                               _TIMES.get(frequency.group("times").lower(), frequency.group("times").lower()))
            per = "daily" if frequency.group("per").lower() == "daily" else "a day"
            how = f"{times} {per}"
        else:
            how = frequency.group("fixed").lower()
        words = f"{words} {how}" if words else None
    return words


def _course_days(text: str) -> int | None:
    match = _COURSE.search(text)
    if match is None:
        return None
    raw = (match.group("n") or match.group("n2")).lower()
    n = int(raw) if raw.isdigit() else 1 if raw in ("a", "an", "one") else NUMBER_WORDS[raw]
    return n * 7 if (match.group("unit") or match.group("unit2")).lower().startswith("w") else n


def _dates_and_status(sentence: str, context: Context, part: str) -> dict[str, JsonValue]:
    fields: dict[str, JsonValue] = {}
    found = dates_by_cue(sentence, context, (_START,))
    start: str | None = None
    if found.get("start"):
        start = found["start"][0]
    elif context.timestamp is not None and _is_new(sentence):
        start = context.timestamp.date().isoformat()
    if start is not None:
        fields["start_date"] = start
    days = _course_days(sentence)
    if days is not None and start is not None:
        fields["end_date"] = (parse_date(start) + timedelta(days=days - 1)).isoformat()
    if _STOPPED.search(sentence):
        fields["status"] = "stopped"
    elif _PLANNED.search(sentence):
        fields["status"] = "planned"
    else:
        fields["status"] = "current"
    return fields


def _follow_up(sentence: str, context: Context, previous: TypedFact, care: str | None) -> TypedFact | None:
    """The session's last medication with what a sentence naming no drug adds: a dose
    ("It's 5 milligrams twice a day for now."), a course ("For two weeks.") or a prescriber."""
    added: dict[str, JsonValue] = {}
    if _FOLLOW_UP_DOSE.search(sentence) and not re.search(r"\b(?:for later|later)\b", sentence, re.I):
        dose = _dose(sentence)
        if dose is not None:
            added["dose"] = dose
    days = _course_days(sentence) if _FOLLOW_COURSE.match(sentence) else None
    if days is not None:
        start = previous.fields.get("start_date")
        if not isinstance(start, str) and context.timestamp is not None:
            start = context.timestamp.date().isoformat()
            added["start_date"] = start
        if isinstance(start, str):
            added["end_date"] = (parse_date(start) + timedelta(days=days - 1)).isoformat()
    if care is not None and re.search(r"\b(?:give|gave|prescribed|prescribes)\s+(?:it|them|this|that)\b",
                                      sentence, re.I):
        added["prescriber"] = care
    if not added:
        return None
    fields = {**previous.fields, **added, "speaker": context.speaker}
    return TypedFact(MEDICATION, previous.key, fields)


def _is_allergy_answer(sentence: str, context: Context) -> bool:
    """A sentence that starts with a drug or class name while the session asks about allergies."""
    if ALLERGY not in context.last:
        return False
    first = _answer_name(sentence)
    if first is None:
        return False
    rest = sentence[first.end():]
    return bool(re.match(r"^\s*(?:[.,;!]|$)", rest)) and not _PRESCRIBED.search(sentence) and \
        not _AMOUNT.search(sentence) and not _FREQUENCY.search(sentence)


_LEAD = re.compile(r"^\W*(?:(?:definitely|actually|no|sorry|oh|it's|its|it is|it was|i mean)\b[\s,]*)*", re.I)


def _answer_name(sentence: str) -> Found | None:
    """The drug or class name a sentence starts with, after "Definitely", "No," ..."""
    lead = _LEAD.match(sentence)
    return drug_names().match(sentence, lead.end() if lead is not None else 0)


_ALLERGY_CLAUSES = re.compile(r",?\s+(?:and|but)\s+(?=(?:my|our|his|her|their|I|I'm)\b)|;\s*", re.I)


def read_allergies(sentence: str, context: Context) -> list[TypedFact]:
    if context.speaker != "user":
        return []
    clauses = _ALLERGY_CLAUSES.split(sentence)
    if len(clauses) > 1 and sum(1 for c in clauses if ALLERGY_CUE.search(c)) > 1:  # one allergy a clause:
        return [fact for clause in clauses for fact in _read_allergy(clause, context)]  # each its own subject
    return _read_allergy(sentence, context)


def _read_allergy(sentence: str, context: Context) -> list[TypedFact]:
    catch_up(context, drug_names())
    previous_sentence = context.said[-2] if len(context.said) > 1 else ""
    last = context.last.get(ALLERGY)
    if not ALLERGY_CUE.search(sentence):
        if not _is_allergy_answer(sentence, context):
            return _allergy_follow_up(sentence, context)
        first = _answer_name(sentence)
        assert first is not None
        corrected = last is not None and (CORRECTION.search(previous_sentence) is not None
                                          or CORRECTION.search(sentence) is not None)
        return [_allergy(sentence, context, first.group(0), last if corrected else None)]
    if _NOT_ALLERGIC.search(sentence):
        return []
    match = _ALLERGIC_TO.search(sentence)
    what: str | None = None
    if match is not None:
        what = match.group("what")
    else:
        of = _ALLERGY_OF.search(sentence)
        if of is not None:
            what = of.group("what") or of.group("to")
            if re.search(rf"\b(?:the|her|his|their|your)\s+{re.escape(what)}\s+allerg", sentence, re.I):
                return []  # "aware of the penicillin allergy": one already stated
    if what is not None and what.split()[0].casefold() in _NOT_ALLERGEN:
        what = None
    if what is None:  # the session talks about allergies: what a later "penicillin." answers
        context.last.setdefault(ALLERGY, TypedFact(ALLERGY, None, {}))
        return []
    named = drug_names().search(what)
    if named is not None:
        allergen = named.group(0)
    else:
        words = [w for w in what.split() if w.casefold() not in _NOT_ALLERGEN]
        if not words or _FOOD_WORDS.search(what) and drug_names().search(sentence) is None:
            named = drug_names().search(sentence)
            if named is None:
                context.last.setdefault(ALLERGY, TypedFact(ALLERGY, None, {}))
                return []
            allergen = named.group(0)
        else:
            allergen = words[0]
    if named is None and drug_names().search(sentence) is not None and _FOOD_WORDS.search(what):
        allergen = drug_names().search(sentence).group(0)  # type: ignore[union-attr]
    return [_allergy(sentence, context, allergen, None)]


def _severity(sentence: str) -> str | None:
    """The reactions a sentence names ("hives and facial swelling"), or how bad ("mild")."""
    text = _FACIAL.sub(lambda m: f"{_PARTS[m.group('part').lower()]} swelling", sentence)
    reactions = [" ".join(m.group(0).lower().split()) for m in re.finditer(
        rf"\b(?:(?:facial|lip|tongue|throat) )?(?:{_REACTIONS.pattern[2:-2]})\b", text, re.I)]
    degree = _MILD.search(sentence)
    if reactions:
        severity = " and ".join(dict.fromkeys(reactions))
        return f"{degree.group('degree').lower()} {severity}" if degree else severity
    return degree.group("degree").lower() if degree is not None else None


def _allergy_follow_up(sentence: str, context: Context) -> list[TypedFact]:
    """The session's last allergy with the reaction a sentence naming no allergen gives
    ("The reaction in 2009 was hives and swelling of the face.")."""
    last = context.last.get(ALLERGY)
    if last is None or last.key is None or "severity" in last.fields or drug_names().search(sentence):
        return []
    if not re.search(r"\b(?:reaction|reacted|broke out|got|gave (?:me|her|him))\b", sentence, re.I):
        return []
    severity = _severity(sentence)
    if severity is None:
        return []
    return [TypedFact(ALLERGY, last.key, {**last.fields, "severity": severity, "speaker": context.speaker})]


def _allergy(sentence: str, context: Context, allergen: str, replaces: TypedFact | None) -> TypedFact:
    generics = generic_names(allergen)
    named_class = class_id(allergen) if allergen.casefold() != "sulfa" else "sulfonamides"
    fields: dict[str, JsonValue] = {"allergen": "/".join(generics) if generics and named_class is None
                                    else allergen.lower()}
    classes = (named_class,) if named_class is not None else drug_classes(allergen)
    index = drug_index()
    if named_class is None:
        classes = tuple(c for c in classes if index.classes[c].allergy_group) or classes
    if classes:
        fields["drug_class"] = classes[0].replace("_", " ")
    severity = _severity(sentence)
    if severity is not None:
        fields["severity"] = severity
    subject, person = person_of(sentence, context, drug_names())
    if person is not None:
        fields["person"] = person
    key = str(fields["allergen"]) if subject == "user" else f"{subject.casefold()}/{fields['allergen']}"
    last = context.last.get(ALLERGY)
    if replaces is not None and replaces.key is not None:
        key = replaces.key
    elif last is not None and last.key is not None and last.fields.get("allergen") == fields["allergen"]:
        key = last.key  # "Definitely Keflex, I broke out in hives": the allergy just named
        fields = {**{k: v for k, v in last.fields.items() if k not in ("subject", "speaker")}, **fields}
    return TypedFact(ALLERGY, key, conversation_fields(context, subject, fields))


# a sentence without one of these states no medication or allergy
TRIGGERS = (ALLERGY_CUE, _AMOUNT, _FREQUENCY, _PRESCRIBED, _FOLLOW_COURSE, _REACTIONS)


def names_a_drug(sentence: str) -> bool:
    """The sentence names a drug, brand or class the table knows (the other trigger)."""
    return bool(drug_names().finditer(sentence))

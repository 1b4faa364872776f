"""Who gives care and whom a health or schedule sentence is about, shared by the
medication, allergy and event readers.

- `care_named(sentence)`: the clinician or place of care a sentence names, the last one
  when several ("Dr. Osei's office was closed, so we went to the urgent care" -> "urgent
  care"); a named doctor wins over a bare specialty in the same phrase ("my urologist,
  Dr. Kim" -> "Dr. Kim").
- `person_of(sentence, context)`: whose the thing is, as (subject, person): ("user", None)
  for the user's own; ("husband", "Mike") for "my husband Mike"; ("Lily", "Lily") for a
  named person whose relation the session never gave. A sentence in the first person is
  the user's; one in the third person without a name is about the session's `focus` (the
  person other than the user it last named as the one something happens to), else the user's.
- `person_for(sentence, context)`: whose a thing got "for my son" or "for Emma" is, or None.
- `remember_people(sentence, context)` updates `focus` and the names' relations ("my husband
  Mike", "My mom moved in", "Mom has a UTI", "Noah's pediatrician").
"""

from __future__ import annotations

import re

from factlog.relations import BARE, family_word
from factlog.relations import pattern as relation_pattern
from factlog.typed.common import RELATIONS, name_for, relation_of
from factlog.typed.drug_names import DrugNames
from factlog.typed.model import Context
from factlog.typed.places import place_name

# a clinician's or carer's charge is another person too ("my patient is on warfarin")
_RELATION = "|".join(sorted(map(re.escape, (*RELATIONS, "patient", "client", "resident", "neighbour", "neighbor",
                                                      "flatmate",
                                                      "housemate")), key=len, reverse=True))
# a word after a doctor's name that is no surname ("Dr. Kim Monday", "Dr. Lee The")
_NOT_SURNAME = (r"(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|"
                r"June|July|August|September|October|November|December|The|This|That|I|He|She|It|We|They|Said|Says|"
                r"Gave|Put|Wants|Is|Was|Has|And|But|So|Then|Today|Tomorrow|Yesterday|Clinic|Hospital|Office|"
                r"Surgery|Practice|Dental|Medical|Health|Centre|Center)\b)")
_DOCTOR = re.compile(r"\b(?:Dr\.?|Doctor|doctor)\s+(?P<name>(?:[A-Z]\.\s*){0,2}[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
                     rf"(?:[ \t]+{_NOT_SURNAME}[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b)?)\b|"
                     r"\b(?:[Dd]r\.|doctor)\s+(?P<lower>[a-z]{3,})(?:[ \t]+(?P<lower2>[a-z]{3,}))?\b|"
                     # a label or letter head in capitals, or a name signed "MD": "DR. PRIYA VENKATARAMAN",
                     # "Prescriber: MARCUS OYELARAN MD", "From: Farah Haddad, MD"
                     r"\b(?-i:DR|Dr)\.?\s+(?P<caps>[A-Z]{2,}(?:[ \t]+[A-Z]{2,})?)\b(?![ \t]*[a-z])|"
                     r"(?P<md>\b[A-Z][A-Za-z'-]+[ \t]+[A-Z][A-Za-z'-]+),?[ \t]+M\.?D\b\.?")  # "dr. castellano" typed
DOCTOR = _DOCTOR  # a doctor named in a sentence (`name`, or `lower` when typed lower-case)
# what follows a lower-case "doctor" that is no name ("the doctor said", "doctor visit")
_NOT_DOCTOR_NAMES = frozenset(
    "said says say told tells gave give gives put puts prescribed prescribes wants wanted thinks thought is was "
    "has had will would can could should did does and but or at in on for about with from to the a an my his "
    "her their our office visit appointment note notes orders ordered recommended suggested switched started "
    "stopped increased decreased upped changed called sent wrote writes took takes checked who which that "
    "again also just only then today tomorrow yesterday there here was were very really now first last next new "
    "old nice young said wants thinks didn't doesn't isn't wasn't won't can't says".split())
_PLACES = re.compile(
    r"\b(?P<care>urgent care|walk-in clinic|(?:(?:student|sexual|mental|women's|community|family|travel|eye|skin|"
    r"sleep|pain|allergy|asthma|diabetes|fertility|health|anticoagula(?:tion|nt)|warfarin|INR|heart|kidney|cancer|[a-z]+olog(?:y|ical)|dental|medical)\s+){0,2}clinic|"
    r"polyclinic|oral surgeon|nurse practitioner|emergency room|(?<=the )ER(?=\b)|(?<=to )ER(?=\b)|hospital|"
    r"family (?:doctor|doc|physician)|"
    # a department acting as the prescriber: "cardiology is starting me on apixaban"
    r"(?i:cardiology|ha?ematology|dermatology|neurology|oncology|rheumatology|psychiatry|urology|endocrinology|"
    r"gastroenterology|orthopa?edics)(?=\s+(?:is|are|has|have|had|put|started|starting|prescribed|gave|changed|"
    r"switched|upped|added|want|wants|said|says)\b)|"
    r"pharmacist|"
    r"(?i:ortho(?:pedist|paedist)|pediatrician|paediatrician|dentist|cardiologist|urologist|dermatologist|"
    r"hematologist|haematologist|neurologist|psychiatrist|gynecologist|oncologist|rheumatologist|"
    r"allergist|endocrinologist|gastroenterologist|nurse practitioner|physician|optometrist|"
    r"ophthalmologist|podiatrist|therapist|surgeon|vet|veterinarian|GP))\b"
)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|mine|myself)\b|^\W*(?:i|im|ive)\b")
# "my wife", and the spouse said with "the" as many do ("the missus is on Celebrex", "the hubby")
_POSSESSOR = r"(?:my|our|mi|the(?=\s+(?:missus|missis|wife|hubby|husband|other half)\b))"  # "mi esposo Carlos"
# a name typed in lower case is read when an age follows it: "my son leo (6)"
_MY_RELATION = re.compile(rf"\b{_POSSESSOR}\s+(?P<rel>{_RELATION})\b(?:,?\s+\(?(?P<name>(?-i:[A-Z][a-z]+))\b|"
                          r"\s+(?P<lower>(?-i:[a-z]{2,}))(?=\s*\(\s*\d{1,2}\s*\)))?", re.I)
# a title before a surname makes one name with it ("Mr Osei", "Mrs. Chen"): an assistant or carer
# speaking of an employer or a client names them so
_TITLE = r"(?:(?-i:Mr|Mrs|Ms|Miss|Mx)\.?\s+(?=[A-Z]))?"
# a name doing something, or something done for or to a name: who the sentence is about
_NAME_SUBJECT = re.compile(
    rf"(?:^|[.;,:]\s+|\b(?:and|so|but|then|said|says|that)\s+)(?P<name>{_TITLE}[A-Za-z][a-z]+"
    r"(?:\s+(?-i:[A-Z][a-z]+)(?=,\s+(?:is|was|has|had)\b))?)"  # "His wife, Mrs Abena Osei, was put on"
    r"(?=(?:\s*\([^)]*\))?"
    r"(?:,\s+(?:my|our|his|her|the)\s+[a-z]+(?:[\s-][a-z]+)?,)?"  # "Mrs Patel, my neighbour, takes"
    r"(?:(?:'s|’s)\s+on\b|(?:'s|’s)?,?\s+(?:is|was|"
    r"has|had|started|starts|takes|took|woke|got|gets|needs|will|can|just|also|came|went|says|said|had|broke|"
    r"reacted|began|stopped|finished|tested|picked|does|doesn't|did|didn't|isn't|hasn't|won't|quit|"
    r"can't|cannot|breaks|comes|saw|sees|visited|swears)\b))"
)
# the relation itself doing something: "My mom moved in", "Mom has a UTI", "Da has a chest infection"
_BARE = relation_pattern(word.capitalize() for word in BARE)  # said as a name (`factlog.relations`)
_RELATION_DOES = re.compile(
    rf"(?:\b{_POSSESSOR}\s+(?P<rel>{_RELATION})|(?:^|[.;,]\s+|\b(?:and|so|but)\s+)(?P<bare>(?-i:{_BARE})))"
    r"(?:'s|’s|\s+(?:is|was|has|had|moved|takes|took|started|needs|got|gets|woke|came|went|says|said|will|just|also|"
    r"broke|reacted|began|stopped|finished|can|cannot|can't))\b",
    re.I,
)
# a named person's thing: "Noah's pediatrician", "Lily's dose"
_NAME_OWNS = re.compile(
    rf"\b(?P<name>{_TITLE}(?-i:[A-Z][a-z]+))(?:'s|’s)\s+(?:\w+\s+)?(?:pediatrician|paediatrician|doctor|dentist|GP|cardiologist|"
    r"psychiatrist|specialist|carer|nurse|meds|"
    r"medications?|medicines?|prescriptions?|pills?|dose|allerg\w+|inhaler|health|chart|antibiotics?|ear|throat|"
    r"fever|infection|checkup|check-up|strep|asthma|rash|cough|surgery|skin|eczema)\b", re.I)
_NAME_POSSESSIVE = re.compile(rf"\b(?P<name>{_TITLE}[A-Z][a-z]+)(?:'s|’s)\s+")
_RELATION_POSSESSIVE = re.compile(rf"\b(?P<rel>{_RELATION})(?:'s|’s)\s+(?:(?:daily|usual|new|regular|old)\s+)?", re.I)
_HEALTH_VERB = re.compile(r"\s+(?:started|starts|takes|took|is on|was prescribed|got prescribed)\b")
# a name the user calls "my" without the relation ("My Harold has been on warfarin"): a person only when the
# conversation gave the name a relation ("Harold and I have been married fifty years")
_MY_NAME = re.compile(r"\b(?-i:[Mm]y|[Oo]ur)\s+(?P<name>(?-i:[A-Z][a-z]+))\b(?!['’]s)")
# a list line headed by whose it is: "- Kwame (husband): apixaban 5 mg", "Efua: nothing regular", "- me: metformin"
_LINE_OWNER = re.compile(r"^\W*(?P<name>(?-i:[A-Z][a-z]+)|me|myself|mine)(?:\s*\([^)]*\))?\s*(?::|\s[–—-])\s", re.I)
# someone the user looks after, named: "keeping an eye on old Tom Bell next door", "I look after Mrs Reid"
_CARES_FOR = re.compile(r"\b(?:keep(?:ing)?\s+an\s+eye\s+on|look(?:ing|s)?\s+after|car(?:e|ing)\s+for|"
                        r"check(?:ing)?\s+(?:in\s+)?on|do(?:ing)?\s+the\s+(?:shopping|meds)\s+for|help(?:ing)?\s+out)\s+"
                        r"(?:(?:old|young|poor|our|my|the)\s+)*(?:(?:neighbou?r|friend|client|patient)\s+)?"
                        rf"(?P<name>{_TITLE}(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?)\b", re.I)
# the user doing an activity for a relative ("I coach my stepson's under-9s", "I run Maya's scout troop"): the user's
_I_LEAD = re.compile(r"^\W*(?:(?-i:I)(?:['’]ve|['’]m|['’]ll|\s+am|\s+have|\s+will)?\s+(?:\w+\s+){0,6}?)"
                     r"(?:coach|coaching|referee|refereeing|umpire|volunteer|volunteering|teach|teaching|run|running|"
                     r"lead|leading|drive|driving)\b", re.I)
_CAPS = re.compile(r"\b[A-Z]{3,}\b")
_FOR_NAME = re.compile(rf"\b(?:for|forms? for|to)\s+(?P<name>{_TITLE}[A-Z][a-z]+)\b(?!\s+(?:Ave|St|Street|Road))")
_NOT_NAMES = frozenset(
    "i me myself mine it that there what this these those he she they we you who which today tomorrow yesterday "
    "everyone nobody someone one ok okay also and but so then well yes no ya yeah um uh oh ugh the a an my our his her "
    "their doctor dr mom dad january february march april may june july august september october november "
    "december monday tuesday wednesday thursday friday saturday sunday god lunch dinner camp kindly please thanks "
    "thank just still really honestly definitely actually ugh let here where how pharmacist nurse doc "
    "eh ah aiyo aiyah wah lah leh hey hi hello gidday oi".split()  # interjections: "Eh can help me remember"
)


def _canon(word: str) -> str:
    """A relation word as the family word ("Mum" -> "mother"), else lower case ("boss")."""
    return family_word(word) or word.lower()


def care_named(sentence: str) -> str | None:
    """The clinician or place of care the sentence names last (a named doctor first)."""
    # a texted or dictated sentence writes names lower-case
    typed_lower = re.search(r"[A-Z]", re.sub(r"\bI\b", "", sentence[1:])) is None
    found: list[tuple[int, str]] = [(m.start(), f"Dr. {_doctor_name(m)}") for m in _DOCTOR.finditer(sentence)
                                    if _doctor_name(m) and (m.group("name") or m.group("caps") or m.group("md")
                                                            or typed_lower)]
    doctors = [start for start, _ in found]
    for match in _PLACES.finditer(sentence):
        if not any(abs(match.start() - start) < 20 for start in doctors):
            said = match.group("care")
            said = said if said.isupper() else said.lower()  # "Dentist's pulled the tooth" -> "dentist"
            found.append((match.start(), _CARE_WORDS.get(said, said)))
    return max(found)[1] if found else None


_CARE_WORDS = {"family doc": "family doctor", "gp": "GP", "er": "ER"}


def _doctor_name(found: re.Match[str]) -> str | None:
    """The doctor's name as written, capitalised ("dr. castellano" -> "Castellano"); None for
    a word after a lower-case "doctor" that is no name ("the doctor said"). Lower-case names
    are read only from sentences with no capital letter after the first."""
    if found.group("name"):
        return found.group("name")
    if found.group("caps") or found.group("md"):
        said = found.group("caps") or found.group("md")
        return " ".join(w.capitalize() if w.isupper() else w for w in said.split())
    word = found.group("lower")
    if word in _NOT_DOCTOR_NAMES:
        return None
    second = found.group("lower2")  # "Dr. rosa delgado", a label's capitals lowered (`factlog.spoken`)
    return word.capitalize() if not second or second in _NOT_DOCTOR_NAMES or second in _NOT_NAMES \
        else f"{word.capitalize()} {second.capitalize()}"


def given_name(word: str, drugs: DrugNames | None = None) -> str | None:
    """`word` as a person's name (capitalised), or None for a common word, a relation, a
    place or (given `drugs`) a drug."""
    return _name(word, drugs)


def _name(word: str, drugs: DrugNames | None = None) -> str | None:
    if word.casefold() in _NOT_NAMES or word.casefold() in RELATIONS or place_name(word) is not None \
            or re.fullmatch(r"[a-z]+(?:ology|iatry|paedics|pedics)", word.casefold()) \
            or re.fullmatch(r"[a-z]{3,}(?:ness|tion|sion|ment|ism)", word.casefold()) \
            or _PLACES.fullmatch(word.lower()) or _PLACES.fullmatch(word):
        return None
    if drugs is not None and drugs.fullmatch(word):
        return None
    return word[0].upper() + word[1:]


def remember_people(sentence: str, context: Context, drugs: DrugNames | None = None) -> None:
    """Note the relations "my husband Mike" gives and the person the sentence is about."""
    cared = _CARES_FOR.search(sentence)
    if cared is not None and _name(cared.group("name").split()[0], drugs) is not None and \
            not re.match(r"\.?\s*(?:(?-i:[A-Z])[a-z]+)?['’]s\b", sentence[cared.end():]) and \
            cared.group("name").rstrip(".") not in ("Mr", "Mrs", "Ms", "Miss", "Mx"):
        context.focus = cared.group("name")  # "keeping an eye on old Tom Bell": the one the next lines are about
        context.relations.setdefault(cared.group("name"), cared.group("name"))
        return
    for caps in _CAPS.finditer(sentence):  # "Prescription for HAROLD WHITFIELD": a known name in capitals
        said = caps.group(0).capitalize()
        if said in context.relations or relation_of(said, context) is not None:
            context.relations.setdefault(said, relation_of(said, context) or context.relations[said])
            context.focus = said
            return
    for match in _MY_RELATION.finditer(sentence):  # "My husband threw his back out": whoever was named last
        rel = _canon(match.group("rel"))
        if not match.group("name") and not match.group("lower") and not _GOVERNED.search(sentence, 0, match.start()):
            context.focus = next((n for n, r in context.relations.items() if r == rel), None) or \
                name_for(rel, context) or rel
            context.relations.setdefault(context.focus, rel)
    for kids in _THE_KIDS.finditer(sentence):
        context.focus = context.relations.setdefault(kids.group("kids").lower(), kids.group("kids").lower())
    for match in _MY_RELATION.finditer(sentence):
        said = match.group("name") or match.group("lower")
        if said and (name := _name(said, drugs)) is not None:
            context.relations[name] = _canon(match.group("rel"))
            context.focus = name
    for does in _RELATION_DOES.finditer(sentence):
        if not does.group("rel") or not _MY_RELATION.search(sentence[does.start():does.end()]) \
                or not re.match(r"\s+(?-i:[A-Z])", sentence[does.end("rel"):]):
            rel = _canon(does.group("rel") or does.group("bare"))
            named = name_for(rel, context)
            if named is not None:
                context.relations.setdefault(named, rel)
            if rel not in context.relations.values():
                context.relations[rel] = rel
            context.focus = next((n for n, r in context.relations.items() if r == rel), rel)
    for name, rel in _earlier_relatives(context):  # "ugh leo has an ear infection" after "my son leo (6)"
        if re.search(rf"\b{re.escape(name)}(?:'s|’s|\s+(?:is|was|has|had|got|gets|needs|started|takes|took|woke|"
                     rf"came|went|broke|reacted))\b", sentence, re.I):
            context.relations.setdefault(name, rel)
            context.focus = name
    for match in (*_NAME_SUBJECT.finditer(sentence), *_FOR_NAME.finditer(sentence), *_NAME_OWNS.finditer(sentence)):
        if _DOCTOR.search(sentence[max(0, match.start("name") - 8):match.end()]):
            continue
        name = _name(match.group("name"), drugs)
        if name is not None and (match.group("name")[0].isupper() or name in context.relations):
            context.focus = name
            return


def _earlier_relatives(context: Context) -> list[tuple[str, str]]:
    """(name, family word) of each relative an earlier session named."""
    out = []
    for _, fields in context.prior.of_kind("relative"):
        name, rel = fields.get("name"), fields.get("relationship")
        if isinstance(name, str) and isinstance(rel, str) and re.fullmatch(r"[A-Z][a-z]+", name):
            out.append((name, _canon(rel)))
    return out


def catch_up(context: Context, drugs: DrugNames | None = None) -> None:
    """Bring `care`, `focus` and `relations` up to date with every sentence said so far."""
    for sentence in context.said[context.heard:]:
        remember_people(sentence, context, drugs)
        care = care_named(sentence)
        if care is not None:
            context.care = care
    context.heard = len(context.said)


def person_of(sentence: str, context: Context, drugs: DrugNames | None = None) -> tuple[str, str | None]:
    """(subject, person) of a health or schedule sentence: ("user", None) for the user's own,
    also when the user does it with someone ("My husband Sipho and I started ballroom")."""
    if _TOGETHER.search(sentence) or _I_LEAD.match(sentence):
        return "user", None
    line = _LINE_OWNER.match(sentence)
    if line is not None:
        said = line.group("name")
        if said.casefold() in ("me", "myself", "mine"):
            return "user", None
        name = _name(said, drugs)
        rel = relation_of(name, context) or context.relations.get(name) if name is not None else None
        if name is not None and rel is not None:
            return rel, name
    for my in _MY_NAME.finditer(sentence):
        name = _name(my.group("name"), drugs)
        rel = (relation_of(name, context) or context.relations.get(name)) if name is not None else None
        if name is not None and rel is not None:
            return rel, name
    mine = _MY_RELATION.search(sentence)
    if mine is not None and re.search(rf"\b{_POSSESSOR}\s+{re.escape(mine.group('rel'))}(?:'s|’s|\s+(?:is|was|has|had|"
                                      rf"started|starts|stopped|stops|takes|took|needs|got|gets|will|just|also|began|begins|uses)\b|,?\s+\(?(?-i:[A-Z][a-z]+)\b)",
                                      sentence, re.I) or mine is not None and mine.group("lower"):
        rel = _canon(mine.group("rel"))
        said = mine.group("name") or mine.group("lower")
        name = said and _name(said, drugs)
        if name is None:
            name = next((n for n, r in context.relations.items() if r == rel), None) or name_for(rel, context)
        return rel, name or rel
    for named in _NAME_SUBJECT.finditer(sentence):
        if _DOCTOR.search(sentence[max(0, named.start("name") - 8):named.end()]):
            continue
        name = _name(named.group("name"), drugs)
        if name is not None and (named.group("name")[0].isupper() or name in context.relations
                                 or _HEALTH_VERB.match(sentence, named.end("name"))
                                 and not _FIRST_PERSON.search(sentence)):
            return context.relations.get(name, name), name
    if drugs is not None:  # "Remind me to pick up Mom's warfarin"
        for owner in _RELATION_POSSESSIVE.finditer(sentence):
            if drugs.match(sentence, owner.end()):
                word = _canon(owner.group("rel"))
                return word, next((n for n, r in context.relations.items() if r == word), word)
    owned = [*_NAME_OWNS.finditer(sentence)]
    if drugs is not None:  # "Lily's Augmentin"
        owned += [m for m in _NAME_POSSESSIVE.finditer(sentence) if drugs.match(sentence, m.end())]
    for owns in owned:
        if _DOCTOR.search(sentence[max(0, owns.start() - 8):owns.end()]):
            continue
        name = _name(owns.group("name"), drugs)
        if name is not None and not _FIRST_PERSON.search(sentence[:owns.start()]):
            return context.relations.get(name, name), name
    kids = _THE_KIDS.search(sentence)
    if kids is not None:
        return kids.group("kids").lower(), kids.group("kids").lower()
    focus = context.focus
    if focus is None and third_person_taker(sentence):  # "took him to urgent care ... put him on Bactrim": the
        focus = _earlier_focus(context)  # person an earlier session's health facts were about
    if focus is None or (_FIRST_PERSON.search(sentence) and not _THIRD_GIVEN.search(sentence)) or \
            context.speaker == "assistant" and _YOU.search(sentence):  # "Noted for you: ibuprofen ...": the user's
        return "user", None
    return context.relations.get(focus, relation_of(focus, context) or focus), focus


def _earlier_focus(context: Context) -> str | None:
    """The person (not the user) an earlier session's last medication, allergy or appointment was about."""
    for kind in ("medication", "allergy", "appointment", "event"):
        for _, fields in reversed(context.prior.of_kind(kind)):
            person = fields.get("person")
            if isinstance(person, str) and person and fields.get("subject") not in (None, "user"):
                return person
            break
    return None


# the user and someone together: "my husband and I", "Sipho and I", "I and my son", "we both"
_TOGETHER = re.compile(r"\b(?:and|&)\s+(?-i:I)\b(?!['’])|\b(?-i:I)\s+and\s+(?:my|our)\b|"
                       r"\b(?:me|myself)\s+and\s+(?:my|our)\b|\bwe\s+(?:both|all)\b|\bboth of us\b", re.I)
_YOU = re.compile(rf"\b(?:you|yourself)\b|\byour\b(?!\s+(?:{_RELATION})\b)", re.I)  # not "your dad"
# "with my husband", "to my mom": someone beside the one the sentence is about
_GOVERNED = re.compile(r"\b(?:with|to|from|by|and|than|like|asked|told|called|texted)\s+$", re.I)
# children spoken of together: "the kids are both on amoxicillin"
_THE_KIDS = re.compile(r"\b(?:the|both|both of the|both of my|my)\s+(?P<kids>kids|children|boys|girls|twins)\b"
                       r"(?=(?:'|’)?\s*(?:are|were|have|had|both|all|got|get|started|take|'re|need)\b)", re.I)
# another person as the one taking something, by pronoun: "He's on tramadol now", "they put him on it"
_THIRD_TAKER = re.compile(
    r"\b(?:he|she)(?:'s|’s|s|\s+is|\s+was|\s+has|\s+had|\s+can|\s+will|\s+should)?\s+(?:been\s+|now\s+|still\s+|also\s+)*"
    r"(?:on|taking|takes|take|took|starts|start|started|using|uses|use|allergic|reacts?|reacted)\b", re.I)
_THIRD_GIVEN = re.compile(  # decisive even beside an "I": "I took him to urgent care and they put him on tramadol"
    r"\b(?:put|gave|give|given|started|prescribed|switched|keep|kept|moved|upped)\s+(?:him|her)\s+(?:on\b|onto\b|"
    r"some\b|a\b|an\b|(?-i:[A-Za-z]))|"
    r"\b(?:his|her)\s+(?:\w+\s+)?(?:meds?|medications?|medicines?|prescriptions?|dose|pills?|allerg\w+)\b", re.I)


def user_leads(sentence: str) -> bool:
    """The user does the activity for a relative: "I've put my hand up to coach my stepson's under-9s"."""
    return _I_LEAD.match(sentence) is not None


def third_person_taker(sentence: str) -> bool:
    """The sentence makes a "he" or "she" the one taking or reacting to a drug: "put him on",
    "his meds", or, with no "I" in it, "he's on"."""
    return _THIRD_GIVEN.search(sentence) is not None or (
        _THIRD_TAKER.search(sentence) is not None and not _FIRST_PERSON.search(sentence))


_FOR_PERSON = re.compile(rf"\bfor\s+(?:my|our)\s+(?P<rel>{_RELATION})\b(?:,?\s+(?P<relname>(?-i:[A-Z][a-z]+))\b)?|"
                         rf"\bfor\s+(?P<name>{_TITLE}(?-i:[A-Z][a-z]+))\b(?!\s+(?:Ave|St|Street|Road))", re.I)


def person_for(sentence: str, context: Context, drugs: DrugNames | None = None) -> tuple[str, str] | None:
    """(subject, person) of a thing got "for my son" or "for Emma"; None when none is named."""
    found = _FOR_PERSON.search(sentence)
    if found is None:
        return None
    if found.group("rel"):
        rel = _canon(found.group("rel"))
        name = found.group("relname") and _name(found.group("relname"), drugs)
        name = name or next((n for n, r in context.relations.items() if r == rel), None)
        return rel, name or rel
    name = _name(found.group("name"), drugs)
    if name is None or _DOCTOR.search(sentence[max(0, found.start("name") - 8):found.end()]):
        return None
    return context.relations.get(name, name), name


"""Medications from a sentence, through the bundled drug table (`factlog.reference.drugs`);
allergies are `factlog.typed.allergies`.

A medication is named by a drug or brand the table knows ("Coumadin", "amoxicillin 500",
"Tylenol #3") or a common supplement ("vitamin D"), and is the user's (or a named
person's) only when the sentence says it is taken: a dose or frequency, a taking or
prescribing word ("take", "on", "prescribed", "started", "refill", "my Coumadin"), a stop
("stopped", "came off", "switched from"), or the drug as the answer to the assistant's
question about medication. Drugs in a question ("is ibuprofen safe with...?"), a
hypothetical ("thinking about", "might", "instead of"), a negation ("I don't take") or
general knowledge ("acetaminophen is the preferred pain reliever") are not taken.

Fields: `name` the generic name(s), "/"-joined for a combination ("Augmentin" ->
"amoxicillin/clavulanate"); `drug_class` the first class of its generics that the alerts
use (an interaction or an allergy group; else the first), as lower-case words; `dose`
(`factlog.typed.doses`); `status`, `start_date` and `end_date` (`factlog.typed.med_status`;
"I'm not taking X anymore" is stopped too); `prescriber` (the doctor or
place of care the sentence or, for a new prescription, the session last named); whose it
is: `subject` and `person` (`factlog.typed.care`). A sentence naming no drug that gives a
dose, a course, a prescriber or a stop ("stopped it yesterday") updates the session's last
medication. The assistant's confirmation ("Noted: Eliquis 5 mg twice a day") adds only
what the user's words left out, for a drug named earlier in the session; a "Yes." to the
assistant's question ("Are you still taking Coumadin 5 mg?") states what it asked.

Families read beside these (round 3): a drug after "his"/"her" is that person's, a friend's or
a neighbour's is nobody's the user keeps; "we both take X" is the user's and the other's; a
recap's "for Mark" of a name the user never said adds no person; a recap or a sentence of
clauses that each name a drug is read clause by clause; a line naming only a doctor ("Dr
Abernathy.", "Prescriber: Dr P. Naidoo") names the prescriber of what came before; a salt
names its drug ("lithium carbonate" -> lithium); "X instead of Y" takes X with the dose after
Y, and stops Y when Y was taken; what one can take ("Ibuprofen I can take") is not taken
(`stance.states_capability`); a later session's new dose without the drug ("now she take 3
mg") is the person's one current medication (`Context.prior`), and so is a later stop ("Finished
the antibiotics yesterday"); one the user has but has not begun is planned; "I take it since
yesterday" dates the course just named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from factlog.model import JsonValue
from factlog.reference.drugs import drug_classes, drug_index, generic_names
from factlog.relations import FAMILY, family_word
from factlog.timeparse import parse_date
from factlog.typed.allergies import is_allergy_answer, states_allergy
from factlog.typed.care import (
    DOCTOR,
    care_named,
    catch_up,
    given_name,
    person_for,
    person_of,
    third_person_taker,
)
from factlog.typed.common import CORRECTION, RELATIONS, conversation_fields, dates_by_cue
from factlog.typed.doses import (
    AMOUNT,
    amount,
    amount_before,
    course_days,
    dose,
    frequency,
    trailing_amount,
)
from factlog.typed.drug_names import DrugNames, drug_names
from factlog.typed.med_status import FOLLOW_STOP, NEW, SWITCH_FROM, SWITCH_TO, TODAY, dates_and_status, status_of
from factlog.typed.model import Context, TypedFact
from factlog.typed.stance import (
    ends_in_question,
    is_question,
    is_question_clause,
    is_request,
    is_tentative,
    judges_safety,
    states_capability,
)

MEDICATION = "medication"

SUPPLEMENTS = ("vitamin D", "vitamin D3", "vitamin B12", "vitamin C", "vitamin B6", "vitamin E", "multivitamin",
               "fish oil", "omega-3", "iron", "magnesium", "calcium", "melatonin", "folic acid", "zinc", "biotin",
               "probiotic", "probiotics", "turmeric", "glucosamine", "potassium")
SUPPLEMENTS_FOLDED = frozenset(SUPPLEMENTS)
_TAKING = re.compile(
    r"\b(?:takes?|taking|took|prescrib\w*|gave|given|give|started|starts?|starting|put|refill\w*|picked up|"
    r"pick up|using|uses?|dose|doses|course|been on|back on|switch\w*|continue\w*|chang\w*|bump\w*|increas\w*|"
    r"lower\w*|stopped|stop|quit|finished|discontinued|came off|went off|taken off|no longer|pills?|tablets?|"
    r"capsules?|got|had|ran out|grabbed|bought|popped|swallowed|used(?! to)|sticking with|stick with|staying on|"
    r"stay on|keep(?:ing)? (?:me |him |her )?on|went with|going with|prescriptions?|script|scrip|rx|stick(?:ing)? to|"
    r"(?:i'm|i am|im|he's|she's|he is|she is|they're|been|still|currently|also|now)\s+on|"
    # what the drug does for the one taking it: "the sertraline isn't doing it", "the naproxen is helping"
    r"(?:is|isn't|is not|'s|s|was|wasn't)\s+(?:really\s+|not\s+|just\s+|still\s+)?"
    r"(?:working|helping|doing (?:it|anything|"
    r"much|the trick|nothing))|(?:doesn't|does not|didn't|did not)\s+(?:really\s+|seem to\s+)?(?:work|help))\b",
    re.I,
)
_ON = re.compile(r"\b(?:on|onto)\s+(?:the\s+|my\s+|a\s+|some\s+)?$", re.I)
_CHANGE = re.compile(r"\b(?:up(?:ped)?|bump\w*|increas\w*|rais\w*|lower\w*|decreas\w*|doubl\w*|halv\w*|cut|"
                     r"reduc\w*|chang\w*|adjust\w*|went)\b", re.I)
# "I'm not taking Coumadin anymore", "Mike doesn't take his warfarin any more"
_NO_MORE = re.compile(r"(?:\bnot|n't|\bno longer)\s+(?:\w+\s+)?(?:taking|take|on|using|use)\b", re.I)
_NOT_THIS = re.compile(r"(?:\bnot|\bno)\s+(?:the\s+|any\s+|more\s+)?$", re.I)  # "Tylenol, not Advil", "no Advil"
_ANYMORE = re.compile(r"^[^.;]*?\b(?:any ?more|these days|now)\b", re.I)
# besides a tentative mention (`stance.is_tentative`: "thinking about", "if he", "might")
_NOT_TAKEN = re.compile(
    r"\b(?:asked? (?:\w+ ){0,3}about|warn\w*|not to (?:take|use|mix)|instead of|rather than|"
    r"never (?:taken|took|had|been on)|"
    r"(?:don't|do not|didn't|did not|won't|will not|haven't|have not|doesn't|does not|not|can't|cannot|can not|"
    r"shouldn't|should not|mustn't|must not) (?:take|taken|use|need|"
    r"want|on|have)|avoid\w*|recommend\w*|suggest\w*|mention\w*|could try|(?<!\bto )try|read about|heard|what about|"
    r"allergic)\b",
    re.I,
)
_BOUNDARY = re.compile(r"[,;:()]|\s[-–—]\s|\b(?:but|so|while|because|although)\b", re.I)
_LIST_JOIN = re.compile(r"^\s*(?:,|and|or|plus|&|as well as|\+)?\s*(?:,\s*)?(?:and\s+|also\s+|the\s+|my\s+|a\s+|an\s+|"
                        r"some\s+)*$", re.I)
_LIST_TAIL = re.compile(r",?\s+(?:and|plus|as well as|&)\s+(?:also\s+)?(?:a|an|some|the|my|his|her)?\s*$", re.I)
_CORRECTED = re.compile(r"\b(?:wait|no|sorry|i mean|i meant|actually|correction|make that|scratch that)\b[,.!]?\s+",
                        re.I)
_MINE = re.compile(r"\b(?:my|his|her|our)\s+(?:daily\s+|usual\s+|regular\s+)?$", re.I)
_MED_QUESTION = re.compile(
    r"\b(?:prescri\w*|start(?:ed)? (?:you|him|her) on|put (?:you|him|her) on|take|taking|medications?|medicines?|meds?|"
    r"drugs?|pills?|"
    r"blood thinner|antibiotic|give (?:you|him|her)|what (?:did|do) (?:they|you))\b", re.I)
_RECAP = re.compile(r"^\W*(?:noted|recorded|saved|updated|got it|added|logged|confirmed|understood|"
                    r"i(?:'ve| have) (?:noted|added|recorded|updated|logged|saved))\b", re.I)
AFFIRM = re.compile(r"^\W*(?:yes|yeah|yep|yup|correct|that's right|that is right|right|exactly|affirmative|"
                    r"that's correct|that is correct)\b(?!\s*,?\s*(?:but|except|although|though))", re.I)
_FOLLOW_UP_LEAD = re.compile(r"^\W*(?:(?:no|sorry|actually|wait|oh|um|uh|ok|okay|hmm|yeah|correction|make that|"
                             r"(?:i'?m|i am|he's|she's|he is|she is)\s+(?:now\s+|still\s+|currently\s+)?on|"
                             r"it's|its|it is|that's|thats|now|and|the dose is|dose is|dose|"
                             r"directions|instructions|sig|dosage)\b[\s,.:!]*)*"
                             # a pasted label's "Directions: Take ...", "TAKE 1 TABLET BY MOUTH ..."
                             r"(?:(?<=: )take\s+|(?<=:)take\s+|take\s+(?=(?:one|two|half|a|an|[1-4])\s))?", re.I)
_FOLLOW_UP_DOSE = re.compile(rf"{_FOLLOW_UP_LEAD.pattern}(?:\d|one|two|three|half|a\b|once|twice)", re.I)
_BARE_NUMBER = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\b(?!\s*(?:days?|weeks?|hours?|times|x\b|%|am\b|pm\b|:|years?|months?|"
                          r"o'clock|"
                          r"dollars|bucks|percent|kg|lbs?|pounds|minutes|mins))",
                          re.I)
_FOLLOW_START = re.compile(r"(?:^\W*|\b(?:so|and|but|then)\s+)(?:and\s+)?"
                           r"(?:(?:i'?m|i am|i'll|i will|we're|he's|she's|he'll|she'll|i|we|he|she)\s+)?"
                           r"(?:starting|start(?:s|ing)?|beginning|begin(?:s|ning)?)\s+(?:it\s+|them\s+)?(?:on\s+)?"
                           r"(?:tomorrow|tmrw|tmr|tmw|today|tonight|next|this|on|monday|tuesday|wednesday|thursday|friday|"
                           r"saturday|sunday|the\s+\d|\w+\s+\d)|"
                           # "first one tonight", "first dose in the morning", "took the first one this afternoon"
                           r"\bfirst\s+(?:one|dose|pill|tablet|capsule)\s+(?:is\s+|will be\s+)?(?:tonight|today|"
                           r"this\s+(?:morning|afternoon|evening)|tomorrow|tmrw|in the morning)\b", re.I)
# when a course began, said after it: "I take it since yesterday", "been on them since Monday", "started it on the 3rd"
_FOLLOW_SINCE = re.compile(r"\b(?:(?:take|taking|taken|using|use|had|on)\s+(?:it|them|this|these|that)\s+since|"
                           r"started\s+(?:it|them|this|these|that)(?:\s+on)?)\s+(?P<when>yesterday|last\s+\w+|"
                           r"(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|the\s+\d+\w*(?:\s+of\s+\w+)?|"
                           r"\w+\s+\d{1,2}(?:st|nd|rd|th)?\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?\w+)", re.I)
_FOLLOW_COURSE = re.compile(r"^\W*(?:and\s+)?for\s+(?:the\s+next\s+)?\w+\s+(?:days?|weeks?)\b|"
                            r"\b(?:on|take|taking|use|using) (?:it|them|this|that) for\s+(?:the\s+next\s+)?\w+\s+"
                            r"(?:days?|weeks?)\b", re.I)


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    text: str
    generics: tuple[str, ...]


@cache
def supplement_names() -> DrugNames:
    return DrugNames(set(SUPPLEMENTS))


def _mentions(sentence: str) -> list[Mention]:
    """Each drug, brand or supplement named, in order; a name again for the same drug is one mention
    ("a Z-Pak, azithromycin 250 milligrams" -> azithromycin, read from its last naming)."""
    found = [Mention(f.start(), f.end(), f.group(0), tuple(dict.fromkeys(map(_without_salt,
                                                                           generic_names(f.group(0))))))
             for f in drug_names().finditer(sentence)]
    canonical = {name.casefold(): name for name in SUPPLEMENTS}
    found += [Mention(f.start(), f.end(), f.group(0), (canonical.get(" ".join(f.group(0).casefold().split()),
                                                                     f.group(0).lower()),))
              for f in supplement_names().finditer(sentence)]
    found = _combined(sorted((m for m in found if m.generics), key=lambda m: m.start), sentence)
    found = [m for i, m in enumerate(found)  # "penicillin V potassium": the salt of the drug before it
             if not (i and _SALT.match(" " + m.text.casefold())
                     and re.fullmatch(r"\s+", sentence[found[i - 1].end:m.start]))]
    out: list[Mention] = []
    for mention in found:
        same = next((i for i, m in enumerate(out) if set(m.generics) & set(mention.generics)), None)
        if same is None:
            out.append(mention)
        elif same == len(out) - 1:
            out[same] = Mention(out[same].start, mention.end, out[same].text, out[same].generics)
    return out


_SALT = re.compile(r"\s+(?:carbonate|citrate|sodium|potassium|calcium|magnesium|succinate|tartrate|hydrochloride|hcl|"
                   r"besylate|besilate|maleate|mesylate|sulfate|sulphate|bromide|fumarate|acetate|phosphate)$")


def _without_salt(generic: str) -> str:
    """A salt named after its drug is the drug ("lithium carbonate" -> "lithium", "metoprolol
    succinate" -> "metoprolol") when the table lists the drug in the same classes."""
    base = _SALT.sub("", generic)
    return base if base != generic and drug_classes(base) and drug_classes(base) == drug_classes(generic) \
        else generic


def _combined(found: list[Mention], sentence: str) -> list[Mention]:
    """Drugs written as one combination ("hydrocodone/acetaminophen", "amoxicillin + clavulanate") as one mention."""
    out: list[Mention] = []
    for mention in found:
        last = out[-1] if out else None
        if last is not None and re.fullmatch(r"\s*[/+]\s*", sentence[last.end:mention.start]):
            out[-1] = Mention(last.start, mention.end, sentence[last.start:mention.end],
                              tuple(dict.fromkeys((*last.generics, *mention.generics))))
        else:
            out.append(mention)
    return out


def drug_class(generics: tuple[str, ...]) -> str | None:
    """The class of these generics the alerts use first (one in an interaction or an allergy group)."""
    index = drug_index()
    used = {c for pair in index.interactions for c in pair} | {c for c, item in index.classes.items()
                                                                 if item.allergy_group}
    classes = [c for generic in generics for c in drug_classes(generic)]
    chosen = next((c for c in classes if c in used), classes[0] if classes else None)
    return None if chosen is None else chosen.replace("_", " ")


def read_medications(sentence: str, context: Context) -> list[TypedFact]:
    catch_up(context, drug_names())
    if context.speaker != "user":
        return _recap(sentence, context) if _RECAP.search(sentence) and not states_allergy(sentence) else []
    if states_allergy(sentence) and not _ALLERGY_AS_REASON.search(sentence) or is_allergy_answer(sentence, context):
        return []
    mentions = _mentions(sentence)
    if not mentions and AFFIRM.match(sentence):  # "Are you still taking Coumadin 5 mg?" "Yes."
        asked = context.said[-2] if len(context.said) > 1 else ""
        if ends_in_question(asked) and not states_allergy(asked) and (named := _mentions(asked)):
            return _read(asked[:-1] + ".", context, named, recap=True)
    if not mentions:
        previous = context.last.get(MEDICATION)
        if previous is not None and (prescribed := _named_prescriber(sentence, context, previous)):
            return prescribed
        if previous is None:
            course = _prior_course(sentence, context) or _prior_stop(sentence, context)
            return [course] if course is not None else []
        update = _follow_up(sentence, context, previous)
        return [update] if update is not None else []
    previous = context.last.get(MEDICATION)
    lead = CORRECTION.search(sentence)
    if previous is not None and lead is not None and len(mentions) == 1 \
            and previous.fields.get("name") != "/".join(mentions[0].generics) \
            and _RENAMING.match(sentence[lead.end():mentions[0].start]) and not _ALSO.search(sentence):
        return [_renamed(context, previous, mentions[0])]  # "Zoloft. Sorry, I meant Lexapro."
    parts = _clauses_of_their_own(sentence)
    if len(parts) > 1:
        return [fact for part in parts for fact in _read(part, context, _mentions(part), recap=False)]
    return _read(sentence, context, mentions, recap=False)


_CLAUSE_SPLIT = re.compile(r";\s*|,\s+(?=(?:and|but|then|so)\s)|\s+(?=(?:and|but)\s)", re.I)


def _clauses_of_their_own(sentence: str) -> list[str]:
    """The sentence's clauses when each names a drug and says what happens to it ("Finished the
    cipro yesterday, and the GP gave me doxycycline today"), so no drug takes another's dates;
    else the sentence."""
    parts = [part for part in _CLAUSE_SPLIT.split(sentence) if part.strip()]
    if len(parts) < 2 or not all(_mentions(part) and (_TAKING.search(part) or NEW.search(part)) for part in parts):
        return [sentence]
    return parts


# another person's drug by a possessive pronoun just before it ("her Voltaren gel", "his usual Xanax")
_THEIRS = re.compile(r"\b(?:his|her|their)\s+(?:daily\s+|usual\s+|regular\s+|new\s+|old\s+)?$", re.I)
# people whose medicines the user mentions in passing but does not look after
ACQUAINTANCES = frozenset({"friend", "neighbour", "neighbor", "roommate", "flatmate", "housemate", "coworker",
                           "colleague"})
_RENAMING = re.compile(r"^\W*(?:(?:i meant|i mean|it's|it is|it was|its|that's|that is|make that|the|no|not|wait|"
                       r"sorry)\b\W*)*$", re.I)
_ALSO = re.compile(r"\b(?:also|too|as well|another|plus|and)\b", re.I)


def _renamed(context: Context, previous: TypedFact, mention: Mention) -> TypedFact:
    """The session's last medication, corrected to another drug (the same entity, so the
    wrong name leaves no medication behind)."""
    fields: dict[str, JsonValue] = {**previous.fields, "name": "/".join(mention.generics), "speaker": context.speaker}
    found_class = drug_class(mention.generics)
    if found_class is not None:
        fields["drug_class"] = found_class
    else:
        fields.pop("drug_class", None)
    context.entities.setdefault(f"{MEDICATION}:{previous.key}", {}).update(fields)
    return TypedFact(MEDICATION, previous.key, fields)


def _read(sentence: str, context: Context, mentions: list[Mention], *, recap: bool) -> list[TypedFact]:
    text = _YOU.sub("I am", _YOUR.sub("my", sentence)) if recap else sentence
    subject, person = person_for(text, context, drug_names()) or person_of(text, context, drug_names())
    if subject == "user" and not recap and third_person_taker(sentence):
        if context.focus is None:
            return []  # "He's on tramadol now" with no one named: someone's, not the user's
        subject, person = context.relations.get(context.focus, context.focus), context.focus
    care = care_named(sentence)
    previous = context.last.get(MEDICATION)
    asked = _answers_question(sentence, context, mentions[0])
    facts: list[TypedFact] = []
    status: str | None = None
    skipped = started = False
    for i, mention in enumerate(mentions):
        before = sentence[mentions[i - 1].end if i else 0:mention.start]
        after = sentence[mention.end:mentions[i + 1].start if i + 1 < len(mentions) else len(sentence)]
        clause = _clause(sentence, mention)
        joined = i > 0 and (_LIST_JOIN.match(before) is not None or _LIST_TAIL.search(before) is not None)
        near = clause[0] if len(clause[0]) <= len(before) else before  # since the last boundary or drug
        no_more = _NO_MORE.search(near) is not None and _ANYMORE.search(clause[1]) is not None
        replaced = _REPLACED.search(before) is not None
        if re.search(r"\bto try\s+(?:the\s+|some\s+)?$", before, re.I) and _UNDECIDED.search(sentence):
            continue  # "wants me to try Lexapro but I haven't decided": not planned yet
        if _ALLERGEN_AFTER.match(sentence, mention.end):
            continue  # "because of my penicillin allergy": the allergen, not a drug taken
        if i and _AFTER_COURSE.match(before) and _COURSE_ENDS.match(sentence, mention.end):
            continue  # "fluconazole after the nitrofurantoin runs out": the other course is only the when
        if not no_more and (replaced or _NOT_TAKEN.search(near) or is_tentative(near) or _NOT_THIS.search(near) or
                            not recap and states_capability(near, clause[1]) or
                            (joined and skipped) or judges_safety(sentence[:mention.start]) and not _MINE.search(before)
                            or _asked(sentence, mention, clause, before)):
            if replaced and facts and "dose" not in facts[-1].fields and (how := _corrected_dose(after)):
                facts[-1] = _with_dose(context, facts[-1], how)  # "naproxen instead of the ibuprofen, 500 twice a day"
            if replaced and facts and (ended := _ended(context, mention, subject)) is not None:
                facts.append(ended)  # the replaced drug, one the person was taking, is stopped
            status, skipped = None, True
            continue
        skipped = False
        who, whom = subject, person
        if _THEIRS.search(before) and subject == "user" and not recap:  # "my neighbour swears by her Voltaren"
            if context.focus is None:
                continue
            who, whom = context.relations.get(context.focus, context.focus), context.focus
        if who.casefold() in ACQUAINTANCES:  # a friend's or a neighbour's pills are not in the user's care
            continue
        switched = i > 0 and bool(SWITCH_FROM.search(sentence[:mentions[i - 1].start]))
        status = "stopped" if no_more else status_of(before, after, status if joined else None,
                                                     previous_switch=switched)
        name = "/".join(mention.generics)
        own = after[:trailing.start()] if i + 1 < len(mentions) and (trailing := trailing_amount(after)) else after
        how = _with_frequency(amount_before(before), own) or _corrected_dose(own) or _changed_to(before, own)
        loose = not set(mention.generics) <= set(SUPPLEMENTS_FOLDED)  # "my iron levels" is no iron taken
        taken = recap or asked or joined or how is not None or status is not None or _TAKING.search(clause[0]) \
            or _FORM_THEN_NAME.search(before) and not is_question(sentence) \
            or re.match(r"\s*(?:instead of|in place of|rather than)\b", own, re.I) is not None \
            or _TAKING.search(clause[1]) or loose and (_MINE.search(before) or _ON.search(before))
        if not taken:
            continue
        if previous is not None and previous.fields.get("name") == name and how is None and status is None \
                and not NEW.search(sentence) and course_days(sentence) is None:
            continue  # "the bottle says cefdinir": the drug just named, nothing new
        fields: dict[str, JsonValue] = {"name": name}
        found_class = drug_class(mention.generics)
        if found_class is not None:
            fields["drug_class"] = found_class
        if how is not None:
            fields["dose"] = how
        if i == 0 and status is None and _in_stop_section(context) and not _REPLACES.search(before):
            status = "stopped"  # "STOP TAKING" / "- Aspirin 81 mg daily (replaced by apixaban)"
        new = bool(NEW.search(before) or course_days(own) is not None or TODAY.search(clause[0] + clause[1])
                   or _NEW_MARK.search(own) is not None
                   or joined and started or switched and SWITCH_TO.match(before) is not None
                   or i == 0 and (course_days(sentence) is not None or TODAY.search(sentence)))
        started = new
        fields.update(dates_and_status(sentence, context, before, status or "current", new=new))
        if fields.get("status") != "stopped" and (after_other := _after_course(sentence, mention, context, subject)):
            fields["start_date"] = after_other  # "wants me on fluconazole after the nitrofurantoin runs out"
            fields.pop("end_date", None)
            if context.timestamp is not None and after_other > context.timestamp.date().isoformat():
                fields["status"] = "planned"
        if fields.get("status") == "current" and _NOT_STARTED.search(sentence):  # "a sample, but I haven't started it"
            fields["status"] = "planned"
            fields.pop("start_date", None)
        changed = _CHANGED_MARK.search(own) is not None  # "- CHANGED (was 25 mg)": the list's prescriber changed it
        prescriber = care if care is not None else context.care if (new or changed) and not recap else None
        if prescriber == "pharmacist" and not re.search(r"\bprescrib", sentence, re.I):
            prescriber = None  # "the pharmacist said ibuprofen would be bad with my warfarin": advice, no prescription
        if prescriber is not None and fields["status"] != "stopped":
            fields["prescriber"] = prescriber
        for owner, owner_person in _owners(sentence[:mention.start], context, who, whom) if not recap \
                else [(who, whom)]:
            own_fields = {**fields, "person": owner_person} if owner_person is not None else dict(fields)
            key = name if owner == "user" else f"{owner.casefold()}/{name}"
            if not recap:
                known = context.entities.setdefault(f"{MEDICATION}:{key}", {})
                known.update(own_fields)
            facts.append(TypedFact(MEDICATION, key, conversation_fields(context, owner, own_fields)))
    return facts


# a drug the user has but has not begun: "I haven't started it yet", "not taken any yet", "yet to start"
# a drug to follow another's course: "fluconazole after the nitrofurantoin runs out", "once the amoxicillin is finished"
_AFTER_COURSE = re.compile(r"^[^.;]{0,40}?\b(?:after|once|when)\s+(?:the\s+|my\s+|his\s+|her\s+|this\s+)?$", re.I)
_COURSE_ENDS = re.compile(r"\s*(?:course\s+|tablets\s+|pills\s+)?(?:runs?\s+out|"
                          r"(?:is|are)\s+(?:all\s+)?(?:finished|done|over|"
                          r"used up)|finish(?:es)?|ends?)\b", re.I)


def _after_course(sentence: str, mention: Mention, context: Context, subject: str) -> str | None:
    """The day after the course the drug is to follow ends (that course's end this session or earlier), or None."""
    for other in _mentions(sentence[mention.end:]):
        start = mention.end + other.start
        if not _AFTER_COURSE.match(sentence[mention.end:start]) or \
                not _COURSE_ENDS.match(sentence, mention.end + other.end):
            continue
        name = "/".join(other.generics)
        key = name if subject == "user" else f"{subject.casefold()}/{name}"
        known = context.entities.get(f"{MEDICATION}:{key}") or context.prior.entities.get((MEDICATION, key)) or {}
        ends = known.get("end_date")
        return (parse_date(ends) + timedelta(days=1)).isoformat() if isinstance(ends, str) else None
    return None


# an allergy given as the reason for a prescription: "because of my allergy he gave me azithromycin"
_ALLERGY_AS_REASON = re.compile(r"\b(?:because of|with|due to|given|on account of)\s+(?:my|his|her|their|the|our)\s+"
                                r"(?:[\w-]+\s+)?allerg(?:y|ies)\b[^.;]*\b(?:gave|give|given|prescrib\w*|put|started|"
                                r"switched|it's|its|went with|got)\b|"
                                r"\b(?:gave|give|given|prescrib\w*|put|started|switched)\b[^.;]*"
                                r"\b(?:because of|with|due to|given)\s+(?:my|his|her|their|the|our)\s+"
                                r"(?:[\w-]+\s+)?allerg(?:y|ies)\b", re.I)
_UNDECIDED = re.compile(r"\b(?:haven't|have not|not yet|hasn't|has not)\s+(?:\w+\s+)?decided\b|\bundecided\b|"
                        r"\bnot sure\b|\bon the fence\b|\bdon't know (?:if|whether)\b|\bthinking about it\b", re.I)
_ALLERGEN_AFTER = re.compile(r"\s*(?:drugs?\s+)?(?:allerg\w*|intoleran\w*|sensitivity|reaction)\b", re.I)
_REPLACES = re.compile(r"\b(?:replaced|swapped|substituted)\s+(?:by|with|for)\s+(?:the\s+|my\s+)?$", re.I)
_NOT_STARTED = re.compile(r"\b(?:haven't|have not|hasn't|has not|didn't|did not|not)\s+(?:yet\s+)?(?:started|begun|"
                          r"taken|opened)\s+(?:it|them|any|the\s+\w+)?\s*(?:yet)?\b|\byet to (?:start|take|begin)\b",
                          re.I)
# the drug a new one replaces: "naproxen instead (of) the ibuprofen", "in place of my Advil"
# a form the user has, then the drug in brackets: "an inhaler for asthma (albuterol)", "my puffer (Ventolin)"
_FORM_THEN_NAME = re.compile(r"\b(?:my|an?|the)\s+(?:\w+\s+)?(?:inhaler|puffer|pills?|tablets?|capsules?|cream|gel|"
                             r"drops|"
                             r"spray|patch|injections?|pen)\b[^.;()]{0,30}\(\s*$", re.I)
_REPLACED = re.compile(r"\b(?:instead(?:\s+of)?|in place of|rather than)\s+(?:the\s+|my\s+|his\s+|her\s+|your\s+)?"
                       r"(?:old\s+|usual\s+|regular\s+)?$", re.I)
# the user and someone else taking it together: "we both take", "both of us are on", "Dana and I take"
_TOGETHER = re.compile(r"\b(?:we\s+(?:both|all|each)|we're\s+both|we\s+are\s+both|both of us|the two of us|"
                       rf"(?P<other>my\s+(?:{'|'.join(sorted(RELATIONS, key=len, reverse=True))})|(?-i:[A-Z][a-z]+))"
                       r"\s+and\s+I)\b", re.I)


def _owners(clause: str, context: Context, who: str, whom: str | None) -> list[tuple[str, str | None]]:
    """Whose a drug is: (subject, person) of the one it is said of, or of the user and the other
    person when they take it together ("we both take a multivitamin" after "my wife Dana")."""
    together = _TOGETHER.search(clause)
    if together is None or re.search(r"\b(?:me|him|her|I'm|I am)\b", clause[together.end():]):
        return [(who, whom)]  # "we both went in and she put me on it": the user's
    other = together.group("other")
    partner: tuple[str, str | None]
    if other and not other.lower().startswith("my ") and given_name(other, drug_names()) is None:
        return [(who, whom)]  # "in Madrid and I brought my Prozac": no one else
    if other:
        rel = re.sub(r"^my\s+", "", other, flags=re.I).lower() if other.lower().startswith("my ") else None
        name = next((n for n, r in context.relations.items() if r == rel), rel) if rel else other
        partner = (context.relations.get(name, name), name)
    elif who != "user":
        partner = (who, whom)
    elif context.focus is not None:
        partner = (context.relations.get(context.focus, context.focus), context.focus)
    else:
        return [("user", None)]
    return [("user", None)] if partner[0] == "user" else [("user", None), partner]


def _ended(context: Context, mention: Mention, subject: str) -> TypedFact | None:
    """The medication a new one replaces, stopped, when this or an earlier session gave it to
    the same person as current; None for a drug never said to be taken."""
    name = "/".join(mention.generics)
    key = name if subject == "user" else f"{subject.casefold()}/{name}"
    known = context.entities.get(f"{MEDICATION}:{key}") or context.prior.entities.get((MEDICATION, key))
    if not known or known.get("status") == "stopped":
        return None
    fields: dict[str, JsonValue] = {"name": name, "status": "stopped"}
    if (found_class := drug_class(mention.generics)) is not None:
        fields["drug_class"] = found_class
    context.entities.setdefault(f"{MEDICATION}:{key}", {}).update(fields)
    return TypedFact(MEDICATION, key, conversation_fields(context, subject, fields))


def _with_dose(context: Context, fact: TypedFact, how: str) -> TypedFact:
    context.entities.setdefault(f"{MEDICATION}:{fact.key}", {})["dose"] = how
    return TypedFact(fact.kind, fact.key, {**fact.fields, "dose": how})


def _corrected_dose(after: str) -> str | None:
    """The dose the words after a drug give, the last one when corrected ("2 tabs ... wait no, 1 tab")."""
    corrections = [m.end() for m in _CORRECTED.finditer(after)]
    for start in reversed(corrections):
        found = dose(after[start:])
        if found is not None:
            return found
    return dose(after)


def _changed_to(before: str, after: str) -> str | None:
    """A dose changed to a bare number: "upped my Lexapro to 20" -> "20 mg"."""
    found = re.match(r"^\s*(?:up |down )?to\s+(?P<n>\d+(?:\.\d+)?)\b(?!\s*(?:days?|weeks?|times|%))", after, re.I)
    if found is None or not _CHANGE.search(before):
        return None
    return f"{found.group('n')} mg"


def _with_frequency(amount: str | None, after: str) -> str | None:
    how_often = frequency(after) or ("daily" if re.match(r"^\s*(?:a|per|each) day\b", after, re.I) else None)
    return None if amount is None else f"{amount} {how_often}" if how_often else amount


def _clause(sentence: str, mention: Mention) -> tuple[str, str]:
    """The words of the mention's clause before and after it."""
    starts = [m.end() for m in _BOUNDARY.finditer(sentence, 0, mention.start)]
    begin = starts[-1] if starts else 0
    end_match = _BOUNDARY.search(sentence, mention.end)
    end = end_match.start() if end_match is not None else len(sentence)
    return sentence[begin:mention.start], sentence[mention.end:end]


def _asked(sentence: str, mention: Mention, clause: tuple[str, str], before: str) -> bool:
    """The drug is in the asked clause of a question ("I'm on warfarin, is ibuprofen ok?"), the
    question being the part of the sentence the mention is in ("can you take ibuprofen with
    prozac btw? my roommate has some")."""
    end = re.search(r"[?.!]", sentence[mention.end:])
    in_question = end.group(0) == "?" if end is not None else ends_in_question(sentence)
    return in_question and not is_request(sentence) and is_question_clause(clause[0] + clause[1]) and \
        not _MINE.search(before)


def _answers_question(sentence: str, context: Context, first: Mention) -> bool:
    """The sentence starts with the drug and answers a question about medication ("Eliquis.")."""
    asked = context.said[-2] if len(context.said) > 1 else ""
    topic = context.said[-3] if len(context.said) > 2 else ""  # "need to log a new med" / "what is it?"
    return ends_in_question(asked) and bool(_MED_QUESTION.search(asked) or _MED_QUESTION.search(topic)) and \
        re.match(r"^\W*(?:(?:um|uh|oh|well|yes|yeah|ya|yep|they|he|she)\W+)*$", sentence[:first.start],
                 re.I) is not None


def _follow_up(sentence: str, context: Context, previous: TypedFact) -> TypedFact | None:
    """The session's last medication with what a sentence naming no drug adds: a dose
    ("It's 5 milligrams twice a day for now."), a course ("For two weeks."), a prescriber
    ("Doctor Nguyen give it.") or a stop ("I stopped it yesterday.")."""
    added: dict[str, JsonValue] = {}
    if _LIST_MARKER.match(sentence):
        return None  # "2." of a numbered list pasted in: the next item's number, not a dose
    if _FOLLOW_UP_DOSE.search(sentence) and not re.search(r"\b(?:for later|later)\b", sentence, re.I):
        how = _follow_up_dose(sentence[_FOLLOW_UP_LEAD.match(sentence).end():],  # type: ignore[union-attr]
                              previous.fields.get("dose"))
        if how is not None:
            added["dose"] = how
    first_step = re.split(r"\bthen\b", sentence, maxsplit=1, flags=re.I)[0]  # a taper's later steps: their own course
    days = course_days(first_step) if _FOLLOW_COURSE.search(first_step) or "dose" in added else None
    if days is not None:
        start = previous.fields.get("start_date")
        if not isinstance(start, str) and context.timestamp is not None:
            start = context.timestamp.date().isoformat()
            added["start_date"] = start
        if isinstance(start, str):
            added["end_date"] = (parse_date(start) + timedelta(days=days - 1)).isoformat()
    if _FOLLOW_START.search(sentence) and "start_date" not in added:  # "Starting tomorrow.", "first one tonight"
        said = re.sub(r"\b(start\w*|begin\w*)\s+(?:it|them)\s+", r"\1 ", sentence, flags=re.I)  # "start it on Friday"
        said = re.sub(r"\b(?:took\s+|had\s+)?(?:the\s+|my\s+)?first\s+(?:one|dose|pill|tablet|capsule)\s+"
                      r"(?:is\s+|will be\s+)?", "starting ", said, flags=re.I)
        said = re.sub(r"\bstarting\s+(?:this\s+(?:morning|afternoon|evening)|tonight)\b", "starting today", said,
                      flags=re.I)
        when = dates_and_status(said, context, "", "current", new=False)
        if "start_date" in when:
            added.update({"start_date": when["start_date"], "status": when["status"]})
            began, was, ends = when["start_date"], previous.fields.get("start_date"), previous.fields.get("end_date")
            if isinstance(began, str) and isinstance(was, str) and isinstance(ends, str) and began != was \
                    and "end_date" not in added:  # "for 5 days. Start tomorrow.": the course moves with its start
                added["end_date"] = (parse_date(ends) + (parse_date(began) - parse_date(was))).isoformat()
    since = _FOLLOW_SINCE.search(sentence)
    if since is not None and "start_date" not in added:  # "I take it since yesterday evening"
        when = dates_and_status(f"started {since.group('when')}", context, "", "current", new=False)
        began, was, ends = when.get("start_date"), previous.fields.get("start_date"), previous.fields.get("end_date")
        today = context.timestamp.date().isoformat() if context.timestamp is not None else None
        if isinstance(began, str) and today is not None and began > today:  # "since March 3rd": the last one
            began = f"{int(began[:4]) - 1}{began[4:]}"
        if isinstance(began, str) and began != was and (today is None or began <= today):
            added["start_date"] = began
            if isinstance(was, str) and isinstance(ends, str):  # the course moves with its start
                added["end_date"] = (parse_date(ends) + (parse_date(began) - parse_date(was))).isoformat()
    care = care_named(sentence)
    if care is not None and re.search(r"\b(?:give|gave|prescribed|prescribes)\s+(?:it|them|this|that)\b",
                                      sentence, re.I):
        added["prescriber"] = care
    if FOLLOW_STOP.search(sentence):
        added["status"] = "stopped"
        stopped = dates_by_cue(sentence, context, ())
        if stopped.get(""):
            added["end_date"] = stopped[""][0]
    if not added:
        return None
    fields = {**previous.fields, **added, "speaker": context.speaker}
    context.entities.setdefault(f"{MEDICATION}:{previous.key}", {}).update(added)
    return TypedFact(MEDICATION, previous.key, fields)


_LIST_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.)]|[-*•]|[a-h][.)])\s*$")
# a pasted list's header that stops what it lists: "STOP TAKING", "Discontinued medications:", "Stop these:"
_STOP_HEADER = re.compile(r"^\W*(?:stop(?:ped)?\s+taking(?:\s+these)?|stop\s+these|discontinued?(?:\s+(?:medications?|"
                          r"medicines?|meds))?|(?:medications?|medicines?|meds)\s+(?:to\s+)?(?:stop|discontinue)(?:d)?|"
                          r"stopped\s+(?:medications?|medicines?|meds))\W*$", re.I)
# a list item's marker for a drug new on this list: "Apixaban 5 mg twice daily - NEW", "(new)", "NEW:"
_NEW_MARK = re.compile(r"(?:[-–—(:]\s*|\b)(?-i:NEW|New|new)(?:ly\s+started)?\b\s*\)?\s*$|^\W*(?-i:NEW)\b\s*[:-]", re.I)


_CHANGED_MARK = re.compile(r"[-–—(:]\s*(?:dose\s+)?(?:changed|increased|decreased|reduced|adjusted)\b", re.I)


def _in_stop_section(context: Context) -> bool:
    """The sentence is an item of a pasted list under a stop header ("STOP TAKING" then "- Aspirin 81 mg")."""
    for said in reversed(context.said[-8:-1]):
        if _STOP_HEADER.match(said):
            return True
        if not (_LIST_MARKER.match(said) or _mentions(said)):
            return False
    return False


# a line or fragment that only names the prescriber: "Dr Abernathy.", "Prescriber: Dr P. Naidoo (Psychiatrist)",
# "Prescribed by Dr. Kim", "by Dr Lee"
_PRESCRIBER_LEAD = re.compile(r"^\W*(?:(?:prescriber|prescribing (?:doctor|physician)|prescribed by|doctor|physician|"
                              r"by|from|it's|its|it was|that's|that was|that was from|her name is|his name is)\b\W*)*$",
                              re.I)


def prescriber_line(sentence: str) -> str | None:
    """The named doctor a sentence consists of (with a label or "by" before it, a role in
    brackets after it), else None."""
    found = DOCTOR.search(sentence)
    if found is None or not (found.group("name") or found.group("caps") or found.group("md") or found.group("lower")) \
            or not _PRESCRIBER_LEAD.match(sentence[:found.start()]):
        return None
    rest = re.sub(r"\([^)]*\)", "", sentence[found.end():])
    return care_named(sentence[found.start():found.end()]) if re.fullmatch(r"[\W_]*", rest) else None


def _named_prescriber(sentence: str, context: Context, previous: TypedFact) -> list[TypedFact]:
    """A line naming only the prescriber ("Dr Abernathy.") names it for the session's last
    medication and for the same person's others that had no prescriber or the same unnamed one
    ("the cardiologist has me on Plavix 75 mg and aspirin 81. Dr Abernathy.")."""
    named = prescriber_line(sentence)
    role = previous.fields.get("prescriber")
    if named is None or isinstance(role, str) and role.startswith("Dr"):
        return []
    owner = previous.key.rsplit("/", 1)[0] + "/" if previous.key and "/" in previous.key else ""
    out: list[TypedFact] = []
    for key, fields in context.entities.items():
        if not key.startswith(f"{MEDICATION}:"):
            continue  # another reader's entity ("relative/leo")
        name = key.split(":", 1)[1]
        if fields.get("status") == "stopped" or \
                fields.get("prescriber", role) != role or name.rsplit("/", 1)[0] + "/" != owner and owner or \
                not owner and "/" in name:
            continue
        fields["prescriber"] = named
        out.append(TypedFact(MEDICATION, name, {**fields, "subject": previous.fields.get("subject", "user"),
                                                "speaker": context.speaker}))
    return out


_NEW_DOSE = re.compile(r"\b(?:now|chang\w*|up(?:ped)?|increas\w*|rais\w*|lower\w*|decreas\w*|reduc\w*|cut|doubl\w*|"
                       r"halv\w*|adjust\w*|went (?:up|down)|(?:down|dropped|tapered|weaned|stepped down) to)\b", re.I)
# a dose change said with its subject left out, as a taper is texted: "Down to 25 since Monday", "Up to 20 mg now"
_ELIDED_CHANGE = re.compile(r"^\W*(?:(?:ok|so|and|well|right)\W+)?(?:now\s+)?(?:down|up|dropped|tapered|stepped down|"
                            r"weaned|back)\s+to\s+(?P<n>\d+(?:\.\d+)?)\b(?!\s*(?:days?|weeks?|times|%|am|pm|:|left|remaining|pills?|tablets?|"
                            r"to go|kg|kilos?|lbs?|pounds|hours?|cigs?|cigarettes|a day|per day|cups?))", re.I)
_SOMEONES = re.compile(rf"\b(?:my|our)\s+(?P<rel>{'|'.join(sorted(RELATIONS, key=len, reverse=True))})\b", re.I)


def _prior_course(sentence: str, context: Context) -> TypedFact | None:
    """A new dose said without the drug in a later session, of the one current medication an
    earlier session gave that person ("The doctor has changed the dose of my mother, now she
    take 3 mg", "they upped it to 20 mg"); None when the session could mean several."""
    elided = _ELIDED_CHANGE.match(sentence)
    if not _NEW_DOSE.search(sentence) or states_allergy(sentence):
        return None
    how = amount(sentence) or (f"{elided.group('n')} mg" if elided is not None else None)
    if how is None:
        return None
    named = {m.group("rel").lower() for m in _SOMEONES.finditer(sentence)}
    if not named and not re.search(r"\b(?:i|i'm|me|my)\b", sentence, re.I) and elided is None:
        return None
    courses = [(key, fields) for key, fields in context.prior.of_kind(MEDICATION)
               if fields.get("status") != "stopped" and
               (fields.get("subject") in named if named else fields.get("subject", "user") == "user")]
    if len(courses) != 1:
        return None
    key, fields = courses[0]
    kept = {name: value for name, value in fields.items() if name not in ("speaker", "subject", "end_date")}
    before = fields.get("dose")
    if elided is not None and isinstance(before, str) and frequency(how) is None \
            and (often := frequency(before)) is not None:
        how = f"{how} {often}"  # a taper's step, "Down to 15 mg" of "30 mg daily": still daily
    return TypedFact(MEDICATION, key, conversation_fields(context, str(fields.get("subject", "user")),
                                                          {**kept, "dose": how}))


# a stop said in a later session without the drug: "Finished the antibiotics yesterday", "She took me off it"
_LATER_STOP = re.compile(
    r"\b(?:stopped|quit|finished|discontinued|done with|ran out of|came off|(?:took|taken) (?:me |him |her )?off)\s+"
    r"(?:taking\s+)?(?:it|them|that|the\s+(?P<word>antibiotics?|course|tablets|pills|meds|medications?|medicines?)|"
    r"my\s+(?P<word2>antibiotics?|meds|pills|tablets|medications?))\b|"
    r"\b(?:the\s+)?(?P<word3>antibiotics?|course)\s+(?:is|are|was)\s+(?:all\s+)?(?:finished|done|over)\b", re.I)
_ANTIBIOTICS = frozenset({"penicillins", "cephalosporins", "carbapenems", "macrolides", "tetracyclines",
                          "fluoroquinolones", "sulfonamides", "nitroimidazoles", "trimethoprim"})


def _prior_stop(sentence: str, context: Context) -> TypedFact | None:
    """The one medication of an earlier session a later stop without the drug's name can mean
    ("Finished the antibiotics yesterday" of the one antibiotic course), stopped; None when
    several could be meant."""
    stop = _LATER_STOP.search(sentence)
    if stop is None or is_tentative(sentence) or ends_in_question(sentence):
        return None
    word = (stop.group("word") or stop.group("word2") or stop.group("word3") or "").lower()
    named = {m.group("rel").lower() for m in _SOMEONES.finditer(sentence)}
    courses = [(key, fields) for key, fields in context.prior.of_kind(MEDICATION)
               if fields.get("status") != "stopped"
               and (fields.get("subject") in named if named else fields.get("subject", "user") == "user")
               and (not word.startswith("antibiotic") or str(fields.get("drug_class", "")).replace(" ", "_")
                    in _ANTIBIOTICS)]
    if word == "course":  # "the course": a course with an end, not a standing medication
        courses = [(key, fields) for key, fields in courses if "end_date" in fields]
    if len(courses) != 1:
        return None
    key, fields = courses[0]
    kept = {name: value for name, value in fields.items() if name not in ("speaker", "subject", "end_date")}
    when = dates_and_status(sentence, context, "", "stopped", new=False)
    stopped: dict[str, JsonValue] = {**kept, "status": "stopped"}
    if isinstance(when.get("end_date"), str):
        stopped["end_date"] = when["end_date"]
    return TypedFact(MEDICATION, key, conversation_fields(context, str(fields.get("subject", "user")), stopped))


def _follow_up_dose(text: str, before: JsonValue) -> str | None:
    """A dose said on its own, completed by the dose it corrects: "its 150 now" after
    "100 mg daily" -> "150 mg daily"."""
    how_much = amount(text)
    if how_much is not None and _ONE_UNIT.match(how_much) and isinstance(before, str) and AMOUNT.search(before):
        how_much = amount(before)  # "Take ONE tablet twice daily" of a 400 mg tablet: still 400 mg
    if how_much is None and isinstance(before, str) and (bare := _BARE_NUMBER.match(text)) is not None:
        unit = AMOUNT.search(before)
        how_much = f"{bare.group('n')} {unit.group('unit') if unit is not None else 'mg'}"
    how_often = frequency(text)
    if how_much is None and how_often is None:
        return None  # "Three months minimum they reckon": no dose said
    if isinstance(before, str):
        how_much = how_much or amount(before)
        how_often = how_often or (frequency(before) if how_much != amount(before) or how_much is None else None)
    if how_much and how_often:
        return f"{how_much} {how_often}"
    return how_much or how_often


_ONE_UNIT = re.compile(r"^(?:one|a|an|1)\s+(?:tablet|tab|pill|capsule|cap|softgel)$", re.I)
_YOUR = re.compile(r"\byour\b", re.I)
_YOU = re.compile(r"\byou(?:'re| are)\b", re.I)
_FILLED = ("dose", "start_date", "end_date", "prescriber", "person", "drug_class")


def _recap(sentence: str, context: Context) -> list[TypedFact]:
    """What the assistant's confirmation adds to a medication named earlier this session; a
    recap of several ("ibuprofen stopped on June 20; apixaban 5 mg twice daily from today")
    is read part by part, so no drug takes another's dates or dose."""
    if ";" in sentence:
        return [fact for part in sentence.split(";") for fact in _recap(part, context)]
    mentions = _mentions(sentence)
    if not mentions:
        return []
    earlier = {g for said in context.said[:-1] for m in _mentions(said) for g in m.generics}
    mentions = [m for m in mentions if set(m.generics) & earlier]
    if not mentions:
        return []
    out: list[TypedFact] = []
    for fact in _read(sentence, context, mentions, recap=True):
        key = fact.key if f"{MEDICATION}:{fact.key}" in context.entities else _same_drug(context, fact)
        known = {**context.entities.get(f"{MEDICATION}:{key}", {})} or _last_of(context, key)
        fact = TypedFact(MEDICATION, key, fact.fields)
        if not known:
            if not any(name in fact.fields for name in ("dose", "start_date", "end_date", "prescriber")):
                continue
            out.append(fact)
            continue
        added = {name: fact.fields[name] for name in _FILLED if name in fact.fields and name not in known
                 and (name != "person" or _named_before(context, fact.fields[name])
                      and _person_words(fact.fields[name]).search(sentence) is not None)}
        said_dose, own_dose = fact.fields.get("dose"), known.get("dose")
        if isinstance(said_dose, str) and isinstance(own_dose, str) and said_dose != own_dose \
                and (said_dose.startswith(own_dose) or said_dose.endswith(own_dose)):
            added["dose"] = said_dose
        if added:
            context.entities.setdefault(f"{MEDICATION}:{fact.key}", {}).update({**known, **added})
            out.append(TypedFact(MEDICATION, fact.key, {**known, **added, "speaker": context.speaker}))
    return out


def _person_words(person: JsonValue) -> re.Pattern[str]:
    """The words that name `person`: the name, or a family word in any of its spellings ("father": "Dad")."""
    family = family_word(str(person))  # (`factlog.relations`)
    said_as = sorted({str(person), *(w for w, canon in FAMILY.items() if family is not None and canon == family)})
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, said_as))})\b", re.I)


def _named_before(context: Context, person: JsonValue) -> bool:
    """The recap's person was named earlier in the session: "Noted for Mark: ..." of a name
    never said before is the assistant addressing the user, not someone else's drug."""
    word = _person_words(person)
    return any(word.search(said) for said in context.said[:-1])


def _same_drug(context: Context, fact: TypedFact) -> str | None:
    """The key of the one medication this session named with the same drug ("Mike" and "your husband Mike")."""
    keys = [key.split(":", 1)[1] for key, fields in context.entities.items()
            if key.startswith(f"{MEDICATION}:") and fields.get("name") == fact.fields.get("name")]
    return keys[0] if len(keys) == 1 else fact.key


def _last_of(context: Context, key: str | None) -> dict[str, JsonValue]:
    last = context.last.get(MEDICATION)
    return dict(last.fields) if last is not None and last.key == key else {}


# a line naming only a doctor, the prescriber of what came before ("Dr Abernathy.", "Prescribed by Dr. Kim")
_PRESCRIBER_ONLY = re.compile(r"^\W*(?:(?:prescriber|prescribed by|by|from|PRESCRIBER|Prescriber)\b\W*)?"
                              r"(?:(?:Dr\.?|DR\.?|Doctor|DOCTOR)\s+[A-Za-z][\w.\s-]{1,30}|"
                              r"[A-Z][A-Za-z'-]+\s+[A-Z][A-Za-z'-]+,?\s+M\.?D\b\.?)"  # "MARCUS OYELARAN MD"
                              r"(?:\([^)]*\))?\W*$")
# a sentence without one of these states no medication (drug names are the other trigger)
_FREQUENCY_WORDS = re.compile(r"\b(?:once|twice|times|daily|nightly|weekly|every|each|needed|necessary|prn|"
                              r"b\.?i\.?d|t\.?i\.?d|q\.?i\.?d|q\.?d|bedtime|night|morning|evening|day|\d\s*x|"
                              r"b\.?d|t\.?d\.?s|q\.?d\.?s|o\.?d|nocte|mane|week)\b", re.I)
# FREQUENCY's words
TRIGGERS = (AMOUNT, _FREQUENCY_WORDS, NEW, _FOLLOW_COURSE, FOLLOW_STOP, _FOLLOW_UP_DOSE, AFFIRM, _FOLLOW_START,
            _FOLLOW_SINCE,
            _PRESCRIBER_ONLY, _LATER_STOP, _ELIDED_CHANGE)


def names_a_drug(sentence: str) -> bool:
    """The sentence names a drug, brand, class or supplement the reader knows (the other trigger)."""
    return bool(drug_names().finditer(sentence) or supplement_names().finditer(sentence))

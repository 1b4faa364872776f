"""Allergies from a sentence, through the bundled drug table (`factlog.reference.drugs`).

An allergy is stated many ways: "allergic to X", "X allergy", "allergy to X", "allergies:
X, Y", "I react badly to X", "had a reaction to X", "X gives me hives", "broke out in a rash
from X", "can't take X, it makes me swell"; or, once the session talks about allergies, a
user's sentence that starts with a drug or class name ("penicillin. hives as a kid").
Every drug named in the allergen phrase is one allergy ("allergic to penicillin and
codeine"); where a specific drug and its class are both named ("sulfa medicine, Bactrim")
the specific drug is the allergen. `allergen` is the generic name(s) of a drug, joined by
"/" for a combination, the word said for a class ("penicillin", "sulfa") or for anything
else ("cats"); `drug_class` the table's class; `severity` the reactions named ("hives and
facial swelling"), with how bad ("mild", "severe": "very bad rash" -> "severe rash").

Nothing is stated by "not allergic to", "no known allergies", "NKDA", "turned out not to be
an allergy", a hypothetical ("if she's allergic"), or a question. After a correction ("No
wait." then "Keflex.") the new allergen replaces the session's last allergy (same entity).
The assistant's confirmation ("Noted: allergic to penicillin (hives)") only adds what the
user left out (the severity), to an allergy the user named this session.
"""

from __future__ import annotations

import re

from factlog.model import JsonValue
from factlog.reference.drugs import class_id, drug_classes, drug_index, generic_names
from factlog.typed.care import catch_up, person_of, third_person_taker
from factlog.typed.common import CORRECTION, conversation_fields
from factlog.typed.doses import AMOUNT, FREQUENCY
from factlog.typed.drug_names import Found, drug_names
from factlog.typed.model import Context, TypedFact
from factlog.typed.stance import ends_in_question, is_question_clause, is_request

ALLERGY = "allergy"

ALLERGY_CUE = re.compile(r"\ballerg(?:ic|y|ies)\b", re.I)
_REACTION_WORDS = (r"angioedema|hives|red (?:spots|blotches|patches|rash(?:es)?)|"
                   r"(?:face|lips?|tongue|eyes?) swell(?:s|ed)?|rash(?:es)?|swelling|"
                   r"swell(?:ed|s)? up|"
                   r"swollen|anaphyla(?:xis|ctic(?: shock| reaction)?)|"
                   r"itch(?:ing|y)|wheez\w*|nause\w*|"
                   r"throat (?:closing|closed|swelling|swelled|swell(?:s|ed)?(?: up| shut)?|closes|tightening)|"
                   r"trouble breathing|"
                   r"(?:couldn't|could not|can't) breathe|difficulty breathing|blisters|vomiting|nausea|welts")
# a reaction said without naming it: "makes me break out", "put me in the ER", "landed him in hospital"
_HOSPITAL = (r"(?:put|landed|sent)\s+(?:me|him|her|them)\s+(?:in|to|into)\s+(?:the\s+)?(?:ER|hospital|A&E|"
             r"emergency(?: room)?)|break(?:s|ing)?\s+(?:me\s+|him\s+|her\s+)?out|broke\s+(?:me\s+|him\s+|her\s+)?out|"
             r"(?:came|come|comes)\s+up\s+in")
_REACTIONS = re.compile(rf"\b(?:{_REACTION_WORDS}|{_HOSPITAL})\b", re.I)
# "angioedema on lisinopril", "a rash with the Bactrim"
_REACTION_ON = re.compile(rf"\b(?:{_REACTION_WORDS}|reaction)\s+(?:\w+\s+){{0,2}}?(?:on|with)\s+(?:the\s+|my\s+)?$",
                          re.I)
# a drug named as what caused a reaction: "X gives me hives", "a rash from X", "reacted badly to X"
_REACTS = re.compile(
    r"\b(?:react(?:s|ed)?\s+(?:really\s+|very\s+)?(?:badly|bad|poorly)?\s*to|(?:bad\s+|allergic\s+|severe\s+)?"
    r"reactions?\s+(?:to|from|with)|sensitive\s+to|(?:can't|cannot|can not)\s+tolerate)\b",
    re.I,
)
# "can't take X" is an allergy only with a reaction ("it makes my throat swell"), else a caution
_CANT_TAKE = re.compile(r"(?:\bcannot|\bcan not|\bcan't|n't)\s+(?:take|have|use)\b", re.I)
# the drug a reaction is blamed on is right after "from", "after", "on" ... or does the giving itself
_CAUSE_BEFORE = re.compile(
    r"\b(?:from|after|because of|due to|while on|(?:when|after|while) (?:i|he|she|they|we) (?:took|take|had|"
    r"started)|taking|took|started)\s+(?:the\s+|my\s+|his\s+|her\s+|some\s+|a\s+|an\s+)?$", re.I)
_CAUSE_AFTER = re.compile(r"\s*(?:\([^)]*\)\s*)?(?:always\s+|once\s+|also\s+)?(?:gives?|gave|makes?|made|giving|"
                          r"causes?|caused|broke|put|puts|landed|sent)\b", re.I)
# a drug, a dash or colon, then the reaction: "Sulfa drugs — bad rash", "codeine: hives"
_DASH_REACTION = re.compile(rf"\s*(?:drugs?|meds?|antibiotics?)?\s*(?:[—–:]|\s-)\s*(?:a\s+|an\s+)?"
                            rf"(?:(?:bad|severe|mild|terrible|awful|really bad)\s+)?(?:{_REACTION_WORDS})\b", re.I)
_TREATS = re.compile(r"\bfor\s+(?:the|a|my|his|her|this|that)?\s*(?:\w+\s+)?(?:hives|rash|itch\w*|swelling)\b", re.I)
_NOT_ALLERGIC = re.compile(
    r"\b(?:not|n't|never been|no(?: known| other| drug)*)\s+(?:really\s+|actually\s+)?(?:an?\s+)?"
    r"(?:allergic|allerg(?:y|ies))\b|\bno\s+[\w-]+\s+allerg|\bnkda\b|\bnever (?:had|reacted|been)\b|\boutgrew\b|"
    r"\btested negative\b|"
    r"\bnot (?:a\s+)?(?:true|real)\b|\bthought (?:i|he|she|they) (?:was|were) allergic\b|"
    r"\b(?:if|whether|in case|might be|may be|could be)\b[^.;]{0,25}\ballerg|\bno (?:reaction|problems?|issues?)\b",
    re.I,
)
_ALLERGEN_SPAN = re.compile(
    r"\b(?:allergic\s+(?:to|against)|allerg(?:y|ies)\s+(?:to|against|include|:)|allerg(?:y|ies)\s*[:-]|"
    r"allerg(?:y|ies)\s+(?P<be>is|are))\s*(?P<what>[^.;!?]*)",
    re.I,
)
_SPAN_END = re.compile(r"\b(?:but|because|since|which|so|when|after|from|i|it|that|she|he|they|was|is|gives?|"
                       r"gave|makes?|made)\b|,\s*(?:and\s+)?(?:i|it|she|he|they|the|my)\b", re.I)
_LIST_ITEMS = re.compile(r"\s*(?:,|\band\b|\bor\b|/|&)\s*", re.I)
_ABBREVIATIONS = {"pcn": "penicillin", "sulpha": "sulfa"}
_WORD_OF = re.compile(r"\b(?P<what>[A-Za-z][\w-]*)\s+allerg(?:y|ies)\b", re.I)
_NOT_ALLERGEN = frozenset(
    "it this that them something anything medicine medicines medication medications meds drugs drug the for my your "
    "his her our their any no other of these those some food seasonal an a bad severe mild known a lot lots many "
    "several few all kinds most really very also and nothing".split())
_CLASS_WORDS = re.compile(r"\s+(?:drugs?|medicines?|medications?|meds|antibiotics?|family|class|group)$", re.I)
_FACIAL = re.compile(r"\bswelling of (?:the |my |her |his )?(?P<part>face|lips?|tongue|throat|eyes?)\b|"
                     r"\b(?P<part2>face|lips?|tongue|throat|eyes?) (?:swell\w*|swollen|got swollen|blew up|puffed up|"
                     r"(?:become|becomes|became|get|gets|got|go|goes|went) (?:thick|big|fat|puffy|swollen))"
                     r"(?: up| shut)?\b", re.I)
_PARTS = {"face": "facial", "lips": "lip", "lip": "lip", "tongue": "tongue", "throat": "throat", "eye": "eye",
          "eyes": "eye"}
_DEGREE = re.compile(r"\b(?P<mild>mild(?:ly)?|slight(?:ly)?|a (?:little|bit))\b|"
                     r"\b(?P<severe>severe(?:ly)?|very bad|really bad|bad|terrible|awful|serious(?:ly)?|horrible)\b",
                     re.I)
_NORMAL_REACTION = {"swelled up": "swelling", "swell up": "swelling", "swells up": "swelling",
                    "swollen": "swelling", "itchy": "itching", "anaphylactic": "anaphylaxis",
                    "anaphylactic shock": "anaphylaxis", "anaphylactic reaction": "anaphylaxis",
                    "couldn't breathe": "trouble breathing", "could not breathe": "trouble breathing",
                    "can't breathe": "trouble breathing", "difficulty breathing": "trouble breathing",
                    "throat closed": "throat swelling", "throat closing": "throat swelling",
                    "throat swelled": "throat swelling", "throat swell": "throat swelling",
                    "throat swells": "throat swelling", "throat swell up": "throat swelling",
                    "throat swelled up": "throat swelling", "throat swell shut": "throat swelling",
                    "throat swelled shut": "throat swelling", "throat closes": "throat swelling",
                    "throat tightening": "throat swelling", "wheeze": "wheezing",
                    "wheezes": "wheezing", "wheezy": "wheezing", "nauseous": "nausea", "nauseated": "nausea"}
_RECAP = re.compile(r"^\W*(?:noted|recorded|saved|updated|got it|added|logged|confirmed|understood|"
                    r"i(?:'ve| have) (?:noted|added|recorded|updated|logged|saved))\b", re.I)
_LEAD = re.compile(r"^\W*(?:(?:definitely|actually|no|sorry|oh|it's|its|it is|it was|i mean|just|only|yes|yeah|yep|"
                   r"um|uh|well)\b[\s,]*)*", re.I)
_ALLERGY_CLAUSES = re.compile(r",?\s+(?:and|but)\s+(?=(?:my|our|his|her|their|I|I'm)\b)|;\s*", re.I)
_PRESCRIBED = re.compile(r"\b(?:prescrib\w*|take|taking|took|gave|started|put (?:me|him|her) on)\b", re.I)


def states_allergy(sentence: str) -> bool:
    """The sentence talks about an allergy or a reaction to a drug (the medication reader
    leaves it to this one)."""
    return bool(ALLERGY_CUE.search(sentence) or _REACTS.search(sentence) or _reaction_cause(sentence) is not None
                or _CANT_TAKE.search(sentence) and _REACTIONS.search(sentence) and not _TREATS.search(sentence)
                or _cant_have_class(sentence) is not None)


# a reason that makes "can't take X" a caution, not an allergy ("can't take Advil on Eliquis")
_OTHER_REASON = re.compile(r"\b(?:because|since|while|with my|on my|on the|due to|kidneys?|liver|stomach|"
                           r"pregnan\w*|breastfeeding|blood thinners?|until|before|after)\b", re.I)


def _cant_have_class(sentence: str) -> str | None:
    """ "I can't have sulfa", "she can't take penicillin": an allergy class said after "can't
    take/have" with no other reason given; the class word, or None."""
    cue = _CANT_TAKE.search(sentence)
    if cue is None or ends_in_question(sentence) or _OTHER_REASON.search(sentence, cue.end()):
        return None
    rest = sentence[cue.end():]
    found = drug_names().match(sentence, cue.end() + len(rest) - len(rest.lstrip()))
    if found is None:
        return None
    named = _class_of(found.group(0))
    if named is None or not drug_index().classes[named].allergy_group or generic_names(found.group(0)):
        return None
    return found.group(0)


def _reaction_cause(sentence: str) -> Found | None:
    """The drug a reaction is blamed on: "Bactrim gives me hives", "a rash after amoxicillin"."""
    if not _REACTIONS.search(sentence) or _TREATS.search(sentence):
        return None
    for found in drug_names().finditer(sentence):
        if not (generic_names(found.group(0)) or class_id(found.group(0))):
            continue
        if _CAUSE_BEFORE.search(sentence, 0, found.start()) or _CAUSE_AFTER.match(sentence, found.end()) \
                or _REACTION_ON.search(sentence, 0, found.start()) or _DASH_REACTION.match(sentence, found.end()):
            return found
    return None


def is_allergy_answer(sentence: str, context: Context) -> bool:
    """A sentence that starts with a drug or class name while the session asks about allergies."""
    asked = context.said[-2] if len(context.said) > 1 else ""
    if ALLERGY not in context.last and not (ends_in_question(asked) and ALLERGY_CUE.search(asked)):
        return False
    first = _answer_name(sentence)
    if first is None:
        return False
    rest = sentence[first.end():]
    return bool(re.match(r"^\s*(?:[.,;!:(\-–—]|$)", rest)) and not _PRESCRIBED.search(sentence) and \
        not AMOUNT.search(sentence) and not FREQUENCY.search(sentence)


def _answer_name(sentence: str) -> Found | None:
    lead = _LEAD.match(sentence)
    return drug_names().match(sentence, lead.end() if lead is not None else 0)


def read_allergies(sentence: str, context: Context) -> list[TypedFact]:
    catch_up(context, drug_names())
    if context.speaker != "user":
        return _recap(sentence, context) if _RECAP.search(sentence) else []
    asked = context.said[-2] if len(context.said) > 1 else ""
    if _STILL_SO.match(asked) and len(context.said) > 2 and ALLERGY_CUE.search(context.said[-3]):
        asked = f"{context.said[-3].rstrip('.!')}?"  # "I see a penicillin allergy on your chart. Is that accurate?"
    if _AFFIRM.match(sentence) and ends_in_question(asked) and ALLERGY_CUE.search(asked) \
            and not states_allergy(sentence) and not drug_names().search(sentence):
        # "Is that a penicillin allergy?" "Yes."; "Should I record it as a cephalosporin allergy?" "yep"
        # after "Keflex put me in the ER" is the allergy just named
        last = context.last.get(ALLERGY)
        return [fact for fact in _read(_YOU.sub("I am", _YOUR.sub("my", asked[:-1] + ".")), context)
                if last is None or last.key is None or fact.fields.get("drug_class") != last.fields.get("drug_class")]
    clauses = _ALLERGY_CLAUSES.split(sentence)
    if len(clauses) > 1 and sum(1 for c in clauses if ALLERGY_CUE.search(c)) > 1:  # one allergy a clause:
        return [fact for clause in clauses for fact in _read(clause, context)]  # each its own subject
    found = _read(sentence, context)
    if third_person_taker(sentence):  # "He's allergic to penicillin" with no one named: not the user's
        return [fact for fact in found if fact.fields.get("subject") != "user"]
    return found


def _statement(sentence: str) -> str:
    """The sentence without its question clauses ("I'm allergic to penicillin, is Keflex ok?");
    a request to note something ("Can you add that X gives him hives?") is a statement."""
    if not ends_in_question(sentence) or is_request(sentence):
        return sentence
    return ", ".join(part for part in re.split(r"\s*[,;]\s*|\s+but\s+", sentence)
                     if part and not is_question_clause(part))


def _read(sentence: str, context: Context) -> list[TypedFact]:
    previous_sentence = context.said[-2] if len(context.said) > 1 else ""
    last = context.last.get(ALLERGY)
    sentence = _statement(sentence)
    if not sentence:
        return []
    if not states_allergy(sentence):
        if not is_allergy_answer(sentence, context):
            return _follow_up(sentence, context)
        first = _answer_name(sentence)
        assert first is not None
        corrected = last is not None and (CORRECTION.search(previous_sentence) is not None
                                          or CORRECTION.search(sentence) is not None)
        return [_allergy(sentence, context, first.group(0), last if corrected else None)]
    if _NOT_ALLERGIC.search(sentence):
        return []
    allergens = _allergens(sentence)
    if not allergens:  # the session talks about allergies: what a later "penicillin." answers
        context.last.setdefault(ALLERGY, TypedFact(ALLERGY, None, {}))
        return []
    if len(allergens) == 1:
        return [_allergy(sentence, context, allergens[0], None)]
    segments = _segments(sentence, allergens)
    own = [severity(segment) for segment in segments]
    if not any(own):  # "allergic to penicillin and sulfa, hives with both": one severity for all
        return [_allergy(sentence, context, allergen, None) for allergen in allergens]
    return [_allergy(sentence, context, allergen, None, found) for allergen, found in zip(allergens, own, strict=True)]


def _segments(sentence: str, allergens: list[str]) -> list[str]:
    """Each allergen's words: from where it is named to where the next one is."""
    starts = []
    for allergen in allergens:
        found = re.search(rf"\b{re.escape(allergen)}\b", sentence, re.I)
        starts.append(found.start() if found is not None else -1)
    if any(start < 0 for start in starts) or starts != sorted(starts):
        return [sentence] * len(allergens)
    return [sentence[start:end] for start, end in zip(starts, [*starts[1:], len(sentence)], strict=True)]


def _allergens(sentence: str) -> list[str]:
    """What the sentence says the allergy is to: drug names first, else the first word."""
    span = _ALLERGEN_SPAN.search(sentence)
    if span is not None:
        what = span.group("what")
        end = _SPAN_END.search(what)
        what = what[:end.start()] if end is not None and end.start() > 0 else what
        lead = len(what) - len(what.lstrip(" :-"))  # "Allergic to: PCN, sulfa": the colon opens the list
        what = what[:lead] + re.split(r"\)?\s*:\s", what[lead:], maxsplit=1)[0]  # "ibuprofen (NSAIDs): your eyes ..."
        named = _specific(drug_names().finditer(what), what)
        if span.group("be") and not named:  # "the allergy is on file": no allergen named there
            return _word_allergen(sentence)
        others = [item for item in _LIST_ITEMS.split(re.sub(r"\([^)]*\)", "", what))
                  if item.strip() and not drug_names().search(item) and not _REACTIONS.search(item)
                  and not _DEGREE.search(item)]
        for item in others:  # "penicillin, latex": each item of a list is an allergen
            words = [w for w in re.findall(r"[A-Za-z][\w-]{2,}", item) if w.casefold() not in _NOT_ALLERGEN]
            if words and len(item.split()) <= 3 and (named or item is others[0]):
                named.append(words[0])
        if named:
            return named
    return _word_allergen(sentence)


# the allergen put first, as a non-native speaker may: "Against penicillin I am allergic", "To sulfa he is allergic"
_FRONTED = re.compile(r"^\W*(?:against|to)\s+(?P<what>[^,;.]+?)\s+(?:i|he|she|we|they|my \w+)\s+"
                      r"(?:am|is|are|'m|was|were|ha(?:ve|s) been)\s+(?:very\s+|really\s+)?allergic\b", re.I)


def _word_allergen(sentence: str) -> list[str]:
    """ "X allergy", else the drugs the sentence names."""
    fronted = _FRONTED.search(sentence)
    if fronted is not None:
        named = _specific(drug_names().finditer(fronted.group("what")), fronted.group("what"))
        words = [w for w in re.findall(r"[A-Za-z][\w-]*", fronted.group("what")) if w.casefold() not in _NOT_ALLERGEN]
        return named or words[:1]
    found = _WORD_OF.search(sentence)
    said_class = _class_of(found.group("what")) if found is not None else None
    if said_class is not None and not generic_names(found.group("what")):  # type: ignore[union-attr]
        drugs = _blamed(sentence)
        if drugs and all(said_class in drug_classes(d) for d in drugs):
            return drugs  # "I cannot take ibuprofen, my lips swell ... Doctor say is NSAID allergy": the drug
    if found is not None and found.group("what").casefold() not in _NOT_ALLERGEN and not re.search(
            rf"\b(?:the|her|his|their|your)\s+{re.escape(found.group('what'))}\s+allerg", sentence, re.I):
        return [found.group("what")]
    if found is not None and re.search(rf"\b(?:the|her|his|their|your)\s+{re.escape(found.group('what'))}\s+allerg",
                                       sentence, re.I):
        return []  # "aware of the penicillin allergy": one already stated
    cant = _cant_have_class(sentence)
    if cant is not None:
        return [cant]
    return _blamed(sentence)


def _blamed(sentence: str) -> list[str]:
    """The drugs a reaction or a "can't take" is said of ("I react badly to codeine")."""
    cue = _REACTS.search(sentence) or _CANT_TAKE.search(sentence)
    if cue is not None:  # "I react badly to codeine", "can't take aspirin, it makes my throat swell"
        after = sentence[cue.end():]
        stop = _SPAN_END.search(after)
        what = after[:stop.start()] if stop is not None else after
        return _specific(drug_names().finditer(what), what)[:2]
    cause = _reaction_cause(sentence)
    return [cause.group(0)] if cause is not None else []


def _specific(found: tuple[Found, ...], text: str = "") -> list[str]:
    """The drugs and classes named, in order; a class given an example of it is the example's
    ("sulfa medicine, Bactrim", "sulfa drugs like Bactrim"), but "penicillin and amoxicillin" are two."""
    named = [f for f in found if generic_names(f.group(0)) or class_id(f.group(0))]
    kept: list[str] = []
    for i, f in enumerate(named):
        name = f.group(0)
        if not generic_names(name) and any(_class_of(name) in drug_classes(k) for k in kept):
            continue  # "ibuprofen (NSAIDs)", "amoxicillin, a penicillin": the class of the drug just named
        if not generic_names(name):
            example = next((g for g in named[i + 1:i + 2] if _class_of(name) in drug_classes(g.group(0))), None)
            if example is not None and _EXAMPLE.match(text[f.end():example.start()]):
                continue
        kept.append(name)
    return list(dict.fromkeys(kept))


_EXAMPLE = re.compile(r"^\s*(?:drugs?|medicines?|medications?|meds|antibiotics?)?\s*(?:,|\(|-|:|like|such as|"
                      r"e\.g\.|i\.e\.|namely|especially|including|in particular)", re.I)


def _class_of(name: str) -> str | None:
    return "sulfonamides" if name.casefold() in ("sulfa", "sulpha") else class_id(name)


def severity(sentence: str) -> str | None:
    """The reactions a sentence names ("hives and facial swelling"), and how bad ("mild", "severe")."""
    text = _FACIAL.sub(lambda m: f"{_PARTS[(m.group('part') or m.group('part2')).lower()]} swelling", sentence)
    reactions: list[str] = []
    for m in re.finditer(rf"\b(?:(?:facial|lip|tongue|throat|eye) )?(?:{_REACTION_WORDS})\b", text, re.I):
        word = " ".join(m.group(0).casefold().split())
        reactions.append(_NORMAL_REACTION.get(word, word))
    reactions = [r for r in dict.fromkeys(reactions) if not (r == "swelling" and any(
        x.endswith(" swelling") for x in reactions))]
    degree = _DEGREE.search(sentence)
    how = None if degree is None else "mild" if degree.group("mild") else "severe"
    if reactions:
        words = " and ".join(reactions)
        return f"{how} {words}" if how else words
    return how if degree is not None and (degree.group("mild") or ALLERGY_CUE.search(sentence)) else None


def _follow_up(sentence: str, context: Context) -> list[TypedFact]:
    """The session's last allergy with the reaction a sentence naming no allergen gives
    ("The reaction in 2009 was hives and swelling of the face.")."""
    last = context.last.get(ALLERGY)
    if last is None or last.key is None or "severity" in last.fields or drug_names().search(sentence):
        return []
    if not re.search(r"\b(?:reaction|reacted|broke out|got|gave (?:me|her|him)|get|gets)\b", sentence, re.I):
        return []
    found = severity(sentence)
    if found is None:
        return []
    return [TypedFact(ALLERGY, last.key, {**last.fields, "severity": found, "speaker": context.speaker})]


def _allergen_fields(allergen: str) -> dict[str, JsonValue]:
    generics = generic_names(allergen)
    named_class = _class_of(allergen)
    if generics and named_class is None:
        fields: dict[str, JsonValue] = {"allergen": "/".join(generics)}
    else:
        said = _CLASS_WORDS.sub("", allergen.lower()) if named_class else allergen.lower()
        fields = {"allergen": _ABBREVIATIONS.get(said, said)}
    classes = (named_class,) if named_class is not None else drug_classes(allergen)
    index = drug_index()
    if named_class is None:
        classes = tuple(c for c in classes if index.classes[c].allergy_group) or classes
    if classes:
        fields["drug_class"] = classes[0].replace("_", " ")
    return fields


def _key(fields: dict[str, JsonValue], subject: str) -> str:
    allergen = str(fields["allergen"])
    allergen = allergen if "drug_class" in fields else allergen.rstrip("s")  # "cats" and "cat": one allergy
    return allergen if subject == "user" else f"{subject.casefold()}/{allergen}"


def _allergy(sentence: str, context: Context, allergen: str, replaces: TypedFact | None,
             own: str | None = "") -> TypedFact:
    """`own`: the severity of this allergen's words when the sentence names several ("" reads the sentence)."""
    fields = _allergen_fields(allergen)
    found = severity(sentence) if own == "" else own
    if found is not None:
        fields["severity"] = found
    subject, person = person_of(sentence, context, drug_names())
    if person is not None:
        fields["person"] = person
    key = _key(fields, subject)
    last = context.last.get(ALLERGY)
    if replaces is None and last is not None and last.key is not None and _class_of(allergen) is not None \
            and not generic_names(allergen) and last.fields.get("drug_class") == fields.get("drug_class") \
            and last.fields.get("allergen") != fields["allergen"] and last.fields.get("subject", "user") == subject:
        replaces = last  # "I cannot take ibuprofen ... Doctor say is NSAID allergy": the same allergy, its class named
        fields["allergen"] = last.fields["allergen"]
    if replaces is not None and replaces.key is not None:
        key = replaces.key
    elif last is not None and last.key is not None and last.fields.get("allergen") == fields["allergen"]:
        key = last.key  # "Definitely Keflex, I broke out in hives": the allergy just named
        fields = {**{k: v for k, v in last.fields.items() if k not in ("subject", "speaker")}, **fields}
    context.entities[f"{ALLERGY}:{key}"] = {**fields, "subject": subject}
    return TypedFact(ALLERGY, key, conversation_fields(context, subject, fields))


_STILL_SO = re.compile(r"^\W*(?:is|was) (?:that|this|it) (?:still )?(?:right|correct|accurate|true|up to date)\W*$",
                       re.I)
_AFFIRM = re.compile(r"^\W*(?:yes|yeah|yep|yup|correct|that's right|right|exactly)\b"
                     r"(?!\s*,?\s*(?:but|except|although|though))", re.I)
_YOUR = re.compile(r"\byour\b", re.I)
_YOU = re.compile(r"\byou(?:'re| are)\b", re.I)


def _same_allergen(context: Context, fields: dict[str, JsonValue]) -> dict[str, JsonValue] | None:
    """The one allergy this session named with this allergen, whoever's ("Lily" and "your daughter")."""
    found = [{**known, "_key": key.split(":", 1)[1]} for key, known in context.entities.items()
             if key.startswith(f"{ALLERGY}:") and known.get("allergen") == fields["allergen"]]
    return found[0] if len(found) == 1 else None


def _named_before(context: Context, allergen: str) -> bool:
    generics = set(generic_names(allergen))
    word = re.compile(rf"\b{re.escape(allergen)}\b", re.I)
    return any(word.search(said) or generics and any(set(generic_names(f.group(0))) & generics
                                                     for f in drug_names().finditer(said))
               for said in context.said[:-1])


def _recap(sentence: str, context: Context) -> list[TypedFact]:
    """What the assistant's confirmation adds to an allergy the user named this session."""
    if not states_allergy(sentence) or _NOT_ALLERGIC.search(sentence):
        return []
    mine = _YOU.sub("I am", _YOUR.sub("my", sentence))
    subject, person = person_of(mine, context, drug_names())
    out: list[TypedFact] = []
    for allergen in _allergens(sentence):
        fields = _allergen_fields(allergen)
        key = _key(fields, subject)
        known = context.entities.get(f"{ALLERGY}:{key}") or _same_allergen(context, fields)
        found = severity(sentence)
        if known is None:  # one the user's words named but no reading of them found
            if _named_before(context, allergen):
                fields.update({"severity": found} if found is not None else {})
                fields.update({"person": person} if person is not None else {})
                context.entities[f"{ALLERGY}:{key}"] = dict(fields)
                out.append(TypedFact(ALLERGY, key, conversation_fields(context, subject, fields)))
            continue
        key = str(known.get("_key", key))
        subject = str(known.get("subject", subject))  # "Ben, 9, ... Maya, 5, ...": the allergy's own person
        added: dict[str, JsonValue] = {}
        if found is not None and "severity" not in known:
            added["severity"] = found
        if person is not None and "person" not in known:
            added["person"] = person
        if added:
            stored = context.entities.setdefault(f"{ALLERGY}:{key}", {})
            stored.update({**{k: v for k, v in known.items() if k != "_key"}, **added})
            out.append(TypedFact(ALLERGY, key, conversation_fields(context, subject, dict(stored))))
    return out


# a sentence without one of these (or a drug name) states no allergy
TRIGGERS = (ALLERGY_CUE, _REACTIONS, _REACTS)

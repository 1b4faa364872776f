"""Stance: is a clause asserted as a fact by its speaker? The one owner of that rule.

A reader types a sentence only when its speaker states it. These families say when a
clause does not (each a compiled pattern and a predicate; readers ask the predicate and
keep their genuine per-domain exceptions at the call site, e.g. money still reads a
cancellation inside a hypothetical: "thinking about cancelling Hulu" decides it):

- question: the speaker asks. `ends_in_question` ("is it still $9.99 a month?");
  `opens_as_question`, an inverted auxiliary ("is my passport", "do I have") or a wh-word
  with an auxiliary ("when does", "how long is") at the start, so unpunctuated dictation
  ("can I take advil with this") is asked too, while "When I land I'll call" is not;
  `is_tag_question`, a statement asking to be confirmed ("..., right?"), is NOT asked;
  `is_question_clause` for one clause of a sentence that ends in "?" ("I'm on warfarin, is
  ibuprofen ok?": the second is asked);
  `is_yes_no_question` and `is_small_talk_question` for the assistant's closing question.
- request: the speaker asks the assistant to record something ("can you add that she's
  allergic to latex?", "can you put my team sync on the calendar?"): what it is to record is
  stated, so a request is no question.
- hypothetical: the speaker entertains it ("maybe", "might", "thinking about", "considering",
  "wondering", "not sure", "what if", "tempted", "would like to"): nothing is the case yet.
- conditional: the clause holds only if something else does ("if the invoice is right, pay
  it", "Unless it renews, ...", "in case"); a relevance aside ("..., if that matters", "if you
  need me"), "even if", "as if", a reported question ("I asked whether") and a trailing
  "unless" ("it renews on the 5th unless I cancel": the default is stated) are none.
- reported question: "I asked the bank whether the transfer went through" is no question
  and no conditional, but what was asked is not stated either (`reports_question`).
- tentative (`is_tentative`): hypothetical, conditional, asking oneself or a reported question.
- asking oneself: "should I", "could I", "do I", "can I", "would it": the speaker weighs it.
- plan: a tentative plan (`PLANNED`: "planning", "hoping", "haven't booked", "need to book");
  `is_to_do`: a task the speaker means to do ("need to call the dentist"), not an event yet;
  `states_intent`: a decision not yet carried out ("going to cancel", "will", "need to");
  `restates_intent`: the assistant restating the user's ("you'd like to cancel").
- advice: the assistant's general suggestion ("you could pay by check", "best to", "avoid").
- counterfactual (`is_counterfactual`): what the speaker believed, wished or ought to have
  done ("thought I'd more paid off than that", "I wish we'd paid it off", "should have
  cleared it by now"): the opposite is the case, so the clause states nothing done.
- capability: what someone can take or tolerates, not what they take ("I can take ibuprofen",
  "Ibuprofen I can take, only my stomach ...", "she tolerates codeine fine", "I'm able to take
  aspirin"): `states_capability(before, after)` of the words before and after the thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LEAD = r"^\W*(?:(?:and|but|so|also|oh|ok|okay|um|uh|well|hey|hi)\W+)*"
# an auxiliary opening a question before any subject; the weak ones open a statement with its
# subject dropped too ("Had a rash from it", "Do the transfer Friday", "Was the best trip"), so
# they ask only before a pronoun ("Had you", "Do I", "Was it"), not "Do it Friday" (an imperative)
_AUX = r"(?:is|are|am|does|did|can|could|should|would|will|shall|may)"
_WEAK_AUX = r"(?:do|was|were|have|has|had|might)"
_PRONOUN = r"(?:i|you|we|it|there|they|he|she)"
_SUBJECT = (rf"(?:{_PRONOUN}|that|this|these|those|my|your|our|his|her|their|the|a|an|any|"
            r"anyone|anything|someone|something)")
_WH = r"(?:how|what|when|where|which|why|who|whom|whose)"

QUESTION_MARK = re.compile(r"\?\s*$")
TAG_QUESTION = re.compile(r"(?:\bright|\bcorrect|\bisn't it|\bdoesn't it|\bok|\bokay|\byeah)\s*\?\s*$", re.I)
OPENS_AS_QUESTION = re.compile(
    rf"{_LEAD}(?:{_AUX}(?:n't)?\s+{_SUBJECT}\b|(?!do\s+(?:it|them)\b){_WEAK_AUX}(?:n't)?\s+{_PRONOUN}\b|"
    rf"{_WH}(?:'s|'re|'d)\b|"
    rf"{_WH}(?:\s+(?!{_SUBJECT}\b)[\w'-]+){{0,2}}\s+(?:{_AUX}|{_WEAK_AUX})(?:n't)?\b)", re.I)
QUESTION_CLAUSE = re.compile(
    r"^\W*(?:(?:and|but|so|also)\s+)?(?:is|are|am|can|could|should|would|will|do|does|did|may|what|how|which|why|"
    r"any)\b|"
    r"\b(?:should|can|could|may|do) (?:i|we|he|she|they)\b|\b(?:safe|ok|okay)\b", re.I)
YES_NO_QUESTION = re.compile(
    r"^(?:[^,?]{0,40},\s*)?(?:would|do|does|did|are|is|have|has|can|could|will|shall|should|may)\b", re.I)
SMALL_TALK_QUESTION = re.compile(
    r"\b(?:anything else|is (?:that|this|everything|it) (?:all )?(?:correct|right|ok|okay|acceptable|all)|"
    r"(?:does|will|would) (?:that|this|it) (?:work|sound)|sound good|any (?:other |more )?questions|"
    r"(?:can|may) i help|how are you|how can i help)\b", re.I)
# an idea thought of and dropped in the same breath: "thinking of Toronto but no, not doing that"
REJECTED = re.compile(r"\b(?:thinking|thought|considered|considering|looking at|looked at)\b[^.;]*?\b(?:but no|"
                      r"not doing (?:that|it)|decided against|ruled (?:it|that) out|gave up on|(?:but|so) skip)\b",
                      re.I)
# a judgement on taking something, not a taking: "the pharmacist said it's fine to take Claritin with lisinopril"
SAFETY_JUDGEMENT = re.compile(r"\b(?:it's|it is|its|that's|that is)\s+(?:fine|ok|okay|safe|alright|all right|not safe|"
                              r"dangerous|bad)\s+to\s+(?:take|mix|use|combine)\b", re.I)
# a statement put to the user to confirm: "..., is that right?", "So to confirm, you're taking ...?"
CHECK_BACK = re.compile(r"\b(?:is|was) (?:that|this|it) (?:still )?(?:right|correct|accurate|true|up to date)\W*$|"
                        r"\b(?:right|correct)\?\W*$|^\W*(?:so,?\s+|just\s+)?to confirm\b", re.I)
# the opening of a check-back whose rest is the statement ("Just to confirm: $2,800 to Brian on Friday?")
CHECK_BACK_OPENING = re.compile(
    r"^\W*(?:just\s+)?(?:to\s+)?(?:confirm|double-check|check)(?:ing)?\b[\s:,;-]*(?:that\s+)?", re.I)
# the assistant's recap put as a question: "So that's Thai Airways to Bangkok, 20 June to 4 July?"
RECAP_QUESTION = re.compile(r"^\W*(?:so\s+)?(?:that's|that is|it's|it is|you're|you are|you'll be|confirming:?)\s+"
                            r"(?P<body>[^?]+?)\s*,?\s*(?:right|correct|is that right)?\s*\?\s*$", re.I)
REQUEST = re.compile(r"\b(?:can|could|would|will) you (?:please )?(?:add|note|record|put|write|save|update|log|"
                     r"remember|keep|list|make a note|take (?:a )?note|jot|mark)\b", re.I)
HYPOTHETICAL = re.compile(
    r"\b(?:maybe|might|perhaps|thinking (?:about|of)|considering|debating|tempted|wondering|not sure|"
    r"hoping to|(?:would|'d) (?:like|love) to|suppose|supposing|what if|looking into|"
    # what is usually done, said to set it aside: "normally he'd give amoxicillin but ...", "would have given"
    r"(?:normally|usually|ordinarily|typically|otherwise)\b[^.;]{0,25}?(?:\bwould|'d)(?=\s)|"
    r"would(?:\s+have|'ve)\s+(?:given|prescribed|put|gone with|used))\b", re.I)
# a leading condition ("If ..., ...", "Unless ..."); mid-sentence only "if", "in case", "whether":
# "it renews on the 5th unless I cancel" states the renewal
CONDITIONAL = re.compile(r"^\W*(?:(?:and|but|so|oh|ok|okay)\W+)?(?:if|unless|in case|whether)\b|"
                         r"\b(?:if|in case|whether)\b", re.I)
# "..., if that matters", "if you need me": the assertion holds either way
_RELEVANCE = re.compile(
    r"\b(?:if|in case)\s+(?:that|it|this)\s+(?:matters|helps|is relevant|makes a difference)\b|"
    r"\bif (?:you|u) (?:need|want|wanna|have|like|ask)\b|\bif (?:needed|necessary|possible|anything|so)\b|"
    r"\bin case (?:you|u) (?:need|want|were wondering|wonder)\w*\b|\bas if\b|\beven if\b|"
    # a degree qualified in an aside: "till about four, later if Margaret gets going", "or longer if needed"
    r"\b(?:later|longer|earlier|sooner|more|less|shorter)\s+if\b", re.I)
SELF_ASK = re.compile(r"\b(?:should i|could i|can i|do i|would it)\b", re.I)
REPORTED = re.compile(r"\b(?:asked|asking|ask|asks|wondered|inquired|enquired|checked|checking|find out)\b"
                      r"[^.;?]{0,40}?\b(?:if|whether)\b", re.I)
_TENTATIVE_CUE = re.compile("|".join(p.pattern for p in (HYPOTHETICAL, CONDITIONAL, SELF_ASK)), re.I)
# the verbs that open a tentative plan ("thinking about going", "hoping to fly"), for readers'
# triggers: `rf"\b{PLAN_OPENERS} (?:\w+ ){{0,2}}?go\b"`
PLAN_OPENERS = (r"(?:thinking (?:about|of)|might|maybe|perhaps|planning (?:on|to)|plan (?:to|on)|considering|"
                r"hoping to|hope to|want to|(?:would|'d) (?:like|love) to|wanna|debating|tempted to)")
PLANNED = re.compile(
    r"\b(?:thinking (?:about|of)|might|maybe|perhaps|planning|plan (?:to|on)|considering|hoping|hope to|"
    r"would (?:like|love)|'d (?:like|love)|want to|wanna|looking (?:at|into)|dreaming|someday|could|"
    r"not sure|if i|haven'?t booked|have not booked|not booked|didn'?t book|yet to book|need to book|should i|"
    r"nothing(?:'s| is)? booked|not booking|no booking|not yet booked|before booking)\b",
    re.I,
)
TO_DO = re.compile(r"\b(?:'ll|will|need to|have to|must|should|gotta|going to|remind me to|want to)\s+"
                   r"(?:call|phone|ring|email|text|contact|book|schedule|make|set up|arrange)\b", re.I)
INTENT = re.compile(
    r"\b(?:will|'ll|gonna|going to|intend\w* to|plan\w* to|want to|meant to|need to|have to|should|"
    r"mentioned|said you'?d|about to|before it)\b", re.I)
RESTATED_INTENT = re.compile(r"\byou(?:'d| would| will|'ll| plan| intend| want| mentioned| said| are going)\b",
                             re.I)
ADVICE = re.compile(r"\b(?:could|should|might|may want|consider|recommend\w*|suggest\w*|best to|better to|"
                    r"make sure|always|never|safest|safer|avoid|tip)\b", re.I)


def ends_in_question(text: str) -> bool:
    """The clause ends in a question mark ("is it still $9.99 a month?")."""
    return QUESTION_MARK.search(text) is not None


def is_tag_question(text: str) -> bool:
    """A statement asking only to be confirmed ("it expires in May, right?"): still stated."""
    return TAG_QUESTION.search(text) is not None


def opens_as_question(text: str) -> bool:
    """Inverted auxiliary or wh-word with an auxiliary at the start ("do I have", "when does")."""
    return OPENS_AS_QUESTION.match(text) is not None


def is_question(text: str) -> bool:
    """The speaker asks: a question mark that is no tag, or a question's opening; a request
    to record ("can you put my team sync on the calendar?") is no question."""
    return (ends_in_question(text) and not is_tag_question(text) or opens_as_question(text)) and not is_request(text)


def is_question_clause(clause: str) -> bool:
    """One clause of a sentence ending in "?" is the asked one ("..., is Keflex ok?")."""
    return QUESTION_CLAUSE.search(clause) is not None


def is_yes_no_question(text: str) -> bool:
    """A question a bare "yes" or "ok" answers ("Would you like the aisle?")."""
    return YES_NO_QUESTION.match(text) is not None


def is_small_talk_question(text: str) -> bool:
    """A closing question whose answer carries nothing ("Anything else?", "Does that work?")."""
    return SMALL_TALK_QUESTION.search(text) is not None


def drops_idea(text: str) -> bool:
    """An idea weighed and dropped in the same breath ("thought about Lisbon but decided against it")."""
    return REJECTED.search(text) is not None


def judges_safety(text: str) -> bool:
    """A judgement on whether something is safe to take ("it's fine to take ... with ...")."""
    return SAFETY_JUDGEMENT.search(text) is not None


def is_check_back(text: str) -> bool:
    """The assistant puts a statement to the user to confirm ("..., is that right?")."""
    return CHECK_BACK.search(text) is not None


def checked_back(text: str) -> str | None:
    """The statement a check-back or a recap puts to the user ("Just to confirm: $2,800 to Brian on
    Friday?" -> "$2,800 to Brian on Friday."; "So that's Thai Airways to Bangkok, 20 June to 4 July?"
    -> "Thai Airways to Bangkok, 20 June to 4 July."), or None."""
    opening, recap = CHECK_BACK_OPENING.match(text), RECAP_QUESTION.match(text)
    stated = text[opening.end():].rstrip(" ?") if opening is not None else recap.group("body") if recap else ""
    return f"{stated[:1].upper()}{stated[1:]}." if stated else None


# what a rule asks for, not what a document says: "your passport would need to be valid until 5
# September", "it must be valid for six months", "Thailand requires validity until ..."
REQUIREMENT = re.compile(
    r"\b(?:would|will|must|should|needs?|has|have|ought)\s+(?:(?:still|also)\s+)?(?:need\s+)?(?:to\s+)?"
    r"(?:be|stay|remain)\s+valid\b|\brequire[sd]?\b[^.;]{0,60}?\bvalid\w*\b|\bvalid\w*\s+(?:is\s+)?required\b",
    re.I)


def states_requirement(text: str) -> bool:
    """A rule's requirement on a document ("would need to be valid until 5 September"): its
    dates are the rule's, not the document's."""
    return REQUIREMENT.search(text) is not None


def is_request(text: str) -> bool:
    """A request to record something ("can you note that ..."): what follows is stated."""
    return REQUEST.search(text) is not None


def is_hypothetical(text: str) -> bool:
    """Entertained, not the case ("maybe", "thinking about", "what if", "not sure")."""
    return HYPOTHETICAL.search(text) is not None


def is_conditional(text: str) -> bool:
    """Holds only if something else does ("if the invoice checks out, pay it"); a relevance
    aside ("if that matters") or a reported question ("I asked whether") is none."""
    if CONDITIONAL.search(text) is None:
        return False
    plain = _RELEVANCE.sub(" ", REPORTED.sub(" ", text))
    return CONDITIONAL.search(plain) is not None


def reports_question(text: str) -> bool:
    """A reported question ("I asked the bank whether the transfer went through"): the asking is
    stated, what was asked is not."""
    return REPORTED.search(text) is not None


def is_tentative(text: str) -> bool:
    """Hypothetical, conditional, weighed by the speaker or asked of someone: not (yet) the case."""
    if _TENTATIVE_CUE.search(text) is None:  # one scan for the common sentence that has none
        return False
    return is_hypothetical(text) or is_conditional(text) or asks_oneself(text) or reports_question(text)


def asks_oneself(text: str) -> bool:
    """The speaker weighs it ("should I", "do I", "would it")."""
    return SELF_ASK.search(text) is not None


def is_planned(text: str) -> bool:
    """A tentative plan, not booked or done ("planning to", "haven't booked", "hoping")."""
    return PLANNED.search(text) is not None


def is_to_do(text: str) -> bool:
    """A task the speaker means to do ("need to call the dentist"): no event yet."""
    return TO_DO.search(text) is not None


def states_intent(text: str) -> bool:
    """A decision not yet carried out ("going to cancel", "need to", "will")."""
    return INTENT.search(text) is not None


def restates_intent(text: str) -> bool:
    """The assistant restating the user's intent ("you'd like to cancel")."""
    return RESTATED_INTENT.search(text) is not None


def is_advice(text: str) -> bool:
    """The assistant's general suggestion ("you could pay by check", "best to", "avoid")."""
    return ADVICE.search(text) is not None


COUNTERFACTUAL = re.compile(
    r"\b(?:thought|assumed|figured|was sure|hoped)\s+(?:that\s+)?(?:i|we|it|he|she|they)(?:'d|’d|\s+had|\s+would|"
    r"\s+was|'s)\b|\b(?:i|we)\s+wish\s+(?:that\s+)?(?:i|we|it)\b|"
    r"\b(?:should|could|would|must)(?:\s+not|n't|n’t)?\s+have\s+(?:\w+ed|been|paid|cleared|done)\b|"
    r"\b(?:should|could|would)(?:'ve|’ve)\b|\bif only\b", re.I)


def is_counterfactual(text: str) -> bool:
    """A belief, wish or duty that did not come true ("thought I'd paid it off", "should
    have cleared it")."""
    return COUNTERFACTUAL.search(text) is not None


CAPABILITY_BEFORE = re.compile(r"\b(?:i|we)\s+(?:can|could)\s+(?:still\s+|safely\s+|also\s+)?"
                               r"(?:take|have|use|tolerate)\s+$|"
                               r"\b(?:able|allowed|fine|okay|ok)\s+to\s+(?:take|have|use)\s+$|\btolerates?\s+$", re.I)
CAPABILITY_AFTER = re.compile(r"^\W*(?:i|you|he|she|we|they)\s+(?:can|could)\s+(?:still\s+|safely\s+)?"
                              r"(?:take|have|use|tolerate)(?:\s+(?:it|them))?\s*(?:$|[,.;!]|"
                              r"\s+(?:fine|okay|ok|no problem|"
                              r"without (?:a |any )?(?:problems?|issues?|trouble))\b)|"
                              r"^\W*(?:is|are)\s+(?:fine|ok|okay|no problem)\s+for\s+(?:me|him|her|us)\b", re.I)


def states_capability(before: str, after: str = "") -> bool:
    """The thing between `before` and `after` is one someone can take, not one they take; one
    allowed for a present complaint ("I can take Tylenol for the fever") is taken."""
    if _FOR_COMPLAINT.match(after):
        return False
    return CAPABILITY_BEFORE.search(before) is not None or CAPABILITY_AFTER.search(after) is not None


_FOR_COMPLAINT = re.compile(r"^[\w\s.]{0,20}?\bfor\s+(?:the|my|his|her|their|this|a|an)\s", re.I)


@dataclass(frozen=True)
class Stance:
    """How a clause is said; `asserted` when none of the families applies."""

    question: bool
    request: bool
    hypothetical: bool
    conditional: bool

    @property
    def asserted(self) -> bool:
        return self.request or not (self.question or self.hypothetical or self.conditional)


def stance_of(text: str) -> Stance:
    return Stance(question=is_question(text), request=is_request(text), hypothetical=is_hypothetical(text),
                  conditional=is_conditional(text))

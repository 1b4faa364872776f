"""Payment instructions and accounts from a sentence: an instruction's payee, amount,
from and to account, who asked, date, reference and status; a purchase with its price
and seller as a payment made; accounts by institution, kind and last four digits.

Entities and keys:
- a payment instruction is keyed by payee and the session's time, so corrections within a
  session update one instruction while instructions of different sessions stay apart
  (conflicting instructions are found across them); a cancellation ("kill the autopay",
  "no payment be released") is its own instruction with status "cancelled";
- an account is keyed by its last four digits, or by institution and kind.

A payment is "done" (past tense), "cancelled" or "pending". A clause `factlog.typed.money`
reads as a subscription, a card balance or a bill due is not also an instruction: this
reader runs before money's on each sentence and asks money's clause reader, on a copy of
the session's memory, what it will find. The amount, date and name helpers are money's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta

from factlog.model import JsonValue
from factlog.relations import FEMALE, family_word
from factlog.typed import money
from factlog.typed.accounts import account_name, accounts, from_account, held_by, holder, to_account
from factlog.typed.care import catch_up
from factlog.typed.common import RELATIONS, conversation_fields, relation_of, whose
from factlog.typed.model import Context, TypedFact
from factlog.typed.money import (
    BILLER,
    CONFIRMING,
    PAYMENT_WORDS,
    amounts,
    charge_date,
    clauses,
    dates_in,
    session_day,
)
from factlog.typed.payees import TRADES, payee_of, reference, requester, trade_named
from factlog.typed.payment_forms import form_line, pasted_voice
from factlog.typed.payment_sessions import (
    bank_notice,
    earlier_instruction,
    known_payee_named,
    known_payee_paid,
    latest_pending,
    paid_as_planned,
)
from factlog.typed.spoken import spoken_amounts
from factlog.typed.stance import is_advice, is_question, is_tentative
from factlog.typed.triggers import Triggers

DOMAIN = "payments"  # not "payment": the reader keeps its last instruction under that name itself

_ACT = re.compile(
    r"\b(?:pay|pays|paying|paid|send|sends|sending|sent|wire|wires|wiring|wired|transfer|transfers|transferred|"
    r"e-?transfer(?:s|red|ring)?|"
    r"transferring|zelle\w*|venmo\w*|remit\w*|autopay|ach|owe|owes|owed|"
    r"mov(?:e|ed|ing)\s+(?=\$|\d|[a-z]+\s+(?:hundred|thousand|grand)\b|(?:a|one)\s+grand\b)|"
    r"(?:goes|go|comes|come|going) out|put\s+(?:it|that|this|them)\s+on|"
    r"(?:to\s+)?go\s+to(?=\s+(?-i:[A-Z])|\s+(?:(?:a|an|the|his|her|their|our|my)\s+)?(?:new\s+)?(?:account|bank))|"
    r"settle[ds]?|settling|auto-?debit\w*|direct debit|debited|drafted|"
    r"(?:mail\w*|write|wrote|writing|cut|cutting|give|gave)\s+"
    r"(?:\w+\s+){0,2}(?:a\s+)?(?:check|cheque)|(?:schedule|set up|make|release)\w*\s+(?:\S+\s+){0,3}"
    r"(?:payments?|fees|transfers?|standing order|direct debit|installments?)|standing order)\b",
    re.I)
_BILLED = re.compile(r"\b(?:invoice|inv)\b", re.I)
_BOUGHT = re.compile(r"\b(?:bought|purchased|purchase|ordered|got|installed by|put in|spent|picked up|grabbed|snagged|"
                     r"splurged on|paid\b[^.;]*?\bfor|paid (?:\w+ )?with)\b", re.I)
_BUYER = re.compile(rf"\b(?:my|our)\s+(?P<rel>{'|'.join(RELATIONS)})\s+(?:\w+\s+)?(?:bought|purchased|ordered|got|"
                    r"picked up|paid)\b", re.I)
# a sentence without one of these states no payment, unless it amends the session's last one
_MAYBE = re.compile("|".join(f"(?:{p.pattern})" for p in (_ACT, PAYMENT_WORDS, _BILLED, _BOUGHT)) +
                    r"|\b(?:hold|don't|do not|dont|never|not|cancel\w*|kill|stop|pause|deposit)\b", re.I)
_STOP = re.compile(
    r"\b(?:no payment (?:be |is |to be |should be )?(?:released|made|sent)|kill the|cancel(?:led|ling)? (?:the|that|it|"
    r"this|my|our)|stop (?:the|that|it|payment)|(?:be|is|was|has been) cancell?ed|hold (?:the|that|it|off|on)|"
    r"put (?:\w+ )?on hold|"
    r"(?:don't|do not|dont|never|not)(?: to)? (?:pay|send|wire|release|transfer)|pause (?:the|it)|"
    r"(?:should|must|will|does|do|is)(?:n't| not) (?:go|be sent|be paid) out|not (?:to )?go out)\b", re.I)
_NO_PAYMENT = re.compile(
    r"\b(?:estimated tax payment|payment is due|payments? are due|pay(?:s|ing)? (?:attention|a visit|off|for itself|"
    r"dividends|respects|tribute)|it pays|(?:get|gets|got|getting|i'm|i am|we were|i was) paid\b|"
    r"(?:paid|pay|pays|sent|send|owes?|reimburse[sd]?|venmo(?:ed)?|zelled) me\b|"
    r"(?:i|we) (?:sent|issued|emailed) (?:an |the |my |our )?invoice|"
    r"invoiced|refund|paycheck|salary|pay ?rise|pay ?raise|pay ?stub|payday|pay period|back from|"
    r"got (?:\S+ ){1,3}back)",
    re.I)
_PAID_THING = re.compile(r"\b(?:pay\w*|paid|wire\w*|transfer\w*|autopay|deposit|invoice|inv|check|cheque|zelle|"
                         r"venmo|ach|installment|retainer|remittance|"
                         r"send (?:\w+ )?(?:anything|any money|money|funds))\b", re.I)
# a postponement: "push the Green Thumb payment out to the 24th", "bump it to next wed"; the new day follows it
_POSTPONE = re.compile(
    r"\b(?:push|pushed|bump|bumped|move|moved|postpone|postponed|delay|delayed|hold off)\s+(?:[\w'’-]+\s+){0,4}?"
    r"(?:out\s+|back\s+)?(?:to|till|until)\s+(?=(?:the\s+)?\d|next\b|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|"
    r"jun|jul|aug|sep|oct|nov|dec|tomorrow|the\s+\w+(?:st|nd|rd|th)\b)", re.I)
_AMENDING = re.compile(
    r"\b(?:actually|updated?|make (?:it|that)|change (?:it|that)|correction|sorry|i meant|i mean|instead|rather|"
    r"scratch that|my mistake|wrong|oops|no wait|wait no|wait,|hang on|no no|no sorry|sorry no|er no|"
    r"let me correct|correction)\b|" + _POSTPONE.pattern, re.I)
# "ok. do it the 1st", "send it Friday then": the session's payment, now dated
_DO_IT = re.compile(r"^\W*(?:(?:ok|okay|yes|yep|fine|right|alright|then)\W+)?(?:do|send|make|schedule|pay)\s+"
                    r"(?:it|that|them)\b", re.I)
# "$85 on the 20th from checking", "and from the Chase business checking, not the Amex"
_CONTINUING = re.compile(r"^\W*(?:\$\s?\d|\d[\d,.]*\s*(?:dollars?|bucks|k)\b|(?:and\s+|also\s+)?(?:from|out of)\s+"
                         r"(?:the|my|our)\s+(?:[\w&'-]+\s+){0,3}(?:checking|chequing|savings|account|card)\b"
                         # "on the first of september please.": the day of the instruction just given
                         r"|(?:and\s+)?(?:on|by)\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\b|first|second|third|fourth|fifth|"
                         r"[a-z]+(?:teenth|tieth|th)\b|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\b|"
                         r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d))", re.I)
# stance: "still haven't paid State Farm", "you'll need to pay it": a bill unpaid, no payment (h-bills2)
_UNPAID = re.compile(r"\b(?:haven't|have not|hasn't|has not|didn't|did not|not yet|never)\s+(?:\w+\s+)?paid\b|"
                     r"\bnot (?:been )?paid(?: yet)?\b|\byou(?:'ll| will)? need to pay\b", re.I)
_PAST = re.compile(
    r"\b(?:paid|sent|wired|transferred|e-?transferred|mailed|zelled|venmoed|zelle'd|venmo'd|gave|wrote|"
    r"made the payment|covered|"
    r"settled|moved|"
    r"put|cleared|went through|gone through|posted|processed|went out|gone out|came out|debited|deducted)\b", re.I)
# a payment reported settled: "the $2,300 payment to Apex cleared", "the wire went through"
_SETTLED = re.compile(r"\b(?:payment|wire|transfer|deposit|check|cheque|zelle|e-?transfer|ach|remittance|rent|"
                      r"installment|retainer)\b[^.;?]{0,60}?\b(?:cleared|went through|(?:has|have|had)\s+gone through|"
                      r"(?:has|was|got)\s+(?:been\s+)?(?:processed|posted|received)|posted|went out|came out)\b",
                      re.I)
_FUTURE = re.compile(
    r"\b(?:will|'ll|going to|gonna|schedul\w*|need to|needs to|have to|has to|want\w* (?:me |us )?to|"
    r"plan\w* to|(?:i|we|you|he|she|they)'d|would|shall|please|tomorrow|tmrw|next|asks?|asked (?:me|us|that|to)|"
    r"should|must|to be paid|"
    r"is to|are to|about to|set up|goes|go by|instruct\w*|request\w*|is paying|are paying|shes paying|'s paying|"
    r"am paying|i'm paying|im paying|paying on|pay on|"
    r"(?:wants?|needs?|would like)\s+(?:[\w&.'-]+\s+){1,4}(?:paid|sent|settled|wired|transferred)\b)", re.I)
_SAME = re.compile(r"\bsame\s+(?:[\w'-]+\s+)?(?:account|card|checking|savings|chequing)\b", re.I)
_SAME_DAY = re.compile(r"\bsame (?:day|date|time)\b", re.I)
_IMPERATIVE = re.compile(r"^\W*(?:please\s+|pls\s+)?(?:put|pay|send|wire|transfer|move|use|charge|make|zelle|venmo)\b",
                         re.I)  # "Put it on the Amex." is an instruction, not a payment made
# the assistant restating a known instruction, or a consequence, instructs nothing new
_RESTATED = re.compile(r"\b(?:is|are)\s+still\s+(?:set|planned|scheduled|due|going|on|booked|queued|lined up|pending)\b"
                       r"|\b(?:would|will|'ll|'d|gonna|going to)\s+(?:\w+\s+){0,2}(?:pay|paying|be paid|get paid|"
                       r"be paying)\b[^.;]*\b(?:twice|double|two times)\b", re.I)
# a stop under a condition: "unless you cancel it"
_CONDITIONAL_STOP = re.compile(r"\b(?:unless|if|whether|or|in case)\s+(?:[\w'’]+\s+){0,3}$", re.I)
_MADE_AMOUNT = re.compile(r"\bmake\s+(?:it|that|(?:\w+['’]s\s+)?(?:payment|transfer|wire|deposit|one))\s+\$?"
                          r"(?P<n>\d{1,3}(?:,\d{3})+|\d{2,6})\b(?!\s*(?:am|pm|%|st|nd|rd|th)\b)", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i'll|i've|we|we're|we'll)\b", re.I)
_TRADE_WORD = "|".join(sorted(TRADES, key=len, reverse=True))
_THEIRS = re.compile(  # "my sister Hannah is paying her contractor": the relative's own payment
    rf"\b(?:my|our)\s+(?P<rel>{'|'.join(RELATIONS)})(?:\s+(?-i:[A-Z])\w+)?\s+(?:is\s+|'s\s+|will\s+|already\s+)*"
    rf"(?:paying|pays|paid|pay|sending|sends|sent)\s+(?:his|her|their)\s+(?:own\s+)?(?P<trade>{_TRADE_WORD})\b", re.I)
_YOU_ALSO = re.compile(r",?\s+and\s+(?=you(?:['’]ll|\s+will)\b)", re.I)
# the user stopping their own earlier instruction: "so cancel mine for Ethan", "stop my payment"
# (not the user's own plan: "I'll cancel mine" is not done yet, the conflict stands until it is)
_CANCEL_MINE = re.compile(r"(?<!\bi'll )(?<!\bi’ll )(?<!\bi will )(?<!\bgonna )(?<!\bgoing to )(?<!\bneed to )"
                          r"(?<!\bshould )\b(?:cancel|stop|scrap|drop|hold|void)\s+"
                          r"(?:mine|my\s+(?:one|payment|transfer))\b", re.I)
_ALSO = re.compile(r",?\s+and\s+(?=(?:i|i'm|im|i'll|we|we're|we'll|also|a separate|another|a second)\b)"
                   r"|,\s+(?=(?:she|he|they|we|i)\s+(?:has\s+|have\s+|had\s+|'s\s+)?already\b)", re.I)
_OWN_TRANSFER = re.compile(r"\b(?:move|moving|moved|transfer\w*|shift\w*)\b[^.;]*?\bto\s+(?:(?:my|our|your|the)\s+"
                           r"(?P<acct>(?:(?:(?-i:[A-Z])[\w&]*|personal|business|joint|household|emergency|main|"
                           r"primary|high-yield)\s+){0,2}(?:checking|savings|chequing|account|card)?)|"
                           r"(?P<bare>(?:personal\s+|business\s+|joint\s+)?(?:checking|savings|chequing)\b))", re.I)
_IT = re.compile(r"\b(?:it|that)\b", re.I)
_MOVE_IT = re.compile(r"\b(?:move|moving|transfer\w*|shift\w*)\s+(?:it|that|this)\b", re.I)
_THAT_ONE = re.compile(r"\b(?:that|this)\s+(?:transfer|payment|wire|deposit|invoice|bill|check|cheque)\b"
                       r"|\bthe\s+(?:transfer|payment|wire|deposit)\b", re.I)
# "the CFO emailed asking to change the vendor's bank details": an instruction about where the money goes
_NEW_DETAILS = re.compile(r"\b(?:chang\w*|updat\w*|switch\w*)\s+(?:the\s+|their\s+|his\s+|her\s+|its\s+)?"
                          r"(?:[\w'’]+\s+)?(?:bank(?:ing)?|account|payment|wire|remittance)\s+(?:details|info\w*|account)",
                          re.I)
_TOLD_TODAY = re.compile(r"\b(?:talked|spoke|called|rang|emailed|texted|messaged|met|saw|heard|said)\b[^,.;]{0,30}"
                         r"\b(?:today|this morning|just now)\b", re.I)
# "landlord (Priya) wants the deposit top-up, $900"
_WANTS_MONEY = re.compile(r"\b(?:wants|needs|is asking for|asked for|asks for|is owed|is due)\s+"
                          r"(?:(?:the|his|her|their|my|our)\s+)?(?:[\w-]+\s+){0,3}?[\w-]*,?\s*\$\s?\d", re.I)
_TAKING = "of course|sure|certainly|absolutely|will do|all set"
# "$2,800 to Brian Fitch on Friday", "$1,875 to your landlord": a recap or check-back of an instruction
_AMOUNT_TO = re.compile(rf"^\W*(?:(?:noted|recorded|confirmed|saved|updated|got it|ok|okay|so|done|understood|"
                        rf"scheduled|set|yes|yep|correct|right|{_TAKING})\W+)?\$\s?\d[\d,.]*k?\s+to\s+(?:(?-i:[A-Z])|(?:the|my|our|your)\s+(?:{_TRADE_WORD})\b)",
                        re.I)
# the assistant taking on an instruction just given ("Of course: $2,480 to Harbor Linen Supply ..."), not a "Yes:"
# answering whether an old one still stands
_TAKEN_ON = re.compile(rf"^\W*(?:{_TAKING})\W+\$\s?\d[\d,.]*k?\s+to\s+"
                       rf"(?:(?-i:[A-Z])|(?:the|my|our|your)\s+(?:{_TRADE_WORD})\b)", re.I)
_WEEKDAY = re.compile(r"\b(?:on\s+|this\s+|last\s+|next\s+)?(?P<day>mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
                      r"(?:day|nesday|urday|\.)?\b", re.I)  # "wed"+"nesday", "sat"+"urday"
_DAY_N = re.compile(r"\b(?:the\s+|on\s+)?day\s+(?P<d>[1-9]|[12]\d|3[01])\b(?!\s*(?:of\s+(?:the\s+)?)?(?:trip|week|"
                    r"stay|course|cycle|treatment)\b)", re.I)


def _ordinal(match: re.Match[str]) -> str:
    day = int(match.group("d"))
    suffix = "th" if 10 < day % 100 < 14 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"the {day}{suffix}"


_VAGUE = re.compile(r"\b(?:this|next|that)\s+(?:week|month)\b", re.I)
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_NOW = re.compile(r"\b(?:just now|today|this morning|this afternoon|tonight|earlier today)\b", re.I)
_TOMORROW = re.compile(r"\b(?:tmrw|tmr|tmw|2morrow)\b", re.I)
# a number without "$" after a pay verb and its person ("pay Tom 300", "paid jess back the 40",
# "send to her 150 extra", "move 500 from business checking"); never a date ("on the 20"), an
# invoice number, a time or a count ("sent 3 invoices")
_BARE_AMOUNT = re.compile(
    r"\b(?:(?:the\s+)?(?:whole|full|entire|remaining)|owe[sd]?|pay|paid|send|sent|zelle[ds]?|zelle'd|venmo(?:ed|s|'d)?|"
    r"give|gave|"
    r"transfer(?:red)?|mov(?:e|ed|ing)|wire[sd]?)\s+(?:(?!(?:invoice|inv|order|number|no|bill|ref|reference|account|acct|ending|check|cheque|on|by|"
    r"before|until|till|after|due|at|around|from|in|of)\b)[a-z]+\s+){0,3}"
    r"(?P<n>\d{1,3}(?:,\d{3})+|\d{2,6})\b(?![.,:/-]\d)"
    r"(?!\s*(?:am|pm|%|st|nd|rd|th|percent|minutes?|hours?|days?|weeks?|months?|years?|times|of|invoices?|bills?|"
    r"items?|people|kids|pieces|boxes|units|pages|texts|emails|messages)\b)", re.I)


# a bare number with its period in payment talk: "950 monthly from the 1st", "1150 a month"
_PERIODIC_AMOUNT = re.compile(r"(?<![\w.,/:$])(?P<n>\d{1,3}(?:,\d{3})+|\d{2,6})\s+(?:a\s+month|per\s+month|monthly|"
                              r"a\s+week|per\s+week|weekly|/\s?mo(?:nth)?)\b", re.I)


# every payment or account sentence has one of these (a cheap test run on every sentence)
_TRIGGER = Triggers((re.compile(
    r"\$\s?\d|[€£]|\b[x#]\d{4}\b|\b\d+(?:\.\d)?k\b|\b(?:pay\w*|paid|send\w*|sent|wir\w+|transfer\w*|zell\w*|"
    r"venmo\w*|paypal|ach|autopay|invoice\w*|inv|deposit|rent|mortgage|owe[sd]?|check|cheque|mail\w*|bought|"
    r"purchased?|ordered|got|picked|grabbed|snagged|splurged|spent|hold|cancel\w*|kill|stop|pause|dollars?|bucks|"
    r"checking|savings|account|card|ending|finish\w*|order|ref|reference|memo|sorry|actually|instead|wrong|meant|"
    r"make|move[ds]?|moving|goes|debit\w*|drafted|installment|retainer|remit\w*|release|gave|wrote|installed|put|"
    r"cover\w*|settled|updated?|correction|oops|scratch|mistake|banks?|acct|do (?:it|that|them)|iban|recipient|"
    r"beneficiary|biller|cleared|posted|texted|messaged|e-?mailed|wrote|forwarded|instructions?|orders|requests?)\b"
    r"|^\W*(?:deliver|send|payment|scheduled|process|confirmation|status|date)[\w #.]{0,20}:", re.I),))  # a form line


def triggered(sentence: str) -> bool:
    """Whether the sentence may state a payment or an account (reader.py runs `read` only then)."""
    return _TRIGGER.search(sentence)


_FILLER = re.compile(r"(?<![\w'])(?:uh+|um+|erm|er|hmm+|uhm)\b,?\s*", re.I)  # dictation: "send uh the plumber"
# "Operating (First Citizens ...2206)": the bank and the last four digits of the account named before it
_BANK_IN_BRACKETS = re.compile(r"\s*\(\s*(?P<bank>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*){0,3})?\s*"
                               r"(?:\.{2,}|[*•xX#]{1,4}|ending\s+(?:in\s+)?)\s?(?P<d>\d{4})\s*\)")
_PARENTHESISED = re.compile(r"\s*\((?P<name>(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z])[\w'.-]*)?)\)")  # "landlord (Priya)"


def spoken_form(sentence: str) -> str:
    """The sentence without dictation fillers, a name in brackets set off by commas."""
    sentence = _FILLER.sub("", sentence)
    sentence = _BANK_IN_BRACKETS.sub(lambda m: (f" at {m.group('bank')}" if m.group("bank") else "")
                                     + f" ending {m.group('d')}", sentence)
    return _PARENTHESISED.sub(lambda m: f", {m.group('name')},", sentence)


def read(sentence: str, context: Context) -> list[TypedFact]:
    """Each clause in turn ("wife pays it from her card. told me to kill the autopay")."""
    sentence = spoken_form(sentence)
    pasted = form_line(sentence, context)  # "Payee: Evergreen Dental", then "Amount: $1,250.00"
    if pasted is not None:
        return pasted
    voiced = pasted_voice(sentence, context)  # "[6:02 PM] Marisol: paid him from the joint account"
    if voiced is not None:
        context.last[_WRITER] = TypedFact("payment", None, {"name": voiced[0]})
        try:
            return _read(voiced[1], context)
        finally:
            context.last.pop(_WRITER, None)
    return _read(sentence, context)


_WRITER = "pasted-writer"  # whose pasted line is being read


def _read(sentence: str, context: Context) -> list[TypedFact]:
    kept = _not_cancelled(sentence, context)
    if kept is not None:
        return kept
    noticed = bank_notice(sentence, context)
    if noticed is not None:
        return noticed
    paying = _MAYBE.search(sentence) is not None or _AMOUNT_TO.search(sentence) is not None or \
        _resumes(sentence, context) or (
        context.last.get("payment") is not None and (_AMENDING.search(sentence) or _CONTINUING.match(sentence)
                                                     or _DO_IT.match(sentence)
                                                     or _NUMBERED.search(sentence)))
    probe = replace(context, last=dict(context.last)) if paying else None  # what money will make of each clause
    facts: list[TypedFact] = []
    for clause in clauses(sentence):
        facts += read_clause(clause, context, probe)
    return facts


def read_clause(sentence: str, context: Context, probe: Context | None) -> list[TypedFact]:
    if context.speaker == "assistant" and not CONFIRMING.search(sentence) and not _TAKEN_ON.match(sentence):
        return []  # the assistant's general advice names nothing of the user's
    facts: list[TypedFact] = []
    if probe is not None and not money.read_clause(sentence, probe):
        for part in _instructions(sentence):
            facts += _payment(part, context)
    facts += accounts(sentence, context)
    return facts


_NUMBERED = re.compile(r"\b(?:order|invoice|ref|reference|memo)\b", re.I)
_CLAUSE_BREAK = re.compile(r",(?!\d)| and ")  # not the comma of "$1,800"
_CONTRAST = re.compile(r",?\s+\b(?:while|whereas)\b|,\s+(?:so|because|since|but|if|unless|though|although)\b"
                       # "..., and your Thursday payment ... is still on the list": a restatement after it
                       r"|,\s+and\s+(?=(?:your|the|my|our)\b[^.;]{0,80}?\b(?:is|are)\s+still\b)", re.I)


def _instructions(sentence: str) -> list[str]:
    """A clause that both pays and stops a payment ("your wife will pay it from her card, and
    she asked you to cancel the autopay from checking") read as two instructions."""
    contrast = _CONTRAST.search(sentence)
    if contrast is not None and _ACT.search(sentence[: contrast.start()]):
        tail = sentence[contrast.end():]
        halt = _STOP.search(tail)
        if halt is not None and not _CONDITIONAL_STOP.search(tail[: halt.start()]):
            return [sentence[: contrast.start()], tail]  # "... was already paid in May, so don't pay it tomorrow"
        sentence = sentence[: contrast.start()]  # "... a check, while your Zelle payment is still planned"
    yours = _YOU_ALSO.search(sentence)  # the assistant's "your BM-3301 payment is cancelled, and you'll pay BM-3302"
    if yours is not None and _STOP.search(sentence[: yours.start()]) and _ACT.search(sentence[yours.end():]):
        return [sentence[: yours.start()], sentence[yours.end():]]
    also = _ALSO.search(sentence)
    if also is not None and _ACT.search(sentence[: also.start()]) and \
            re.search(rf"{_ACT.pattern}|\$\s?\d", sentence[also.end():], re.I):
        return [sentence[: also.start()], sentence[also.end():]]  # "my sister is paying ..., and I'm paying ..."
    stop = _STOP.search(sentence)
    if stop is None or stop.start() == 0:
        return [sentence]
    cuts = [m.start() for m in _CLAUSE_BREAK.finditer(sentence, 0, stop.start())]
    cut = cuts[-1] if cuts else -1
    head, tail = sentence[:cut], sentence[cut:].lstrip(" ,")
    if cut <= 0 or _ACT.search(head) is None or _STOP.search(head) is not None:
        return [sentence]
    return [head, tail]


# --- payments ------------------------------------------------------------------------


def _payee_of_reference(ref: str, context: Context) -> str | None:
    """The payee of the one payment this session or an earlier one gave the reference `ref`."""
    def folded(text: object) -> str:
        return re.sub(r"[\W_]+", "", str(text)).casefold()

    known = [*context.prior.of_kind("payment"), *((f.key or "", f.fields) for f in context.last.values()
                                                  if f.kind == "payment")]
    payees = {str(fields["payee"]) for _, fields in known
              if fields.get("payee") and folded(fields.get("reference", "")) == folded(ref)}
    return payees.pop() if len(payees) == 1 else None


def _cancel_mine(sentence: str, context: Context) -> list[TypedFact]:
    """ "So cancel mine" after another person paid: the user's one pending instruction of an earlier
    session is cancelled (under its key, so it is pending no more)."""
    previous = context.last.get("payment")
    if context.speaker != "user" or not _CANCEL_MINE.search(sentence) or previous is None \
            or previous.fields.get("status") != "done":
        return []
    pending = [(key, fields) for key, fields in context.prior.of_kind("payment")
               if fields.get("status") == "pending" and fields.get("subject") in (None, "user")]
    if len(pending) != 1:
        return []
    key, fields = pending[0]
    context.last[_MINE] = TypedFact("payment", key, {"payee": fields.get("payee"), "status": "pending"})
    return [TypedFact("payment", key, conversation_fields(context, "user", {
        "payee": fields.get("payee"), "status": "cancelled", "requested_by": "user"}))]


_MINE = "payment/cancelled-mine"  # the user's own instruction "cancel mine" just cancelled
_CANT_CANCEL = re.compile(r"\b(?:can(?:'t|’t|not)|(?:am|'m|’m)\s+(?:unable|not able)\s+to|"
                          r"won(?:'t|’t)\s+be\s+able\s+to)\s+(?:cancel|stop)\b", re.I)


def _not_cancelled(sentence: str, context: Context) -> list[TypedFact] | None:
    """The assistant's "I can't cancel it myself" after the user's "cancel mine": that instruction
    is still pending (the cancellation is only meant); None when the sentence is no such answer."""
    mine = context.last.get(_MINE)
    if context.speaker != "assistant" or mine is None or not _CANT_CANCEL.search(sentence):
        return None
    del context.last[_MINE]
    return [TypedFact("payment", mine.key, conversation_fields(context, "user", dict(mine.fields)))]


def _payment(sentence: str, context: Context) -> list[TypedFact]:
    bought = _purchase(sentence, context)
    if bought:
        return bought
    mine = _cancel_mine(sentence, context)
    if mine:
        return mine
    if is_question(sentence) or _NO_PAYMENT.search(sentence) or _RESTATED.search(sentence) \
            or _UNPAID.search(sentence):
        return []
    previous = context.last.get("payment")
    stop = _STOP.search(sentence)
    condition = _CONDITIONAL_STOP.search(sentence[: stop.start()]) if stop is not None else None
    if condition is not None:  # "... unless you cancel it", "if we don't stop it": no one asked to stop
        sentence, stop = sentence[: condition.start()], None
        if _ACT.search(sentence) is None:
            return []
    if stop is not None and not (_PAID_THING.search(sentence) or (
            (previous is not None or known_payee_named(sentence, context) is not None) and re.search(
                r"\b(?:it|that|this|them|him|her)\b", sentence[stop.start():], re.I))):
        stop = None  # "cancel our trip" stops no payment; "he covered Linden, so don't send it" does
    cancelled = stop is not None
    found = amounts(sentence, context) or spoken_amounts(sentence) or \
        [float(m.group("n").replace(",", ""))
         for m in (*_MADE_AMOUNT.finditer(sentence), *_BARE_AMOUNT.finditer(sentence),
                   *_PERIODIC_AMOUNT.finditer(sentence))]
    ref = reference(sentence)
    amending = previous is not None and (
        _AMENDING.search(sentence) is not None or _CONTINUING.match(sentence) is not None
        or _DO_IT.match(sentence) is not None
        or (ref is not None and _ACT.search(sentence) is None and re.search(r"\b(?:order|invoice)\b", sentence, re.I)
            is not None)) and (context.recent is None or context.recent.kind == "payment" or bool(found) or bool(ref))
    amending = amending or (previous is None and (_resumes(sentence, context) or (
        _POSTPONE.search(sentence) is not None and latest_pending(context) is not None)))  # "push it to the 20th"
    acting = cancelled or any(p.search(sentence) is not None for p in (_ACT, _AMOUNT_TO, _NEW_DETAILS, _SETTLED)) or (
        _WANTS_MONEY.search(sentence) is not None and requester(sentence, context) is not None)  # a person asks
    if not (acting or amending or _BILLED.search(sentence) or PAYMENT_WORDS.search(sentence)):
        return []
    if is_tentative(sentence) and not cancelled:
        return []
    if context.speaker == "assistant" and is_advice(sentence):
        return []  # "You could pay the contractor the $2,000 by check": advice, not the user's instruction
    theirs = _THEIRS.search(sentence)
    who = requester(sentence, context) if theirs is None else None
    payer = _paid_themselves(sentence, context) if theirs is None else None
    if payer is not None:  # "Beatrice had already paid Kowalski herself": her own payment, asked by her
        who = payer
    if who is None and cancelled and context.said and context.said[-1] != sentence:
        who = requester(context.said[-1], context)  # "she says it was paid in May, so don't pay it": she asks
        if who is not None and previous is not None and previous.fields.get("subject") == who and \
                previous.fields.get("status") == "done":
            who = None  # "your husband paid BM-3301 ...; your BM-3301 payment is cancelled": he paid, not asked
    payee = payee_of(sentence, who, context) if theirs is None else theirs.group("trade").lower()
    if cancelled and payee is not None and payee == who and context.said and context.said[-1] != sentence:
        payee = known_payee_named(context.said[-1], context) or payee  # "Imran says Linden was paid, so don't pay them"
    if payee is None and re.search(r"\b(?:him|her|them)\b", sentence, re.I):
        payee = known_payee_named(sentence, context)  # "Tom finished early so I paid him"
    if payee is None:
        payee = known_payee_paid(sentence, context)  # "he paid cedar creek at pickup"
    if payee is None and previous is None and re.search(r"\b(?:it|that|them)\b", sentence, re.I):
        payee = next((str(f.fields["payee"]) for name, f in reversed(context.last.items())
                      if name.startswith("payee/") and name.count("/") == 1), None)  # "... already transferred it"
        if payee is None and _ACT.search(sentence) and context.speaker == "user":
            owed = _owed_before(sentence, context)  # "Green Thumb Gardens have finished ... $380. I'll pay it"
            if owed is not None:
                payee, owed_amounts = owed
                found = found or owed_amounts
    earlier = earlier_instruction(payee, context) if previous is None else None
    if payee is None and who is not None and who not in RELATIONS and who != "user" and \
            (ref is not None or re.search(r"\b(?:their|his|her|its)\b", sentence, re.I)):
        payee = (_payee_of_reference(ref, context) if ref is not None and _PAYER.search(sentence) else None) or \
            who  # "an email from Bella Catering saying to send the BC-221 payment to their new account";
        # "So Sam paid invoice 77810 at ...": that invoice's payee, not Sam
    notice = context.last.get("bank-change")
    if payee is None and notice is not None and re.search(r"\b(?:our|new)\s+(?:bank\s+)?account\b", sentence, re.I):
        payee = str(notice.fields["payee"])  # "please remit all payments ... to our new account"
        who = who or payee
        earlier = earlier_instruction(payee, context) if previous is None else None
    stops_it = stop is not None and (_THAT_ONE.search(sentence) or _IT.search(sentence, stop.start()))
    if payee is None and previous is None and (stops_it or _AMENDING.search(sentence) and (
            found or dates_in(sentence, context) or _POSTPONE.search(sentence))):
        named = known_payee_named(context.said[-1], context) if context.said else None  # "the Golden Mill invoice"
        earlier = earlier_instruction(named, context) if named is not None else None
        earlier = earlier or latest_pending(context)  # "cancel that transfer from joint" (a session before)
        payee = str(earlier[1]["payee"]) if earlier is not None and "payee" in earlier[1] else None
    own = _OWN_TRANSFER.search(sentence) if payee is None and not (previous is not None and (
        _AMENDING.search(sentence) or _MOVE_IT.search(sentence))) else None  # a new transfer, not "move it to savings"
    if own is not None and (own.group("acct") or own.group("bare") or "").strip():
        payee = account_name(own.group("acct") or own.group("bare"), context)  # "from joint to my Chase"
    if payee is None and ref is not None and (known := _payee_of_reference(ref, context)) is not None:
        payee = known  # "Paid this one on Monday ..., ref AL-2207": that invoice's payee
        earlier = earlier_instruction(payee, context) if previous is None else None
    if payee is None:
        if previous is None:
            return []
        payee = str(previous.fields["payee"])
    periodic = payee in ("rent", "mortgage")  # paid by what it is: even a bare mention instructs
    if periodic:
        payee = _collector(payee, context) or payee  # "send June rent to his wife's account": the landlord's
    if earlier is not None and len(str(earlier[1].get("payee", "")).split()) > len(payee.split()):
        payee = str(earlier[1]["payee"])  # "Dave", after "Dave Kowalski" a session before
    payee, named = _session_name(payee, context)
    scope = sentence[stop.start():] if stop is not None else sentence  # a cancellation's own account and date
    fields: dict[str, JsonValue] = {"payee": payee}
    scoped = (amounts(scope, context) or spoken_amounts(scope)) if cancelled else found
    if scoped:
        fields["amount_usd"] = scoped[-1] if _AMENDING.search(sentence) else scoped[0]
    if who is None and _WRITER in context.last:
        who = _self(context)  # a line pasted from Marisol asks what she asks
    if who is None and cancelled and previous is not None and "requested_by" in previous.fields and \
            previous.fields.get("subject") in (None, "user"):  # not from a relative's own payment ("his account")
        who = str(previous.fields["requested_by"])
    act = _ACT.search(sentence)
    if who is not None:
        fields["requested_by"] = who
    elif theirs is None and context.speaker == "user" and (
            (previous is None and not _THIRD_PAYER.search(sentence))
            or (act is not None and _FIRST_PERSON.search(sentence[: act.start()]))):
        fields["requested_by"] = _self(context)
    before = previous.fields if previous is not None else earlier[1] if earlier is not None else {}
    if _SAME.search(scope) and "from_account" in before:
        fields["from_account"] = before["from_account"]
    else:
        owner = who if who is not None or previous is None or previous.fields.get("payee") != payee else \
            previous.fields.get("requested_by")
        fix = _AMENDING.search(scope)  # "2.5k fri from checking - no wait from savings": the account said after
        source = (from_account(scope[fix.end():], context, str(owner) if owner is not None else None)
                  if fix is not None else None) or \
            from_account(scope, context, str(owner) if owner is not None else None)
        if source is not None:
            fields["from_account"] = source
    target = to_account(scope) or (payee if own is not None else None)
    if target is not None:
        fields["to_account"] = target
    status = "cancelled" if cancelled else _status(scope, previous is not None)
    if status == "done" and _IMPERATIVE.search(scope):
        status = "pending"
    if status == "done" and who is not None and who != "user" and "from_account" in fields and \
            _WRITER not in context.last and \
            not re.search(r"\b(?:my|our|your)\s+(?:own\s+)?(?:[\w&'-]+\s+){0,3}?(?:card|account|checking|chequing|"
                          r"savings)\b", scope, re.I) and \
            str(fields["from_account"]) in ("card", "account", "credit card", "debit card", "checking", "savings"):
        fields["from_account"] = f"{who}'s {fields['from_account']}"  # "she settled it by card": her card
    later = _POSTPONE.search(scope)
    when = _when(scope[later.end():] if later is not None else scope, context, status)
    if when is None and _SAME_DAY.search(scope) and "scheduled_date" in before:
        when = str(before["scheduled_date"])
    if when is not None:
        fields["scheduled_date"] = when
        today = session_day(context)
        if status == "done" and today is not None and when > today.isoformat():
            status = "pending"  # "sent on the 20th" said on the 14th: not yet
    if ref is None and cancelled and context.said and context.said[-1] != sentence:
        ref = reference(context.said[-1])  # "invoice GM-5581 was paid in May, so don't pay it": that invoice
    if ref is not None:
        fields["reference"] = ref
    elif re.search(r"\bautopay\b", scope, re.I):
        fields["reference"] = "autopay"
    if status is not None:
        fields["status"] = status
    if not (acting or amending) and not (found and ref):
        return []  # "the invoice" alone: an invoice with its amount and number is owed, a bare mention is not
    if previous is not None and not cancelled and set(fields) <= {"payee", "requested_by", "status"}:
        return []  # "Actually, yes!": nothing new about the session's payment
    if not cancelled and set(fields) <= {"payee", "requested_by", "status", "reference"} and previous is None \
            and not periodic and not (_SETTLED.search(sentence) and fields.get("status") == "done") \
            and not (earlier is not None and fields.get("status") == "done"
                     and fields.get("requested_by") not in (None, "user") and _paid_by(sentence, who)) \
            and not BILLER.search(sentence) and notice is None:
        return []  # (a bank-change notice names the new account on its next lines)
    key = f"{named.casefold()}/{_session(context)}" + ("/cancel" if cancelled else "")
    said = context.last.get(f"payee/{named.casefold()}")
    amount = fields.get("amount_usd")
    same_amount = context.last.get(f"payee/{named.casefold()}/{amount}")
    if not cancelled and same_amount is not None and same_amount.key is not None:
        key = same_amount.key  # the assistant restating the $2,000 payment, not the $450 one
    elif said is not None and said.key is not None and not cancelled and not said.key.endswith("/cancel"):
        if not _AMENDING.search(sentence) and amount is not None and \
                said.fields.get("amount_usd") not in (None, amount):
            key = f"{said.key}/{amount:g}"  # "also sending Tom a separate $450": a second payment to one payee
        else:
            key = said.key
    if earlier is not None and previous is None and not cancelled and (_AMENDING.search(sentence) or paid_as_planned(
            fields, earlier[1])) and \
            fields.get("requested_by") in (None, "user") and earlier[1].get("requested_by") in (None, "user") and \
            not _THIRD_PAYER.search(sentence):
        key = earlier[0]  # "actually make Brian's payment 3,200": the user's own correction supersedes
        fields = {**{k: v for k, v in earlier[1].items() if k in ("from_account", "scheduled_date", "to_account",
                                                                   "reference", "requested_by")}, **fields}
    whose_it_is = payer or _whose(sentence, theirs)
    theirs_before = str(previous.fields.get("subject", "user")) if previous is not None else "user"
    if context.speaker == "assistant" and previous is not None and theirs_before != "user" and \
            whose_it_is == "user" and previous.key == f"{key}/{theirs_before.casefold()}" and \
            not re.search(r"\byou(?:r|['’]ll|['’]re|['’]ve)?\b", sentence, re.I):
        whose_it_is, key = theirs_before, previous.key  # the assistant restating her own payment ("Beatrice paid")
    elif payer is not None and not key.endswith(f"/{payer.casefold()}"):
        key = f"{key}/{payer.casefold()}"  # a relative's own payment is not the user's instruction to that payee
    elif whose_it_is == "user" and theirs_before != "user" and previous is not None and \
            key == previous.key and key.endswith(f"/{theirs_before.casefold()}"):
        key = key.removesuffix(f"/{theirs_before.casefold()}")  # "..., and you'll pay BM-3302": the user's again
    if previous is not None and previous.key == key:
        fields = {**{k: v for k, v in previous.fields.items() if k in ("requested_by", "reference")}, **fields}
    elif not cancelled and key not in _keys_said(context):  # a new instruction
        if "requested_by" not in fields and theirs is None and context.speaker == "user":
            fields["requested_by"] = _self(context)
        if "status" not in fields:
            fields["status"] = "pending"
    subject = whose_it_is
    asker = str(fields.get("requested_by", "user"))
    owners = (asker, whose(asker, context))
    if payer is None and theirs is None and asker != "user" and fields.get("status") == "done" and (
            _OWN_ACCOUNT.search(scope) or re.search(rf"\b{re.escape(asker)}['’]s\s+{_OWN_KIND}", scope, re.I)
            or fields.get("from_account") in [f"{who}'s {card}" for who in owners for card in _CARDS]):
        subject = asker  # "Sam paid it at pickup on his Amex": his own payment (conventions: blind2, h-pay3)
    elif payer is None and previous is not None and previous.key == key and subject == "user":
        subject = str(previous.fields.get("subject", "user"))  # "same invoice 77810." adds to Sam's payment
    fact = TypedFact("payment", key, conversation_fields(context, subject, fields))
    if not cancelled:
        context.last["payment"] = fact
    context.last[f"payee/{named.casefold()}"] = TypedFact("payment", key, {
        "payee": payee, **({"amount_usd": amount} if amount is not None else {})})
    if amount is not None:
        context.last[f"payee/{named.casefold()}/{amount}"] = TypedFact("payment", key, {"payee": payee})
    return [fact]


_COLLECTS = {"rent": re.compile(r"\b(?:landlord|landlady|property manage\w*|letting agent)\b", re.I),
             "mortgage": re.compile(r"\b(?:lender|mortgage company|servicer)\b", re.I)}


def _collector(what: str, context: Context) -> str | None:
    """Who collects the rent (mortgage) the sentence pays: the payee an earlier rent
    instruction named, or "landlord" when this session or an earlier instruction speaks of one."""
    for _, fields in reversed(context.prior.of_kind("payment")):
        payee = str(fields.get("payee", ""))
        if payee and payee != what and (_COLLECTS[what].search(payee) or
                                        str(fields.get("reference", "")).casefold().endswith(what)):
            return payee
    spoken = [said for said in context.said if _COLLECTS[what].search(said)]
    named = next((name for said in reversed(spoken) if (name := trade_named(said, _COLLECTS[what])) is not None), None)
    if named is not None:
        return named  # "My landlord Gary send me message"
    return "landlord" if what == "rent" and any(said in context.said[-4:] for said in spoken) else None


def _paid_by(sentence: str, who: str | None) -> bool:
    """`who` (or "she"/"he") is the one the sentence says paid ("Marisol paid him", "she already
    sent tyler the money"), not only the one who told of it ("Lena says it was already paid")."""
    if re.search(r"\b(?:she|he)\s+(?:has\s+|had\s+|'s\s+|already\s+|just\s+|also\s+)*(?:paid|sent|settled|covered|"
                 r"transferred|wired|mailed|zelled|venmoed)\b", sentence, re.I):
        return True
    return who is not None and re.search(rf"\b{re.escape(who)}\s+(?:has\s+|had\s+|already\s+|just\s+)*(?:paid|sent|"
                                         r"settled|covered|transferred|wired|mailed|zelled|venmoed)\b",
                                         sentence, re.I) is not None


def _owed_before(sentence: str, context: Context) -> tuple[str, list[float]] | None:
    """The payee and amounts of the sentence just before this one in the session, when it
    states money owed to a named business without a payment word ("Right, the landscapers -
    Green Thumb Gardens - have finished the wall. $380 for the last bit."), for "I'll pay it"."""
    whole = context.said[-1] if context.said else ""
    at = whole.find(sentence)
    said = " ".join([*context.said[-3:-1], whole[:at] if at > 0 else ""])  # the two sentences before, in order
    owed = amounts(said, context) or spoken_amounts(said)
    if not owed and not _BILLED.search(said):
        return None
    payee = payee_of(said, None, context)
    return (payee, owed) if payee is not None else None


def _self(context: Context) -> str:
    """Who "I" is: the user, or the writer of a message the user pasted (`pasted_voice`)."""
    writer = context.last.get(_WRITER)
    return str(writer.fields["name"]) if writer is not None else "user"


def _keys_said(context: Context) -> set[str]:
    return {str(f.key) for name, f in context.last.items() if name.startswith("payee/")}


def _resumes(sentence: str, context: Context) -> bool:
    """The sentence corrects an earlier session's pending instruction without naming it
    ("actually make it 3,200", "change of plan, the 20th instead")."""
    return _AMENDING.search(sentence) is not None and latest_pending(context) is not None and (
        bool(_MADE_AMOUNT.search(sentence) or amounts(sentence, context) or dates_in(sentence, context)))


# someone else paid it, not the user: "she already paid mike"
_THIRD_PAYER = re.compile(r"\b(?:she|he|they)\s+(?:has\s+|had\s+|have\s+|'s\s+|already\s+|just\s+|also\s+)*"
                          r"(?:paid|sent|settled|covered|transferred|wired|mailed|zelled|venmoed|e-?transferred)\b",
                          re.I)
# someone paid it: "Sam paid invoice 77810"
_PAYER = re.compile(r"\b(?-i:[A-Z])[a-z]+\s+(?:already\s+|just\s+)?(?:paid|settled|covered)\b", re.I)
_OWN_KIND = r"(?:own\s+)?(?:[\w&'-]+\s+){0,2}?(?:card|account|checking|chequing|savings|amex|visa|mastercard)\b"
_CARDS = ("card", "credit card", "debit card")  # "she settled it by card": her own card (a checking may be joint)
_OWN_ACCOUNT = re.compile(rf"\b(?:his|her|their)\s+{_OWN_KIND}", re.I)


# someone known to the conversation who paid it themselves: "Beatrice had already paid Kowalski herself",
# "Dana paid the plumber from her own account"
_PAID_THEMSELVES = re.compile(r"(?:(?:^|[.;:,]\s+|\b(?:and|but|so|that)\s+)"
                              r"(?:(?P<pron>(?i:he|she))|(?P<name>(?-i:[A-Z][a-z]+)))|"
                              rf"\b(?:my|our|your)\s+(?P<rel>{'|'.join(RELATIONS)}))\s+(?:had\s+|has\s+)?"
                              r"(?:already\s+|just\s+)?(?:paid|settled|sent)\b[^.;!?]{0,90}?"
                              r"\b(?:herself|himself|themselves|(?:from|on|with|out\s+of)\s+(?:his|her|their)\s+(?:own\s+)?(?:[\w-]+\s+)?"
                              r"(?:account|card|savings|checking|chequing|money)\b)", re.I)


def _paid_themselves(sentence: str, context: Context) -> str | None:
    """The relation word (else the name) of a known person who paid it with their own money, or None."""
    match = _PAID_THEMSELVES.search(sentence)
    if match is None:
        return None
    if match.group("rel"):
        return family_word(match.group("rel")) or match.group("rel").lower()
    if match.group("pron"):  # "My brother's just rung. He already paid Joy ... from his own account"
        catch_up(context)
        focus = context.focus
        rel = (relation_of(focus, context) or family_word(focus)) if focus is not None else None
        return rel if rel is not None and (rel in FEMALE) == (match.group("pron").casefold() == "she") else None
    name = match.group("name")
    return relation_of(name, context) or (name if name in context.relations else None)


def _whose(sentence: str, theirs: re.Match[str] | None) -> str:
    """The payment's subject: the user, a relative paying their own ("my sister is paying her
    contractor"), or the parent whose account the user pays from ("out of Mum's account")."""
    if theirs is not None:
        return holder(theirs.group("rel")) or theirs.group("rel").lower()
    return held_by(sentence) or "user"


def _session(context: Context) -> str:
    """The session's time to the minute: instructions of two sessions, even on one day, stay
    two entities (a conflict is found across them)."""
    return context.timestamp.isoformat(timespec="minutes") if context.timestamp is not None else ""


def _session_name(payee: str, context: Context) -> tuple[str, str]:
    """(the payee's fullest name, the name its key uses): a payee the session named before
    with one name starting the other ("Dan", then "Dan Pruitt"; "Apex Supply Co.", then "the
    Apex wire") is that one, under its first key."""
    words = payee.casefold().split()
    for name, known in context.last.items():
        if not name.startswith("payee/"):
            continue
        other = str(known.fields["payee"])
        other_words = other.casefold().split()
        shorter, longer = sorted((words, other_words), key=len)
        if longer[: len(shorter)] == shorter:
            return (payee if len(words) > len(other_words) else other), name.removeprefix("payee/")
    return payee, payee


def _status(sentence: str, known: bool) -> str | None:
    """ "done" (said in the past tense), "pending" (to come), or None for a sentence about a
    known payment that says neither ("Noted: $1,250 to Mike")."""
    if _PAST.search(sentence) and not _FUTURE.search(sentence):
        return "done"
    if _FUTURE.search(sentence) or not known:
        return "pending"
    return None


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _ahead(day: str, today: date | None) -> str:
    """A pending payment's day stated without a year is not months in the past ("by November
    30" said in May is this November, not last)."""
    if today is None or day >= (today - timedelta(days=90)).isoformat():
        return day
    year, rest = day.split("-", 1)
    return f"{int(year) + 1}-{rest}" if rest != "02-29" else day


def _when(sentence: str, context: Context, status: str | None) -> str | None:
    """The payment's date: a stated or relative one, a weekday (the next one, or the last
    one for a payment done), "just now" or "today" for the session's day."""
    today = session_day(context)
    told = status == "pending" and _TOLD_TODAY.search(sentence) is not None  # "talked to Dave today"
    vague = _VAGUE.search(sentence) is not None and _WEEKDAY.search(sentence) is not None  # "friday, ... this week"
    stated = [day for day in dates_in(sentence, context)
              if not ((told or vague) and today is not None and day == today.isoformat())]
    if stated:
        return _ahead(stated[0], today) if status == "pending" and not _YEAR.search(sentence) else stated[0]
    weekday = _WEEKDAY.search(sentence)
    if weekday is not None and today is not None and weekday.group(0).lower().startswith("next "):
        monday = today + timedelta(days=7 - today.weekday())  # "next wed": the Wednesday of next week
        return (monday + timedelta(days=_WEEKDAYS.index(weekday.group("day").lower()[:3]))).isoformat()
    if weekday is not None and today is not None and (weekday.group(0).lower().startswith(("on ", "this ", "last "))
                                                      or weekday.group(0).lower().endswith("day")
                                                      or weekday.group("day").lower() in ("tue", "tues", "thu",
                                                                                          "thur", "thurs", "fri")):
        index = _WEEKDAYS.index(weekday.group("day").lower()[:3])
        if status == "done" or weekday.group(0).lower().startswith("last "):
            back = (today.weekday() - index) % 7 or 7
            return (today - timedelta(days=back)).isoformat()
        ahead = (index - today.weekday()) % 7 or 7
        return (today + timedelta(days=ahead)).isoformat()
    when = charge_date(_DAY_N.sub(_ordinal, sentence), context)  # "the day 5" (non-native): the 5th
    if when is not None and not (told and today is not None and when == today.isoformat()):
        return when
    if _NOW.search(sentence) and today is not None and not told:
        return today.isoformat()
    if _TOMORROW.search(sentence) and today is not None:
        return (today + timedelta(days=1)).isoformat()
    return None


# --- purchases --------------------------------------------------------------------------


_STORE = re.compile(
    r"\b(?:at|from|by|went to)\s+(?:the\s+)?(?P<store>(?-i:[A-Z])[\w'&-]*(?:\s+(?:(?-i:[A-Z])[\w'&-]*|&)){0,3})")
_BUSINESS_PAYEE_STOP = frozenset({"Friday", "Monday", "Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday",
                                  "August", "April", "The", "Please", "Zelle", "Venmo"})


# "from the Chase rental account": an account paid from, not a store
_ACCOUNT_WORDS = re.compile(r"\s+(?:[\w'-]+\s+){0,2}(?:account|checking|chequing|savings|card)\b", re.I)


def _purchase(sentence: str, context: Context) -> list[TypedFact]:
    """A purchase with its price and seller ("got a Bosch for $849 at Lowe's"): a payment made."""
    if _BOUGHT.search(sentence) is None or is_question(sentence) or _NO_PAYMENT.search(sentence):
        return []
    if _BILLED.search(sentence):
        return []  # "paid Ortiz Plumbing $1,875 for invoice 5512": an invoice paid, read as an instruction
    store = next((m.group("store") for m in _STORE.finditer(sentence)
                  if m.group("store").split()[0] not in _BUSINESS_PAYEE_STOP
                  and not _ACCOUNT_WORDS.match(sentence, m.end())), None)
    found = amounts(sentence, context)
    if store is None or not found:
        return []
    fields: dict[str, JsonValue] = {"payee": store, "amount_usd": found[-1], "status": "done"}
    when = _when(sentence, context, "done")
    if when is not None:
        fields["scheduled_date"] = when
    order = reference(sentence)
    if order is not None:
        fields["reference"] = order
    key = f"{store.casefold()}/{_session(context)}"
    buyer = _BUYER.search(sentence)  # "my daughter bought a laptop at Best Buy": hers
    fact = TypedFact("payment", key, conversation_fields(context, buyer.group("rel").lower() if buyer else "user",
                                                         fields))
    context.last["payment"] = fact
    return [fact]

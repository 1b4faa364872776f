"""Bills from a sentence: a utility, phone, internet or insurance bill with its payee,
amount, due date, whether it repeats and whether it is paid automatically ("Con Edison
bill, $182.40, due on March 17", "geico renewal came: 1,250 bucks, due in two weeks",
"phone bill is $85/mo with t-mobile, comes out on the 28th automatically").

Entities and keys: a bill is keyed by its payee ("bill/<payee>", as `factlog.typed.money`
keys a bill stated as due), so the assistant's restatement and a later session's new
amount or date update the same bill. The payee is the biller as named (BILLERS), else what
the bill is for ("electric", "home insurance"); a sentence naming neither but saying the
bill is on autopay ("It's on autopay from my checking") is about the session's last bill.

Not read: questions, hypotheticals ("if the electric bill is over $200"), the assistant's
general advice, a late fee's amount ("a late fee of $10 applies"), and card balances
(`factlog.typed.money` reads those). Another person's bill keeps its subject ("my son's
phone bill"). `recurring` is set only when the sentence says the bill repeats (monthly,
autopay); `autopay` true when it is paid automatically, false when autopay is turned off.
"""

from __future__ import annotations

import re

from factlog.model import JsonValue
from factlog.typed import money
from factlog.typed.common import RELATIONS, add_months, conversation_fields, named_owner
from factlog.typed.model import Context, TypedFact
from factlog.typed.money import (
    BILLER,
    DUE,
    DUE_BARE,
    amounts,
    cadence_of,
    canonical_vendor,
    charge_date,
    clauses,
    confirms,
    is_ahead,
    session_day,
)
from factlog.typed.stance import is_question, is_tentative
from factlog.typed.subscription_words import spoken_amounts

DOMAIN = "bills"

_UTILITY = (r"electric(?:ity)?|power|gas|water|sewer|trash|phone|cell(?:\s+phone)?|mobile|internet|wifi|cable|"
            r"utility|utilities|heating|(?:home|car|auto|renters?|health|life|pet|homeowners?)\s+insurance|insurance")
_BILL_NOUN = re.compile(rf"\b(?P<what>{_UTILITY})\s+(?:bill|premium|payment)\b|\b(?:bill|premium)\b", re.I)
_DESCRIBED = re.compile(rf"\b(?P<what>{_UTILITY})\s+(?:bill|premium)\b|"
                        # "the water company sent a bill for $74", "HOA dues are $250 a quarter"
                        rf"\b(?P<company>{_UTILITY})\s+(?:company|provider|board|utility|supplier)\b(?=[^.;]*\bbill\b)|"
                        r"\b(?P<dues>(?-i:HOA)|strata|condo|union|club|association)\s+(?:dues|fees)\b|"
                        # a letter's "your water and sewerage charges ... come to £148.20"
                        rf"\b(?P<charged>{_UTILITY})(?:\s+(?:and|&)\s+[a-z]+)?\s+charges\b(?=[^.;]*\b(?:comes?|came)\s+to\b)|"
                        r"\b(?P<policy>(?:home|car|auto|renters?|health|life|pet|homeowners?)\s+insurance)\b|"
                        # "the cottage insurance is annual, $1,180": a policy named by what it covers
                        r"\b(?:the|my|our)\s+(?P<covers>(?!travel\b)[a-z]+\s+insurance)\b(?=\s+(?:is|was|bill|premium|"
                        r"renews|comes|costs|of)\b)", re.I)
# "Water is every three months, about $90", "Her electric is on autopay": the utility without "bill"
_BARE = r"(?:electric(?:ity)?|gas|water|sewer|trash|internet|wifi|cable)"
_BARE_UTILITY = re.compile(r"^\W*(?:(?:and|also|oh|plus)\s+)?(?:(?:my|our|her|his|their|the)\s+)?"
                           rf"(?P<what>{_BARE}(?:\s+(?:and|&)\s+{_BARE})?)(?:'s|’s|\s+is)\s",  # "water and sewer is"
                           re.I)
_CUES = re.compile(r"\b(?:bill|bills|premium|due|autopays?|auto-pays?|automatic(?:ally)?|renews?|auto-renews?|"
                   r"late fee|owe|paid|every (?:three|3|two|2|six|6) months|quarterly|monthly|a month|"
                   r"renewal|statement|"
                   r"comes out|drafts?|debited|pre-?authori[sz]ed|direct debit|pay by|charges|come to|"
                   r"comes to|dues|wants|is charging|charging me|asking for)\b", re.I)
# buy now, pay later lenders: an instalment plan is a bill to the lender ("klarna pay in 4 ... $41 every two weeks")
BNPL = re.compile(r"(?<![\w-])(?P<name>klarna|afterpay|affirm|clearpay|sezzle|laybuy|zilch|splitit|katapult|"
                  r"paypal pay in (?:3|4|three|four)|paypal credit|(?-i:Zip|Humm|Uplift|Atome|Tabby|Tamara))(?![\w-])",
                  re.I)
# "the next instalment is October 2" after a plan
_NEXT_INSTALMENT = re.compile(r"\bnext\s+(?:one|instal?ment|payment|repayment)\b"
                              r"(?:\s+(?:is|will be|'s|on|due|comes out))*", re.I)
TRIGGERS = (_CUES, BNPL, _NEXT_INSTALMENT)  # reader.py runs readers only on sentences some reader's triggers find
_DUE_CUE = re.compile(r"\b(?:due|by|comes out|drafts?|debited|charged|autopays?|on(?=\s+(?:the\s+)?\d|\s+\w+\s+\d))",
                      re.I)
_AUTOPAY = re.compile(r"\b(?:auto-?pays?|automatic(?:ally)?(?:\s+payments?)?|auto-?draft|comes out on its own|"
                      r"pre-?authori[sz]ed\s+(?:debit|payments?)|direct debit)\b", re.I)
_AUTOPAY_OFF = re.compile(r"\b(?:kill|cancel\w*|stop\w*|turn\w* off|switch\w* off|remove\w*|end\w*)\s+(?:the\s+)?"
                          r"auto-?pay\b|\bauto-?pay(?:'s|’s|\s+is)?\s+(?:off|cancell?ed|stopped)\b|"
                          r"\bno (?:more )?autopay\b|"
                          # a statement's "AutoPay: Not enrolled", "Automatic payment - off"
                          r"\bauto-?pay(?:ment)?s?\s*(?:status\s*)?[:=-]\s*(?:not\s+(?:enrolled|active|set\s+up|on)|"
                          r"off|no|none|inactive|disabled|unenrolled)\b|"
                          r"\bautomatic\s+payments?\s*(?:status\s*)?[:=-]\s*(?:not\s+(?:enrolled|active|set\s+up|on)|"
                          r"off|no|none|inactive|disabled)\b|"
                          # "I'm not on automatic payments", "isn't set up for autopay"
                          r"(?:\bnot|n't|\bnever|\bneither)\s+(?:[\w'’]+\s+){0,2}?"
                          r"(?:on|in|enrolled in|signed up for|set up for|using|by|through|via|paid by)\s+"
                          r"(?:the\s+)?(?:auto-?pay|automatic\s+payments?|auto-?draft|pre-?authori[sz]ed\s+debit|"
                          r"direct debit)\b",
                          re.I)
_PAID = re.compile(r"\b(?<!be )(?<!been )(?:paid|settled|took care of|cleared)\b", re.I)
# "still haven't paid it", "not paid yet": a bill still open
_UNPAID = re.compile(r"\b(?:haven't|have not|hasn't|has not|didn't|did not|not yet|never)\s+(?:\w+\s+)?paid\b|"
                     r"\bnot (?:been )?paid\b|\bunpaid\b", re.I)
_PAYS = re.compile(r"\b(?:pay|pays|paying|paid|send|sending|sent)\b", re.I)
_FEE = re.compile(r"\b(?:late\s+)?fee\b", re.I)
# an estimate, not a bill stated (a tentative sentence is none either: `stance.is_tentative`)
_NOT_A_BILL = re.compile(r"\b(?:would|could|usually|average|estimate[sd]?|budget)\b", re.I)
_OWNER = re.compile(rf"\b(?:my|our)\s+(?P<rel>{'|'.join(RELATIONS)}|[a-z]+)(?:'s|’s)\s", re.I)
_NAMED_OWNER = re.compile(r"\b(?P<name>(?-i:[A-Z])[a-z]+)(?:'s|’s)\s+(?:\w+\s+){0,2}(?:bill|premium)\b", re.I)
_LAST_PERIOD = re.compile(r"\b(?:was|were|came to|came out to)\b.*\b(?:last|ago|previous)\b|"
                          r"\b(?:last|previous) (?:month|year|quarter|winter|summer)(?:'s\b|\b.*\b(?:was|were)\b)",
                          re.I)
_MONEY_NUMBER = re.compile(
    r"\$\s?\d|\b\d[\d,]*(?:\.\d\d)?\s*(?:dollars?|bucks|usd)\b|\busd\s?\d|\b\d+\.\d\d\b|\d\s?k\b", re.I)


def read(sentence: str, context: Context) -> list[TypedFact]:
    """Each clause in turn ("Spectrum bill is $64.20, due the 19th. It's on autopay")."""
    lender = BNPL.search(sentence) is not None
    if _CUES.search(sentence) is None and not lender and not _NEXT_INSTALMENT.search(sentence):
        return _answered_due(sentence, context)
    facts: list[TypedFact] = []
    sentence = money.day_first(sentence, context)  # "Payment due: 07/05/2025" on a British statement
    for clause in clauses(sentence):
        plan = instalments(clause, context)
        facts += plan if plan is not None else read_clause(clause, context)
    return facts


_NUMBER_WORD = r"\d{1,2}|two|three|four|five|six|eight|nine|ten|twelve|eighteen|twenty-four|twenty four|thirty-six"
# "12 payments of 87.42", "four instalments of £30"
_PAYMENTS_OF = re.compile(rf"\b(?:{_NUMBER_WORD})\s+(?:(?:monthly|weekly|fortnightly|biweekly|equal|interest-free)\s+)?"
                          r"(?:payments|instal?ments|repayments)\s+of\s+", re.I)
# "$41 every two weeks", "87.42 a month", "£30 fortnightly"
_AMOUNT_EVERY = re.compile(r"(?P<amount>[$£€]?\s?\d[\d,]*(?:\.\d\d)?)\s*(?:(?:every|each|a|per)\s+(?:(?:two|2)\s+weeks|"
                           r"fortnight|month|week)|/\s?mo(?:nth)?\b|fortnightly|bi-?weekly|monthly)", re.I)
_PAY_IN = re.compile(r"\bpay(?:-|\s)in(?:-|\s)(?P<n>3|4|three|four|6|six)\b|"
                     r"\bsplit (?:it )?in(?:to)? (?P<m>3|4|three|four)\b", re.I)
_REPEATS = re.compile(r"\b(?:instal?ments?|payments|pay(?:-|\s)in(?:-|\s)\w+|every|each|fortnightly|bi-?weekly|"
                      r"monthly|a month)\b", re.I)
_OFF_THE_CARD = re.compile(r"\b(?:comes?|taken|came|goes|coming)\s+(?:straight\s+)?(?:off|out of|from)\s+"
                           r"(?:my|the|your)\s+"
                           r"(?:debit\s+|credit\s+|bank\s+)?(?:card|account)\b|\b(?:takes?|charges?)\s+(?:it\s+)?"
                           r"(?:automatically|from my (?:card|account))\b", re.I)
_SMALL = {"three": 3, "four": 4, "six": 6}


# the assistant asks when the bill is due: "When is it due?", "What day does it come out?"
_ASKS_DUE = re.compile(r"\b(?:due|come out|comes out|paid|pay it|payment|debited|taken)\b", re.I)


def _answered_due(sentence: str, context: Context) -> list[TypedFact]:
    """ "When is it due?" "the 15th": the due date of the bill the session just talked about."""
    asked = money.answered_question(context) if context.speaker == "user" else None
    previous = context.last.get(DOMAIN)
    if asked is None or previous is None or previous.key is None or not _ASKS_DUE.search(asked) or \
            not money.DAY_ANSWER.match(sentence):
        return []
    when = charge_date(f"on {sentence.strip()}", context)
    if when is None:
        return []
    subject = str(previous.fields.get("subject", "user"))
    fields: dict[str, JsonValue] = {"payee": previous.fields["payee"], "due_date": when}
    fact = TypedFact("bill", previous.key, conversation_fields(context, subject, fields))
    context.last[DOMAIN] = fact
    return [fact]


def _lender_plan(context: Context) -> TypedFact | None:
    previous = context.last.get(DOMAIN)
    if previous is not None and BNPL.fullmatch(str(previous.fields.get("payee", ""))):
        return previous
    return None


def instalments(sentence: str, context: Context) -> list[TypedFact] | None:
    """A buy-now-pay-later plan ("did a klarna pay in 4 for my textbooks, $164 total so $41
    every two weeks, next one is oct 2"): a bill to the lender, its amount one instalment,
    `due_date` the next one, `recurring` (instalments repeat), `autopay` when it comes off a
    card by itself; "the next instalment is October 2" after it is the plan's. None when the
    clause names no lender and follows none (the other bill readers read it)."""
    named = BNPL.search(sentence)
    previous = _lender_plan(context)
    if named is None and (previous is None or _NEXT_INSTALMENT.search(sentence) is None):
        return None
    if context.speaker == "assistant" and not confirms(sentence) and named is not None:
        return []  # the assistant's word on a lender; "the next instalment is October 2" of the user's plan counts
    if is_question(sentence) or is_tentative(sentence) or _NOT_A_BILL.search(sentence) or \
            re.search(r"\bworth it\b|\bshould\b|^\W*(?:is|are|does|do|can)\b", sentence, re.I):
        return []  # "is afterpay worth it for $40"
    if named is not None and _PAID.search(sentence) and not _UNPAID.search(sentence) and not _AUTOPAY.search(sentence):
        return None  # "paid off the Afterpay": a payment made (read_clause)
    payee = canonical_vendor(named.group("name")) if named is not None else str(previous.fields["payee"]) \
        if previous is not None else ""
    payee = payee[:1].upper() + payee[1:] if payee.islower() else payee  # "klarna" is Klarna
    fields: dict[str, JsonValue] = {"payee": payee}
    amount = _instalment(sentence, context)
    if amount is not None:
        fields["amount_usd"] = amount
    today = session_day(context)
    cadence = "monthly" if re.search(r"\b(?:month|monthly|mo)\b", sentence, re.I) else None
    nxt = _NEXT_INSTALMENT.search(sentence)
    cue = nxt if nxt is not None else _DUE_CUE.search(sentence)
    when = charge_date(sentence[cue.start():], context) if cue is not None else None
    if when is not None and today is not None and when == today.isoformat() and cadence is not None and nxt is None:
        when = add_months(today, 1).isoformat()  # "comes off on the 8th each month" said on the 8th: taken today
    if when is not None and is_ahead(when, sentence, today):
        fields["due_date"] = when
    if _REPEATS.search(sentence):
        fields["recurring"] = True
    if _AUTOPAY_OFF.search(sentence):
        fields["autopay"] = False
    elif _AUTOPAY.search(sentence) or _OFF_THE_CARD.search(sentence):
        fields["autopay"] = True
    if set(fields) <= {"payee", "recurring"}:
        if named is not None:  # "got the laptop thru affirm." then the terms
            context.last[DOMAIN] = TypedFact("bill", f"bill/{payee.casefold()}", {"payee": payee})
        return []
    subject = _subject(sentence, context, previous)
    key = f"bill/{payee.casefold()}" if subject == "user" else f"bill/{subject.casefold()}/{payee.casefold()}"
    fact = TypedFact("bill", key, conversation_fields(context, subject, fields))
    context.last[DOMAIN] = fact
    return [fact]


def _instalment(sentence: str, context: Context) -> float | None:
    """One instalment: after "N payments of", before "every two weeks" / "a month", else the
    total over "pay in N", else the clause's one amount."""
    counted = _PAYMENTS_OF.search(sentence)
    if counted is not None:
        found = amounts(sentence[counted.end():], context)
        if found:
            return found[0]
    every = _AMOUNT_EVERY.search(sentence)
    if every is not None:
        found = amounts(every.group("amount").strip(), context) or \
            [float(every.group("amount").strip(" $£€").replace(",", ""))]
        return found[0]
    found = amounts(sentence, context)
    split = _PAY_IN.search(sentence)
    if split is not None and len(found) == 1:
        raw = (split.group("n") or split.group("m")).lower()
        return round(found[0] / (int(raw) if raw.isdigit() else _SMALL[raw]), 2)
    return found[0] if len(found) == 1 else None


def read_clause(sentence: str, context: Context) -> list[TypedFact]:
    if context.speaker == "assistant" and not confirms(sentence):
        return []  # the assistant's general advice names nothing of the user's
    if is_question(sentence) or is_tentative(sentence) or _NOT_A_BILL.search(sentence) or \
            _CUES.search(sentence) is None:
        return []
    if _PAID.search(sentence) and not _AUTOPAY.search(sentence) and not _UNPAID.search(sentence):
        return _paid(sentence, context)  # "already paid the Con Edison bill": a payment made, no bill due
    due = DUE.search(sentence) or DUE_BARE.search(sentence)
    line = _FIELD_LINE.match(sentence)
    if due is not None and amounts(sentence, context) and line is None:
        return []  # "the home insurance premium of $1,420 is due on March 1": money's
    payee = named = _payee(sentence)
    if payee is not None and BILLER.search(sentence) is None and (sender := _letter_from(context)) is not None:
        payee = named = sender  # "this letter ... from Anglian Water. ... your water charges come to £148.20"
    previous = context.last.get(DOMAIN)
    stated = context.last.get(money.DOMAIN)  # a bill money's reader read as due ("premium of $1,420 is due")
    if previous is None and stated is not None and stated.kind == "bill" and (stated.key or "").startswith("bill/"):
        previous = stated
    if payee is None and line is not None and previous is None and context.last.get("card") is not None:
        when = charge_date(sentence, context)  # "Payment due: 07/05/2025" under a card's "Barclaycard Platinum"
        return money.card_due(when, context) if when is not None and is_ahead(when, sentence, session_day(context)) \
            else []
    if payee is None and line is not None:  # "Amount due: $92.10" under a statement's "Verizon" heading
        payee = named = str(previous.fields["payee"]) if previous is not None and previous.key is not None \
            else _recent_biller(context)
    if payee is None and money.VENDOR.search(sentence) is not None:
        return []  # "also have spotify premium student $5.99/mo": a subscription's price, not the last bill's
    if payee is None:
        if previous is None or not (_AUTOPAY.search(sentence) or _AUTOPAY_OFF.search(sentence)
                                    or ((previous.key is None or _BILL_NOUN.search(sentence))
                                        and _amount(sentence, context) is not None)
                                    or _FOLLOW_UP.search(sentence)):
            return []
        payee = str(previous.fields["payee"])  # "It's on autopay from my checking"
    fields: dict[str, JsonValue] = {"payee": payee}
    amount = _amount(sentence, context)
    if amount is not None:
        fields["amount_usd"] = amount
    cue = _DUE_CUE.search(sentence)
    if cue is not None and cue.group(0).lower() == "on" and _PAYS.search(sentence):
        cue = None  # "paying verizon from her card on the 18th": when it is paid, not when it is due
    when = charge_date(sentence[cue.start():], context) if cue is not None else None
    today = session_day(context)
    if when is not None and is_ahead(when, sentence, today):
        fields["due_date"] = when
    if _AUTOPAY_OFF.search(sentence):
        fields["autopay"] = False
    elif _AUTOPAY.search(sentence):
        fields["autopay"] = True
        fields["recurring"] = True
    if cadence_of(sentence) in ("monthly", "quarterly", "semiannual", "yearly", "weekly") and "autopay" not in fields:
        fields["recurring"] = True
    if "due_date" not in fields and _LAST_PERIOD.search(sentence):
        return []  # "the electric bill last month was $180": a past bill, nothing due
    if set(fields) <= {"payee", "recurring"} and not (named is None and fields.get("recurring")):
        if named is not None and previous is None:
            context.last[DOMAIN] = TypedFact("bill", None, {"payee": payee})  # "geico renewal came." then the amount
        return []
    subject = _subject(sentence, context, previous if payee == (previous.fields["payee"] if previous else None)
                       else None)
    key = f"bill/{payee.casefold()}" if subject == "user" else f"bill/{subject.casefold()}/{payee.casefold()}"
    fact = TypedFact("bill", key, conversation_fields(context, subject, fields))
    context.last[DOMAIN] = fact  # the next clause's ("...; the six-month premium is $1,214.50")
    return [fact]


_PAID_UTILITY = re.compile(
    r"\b(?:paid|took care of|settled)\s+(?:the|my|our)\s+(?P<what>electric|gas|water|internet|cable|phone|trash)\b"
    r"(?!\s+(?:station|tank|pump|can|guy|man|company|heater|bottle|plant)\b)|"
    r"\b(?:the|my|our)\s+(?P<what2>electric|gas|water|internet|cable|phone|trash)\s+(?:is|'s|was)\s+(?:all\s+)?paid\b",
    re.I)


# a statement's "Field: value" line about what is owed or when: "Amount due: $84.12", "Due date: 03/15/2026"
_FIELD_LINE = re.compile(r"^\W*(?:(?:total|amount|balance|new|current|payment)\s+)*(?:due|owed|charges)"
                         r"(?:\s+(?:date|by|on))?\s*[:=]|^\W*(?:please\s+)?pay\s+by\s*[:=]", re.I)
# a statement's heading naming a biller no list has: "City of Austin Utilities - Statement", "Hydro One bill"
_HEADING = re.compile(r"^\W*(?P<name>(?-i:[A-Z])[\w&'’.]*(?:\s+(?:(?-i:[A-Z])[\w&'’.]*|of|and|&)){0,4})\s*[-–:|]?\s*"
                      r"(?:statement|bill|invoice|billing (?:summary|statement)|account summary)\b", re.I)
_LOOK_BACK = 8  # sentences of the session a statement's heading may be before its lines


# a line after a bill that gives its date or how often it comes: "Please pay by 14 March 2025.", "It's every
# three months, this one."
_FOLLOW_UP = re.compile(r"^\W*(?:please\s+)?pay\s+(?:it\s+|this\s+)?by\b|^\W*(?:it's|it is|its|that's|comes)\s+"
                        r"(?:every\s+(?:three|3|two|2|six|6)\s+months|quarterly|monthly|yearly|annual|"
                        r"once a (?:year|quarter))",
                        re.I)
# who sent the letter or bill being read out: "this letter that came this morning from Anglian Water"
_LETTER_FROM = re.compile(r"\b(?:letter|bill|statement|notice|reminder|invoice|e-?mail)\b[^.;]{0,40}?\bfrom\s+"
                          r"(?:the\s+)?"
                          r"(?P<name>(?-i:[A-Z])[\w&'’.-]*(?:\s+(?:(?-i:[A-Z])[\w&'’.-]*|of|and|&)){0,3})", re.I)


def _letter_from(context: Context) -> str | None:
    """The biller a letter or bill the session is reading was from (a sentence of the last few)."""
    for said in reversed(context.said[-_LOOK_BACK:]):
        sender = _LETTER_FROM.search(said)
        if sender is not None:
            name = " ".join(sender.group("name").split()).rstrip(".")
            return None if money.INSTITUTION.search(name) else name
    return None


def _recent_biller(context: Context) -> str | None:
    """The biller a sentence of the session's last few named ("XFINITY - Statement summary")."""
    for said in reversed(context.said[-_LOOK_BACK:-1]):
        biller = BILLER.search(said)
        if biller is not None:
            return canonical_vendor(biller.group("name"))
        heading = _HEADING.match(said)
        if heading is not None and not re.match(r"(?:your|my|our|the|this|new|monthly)\b", heading.group("name"), re.I):
            name = " ".join(heading.group("name").split())
            return None if _a_card(name, context) else name
    return None


def _a_card(name: str, context: Context) -> bool:
    """ "Spark statement": a card's (an issuer, or a card an earlier session or this one named)."""
    if money.INSTITUTION.search(name):
        return True
    cards = [str(fields.get("title", "")) for key, fields in context.prior.of_kind("deadline")
             if key.startswith("promotion/")]  # a card's promotion names the card
    last = context.last.get("card")
    if last is not None:
        cards.append(str(last.fields.get("payee", "")))
    return any(name.casefold() in card.casefold() for card in cards)


def _paid(sentence: str, context: Context) -> list[TypedFact]:
    """ "paid the electric bill today", "the gas bill is paid": a payment done to the bill's
    payee (what `bills_due` needs to stay quiet), keyed as `factlog.typed.payments` keys its
    own (payee and session time), so where that reader found the payment too it is one
    entity. A past period's bill ("paid last month's water bill late") pays nothing due."""
    payee = _payee(sentence)
    if payee is None and (said := _PAID_UTILITY.search(sentence)) is not None:
        payee = (said.group("what") or said.group("what2")).lower()  # "Paid the electric today", "the water is paid"
    if payee is None or _LAST_PERIOD.search(sentence) or re.search(r"\blast\s+\w+'s\b", sentence, re.I):
        return []
    fields: dict[str, JsonValue] = {"payee": payee, "status": "done"}
    amount = _amount(sentence, context)
    if amount is not None:
        fields["amount_usd"] = amount
    session = context.timestamp.isoformat(timespec="minutes") if context.timestamp is not None else ""
    subject = _subject(sentence, context, None)
    return [TypedFact("payment", f"{payee.casefold()}/{session}", conversation_fields(context, subject, fields))]


def _payee(sentence: str) -> str | None:
    """The biller as named, else what the bill is for ("electric", "home insurance")."""
    biller = BILLER.search(sentence)
    if biller is not None:
        return canonical_vendor(biller.group("name"))
    lender = BNPL.search(sentence)
    if lender is not None:  # "paid off the afterpay"
        name = canonical_vendor(lender.group("name"))
        return name[:1].upper() + name[1:] if name.islower() else name
    described = _DESCRIBED.search(sentence)
    named = _NAMED_BEFORE.search(sentence, 0, described.start()) if described is not None and described.group("what") \
        else None
    words = [w for w in named.group("name").split() if w.casefold() not in _NOT_NAMES] if named is not None else []
    if described is not None and words and not BILLER.fullmatch(" ".join(words)) and \
            not re.search(r"(?:'s|’s|s')$", words[-1]):  # "Emma's phone bill" is Emma's, not a biller's
        what = sentence[described.start("what"):described.end("what")]  # "Anglian Water"; "Hydro Ottawa" electric
        return " ".join(words) + (f" {what}" if what[:1].isupper() else "")
    if described is not None:
        if described.group("dues"):
            dues = described.group("dues")
            return dues if dues[:1].isupper() else dues.lower()  # "HOA", "union"
        what = described.group("what") or described.group("policy") or described.group("covers") or \
            described.group("charged") or described.group("company")
        return " ".join(what.lower().split())
    bare = _BARE_UTILITY.search(sentence)
    if bare is not None and (_AUTOPAY.search(sentence) or cadence_of(sentence) or _MONEY_NUMBER.search(sentence)):
        what = " ".join(bare.group("what").lower().split())
        return "electric" if what == "electricity" else what
    return None


# a biller no list has, named before what its bill is for: "Your Anglian Water bill", "the Thames Water bill"
_NAMED_BEFORE = re.compile(r"(?P<name>(?-i:[A-Z])[\w&'’-]*(?:\s+(?-i:[A-Z])[\w&'’-]*)?)\s+$")
_NOT_NAMES = frozenset("your the my our his her their this that noted saved so and also a an".split())


def _amount(sentence: str, context: Context) -> float | None:
    """The bill's amount: the first money amount that is not a fee ("$182.40 ... a late fee
    of $10" -> 182.40)."""
    if _MONEY_NUMBER.search(sentence) is None and not spoken_amounts(sentence):
        return None  # "a hundred and five dollars" is said in words
    found = amounts(sentence, context)
    fee = _FEE.search(sentence)
    if fee is not None and len(found) > 1:
        return found[0]
    if fee is not None:
        return None  # "a late fee of $10 applies after that date": the fee, not the bill
    return found[0] if found and found[0] > 0 else None


def _subject(sentence: str, context: Context, previous: TypedFact | None) -> str:
    if context.speaker == "assistant":
        return str(previous.fields.get("subject", "user")) if previous is not None else "user"
    match = _OWNER.search(sentence)
    if match is not None:
        return match.group("rel").lower()
    named = _NAMED_OWNER.search(sentence)
    if named is not None and BILLER.fullmatch(named.group("name")) is None:
        return named.group("name")  # "Emma's phone bill"
    return named_owner(sentence, context) or "user"  # "Mum's gas bill", "Dana pays her own phone"

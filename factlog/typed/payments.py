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
from datetime import timedelta

from factlog.model import JsonValue
from factlog.typed import money
from factlog.typed.accounts import accounts, from_account, to_account
from factlog.typed.common import RELATIONS, conversation_fields
from factlog.typed.model import Context, TypedFact
from factlog.typed.money import (
    BILLER,
    CONFIRMING,
    ENDS_IN_QUESTION,
    PAYMENT_WORDS,
    amounts,
    charge_date,
    clauses,
    dates_in,
    session_day,
)
from factlog.typed.payees import payee_of, reference, requester

DOMAIN = "payments"  # not "payment": the reader keeps its last instruction under that name itself

_ACT = re.compile(
    r"\b(?:pay|pays|paying|paid|send|sends|sending|sent|wire|wires|wiring|wired|transfer|transfers|transferred|"
    r"transferring|zelle\w*|venmo\w*|remit\w*|autopay|ach|mov(?:e|ed|ing)\s+(?=\$|\d)|owe|owes|owed|"
    r"(?:goes|go|comes|come|going) out|auto-?debit\w*|direct debit|debited|drafted|"
    r"(?:mail\w*|write|wrote|writing|cut|cutting|give|gave)\s+"
    r"(?:\w+\s+){0,2}(?:a\s+)?(?:check|cheque)|(?:schedule|set up|make|release)\w*\s+(?:\S+\s+){0,3}payment)\b",
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
    r"this|my|our)|stop (?:the|that|it|payment)|be cancell?ed|hold (?:the|that|it|off|on)|put (?:\w+ )?on hold|"
    r"(?:don't|do not|dont|never|not)(?: to)? (?:pay|send|wire|release|transfer)|pause (?:the|it))\b", re.I)
_NO_PAYMENT = re.compile(
    r"\b(?:estimated tax payment|payment is due|payments? are due|pay(?:s|ing)? (?:attention|a visit|off|for itself|"
    r"dividends|respects|tribute)|it pays|(?:get|gets|got|getting|i'm|i am|we were|i was) paid\b|"
    r"(?:paid|pay|pays|sent|send|owes?|reimburse[sd]?|venmo(?:ed)?|zelled) me\b|"
    r"(?:i|we) (?:sent|issued|emailed) (?:an |the |my |our )?invoice|"
    r"invoiced|refund|paycheck|salary|pay ?rise|pay ?raise|pay ?stub|payday|pay period|back from|"
    r"got (?:\S+ ){1,3}back)",
    re.I)
_PAID_THING = re.compile(r"\b(?:pay\w*|paid|wire\w*|transfer\w*|autopay|deposit|invoice|inv|check|cheque|zelle|"
                         r"venmo|ach|installment|retainer|remittance|send (?:anything|any money|money|funds))\b", re.I)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|whether|in case|suppose|supposing|what if|thinking (?:about|of)|considering|might|maybe|perhaps|"
    r"not sure|wondering|would it|should i|could i|do i|can i)\b", re.I)
_ADVICE = re.compile(r"\b(?:could|should|might|may want|consider|recommend\w*|suggest\w*|best to|better to|"
                     r"make sure|always|never|safest|safer|avoid|tip)\b", re.I)
_AMENDING = re.compile(
    r"\b(?:actually|updated?|make (?:it|that)|change (?:it|that)|correction|sorry|i meant|i mean|instead|rather|"
    r"scratch that|my mistake|wrong|oops)\b", re.I)
_CONTINUING = re.compile(r"^\W*(?:\$\s?\d|\d[\d,.]*\s*(?:dollars?|bucks|k)\b)", re.I)  # "$85 on the 20th from checking"
# stance: "still haven't paid State Farm", "you'll need to pay it": a bill unpaid, no payment (h-bills2)
_UNPAID = re.compile(r"\b(?:haven't|have not|hasn't|has not|didn't|did not|not yet|never)\s+(?:\w+\s+)?paid\b|"
                     r"\bnot (?:been )?paid(?: yet)?\b|\byou(?:'ll| will)? need to pay\b", re.I)
_PAST = re.compile(
    r"\b(?:paid|sent|wired|transferred|mailed|zelled|venmoed|gave|wrote|made the payment|covered|settled|moved|"
    r"put)\b", re.I)
_FUTURE = re.compile(
    r"\b(?:will|'ll|going to|gonna|schedul\w*|need to|needs to|have to|has to|want\w* (?:me |us )?to|"
    r"plan\w* to|'d|would|shall|please|tomorrow|tmrw|next|asks?|asked (?:me|us|that|to)|should|must|to be paid|"
    r"is to|are to|about to|set up|goes|go by|instruct\w*|request\w*|is paying|are paying|shes paying|'s paying|"
    r"am paying|i'm paying|im paying|paying on|pay on)", re.I)
_SAME = re.compile(r"\bsame (?:account|card|checking|savings)\b", re.I)
_WEEKDAY = re.compile(r"\b(?:on\s+|this\s+|last\s+)?(?P<day>mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
                      r"(?:day|\.)?\b", re.I)
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_NOW = re.compile(r"\b(?:just now|today|this morning|this afternoon|tonight|earlier today)\b", re.I)
_TOMORROW = re.compile(r"\b(?:tmrw|tmr|tmw|2morrow)\b", re.I)
_BARE_AMOUNT = re.compile(r"\b(?:owe|pay|send|zelle|venmo)\s+(?:[a-z]+\s+)?(?P<n>\d{2,5})\b"
                          r"(?!\s*(?:am|pm|%|st|nd|rd|th|percent|minutes?|hours?|days?|weeks?|months?|years?|"
                          r"times)\b)", re.I)


# every payment or account sentence has one of these (a cheap test run on every sentence)
_TRIGGER = re.compile(
    r"\$\s?\d|[€£]|\b[x#]\d{4}\b|\b\d+(?:\.\d)?k\b|\b(?:pay\w*|paid|send\w*|sent|wir\w+|transfer\w*|zell\w*|"
    r"venmo\w*|paypal|ach|autopay|invoice\w*|inv|deposit|rent|mortgage|owe[sd]?|check|cheque|mail\w*|bought|"
    r"purchased?|ordered|got|picked|grabbed|snagged|splurged|spent|hold|cancel\w*|kill|stop|pause|dollars?|bucks|"
    r"checking|savings|account|card|ending|finish\w*|order|ref|reference|memo|sorry|actually|instead|wrong|meant|"
    r"make|move[ds]?|moving|goes|debit\w*|drafted|installment|retainer|remit\w*|release|gave|wrote|installed|put|"
    r"cover\w*|settled|updated?|correction|oops|scratch|mistake)\b", re.I)


def triggered(sentence: str) -> bool:
    """Whether the sentence may state a payment or an account (reader.py runs `read` only then)."""
    return _TRIGGER.search(sentence) is not None


def read(sentence: str, context: Context) -> list[TypedFact]:
    """Each clause in turn ("wife pays it from her card. told me to kill the autopay")."""
    paying = _MAYBE.search(sentence) is not None or (
        context.last.get("payment") is not None and (_AMENDING.search(sentence) or _CONTINUING.match(sentence)
                                                     or _NUMBERED.search(sentence)))
    probe = replace(context, last=dict(context.last)) if paying else None  # what money will make of each clause
    facts: list[TypedFact] = []
    for clause in clauses(sentence):
        facts += read_clause(clause, context, probe)
    return facts


def read_clause(sentence: str, context: Context, probe: Context | None) -> list[TypedFact]:
    if context.speaker == "assistant" and not CONFIRMING.search(sentence):
        return []  # the assistant's general advice names nothing of the user's
    facts: list[TypedFact] = []
    if probe is not None and not money.read_clause(sentence, probe):
        for part in _instructions(sentence):
            facts += _payment(part, context)
    facts += accounts(sentence, context)
    return facts


_NUMBERED = re.compile(r"\b(?:order|invoice|ref|reference|memo)\b", re.I)
_CONTRAST = re.compile(r",?\s+\b(?:while|whereas)\b|,\s+(?:so|because|since|but|if|unless|though|although)\b", re.I)


def _instructions(sentence: str) -> list[str]:
    """A clause that both pays and stops a payment ("your wife will pay it from her card, and
    she asked you to cancel the autopay from checking") read as two instructions."""
    contrast = _CONTRAST.search(sentence)
    if contrast is not None and _ACT.search(sentence[: contrast.start()]):
        sentence = sentence[: contrast.start()]  # "... a check, while your Zelle payment is still planned"
    stop = _STOP.search(sentence)
    if stop is None or stop.start() == 0:
        return [sentence]
    cut = max(sentence.rfind(",", 0, stop.start()), sentence.rfind(" and ", 0, stop.start()))
    head, tail = sentence[:cut], sentence[cut:].lstrip(" ,")
    if cut <= 0 or _ACT.search(head) is None or _STOP.search(head) is not None:
        return [sentence]
    return [head, tail]


# --- payments ------------------------------------------------------------------------


def _payment(sentence: str, context: Context) -> list[TypedFact]:
    bought = _purchase(sentence, context)
    if bought:
        return bought
    if ENDS_IN_QUESTION.search(sentence) or _NO_PAYMENT.search(sentence) or _UNPAID.search(sentence):
        return []
    previous = context.last.get("payment")
    stop = _STOP.search(sentence)
    if stop is not None and not (_PAID_THING.search(sentence) or (previous is not None and re.search(
            r"\b(?:it|that|this)\b", sentence[stop.start():], re.I))):
        stop = None  # "cancel our trip" stops no payment
    cancelled = stop is not None
    found = amounts(sentence, context) or [float(m.group("n")) for m in _BARE_AMOUNT.finditer(sentence)]
    ref = reference(sentence)
    amending = previous is not None and (
        _AMENDING.search(sentence) is not None or _CONTINUING.match(sentence) is not None
        or (ref is not None and _ACT.search(sentence) is None and re.search(r"\b(?:order|invoice)\b", sentence, re.I)
            is not None)) and (context.recent is None or context.recent.kind == "payment" or bool(found) or bool(ref))
    acting = cancelled or _ACT.search(sentence) is not None
    if not (acting or amending or _BILLED.search(sentence) or PAYMENT_WORDS.search(sentence)):
        return []
    if _HYPOTHETICAL.search(sentence) and not cancelled:
        return []
    if context.speaker == "assistant" and _ADVICE.search(sentence):
        return []  # "You could pay the contractor the $2,000 by check": advice, not the user's instruction
    who = requester(sentence, context)
    payee = payee_of(sentence, who, context)
    if payee is None and who is not None and who not in RELATIONS and who != "user" and \
            (ref is not None or re.search(r"\b(?:their|his|her|its)\b", sentence, re.I)):
        payee = who  # "an email from Bella Catering saying to send the BC-221 payment to their new account"
    if payee is None:
        if previous is None:
            return []
        payee = str(previous.fields["payee"])
    payee, named = _session_name(payee, context)
    scope = sentence[stop.start():] if stop is not None else sentence  # a cancellation's own account and date
    fields: dict[str, JsonValue] = {"payee": payee}
    scoped = amounts(scope, context) if cancelled else found
    if scoped:
        fields["amount_usd"] = scoped[-1] if _AMENDING.search(sentence) else scoped[0]
    if who is None and cancelled and previous is not None and "requested_by" in previous.fields:
        who = str(previous.fields["requested_by"])
    if who is not None:
        fields["requested_by"] = who
    elif previous is None and context.speaker == "user":
        fields["requested_by"] = "user"
    if _SAME.search(scope) and previous is not None and "from_account" in previous.fields:
        fields["from_account"] = previous.fields["from_account"]
    else:
        owner = who if who is not None or previous is None or previous.fields.get("payee") != payee else \
            previous.fields.get("requested_by")
        source = from_account(scope, context, str(owner) if owner is not None else None)
        if source is not None:
            fields["from_account"] = source
    target = to_account(scope)
    if target is not None:
        fields["to_account"] = target
    status = "cancelled" if cancelled else _status(scope, previous is not None)
    when = _when(scope, context, status)
    if when is not None:
        fields["scheduled_date"] = when
        today = session_day(context)
        if status == "done" and today is not None and when > today.isoformat():
            status = "pending"  # "sent on the 20th" said on the 14th: not yet
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
            and payee not in ("rent", "mortgage") and not BILLER.search(sentence):
        return []
    key = f"{named.casefold()}/{_session(context)}" + ("/cancel" if cancelled else "")
    if previous is not None and previous.key == key:
        fields = {**{k: v for k, v in previous.fields.items() if k in ("requested_by", "reference")}, **fields}
    fact = TypedFact("payment", key, conversation_fields(context, "user", fields))
    if not cancelled:
        context.last["payment"] = fact
    context.last[f"payee/{named.casefold()}"] = TypedFact("payment", key, {"payee": payee})
    return [fact]


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


def _when(sentence: str, context: Context, status: str | None) -> str | None:
    """The payment's date: a stated or relative one, a weekday (the next one, or the last
    one for a payment done), "just now" or "today" for the session's day."""
    today = session_day(context)
    stated = dates_in(sentence, context)
    if stated:
        return stated[0]
    weekday = _WEEKDAY.search(sentence)
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
    when = charge_date(sentence, context)
    if when is not None:
        return when
    if _NOW.search(sentence) and today is not None:
        return today.isoformat()
    if _TOMORROW.search(sentence) and today is not None:
        return (today + timedelta(days=1)).isoformat()
    return None


# --- purchases --------------------------------------------------------------------------


_STORE = re.compile(
    r"\b(?:at|from|by|went to)\s+(?:the\s+)?(?P<store>(?-i:[A-Z])[\w'&-]*(?:\s+(?:(?-i:[A-Z])[\w'&-]*|&)){0,3})")
_BUSINESS_PAYEE_STOP = frozenset({"Friday", "Monday", "Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday",
                                  "August", "April", "The", "Please", "Zelle", "Venmo"})


def _purchase(sentence: str, context: Context) -> list[TypedFact]:
    """A purchase with its price and seller ("got a Bosch for $849 at Lowe's"): a payment made."""
    if _BOUGHT.search(sentence) is None or ENDS_IN_QUESTION.search(sentence) or _NO_PAYMENT.search(sentence):
        return []
    store = next((m.group("store") for m in _STORE.finditer(sentence)
                  if m.group("store").split()[0] not in _BUSINESS_PAYEE_STOP), None)
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

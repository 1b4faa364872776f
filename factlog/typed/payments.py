"""Payment instructions and accounts from a sentence: an instruction's payee, amount,
from and to account, who asked, date, reference and status; a purchase with its price
and seller as a payment made; accounts by institution, kind and last four digits.

Entities and keys:
- a payment instruction is keyed by payee and the session's day, so corrections within a
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

from factlog.model import JsonValue
from factlog.typed import money
from factlog.typed.common import RELATIONS, conversation_fields
from factlog.typed.model import Context, TypedFact
from factlog.typed.money import (
    _BILLER,
    _CONFIRMING,
    _GATE,
    _INSTITUTION,
    _LAST4,
    _QUESTION,
    _VENDOR,
    PAYMENT_WORDS,
    _canonical,
    _charge_date,
    _dates,
    _today,
    amounts,
    clauses,
)

DOMAIN = "payments"  # not "payment": the reader keeps its last instruction under that name itself

_REQUESTER = (
    re.compile(r"\brequested by (?P<who>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"),
    re.compile(r"(?P<who>\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?:,\s+[^,]{3,40},)?\s+(?:has |had )?"
               r"(?:asked|instructed|requested|wants|told|says|said)\b"),
    re.compile(rf"\b(?:my\s+|our\s+)?(?P<who>{'|'.join(RELATIONS)})\s+(?:has |had )?"
               r"(?:asked|instructed|requested|wants|told|says|said)\b", re.I),
)
_NOT_PEOPLE = frozenset("i it he she they we you that this there please also".split())
_PAYEE = re.compile(
    r"\b(?:to|pay|paying|send|sending|wire|wiring)\s+(?:the\s+[a-z]+,\s+)?"
    r"(?P<name>[A-Z][\w&.'-]*(?:\s+(?:[A-Z][\w&.'-]*|&))*)")
_ACCOUNT_PAYEE = re.compile(r"\bto\s+the\s+(?!(?:new|same|old|other|my)\s)(?P<name>[a-z]+\s+account)\b")
_FROM = re.compile(
    r"\bfrom\s+(?:my\s+|our\s+|the\s+|his\s+|her\s+|their\s+)?(?P<acct>(?:[\w']+\s+){0,3}?"
    r"(?:checking|savings|account|card|visa|mastercard|amex)(?:\s+(?:at\s+)?(?-i:[A-Z])[\w ]*?)?"
    r"(?:\s+ending(?:\s+in)?\s+\d{4}|\s+\d{4})?)(?=\s+(?:on|to|for|by|against|this|the)\b|[,.;!]|$)", re.I)
_METHOD = re.compile(r"\bby\s+(?P<m>Zelle|Venmo|PayPal|wire|check|cheque|ACH|Cash App)\b", re.I)
_REFERENCE = re.compile(r"\binvoice\s+(?:number\s+|no\.?\s+|#\s?)?(?P<ref>[A-Z0-9][A-Z0-9-]{2,15})\b")
_CONTINUING = re.compile(r"^\W*(?:\$\s?\d|\d[\d,.]*\s*(?:dollars?|bucks)\b)")  # "$85 on the 20th from checking"
_AMENDING = re.compile(r"\b(?:actually|updated|make (?:it|that)|correction)\b", re.I)
_PAST = re.compile(r"\b(?:paid|transferred|moved|sent|wired|made the payment|put)\b", re.I)
_STOP_PAYMENT = re.compile(r"\b(?:no payment (?:be |is |to be )?released|kill the|cancel(?:led)? the|stop the|"
                           r"be cancell?ed|hold (?:the|off))\b", re.I)
_NO_PAYMENT = re.compile(r"\b(?:estimated tax payment|payment is due|payments? are due)\b", re.I)
_BUSINESS_PAYEE_STOP = frozenset({"Friday", "Monday", "Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday",
                                  "August", "April", "The", "Please", "Zelle", "Venmo"})


def read(sentence: str, context: Context) -> list[TypedFact]:
    """Each clause in turn ("wife pays it from her card. told me to kill the autopay")."""
    if _GATE.search(sentence) is None:
        return []
    probe = replace(context, last=dict(context.last))  # what money's reader will make of each clause
    facts: list[TypedFact] = []
    for clause in clauses(sentence):
        facts += _read_clause(clause, context, probe)
    return facts


def _read_clause(sentence: str, context: Context, probe: Context) -> list[TypedFact]:
    if context.speaker == "assistant" and not _CONFIRMING.search(sentence):
        return []  # the assistant's general advice names nothing of the user's
    facts: list[TypedFact] = []
    if not money._read_clause(sentence, probe):
        facts += _payment(sentence, context)
    facts += _accounts(sentence, context)
    return facts


# --- payments ------------------------------------------------------------------------


_BOUGHT = re.compile(r"\b(?:bought|purchased|purchase|ordered|got|installed by|put in)\b", re.I)
_STORE = re.compile(
    r"\b(?:at|from|by|went to)\s+(?:the\s+)?(?P<store>(?-i:[A-Z])[\w'&-]*(?:\s+(?-i:[A-Z])[\w'&-]*){0,3})")
_ORDER = re.compile(r"\border(?:\s+(?:number|no\.?|#))?\s*(?P<ref>[A-Z0-9][A-Z0-9-]{5,20})\b")


def _purchase(sentence: str, context: Context) -> list[TypedFact]:
    """A purchase with its price and seller ("got a Bosch for $849 at Lowe's"): a payment made."""
    if _BOUGHT.search(sentence) is None or _QUESTION.search(sentence):
        return []
    store = next((m.group("store") for m in _STORE.finditer(sentence)
                  if m.group("store").split()[0] not in _BUSINESS_PAYEE_STOP), None)
    found = amounts(sentence, context)
    if store is None or not found:
        return []
    fields: dict[str, JsonValue] = {"payee": store, "amount_usd": found[-1], "status": "done"}
    when = _dates(sentence, context)
    if when:
        fields["scheduled_date"] = when[0]
    order = _ORDER.search(sentence)
    if order is not None:
        fields["reference"] = order.group("ref")
    day = _today(context)
    key = f"{store.casefold()}/{day.isoformat() if day else ''}"
    return [TypedFact("payment", key, conversation_fields(context, "user", fields))]


def _payment(sentence: str, context: Context) -> list[TypedFact]:
    bought = _purchase(sentence, context)
    if bought:
        return bought
    previous = context.last.get("payment")
    amending = previous is not None and (_AMENDING.search(sentence) is not None
                                         or _CONTINUING.match(sentence) is not None) \
        and (context.recent is None or context.recent.kind == "payment" or bool(amounts(sentence, context)))
    if not (PAYMENT_WORDS.search(sentence) or amending) or _NO_PAYMENT.search(sentence) or _QUESTION.search(sentence):
        return []
    payee = _payee(sentence)
    if payee is None:
        if previous is None:
            return []
        payee = str(previous.fields["payee"])
    fields: dict[str, JsonValue] = {"payee": payee}
    found = amounts(sentence, context)
    if found:
        fields["amount_usd"] = found[-1] if re.search(r"\bactually\b", sentence, re.I) else found[0]
    who = _requester(sentence)
    cancelled = _STOP_PAYMENT.search(sentence) is not None
    if who is None and cancelled and previous is not None and "requested_by" in previous.fields:
        who = str(previous.fields["requested_by"])
    if who is not None:
        fields["requested_by"] = who
    elif previous is None and context.speaker == "user":
        fields["requested_by"] = "user"
    source = _FROM.search(sentence)
    if source is not None:
        account = account_name(source.group("acct"), context)
        if re.match(r"(?:her|his)\b", sentence[source.start() + 5:].lstrip(), re.I) and who is not None:
            account = f"{who}'s {account}"
        if account == "same account" and previous is not None and "from_account" in previous.fields:
            account = str(previous.fields["from_account"])
        fields["from_account"] = account
    target = _to_account(sentence)
    if target is not None:
        fields["to_account"] = target
    when = _charge_date(sentence, context)
    if when is not None:
        fields["scheduled_date"] = when
    reference = _REFERENCE.search(sentence)
    if reference is not None:
        fields["reference"] = reference.group("ref")
    elif re.search(r"\bautopay\b", sentence, re.I):
        fields["reference"] = "autopay"
    fields["status"] = "cancelled" if cancelled else "done" if _PAST.search(sentence) and not \
        re.search(r"\b(?:will|going to|gonna|schedule|on \w+ \d|pay on)\b", sentence, re.I) else "pending"
    if not cancelled and set(fields) <= {"payee", "requested_by", "status", "reference"} and previous is None \
            and payee not in ("rent", "mortgage") and not _BILLER.search(sentence):
        return []
    day = _today(context)
    key = f"{payee.casefold()}/{day.isoformat() if day else ''}" + ("/cancel" if cancelled else "")
    if previous is not None and previous.key == key:
        fields = {**{k: v for k, v in previous.fields.items() if k in ("requested_by", "reference")}, **fields}
    fact = TypedFact("payment", key, conversation_fields(context, "user", fields))
    if not cancelled:
        context.last["payment"] = fact
    return [fact]


def _payee(sentence: str) -> str | None:
    biller = _BILLER.search(sentence) or _VENDOR.search(sentence)
    if biller is not None:
        return _canonical(biller.group("name"))
    if re.search(r"\brent\b", sentence, re.I):
        return "rent"
    if re.search(r"\bmortgage\b", sentence, re.I):
        return "mortgage"
    account = _ACCOUNT_PAYEE.search(sentence)
    if account is not None:
        return account.group("name")
    for match in _PAYEE.finditer(sentence):
        name = match.group("name").rstrip(",").strip()
        if name.endswith(".") and not name.endswith(("Co.", "Inc.", "Ltd.", "Corp.")):
            name = name[:-1]
        words = name.split()
        if words and words[0] not in _BUSINESS_PAYEE_STOP and not _INSTITUTION.fullmatch(name):
            return name
    named = re.search(r"\bthe\s+(?:painter|plumber|contractor|electrician|landlord|nanny|tutor),\s+"
                      r"(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)", sentence)
    if named is not None:
        return named.group("name")
    return None


_ACCOUNT_KIND = re.compile(r"\b(checking|savings|operating|payroll|credit card|debit card|card|visa|mastercard|amex)\b",
                           re.I)


def account_name(text: str, context: Context) -> str:
    """An account as "<institution> <kind> <last four>", each part when stated
    ("operating account at First Republic ending 2291" -> "First Republic operating 2291");
    an account the session already named by its last four digits keeps that name."""
    institution = _INSTITUTION.search(text)
    kind = _ACCOUNT_KIND.search(text)
    digits = re.search(r"\b(\d{4})\b", text)
    known = context.last.get(f"account/{digits.group(1)}") if digits else None
    if known is not None:
        return str(known.fields["name"])
    parts = [_canonical(institution.group("name")) if institution else None,
             kind.group(1).lower() if kind else None, digits.group(1) if digits else None]
    named = " ".join(part for part in parts if part)
    return named or " ".join(text.split())


def _requester(sentence: str) -> str | None:
    for pattern in _REQUESTER:
        match = pattern.search(sentence)
        if match is not None and match.group("who").casefold() not in _NOT_PEOPLE:
            who = match.group("who")
            return who.lower() if who.lower() in RELATIONS else who
    return None


def _to_account(sentence: str) -> str | None:
    for match in _LAST4.finditer(sentence):
        before = sentence[: match.start()]
        to_at, from_at = before.rfind(" to "), before.rfind(" from ")
        if to_at > from_at:
            institution = _INSTITUTION.search(sentence, to_at)
            kind = re.search(r"\b(payroll|checking|savings|operating)\b", sentence[to_at: match.start()], re.I)
            parts = [p for p in (institution.group("name") if institution and institution.start() < match.start()
                                 else None, kind.group(1).lower() if kind else None) if p]
            return " ".join([*parts, match.group("d")])
    method = _METHOD.search(sentence)
    if method is not None and method.group("m").lower() not in ("wire", "check", "cheque"):
        return method.group("m")
    return None


# --- accounts ------------------------------------------------------------------------


def _accounts(sentence: str, context: Context) -> list[TypedFact]:
    """Accounts the user names: by their last four digits ("checking 0417", "card ending
    7713"), or by institution and kind ("my checking, the Bank of America")."""
    if context.speaker == "assistant":
        return []
    facts = []
    for match in _LAST4.finditer(sentence):
        digits = match.group("d")
        clause = sentence[max(0, match.start() - 60): match.end()]
        fields: dict[str, JsonValue] = {"last4": digits}
        institutions = list(_INSTITUTION.finditer(clause))
        if institutions:
            fields["institution"] = _canonical(institutions[-1].group("name"))
        kinds = list(re.finditer(r"\b(checking|savings|operating|payroll|visa|mastercard|credit card|debit card)\b",
                                 clause, re.I))
        if kinds:
            word = kinds[-1].group(1)
            fields["kind"] = word if word[0].isupper() or word.lower() not in ("visa", "mastercard") else word.title()
        facts.append(TypedFact("account", f"account/{digits}", conversation_fields(context, "user", fields)))
        if context.last.get(f"account/{digits}") is None:
            context.last[f"account/{digits}"] = TypedFact("account", None, {"name": account_name(clause, context)})
    named = next((m for m in (p.search(sentence) for p in _NAMED_ACCOUNTS) if m is not None), None)
    if not facts and named is not None:
        institution, kind = _canonical(named.group("name")), named.group("kind").lower()
        key = f"account/{institution.casefold()}/{kind}"
        fields = {"institution": institution, "kind": kind}
        facts.append(TypedFact("account", key, conversation_fields(context, "user", fields)))
    return facts


# "my checking, the Bank of America", "my Chase savings": an account without its digits
_NAMED_ACCOUNTS = (
    re.compile(r"\b(?:my|our)\s+(?P<kind>checking|savings)\b[^.;]{0,12}?\b(?:the\s+)?" + _INSTITUTION.pattern, re.I),
    re.compile(r"\b(?:my|our)\s+" + _INSTITUTION.pattern + r"\s+(?P<kind>checking|savings)\b", re.I),
)

"""Accounts in payment talk: the account a payment comes from ("from checking ending 4821",
"out of the joint account", "from her card"), the one it goes to ("to the payroll account
ending 6604", "by Zelle"), their names, and the user's accounts as facts.

An account is named "<institution> <words> <kind> <last four>", each part when stated, the
word "account" and possessives left out ("the operating account at First Republic ending
2291" -> "First Republic operating 2291", "our joint checking" -> "joint checking"); another
person's account keeps the owner ("wife's card"). A payment service stands for the account
paid to when nothing else is named ("by Zelle" -> "Zelle"); a rail (wire, ACH, check) does
not. An account fact (`account`, keyed by its last four digits, else by institution and
kind) is the user's own: an account someone asks to be paid into ("to a new account,
Wells Fargo ending 8812") is only a payment's `to_account`.
"""

from __future__ import annotations

import re

from factlog.model import JsonValue
from factlog.relations import ASSOCIATES, BARE, FAMILY, family_word
from factlog.typed.common import conversation_fields, whose
from factlog.typed.model import Context, TypedFact
from factlog.typed.money import INSTITUTION, LAST4, canonical_vendor

_KIND = (r"(?:checking|chequing|savings|current account|credit card|debit card|card|visa|mastercard|amex|hsa|fsa|"
         r"account|acct)")
_WORD_LIST = (r"joint|business|personal|household|family|main|primary|secondary|operating|payroll|reserve|escrow|"
              r"trust|brokerage|money market|emergency|hsa|high-yield|high yield")
_QUALIFIER = rf"(?:{_WORD_LIST}|old|other|second|same|(?-i:[A-Z])[\w'&]*)"
_OWNER = r"(?:my|our|your|the|his|her|their|a|an|its)"
_BANK_NAME = INSTITUTION.pattern.replace("(?P<name>", "(?:")
# "from checking ending 4821", "out of the joint account", "from her card", "from the operating
# account at First Republic ending 2291", "from my Chase savings"
_FROM = re.compile(
    rf"\b(?:from|out of|using|use|by|(?:charged?|billed?)\s+(?:it\s+)?to|"
    rf"(?:put|paid|pay|paying|charged?)\s+(?:it\s+)?on|"
    rf"on(?=\s+(?:the|my|your|our|his|her|(?-i:[A-Z])\w+['’]s)\s+(?:[\w'&-]+\s+){{0,2}}(?:card|visa|mastercard|amex)\b)|"
    rf"on(?=\s+(?:his|her|their|(?-i:[A-Z])\w+['’]s)\s+(?:own\s+)?account\b)|"
    # "paid it with his own card", "with the Amex"
    rf"with(?=\s+(?:the|my|our|his|her|their|(?-i:[A-Z])\w+['’]s)\s+(?:own\s+)?(?:[\w'&-]+\s+){{0,2}}?"
    rf"(?:card|visa|mastercard|amex|checking|savings|chequing)\b))"
    rf"\s+(?P<owner>{_OWNER}\s+)?(?:own\s+)?(?:(?P<poss>\w+)['’]s\s+)?(?:own\s+)?(?P<acct>"
    # a word of the user's own before the kind when a determiner opens it: "the rental account", "the league checking"
    rf"(?:(?:{_QUALIFIER}|(?<=the\s)(?-i:[a-z]{{3,}})|(?<=our\s)(?-i:[a-z]{{3,}})|(?<=my\s)(?-i:[a-z]{{3,}}))\s+){{0,3}}"
    rf"{_KIND}(?:\s+account)?"
    rf"(?:\s+(?:at|with|of|from)\s+(?:the\s+)?(?:{INSTITUTION.pattern}|(?-i:[A-Z])[\w&]*(?:\s+(?-i:[A-Z])[\w&]*){{0,2}}))?"
    # "the rental account, the Chase one ending 7730"
    rf"(?:,\s+the\s+(?:{_BANK_NAME}|(?-i:[A-Z])[\w&]*(?:\s+(?-i:[A-Z])[\w&]*){{0,2}})\s+one)?"
    rf"(?:,?\s+(?:ending|ends)(?:\s+(?:in|with))?\s+\d{{4}}|\s+(?:x|#)?\d{{4}})?)\b", re.I)
_FROM_WORD = re.compile(r"\b(?:from|out of)\s+(?:the\s+|my\s+|our\s+)?"
                        r"(?P<word>joint|business|operating|payroll|reserve|household|emergency)\b"
                        # "from Operating at First Citizens ending 2206"
                        r"(?P<rest>\s+(?:at|with)\s+(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*){0,2}"
                        r"(?:,?\s+ending(?:\s+in)?\s+\d{4})?|,?\s+ending(?:\s+in)?\s+\d{4})?"
                        r"(?=\s*(?:to|on|,|\.|$|and|for|by))", re.I)
_AT_BANK = re.compile(r"\s+(?:at|with)\s+" + INSTITUTION.pattern, re.I)
# an institution the table lacks, named by what it is: "Summit Credit Union", "Nationwide Building Society"
_OTHER_BANK = re.compile(r"(?P<name>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*){0,3}\s+(?:Federal\s+)?"
                         r"(?-i:Credit Union|Building Society|Savings Bank|Co-operative Bank))\b")
# a bank the table lacks, named where an account's bank is: "operating at First Citizens", "the Bendigo one"
_NAMED_BANK = re.compile(r"(?:\b(?:at|with)\s+|,\s+the\s+)(?:the\s+)?"
                         r"(?P<name>(?-i:[A-Z])[\w&]*(?:\s+(?-i:[A-Z])[\w&]*){0,2})"
                         r"(?=\s+one\b|\s*,?\s+ending\b|\s*$)")
_ACCOUNT_KIND = re.compile(rf"\b({_KIND})\b", re.I)
_WORDS = re.compile(rf"\b({_WORD_LIST})\b", re.I)
_SERVICE = re.compile(r"\b(?:by|via|with|w/?|through|over|on|using)\s+(?P<m>zelle|venmo|paypal|cash app|apple pay)\b"
                      r"|\b(?P<v>zelle|venmo)(?:d|ed)?\s+(?:it|him|her|them|the|\$|\d|(?-i:[A-Z]))"
                      r"|\b(?P<i>interac)(?:\s+e-?transfer)?\b|\b(?P<e>e-?transfer(?:red|ring|s)?)\b", re.I)
_SERVICES = {"zelle": "Zelle", "venmo": "Venmo", "paypal": "PayPal", "cash app": "Cash App", "apple pay": "Apple Pay"}
_INTERAC = "Interac e-Transfer"  # Canada's person-to-person service: "an Interac e-transfer", "e-transferred"
_SOMEONE_ELSES = re.compile(r"\b(?:new|his|her|their|another|different|someone)\b", re.I)
_OURS = re.compile(r"\b(?:my|our|card)\b", re.I)


def account_name(text: str, context: Context, owner: str | None = None) -> str:
    """An account as "<institution> <words> <kind> <last four>", each part when stated;
    an account the session already named by its last four digits keeps that name."""
    institution = INSTITUTION.search(text) or _OTHER_BANK.search(text) or _NAMED_BANK.search(text)
    kinds = [m.group(1).lower().removesuffix(" account") for m in _ACCOUNT_KIND.finditer(text)
             if m.group(1).lower() not in ("account", "acct")]
    digits = re.search(r"(\d{4})\b", text)
    known = context.last.get(f"account/{digits.group(1)}") if digits else None
    if known is not None and owner is None:
        return str(known.fields["name"])
    words = [m.group(1).lower() for m in _WORDS.finditer(text)]
    first_kind = _ACCOUNT_KIND.search(text)
    if first_kind is not None:  # "rental account", "league checking": the user's own word for it
        free: list[str] = []
        for word in reversed(text[: first_kind.start()].split()[-2:]):  # the words right before the kind
            word = re.sub(r"['’]s$", "", word)  # "the club's checking"
            if not re.fullmatch(r"(?-i:[a-z]{3,})", word) or word in _NOT_NAMING or family_word(word) is not None:
                break
            if not _WORDS.fullmatch(word):
                free.insert(0, word)
        words = free + words
    kind = kinds[0] if kinds else None
    words = [word for word in words if word != kind]
    if kind in ("hsa", "fsa"):
        kind = kind.upper()
    if kind is not None and institution is not None and kind.casefold() == institution.group("name").casefold():
        kind = None  # "the Amex": one word for both
    if kind in ("visa", "mastercard", "amex"):
        kind = {"visa": "Visa", "mastercard": "Mastercard", "amex": "Amex"}[kind]
    parts = [canonical_vendor(institution.group("name")) if institution else None, *words, kind,
             digits.group(1) if digits else None]
    named = " ".join(part for part in parts if part)
    if not named:
        named = "account"
    return f"{owner}'s {named}" if owner else named


_NOT_NAMING = frozenset("the my our your his her their own same old other new this that one any from out of to into "
                        "using use via with by on at for and or in it".split())


def from_account(sentence: str, context: Context, who: str | None) -> str | None:
    """The account the sentence pays from; "her card" is the requester's when one is named."""
    match = _FROM.search(sentence)
    if match is None:
        bare = _FROM_WORD.search(sentence)  # "move twelve hundred from joint to my Chase"
        if bare is not None and bare.group("rest"):
            return account_name(bare.group("word").lower() + bare.group("rest"), context)
        return bare.group("word").lower() if bare is not None else None
    possessive = (match.group("owner") or "").strip().lower()
    owner = who if possessive in ("his", "her", "their") and who not in (None, "user") else match.group("poss")
    if owner is not None and holder(owner) is not None:
        owner = None  # "out of Mum's account": the payment is hers (`holder`), the account is named plainly
    acct = match.group("acct")
    if owner is not None and owner.islower() and family_word(owner) is None and owner not in ASSOCIATES:
        acct, owner = f"{owner} {acct}", None  # "the club's checking": the club's word for it, no person's
    if owner is not None and family_word(whose(owner, context)) is not None:
        owner = whose(owner, context)  # "Nikau's card" after "my son Nikau": the son's card
    return account_name(acct, context, owner)


_HOLDERS = {word: FAMILY[word] for word in (*BARE, "mother", "father") if len(word) > 2}  # `factlog.relations`
_HELD = re.compile(r"\b(?:from|out of|using)\s+(?P<who>" + "|".join(_HOLDERS) + r")['’]s\s+(?:\w+\s+){0,3}?"
                   r"(?:account|checking|savings|card)\b", re.I)


def holder(word: str) -> str | None:
    """The parent a caregiver pays for ("Mum" -> "mother"), or None."""
    return _HOLDERS.get(word.casefold())


def held_by(sentence: str) -> str | None:
    """Whose money pays: a parent's account the user pays from ("out of Mum's Westpac
    account ending 3308" -> "mother"), else None."""
    match = _HELD.search(sentence)
    return holder(match.group("who")) if match is not None else None


# "$962.40 to Cedar Creek, on the card ending 4411": the card pays, it is not paid into
_PAID_FROM = re.compile(r"\b(?:on|using|with|from|out of|via)\s+(?:the\s+|my\s+|your\s+|our\s+|his\s+|her\s+)?"
                        r"(?:[\w'&-]+\s+){0,2}?(?:card|credit card|debit card|visa|mastercard|amex|checking|savings|"
                        r"chequing)\b", re.I)


def to_account(sentence: str) -> str | None:
    """The account paid into: one named by its last four digits after "to", else the payment
    service ("by Zelle")."""
    for match in LAST4.finditer(sentence):
        before = sentence[: match.start()]
        to_at, from_at = before.rfind(" to "), max(before.rfind(" from "), before.rfind(" out of "))
        if to_at > from_at and not _PAID_FROM.search(sentence, to_at, match.start()):
            institution = next((m for m in reversed(list(INSTITUTION.finditer(sentence, to_at, match.start())))), None)
            kind = re.search(r"\b(payroll|checking|savings|operating|reserve|escrow|brokerage)\b",
                             sentence[to_at: match.start()], re.I)
            parts = [p for p in (canonical_vendor(institution.group("name")) if institution
                                 and institution.start() < match.start() else None,
                                 kind.group(1).lower() if kind else None) if p]
            after = _AT_BANK.match(sentence, match.end()) if not parts or institution is None else None
            if after is not None:  # "to account ending 5521 at TD Bank"
                parts.insert(0, canonical_vendor(after.group("name")))
            return " ".join([*parts, match.group("d")])
    service = _SERVICE.search(sentence)
    if service is not None:
        if service.group("i") or service.group("e"):
            return _INTERAC
        return _SERVICES[(service.group("m") or service.group("v")).lower()]
    return None


def someone_elses(sentence: str, start: int) -> bool:
    """The account at `start` is one the user is asked to pay into (after "to a new account",
    "to his account"), not the user's own."""
    before = sentence[:start]
    to_at, from_at = before.rfind(" to "), max(before.rfind(" from "), before.rfind(" out of "))
    phrase = before[to_at:]
    return to_at > from_at and _SOMEONE_ELSES.search(phrase) is not None and _OURS.search(phrase) is None


def accounts(sentence: str, context: Context) -> list[TypedFact]:
    """The user's accounts the sentence names: by their last four digits ("checking 0417",
    "card ending 7713"), or by institution and kind ("my checking, the Bank of America")."""
    if context.speaker == "assistant":
        return []
    facts = []
    for match in LAST4.finditer(sentence):
        digits = match.group("d")
        if someone_elses(sentence, match.start()):
            continue
        clause = sentence[max(0, match.start() - 60): match.end()]
        clause = clause[max(clause.rfind(" to "), clause.rfind(" from "), 0):]  # this account's words only
        fields: dict[str, JsonValue] = {"last4": digits}
        institutions = list(INSTITUTION.finditer(clause))
        if institutions:
            fields["institution"] = canonical_vendor(institutions[-1].group("name"))
        kinds = list(re.finditer(
            r"\b(checking|chequing|savings|operating|payroll|reserve|escrow|brokerage|joint|business|visa|mastercard|"
            r"amex|credit card|debit card|card)\b", clause, re.I))  # "the card ending 4411": a card
        if kinds:
            word = kinds[-1].group(1)
            fields["kind"] = word.title() if word.lower() in ("visa", "mastercard", "amex") else word.lower()
        facts.append(TypedFact("account", f"account/{digits}", conversation_fields(context, held_by(sentence) or "user",
                                                                                   fields)))
        if context.last.get(f"account/{digits}") is None:
            context.last[f"account/{digits}"] = TypedFact("account", None, {"name": account_name(clause, context)})
    named = next((m for m in (p.search(sentence) for p in _NAMED_ACCOUNTS) if m is not None), None)
    if not facts and named is not None:
        institution, kind = canonical_vendor(named.group("name")), named.group("kind").lower()
        key = f"account/{institution.casefold()}/{kind}"
        facts.append(TypedFact("account", key, conversation_fields(context, "user", {"institution": institution,
                                                                                      "kind": kind})))
    return facts


# "my checking, the Bank of America", "my Chase savings": an account without its digits
_NAMED_ACCOUNTS = (
    re.compile(r"\b(?:my|our)\s+(?P<kind>checking|chequing|savings)\b[^.;]{0,12}?\b(?:the\s+)?" + INSTITUTION.pattern,
               re.I),
    re.compile(r"\b(?:my|our)\s+(?P<kind>checking|chequing|savings)\s+(?:account\s+)?(?:at|with)\s+(?:the\s+)?" +
               _OTHER_BANK.pattern),
    re.compile(r"\b(?:my|our|the)\s+" + INSTITUTION.pattern +
               r"\s+(?P<kind>checking|chequing|savings|business checking|business savings|joint checking|"
               r"joint chequing|joint savings)\b", re.I),
)

"""What a payment sentence refers to beyond itself (`factlog.typed.payments`' helpers):
the instructions earlier sessions stated (`Context.prior`, "actually make Brian's payment
3,200", "cancel that transfer", "Tom finished early so I paid him"), and a pasted notice
that a payee changed banks, whose "Bank: ..." and "Account ending: ..." lines name the
account the payment asked for now goes to.
"""

from __future__ import annotations

import re

from factlog.model import JsonValue
from factlog.typed.model import Context, TypedFact

# a pasted notice that a payee's bank changed: "Hernandez Drywall has changed banks", then
# "Bank: Citibank" and "Account ending: 7702" on lines of their own
_NAME = r"(?-i:[A-Z][\w&.'’-]*(?:\s+(?:[A-Z][\w&.'’-]*|&)){0,4})"
_BANK_CHANGE = re.compile(
    rf"(?P<name>{_NAME})\s+(?:has|have|had)\s+(?:recently\s+)?(?:changed|switched|moved|updated)\s+(?:banks?\b|"
    r"(?:its|their|our|his|her)\s+bank(?:ing)?\s+(?:details|account|information|info)|bank(?:ing)?\s+(?:details|accounts?))",
    re.I)
# the same notice without the payee's name in its sentence: "our banking details have been
# updated", "Subject: change of remittance details", "please note our new bank details"
_BANK_CHANGED = re.compile(
    r"\b(?:our|their|its|the|his|her)\s+(?:bank(?:ing)?|remittance|payment|account)\s+(?:details|information|info|"
    r"account)\s+(?:have|has)\s+(?:recently\s+)?(?:been\s+)?(?:changed|updated|switched)"
    r"|\bchange\s+(?:of|in)\s+(?:bank(?:ing)?|remittance|payment|account)\s+(?:details|information|info)"
    r"|\b(?:our|their)\s+new\s+(?:bank(?:ing)?|remittance)\s+(?:details|information|info)\b", re.I)
_IBAN_LINE = re.compile(r"^\W*iban\s*(?:number|no\.?)?\s*:?\s*(?P<iban>[A-Z]{2}\d{2}(?:\s?[A-Z0-9]){8,32})\W*$", re.I)
_POSSESSED = re.compile(r"(?<![\w'])(?-i:[A-Z])[a-z][\w-]*(?=['’]s\b)")
_BANK_LINE = re.compile(r"^\W*bank(?:\s+name)?\s*:\s*(?P<bank>[A-Z][\w&' .-]{1,40}?)\W*$", re.I)
_ACCOUNT_LINE = re.compile(r"^\W*(?:account|acct)(?:\s+(?:number|no\.?|#))?(?:\s+ending(?:\s+in)?)?\s*:?\s*[*xX•.\s-]*"
                           r"\d*?(?P<d>\d{4})\W*$", re.I)


def bank_notice(sentence: str, context: Context) -> list[TypedFact] | None:
    """A bank-change notice's lines: who changed banks (kept as the session's payee), then
    the new bank and account, which update the payment the notice asks for. None when the
    sentence is none of these."""
    change = _BANK_CHANGE.search(sentence)
    unnamed = _BANK_CHANGED.search(sentence) if change is None else None
    if change is not None or unnamed is not None:
        name = change.group("name").strip() if change is not None else _notice_payee(context)
        if name is not None:
            context.last["bank-change"] = TypedFact("payment", None, {"payee": name})
        return None  # the sentence may ask for the payment itself, read as usual
    notice = context.last.get("bank-change")
    if notice is None:
        return None
    iban = _IBAN_LINE.match(sentence)
    previous = context.last.get("payment")
    if iban is not None and previous is not None:
        digits = "".join(ch for ch in iban.group("iban") if ch.isdigit())[-4:]
        target = " ".join(str(part) for part in (notice.fields.get("bank"), digits) if part)
        fact = TypedFact("payment", previous.key, {**previous.fields, "to_account": target})
        context.last["payment"] = fact
        return [fact]
    bank = _BANK_LINE.match(sentence)
    if bank is not None:
        context.last["bank-change"] = TypedFact("payment", None, {**notice.fields, "bank": bank.group("bank").strip()})
        return []
    account = _ACCOUNT_LINE.match(sentence)
    previous = context.last.get("payment")
    if account is None or previous is None:
        return None
    target = " ".join(str(part) for part in (notice.fields.get("bank"), account.group("d")) if part)
    fact = TypedFact("payment", previous.key, {**previous.fields, "to_account": target})
    context.last["payment"] = fact
    return [fact]


def _notice_payee(context: Context) -> str | None:
    """Whose bank changed when the notice does not say: a payee an earlier session paid whom
    this session named ("supposedly from Harbourline's accounts team"), else the one payee an
    earlier session's pending instruction names."""
    for said in reversed(context.said):
        for word in [*_POSSESSED.findall(said), *_CAPITALISED.findall(said)]:
            known = earlier_instruction(word, context, prefix=True)
            if known is not None:
                return str(known[1]["payee"])
    pending = {str(fields["payee"]) for _, fields in context.prior.of_kind("payment")
               if fields.get("status") == "pending" and "payee" in fields}
    return pending.pop() if len(pending) == 1 else None


def earlier_instruction(payee: str | None, context: Context, *,
                        prefix: bool = False) -> tuple[str, dict[str, JsonValue]] | None:
    """The latest instruction to `payee` an earlier session stated (one name starting the
    other), as (key, fields); `prefix`: `payee` is one word that must start the other name."""
    if payee is None:
        return None
    words = payee.casefold().split()
    for key, fields in reversed(context.prior.of_kind("payment")):
        other = str(fields.get("payee", "")).casefold().split()
        shorter, longer = sorted((words, other), key=len)
        if prefix and (len(words) != 1 or not other or other[0] != words[0]):
            continue
        if shorter and longer[: len(shorter)] == shorter and not key.endswith("/cancel"):
            return key, fields
    return None


def latest_pending(context: Context) -> tuple[str, dict[str, JsonValue]] | None:
    return next(((key, fields) for key, fields in reversed(context.prior.of_kind("payment"))
                 if fields.get("status") == "pending"), None)


_CAPITALISED = re.compile(r"(?<![\w'])(?-i:[A-Z])[a-z][\w'-]*")


def known_payee_named(sentence: str, context: Context) -> str | None:
    """A payee this or an earlier session paid, named in the sentence by its first word
    ("Tom finished early so I paid him" -> "Tom Reyes"; typed in lower case too, "ortiz came
    by so I paid him" -> "Ortiz Plumbing")."""
    known = [str(f.fields["payee"]) for name, f in context.last.items() if name.startswith("payee/")]
    known += [str(fields["payee"]) for _, fields in context.prior.of_kind("payment") if "payee" in fields]
    for word in [*_CAPITALISED.findall(sentence), *_LOWER.findall(sentence)]:  # "ortiz came by so I paid him"
        for name in reversed(known):
            if name.split()[0].casefold() == word.casefold():
                return name
    return None


_LOWER = re.compile(r"(?<![\w'])(?-i:[a-z]{4,})(?![\w'])")  # a name typed without its capital


def paid_as_planned(fields: dict[str, JsonValue], planned: dict[str, JsonValue]) -> bool:
    """The user reports done the payment an earlier session planned ("I paid him the second
    $2k today"): the same amount, or none said; the same instruction, now done."""
    amount = fields.get("amount_usd")
    return fields.get("status") == "done" and planned.get("status") == "pending" and \
        (amount is None or amount == planned.get("amount_usd"))


_PAID_WORD = re.compile(r"\b(?:paid|pay|paying|pays|sent|send|sending|zelled|venmoed|wired|covered|settled|"
                        r"e-?transferred)"
                        r"\s+(?:the\s+)?(?P<word>[A-Za-z][\w'-]{2,})", re.I)


def known_payee_paid(sentence: str, context: Context) -> str | None:
    """A payee this or an earlier session paid, named right after a pay verb by its first word,
    in any case ("he paid cedar creek at pickup" -> "Cedar Creek Animal Hospital")."""
    known = [str(f.fields["payee"]) for name, f in context.last.items() if name.startswith("payee/")]
    known += [str(fields["payee"]) for _, fields in context.prior.of_kind("payment") if "payee" in fields]
    for match in _PAID_WORD.finditer(sentence):
        word = match.group("word").casefold()
        for name in reversed(known):
            if name.split()[0].casefold() == word:
                return name
    return None

"""A payment pasted as "Field: value" lines (a bank's confirmation, a bill-pay screen, a
remittance advice): "Payee: Evergreen Dental", "Amount: $1,250.00", "From: Everyday Checking
...4471", "Deliver by: 03/14/2026", "Confirmation #: EDX-55120", "Status: Scheduled".

The payee line opens the form: a payment keyed by the payee and the session, as an
instruction stated in prose is; each later line of the form adds its field to it. An e-mail
header ("From: accounts@vendor.com", "To: me") is no field of a payment. A line of a form
when no payee line opened one names nothing.
"""

from __future__ import annotations

import re

from factlog.model import JsonValue
from factlog.typed.accounts import account_name, accounts
from factlog.typed.common import conversation_fields
from factlog.typed.model import Context, TypedFact
from factlog.typed.money import amounts, dates_in

_FIELD = re.compile(r"^\W*(?P<name>[A-Za-z][A-Za-z #.'/-]{1,30}?)\s*(?:#\s*)?:\s*(?P<value>\S.{0,120}?)\s*$")
_NAMES: dict[str, str] = {
    **dict.fromkeys(("payee", "pay to", "paid to", "recipient", "beneficiary", "biller", "payee name", "send to",
                     "to payee", "merchant"), "payee"),
    **dict.fromkeys(("amount", "payment amount", "amount due", "amount paid", "total", "transfer amount",
                     "amount to pay"), "amount_usd"),
    **dict.fromkeys(("from", "pay from", "from account", "funding account", "debit account", "paid from",
                     "account", "source account"), "from_account"),
    **dict.fromkeys(("deliver by", "delivery date", "send on", "send date", "payment date", "scheduled for",
                     "scheduled date", "date", "process date", "processing date", "pay on", "due date", "payment on"),
                    "scheduled_date"),
    **dict.fromkeys(("confirmation", "confirmation number", "confirmation no", "confirmation code", "reference",
                     "reference number", "ref", "invoice", "invoice number", "invoice no", "memo"), "reference"),
    **dict.fromkeys(("status", "payment status"), "status"),
}
_STATUS = (("cancel", "cancelled"), ("scheduled", "pending"), ("pending", "pending"), ("processing", "pending"),
           ("sent", "done"), ("paid", "done"), ("completed", "done"), ("complete", "done"), ("delivered", "done"))
_FORM = "payment-form"


def form_line(sentence: str, context: Context) -> list[TypedFact] | None:
    """The payment a "Field: value" line opens or adds to, as facts; None when the sentence
    is no such line (read as prose)."""
    match = _FIELD.match(sentence)
    if match is None:
        return None
    name = _NAMES.get(" ".join(match.group("name").casefold().replace(".", "").split()))
    value = match.group("value")
    if name is None or "@" in value:
        return None
    if name == "payee":
        key = f"{value.casefold()}/{_session(context)}"
        return [_state(context, TypedFact("payment", key, {"payee": value}), {"status": "pending"})]
    form = context.last.get(_FORM)
    if form is None:
        return None
    found = _value(name, value, context)
    if found is None:
        return []
    owned = accounts(f"from my {_plain(value)}", context) if name == "from_account" else []
    return [_state(context, form, {name: found}), *owned]


def _plain(value: str) -> str:
    """An account as the form writes it without its masking ("Checking ...4471", "****4471")."""
    return re.sub(r"\s*(?:\.{2,}|[*•xX]{2,})\s*", " ending ", value)


def _value(name: str, value: str, context: Context) -> JsonValue:
    if name == "amount_usd":
        found = amounts(value, context)
        return found[0] if found else None
    if name == "scheduled_date":
        days = dates_in(value, context)
        return days[0] if days else None
    if name == "from_account":
        return account_name(_plain(value), context)
    if name == "status":
        word = value.casefold()
        return next((status for cue, status in _STATUS if cue in word), None)
    code = re.match(r"#?\s*(?P<code>[A-Z0-9][A-Z0-9-]{2,24})\b", value, re.I)
    return code.group("code") if code is not None and any(ch.isdigit() for ch in code.group("code")) else None


def _state(context: Context, form: TypedFact, new: dict[str, JsonValue]) -> TypedFact:
    """The form's payment with `new` added (stored as the session's payment), as the fact to emit."""
    fields = {**form.fields, **new}
    context.last[_FORM] = TypedFact("payment", form.key, fields)
    fact = TypedFact("payment", form.key, conversation_fields(context, "user", {"requested_by": "user", **fields}))
    context.last["payment"] = fact
    context.last[f"payee/{str(fields['payee']).casefold()}"] = TypedFact("payment", form.key,
                                                                         {"payee": fields["payee"]})
    return fact


def _session(context: Context) -> str:
    return context.timestamp.isoformat(timespec="minutes") if context.timestamp is not None else ""

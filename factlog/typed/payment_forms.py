"""A payment pasted as "Field: value" lines (a bank's confirmation, a bill-pay screen, a
remittance advice): "Payee: Evergreen Dental", "Amount: $1,250.00", "From: Everyday Checking
...4471", "Deliver by: 03/14/2026", "Confirmation #: EDX-55120", "Status: Scheduled".

The payee line opens the form: a payment keyed by the payee and the session, as an
instruction stated in prose is; each later line of the form adds its field to it. An e-mail
header ("From: accounts@vendor.com", "To: me") is no field of a payment. A line of a form
when no payee line opened one names nothing.

Messages pasted from someone else (`pasted_voice`): a chat line "[6:02 PM] Marisol: paid him
from the joint account", "Dee: paid the honda loan" (the name given earlier in the session,
or the line stamped with a time), or a quoted text after "my wife Fiona texted me this:", is
that person's: read in the third person ("Marisol paid him from the joint account"), its
first person ("I", "my", a line opening with a verb in the past) being the writer's.
"""

from __future__ import annotations

import re

from factlog.model import JsonValue
from factlog.relations import family_word
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


# --- messages pasted from someone else ------------------------------------------------

_CHAT = re.compile(r"^\W*(?P<stamp>\[[^\]]{1,24}\]\s*)?(?P<name>(?-i:[A-Z])[a-z]+(?:\s(?-i:[A-Z])[a-z]+)?)\s*:\s+"
                   r"(?P<text>\S.*)$")
# "my wife Fiona has just texted me this:", "Dee sent me these:": the quoted lines after it are theirs
_INTRODUCED = re.compile(r"(?:\b(?:my|our)\s+(?P<rel>[a-z-]+)(?:\s+(?P<relname>(?-i:[A-Z])[a-z]+))?|"
                         r"(?P<name>(?-i:[A-Z])[a-z]+))(?:['’]s)?\s+(?:has\s+|had\s+|just\s+)*"
                         r"(?:texted|messaged|emailed|e-mailed|wrote|sent|forwarded|whatsapped)(?:\s+(?:me|us))?"
                         r"(?:\s+(?:this|these|the following|back))?\s*:\s*$", re.I)
# "Instructions from the owner, Mr. Delgado, for this week:": the lines after it are his instructions
_INSTRUCTIONS = re.compile(r"\b(?:instructions?|orders|requests?|message|note|email|e-mail|text)\s+"
                           r"(?:[\w'-]+\s+){0,3}?from\s+(?:(?:the|my|our)\s+[a-z-]+,?\s+)?"
                           r"(?P<name>(?-i:[A-Z])[\w.'-]*(?:\s+(?-i:[A-Z])[\w.'-]*){0,2})\b[^:]{0,40}:\s*$", re.I)
# a line the user says in their own voice again: "Can you keep track of that for me?"
_OWN_VOICE = re.compile(r"\b(?:i|i'm|i'll|i've|me|my|we|our|you|your)\b|\?\s*$", re.I)
_QUOTED = re.compile(r"^\s*[\"“](?P<text>[^\"”]+)[\"”]?\s*$")
_VOICE = "pasted-voice"
# a line's label, not its writer: "Noted: ...", "Update: ...", "Me: ..."
_NOT_WRITERS = frozenset("me you i us we noted note notes update updated confirmed recorded reminder subject re fwd ps "
                         "summary total balance status warning important tip answer question q a edit plan todo "
                         "instructions details invoice receipt order".split())
# what opens a line said in the first person without its subject: "paid the honda loan", "set up the fees"
_DONE_VERB = re.compile(r"^(?:paid|sent|set up|put|made|gave|wrote|mailed|transferred|moved|zelled|venmoed|wired|"
                        r"covered|settled|cancell?ed|booked|just paid|already paid|already sent|just sent)\b", re.I)
_FIRST = ((re.compile(r"\bI['’]m\b"), "{} is"), (re.compile(r"\bI['’]ve\b"), "{} has"),
          (re.compile(r"\bI['’]ll\b"), "{} will"), (re.compile(r"\bI['’]d\b"), "{} would"),
          (re.compile(r"\b(?:I|i)\b(?!['’])"), "{}"), (re.compile(r"\b(?:my|mine)\b", re.I), "{}'s"),
          (re.compile(r"\bme\b", re.I), "{}"))


def pasted_voice(sentence: str, context: Context) -> tuple[str, str] | None:
    """(the writer, the line in the third person) for a message pasted from someone else (see
    the module), or None for the user's own words. Remembers an introduction ("my wife
    Fiona texted me this:") for the quoted lines after it."""
    voice = context.last.get(_VOICE)
    if voice is None and ":" not in sentence:
        return None  # most sentences: no introduction, no pasted line, nothing pasted before
    introducing = context.speaker == "user" and sentence.rstrip().endswith(":")
    listed = _INSTRUCTIONS.search(sentence) if introducing else None
    if listed is not None:
        context.last[_VOICE] = TypedFact("payment", None, {"name": listed.group("name"), "lines": True})
        return None
    introduced = _INTRODUCED.search(sentence) if introducing else None
    if introduced is not None:
        who = introduced.group("relname") or introduced.group("name")
        relation = introduced.group("rel")
        if who is None and relation is not None and family_word(relation) is not None:
            who = relation.lower()
        if who is not None and who.casefold() not in ("i", "he", "she", "they", "we", "you", "it", "someone"):
            context.last[_VOICE] = TypedFact("payment", None, {"name": who})
        return None
    quoted = _QUOTED.match(sentence)
    if quoted is not None and voice is not None:
        return str(voice.fields["name"]), _third_person(quoted.group("text"), str(voice.fields["name"]))
    if voice is not None and voice.fields.get("lines") and context.speaker == "user" and \
            not _OWN_VOICE.search(sentence):
        return str(voice.fields["name"]), sentence  # a line of the instructions introduced
    context.last.pop(_VOICE, None)  # an introduction covers the quoted lines right after it
    chat = _CHAT.match(sentence) if context.speaker == "user" else None
    if chat is None:
        return None
    name = chat.group("name")
    if name.casefold() in _NOT_WRITERS:
        return None
    known = chat.group("stamp") is not None or family_word(name) is not None or any(
        re.search(rf"\b{re.escape(name)}\b", said) for said in context.said[:-1])
    if not known or _NAMES.get(name.casefold()) is not None:
        return None
    return name, _third_person(chat.group("text"), name)


def _third_person(text: str, name: str) -> str:
    """`text` as said of `name`: "paid the loan from my checking" -> "Dee paid the loan from Dee's checking"."""
    text = text.strip().strip("\"“”")
    if _DONE_VERB.match(text):
        text = f"{name} {text[:1].lower()}{text[1:]}"
    for pattern, replacement in _FIRST:
        text = pattern.sub(replacement.format(name), text)
    return text

"""The built-in constraint over payment instructions talked about in conversation
(`conflicting_payments`): two instructions that would pay one obligation twice or
differently, an invoice paid again, or a payment one person asked for that another
asked to stop.

Payees are one when one name starts the other ("Dan" and "Dan Pruitt", "Apex" and "Apex
Supply Co."); payments to different payees are compared when they name the same invoice or
month's rent ("pay invoice NL-5582 to our new account"). Two instructions are for the same
obligation unless both name a reference and the references differ (a second invoice is a
second payment), or both are scheduled and at least `SEPARATE_DAYS` apart (next month's
rent). An account named twice is one account when the last four digits agree, or when
one name is inside the other ("checking" and "checking 0417").
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from constraints.model import Finding, constraint
from constraints.phrases import money
from constraints.records import fold, person_of
from constraints.views import PaymentRecord, read_all, reads, require

SEPARATE_DAYS = 14  # instructions to one payee this far apart are separate payments (monthly rent)
_DONE = ("done", "paid", "completed", "sent")
_CANCELLED = ("cancelled", "canceled")


def _distinct(values: list[str | None]) -> list[str]:
    seen: dict[str, str] = {}
    for text in values:
        if text is not None:
            seen.setdefault(text.casefold(), text)
    return list(seen.values())


def _accounts_differ(values: list[str | None]) -> list[str]:
    """The distinct accounts named, when at least two are really different."""
    named = _distinct(values)
    kept: list[str] = []
    for text in named:
        if not any(_same_account(text, other) for other in kept):
            kept.append(text)
    return kept if len(kept) > 1 else []


def _same_account(one: str, other: str) -> bool:
    digits, other_digits = "".join(ch for ch in one if ch.isdigit())[-4:], "".join(
        ch for ch in other if ch.isdigit())[-4:]
    if digits and other_digits:
        return digits == other_digits
    folded, other_folded = one.casefold(), other.casefold()
    return folded in other_folded or other_folded in folded


_TITLES = frozenset("aunt auntie uncle cousin grandma grandpa nana granny mr mr. mrs mrs. ms ms. dr dr. miss".split())


def _one_payee(one: str, other: str) -> bool:
    """ "Dan" and "Dan Pruitt" are one payee: one name's words start the other's (a title
    left out: "Aunt Rita" is "Rita")."""
    words, other_words = [[w for i, w in enumerate(name.casefold().split()) if i or w not in _TITLES]
                          for name in (one, other)]
    shorter, longer = sorted((words, other_words), key=len)
    return bool(shorter) and longer[: len(shorter)] == shorter


def _telling(reference: str | None) -> str | None:
    """A reference that names one obligation whoever is paid (an invoice number, "August
    rent"), case-folded; not a generic one ("autopay")."""
    if not reference:
        return None
    folded = " ".join(reference.casefold().split())
    return folded if any(ch.isdigit() for ch in folded) or folded.endswith((" rent", " mortgage")) else None


def _linked(one: PaymentRecord, other: PaymentRecord) -> bool:
    if _one_payee(one.payee or "", other.payee or ""):
        return True
    reference = _telling(one.reference)
    return reference is not None and reference == _telling(other.reference)


def _by_payee(payments: list[PaymentRecord]) -> list[tuple[str, list[PaymentRecord]]]:
    """The payments grouped by payee, or by an invoice both name ("pay invoice NL-5582 to
    our new account"), in first-named order, each group under its fullest payee name."""
    groups: list[list[PaymentRecord]] = []
    for payment in payments:
        if payment.payee is None or not payment.payee.strip():
            continue
        joined = [group for group in groups if any(_linked(payment, other) for other in group)]
        members = [payment]
        for group in joined:
            members += group
            groups.remove(group)
        groups.append(sorted(members, key=payments.index))
    ordered = sorted(groups, key=lambda group: payments.index(group[0]))
    return [(_longest(members), members) for members in ordered]


def _longest(members: list[PaymentRecord]) -> str:
    """The payee named with the most words (the first so named)."""
    names = [" ".join((p.payee or "").split()) for p in members]
    return max(names, key=lambda name: len(name.split()))


def _same_obligation(one: PaymentRecord, other: PaymentRecord) -> bool:
    if one.reference and other.reference and one.reference.casefold() != other.reference.casefold():
        return False
    if one.scheduled_date is not None and other.scheduled_date is not None:
        return abs((one.scheduled_date - other.scheduled_date).days) < SEPARATE_DAYS
    return True


def _obligations(pending: list[PaymentRecord]) -> list[list[PaymentRecord]]:
    """The pending payments split into groups for one obligation each (linked pairwise)."""
    groups: list[list[PaymentRecord]] = []
    for payment in pending:
        joined = [group for group in groups if any(_same_obligation(payment, other) for other in group)]
        merged = [payment]
        for group in joined:
            merged = group + merged
            groups.remove(group)
        groups.append(sorted(merged, key=pending.index))
    return sorted(groups, key=lambda group: pending.index(group[0]))


def _disagreements(group: list[PaymentRecord]) -> list[str]:
    """How pending payments for one obligation disagree: payees, amounts, requesters, accounts."""
    conflicts = []
    payees: list[str] = []
    for payee in _distinct([p.payee for p in group]):
        if not any(_one_payee(payee, other) for other in payees):
            payees.append(payee)
    if len(payees) > 1:
        conflicts.append("payees " + " vs ".join(payees))
    amounts = sorted({round(a, 2) for p in group if (a := p.amount_usd) is not None})
    requesters = _distinct([p.requested_by for p in group])
    if len(amounts) > 1:
        conflicts.append("amounts " + " vs ".join(map(money, amounts)))
    if len({person_of(r) for r in requesters}) > 1:
        conflicts.append("requested by " + " vs ".join(requesters))
    dates = sorted({str(d) for p in group if (d := p.scheduled_date) is not None})
    if len(dates) > 1:
        conflicts.append("dates " + " vs ".join(dates))
    twice = len(payees) > 1
    for side, values in (("from", [p.from_account for p in group]), ("to", [p.to_account for p in group])):
        differing = _accounts_differ(values)
        if differing:
            conflicts.append(f"{side} accounts " + " vs ".join(differing))
            twice = True
    if not twice and _one_voice(group) and all(c.startswith(("amounts ", "dates ")) for c in conflicts):
        return []  # one person's own instructions: "also $150 extra this month", or their own later change
    if twice:
        conflicts.append("it may be paid twice")
    elif conflicts:  # one instruction alone naming where the money goes ("send it to my new account"): say so
        named = _distinct([p.to_account for p in group])
        if len(named) == 1 and any(p.to_account is None for p in group):
            who = next(p.requested_by for p in group if p.to_account == named[0])
            conflicts.append(f"only {who or 'one'} names the to account {named[0]}")
    return conflicts


def _one_voice(group: list[PaymentRecord]) -> bool:
    """One person asked for every payment of the group and none names an invoice or an account
    paid into: amounts or dates that differ are that person's second payment or own change."""
    return len({person_of(p.requested_by) for p in group}) == 1 and not any(p.reference or p.to_account
                                                                             for p in group)


def _paid_again(paid: PaymentRecord, planned: PaymentRecord) -> bool:
    """`planned` pays again what `paid` paid, and is not that payment reported done: the same
    invoice paid by another person or from or to other accounts; or, where not both name an
    invoice, the same amount within `SEPARATE_DAYS` paid by another person ("my husband
    already sent the IRS payment"; "he e-transferred May's rent" against the rent due on the 1st)."""
    other_payer = person_of(paid.requested_by) not in ("", person_of(planned.requested_by))
    if paid.reference and planned.reference:
        if paid.reference.casefold() != planned.reference.casefold():
            return False
        return other_payer or bool(_accounts_differ([paid.from_account, planned.from_account])
                                   or _accounts_differ([paid.to_account, planned.to_account]))
    amounts = [a for a in (paid.amount_usd, planned.amount_usd) if a is not None]
    if not amounts or (len(amounts) == 2 and round(amounts[0], 2) != round(amounts[1], 2)):
        return False
    if paid.scheduled_date is not None and planned.scheduled_date is not None and \
            abs((paid.scheduled_date - planned.scheduled_date).days) >= SEPARATE_DAYS:
        return False
    return other_payer


def _describe(payment: PaymentRecord) -> str:
    return " ".join(w for w in (payment.reference, money(payment.amount_usd) if payment.amount_usd else None,
                                str(payment.scheduled_date) if payment.scheduled_date else None) if w)


@constraint(name="conflicting_payments", needs=(PaymentRecord.ATTRIBUTE,), reads=(PaymentRecord.ATTRIBUTE,),
            clock="date",
            fields=dict([reads(PaymentRecord, "payee", "status")]))
def conflicting_payments(module: object, now: datetime) -> Iterator[Finding]:
    """Pending payments for one obligation that disagree on amount, requester or the
    accounts paid from or to (it may be paid twice); a pending payment of an invoice
    someone already paid; or a payment one person asked for that another asked to cancel."""
    payments = read_all(module, PaymentRecord)
    require(payments, "payment", "payee", "status")
    for name, group in _by_payee(payments):
        pending = [p for p in group if fold(p.status) == "pending"]
        done = [p for p in group if fold(p.status) in _DONE]
        stops = [p for p in group if fold(p.status) in _CANCELLED]
        for obligation in _obligations(pending):
            conflicts = _disagreements(obligation) if len(obligation) > 1 else []
            again = [(paid, planned) for paid in done for planned in obligation if _paid_again(paid, planned)]
            for paid, planned in again:
                by = f" by {paid.requested_by}" if person_of(paid.requested_by) else ""
                when = f" on {paid.scheduled_date}" if paid.scheduled_date else ""
                what = f"invoice {paid.reference}" if paid.reference else f"{name} ({money(paid.amount_usd)})" \
                    if paid.amount_usd else name
                conflicts.append(f"{what} was already paid{by}{when}; the pending payment "
                                 f"({_describe(planned)}) would pay it twice")
            stopped = [(stop, planned) for stop in stops for planned in obligation
                       if person_of(stop.requested_by)
                       and person_of(stop.requested_by) != person_of(planned.requested_by)]
            for stop, planned in stopped:
                what = _describe(planned)
                conflicts.append(f"{stop.requested_by} asked to cancel the payment "
                                 f"{'you' if not person_of(planned.requested_by) else planned.requested_by} asked for"
                                 + (f" ({what})" if what else ""))
            if not conflicts:
                continue
            cited = obligation + [paid for paid, _ in again if paid not in obligation] + \
                [stop for stop, _ in stopped if stop not in obligation]
            cited = list(dict.fromkeys(cited))
            dates = [d for p in obligation if (d := p.scheduled_date) is not None]
            head = f"{len(obligation)} pending payments to {name} disagree" if len(obligation) > 1 else \
                f"payment instructions for {name} conflict"
            yield Finding("warning", f"{head}: {'; '.join(conflicts)}", tuple(p.source for p in cited),
                          due=min(dates, default=None), key=f"payee={name.casefold()}"
                          + (f"/{obligation[0].reference.casefold()}" if obligation[0].reference else ""))

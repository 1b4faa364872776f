"""Built-in constraints over money talked about in conversation: a subscription the user
means to cancel that charges soon, and a card promotion ending while a balance is open.

A subscription's next charge is its trial's end (`promo_end_date`) when that is still
ahead, else its `due_date`, moved forward by its cadence (monthly, quarterly, semiannual,
yearly, weekly) when already past; another person's subscription (`subject` "sister") is
theirs to cancel and raises nothing. A card's promotion is a deadline whose title names a
promotional period ("Chase Slate Edge credit card 0% intro APR ends"); its balance is the
non-recurring bill whose payee names the same card: one name's words before "card" start
the other's ("Chase Slate credit card" is the "Chase Slate Edge credit card").
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta

from constraints.model import Finding, constraint
from constraints.phrases import in_days, money
from constraints.records import fold, person_of
from constraints.views import BillRecord, DeadlineRecord, PaymentRecord, SubscriptionRecord, read_all, reads, require

CANCEL_SOON_DAYS = 10  # a charge this close to a decided cancellation is worth a reminder
PROMO_SOON_DAYS = 60  # a promotion this close to its end with money still owed
PROMO_WORDS = ("promotional", "promotion", "promo", "intro", "no interest", "no-interest", "0%", "special financing",
               "deferred interest")
_MONTHS_PER_STEP = {"monthly": 1, "quarterly": 3, "semiannual": 6, "semiannually": 6}


def _later(day: date, cadence: str | None, today: date) -> date:
    """`day` moved forward by `cadence` until it is not before `today`."""
    step = fold(cadence)
    for _ in range(1000):
        if day >= today:
            return day
        if step in _MONTHS_PER_STEP:
            year, month = divmod(day.month - 1 + _MONTHS_PER_STEP[step], 12)
            try:
                day = day.replace(year=day.year + year, month=month + 1)
            except ValueError:
                day = day.replace(year=day.year + year, month=month + 1, day=28)
        elif step in ("yearly", "annual", "annually"):
            day = day.replace(year=day.year + 1, day=min(day.day, 28) if day.month == 2 else day.day)
        elif step == "weekly":
            day += timedelta(days=7)
        else:
            return day
    return day


@constraint(name="subscription_charge_before_cancel", needs=(SubscriptionRecord.ATTRIBUTE,),
            reads=(SubscriptionRecord.ATTRIBUTE,), clock="date", per_record=SubscriptionRecord.ATTRIBUTE,
            fields=dict([reads(SubscriptionRecord, "vendor", "status")]))
def subscription_charge_before_cancel(module: object, now: datetime) -> Iterator[Finding]:
    """A subscription the user means to cancel (status "cancelling") that charges within
    10 days: its trial's end or its next renewal."""
    subscriptions = read_all(module, SubscriptionRecord)
    require(subscriptions, "subscription", "vendor", "status")
    today = now.date()
    for subscription in subscriptions:
        if fold(subscription.status) != "cancelling" or person_of(subscription.subject):
            continue
        trial_end = subscription.promo_end_date
        due = subscription.due_date
        if trial_end is not None and trial_end >= today:
            charge, what = trial_end, "the free trial ends and it starts charging"
        elif due is not None:
            charge, what = _later(due, subscription.cadence, today), "it renews"
        else:
            continue
        days = (charge - today).days
        if not 0 <= days <= CANCEL_SOON_DAYS:
            continue
        vendor = subscription.vendor or "a subscription"
        amount = f" ({money(subscription.amount_usd)})" if subscription.amount_usd is not None else ""
        message = (f"you meant to cancel {vendor}, but {what}{amount} on {charge}, {in_days(days)} "
                   f"(today is {today}): cancel before then")
        yield Finding("warning", message, (subscription.source,), due=charge)


def card_words(name: str) -> list[str]:
    """The words naming a card: those before "card" ("Chase Slate Edge credit card 0% intro
    APR ends" -> chase slate edge), or all of a payee without it."""
    folded = (fold(name) or "").split(" card")[0]
    words = folded.split()
    while words and words[-1] in ("credit", "store"):
        words.pop()
    return words


def same_card(payee: str, title: str) -> bool:
    """The bill's payee and the promotion's title name one card."""
    bill, promotion = card_words(payee), card_words(title)
    short, long = sorted((bill, promotion), key=len)
    return bool(short) and long[: len(short)] == short


PAID_WITHIN_DAYS = 40  # a payment this close to a bill's due date is that bill's


def covered_by_payment(bill: BillRecord, payments: list[PaymentRecord]) -> bool:
    """A payment to the bill's payee covers it: pending (to be paid) or done, dated (if at
    all) within 40 days of the due date, and not an instruction since cancelled (a
    cancelled payment to the payee with the same reference, e.g. "kill the autopay")."""
    payee = fold(bill.payee)
    if payee is None:
        return False
    mine = [p for p in payments if fold(p.payee) == payee]
    cancelled = {fold(p.reference) for p in mine if fold(p.status) == "cancelled"}
    for payment in mine:
        status = fold(payment.status)
        if status not in ("pending", "done") or (status == "pending" and fold(payment.reference) in cancelled):
            continue
        day = payment.scheduled_date
        if day is None or bill.due_date is None or abs((day - bill.due_date).days) <= PAID_WITHIN_DAYS:
            return True
    return False


def is_promotion(title: str | None) -> bool:
    folded = fold(title)
    return folded is not None and any(word in folded for word in PROMO_WORDS)


@constraint(name="promotion_ending_with_balance", needs=(DeadlineRecord.ATTRIBUTE, BillRecord.ATTRIBUTE),
            reads=(DeadlineRecord.ATTRIBUTE, BillRecord.ATTRIBUTE), clock="date",
            fields=dict([reads(DeadlineRecord, "title", "due_date"), reads(BillRecord, "payee", "amount_usd")]))
def promotion_ending_with_balance(module: object, now: datetime) -> Iterator[Finding]:
    """A card promotion (0% / no interest) ending within 60 days while the card's balance
    is above zero: interest (often deferred, from the purchase) applies after it."""
    deadlines = read_all(module, DeadlineRecord)
    bills = read_all(module, BillRecord)
    require(deadlines, "deadline", "title", "due_date")
    require(bills, "bill", "payee", "amount_usd")
    today = now.date()
    for deadline in deadlines:
        title, end = deadline.title, deadline.due_date
        if end is None or not is_promotion(title):
            continue
        days = (end - today).days
        if not 0 <= days <= PROMO_SOON_DAYS:
            continue
        for bill in bills:
            payee, owed = bill.payee, bill.amount_usd
            if payee is None or owed is None or owed <= 0 or bill.recurring or not same_card(payee, title or ""):
                continue
            message = (f"the promotional rate on your {bill.payee} ends on {end}, {in_days(days)} "
                       f"(today is {today}), with {money(owed)} still owed: pay it off before then "
                       f"or interest applies")
            yield Finding("warning", message, (deadline.source, bill.source), due=end)

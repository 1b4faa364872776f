"""Typed money from conversation (`factlog.typed.money` through `RuleExtractor`): sentence
in, typed facts out; the session's last subscription, card and payment carried between
sentences; the assistant's confirmations kept, its advice not; determinism; nothing lost;
and the money constraints (raising, not raising, skipped)."""

from __future__ import annotations

from dataclasses import make_dataclass
from datetime import datetime

import pytest
from constraint_records import Bill, Deadline, Payment, days_from, record_class, user_module
from typed_sessions import TS, Extracted, extracted, session

from constraints import Constraint, run_constraints
from constraints.model import Alert
from constraints.money_rules import promotion_ending_with_balance, subscription_charge_before_cancel
from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.sentences import split_sentences
from factlog.typed import Context, read_sentence
from factlog.typed.money import amounts

MONEY = ("payment", "bill", "subscription", "deadline", "account")


def money(*turns: tuple[str, str], ts: datetime = TS) -> Extracted:
    return extracted(MONEY, *turns, ts=ts)


# --- sentence in, typed facts out (each of these gave no typed fact before) -------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Please record that my Amazon Prime membership renews annually on February 3 at $139.00.",
         [("subscription", "amazon prime", {"vendor": "Amazon Prime", "amount_usd": 139.0, "cadence": "yearly",
                                            "due_date": "2025-02-03", "status": "active"})]),
        ("also spotify 11.99 on the 3rd",
         [("subscription", "spotify", {"vendor": "Spotify", "amount_usd": 11.99, "due_date": "2025-05-03"})]),
        ("I signed up for the Hulu free trial tonight, thirty days, and then it's $18.99 a month.",
         [("subscription", "hulu", {"vendor": "Hulu", "amount_usd": 18.99, "cadence": "monthly",
                                    "promo_end_date": "2025-06-01", "status": "trial"})]),
        ("cancelled spotify sat. got the email.",
         [("subscription", "spotify", {"vendor": "Spotify", "status": "cancelled"})]),
        ("Also record that the home insurance premium of $1,420 is due on March 1.",
         [("bill", "bill/home insurance", {"payee": "home insurance", "amount_usd": 1420.0, "due_date": "2025-03-01"})]),
        ("Please also note that the quarterly board pack is due on the 18th.",
         [("deadline", "deadline/quarterly board pack", {"title": "quarterly board pack", "due_date": "2025-05-18"})]),
        ("bought the couch. $1850 on the wayfair card. 6 months no interest",
         [("bill", "balance/wayfair", {"payee": "Wayfair store credit card", "amount_usd": 1850.0,
                                       "recurring": False}),
          ("deadline", "promotion/wayfair",
           {"title": "Wayfair store credit card 6-month no-interest promotion ends", "due_date": "2025-11-02"})]),
    ],
)
def test_sentence_gives_money_facts(sentence: str, expected: object) -> None:
    assert money(("user", sentence)) == expected


def test_amounts_money_and_not_money() -> None:
    context = Context(TS)
    assert amounts("It was $5,000 and then $1.2k more", context) == [5000.0, 1200.0]
    assert amounts("the rent is 1,650 dollar", context) == [1650.0]
    assert amounts("still like 900 left on the wayfair card", context) == [900.0]
    assert amounts("a 4K screen", context) == [] and amounts("the 30K service is due", context) == []


def test_session_carries_the_subject_of_money() -> None:
    facts = money(("user", "done with netflix, nothing to watch. gonna cancel before it charges again"))
    assert facts == [("subscription", "netflix", {"vendor": "Netflix", "status": "cancelling"})]


def test_a_question_or_advice_states_no_cancellation() -> None:
    asked = money(("user", "cancel spotify for me? renews the 8th, $11.99"),
                  ("assistant", "I can't cancel it for you, but: Account page > Manage plan > Cancel Premium."))
    assert [fields.get("status") for _, _, fields in asked] == ["active"]
    confirmed = money(("user", "Hulu is $18.99 a month."),
                      ("assistant", "Understood - you plan to cancel Hulu before the next charge on May 15, 2025."))
    assert confirmed[-1] == ("subscription", "hulu", {"vendor": "Hulu", "due_date": "2025-05-15",
                                                      "status": "cancelling"})


def test_extraction_is_deterministic_and_loses_no_sentence() -> None:
    turns = (("user", "Send the painter, Luis Ortega, $1,200 from checking on Friday. Hmm, actually $1,250."),
             ("assistant", "Noted: pay Luis Ortega $1,250 from checking on Friday, May 9, 2025."),
             ("user", "Citi balance check: about $2,300 left. Wait, $2,380 with this month's statement."))
    first = RuleExtractor().extract(session(*turns), user_only=False)
    again = RuleExtractor().extract(session(*turns), user_only=False)
    assert first == again
    cited = {f.text for f in first}
    for _, text in turns:
        for sentence in split_sentences(text):
            assert sentence in cited, sentence
    payments = [f.fields for f in first if f.kind == "payment"]
    assert payments[-1]["amount_usd"] == 1250.0 and payments[-1]["from_account"] == "checking"
    balances = [f.fields["amount_usd"] for f in first if f.kind == "bill"]
    assert balances[-1] == 2380.0


def test_reader_keeps_the_speaker() -> None:
    context = Context(TS, speaker="assistant")
    [fact] = read_sentence("Noted: Spotify, $11.99 monthly, billed on the 3rd.", context)
    assert fact.fields["speaker"] == "assistant" and fact.fields["due_date"] == "2025-05-03"


# --- constraints ---------------------------------------------------------------------------

NOW = datetime(2025, 10, 29, 22, 0)
day = days_from(NOW.date())
Subscription = record_class("subscription")


def found(rule: Constraint, module: object) -> list[Alert]:
    result = run_constraints(module, NOW, [rule])
    assert not result.errors and not result.skipped, (result.errors, result.skipped)
    return list(result.alerts)


def skipped(rule: Constraint, module: object) -> bool:
    result = run_constraints(module, NOW, [rule])
    return [s.constraint for s in result.skipped] == [rule.name] and not result.alerts


def test_subscription_charging_before_a_decided_cancellation() -> None:
    hulu = Subscription(vendor="Hulu", amount_usd=18.99, cadence="monthly", promo_end_date=day(4),
                        status="cancelling", fact_ids=[1])
    [alert] = found(subscription_charge_before_cancel, user_module(subscriptions=[hulu]))
    assert alert.message == ("you meant to cancel Hulu, but the free trial ends and it starts charging ($18.99) "
                             "on 2025-11-02, in 4 days (today is 2025-10-29): cancel before then")
    # a monthly renewal already past moves to next month
    netflix = Subscription(vendor="Netflix", cadence="monthly", due_date=day(-26), status="cancelling", fact_ids=[2])
    [alert] = found(subscription_charge_before_cancel, user_module(subscriptions=[netflix]))
    assert "it renews on 2025-11-03, in 5 days" in alert.message
    kept = Subscription(vendor="Hulu", promo_end_date=day(4), status="active", fact_ids=[3])
    later = Subscription(vendor="Hulu", promo_end_date=day(13), status="cancelling", fact_ids=[4])
    done = Subscription(vendor="Hulu", promo_end_date=day(4), status="cancelled", fact_ids=[5])
    assert found(subscription_charge_before_cancel, user_module(subscriptions=[kept, later, done])) == []
    bare = record_class("subscription", without=("status",))
    assert skipped(subscription_charge_before_cancel, user_module(subscriptions=[bare(vendor="Hulu")]))
    assert skipped(subscription_charge_before_cancel, user_module(bills=[]))


def test_promotion_ending_with_an_open_balance() -> None:
    promo = Deadline(title="Wayfair card promotional period ends", due_date=day(27), fact_ids=[1])
    owed = Bill(payee="Wayfair card", amount_usd=900.0, recurring=False, fact_ids=[2])
    [alert] = found(promotion_ending_with_balance, user_module(deadlines=[promo], bills=[owed]))
    assert alert.message == ("the promotional rate on your Wayfair card ends on 2025-11-25, in 27 days "
                             "(today is 2025-10-29), with $900.00 still owed: pay it off before then or "
                             "interest applies")
    paid = Bill(payee="Wayfair card", amount_usd=0.0, recurring=False, fact_ids=[3])
    far = Deadline(title="Wayfair card promotional period ends", due_date=day(120), fact_ids=[4])
    other = Bill(payee="Chase card", amount_usd=500.0, recurring=False, fact_ids=[5])
    assert found(promotion_ending_with_balance, user_module(deadlines=[promo], bills=[paid, other])) == []
    assert found(promotion_ending_with_balance, user_module(deadlines=[far], bills=[owed])) == []
    assert skipped(promotion_ending_with_balance, user_module(deadlines=[promo]))


def test_notes_keep_durations_and_other_currencies() -> None:
    facts = RuleExtractor().extract(session(("user", "Recovery takes 8–12 weeks and the brace was €40.")),
                                    user_only=False)
    [note] = [f for f in facts if f.kind is None]
    assert note.fields["durations"] == [{"min": 8, "max": 12, "unit": "weeks"}]
    assert note.fields["amounts_other"] == [{"value": 40.0, "currency": "EUR"}]
    assert "amounts_usd" not in note.fields and "counts" not in note.fields


def test_a_card_balance_and_its_promotion() -> None:
    facts = money(("user", "I moved my $5,300 card balance to a Citi Diamond Preferred, 0% for 21 months."),
                  ("user", "Please also note that a transfer fee of 3%, that is $144, was added to the balance."),
                  ("assistant", "Noted: a $144 balance-transfer fee, for a starting balance of $5,444."),
                  ts=datetime(2024, 7, 9, 13, 0))
    assert facts == [
        ("deadline", "promotion/citi",
         {"title": "Citi Diamond Preferred credit card 0% intro APR ends", "due_date": "2026-04-09"}),
        ("bill", "balance/citi", {"payee": "Citi Diamond Preferred credit card", "amount_usd": 5300.0,
                                  "recurring": False}),
        ("bill", "balance/citi", {"payee": "Citi Diamond Preferred credit card", "amount_usd": 5444.0,
                                  "recurring": False}),
    ]


# --- phrasing families: bills, subscriptions, promotions (and what is not one) ---------------


def kinds_fields(*turns: tuple[str, str], ts: datetime = TS) -> list[tuple[str | None, dict[str, JsonValue]]]:
    return [(kind, fields) for kind, _, fields in money(*turns, ts=ts) if kind in ("bill", "subscription", "deadline")]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("my ConEd bill of $182.40 is due the 15th", {"amount_usd": 182.4, "due_date": "2025-05-15"}),
        ("Con Edison bill came: $182.40, due on May 17. Late fee $10 after.",
         {"payee": "Con Edison", "amount_usd": 182.4, "due_date": "2025-05-17"}),
        ("geico renewal came in the mail. 1,250 bucks for six months, due in two weeks",
         {"payee": "GEICO", "amount_usd": 1250.0, "due_date": "2025-05-16"}),
        ("the electric bill is $143, due May 20", {"payee": "electric", "amount_usd": 143.0, "due_date": "2025-05-20"}),
        ("phone bill is $85/mo with t-mobile, comes out on the 28th automatically",
         {"payee": "T-Mobile", "amount_usd": 85.0, "due_date": "2025-05-28", "recurring": True, "autopay": True}),
        ("Spectrum bill is USD 64.20, due the 19th", {"payee": "Spectrum", "amount_usd": 64.2, "due_date": "2025-05-19"}),
    ],
)
def test_bills_in_many_phrasings(sentence: str, expected: dict[str, JsonValue]) -> None:
    [(kind, fields)] = kinds_fields(("user", sentence))
    assert kind == "bill" and {name: fields.get(name) for name in expected} == expected


def test_a_bill_put_on_autopay_later_in_the_session() -> None:
    facts = kinds_fields(("user", "Spectrum bill is $64.20, due the 19th."),
                         ("user", "It's on autopay from my checking, so nothing for me to do."))
    assert facts[-1] == ("bill", {"payee": "Spectrum", "autopay": True, "recurring": True})


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Adobe is $239.88/yr, it renew every year on Aug 3.",
         {"vendor": "Adobe", "amount_usd": 239.88, "cadence": "yearly", "due_date": "2025-08-03", "status": "active"}),
        ("Also Dropbox, 11.99 dollars each month, they take the money on the 21.",
         {"vendor": "Dropbox", "amount_usd": 11.99, "cadence": "monthly", "due_date": "2025-05-21"}),
        ("I pay USD 40 for Audible, billed quarterly", {"amount_usd": 40.0, "cadence": "quarterly"}),
        ("I cancelled Hulu yesterday", {"vendor": "Hulu", "status": "cancelled"}),
        ("I started a Peacock free trial, need to cancel before the trial ends on the 9th",
         {"vendor": "Peacock", "promo_end_date": "2025-05-09", "status": "cancelling"}),
        ("My sister has HBO Max at $16.99/mo and she says she'll cancel it before it renews on the 12th.",
         {"vendor": "HBO Max", "subject": "sister", "status": "cancelling", "due_date": "2025-05-12"}),
    ],
)
def test_subscriptions_in_many_phrasings(sentence: str, expected: dict[str, JsonValue]) -> None:
    facts = RuleExtractor().extract(session(("user", sentence)), user_only=False)
    [fields] = [f.fields for f in facts if f.kind == "subscription"]
    assert {name: fields.get(name) for name in expected} == expected


def test_a_free_span_after_naming_the_trial() -> None:
    facts = kinds_fields(("user", "started peacock free trial today. 3 weeks free then 7.99 a month"),
                         ("user", "gonna cancel b4 it ends"), ts=datetime(2025, 8, 20, 22, 0))
    assert facts[1][1] == {"vendor": "Peacock", "amount_usd": 7.99, "cadence": "monthly",
                           "promo_end_date": "2025-09-10", "status": "trial"}
    assert facts[-1][1]["status"] == "cancelling"


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm thinking about signing up for Disney+ for the kids.",
        "should I get YouTube Premium? it's $13.99 a month",
        "ugh still haven't cancelled peacock",
        "I got a 4K TV for the living room",
        "the car is due for its 30K service",
        "What's the average electric bill in Ohio?",
        "If the water bill is over $100 I'll call them.",
        "paid the electric bill this morning, $143",
        "Duolingo is free and good for daily practice; Babbel costs about $14 a month.",
    ],
)
def test_not_a_bill_or_subscription(sentence: str) -> None:
    assert kinds_fields(("user", sentence)) == []


def test_assistant_advice_names_no_subscription() -> None:
    assert kinds_fields(("assistant", "Duolingo is free; Babbel costs about $14 a month but is more structured.")) == []


@pytest.mark.parametrize(
    ("turns", "title", "due", "balance"),
    [
        ((("user", "putting it on CareCredit: $2,400, six months special financing, no interest if it's paid in "
                   "full by August 14."),),
         "CareCredit credit card 6-month no-interest promotion ends", "2025-08-14", 2400.0),
        ((("user", "put the new fridge on the home depot card, 1.2k"), ("user", "yes 0% APR for 12 months")),
         "Home Depot store credit card 0% intro APR ends", "2026-05-02", 1200.0),
        ((("user", "I have transferred a balance of $4,800 to a Chase Slate Edge card ending 7713, 0% APR for 15 "
                   "months, so the promotional period ends on August 1, 2026."),),
         "Chase Slate Edge credit card 0% intro APR ends", "2026-08-01", 4800.0),
    ],
)
def test_promotions_and_their_balances(turns: tuple[tuple[str, str], ...], title: str, due: str,
                                       balance: float) -> None:
    facts = kinds_fields(*turns)
    deadlines = [fields for kind, fields in facts if kind == "deadline"]
    bills = [fields for kind, fields in facts if kind == "bill"]
    assert (deadlines[-1]["title"], deadlines[-1]["due_date"]) == (title, due)
    assert bills[-1]["amount_usd"] == balance and bills[-1]["recurring"] is False


def test_a_zero_balance_and_a_later_restatement_keep_the_promotion() -> None:
    facts = kinds_fields(("user", "home depot card is at zero now, cleared it with my bonus"),
                         ("assistant", "Confirmed: Home Depot card balance $0 as of May 2, 2025 - no interest will be "
                                       "charged when the promotion ends."))
    assert [kind for kind, _ in facts] == ["bill", "bill"]
    assert all(fields["amount_usd"] == 0.0 for _, fields in facts)


def test_autopay_bills_are_never_due_and_others_subscriptions_raise_nothing() -> None:
    from constraints.builtin import bills_due
    soon = Bill(payee="Spectrum", amount_usd=64.2, due_date=day(-3), autopay=True, fact_ids=[1])
    manual = Bill(payee="Con Edison", amount_usd=182.4, due_date=day(3), fact_ids=[2])
    [alert] = found(bills_due, user_module(bills=[soon, manual]))
    assert "Con Edison" in alert.message
    with_subject = make_dataclass("Subscription", [("subject", str, "user")], bases=(Subscription,), frozen=True,
                                  kw_only=True)
    sisters = with_subject(vendor="HBO Max", due_date=day(3), status="cancelling", subject="sister", fact_ids=[3])
    assert found(subscription_charge_before_cancel, user_module(subscriptions=[sisters])) == []
    quarterly = Subscription(vendor="Audible", cadence="quarterly", due_date=day(-88), status="cancelling",
                             fact_ids=[4])
    [alert] = found(subscription_charge_before_cancel, user_module(subscriptions=[quarterly]))
    assert "in 4 days" in alert.message


def test_a_promotion_matches_the_card_by_its_name() -> None:
    promo = Deadline(title="Chase Slate Edge credit card 0% intro APR ends", due_date=day(30), fact_ids=[1])
    owed = Bill(payee="Chase Slate credit card", amount_usd=3150.0, recurring=False, fact_ids=[2])
    other = Bill(payee="Capital One credit card", amount_usd=500.0, recurring=False, fact_ids=[3])
    [alert] = found(promotion_ending_with_balance, user_module(deadlines=[promo], bills=[owed, other]))
    assert "$3,150.00 still owed" in alert.message


def test_a_bill_covered_by_a_payment_is_not_due() -> None:
    from constraints.builtin import bills_due
    bill = Bill(payee="Verizon", amount_usd=85.0, due_date=day(3), fact_ids=[1])
    wife = Payment(payee="Verizon", from_account="wife's card", scheduled_date=day(1), status="pending", fact_ids=[2])
    autopay = Payment(payee="Verizon", reference="autopay", status="pending", fact_ids=[3])
    killed = Payment(payee="Verizon", reference="autopay", status="cancelled", fact_ids=[4])
    paid = Payment(payee="Verizon", status="done", scheduled_date=day(-2), fact_ids=[5])
    long_ago = Payment(payee="Verizon", status="done", scheduled_date=day(-90), fact_ids=[6])
    assert found(bills_due, user_module(bills=[bill], payments=[wife])) == []
    assert found(bills_due, user_module(bills=[bill], payments=[autopay])) == []
    assert found(bills_due, user_module(bills=[bill], payments=[paid])) == []
    assert len(found(bills_due, user_module(bills=[bill], payments=[autopay, killed]))) == 1
    assert len(found(bills_due, user_module(bills=[bill], payments=[long_ago]))) == 1
    assert len(found(bills_due, user_module(bills=[bill]))) == 1


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("expense report due Friday", {"title": "expense report", "due_date": "2025-05-09"}),
        ("Reminder: library books due on the 12th", {"title": "library books", "due_date": "2025-05-12"}),
        ("my taxes are due June 16", {"title": "taxes", "due_date": "2025-06-16"}),
        ("Emma's science project is due next Tuesday",
         {"title": "Emma's science project", "due_date": "2025-05-06", "subject": "Emma"}),
    ],
)
def test_deadlines_in_many_phrasings(sentence: str, expected: dict[str, JsonValue]) -> None:
    facts = RuleExtractor().extract(session(("user", sentence)), user_only=False)
    [fields] = [f.fields for f in facts if f.kind == "deadline"]
    assert {name: fields.get(name) for name in expected} == expected


@pytest.mark.parametrize("sentence", ["The baby is due in March", "when is the report due?",
                                      "the flight was delayed due to weather",
                                      "If the essay is due Monday I'll start tonight."])
def test_not_a_deadline(sentence: str) -> None:
    assert kinds_fields(("user", sentence)) == []


def test_the_assistants_restatement_retitles_the_same_deadline() -> None:
    facts = money(("user", "Please also note that my expense report for February is due on the 10th."),
                  ("assistant", "Noted: February expense report due March 10, 2025."), ts=datetime(2025, 3, 3, 10, 0))
    assert [(key, fields["title"]) for _, key, fields in facts] == [
        ("deadline/expense report for february", "expense report for February"),
        ("deadline/expense report for february", "February expense report")]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("turned off auto-renew on Xbox Game Pass", {"vendor": "Xbox Game Pass", "status": "cancelled"}),
        ("Remind me to cancel Paramount+ before the 20th",
         {"vendor": "Paramount+", "status": "cancelling", "due_date": "2025-05-20"}),
        ("My Medium membership is $5 a month", {"vendor": "Medium", "amount_usd": 5.0, "cadence": "monthly"}),
        ("Hulu + Live TV charges me $82.99 every month on the 5th",
         {"vendor": "Hulu", "amount_usd": 82.99, "cadence": "monthly", "due_date": "2025-05-05"}),
    ],
)
def test_more_subscription_phrasings(sentence: str, expected: dict[str, JsonValue]) -> None:
    facts = RuleExtractor().extract(session(("user", sentence)), user_only=False)
    [fields] = [f.fields for f in facts if f.kind == "subscription"]
    assert {name: fields.get(name) for name in expected} == expected


def test_a_trial_and_its_price_in_the_next_clause() -> None:
    facts = kinds_fields(("user", "Just signed up for a 7-day free trial of Paramount+; it'll charge $11.99 after"))
    assert [fields.get("promo_end_date") for _, fields in facts] == ["2025-05-09", None]
    assert facts[-1][1]["amount_usd"] == 11.99


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Electric bill: $212.37, due 3/15", {"payee": "electric", "amount_usd": 212.37, "due_date": "2025-03-15"}),
        ("The PG&E bill is $143 and it's due Thursday", {"payee": "PG&E", "due_date": "2025-05-08"}),
        ("Verizon autopays $85 on the 20th", {"payee": "Verizon", "autopay": True, "due_date": "2025-05-20"}),
        ("Car insurance premium of $612 due on the 1st", {"amount_usd": 612.0, "due_date": "2025-06-01"}),
    ],
)
def test_more_bill_phrasings(sentence: str, expected: dict[str, JsonValue]) -> None:
    test_bills_in_many_phrasings(sentence, expected)


def test_financed_and_paid_down_balances() -> None:
    facts = kinds_fields(("user", "I financed the mattress through Synchrony, 18 months no interest, $2,100."),
                         ("user", "Paid it down to $450 on the Synchrony card"))
    assert facts[0][1]["title"] == "Synchrony credit card 18-month no-interest promotion ends"
    assert [fields["amount_usd"] for kind, fields in facts if kind == "bill"] == [2100.0, 450.0]


@pytest.mark.parametrize(
    ("sentence", "payee", "balance"),
    [
        ("My Chase Freedom card has a $0 balance now.", "Chase Freedom credit card", 0.0),
        ("I paid the Best Buy card in full yesterday.", "Best Buy store credit card", 0.0),
        ("I paid off the Wayfair card!", "Wayfair store credit card", 0.0),
        ("Bought the sofa with Synchrony financing - no interest if paid in full within 12 months, $3,100",
         "Synchrony credit card", 3100.0),
        ("Interest-free for 24 months on the Apple Card, $1,999 for the MacBook.", "Apple Card", 1999.0),
        ("deferred interest promo on the Lowe's card expires 9/1, still $700 owed", "Lowe's store credit card", 700.0),
    ],
)
def test_card_balances_zero_or_owed(sentence: str, payee: str, balance: float) -> None:
    bills = [fields for kind, fields in kinds_fields(("user", sentence)) if kind == "bill"]
    assert [(fields["payee"], fields["amount_usd"]) for fields in bills] == [(payee, balance)]


def test_a_promotion_ending_in_a_month_ends_on_its_first_day() -> None:
    facts = kinds_fields(("user", "The 0% intro APR on my Discover card ends in March 2026, and I still have $2,300."))
    assert facts[0] == ("deadline", {"title": "Discover credit card 0% intro APR ends", "due_date": "2026-03-01"})


@pytest.mark.parametrize("sentence", ["Is 0% APR worth it?", "I'm thinking of moving my balance to a 0% card."])
def test_no_promotion_asked_or_imagined(sentence: str) -> None:
    assert kinds_fields(("user", sentence)) == []


def test_a_renewal_that_happened_dates_the_next_one() -> None:
    facts = kinds_fields(("user", "I renewed my Costco membership today, $65 for the year."),
                         ("assistant", "Noted: Costco renewed May 2, 2025, at $65 a year; the next renewal is "
                                       "May 2, 2026."))
    assert {fields["due_date"] for _, fields in facts} == {"2026-05-02"}  # the assistant's clauses agree
    assert kinds_fields(("user", "Spotify charged me today.")) == []  # no cadence: no next charge, nothing typed


def test_other_peoples_bills_keep_their_subject_and_past_bills_are_not_due() -> None:
    assert kinds_fields(("user", "The electric bill last month was $180.")) == []
    assert kinds_fields(("user", "My neighbor's electric bill was $400 last month!")) == []
    facts = money(("user", "Emma's phone bill is $40, due the 9th"),
                  ("user", "My daughter's phone bill with AT&T is $65, due the 22nd"))
    subjects = [f.fields["subject"] for f in RuleExtractor().extract(
        session(("user", "Emma's phone bill is $40, due the 9th")), user_only=False) if f.kind == "bill"]
    assert subjects == ["Emma"]
    assert [key for _, key, _ in facts] == ["bill/emma/phone", "bill/daughter/at&t"]


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        ((("user", "The GEICO auto policy renews on April 12; the six-month premium is $1,214.50."),),
         {"payee": "GEICO", "amount_usd": 1214.5, "due_date": "2025-04-12"}),
        ((("user", "My State Farm homeowners premium, $1,830 a year, is due by July 1."),),
         {"payee": "State Farm", "amount_usd": 1830.0, "due_date": "2025-07-01", "recurring": True}),
        ((("user", "renters insurance is 15 bucks a month through Lemonade, it auto-renews on the 3rd"),),
         {"payee": "Lemonade", "amount_usd": 15.0, "due_date": "2025-05-03", "recurring": True}),
    ],
)
def test_insurance_premiums_and_renewals(turns: tuple[tuple[str, str], ...], expected: dict[str, JsonValue]) -> None:
    merged: dict[str, JsonValue] = {}
    for kind, fields in kinds_fields(*turns):
        if kind == "bill":
            merged |= fields
    assert {name: merged.get(name) for name in expected} == expected


def test_a_store_name_typed_without_its_apostrophe() -> None:
    # surface: "lowes", "macys" and a curly "Kohl’s" are the stores; an uncued amount after "owe" is money
    facts = money(("user", "so I still owe like four hundred and fifty on the lowes card"), ts=datetime(2026, 9, 28, 9))
    assert facts == [("bill", "balance/lowe's", {"payee": "Lowe's store credit card", "amount_usd": 450.0,
                                                 "recurring": False})]
    [(_, _, fields)] = money(("user", "I owe $300 on my Kohl’s card."), ts=datetime(2026, 9, 28, 9))
    assert fields["payee"] == "Kohl's store credit card"

"""Subscriptions, bills and card promotions said many ways (`factlog.typed.money`,
`factlog.typed.bills`, `factlog.typed.subscription_words`): each phrasing family with
several wordings, the sentences that must give nothing (hypotheticals, questions, prices,
things had or never had, other people's things keep their subject), a cancellation said
in a later session without naming the service, and the cancelled trial that must raise
no reminder."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from constraint_records import record_class, user_module
from typed_sessions import TS, Extracted, extracted

from constraints import run_constraints
from constraints.money_rules import subscription_charge_before_cancel
from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.transcripts import Message, Session
from factlog.typed.subscription_words import spoken_amounts

MONEY = ("bill", "subscription", "deadline")


def money(*turns: tuple[str, str], ts: datetime = TS) -> Extracted:
    return extracted(MONEY, *turns, ts=ts)


def fields_of(sentence: str, kind: str = "subscription") -> list[dict[str, JsonValue]]:
    return [fields for k, _, fields in money(("user", sentence)) if k == kind]


# --- amounts said in words ---------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [
    ("twelve hundred a year", 1200.0), ("a hundred and five dollars", 105.0), ("sixty five dollars", 65.0),
    ("thirteen ninety nine a month", 13.99), ("seven ninety-nine a month", 7.99), ("forty bucks every month", 40.0),
    ("two thousand five hundred dollars", 2500.0), ("twenty-five dollars", 25.0), ("twelve hundred left", 1200.0),
])
def test_spoken_amounts(text: str, value: float) -> None:
    assert spoken_amounts(text) == [value]


@pytest.mark.parametrize("text", ["one fifty a month", "a dollar", "twelve people", "the 3 a month", "ten minutes",
                                  "two left on the list"])
def test_spoken_numbers_that_are_no_amount(text: str) -> None:
    assert spoken_amounts(text) == []


# --- subscriptions said many ways ----------------------------------------------------------


@pytest.mark.parametrize(("sentence", "vendor", "amount", "cadence"), [
    ("I pay 15.99 a month for Netflix", "Netflix", 15.99, "monthly"),
    ("the gym takes 40 bucks every month", "gym", 40.0, "monthly"),
    ("we share a Disney plus plan, I pay 13.99 a month", "Disney+", 13.99, "monthly"),
    ("Apple Music is twelve hundred a year", "Apple Music", 1200.0, "yearly"),
    ("Hulu is $17.99 every 3 months", "Hulu", 17.99, "quarterly"),
    ("I pay for Duolingo quarterly, $30", "Duolingo", 30.0, "quarterly"),
    ("I get HelloFresh weekly, $60", "HelloFresh", 60.0, "weekly"),
    ("Max went up to 16.99 a month", "Max", 16.99, "monthly"),
    ("annual Costco membership, $65, renews in March", "Costco", 65.0, "yearly"),
    ("my subscription to The Athletic renews on June 3 for $79.99 a year", "The Athletic", 79.99, "yearly"),
])
def test_a_running_subscription(sentence: str, vendor: str, amount: float, cadence: str) -> None:
    [fields] = fields_of(sentence)
    assert (fields["vendor"], fields["amount_usd"], fields["cadence"], fields["status"]) == \
        (vendor, amount, cadence, "active")


@pytest.mark.parametrize(("sentence", "vendor"), [
    ("we share a Disney+ plan", "Disney+"), ("Spotify's $11 now", "Spotify"),
    ("the Netflix price went up to $17.99, I'm keeping it", "Netflix"),
])
def test_a_subscription_said_without_the_word(sentence: str, vendor: str) -> None:
    [fields] = fields_of(sentence)
    assert fields["vendor"] == vendor and fields["status"] == "active"


@pytest.mark.parametrize(("sentence", "subject"), [
    ("my husband pays for his own ESPN+", "husband"),
    ("my daughter has Netflix on her own card", "daughter"),
    ("My son's Xbox Game Pass is $16.99 a month but that's on his own card.", "son"),
])
def test_another_persons_subscription_keeps_its_subject(sentence: str, subject: str) -> None:
    facts = RuleExtractor().extract(_session(("user", sentence)), user_only=False)
    assert [f.fields["subject"] for f in facts if f.kind == "subscription"] == [subject]


def test_the_assistants_your_sons_is_the_sons() -> None:
    facts = RuleExtractor().extract(_session(
        ("assistant", "Noted: your son's Xbox Game Pass, $16.99 a month, on his card; your Hulu, $17.99 a month.")),
        user_only=False)
    assert [f.fields["subject"] for f in facts if f.kind == "subscription"] == ["son", "user"]


def test_the_assistants_list_confirmed_clause_by_clause() -> None:
    facts = money(("user", "what subscriptions am I paying for right now"),
                  ("assistant", "From what you've told me: Netflix, $15.49 a month, next charge May 21; Spotify, "
                                "$10.99 a month, billed on the 9th; and iCloud+, $2.99 a month."),
                  ("user", "yep"))
    assert [(f["vendor"], f["amount_usd"], f.get("due_date")) for _, _, f in facts] == [
        ("Netflix", 15.49, "2025-05-21"), ("Spotify", 10.99, "2025-05-09"), ("iCloud+", 2.99, None)]


@pytest.mark.parametrize(("sentence", "end"), [
    ("signed up for Max, free for 30 days then $9.99", "2025-06-01"),
    ("started a free trial of YouTube Premium, it ends on the 20th", "2025-05-20"),
    ("I have a 7-day free trial of Audible", "2025-05-09"),
])
def test_a_free_trial(sentence: str, end: str) -> None:
    [fields] = fields_of(sentence)
    assert fields["status"] == "trial" and fields["promo_end_date"] == end


def test_the_trials_sequel_is_no_new_active_subscription() -> None:
    facts = money(("user", "started the paramount+ free trial. a month free then 7.99/mo"),
                  ("assistant", "Noted: Paramount+ free trial from May 2, 2025; it becomes $7.99 a month on June 2."))
    assert {f.get("status") for _, _, f in facts} == {"trial", None}
    assert {f["promo_end_date"] for _, _, f in facts if "promo_end_date" in f} == {"2025-06-02"}


# --- cancellations: done, meant, asked, wondered ---------------------------------------------


@pytest.mark.parametrize("sentence", [
    "I cancelled the Peacock trial before it charged me", "killed my Hulu subscription yesterday",
    "got rid of Netflix last week", "I dropped Spotify", "turned off auto-renew on Audible",
    "Netflix is cancelled", "I don't have Netflix anymore",
])
def test_a_cancellation_done(sentence: str) -> None:
    assert [f["status"] for f in fields_of(sentence)] == ["cancelled"]


@pytest.mark.parametrize("sentence", [
    "I'm going to cancel Netflix", "gonna cancel hulu before it renews", "I'll cancel Costco before it renews",
])
def test_a_cancellation_meant(sentence: str) -> None:
    assert [f["status"] for f in fields_of(sentence)] == ["cancelling"]


@pytest.mark.parametrize("sentence", [
    "should I cancel Netflix?", "thinking about cancelling Netflix", "can I cancel Hulu anytime?",
    "I used to pay for Spotify", "I don't have Hulu, should I get it?", "Netflix costs $15.49 a month",
    "how much is Hulu a month?", "thinking about signing up for Disney+",
])
def test_no_subscription_of_the_users(sentence: str) -> None:
    assert fields_of(sentence) == []


def test_a_cancellation_in_the_same_session_without_the_name() -> None:
    facts = money(("user", "started peacock free trial today"), ("user", "I already cancelled it"))
    assert [f["status"] for _, _, f in facts] == ["trial", "cancelled"]


def _session(*turns: tuple[str, str], sid: str = "s1", ts: datetime = TS) -> Session:
    return Session(sid, ts, [Message(role, text, i) for i, (role, text) in enumerate(turns)], {})


def test_a_trial_cancelled_in_a_later_session_is_that_trial() -> None:
    extractor = RuleExtractor()
    extractor.extract(_session(("user", "Started the Babbel free trial, 30 days free then $9.99 a month."),
                               ("user", "I'll cancel it before it ends.")), user_only=False)
    later = extractor.extract(_session(("user", "done, I cancelled it yesterday"), sid="s2",
                                       ts=datetime(2025, 5, 20, 9, 0)), user_only=False)
    assert [(f.key, f.fields["status"]) for f in later if f.kind == "subscription"] == [("babbel", "cancelled")]


def test_a_later_it_with_no_trial_before_is_nothing() -> None:
    extractor = RuleExtractor()
    extractor.extract(_session(("user", "Netflix is $15.49 a month.")), user_only=False)
    later = extractor.extract(_session(("user", "I cancelled it"), sid="s2", ts=datetime(2025, 5, 20)),
                              user_only=False)
    assert [f for f in later if f.kind == "subscription"] == []  # an active one is too many to guess among


# --- bills ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "payee", "amount", "due"), [
    ("electric is due the 15th, about $120", "electric", 120.0, "2025-05-15"),
    ("water bill came, $64.30 due Friday", "water", 64.3, "2025-05-09"),
    ("the gas bill is a hundred and five dollars, due on the 20th", "gas", 105.0, "2025-05-20"),
    ("Got the Xfinity bill, $112, due May 20, autopay's off now", "Xfinity", 112.0, "2025-05-20"),
])
def test_a_bill_due(sentence: str, payee: str, amount: float, due: str) -> None:
    [fields] = fields_of(sentence, "bill")
    assert (fields["payee"], fields["amount_usd"], fields["due_date"]) == (payee, amount, due)
    assert fields.get("autopay") in (None, False)


@pytest.mark.parametrize(("turns", "autopay"), [
    ((("user", "State Farm premium is $642.18, due on November 3."), ("user", "I'm not on automatic payments btw.")),
     False),
    ((("user", "the water bill isn't set up for autopay, $40 due the 20th"),), False),
    ((("user", "Water is every three months, about $90, that's autopay too."),), True),
    ((("user", "Comcast is $89.99 a month, autopay"),), True),
])
def test_autopay_on_and_off(turns: tuple[tuple[str, str], ...], autopay: bool) -> None:
    facts = [f for k, _, f in money(*turns) if k == "bill"]
    assert facts[-1]["autopay"] is autopay


@pytest.mark.parametrize("sentence", [
    "if the electric bill is over $200 I'll scream", "the electric bill last month was $180",
    "the water is cold", "gas is expensive these days", "Still haven't paid state farm.",
])
def test_no_bill(sentence: str) -> None:
    assert money(("user", sentence)) == []


def test_unpaid_is_no_payment() -> None:
    facts = RuleExtractor().extract(_session(("user", "Still haven't paid state farm."),
                                             ("assistant", "Noted: State Farm, $642.18, due November 3, 2025 - "
                                                           "you'll need to pay it.")), user_only=False)
    assert [f.kind for f in facts if f.kind == "payment"] == []


# --- card promotions -----------------------------------------------------------------------


def test_a_store_purchase_on_promotion_is_a_balance() -> None:
    facts = money(("user", "bought a fridge at Best Buy, $1,600, 12 months no interest"))
    assert facts == [
        ("deadline", "promotion/best buy", {"title": "Best Buy store credit card 12-month no-interest promotion ends",
                                            "due_date": "2026-05-02"}),
        ("bill", "balance/best buy", {"payee": "Best Buy store credit card", "amount_usd": 1600.0,
                                      "recurring": False})]


def test_the_discover_it_card_is_named_with_its_product() -> None:
    facts = money(("user", "I have the Discover it card, 0% intro APR ending on 28th February."))
    assert [f["title"] for _, _, f in facts] == ["Discover it credit card 0% intro APR ends"]


def test_a_later_vague_promotion_keeps_its_title() -> None:
    extractor = RuleExtractor()
    extractor.extract(_session(("user", "Put $3,200 on my Lowe's card, 12 months no interest.")), user_only=False)
    later = extractor.extract(_session(
        ("user", "Still got $1,800 left on the Lowe's card."),
        ("assistant", "Noted: $1,800 left on the Lowe's card; the no-interest promotion ends May 2, 2026."),
        sid="s2", ts=datetime(2026, 4, 1)), user_only=False)
    titles = {f.fields["title"] for f in later if f.kind == "deadline"}
    assert titles == {"Lowe's store credit card 12-month no-interest promotion ends"}


# --- the cancelled trial raises nothing ------------------------------------------------------


def test_a_trial_meant_then_cancelled_raises_no_reminder() -> None:
    """What the sessions above give, compiled as later values winning: cancelled, no reminder."""
    subscription = record_class("subscription")
    trial = {"vendor": "Paramount+", "amount_usd": 7.99, "cadence": "monthly", "promo_end_date": date(2025, 4, 1)}
    now = datetime(2025, 3, 27)
    meant = user_module(subscriptions=[subscription(**trial, status="cancelling", fact_ids=[1])])
    done = user_module(subscriptions=[subscription(**trial, status="cancelled", fact_ids=[1, 2])])
    assert len(run_constraints(meant, now, [subscription_charge_before_cancel]).alerts) == 1
    assert list(run_constraints(done, now, [subscription_charge_before_cancel]).alerts) == []


# --- more bills, balances and deadlines ------------------------------------------------------


def test_a_bill_said_with_its_possessive() -> None:
    assert fields_of("phone bill's due tomorrow, 85 bucks", "bill") == [
        {"payee": "phone", "amount_usd": 85.0, "due_date": "2025-05-03"}]


@pytest.mark.parametrize(("sentence", "payee", "owed"), [
    ("I've got 0% on my Chase Freedom until next June, owe about 2 grand", "Chase Freedom credit card", 2000.0),
    ("still owe like three grand on the Wayfair card", "Wayfair store credit card", 3000.0),
])
def test_a_balance_in_grands(sentence: str, payee: str, owed: float) -> None:
    [fields] = fields_of(sentence, "bill")
    assert (fields["payee"], fields["amount_usd"]) == (payee, owed)


@pytest.mark.parametrize(("sentence", "title", "due"), [
    ("need to renew my car registration by the end of next month", "car registration renewal", "2025-06-30"),
    ("I have to submit the expense report by Friday", "expense report", "2025-05-09"),
    ("the deadline for the FAFSA is June 30", "FAFSA", "2025-06-30"),
    ("Emma's school term ends on June 20.", "Emma's school term ends", "2025-06-20"),
    ("my lease is up on August 31", "lease ends", "2025-08-31"),
])
def test_a_deadline_to_meet(sentence: str, title: str, due: str) -> None:
    assert fields_of(sentence, "deadline") == [{"title": title, "due_date": due}]


@pytest.mark.parametrize("sentence", [
    "if I renew my passport by Friday will it come in time?", "I'll be home by 6", "the trip ends on June 20",
    "should I renew my license before the 15th",
])
def test_no_deadline(sentence: str) -> None:
    assert fields_of(sentence, "deadline") == []


def test_the_assistants_restatement_is_the_same_deadline() -> None:
    facts = money(("user", "Please also note that her school term ends on June 20."),
                  ("assistant", "Noted: Emma's school term ends on June 20, 2025."))
    assert {key for _, key, _ in facts} == {"deadline/school term ends"}
    assert facts[-1][2]["title"] == "Emma's school term ends"


@pytest.mark.parametrize("sentence", [
    "I don't want Hulu to renew this time", "I'm not renewing the Adobe plan, it renews on the 14th",
    "remind me to cancel Paramount before the 20th", "I want to get rid of Peacock before it charges me again",
])
def test_a_cancellation_meant_in_other_words(sentence: str) -> None:
    assert [f["status"] for f in fields_of(sentence)] == ["cancelling"]


@pytest.mark.parametrize("sentence", ["should I let Hulu lapse?", "of paramount importance: the report is due"])
def test_no_cancellation_meant(sentence: str) -> None:
    assert fields_of(sentence) == []


@pytest.mark.parametrize(("sentence", "vendor", "end"), [
    ("the Audible trial ends Friday", "Audible", "2025-05-09"),
    ("free until the 20th then $14.99 a month for Sling", "Sling", "2025-05-20"),
    ("my trial of Crunchyroll runs out on the 20th and then it's $7.99", "Crunchyroll", "2025-05-20"),
])
def test_a_trial_ending_said_other_ways(sentence: str, vendor: str, end: str) -> None:
    [fields] = fields_of(sentence)
    assert (fields["vendor"], fields["status"], fields["promo_end_date"]) == (vendor, "trial", end)


@pytest.mark.parametrize(("sentence", "payee", "amount", "due"), [
    ("the electricity bill for $143 needs to be paid by the 12th", "electricity", 143.0, "2025-05-12"),
    ("I owe PG&E $210 by Friday", "PG&E", 210.0, "2025-05-09"),
    ("$143 electric bill, due 12th", "electric", 143.0, "2025-05-12"),
    ("haven't paid the water bill yet, $45 due Monday", "water", 45.0, "2025-05-05"),
])
def test_a_bill_still_to_pay(sentence: str, payee: str, amount: float, due: str) -> None:
    [fields] = fields_of(sentence, "bill")
    assert (fields["payee"], fields["amount_usd"], fields["due_date"]) == (payee, amount, due)


def test_an_amount_in_pounds_is_no_usd_amount() -> None:
    assert [f.get("amount_usd") for f in fields_of("Britbox is £7.99 a month")] == [None]


@pytest.mark.parametrize("turns", [
    (("user", "I started a Hulu free trial and already cancelled it so it won't charge me"),),
    (("user", "I cancelled my Hulu trial"),
     ("assistant", "Got it - the Hulu free trial is cancelled, so the $18.99 charge on May 15 won't happen.")),
    (("assistant", "Reminder: your Peacock trial ends May 10 and then it's $7.99 a month."),
     ("user", "already did it, cancelled yesterday")),
    (("user", "went into settings and turned off the free trial renewal for Peacock"),),
    (("user", "I made sure to cancel the Babbel trial on time"),),
    (("user", "cancelled the disney+ trial, still have access till the 20th though"),),
])
def test_a_cancelled_trial_ends_cancelled(turns: tuple[tuple[str, str], ...]) -> None:
    assert [f.get("status") for _, _, f in money(*turns)][-1] == "cancelled"


def test_turning_off_auto_renew_is_meant() -> None:
    assert [f["status"] for f in fields_of("I need to turn off the auto-renew for Audible")] == ["cancelling"]


@pytest.mark.parametrize(("sentence", "payee"), [
    ("paid the electric bill today", "electric"), ("just paid the water bill, 64.30", "water"),
    ("the gas bill is paid", "gas"), ("Paid the electric today", "electric"), ("ok the water is paid", "water"),
])
def test_a_paid_bill_is_a_payment_done(sentence: str, payee: str) -> None:
    facts = extracted(("bill", "payment"), ("user", sentence))
    assert [(kind, fields["payee"], fields["status"]) for kind, _, fields in facts] == [("payment", payee, "done")]


@pytest.mark.parametrize("sentence", ["paid last month's water bill late", "paid the gas station attendant",
                                      "if I paid the electric bill today would it post by Friday?"])
def test_no_payment_of_a_bill_due(sentence: str) -> None:
    assert extracted(("bill", "payment"), ("user", sentence)) == []


def _later_session(first: str, second: str) -> Extracted:
    extractor = RuleExtractor()
    extractor.extract(_session(("user", first), ts=datetime(2025, 1, 5, 10)), user_only=False)
    facts = extractor.extract(_session(("user", second), sid="s2", ts=datetime(2025, 6, 5, 10)), user_only=False)
    return [(f.kind, f.key, {k: v for k, v in f.fields.items() if k not in ("subject", "speaker")})
            for f in facts if f.kind in MONEY]


@pytest.mark.parametrize(("second", "owed"), [
    ("still $800 left on it", 800.0), ("there's $800 left on the card", 800.0), ("paid it off!", 0.0),
])
def test_a_later_sessions_balance_is_the_promotions_card(second: str, owed: float) -> None:
    facts = _later_session("put $1,200 on my Home Depot card, 18 months no interest", second)
    assert facts == [("bill", "balance/home depot", {"payee": "Home Depot store credit card", "amount_usd": owed,
                                                     "recurring": False})]


@pytest.mark.parametrize("second", ["I owe $500 on my car loan",
                                    "my sister paid off her student loan, I'm so jealous of it"])
def test_another_debt_is_not_the_promotions_card(second: str) -> None:
    assert _later_session("put $1,200 on my Home Depot card, 18 months no interest", second) == []


def test_a_payment_charged_to_a_card_is_not_its_balance() -> None:
    assert money(("assistant", "Noted: $640 to Brightline Print for invoice 5521 on Wednesday, April 16, 2025, "
                               "on the Amex.")) == []

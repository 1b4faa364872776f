"""Phrasing families of bills, subscriptions, promotions, deadlines and warranties (issue 11,
round 4, helper h-bills4): each family in phrasings other than the eval file's, and what it
must not read. Sentence (or short exchange) in, typed facts out, through `RuleExtractor`."""

from __future__ import annotations

from datetime import datetime

import pytest
from typed_sessions import TS, Extracted, extracted

from constraints.fault_notes import FAULT, open_fault
from factlog.typed.subscription_words import KEEPS, listed_service
from factlog.typed.warranty_items import branded_item, terse_warranty

MONEY = ("bill", "subscription", "deadline", "payment")


def money(*turns: tuple[str, str], ts: datetime = TS) -> Extracted:
    return extracted(MONEY, *turns, ts=ts)


def of_kind(facts: Extracted, kind: str) -> list[dict[str, object]]:
    return [dict(fields) for k, _, fields in facts if k == kind]


# --- a service no list names, given as a list line or a recap's item -------------------------


@pytest.mark.parametrize(("line", "name"), [
    ("- Acme Sync Pro: $8/mo, renews the 3rd", "Acme Sync"),
    ("• Linear: $96 a year, renews March 1", "Linear"),
    ("Saved: Raycast Pro, $8 a month, renewing June 3.", "Raycast"),
    ("Tailscale Personal — $60/yr, auto-renews in August", "Tailscale"),
    ("* Pocket Casts Plus: $40 a year, billed every January", "Pocket Casts"),
])
def test_a_listed_service_is_named_without_its_plan(line: str, name: str) -> None:
    assert listed_service(line) == name


@pytest.mark.parametrize("line", [
    "- Rent: $1,200 a month, due the 1st",
    "Amount due: $84.12, renews",
    "Total: $50 a month, renews monthly",
    "Groceries: about $400 a month",
    "- Figma came up in the meeting today",
])
def test_lines_that_name_no_service(line: str) -> None:
    assert listed_service(line) is None or listed_service(line) == "Figma" and "renew" not in line


def test_a_list_line_gives_the_subscription() -> None:
    facts = money(("user", "My tools, billed yearly:\n- Acme Sync Pro: $80/yr, renews June 3"))
    assert {"vendor": "Acme Sync", "amount_usd": 80.0, "cadence": "yearly", "due_date": "2025-06-03",
            "status": "active"} in of_kind(facts, "subscription")


def test_a_rent_line_is_no_subscription() -> None:
    assert of_kind(money(("user", "- Rent: $1,200 a month, renews with the lease in June")), "subscription") == []


# --- a price in pounds, euros or naira: a running subscription, no USD amount ----------------


@pytest.mark.parametrize(("sentence", "vendor"), [
    ("NOW TV is £9.99 a month, comes out on the 20th", "NOW TV"),
    ("Spotify went up to €12.99 a month", "Spotify"),
    ("My Showmax is 2,900 naira monthly", "Showmax"),
    ("DStv Compact, ₦15,700 every month, renews on the 22nd", "DStv"),
    ("the Sky Go subscription is £6 a month", "Sky Go"),
])
def test_other_currencies_give_no_usd_amount(sentence: str, vendor: str) -> None:
    [subscription] = of_kind(money(("user", sentence)), "subscription")
    assert (subscription["vendor"], subscription["status"], subscription.get("amount_usd")) == (vendor, "active", None)


@pytest.mark.parametrize("sentence", [
    "Netflix is fine on my 4K TV",
    "The car is due its 30K service",
    "the gym has 2 a week classes",
])
def test_numbers_that_are_no_money_stay_out(sentence: str) -> None:
    assert all("amount_usd" not in fields for fields in of_kind(money(("user", sentence)), "subscription"))


# --- buy now, pay later --------------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Afterpay for the shoes, 4 payments of $30, next one on Friday",
     {"payee": "Afterpay", "amount_usd": 30.0, "due_date": "2025-05-09", "recurring": True}),
    ("klarna is $25 every two weeks for the coat, comes off my card",
     {"payee": "Klarna", "amount_usd": 25.0, "recurring": True, "autopay": True}),
    ("I did a Sezzle pay in 4 on the desk, $200 total",
     {"payee": "Sezzle", "amount_usd": 50.0, "recurring": True}),
    ("the bike is on Affirm, $87.42 a month, taken automatically on the 8th",
     {"payee": "Affirm", "amount_usd": 87.42, "due_date": "2025-05-08", "recurring": True, "autopay": True}),
    ("Clearpay: next instalment of $18.75 is due 12 May",
     {"payee": "Clearpay", "amount_usd": 18.75, "due_date": "2025-05-12", "recurring": True}),
])
def test_an_instalment_plan_is_a_bill_to_the_lender(sentence: str, expected: dict[str, object]) -> None:
    assert expected in of_kind(money(("user", sentence)), "bill")


@pytest.mark.parametrize("sentence", [
    "should I use Klarna for the sofa?",
    "is afterpay worth it for $40",
    "my zip code is 90210",
    "Klarna would let me split it into 4",
])
def test_questions_and_words_are_no_plan(sentence: str) -> None:
    assert of_kind(money(("user", sentence)), "bill") == []


def test_a_plan_paid_off_is_a_payment() -> None:
    facts = money(("user", "paid off the afterpay today"))
    assert of_kind(facts, "bill") == [] and of_kind(facts, "payment")[0]["payee"] == "Afterpay"


def test_the_next_instalment_said_after_the_plan_is_its_date() -> None:
    facts = money(("user", "got the phone on Klarna, $50 a month"),
                  ("assistant", "Noted: Klarna, $50 a month. The next instalment is May 20, 2025."))
    assert {"payee": "Klarna", "due_date": "2025-05-20", "recurring": True} in of_kind(facts, "bill")


def test_a_subscription_after_a_plan_is_not_the_plan() -> None:
    facts = money(("user", "Afterpay: 4 payments of $30, next one on Friday."),
                  ("user", "also have youtube premium $13.99/mo, bills on the 3rd"))
    assert [bill["amount_usd"] for bill in of_kind(facts, "bill")] == [30.0]


# --- a cancellation refused ----------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "I'm not cancelling Hulu, relax",
    "no way I'm cancelling Netflix before the final",
    "my wife wants me to cancel Spotify but I won't cancel it",
    "Mama say make I cancel Showmax but I no go cancel am",
    "not going to drop Peacock yet",
])
def test_a_refused_cancellation_is_no_intent(sentence: str) -> None:
    assert KEEPS.search(sentence)
    assert all(fields.get("status") != "cancelling" for fields in of_kind(money(("user", sentence)), "subscription"))


def test_a_cancellation_meant_still_is() -> None:
    assert of_kind(money(("user", "I'll cancel Hulu before the 20th")), "subscription")[0]["status"] == "cancelling"


def test_a_licence_renewal_is_not_the_last_subscriptions() -> None:
    facts = money(("user", "Hulu is $18 a month, renews on the 9th."),
                  ("user", "Also my car registration renewal is due by 30 June."))
    assert [fields.get("due_date") for fields in of_kind(facts, "subscription")] == ["2025-05-09"]


def test_a_subscription_taken_today_charges_next_on_that_day_next_month() -> None:
    facts = money(("user", "Got Paramount+ back, £6.99 a month, comes out on the 2nd"))
    assert of_kind(facts, "subscription")[0]["due_date"] == "2025-06-02"


# --- short answers to the assistant's questions about a subscription -------------------------


def test_terse_answers_about_a_subscription() -> None:
    facts = money(("user", "Hulu, 18 a month."), ("assistant", "When does it renew?"), ("user", "the 15th"),
                  ("assistant", "And do you use Peacock?"), ("user", "yes, 7.99 a month, on the 22nd"))
    subscriptions = of_kind(facts, "subscription")
    assert {"vendor": "Hulu", "amount_usd": 18.0, "cadence": "monthly", "status": "active"} in subscriptions
    assert {"vendor": "Hulu", "due_date": "2025-05-15", "status": "active"} in subscriptions
    assert {"vendor": "Peacock", "amount_usd": 7.99, "cadence": "monthly", "due_date": "2025-05-22",
            "status": "active"} in subscriptions


def test_a_count_answered_is_no_subscription() -> None:
    facts = money(("assistant", "How many lessons do you take?"), ("user", "2 a month"))
    assert of_kind(facts, "subscription") == []


# --- warranties told tersely ---------------------------------------------------------------


@pytest.mark.parametrize(("question", "answer", "expected"), [
    ("And the warranty?", "two years", "2 years warranty"),
    ("Does it have a warranty?", "2 yrs from LG", "2 yrs warranty from LG"),
    ("How long is the guarantee on it?", "just the one year", "1 year warranty"),
    ("Any warranty?", "3 years, Samsung's", "3 years warranty from Samsung"),
    ("What about the warranty?", "1 yr whirlpool.", "1 yr warranty from Whirlpool."),
])
def test_a_bare_length_answering_a_warranty_question(question: str, answer: str, expected: str) -> None:
    assert terse_warranty(answer, [question, answer]) == expected


@pytest.mark.parametrize(("question", "answer"), [
    ("And the warranty?", "two years ago"),
    ("And the warranty?", "not sure, maybe two years"),
    ("How old is the old one?", "two years"),
    ("And the warranty?", "no warranty on it"),
    ("And the warranty?", "two years? is that normal"),
])
def test_no_warranty_read_from_other_answers(question: str, answer: str) -> None:
    assert terse_warranty(answer, [question, answer]) is None


def test_the_terse_answer_gives_the_warranty_on_the_item_just_bought() -> None:
    facts = extracted(("document",), ("user", "bought a Bosch dishwasher on April 20"),
                      ("assistant", "Noted. Does it have a warranty?"), ("user", "two years"))
    assert facts[-1][2] == {"kind": "warranty", "purchase_date": "2025-04-20", "expiry_date": "2027-04-20",
                            "provider": "Bosch", "item": "Bosch dishwasher"}


@pytest.mark.parametrize(("sentence", "item"), [
    ("My washing machine is Samsung, bought on 3 March 2023", "Samsung washing machine"),
    ("our fridge is an LG, 2 year warranty", "LG fridge"),
    ("the dryer is Fisher & Paykel.", "Fisher & Paykel dryer"),
    ("my phone is fine", None),
    ("the washer is broken", None),
])
def test_an_item_named_before_its_brand(sentence: str, item: str | None) -> None:
    assert branded_item(sentence) == item


def test_a_purchase_day_said_after_bought_dates_the_warranty() -> None:
    facts = extracted(("document",), ("user", "My washing machine is Samsung, bought from Courts on 3 March 2023, "
                                               "Samsung give 3 years warranty."))
    assert facts[0][2]["purchase_date"] == "2023-03-03" and facts[0][2]["expiry_date"] == "2026-03-03"
    assert facts[0][2]["item"] == "Samsung washing machine"


def test_a_maker_with_an_ampersand() -> None:
    facts = extracted(("document",), ("user", "got the Fisher & Paykel fridge on 1 May 2024 with a 2 year warranty"))
    assert facts[0][2]["provider"] == "Fisher & Paykel" and facts[0][2]["item"] == "Fisher & Paykel fridge"


@pytest.mark.parametrize("note", [
    "the dyson cuts out every few seconds",
    "Hoover keeps cutting out mid-room",
    "the Bosch leaks from the door",
    "the kettle turns itself off on its own",
    "the TV won't stay on",
])
def test_a_machine_stopping_by_itself_is_a_fault(note: str) -> None:
    assert FAULT.search(note)


def test_the_brand_alone_with_a_verb_names_the_item() -> None:
    assert open_fault([(2, "dyson cuts out every few seconds now")], frozenset({"v15", "vacuum"}),
                      frozenset({"dyson"})) is not None
    assert open_fault([(2, "the dyson airwrap I gave my sister cuts out")], frozenset({"v15", "vacuum"}),
                      frozenset({"dyson"})) is None


# --- a card's statement pasted, day first ----------------------------------------------------


STATEMENT = ("Barclaycard Platinum\nStatement balance: £1,204.10\nMinimum payment: £30.00\nPayment due: 07/05/2025\n"
             "Your 0% purchase rate ends on 30/06/2025.")


def test_a_british_statement() -> None:
    facts = money(("user", STATEMENT))
    assert {"payee": "Barclaycard Platinum credit card", "due_date": "2025-05-07", "recurring": False} in \
        of_kind(facts, "bill")
    assert {"title": "Barclaycard Platinum credit card 0% intro APR ends", "due_date": "2025-06-30"} in \
        of_kind(facts, "deadline")


def test_a_dollar_statement_stays_month_first() -> None:
    facts = money(("user", "Chase Freedom\nNew balance: $820.00\nPayment due: 07/05/2025"))
    assert {"payee": "Chase Freedom credit card", "due_date": "2025-07-05", "recurring": False} in of_kind(facts, "bill")


@pytest.mark.parametrize(("sentence", "balance"), [
    ("the barclaycard is down to about 1,900 now", 1900.0),
    ("MBNA card is down to 640 now", 640.0),
    ("halifax credit card balance is down to 2,050", 2050.0),
])
def test_a_balance_down_to(sentence: str, balance: float) -> None:
    assert [bill["amount_usd"] for bill in of_kind(money(("user", sentence)), "bill")] == [balance]


@pytest.mark.parametrize(("sentence", "paid"), [
    ("Paid more than the minimum, the barclaycard is down to 1,900", True),
    ("made the minimum payment on the MBNA card", True),
    ("I need to pay the minimum on the barclaycard", False),
    ("haven't paid the minimum on the Halifax card yet", False),
    ("should I pay extra on the barclaycard?", False),
])
def test_a_payment_toward_a_card(sentence: str, paid: bool) -> None:
    assert bool(of_kind(money(("user", sentence)), "payment")) is paid


# --- a purchase on the store's own card ------------------------------------------------------


@pytest.mark.parametrize(("sentence", "payee", "amount"), [
    ("got a recliner from Bob's Discount, $900, put it on their store card", "Bob's Discount store credit card", 900.0),
    ("bought the rug at Crate, put it on their card, $600", "Crate store credit card", 600.0),
    ("put the sofa on our Ashley card, $2,000", "Ashley store credit card", 2000.0),
])
def test_a_purchase_on_the_stores_card(sentence: str, payee: str, amount: float) -> None:
    assert {"payee": payee, "amount_usd": amount, "recurring": False} in of_kind(money(("user", sentence)), "bill")


@pytest.mark.parametrize("sentence", [
    "bought it from Amazon, paid with my Visa, $60",
    "got groceries at Kroger on the credit card, $80",
    "put $50 on the gift card for Mia",
])
def test_other_cards_are_no_store_card(sentence: str) -> None:
    assert [bill for bill in of_kind(money(("user", sentence)), "bill") if "store" in str(bill.get("payee"))] == []


def test_a_promotion_ending_the_day_it_is_said_is_next_years() -> None:
    facts = money(("user", "new couch on the Rooms To Go card, $1,500, no interest if paid off by next May 2nd"))
    assert of_kind(facts, "deadline")[0]["due_date"] == "2026-05-02"


# --- a letter read aloud ----------------------------------------------------------------------


def test_a_letter_read_aloud() -> None:
    facts = money(("user", "There's a letter here from Severn Trent."),
                  ("user", "It says your water charges for April to June come to $98.40."),
                  ("user", "Please pay by 2 June 2025."), ("user", "It's every three months."),
                  ("user", "I'm not on direct debit."))
    bills = of_kind(facts, "bill")
    assert {"payee": "Severn Trent", "amount_usd": 98.4} in bills
    assert {"payee": "Severn Trent", "due_date": "2025-06-02"} in bills
    assert {"payee": "Severn Trent", "recurring": True} in bills
    assert {"payee": "Severn Trent", "autopay": False} in bills


@pytest.mark.parametrize("turns", [
    (("user", "Got a letter from my sister today."), ("user", "She says the kids are well.")),
    (("user", "A letter from the council came."), ("user", "They are changing the bin days.")),
])
def test_letters_that_bill_nothing(turns: tuple[tuple[str, str], ...]) -> None:
    assert of_kind(money(*turns), "bill") == []


# --- a deadline met, in more words -------------------------------------------------------------


@pytest.mark.parametrize("done", [
    "I don renew the car papers now now",
    "we've filed the tax return",
    "got the car papers renewed this morning",
    "I have submitted the tax return",
    "finally renewed the car papers",
])
def test_a_deadline_met(done: str) -> None:
    facts = extracted(("deadline",), ("user", "I need to renew my car papers by the end of next month."),
                      ("user", "Also I must submit my tax return by June 30."), ("user", done))
    assert facts[-1][2]["due_date"] is None


@pytest.mark.parametrize("not_done", [
    "I haven't renewed the car papers yet",
    "did you renew the car papers?",
    "I don tire for this car papers matter",
])
def test_a_deadline_not_met(not_done: str) -> None:
    facts = extracted(("deadline",), ("user", "I need to renew my car papers by the end of next month."),
                      ("user", not_done))
    assert all(fields["due_date"] is not None for _, _, fields in facts)


@pytest.mark.parametrize(("sentence", "payee"), [
    ("Your Anglian Water bill of $148.20 is due on 14 May.", "Anglian Water"),
    ("the Thames Water bill is $60, due the 20th", "Thames Water"),
    ("Hydro Ottawa electric bill is $95, due the 18th", "Hydro Ottawa"),
    ("My water bill is $45, due Monday", "water"),
    ("So Con Edison electric bill is $80, due the 3rd", "Con Edison"),
])
def test_a_biller_named_before_what_the_bill_is_for(sentence: str, payee: str) -> None:
    assert [bill["payee"] for bill in of_kind(money(("user", sentence)), "bill")] == [payee]


@pytest.mark.parametrize(("sentence", "title", "due"), [
    ("I have until June 15 to file my taxes", "taxes", "2025-06-15"),
    ("we've got till Friday to submit the visa forms, otherwise we lose the slot", "visa forms", "2025-05-09"),
    ("I have until the 30th to renew my car registration", "car registration renewal", "2025-05-30"),
])
def test_a_deadline_said_as_time_left(sentence: str, title: str, due: str) -> None:
    assert {"title": title, "due_date": due} in of_kind(money(("user", sentence)), "deadline")


@pytest.mark.parametrize("sentence", [
    "I have until Friday off work",
    "If I have until June to file, fine",
    "do I have until June 15 to file my taxes?",
])
def test_time_left_that_is_no_deadline(sentence: str) -> None:
    assert of_kind(money(("user", sentence)), "deadline") == []


@pytest.mark.parametrize(("sentence", "provider"), [
    ("Bought a Samsung TV on March 3, it has a 1 year warranty", "Samsung"),
    ("Bought a Lenovo PC on March 3 with a 2 year warranty", "Lenovo"),
])
def test_a_brand_before_an_upper_case_product(sentence: str, provider: str) -> None:
    assert extracted(("document",), ("user", sentence))[0][2]["provider"] == provider


def test_a_persons_bill_is_no_biller() -> None:
    assert [bill["payee"] for bill in of_kind(money(("user", "Emma's phone bill is $40, due the 9th")), "bill")] == \
        ["phone"]


@pytest.mark.parametrize(("question", "answer", "due"), [
    ("When is it due?", "the 15th", "2025-05-15"),
    ("What day does it come out?", "on the 28th", "2025-05-28"),
    ("And when does the payment go through?", "it's the 9th", "2025-05-09"),
])
def test_a_bills_day_answered(question: str, answer: str, due: str) -> None:
    facts = money(("user", "Verizon bill is $85 this month."), ("assistant", question), ("user", answer))
    assert {"payee": "Verizon", "due_date": due} in of_kind(facts, "bill")


@pytest.mark.parametrize(("question", "answer"), [
    ("What's your favourite day of the month?", "the 15th"),
    ("When is it due?", "no idea"),
])
def test_other_answers_date_no_bill(question: str, answer: str) -> None:
    facts = money(("user", "Verizon bill is $85 this month."), ("assistant", question), ("user", answer))
    assert [bill.get("due_date") for bill in of_kind(facts, "bill")] == [None]


@pytest.mark.parametrize(("sentence", "provider"), [
    ("Apple gave me 12 months warranty on the iPad I bought on 2 April", "Apple"),
    ("bought a Bosch dryer on 3 March, Bosch gives a 2 year warranty", "Bosch"),
    ("got the Fisher & Paykel fridge on 1 May, F&P gave it a 2 year warranty", "Fisher & Paykel"),
    ("bought a kettle on 1 April, Breville offers a one year guarantee", "Breville"),
])
def test_the_maker_said_as_the_giver(sentence: str, provider: str) -> None:
    assert extracted(("document",), ("user", sentence))[0][2]["provider"] == provider


@pytest.mark.parametrize("sentence", [
    "I gave my son 2 years of warranty paperwork to file",
    "My son gave me a 2 year old laptop, no warranty",
])
def test_no_maker_from_people_giving(sentence: str) -> None:
    assert all(fields.get("provider") not in ("I", "My son") for _, _, fields in extracted(("document",),
                                                                                            ("user", sentence)))


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Comcast wants $89.99 by the 12th", {"payee": "Comcast", "amount_usd": 89.99, "due_date": "2025-05-12"}),
    ("Verizon is charging me $95 on the 20th", {"payee": "Verizon", "amount_usd": 95.0, "due_date": "2025-05-20"}),
    ("the water company sent a bill for $74, due June 3",
     {"payee": "water", "amount_usd": 74.0, "due_date": "2025-06-03"}),
    ("our HOA dues are $250 a quarter", {"payee": "HOA", "amount_usd": 250.0, "recurring": True}),
    ("the union dues are $40 a month", {"payee": "union", "amount_usd": 40.0, "recurring": True}),
])
def test_bills_said_as_what_the_biller_wants(sentence: str, expected: dict[str, object]) -> None:
    assert expected in of_kind(money(("user", sentence)), "bill")


@pytest.mark.parametrize("sentence", [
    "She wants $50 by Friday for the tickets",
    "the water company is digging up the street",
    "Late fees are $25 if you miss it",
])
def test_no_biller_named(sentence: str) -> None:
    assert of_kind(money(("user", sentence)), "bill") == []


@pytest.mark.parametrize(("sentence", "title", "balance"), [
    ("Got the sofa on the Ashley card, $1,800, interest-free for a year",
     "Ashley store credit card 12-month no-interest promotion ends", 1800.0),
    ("Ashley card: $1,800, no payments and no interest for 6 months",
     "Ashley store credit card 6-month no-interest promotion ends", 1800.0),
    ("Raymour card, $2,400, 2-year no interest", "Raymour store credit card 24-month no-interest promotion ends", 2400.0),
])
def test_a_promotion_in_years_or_on_a_card_line(sentence: str, title: str, balance: float) -> None:
    facts = money(("user", sentence))
    assert [d["title"] for d in of_kind(facts, "deadline")] == [title]
    assert [b["amount_usd"] for b in of_kind(facts, "bill")] == [balance]


@pytest.mark.parametrize("sentence", [
    "Visa card: $300 balance, 0% for a year?",
    "My cousin has been here for a year, no interest in the Ashley card",
])
def test_no_store_promotion(sentence: str) -> None:
    assert of_kind(money(("user", sentence)), "deadline") == []

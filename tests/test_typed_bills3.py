"""Phrasing families of bills, cards, subscriptions and warranties (issue 11, round 3): each
family with phrasings in other voices and orders than the eval file's, and what it must not
read. Sentence (or session) in, typed facts out, through `RuleExtractor`."""

from __future__ import annotations

from datetime import datetime

import pytest
from typed_sessions import TS, Extracted, extracted, session

from constraints.fault_notes import open_fault
from factlog.extract import RuleExtractor
from factlog.typed.stance import is_counterfactual
from factlog.typed.subscription_words import spoken_amounts

MONEY = ("bill", "subscription", "deadline")


def money(*turns: tuple[str, str], ts: datetime = TS) -> Extracted:
    return extracted(MONEY, *turns, ts=ts)


def kinds(facts: Extracted) -> list[tuple[str | None, str | None]]:
    return [(kind, key) for kind, key, _ in facts]


# --- a card named by no issuer list (a store's card) --------------------------------------------


@pytest.mark.parametrize(("sentence", "payee", "amount"), [
    ("Put the recliner on my Raymour card, $1,900, 18 months no interest.", "Raymour store credit card", 1900.0),
    ("I still owe $640 on the Rooms To Go card.", "Rooms To Go store credit card", 640.0),
    ("we owe about twelve hundred on our Mattress Firm card", "Mattress Firm store credit card", 1200.0),
    ("My Alliant credit card balance is $300.", "Alliant credit card", 300.0),
    ("there's still 450 dollars left on the Ashley card", "Ashley store credit card", 450.0),
])
def test_a_card_no_list_names_is_a_balance(sentence: str, payee: str, amount: float) -> None:
    bills = [fields for kind, _, fields in money(("user", sentence)) if kind == "bill"]
    assert bills == [{"payee": payee, "amount_usd": amount, "recurring": False}]


def test_a_store_cards_promotion_is_titled_by_its_name() -> None:
    facts = money(("user", "Put the recliner on my Raymour card, $1,900, 18 months no interest."))
    assert ("deadline", "promotion/raymour",
            {"title": "Raymour store credit card 18-month no-interest promotion ends", "due_date": "2026-11-02"}) in facts


def test_the_card_keeps_the_name_first_given() -> None:
    facts = money(("user", "we put the sofa on our Ashley store card, $2,400, 12 months no interest"),
                  ("user", "still owe $900 on the Ashley card"))
    assert {str(fields["payee"]) for kind, _, fields in facts if kind == "bill"} == {"Ashley store credit card"}


@pytest.mark.parametrize("sentence", [
    "Paid for dinner with my Visa card, $40.",
    "my debit card got declined at the store, $12 charge",
    "The Gift card still has $25 left on it.",
    "If we put it on the Ashley card, is it 12 months no interest?",
    "Maybe I'll put the TV on the Conn's card, 12 months no interest?",
])
def test_networks_gift_cards_and_questions_are_no_store_card(sentence: str) -> None:
    assert [f for f in money(("user", sentence)) if f[0] == "bill" and "store credit card" in str(f[2])] == []


# --- a debt said in words after "owe" --------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("We still owe about eleven hundred on the card.", [1100.0]),
    ("i owe like two thousand on it", [2000.0]),
    ("still owing roughly three thousand five hundred", [3500.0]),
    ("I owe a hundred and fifty on the Target card", [150.0]),
    ("we owe twelve hundred dollars", [1200.0]),  # once, by its unit
    ("I owe her one", []),
    ("owe three on the list", []),
    ("you owe me twenty", []),
])
def test_a_debt_said_in_words(text: str, expected: list[float]) -> None:
    assert spoken_amounts(text) == expected


# --- whose subscription ----------------------------------------------------------------------


@pytest.mark.parametrize(("turn", "subject"), [
    (("user", "My daughter Priya pays for Spotify herself, $5.99 a month."), "daughter"),
    (("user", "netflix is on my dads account, 15.49 a month"), "father"),
    (("user", "My sister Ana has Hulu, $18.99 a month."), "sister"),
    (("assistant", "Noted: YouTube TV, $72.99 a month, paid by your husband."), "husband"),
    (("assistant", "That's the Disney+ family plan - $13.99 a month on your mom."), "mother"),
    (("user", "I pay for Netflix, $15.49 a month, and my son watches it."), "user"),
])
def test_the_subscription_keeps_whose_it_is(turn: tuple[str, str], subject: str) -> None:
    facts = [f for f in RuleExtractor().extract(session(turn), user_only=False) if f.kind == "subscription"]
    assert facts and {f.fields["subject"] for f in facts} == {subject}


def test_the_assistants_restatement_of_someone_elses_subscription_stays_theirs() -> None:
    facts = RuleExtractor().extract(session(
        ("user", "My son Tomás pays for Paramount+ on his own card, $12.99 a month, it renews on the 9th."),
        ("assistant", "Noted: Tomás's Paramount+, $12.99 a month, renewing May 9 - he plans to cancel before then.")),
        user_only=False)
    assert {f.fields["subject"] for f in facts if f.kind == "subscription"} == {"son"}


# --- the assistant's price answers are not the user's subscriptions ---------------------------


@pytest.mark.parametrize("sentence", [
    "Max is $16.99 a month; worth it if you'd watch the HBO shows.",
    "Peacock Premium runs $7.99 a month if you want it with ads.",
    "Game Pass Ultimate is about $19.99 a month, whether you'd use it depends on what you play.",
    "Spotify Premium Individual is $11.99 a month in the US.",
    "Audible is $14.95 a month unless you'd rather buy credits.",
])
def test_the_assistants_price_answer_is_no_subscription(sentence: str) -> None:
    assert money(("assistant", sentence)) == []


@pytest.mark.parametrize("sentence", [
    "Noted: your Hulu is $18.99 a month.",
    "Got it: Netflix, $15.49 a month, next charge May 21.",
    "Updated: you pay $11.99 a month for Spotify now.",
])
def test_the_assistants_confirmation_still_counts(sentence: str) -> None:
    assert [kind for kind, _, _ in money(("assistant", sentence))] == ["subscription"]


# --- counterfactuals state nothing done ------------------------------------------------------


@pytest.mark.parametrize(("text", "counterfactual"), [
    ("Thought I'd more paid off than that.", True),
    ("I wish we'd cleared the balance before the holidays.", True),
    ("should have paid off the Target card by now", True),
    ("I could've sworn I paid it off.", True),
    ("If only I'd paid it in full.", True),
    ("I paid it off in May.", False),
    ("We paid off the Chase card last week.", False),
    ("The balance is zero now.", False),
])
def test_counterfactual(text: str, counterfactual: bool) -> None:
    assert is_counterfactual(text) is counterfactual


@pytest.mark.parametrize("sentence", [
    "Thought I'd more paid off than that on the Chase card.",
    "I wish I'd paid off the Wayfair card by now.",
    "I should have paid off the Discover card in March.",
])
def test_a_counterfactual_pay_off_leaves_no_zero_balance(sentence: str) -> None:
    assert [f for f in money(("user", sentence)) if f[0] == "bill" and f[2].get("amount_usd") == 0.0] == []


def test_a_paid_off_card_still_reads_zero() -> None:
    assert ("bill", "balance/chase", {"payee": "Chase credit card", "amount_usd": 0.0, "recurring": False}) in \
        money(("user", "I paid off the Chase card last week, the balance is zero."))


# --- statement lines ------------------------------------------------------------------------


@pytest.mark.parametrize(("lines", "autopay"), [
    ("Verizon\nAmount due: $92.10\nDue date: 05/20/2025\nAutoPay: Not enrolled", False),
    ("PG&E statement\nAmount due: $130.00\nDue date: 05/18/2025\nAutomatic payment: off", False),
    ("Spectrum bill is $64.20, due the 19th.\nAutoPay status: inactive", False),
    ("Con Edison bill, $182.40, due May 17. AutoPay: Enrolled", True),
])
def test_a_statements_autopay_line(lines: str, autopay: bool) -> None:
    bills = [fields for kind, _, fields in money(("user", lines)) if kind == "bill" and "autopay" in fields]
    assert bills and bills[-1]["autopay"] is autopay


@pytest.mark.parametrize("line", ["Minimum payment due: $35.00 on 05/25/2025",
                                  "the minimum of $35 is due May 25", "Payment due: May 25, $35 minimum"])
def test_a_statements_minimum_due_is_the_cards(line: str) -> None:
    facts = money(("user", f"Chase Freedom statement: new balance $1,240.\n{line}"))
    assert not [f for f in facts if f[0] == "bill" and str(f[2]["payee"]).casefold() in ("minimum", "payment")]


# --- bills named by what they are for ---------------------------------------------------------


@pytest.mark.parametrize(("sentence", "payee"), [
    ("Our gas and electric is $140 a month, due the 5th.", "gas and electric"),
    ("The boat insurance is $600 a year, due June 1.", "boat insurance"),
    ("Water and sewer is quarterly, $212.60 a quarter, next one's due June 1st.", "water and sewer"),
    ("My flood insurance is $480, due on the 30th.", "flood insurance"),
])
def test_a_bill_named_by_what_it_is_for(sentence: str, payee: str) -> None:
    bills = [fields for kind, _, fields in money(("user", sentence)) if kind == "bill"]
    assert [b["payee"] for b in bills] == [payee]


def test_no_payee_next_one_and_no_bill_for_travel_insurance() -> None:
    facts = money(("user", "Trash is $45 a quarter, next one's due the 1st."))
    assert all(f[2].get("payee") not in ("next one", "next") for f in facts)
    assert money(("user", "The travel insurance is $89 for the trip.")) == []


@pytest.mark.parametrize(("turns", "autopay"), [
    ((("user", "The water bill is $90, due the 1st."), ("user", "It's on pre-authorized debit.")), True),
    ((("user", "The gas bill is $60, due the 3rd."), ("user", "Neither one's on direct debit.")), False),
    ((("user", "Electric bill is $120, due the 9th."), ("user", "not on direct debit, I pay it myself")), False),
])
def test_pre_authorized_and_direct_debit_are_autopay(turns: tuple[tuple[str, str], ...], autopay: bool) -> None:
    bills = [fields for kind, _, fields in money(*turns) if kind == "bill" and "autopay" in fields]
    assert bills and bills[-1]["autopay"] is autopay


# --- a service renewing by a name no list has --------------------------------------------------


@pytest.mark.parametrize(("sentence", "vendor"), [
    ("remind me the Sky Sports is up for renewal on the 20th", "Sky Sports"),
    ("My Bitdefender auto-renews on the 12th.", "Bitdefender"),
    ("our RAC comes up for renewal on the 9th", "RAC"),
])
def test_an_unlisted_service_renewing(sentence: str, vendor: str) -> None:
    subs = [fields for kind, _, fields in money(("user", sentence)) if kind == "subscription"]
    assert [s["vendor"] for s in subs] == [vendor] and "due_date" in subs[0]


@pytest.mark.parametrize("sentence", ["my State Farm renews on the 1st, $642",
                                      "the Passport renews on the 3rd", "Is the Sky Sports up for renewal soon?"])
def test_no_subscription_for_a_biller_a_document_or_a_question(sentence: str) -> None:
    assert [f for f in money(("user", sentence)) if f[0] == "subscription"] == []


# --- a fault on someone else's item is not the user's ----------------------------------------


@pytest.mark.parametrize(("text", "open_"), [
    ("My neighbour Bev's Samsung dishwasher keeps tripping her breaker.", False),
    ("my sister's dishwasher died last night", False),
    ("her dishwasher is leaking all over the floor", False),
    ("The Hendersons' dishwasher stopped draining.", False),
    ("the kids' friend's dishwasher broke", False),
    ("The dishwasher is leaking again.", True),
    ("our dishwasher keeps tripping the breaker", True),
    ("it's the dishwasher, it stopped draining", True),
])
def test_a_fault_on_someone_elses_item(text: str, open_: bool) -> None:
    assert (open_fault([(20, text)], frozenset({"dishwasher"})) is not None) is open_


# --- receipts pasted line by line, and extended cover by a plan's brand -----------------------


def documents(*turns: tuple[str, str]) -> Extracted:
    return extracted(("document",), *turns)


@pytest.mark.parametrize("text", [
    "Date of purchase: 03/02/2025\nProduct: Dyson V15 vacuum\nWarranty: 2 year",
    "Product: Dyson V15 vacuum\nPurchase date: 03/02/2025\nWarranty: 2 years manufacturer",
    "Argos receipt 03/02/2025\nItem: Dyson V15 vacuum\nWarranty: 2 yr",
])
def test_a_receipts_lines_give_the_warranty(text: str) -> None:
    found = [fields for _, _, fields in documents(("user", text))]
    assert found and found[-1]["item"] == "Dyson V15 vacuum"
    assert found[-1]["purchase_date"] == "2025-03-02" and found[-1]["expiry_date"] == "2027-03-02"


def test_an_amount_is_no_item() -> None:
    found = documents(("user", "Purchase date: 03/02/2025\nItem: $49.99\nWarranty: 1 year"))
    assert all("item" not in fields for _, _, fields in found)


@pytest.mark.parametrize(("sentence", "provider"), [
    ("Noted: Whirlpool chest freezer bought May 2, 2025; Whirlpool warranty until May 2, 2026 and "
     "Geek Squad protection until May 2, 2027.", "Geek Squad"),
    ("I also got the Asurion protection on it, 3 years.", "Asurion"),
])
def test_extended_cover_named_by_its_brand(sentence: str, provider: str) -> None:
    turns = [("user", "I bought a Whirlpool chest freezer today."), ("assistant", sentence)] \
        if sentence.startswith("Noted") else [("user", "I bought a Whirlpool chest freezer today."), ("user", sentence)]
    assert provider in [fields.get("provider") for _, _, fields in documents(*turns)]


# --- a deadline met is no longer due -------------------------------------------------------------


@pytest.mark.parametrize(("stated", "done"), [
    ("I need to renew my car registration by the end of next month.", "Registration's done, did it online."),
    ("Submit the expense report by Friday.", "ok the expense report is submitted"),
    ("I have to renew my licence plate sticker by the 30th.", "Sticker's sorted."),
    ("The deadline for the FAFSA is June 30.", "We filed the FAFSA today."),
    ("need to send in the rebate form by the 20th", "I sent in the rebate form yesterday."),
])
def test_a_deadline_said_to_be_met_has_no_date_left(stated: str, done: str) -> None:
    facts = money(("user", stated), ("user", done))
    deadlines = [(key, fields) for kind, key, fields in facts if kind == "deadline"]
    assert len(deadlines) == 2 and deadlines[0][0] == deadlines[1][0]
    assert deadlines[0][1]["due_date"] and deadlines[1][1]["due_date"] is None


@pytest.mark.parametrize("done", [
    "Registration's not done yet.", "Is the registration done?", "The report is almost done.",
    "My homework is done.",
])
def test_a_deadline_not_met_or_another_thing_done_keeps_its_date(done: str) -> None:
    facts = money(("user", "I need to renew my car registration by the end of next month."),
                  ("user", "Submit the expense report by Friday."), ("user", done))
    assert all(fields["due_date"] for kind, _, fields in facts if kind == "deadline")


@pytest.mark.parametrize(("sentence", "end"), [
    ("Signed up for the Audible free trial, trial ends 12/04.", None),  # day first, read as a past December
    ("My Peacock trial ends on 05/20, then $7.99 a month.", "2025-05-20"),
    ("Free trial of Babbel until June 3rd.", "2025-06-03"),
    ("The Hulu free trial ends 04/30/2026.", "2026-04-30"),  # a year said: as said
])
def test_a_trial_end_before_the_session_without_a_year_is_not_kept(sentence: str, end: str | None) -> None:
    subs = [fields for kind, _, fields in money(("user", sentence)) if kind == "subscription"]
    assert [s.get("promo_end_date") for s in subs] == [end]


@pytest.mark.parametrize(("turns", "items"), [
    ((("user", "For my records: Samsung French-door fridge, bought 10 May 2025, one-year Samsung warranty."),),
     {"Samsung French-door fridge"}),
    ((("user", "Breville espresso machine, bought on May 1, 2025 - 2 year warranty."),), {"Breville espresso machine"}),
    ((("user", "got a Bosch washer and an LG dryer today, both 1 year warranty"),
      ("assistant", "Noted: Bosch washer and LG dryer bought May 2, 2025, each with a 1-year warranty.")),
     {"Bosch washer", "LG dryer"}),
    ((("user", "Recorded: Dell XPS 14, purchased March 3, 2025, with Dell's one-year warranty."),), {None}),
])
def test_an_item_named_before_bought_is_one_thing_with_what_it_is(turns: tuple[tuple[str, str], ...],
                                                                   items: set[str | None]) -> None:
    assert {fields.get("item") for _, _, fields in documents(*turns)} <= items | {None}
    assert {fields.get("item") for _, _, fields in documents(*turns)} & items


@pytest.mark.parametrize(("text", "payee", "amount", "due"), [
    ("Verizon\nAmount due: $92.10\nDue date: 05/20/2025", "Verizon", 92.1, "2025-05-20"),
    ("City of Austin Utilities - Statement\nTotal amount due: $143.77\nPayment due date: 05/28/2025",
     "City of Austin Utilities", 143.77, "2025-05-28"),
    ("Hydro One bill\nBalance due: $88.40\nPay by: May 30, 2025", "Hydro One", 88.4, "2025-05-30"),
    ("here's the Spectrum one\nAmount Due: $64.20\nDue Date: 05/19/2025", "Spectrum", 64.2, "2025-05-19"),
    ("Anglian Water statement\nAmount due: $51.00\nDue by: 06/01/2025", "Anglian Water", 51.0, "2025-06-01"),
])
def test_statement_lines_under_a_heading_are_the_billers(text: str, payee: str, amount: float, due: str) -> None:
    bills = [fields for kind, _, fields in money(("user", text)) if kind == "bill"]
    assert {b["payee"] for b in bills} == {payee}
    assert amount in [b.get("amount_usd") for b in bills] and due in [b.get("due_date") for b in bills]


@pytest.mark.parametrize("text", [
    "Your monthly statement\nAmount due: $40.00",
    "The new bill is confusing.\nAmount due: $40.00",
    "Amount due: $40.00",
])
def test_statement_lines_without_a_biller_name_no_payee(text: str) -> None:
    assert [f for f in money(("user", text)) if f[0] == "bill"] == []


def test_a_cards_statement_heading_is_no_biller() -> None:
    facts = money(("user", "Put the fridge on my Chase Spark card, $900."),
                  ("user", "Spark statement in:\nPayment due date: 05/25/2025"))
    assert not [f for f in facts if f[0] == "bill" and f[2]["payee"] == "Spark"]

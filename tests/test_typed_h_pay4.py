"""Payment families found by helper h-pay4's cold file (round 4), each tested with phrasings
that are not in conversations_h-pay4.json, and what must NOT be read:

- messages pasted from someone else (`factlog.typed.payment_forms.pasted_voice`): chat lines
  "[6:02 PM] Name: ...", "Name: ..." of a person the session named, a quoted text after "my
  husband texted me this:", a list after "Instructions from X:" are that person's;
- payees: a list line opening with the payee, whoever did the invoiced work, "X wants Y paid",
  a loan's lender, a relative paid by name, a known payee typed in lower case after a pay verb;
- accounts: the user's own word for an account ("the rental account", "the club's checking"),
  the bank said after it ("the Chase one ending 7730", "(First Citizens ...2206)"), a card
  paid "on" is paid from, an account corrected in the sentence;
- postponements ("push the X payment to the 20th", "next wed") keep the instruction;
- someone else's payment reported ("my brother Sam says he paid ... on his Visa"), with
  that person's subject and account;
- amounts: "an extra five hundred", "950 monthly".
"""

from __future__ import annotations

from datetime import datetime

import pytest
from typed_sessions import Fact, merged, per_session

from factlog.model import JsonValue

TS = datetime(2026, 3, 9, 9, 0)  # a Monday


def sessions(*turns_by_session: tuple[datetime, list[tuple[str, str]]]) -> list[list[Fact]]:
    """Each session's payment and account facts."""
    return per_session(("payment", "account"), *turns_by_session)


def payments(*user_turns: str, ts: datetime = TS) -> list[dict[str, JsonValue]]:
    [facts] = sessions((ts, [("user", text) for text in user_turns]))
    return list(merged(facts).values())


def only(*user_turns: str, ts: datetime = TS) -> dict[str, JsonValue]:
    found = payments(*user_turns, ts=ts)
    assert len(found) == 1, found
    return found[0]


# --- messages pasted from someone else ------------------------------------------------------


@pytest.mark.parametrize(("turns", "writer"), [
    (("[9:14 AM] Priya: paid the electrician $450 this morning, invoice 3301",), "Priya"),
    (("My brother Tomas sent me these:", "Tomas: sent Lakeview Rentals the $900 deposit today"), "Tomas"),
    (("my husband just texted me this:", '"I already paid the plumber $300 for invoice 88 from my account"'),
     "husband"),
    (("Got this from Kemi:", "[21:02] Kemi: paid Apex Movers $1,250 for invoice AM-77 just now"), "Kemi"),
    (("Pasting Dana's texts:", "[7:45 PM] Dana: I covered the vet, $212, inv 4410"), "Dana"),
])
def test_a_pasted_line_is_its_writers_payment(turns: tuple[str, ...], writer: str) -> None:
    [payment] = [p for p in payments(*turns) if p.get("status") == "done"]
    assert payment["requested_by"] == writer


@pytest.mark.parametrize("turns", [
    ("Note: pay the plumber $300 on Friday, invoice 88",),  # a label, not a writer
    ("Me: paid the plumber $300 for invoice 88",),  # the user's own line
    ("Dana: pay the plumber $300 on Friday, invoice 88",),  # Dana never named, no time stamp
    ("Reminder: $300 to the plumber Friday for invoice 88",),
    ("Update: paid the plumber $300 for invoice 88",),
])
def test_a_line_with_a_label_is_the_users(turns: tuple[str, ...]) -> None:
    for payment in payments(*turns):
        assert payment.get("requested_by") in (None, "user")


@pytest.mark.parametrize(("intro", "line", "who"), [
    ("Instructions from the owner, Mr. Delgado, for this week:", "Coastal Produce, inv CP-88, $815 - pay Tuesday",
     "Mr. Delgado"),
    ("Instructions from Ms. Reyes:", "Brightside Cleaning - invoice 2231 - $180", "Ms. Reyes"),
    ("Orders from the director, Anil Kapoor, for Friday:", "Metro Print, invoice MP-12, $96.50", "Anil Kapoor"),
    ("Instructions from our treasurer, Joan:", "Hall rental - invoice 4102 - $250", "Joan"),
    ("Requests from Linda for the bake sale:", "Sweet Supply Co, inv 5521, $64", "Linda"),
])
def test_a_list_after_instructions_from_someone_is_theirs(intro: str, line: str, who: str) -> None:
    assert only(intro, line)["requested_by"] == who


def test_the_users_own_line_after_a_list_ends_it() -> None:
    found = payments("Instructions from Ms. Reyes:", "Brightside Cleaning - invoice 2231 - $180",
                     "Can you also pay Metro Print $96 for invoice 12 from my checking?")
    assert all(p.get("requested_by") != "Ms. Reyes" for p in found if p.get("payee") == "Metro Print")


# --- payees ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "payee"), [
    ("Cascade Plumbing, inv 8812, $640 - pay it Friday", "Cascade Plumbing"),
    ("Brightside Cleaning - invoice 2231 - $180", "Brightside Cleaning"),
    ("Valley Roofing fixed the leak on Monday - invoice 771, $950.", "Valley Roofing"),
    ("Dad wants Northside Auto paid by Friday, $1,200 for invoice NA-3.", "Northside Auto"),
    ("Just paid the Toyota loan, $340 from checking, conf 5521.", "Toyota"),
    ("made the car loan payment today, $289, confirmation 77120", "car loan"),
    ("send my niece Priya $200 on Saturday", "Priya"),
    ("i want to send my grandson eli three hundred dollars on friday", "Eli"),
])
def test_payee_forms(text: str, payee: str) -> None:
    assert only(text)["payee"] == payee


@pytest.mark.parametrize("text", [
    "Marked as paid: $1,250 rent to your landlord, October 1.",
    "Mr. Park emailed me himself: please pay Coastal Produce invoice CP-4410, $815.60, on Tuesday.",
    "Priya Shah, the co-owner, says to pay Harbor Linen $1,240 on HL-3391.",
])
def test_a_name_that_only_speaks_is_not_paid(text: str) -> None:
    for payment in payments(text):
        assert payment["payee"] not in ("Marked", "Mr. Park", "Priya Shah")


@pytest.mark.parametrize("text", [
    "If I paid off the Honda loan from savings, would I save much interest?",
    "We might pay off the car loan early next year.",
    "Should I pay the student loan from savings?",
    "I sent an email to the plumber about invoice 88.",
    "My wife thinks we should maybe pay the roofer $3,000 next month.",
])
def test_no_payment_in_questions_and_hypotheticals(text: str) -> None:
    assert payments(text) == []


# --- accounts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "account"), [
    ("Pay Acme Glass $400 on Friday, take it out of the house account, the Wells Fargo one ending 1188.",
     "Wells Fargo house 1188"),
    ("Pay Greenleaf $640 by March 2 from the club's checking account ending 4471.", "club checking 4471"),
    ("Pay Coastal Produce $815, inv CP-9, from Operating (Bendigo ...5521) on Tuesday.", "Bendigo operating 5521"),
    ("Pay Bella's Kitchen $300 for invoice 101 tomorrow from the league savings account ending 0099.",
     "league savings 0099"),
    ("Pay Cedar Creek $962.40 for invoice 7781 on Thursday, use the card ending 7613.", "card 7613"),
    ("pay the fence guy 2.5k fri from checking - no wait from savings", "savings"),
])
def test_the_account_paid_from(text: str, account: str) -> None:
    assert only(text)["from_account"] == account


@pytest.mark.parametrize("text", [
    "Noted: $962.40 to Cedar Creek Animal Hospital for invoice 77810, on the card ending 4411, Thursday.",
    "Noted: $120 to Bright Dental for invoice 90, using the Visa ending 2210, on Friday.",
])
def test_a_card_paid_on_is_not_paid_into(text: str) -> None:
    [facts] = sessions((TS, [("user", "ok"), ("assistant", text)]))
    [payment] = merged(facts).values()
    assert "to_account" not in payment


@pytest.mark.parametrize(("text", "account"), [
    ("Paying the plumber $300 from my wife's card tomorrow.", "wife's card"),
    ("Paid the roofer $2,000 from our joint checking today.", "joint checking"),
])
def test_an_owners_account_keeps_its_owner(text: str, account: str) -> None:
    assert only(text)["from_account"] == account


# --- postponements --------------------------------------------------------------------------------

MONDAY = datetime(2026, 6, 1, 18, 0)
THURSDAY = datetime(2026, 6, 4, 20, 0)


@pytest.mark.parametrize(("later", "day"), [
    ("Push the Hilltop payment back to the 20th.", "2026-06-20"),
    ("money's tight, bump the Hilltop payment to the 22nd", "2026-06-22"),
    ("Move the Hilltop payment to next wed, same account.", "2026-06-10"),
    ("postpone Hilltop's payment till the 19th please", "2026-06-19"),
    ("push hilltop's payment out to next fri, same amount", "2026-06-12"),
])
def test_a_postponement_moves_the_same_instruction(later: str, day: str) -> None:
    first, second = sessions((MONDAY, [("user", "Pay Hilltop Tree Service $600 on the 10th from checking.")]),
                             (THURSDAY, [("user", later)]))
    [(key, planned)] = merged(first).items()
    moved = merged(second)
    assert list(moved) == [key]  # the user's own change supersedes: one instruction
    assert moved[key]["scheduled_date"] == day


@pytest.mark.parametrize("text", [
    "push the couch to the wall by the 20th",
    "we moved to the 3rd floor last year",
    "bump the meeting to next wed",
])
def test_a_move_of_no_payment_is_no_payment(text: str) -> None:
    first, second = sessions((MONDAY, [("user", "Pay Hilltop Tree Service $600 on the 10th from checking.")]),
                             (THURSDAY, [("user", text)]))
    assert merged(second) == {}


# --- someone else's payment reported ----------------------------------------------------------------


@pytest.mark.parametrize(("text", "who", "subject", "account"), [
    ("ugh. my brother sam says he paid the roofer at pickup on his visa", "Sam", "brother", "brother's Visa"),
    ("My son Ari just told me he paid the plumber $300 this morning with his own card", "Ari", "son",
     "son's card"),
    ("my sister Leah says she paid the caterer yesterday from her checking", "Leah", "sister", "sister's checking"),
])
def test_a_relatives_own_payment(text: str, who: str, subject: str, account: str) -> None:
    payment = only(text)
    assert (payment["requested_by"], payment["subject"], payment["from_account"], payment["status"]) == \
        (who, subject, account, "done")


def test_a_lower_case_name_that_told_is_who_paid() -> None:
    first, second = sessions((MONDAY, [("user", "pay Mike the plumber $200 on Friday from checking")]),
                             (THURSDAY, [("user", "so jen just told me she already paid mike the 200 yesterday")]))
    [paid] = merged(second).values()
    assert (paid["requested_by"], paid["status"]) == ("Jen", "done")
    assert set(merged(second)) != set(merged(first))  # another payment, not the user's reported done


def test_who_only_says_it_was_paid_pays_nothing() -> None:
    first, second = sessions(
        (MONDAY, [("user", "Pay Brightline Print $640 for invoice 5521 on Wednesday.")]),
        (THURSDAY, [("user", "My bookkeeper Lena says invoice 5521 duplicates 5498, which was already paid in May.")]))
    assert all(p.get("status") != "done" for p in merged(second).values())


# --- amounts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "amount"), [
    ("I'm sending Pinnacle an extra five hundred toward the principal on Friday.", 500.0),
    ("send Dana an extra two hundred on Friday", 200.0),
    ("wire the builder an extra four hundred on Friday", 400.0),
    ("Set up the Little Oaks fees from joint checking, 950 monthly from the 1st.", 950.0),
    ("set up a standing order to Lakeview Rentals, 1150 a month from checking", 1150.0),
])
def test_amounts(text: str, amount: float) -> None:
    assert only(text)["amount_usd"] == amount


@pytest.mark.parametrize("text", [
    "Dee says the car's at 52k miles and needs the 60k service.",
    "I sent an email to three hundred people about the bake sale.",
    "The card ending 4411 expires next month.",
])
def test_numbers_that_are_not_money(text: str) -> None:
    assert all("amount_usd" not in p for p in payments(text))


# --- "pay it": the business the sentence before said is owed -----------------------------------------


@pytest.mark.parametrize(("owed", "then", "payee", "amount"), [
    ("Right, the roofers - Summit Roofing - have finished the back slope. $2,400 for the lot.",
     "I'll pay it Friday out of savings.", "Summit Roofing", 2400.0),
    ("The painters, Brush & Roll, finished the hallway. Invoice 3310, $880.", "Send it on the 12th from checking.",
     "Brush & Roll", 880.0),
    ("Okay so Hillside Electric fixed the panel yesterday, $650.", "I'll pay it tomorrow from joint checking.",
     "Hillside Electric", 650.0),
    ("Blue Ridge Movers delivered everything on Saturday - $1,150 all in.", "Pay it Monday please, from savings.",
     "Blue Ridge Movers", 1150.0),
    ("The gardener - Tom Walsh - did the hedges, $120.", "I'll zelle it tonight.", "Tom Walsh", 120.0),
])
def test_pay_it_after_an_amount_owed(owed: str, then: str, payee: str, amount: float) -> None:
    payment = only(owed, then)
    assert (payment["payee"], payment["amount_usd"], payment["requested_by"]) == (payee, amount, "user")


@pytest.mark.parametrize(("before", "then"), [
    ("Summit Roofing finished the back slope last spring.", "I'll pay it Friday out of savings."),  # no money owed
    ("The roofers did a great job, $2,400 well spent.", "Should I pay it from savings?"),  # a question
    ("Hillside Electric quoted $650 for the panel.", "We might pay it next month."),  # tentative
    ("My neighbour says Blue Ridge Movers charged her $1,150.", "I'd never pay that."),
])
def test_no_payment_without_an_instruction(before: str, then: str) -> None:
    assert all(p.get("payee") not in ("Summit Roofing", "Hillside Electric", "Blue Ridge Movers")
               or p.get("status") == "done" for p in payments(before, then))


# --- the assistant's recap opening with "Of course:" --------------------------------------------------


@pytest.mark.parametrize("recap", [
    "Of course: $2,480 to Harbor Linen Supply for invoice HL-3391 on Friday, April 10.",
    "Sure: $120 to Bright Dental on Friday from checking.",
    "Certainly - $640 to Greenleaf Nursery by March 2 from the club checking.",
    "Will do: $95 to Paws & Co on Monday.",
    "All set: $1,150 to Lakeview Rentals on the 1st.",
])
def test_a_recap_after_of_course_is_an_instruction(recap: str) -> None:
    [facts] = sessions((TS, [("user", "can you note a payment for me"), ("assistant", recap)]))
    assert len(merged(facts)) == 1


@pytest.mark.parametrize("advice", [
    "Of course! Giving $50 to a local charity is a lovely idea.",
    "Sure, a budget of $2,000 for the trip sounds reasonable.",
    "Certainly. Most plumbers charge $100 to $150 an hour.",
])
def test_advice_after_of_course_is_no_payment(advice: str) -> None:
    [facts] = sessions((TS, [("user", "what do you think?"), ("assistant", advice)]))
    assert merged(facts) == {}


# --- the user's own instruction after someone else paid (merge of rounds h-pay4 and h-people4) ----------


def _after_someone_paid(*turns: tuple[str, str]) -> dict[str, JsonValue]:
    """The state of the user's pending payment of session 1 after session 2's turns."""
    first, second = sessions(
        (TS, [("user", "Pay Oakfield Plumbing $640 from checking on Friday, invoice 5120.")]),
        (datetime(2026, 3, 11, 18, 0), [("user", "My wife paid Oakfield Plumbing the $640 this morning from her own "
                                                 "account."), *turns]))
    [key] = merged(first)
    return {**merged(first)[key], **merged(second).get(key, {})}


@pytest.mark.parametrize("turn", ["So cancel mine.", "ok cancel my payment then", "please stop my transfer"])
def test_cancel_mine_cancels_the_users_pending_payment(turn: str) -> None:
    assert _after_someone_paid(("user", turn))["status"] == "cancelled"


@pytest.mark.parametrize("turn", ["I'll cancel mine later.", "I need to cancel mine.", "I'm going to cancel my one",
                                  "I should stop my payment."])
def test_a_cancellation_the_user_means_to_make_is_not_made(turn: str) -> None:
    assert _after_someone_paid(("user", turn))["status"] == "pending"


@pytest.mark.parametrize("answer", ["I can't cancel it myself, but noted that you mean to.",
                                    "I'm unable to cancel payments from here; please do it in your banking app."])
def test_the_assistant_unable_to_cancel_leaves_it_pending(answer: str) -> None:
    assert _after_someone_paid(("user", "cancel mine"), ("assistant", answer))["status"] == "pending"


def test_whoever_paid_it_is_not_who_asked_to_cancel_the_users() -> None:
    [_, second] = sessions(
        (TS, [("user", "Pay Bright Minds $380 from checking on Friday, invoice BM-1.")]),
        (datetime(2026, 3, 11, 18, 0), [
            ("assistant", "Noted: your husband paid invoice BM-1 ($380) yesterday from his account; your BM-1 "
                          "payment is cancelled.")]))
    cancels = [fields for _, key, fields in second if fields.get("status") == "cancelled"]
    assert cancels and all(fields.get("requested_by") != "husband" for fields in cancels)

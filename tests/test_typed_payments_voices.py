"""Payment instructions in many voices (`factlog.typed.payments`, `factlog.typed.spoken`):
amounts said in words, dictation fillers, a parent's account, a relative's own payment,
an assistant's check-back the user confirms, bank-change notices pasted in, and sessions
that amend, pay or cancel an earlier session's instruction (one `RuleExtractor` across
sessions, as ingesting a user's transcripts does). Also what must NOT be read."""

from __future__ import annotations

from datetime import datetime

import pytest
from constraint_records import Payment, days_from, user_module
from typed_sessions import Fact, merged, per_session

from constraints import run_constraints
from constraints.builtin import conflicting_payments
from factlog.model import JsonValue
from factlog.typed.spoken import spoken_amounts, spoken_number


def sessions(*turns_by_session: tuple[datetime, list[tuple[str, str]]]) -> list[list[Fact]]:
    """Each session's payment and account facts."""
    return per_session(("payment", "account"), *turns_by_session)


def one(text: str, ts: datetime = datetime(2025, 3, 26, 7, 15)) -> list[dict[str, JsonValue]]:
    [facts] = sessions((ts, [("user", text)]))
    return list(merged(facts).values())


# --- amounts in words -------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [
    ("twelve hundred", 1200), ("fifteen fifty", 1550), ("two thousand five hundred", 2500),
    ("forty-five", 45), ("a thousand", 1000), ("nine hundred and fifty", 950), ("twelve oh five", 1205),
    ("three hundred", 300), ("twenty five hundred", 2500),
])
def test_spoken_numbers(text: str, value: int) -> None:
    assert spoken_number(text) == value


@pytest.mark.parametrize(("sentence", "expected"), [
    ("send the plumber twelve hundred dollars", [1200.0]),
    ("move twelve hundred from joint to my Chase", [1200.0]),
    ("the price went up, it's fifteen fifty now", [1550.0]),
    ("pay him two thousand five hundred on friday", [2500.0]),
    ("I owe her three grand", [3000.0]),
    ("it came to a grand and a half", [1500.0]),
    ("2 grand to the builder", [2000.0]),
    ("paying forty dollars for the lock", [40.0]),
    # counts, durations and distances are not money
    ("we drove twelve hundred miles", []),
    ("she does fifteen fifty-minute sessions", []),
    ("pay two people", []),
    ("it is two now", []),
    ("send the first one", []),
])
def test_spoken_amounts(sentence: str, expected: list[float]) -> None:
    assert spoken_amounts(sentence) == expected


# --- instructions in many voices --------------------------------------------------------------


@pytest.mark.parametrize(("ts", "sentence", "expected"), [
    (datetime(2025, 3, 26, 7, 15), "uh okay so remind me I need to send uh the plumber Dave Kowalski twelve hundred dollars from the joint "
     "account on the 3rd for the water heater",
     {"payee": "Dave Kowalski", "amount_usd": 1200.0, "from_account": "joint", "scheduled_date": "2025-04-03",
      "status": "pending", "requested_by": "user", "subject": "user"}),
    (datetime(2025, 2, 26, 7, 40), "landlord (Priya) wants the deposit top-up, $900, by 3/4. paying it from my Capital One savings",
     {"payee": "Priya", "amount_usd": 900.0, "requested_by": "Priya", "scheduled_date": "2025-03-04",
      "from_account": "Capital One savings", "status": "pending", "subject": "user"}),
    (datetime(2025, 10, 6, 10, 0), "Could you make a note that I have arranged for the balance of $3,250 to go to Thornbury Roofing on Tuesday "
     "14th October from our joint current account.",
     {"payee": "Thornbury Roofing", "amount_usd": 3250.0, "from_account": "joint current",
      "scheduled_date": "2025-10-14", "status": "pending", "requested_by": "user", "subject": "user"}),
    (datetime(2025, 4, 14, 9, 30), "Pay invoice 5521 from Brightline Print, $640, on Wednesday the 16th. Put it on the Amex.",
     {"payee": "Brightline Print", "amount_usd": 640.0, "reference": "5521", "from_account": "Amex",
      "scheduled_date": "2025-04-16", "status": "pending", "requested_by": "user", "subject": "user"}),
])
def test_instructions_in_many_voices(ts: datetime, sentence: str, expected: dict[str, JsonValue]) -> None:
    assert one(sentence, ts) == [expected]


@pytest.mark.parametrize(("sentence", "expected"), [
    ("please wire 4,500 to Acme from the business checking on Friday",
     {"payee": "Acme", "amount_usd": 4500.0, "from_account": "business checking", "scheduled_date": "2025-05-09"}),
    ("send Mark the $300 I owe him out of savings", {"payee": "Mark", "amount_usd": 300.0, "from_account": "savings"}),
    ("pay the contractor the second half, $2k, on the 1st",
     {"payee": "contractor", "amount_usd": 2000.0, "scheduled_date": "2025-06-01"}),
    ("my wife asked me to send her brother $250 on Monday from our joint account",
     {"payee": "wife's brother", "amount_usd": 250.0, "requested_by": "wife", "from_account": "joint"}),
    ("I need to transfer $1.2k to my landlord from my business account at Wells by the 10th",
     {"payee": "landlord", "amount_usd": 1200.0, "from_account": "Wells business", "scheduled_date": "2025-05-10"}),
    ("Our CFO emailed asking to change the vendor's bank details for the Acme payment to a new account ending 3321",
     {"payee": "Acme", "requested_by": "cfo", "to_account": "3321", "status": "pending"}),
    ("already paid the dentist $180 from the Amex yesterday",
     {"payee": "dentist", "from_account": "Amex", "scheduled_date": "2025-05-04", "status": "done"}),
    ("my brother paid his mechanic $600 yesterday",
     {"payee": "mechanic", "amount_usd": 600.0, "status": "done", "subject": "brother"}),
    ("My husband wants me to venmo the babysitter $120 tonight.",
     {"payee": "babysitter", "amount_usd": 120.0, "requested_by": "husband", "to_account": "Venmo"}),
    ("I already transferred the $2,000 deposit to the venue last week from savings.",
     {"payee": "venue", "amount_usd": 2000.0, "status": "done", "scheduled_date": "2025-04-28"}),
    ("Please schedule a $3,400 payment to Lakeside Dental from our HSA on May 3rd.",
     {"payee": "Lakeside Dental", "from_account": "HSA", "scheduled_date": "2025-05-03"}),
    ("Stop the $200 monthly transfer to my brother.", {"payee": "brother", "status": "cancelled"}),
    ("The landlord says the rent should now go to account ending 5521 at TD Bank.",
     {"payee": "landlord", "requested_by": "landlord", "to_account": "TD Bank 5521", "status": "pending"}),
    ("Paid the nanny four hundred cash this morning.",
     {"payee": "nanny", "amount_usd": 400.0, "status": "done", "scheduled_date": "2025-05-05"}),
    ("I talked to my brother and he'll pay the roofer $500 Friday",
     {"payee": "roofer", "amount_usd": 500.0, "requested_by": "brother", "scheduled_date": "2025-05-09"}),
    ("My accountant wants me to pay the county property tax, $3,215, by November 30 from savings.",
     {"payee": "county property tax", "requested_by": "accountant", "scheduled_date": "2025-11-30"}),
    ("Mom asked me to send Aunt Rita $400 for her birthday on Saturday, out of my savings.",
     {"payee": "Aunt Rita", "requested_by": "mom", "scheduled_date": "2025-05-10"}),
    ("Dad says don't send Rita anything", {"payee": "Rita", "requested_by": "dad", "status": "cancelled"}),
    ("i owe jake 60 for pizza, gonna venmo him tmrw",
     {"payee": "Jake", "amount_usd": 60.0, "to_account": "Venmo", "scheduled_date": "2025-05-06"}),
])
def test_instruction_families(sentence: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(sentence, datetime(2025, 5, 5, 9, 0))
    assert {name: payment.get(name) for name in expected} == expected
    assert "requested_by" not in payment if payment["subject"] != "user" else payment["requested_by"]


def test_a_parents_account_makes_the_payment_hers() -> None:
    [facts] = sessions((datetime(2025, 7, 8, 20, 30), [(
        "user", "Her carer, Joy, gets $560 a fortnight and I'll pay the next lot on Thursday out of Mum's Westpac "
                "account ending 3308.")]))
    [payment] = merged(facts).values()
    assert payment == {"payee": "Joy", "amount_usd": 560.0, "requested_by": "user", "from_account": "Westpac 3308",
                       "scheduled_date": "2025-07-10", "status": "pending", "subject": "mother"}
    [account] = merged(facts, "account").values()
    assert account == {"last4": "3308", "institution": "Westpac", "subject": "mother"}


def test_a_relatives_own_payment_keeps_its_subject_and_is_apart_from_the_users() -> None:
    [facts] = sessions((datetime(2025, 8, 22, 13, 0), [(
        "user", "My sister Hannah is paying her contractor $5k on the 1st from her savings, and I'm paying my own "
                "contractor, Tom Reyes, the second half, $2k, on the 1st out of my checking ending 0932.")]))
    payments = merged(facts)
    assert payments["contractor/2025-08-22T13:00"] == {
        "payee": "contractor", "amount_usd": 5000.0, "from_account": "savings", "scheduled_date": "2025-09-01",
        "status": "pending", "subject": "sister"}
    assert payments["tom reyes/2025-08-22T13:00"]["requested_by"] == "user"
    assert payments["tom reyes/2025-08-22T13:00"]["subject"] == "user"


@pytest.mark.parametrize("yes", ["yep", "Yes", "correct", "that's right"])
def test_a_check_back_the_user_confirms_is_the_instruction(yes: str) -> None:
    [facts] = sessions((datetime(2025, 6, 2, 19, 0), [
        ("user", "remind me to send Brian the landscaper his money friday"),
        ("assistant", "Just to confirm: $2,800 to Brian Fitch from your checking ending 7731 on Friday, June 6?"),
        ("user", yes)]))
    [payment] = merged(facts).values()
    assert payment["amount_usd"] == 2800.0 and payment["payee"] == "Brian Fitch"
    assert payment["from_account"] == "checking 7731" and payment["scheduled_date"] == "2025-06-06"


@pytest.mark.parametrize("answer", ["no wait, let me check with him first", "yes but not from that account",
                                    "yeah, actually hold off"])
def test_a_check_back_the_user_does_not_confirm_is_nothing(answer: str) -> None:
    [facts] = sessions((datetime(2025, 6, 2, 19, 0), [
        ("assistant", "Just to confirm: $2,800 to Brian Fitch from your checking ending 7731 on Friday, June 6?"),
        ("user", answer)]))
    assert [f for f in facts if f[0] == "payment"] == []


def test_a_pasted_bank_change_notice_names_the_new_account() -> None:
    [facts] = sessions((datetime(2025, 5, 12, 19, 5), [(
        "user", "Got this today, look ok?\n\n\"Hi, hope all is well. Please be advised that Hernandez Drywall has "
                "changed banks. Effective immediately, please remit all payments, including invoice HD-1042, to "
                "our new account:\nBank: Citibank\nAccount ending: 7702\nThanks,\nAna Hernandez\"")]))
    [payment] = merged(facts).values()
    assert payment["payee"] == "Hernandez Drywall" and payment["reference"] == "HD-1042"
    assert payment["to_account"] == "Citibank 7702" and payment["requested_by"] == "Hernandez Drywall"
    assert merged(facts, "account") == {}  # the payee's new account is not the user's


# --- across sessions ---------------------------------------------------------------------


def test_the_users_own_correction_a_session_later_supersedes() -> None:
    first, second = sessions(
        (datetime(2025, 6, 2, 19, 0), [("user", "Pay Brian Fitch $2,800 from checking ending 7731 on Friday.")]),
        (datetime(2025, 6, 4, 8, 15), [("user", "actually make Brian's payment 3,200, he did the back hedges too. "
                                                "same account same day")]))
    [(key, _)] = merged(first).items()
    assert merged(second) == {key: {"payee": "Brian Fitch", "amount_usd": 3200.0, "requested_by": "user",
                                    "from_account": "checking 7731", "scheduled_date": "2025-06-06",
                                    "status": "pending", "subject": "user"}}


def test_someone_elses_change_a_session_later_is_a_new_instruction() -> None:
    first, second = sessions(
        (datetime(2025, 3, 26, 7, 15), [("user", "send the plumber Dave Kowalski twelve hundred dollars from the "
                                                 "joint account on the 3rd")]),
        (datetime(2025, 3, 31, 18, 40), [("user", "my wife talked to Dave today and uh she says the price went up "
                                                  "its fifteen fifty now and she wants it to come out of savings")]))
    [(key, _)] = merged(first).items()
    [(other, fields)] = merged(second).items()
    assert other != key
    assert fields == {"payee": "Dave Kowalski", "amount_usd": 1550.0, "requested_by": "wife",
                      "from_account": "savings", "status": "pending", "subject": "user"}  # "today" is the talk's


def test_the_users_report_of_paying_as_planned_is_that_payment_done() -> None:
    first, second = sessions(
        (datetime(2025, 8, 22, 13, 0), [("user", "I'm paying my contractor, Tom Reyes, $2k on the 1st from checking.")]),
        (datetime(2025, 8, 29, 16, 30), [("user", "Tom finished early so I paid him the $2k today from checking. "
                                                  "Also sending Tom a separate $450 for the light fixtures on Monday.")]))
    [(key, _)] = merged(first).items()
    later = merged(second)
    assert later[key]["status"] == "done" and later[key]["scheduled_date"] == "2025-08-29"
    [extra] = [fields for k, fields in later.items() if k != key]
    assert (extra["amount_usd"], extra["status"], extra["scheduled_date"]) == (450.0, "pending", "2025-09-01")


def test_cancel_that_transfer_is_the_earlier_sessions() -> None:
    first, second = sessions(
        (datetime(2025, 11, 3, 12, 0), [("user", "move twelve hundred from joint to my Chase on the 10th")]),
        (datetime(2025, 11, 6, 21, 30), [("user", "cancel that transfer from joint, don't need it after all. might "
                                                  "think about moving some into a CD later, not now")]))
    assert list(merged(first).values()) == [{"payee": "Chase", "amount_usd": 1200.0, "requested_by": "user",
                                             "from_account": "joint", "to_account": "Chase",
                                             "scheduled_date": "2025-11-10", "status": "pending", "subject": "user"}]
    assert list(merged(second).values()) == [{"payee": "Chase", "requested_by": "user", "from_account": "joint",
                                              "status": "cancelled", "subject": "user"}]


@pytest.mark.parametrize(("later", "expected"), [
    ("actually make it 3,200", {"amount_usd": 3200.0, "scheduled_date": "2025-05-09", "status": "pending"}),
    ("Change of plan, pay Acme on the 20th instead", {"scheduled_date": "2025-05-20", "status": "pending"}),
])
def test_a_later_correction_without_a_name_is_the_users_last_instruction(
        later: str, expected: dict[str, JsonValue]) -> None:
    first, second = sessions(
        (datetime(2025, 5, 5, 9, 0), [("user", "Pay Acme Supply $4,500 on Friday from checking ending 4417.")]),
        (datetime(2025, 5, 7, 9, 0), [("user", later)]))
    [(key, _)] = merged(first).items()
    [(again, fields)] = merged(second).items()
    assert again == key and {name: fields.get(name) for name in expected} == expected


@pytest.mark.parametrize(("later", "who"), [
    ("don't pay that invoice, it's a duplicate", "user"),
    ("My boss says to hold the Acme payment until Monday", "boss"),
])
def test_a_later_stop_names_who_asked(later: str, who: str) -> None:
    _, second = sessions(
        (datetime(2025, 5, 5, 9, 0), [("user", "Pay Acme Supply $4,500 on Friday from checking ending 4417.")]),
        (datetime(2025, 5, 7, 9, 0), [("user", later)]))
    [fields] = merged(second).values()
    assert (fields["payee"], fields["status"], fields["requested_by"]) == ("Acme Supply", "cancelled", who)


def test_someone_else_already_paid_by_card_is_their_card() -> None:
    [facts] = sessions((datetime(2025, 10, 9, 17, 20), [
        ("user", "My partner informs me that she settled Thornbury's invoice in full yesterday, by card."),
        ("assistant", "Yes: your partner paid Thornbury Roofing yesterday, and the $3,250 from the joint current "
                      "account is still due to go on October 14, which would pay them twice unless you cancel it.")]))
    # the assistant's recap names the payee in full; a payment another person made from their own
    # card is theirs (the convention of conversations_blind2.json and h-pay3; round 4, h-pay4)
    assert list(merged(facts).values()) == [{"payee": "Thornbury Roofing", "requested_by": "partner",
                                             "from_account": "partner's card", "scheduled_date": "2025-10-08",
                                             "status": "done", "subject": "partner"}]


# --- what must NOT be read ---------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "Is a 4K TV worth it at 55 inches, or is 1080p fine from 9 feet?",
    "the car is due for its 30K service",
    "do I need a savings account at Ally to get their rate? I don't have one.",
    "might think about moving some into a CD later, not now",
    "we drove twelve hundred miles to see her",
    "I gather the arrangement for the 14th would therefore pay them twice.",
    "thinking about sending Mark $300 from savings",
    "should I pay the contractor $2k now?",
    "my sister paid me back $200 yesterday",
    "what if I moved twelve hundred to savings",
    "if the invoice is right I'll pay Acme $4,500 Friday",
    "the 4K monitor was $400 at Best Buy",
    "I make twelve hundred a week",
    "Mum's account is with Westpac",
    "The dentist wants $200 for the crown.",
    "My son wants the new iPhone, $999.",
])
def test_no_instruction(sentence: str) -> None:
    assert one(sentence) == []


# --- the constraint --------------------------------------------------------------------------

NOW = datetime(2025, 4, 15, 16, 0)
day = days_from(NOW.date())


def test_someone_else_stopping_the_users_own_payment_conflicts() -> None:
    mine = Payment(payee="Brightline Print", amount_usd=640.0, reference="5521", requested_by="user",
                   scheduled_date=day(1), status="pending", fact_ids=[1])
    stop = Payment(payee="Brightline Print", reference="5521", requested_by="Lena", status="cancelled", fact_ids=[2])
    [alert] = run_constraints(user_module(payments=[mine, stop]), NOW, [conflicting_payments]).alerts
    assert alert.message == ("payment instructions for Brightline Print conflict: Lena asked to cancel the payment "
                             "you asked for (5521 $640.00 2025-04-16)")
    own = Payment(payee="Brightline Print", requested_by="user", status="cancelled", fact_ids=[3])
    assert run_constraints(user_module(payments=[mine, own]), NOW, [conflicting_payments]).alerts == ()


def test_a_title_does_not_make_another_payee() -> None:
    gift = Payment(payee="Aunt Rita", amount_usd=400.0, requested_by="mom", status="pending", fact_ids=[1])
    stop = Payment(payee="Rita", requested_by="dad", status="cancelled", fact_ids=[2])
    [alert] = run_constraints(user_module(payments=[gift, stop]), NOW, [conflicting_payments]).alerts
    assert alert.message.startswith("payment instructions for Aunt Rita conflict: dad asked to cancel")
    other = Payment(payee="Uncle Rob", requested_by="dad", status="cancelled", fact_ids=[3])
    assert run_constraints(user_module(payments=[gift, other]), NOW, [conflicting_payments]).alerts == ()


def test_a_changed_date_and_a_new_account_conflict() -> None:
    planned = Payment(payee="Priya", amount_usd=900.0, requested_by="Priya", from_account="Capital One savings",
                      scheduled_date=day(4), status="pending", fact_ids=[1])
    moved = Payment(payee="Priya", requested_by="Priya", to_account="BMO 5519", scheduled_date=day(3),
                    status="pending", fact_ids=[2])
    [alert] = run_constraints(user_module(payments=[planned, moved]), NOW, [conflicting_payments]).alerts
    assert alert.message == ("2 pending payments to Priya disagree: dates 2025-04-18 vs 2025-04-19; only Priya "
                             "names the to account BMO 5519")
    restated = Payment(payee="Priya", amount_usd=900.0, requested_by="Priya", scheduled_date=day(4),
                       status="pending", fact_ids=[3])
    assert run_constraints(user_module(payments=[planned, restated]), NOW, [conflicting_payments]).alerts == ()

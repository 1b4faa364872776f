"""Payment families found by a cold round (h-pay3), each with phrasings in other voices and
orders than the eval file's, and what must NOT be read: a recap or check-back ("$900 to Dana
from savings"), a number without "$" after a pay verb and its person, who asked ("would like
... paid", "went and sent", an interjection is no one), a stop under a condition, corrections
in one breath ("no wait, 1.8k"), a transfer to one's own account beside another payee, a
report followed by "so don't pay it", rent paid to the landlord, "do it the 1st", a bank-change
notice without the payee's name and its IBAN line, accounts named many ways."""

from __future__ import annotations

from datetime import datetime

import pytest
from constraint_records import Payment, days_from, user_module
from test_typed_payments_voices import merged, one, sessions

from constraints import run_constraints
from constraints.builtin import conflicting_payments as rule
from factlog.model import JsonValue
from factlog.typed.stance import is_question

NOW = datetime(2026, 4, 6, 10, 0)  # a Monday


def _subset(fields: dict[str, JsonValue], expected: dict[str, JsonValue]) -> dict[str, JsonValue]:
    return {name: fields.get(name) for name in expected}


# --- a recap or check-back of an instruction ------------------------------------------------


@pytest.mark.parametrize(("question", "expected"), [
    ("So that's $450 to Marta from checking on Friday, April 10, right?",
     {"payee": "Marta", "amount_usd": 450.0, "from_account": "checking", "scheduled_date": "2026-04-10"}),
    ("Just to confirm: $1,200 to your contractor from savings on the 15th?",
     {"payee": "contractor", "amount_usd": 1200.0, "from_account": "savings", "scheduled_date": "2026-04-15"}),
    ("So that's $95 to the babysitter from joint on Saturday?",
     {"payee": "babysitter", "amount_usd": 95.0, "scheduled_date": "2026-04-11"}),
    ("To confirm, $2,000 to Okafor Builders from the business account ending 2231 on April 20?",
     {"payee": "Okafor Builders", "amount_usd": 2000.0, "from_account": "business 2231",
      "scheduled_date": "2026-04-20"}),
    ("That's $60 to Priya from savings tomorrow, correct?",
     {"payee": "Priya", "amount_usd": 60.0, "from_account": "savings", "scheduled_date": "2026-04-07"}),
])
def test_a_confirmed_check_back_is_the_instruction(question: str, expected: dict[str, JsonValue]) -> None:
    [facts] = sessions((NOW, [("user", "I need to pay someone this week"), ("assistant", question), ("user", "yep")]))
    [payment] = merged(facts).values()
    assert _subset(payment, expected) == expected and payment["status"] == "pending"


@pytest.mark.parametrize("answer", ["no, the 20th", "not yet", "hmm, let me think", "yes but from checking instead"])
def test_a_check_back_not_confirmed_states_nothing_new(answer: str) -> None:
    [facts] = sessions((NOW, [("assistant", "So that's $450 to Marta from savings on Friday, right?"),
                              ("user", answer)]))
    assert not [f for f in merged(facts).values() if f.get("amount_usd") == 450.0 and f.get("from_account") ==
                "savings" and f.get("scheduled_date") == "2026-04-10"]


@pytest.mark.parametrize(("text", "expected"), [
    ("Noted: $1,250 to Tomasz, your roofer, on Thursday.", {"payee": "Tomasz", "amount_usd": 1250.0}),
    ("Recorded: $300 to Lee from savings on April 9.", {"payee": "Lee", "amount_usd": 300.0,
                                                        "scheduled_date": "2026-04-09"}),
    ("$75 to Jo from my Tangerine savings tomorrow", {"payee": "Jo", "from_account": "Tangerine savings"}),
    ("$2,150 to Mr. Kowalski on the 1st from our TD joint chequing ending 5521",
     {"payee": "Mr. Kowalski", "from_account": "TD joint chequing 5521", "scheduled_date": "2026-05-01"}),
    ("$40 to Sam from checking", {"payee": "Sam", "from_account": "checking"}),
])
def test_an_amount_to_a_payee_is_an_instruction_and_from_names_the_account(
        text: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(text, NOW)
    assert _subset(payment, expected) == expected


# --- a number without "$" after a pay verb and its person ------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("paid sam back the 35 for lunch", {"payee": "Sam", "amount_usd": 35.0, "status": "done"}),
    ("zelle mike 200 for the tickets", {"payee": "Mike", "amount_usd": 200.0}),
    ("sent my brother 250 last night", {"payee": "brother", "amount_usd": 250.0, "status": "done"}),
    ("I'll pay Tom 300 on the 5th", {"payee": "Tom", "amount_usd": 300.0, "scheduled_date": "2026-05-05"}),
    ("transfer 500 from business checking to my personal savings friday",
     {"amount_usd": 500.0, "from_account": "business checking", "to_account": "personal savings"}),
    ("venmo'd ana 45 for the cake", {"payee": "Ana", "amount_usd": 45.0}),
])
def test_a_bare_number_after_a_pay_verb_is_money(text: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(text, NOW)
    assert _subset(payment, expected) == expected


@pytest.mark.parametrize("text", [
    "pay invoice 2207 on Friday", "pay the plumber on the 15", "I sent 3 invoices to the client",
    "paid 2 of the bills already", "send it by 10 am", "pay the painter at 4",
])
def test_a_number_that_is_no_amount_is_not_money(text: str) -> None:
    assert all("amount_usd" not in payment for payment in one(text, NOW))


# --- who asked -------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "who"), [
    ("Ms Achterberg would like the Delmar Tiles invoice, $3,400, paid on the 9th.", "Ms Achterberg"),
    ("Dr Mensah would like $2,000 sent to the clinic on Monday.", "Dr Mensah"),
    ("My boss would like the Acme invoice, $3,000, paid by Friday.", "boss"),
    ("my wife just went ahead and paid the plumber $300", "wife"),
    ("My husband went and sent Mr. Kowalski $2,150 this morning.", "husband"),
    ("Yeah I paid Dana $900 yesterday.", "user"),
    ("Ya I sent the $150 extra to my mother yesterday.", "user"),
    ("Yep I transferred $200 to Jess today", "user"),
])
def test_who_asked(text: str, who: str) -> None:
    [payment] = one(text, NOW)
    assert payment["requested_by"] == who


@pytest.mark.parametrize(("text", "who"), [
    ("my wife talked to Dave and she says send him $300 friday", "wife"),
    ("my husband called, he says pay the plumber $200 today", "husband"),
])
def test_a_pronoun_stands_for_one_of_its_sex(text: str, who: str) -> None:
    [payment] = one(text, NOW)
    assert payment["requested_by"] == who


def test_he_is_not_the_wife_named_before_him() -> None:
    [payment] = one("the roofer, a lad called Tomasz, his dad knew my wife - he wants $1,250, I'll send him it "
                    "Thursday", NOW)
    assert payment.get("requested_by") != "wife" and payment["payee"] == "Tomasz"


# --- a stop under a condition ----------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("Pay Tom $300 on Friday unless Anna doesn't cancel it.", {"payee": "Tom", "status": "pending"}),
    ("Send Lee $80 tomorrow, in case she can't cancel the old one.", {"payee": "Lee", "status": "pending"}),
    ("Wire Kestrel Ltd $9,000 on the 14th, unless you can't cancel the old one.", {"payee": "Kestrel Ltd",
                                                                              "status": "pending"}),
])
def test_a_conditional_stop_leaves_the_instruction(text: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(text, NOW)
    assert _subset(payment, expected) == expected


@pytest.mark.parametrize("text", [
    "We'll be paying May twice on Friday if we don't stop it, eh.",
    "If you can't stop the wire, call me.",
    "we'd be paying the nanny double this week unless someone cancels",
])
def test_a_consequence_or_a_condition_instructs_nothing(text: str) -> None:
    assert one(text, NOW) == []


# --- corrections in one breath, and a second instruction beside the first --------------------


def test_corrections_in_a_row_leave_the_last_values() -> None:
    [payment] = one("pay Linden Seeds 2k on Tuesday from the business account. no wait, 2.4k. actually make it "
                    "Wednesday. and from the Chase business checking, not the Amex.", NOW)
    assert _subset(payment, {"amount_usd": 2400.0, "scheduled_date": "2026-04-08",
                             "from_account": "Chase business checking"}) == \
        {"amount_usd": 2400.0, "scheduled_date": "2026-04-08", "from_account": "Chase business checking"}


@pytest.mark.parametrize("second", [
    "and move 300 from business checking to my personal savings on Friday",
    "also transfer 300 to my joint savings friday",
])
def test_a_transfer_to_ones_own_account_is_another_instruction(second: str) -> None:
    payments = one(f"pay Linden Seeds $2,400 on Wednesday. {second}", NOW)
    assert [p.get("amount_usd") for p in payments] == [2400.0, 300.0]
    assert payments[0]["payee"] == "Linden Seeds"


@pytest.mark.parametrize("text", ["ok do it friday", "do it the 10th", "fine, send it on Friday"])
def test_do_it_dates_the_sessions_payment(text: str) -> None:
    [payment] = one(f"I'll pay Sam $40 for the tickets. {text}", NOW)
    assert payment["scheduled_date"] in ("2026-04-10",)


@pytest.mark.parametrize(("text", "asks"), [("Do it Friday", False), ("do them both tomorrow", False),
                                            ("Do I need to pay it?", True), ("Do they take Zelle", True)])
def test_do_it_is_an_imperative(text: str, asks: bool) -> None:
    assert is_question(text) is asks


# --- a report, then a stop ------------------------------------------------------------------


@pytest.mark.parametrize(("report", "who"), [
    ("my accountant Rhonda rang. she says the Linden invoice LS-88 was paid in March, so DON'T pay it Wednesday.",
     "Rhonda"),
    ("The bookkeeper, Imran, says Linden was already paid last month, so do not pay them.", "Imran"),
    ("My husband says he covered Linden on Friday, so don't send it.", "husband"),
])
def test_so_dont_pay_it_stops_the_earlier_instruction(report: str, who: str) -> None:
    first, second = sessions((NOW, [("user", "Pay Linden Seeds $2,400 on Wednesday from checking.")]),
                             (datetime(2026, 4, 7, 9, 0), [("user", report)]))
    stops = [f for f in merged(second).values() if f.get("status") == "cancelled"]
    assert [(s["payee"], s.get("requested_by")) for s in stops] == [("Linden Seeds", who)]


# --- rent paid to the landlord ----------------------------------------------------------------


def test_rent_is_the_landlords_when_a_landlord_is_spoken_of() -> None:
    first, second = sessions((NOW, [("user", "pay the landlord $1,875 on the 1st from checking 4471")]),
                             (datetime(2026, 4, 8, 9, 0), [("user", "landlord texted"),
                                                          ("user", "says send may rent to his son's account now")]))
    [payment] = merged(second).values()
    assert payment["payee"] == "landlord"


@pytest.mark.parametrize("text", ["paid the rent today, $1,875", "rent's $2,000 from the 1st, I'll pay it Friday"])
def test_rent_with_no_landlord_anywhere_stays_rent(text: str) -> None:
    [payment] = one(text, NOW)
    assert payment["payee"] == "rent"


# --- a bank-change notice without the payee's name --------------------------------------------


@pytest.mark.parametrize("changed", [
    "Dear customer, please note our banking details have been updated.",
    "Subject: Change of bank details",
    "Kindly note our new remittance details below.",
])
def test_a_notice_without_a_name_is_the_earlier_payees(changed: str) -> None:
    first, second = sessions(
        (NOW, [("user", "Pay Kestrel Ltd $9,000 for invoice K-77 on the 14th from operating 4821.")]),
        (datetime(2026, 4, 8, 9, 0), [("user", f"Got this email from Kestrel's accounts team:\n{changed}\n"
                                               "Please remit invoice K-77 to our new account:\nBank: Monzo\n"
                                               "IBAN: GB33 MONZ 0400 0412 3456 78")]))
    payments = [f for f in merged(second).values() if f.get("to_account")]
    assert [(p["payee"], p["to_account"]) for p in payments] == [("Kestrel Ltd", "Monzo 5678")]


def test_an_iban_with_no_notice_is_no_payment() -> None:
    [facts] = sessions((NOW, [("user", "My IBAN: GB33 MONZ 0400 0412 3456 78")]))
    assert merged(facts) == {}


# --- accounts named many ways -------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("Pay the caterer $400 from my RBC chequing on Friday.", {"institution": "RBC", "kind": "chequing"}),
    ("pay Sam $300 from the business account ending 8830", {"kind": "business", "last4": "8830"}),
    ("send $80 to Jo from my savings at Summit Credit Union", {"institution": "Summit Credit Union",
                                                               "kind": "savings"}),
    ("and from the Chase business checking, not the Amex.", {"institution": "Chase", "kind": "business checking"}),
    ("$2,150 comes out of our TD joint chequing ending 5521", {"institution": "TD", "last4": "5521"}),
])
def test_accounts(text: str, expected: dict[str, JsonValue]) -> None:
    [facts] = sessions((NOW, [("user", text)]))
    accounts = list(merged(facts, "account").values())
    assert [_subset(a, expected) for a in accounts] == [expected]


# --- a payment pasted as "Field: value" lines ----------------------------------------------------


@pytest.mark.parametrize(("lines", "expected"), [
    ("Payment confirmation\nPayee: Harlow Plumbing\nAmount: $640.00\nFrom: Chase Total Checking ****2231\n"
     "Deliver by: 04/17/2026\nConfirmation #: HP-55012\nStatus: Scheduled",
     {"payee": "Harlow Plumbing", "amount_usd": 640.0, "from_account": "Chase checking 2231",
      "scheduled_date": "2026-04-17", "reference": "HP-55012", "status": "pending"}),
    ("Pay to: Ridgeway HOA\nPayment amount: 310.00 USD\nSend on: April 20, 2026\nMemo: Unit 4B",
     {"payee": "Ridgeway HOA", "amount_usd": 310.0, "scheduled_date": "2026-04-20"}),
    ("Recipient: Dana Whitcombe\nTransfer amount: $900\nPayment date: 2026-04-10\nStatus: Completed",
     {"payee": "Dana Whitcombe", "amount_usd": 900.0, "scheduled_date": "2026-04-10", "status": "done"}),
    ("Beneficiary: Kestrel Ltd\nAmount: $9,000.00\nReference: K-77\nStatus: Cancelled",
     {"payee": "Kestrel Ltd", "reference": "K-77", "status": "cancelled"}),
    ("Biller: City of Maplewood Water\nAmount due: $84.16\nFrom account: Everyday Checking x0417",
     {"payee": "City of Maplewood Water", "amount_usd": 84.16, "from_account": "checking 0417"}),
])
def test_a_pasted_form_is_one_payment(lines: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(f"Just file this:\n{lines}", NOW)
    assert _subset(payment, expected) == expected


def test_a_forms_account_is_the_users() -> None:
    [facts] = sessions((NOW, [("user", "Payee: Harlow Plumbing\nFrom: Chase Total Checking ****2231")]))
    assert list(merged(facts, "account").values()) == [
        {"last4": "2231", "institution": "Chase", "kind": "checking", "subject": "user"}]


@pytest.mark.parametrize("lines", [
    "From: billing@acme.com\nTo: me@example.com\nDate: April 3, 2026\nSubject: your order",
    "Amount: $40\nStatus: shipped",
    "Order status: delivered\nDelivery date: April 9",
    "Name: Ana Ruiz\nDate of birth: 04/02/1990",
])
def test_fields_with_no_payee_line_are_no_payment(lines: str) -> None:
    assert one(lines, NOW) == []


# --- a payment reported settled -------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("The $2,300 payment to Apex Electric cleared this morning.", {"payee": "Apex Electric", "amount_usd": 2300.0}),
    ("the wire to Pinnacle went through, ref PC-4410", {"payee": "Pinnacle", "reference": "PC-4410"}),
    ("My payment to Con Edison went through, confirmation CE-4431.", {"payee": "Con Edison",
                                                                      "reference": "CE-4431"}),
    ("the transfer to Dana has gone through", {"payee": "Dana"}),
    ("payment to Harlow Plumbing posted today", {"payee": "Harlow Plumbing", "scheduled_date": "2026-04-06"}),
])
def test_a_payment_reported_settled_is_done(text: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(text, NOW)
    assert _subset(payment, expected) == expected and payment["status"] == "done"


@pytest.mark.parametrize("text", [
    "The check to the roofer bounced.", "has the wire to Pinnacle gone through?",
    "I hope the payment to Dana goes through", "the new rug cleared the door by an inch",
])
def test_a_payment_not_reported_settled_is_not_done(text: str) -> None:
    assert all(payment.get("status") != "done" for payment in one(text, NOW))


def test_settling_the_earlier_instruction_is_that_payment_done() -> None:
    first, second = sessions((NOW, [("user", "Wire Pinnacle $18,500 for PC-4410 on Friday.")]),
                             (datetime(2026, 4, 10, 15, 0), [("user", "the wire to Pinnacle went through")]))
    [(key, _)] = merged(first).items()
    assert merged(second)[key]["status"] == "done"


# --- one person's own instructions to one payee ------------------------------------------------


def _alerts(*payments: object) -> list[str]:
    return [a.message for a in run_constraints(user_module(payments=list(payments)), NOW, [rule]).alerts]


day = days_from(NOW.date())


def test_a_standing_payment_and_a_one_off_extra_from_one_person_do_not_conflict() -> None:
    monthly = Payment(payee="mother", amount_usd=300.0, requested_by="user", from_account="checking",
                      scheduled_date=day(4), status="pending", fact_ids=[1])
    extra = Payment(payee="mother", amount_usd=150.0, requested_by="user", scheduled_date=day(2),
                    status="pending", fact_ids=[2])
    undated = Payment(payee="mother", amount_usd=80.0, status="pending", fact_ids=[3])
    assert _alerts(monthly, extra) == [] and _alerts(monthly, undated) == []


@pytest.mark.parametrize(("second", "why"), [
    ({"requested_by": "wife"}, "requested by"),  # another person
    ({"reference": "INV-9"}, "amounts"),  # an invoice named
    ({"to_account": "BMO 0098"}, "names the to account"),  # money sent somewhere new
    ({"from_account": "savings"}, "from accounts"),  # another account: it may be paid twice
])
def test_two_amounts_still_conflict_when_more_than_one_voice_or_an_account_or_invoice(
        second: dict[str, str], why: str) -> None:
    first = Payment(payee="Tom", amount_usd=300.0, requested_by="user", from_account="checking",
                    scheduled_date=day(4), status="pending", fact_ids=[1])
    other = Payment(payee="Tom", amount_usd=350.0, status="pending", scheduled_date=day(4), fact_ids=[2],
                    **{"requested_by": "user", **second})
    [message] = _alerts(first, other)
    assert why in message


# --- dates and accounts said other ways ----------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("Every month I send my mother 300 dollars, the day 5, from my checking of Bank of America.",
     {"scheduled_date": "2026-05-05", "from_account": "Bank of America checking"}),
    ("I pay the cleaner $120 on day 20 of each month", {"scheduled_date": "2026-04-20"}),
    ("move 500 from business checking to savings friday, that's my pay this week", {"scheduled_date": "2026-04-10"}),
    ("Pay Sam $40 from the savings at Bank of Ireland on Wednesday",
     {"from_account": "Bank of Ireland savings", "scheduled_date": "2026-04-08"}),
    ("Yes: $900 to Dana from savings on Friday.", {"payee": "Dana", "scheduled_date": "2026-04-10"}),
])
def test_dates_and_accounts(text: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(text, NOW)
    assert _subset(payment, expected) == expected


def test_pay_on_day_three_of_a_trip_is_no_date() -> None:
    [payment] = one("pay the guide $200 on day 3 of the trip", NOW)
    assert "scheduled_date" not in payment


def test_the_comma_of_an_amount_splits_no_clause() -> None:
    first, second = sessions((NOW, [("user", "Pay Linden Seeds $1,800 on Wednesday.")]),
                             (datetime(2026, 4, 7, 9, 0), [("assistant", "Noted: Rhonda says invoice LS-88 from Linden "
                                                           "Seeds was already paid and the $1,800 payment planned "
                                                           "for tomorrow should not go out.")]))
    assert all(p.get("amount_usd") in (None, 1800.0) for p in merged(second).values())


def test_the_assistants_recap_of_a_transfer_to_your_savings_is_that_transfer() -> None:
    [facts] = sessions((NOW, [("user", "pay Linden Seeds $1,800 on Wednesday"),
                              ("user", "and move 500 from business checking to my personal savings friday"),
                              ("assistant", "Understood: the $500 transfer to your personal savings stays on for "
                                            "Friday.")]))
    payments = merged(facts)
    assert sorted(str(p.get("payee")) for p in payments.values()) == ["Linden Seeds", "personal savings"]


@pytest.mark.parametrize(("text", "expected"), [
    ("my husband sent Mr. Kowalski an Interac e-transfer for $2,150", {"payee": "Mr. Kowalski", "status": "done"}),
    ("e-transferred the landlord $1,500 today", {"payee": "landlord", "status": "done"}),
    ("I'll e-transfer Joe $40 tomorrow", {"payee": "Joe", "status": "pending"}),
    ("sending the babysitter $60 by Interac tonight", {"payee": "babysitter"}),
    ("Paid the tutor $90 via e-transfer.", {"payee": "tutor", "status": "done"}),
])
def test_an_interac_e_transfer_is_paid_into_the_service(text: str, expected: dict[str, JsonValue]) -> None:
    [payment] = one(text, NOW)
    assert _subset(payment, expected) == expected and payment["to_account"] == "Interac e-Transfer"


def test_a_wire_or_a_cheque_is_no_account_paid_into() -> None:
    [payment] = one("wire Kestrel Ltd $9,000 and mail the tutor a cheque", NOW)
    assert "to_account" not in payment

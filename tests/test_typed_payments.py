"""Typed payment instructions and accounts from conversation (`factlog.typed.payments`
through `RuleExtractor`): who asked, how much, from which account, to whom, when, which
invoice; corrections within a session; cancellations; what must not be read as an
instruction; and the `conflicting_payments` constraint (raising, not raising, skipped)."""

from __future__ import annotations

from datetime import datetime

import pytest
from constraint_records import Payment, days_from, record_class, user_module
from typed_sessions import TS, Extracted, extracted, session

from constraints import Constraint, run_constraints
from constraints.builtin import conflicting_payments
from constraints.model import Alert
from factlog.extract import RuleExtractor
from factlog.model import JsonValue

MONEY = ("payment", "account")


def money(*turns: tuple[str, str], ts: datetime = TS) -> Extracted:
    return extracted(MONEY, *turns, ts=ts)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Maria Lopez, our operations partner, has asked that we wire $8,500 to Apex Supply Co. from the "
         "operating account at First Republic ending 2291 on April 15, against their invoice AX-3318.",
         [("payment", "apex supply co./2025-05-02T21:00",
           {"payee": "Apex Supply Co.", "amount_usd": 8500.0, "requested_by": "Maria Lopez",
            "from_account": "First Republic operating 2291", "scheduled_date": "2025-04-15",
            "reference": "AX-3318", "status": "pending"}),
          ("account", "account/2291", {"last4": "2291", "institution": "First Republic", "kind": "operating"})]),
    ],
)
def test_sentence_gives_payment_facts(sentence: str, expected: object) -> None:
    assert money(("user", sentence)) == expected


def test_a_spouse_changes_how_a_bill_is_paid() -> None:
    wife = money(("user", "set up autopay for verizon. $85 on the 20th from checking 0417"),
                 ("user", "wife says shes paying verizon from her card on the 18th. told me to kill the autopay"))
    kinds = [(kind, fields.get("status"), fields.get("requested_by")) for kind, _, fields in wife if kind == "payment"]
    assert kinds == [("payment", "pending", "user"), ("payment", None, "user"),  # "$85 on the 20th": no new status
                     ("payment", "pending", "wife"), ("payment", "cancelled", "wife")]


def test_corrections_and_weekdays_update_one_payment() -> None:
    facts = money(("user", "Send the painter, Luis Ortega, $1,200 from checking on Friday."),
                  ("user", "Make it Thursday the 3rd."),
                  ("assistant", "Updated: $1,250 to Luis Ortega from checking on Thursday, July 3, 2025."),
                  ts=datetime(2025, 7, 1, 9, 0))
    assert {key for _, key, _ in facts} == {"luis ortega/2025-07-01T09:00"}
    assert [f.get("scheduled_date") for _, _, f in facts] == ["2025-07-04", "2025-07-03", "2025-07-03"]
    assert facts[-1][2]["amount_usd"] == 1250.0


def test_a_correction_after_a_trip_is_the_trips() -> None:
    facts = RuleExtractor().extract(session(
        ("user", "Send the painter, Luis Ortega, $1,200 from checking on Friday."),
        ("user", "I booked a flight to Tokyo on June 20."),
        ("user", "Actually, it's the 12th.")), user_only=False)
    last = [f for f in facts if f.kind is not None][-1]
    assert (last.kind, last.fields.get("departure_date")) == ("trip", "2025-06-12")


# --- constraints ---------------------------------------------------------------------------

NOW = datetime(2025, 10, 29, 22, 0)
day = days_from(NOW.date())


def found(rule: Constraint, module: object) -> list[Alert]:
    result = run_constraints(module, NOW, [rule])
    assert not result.errors and not result.skipped, (result.errors, result.skipped)
    return list(result.alerts)


def test_conflicting_instructions_across_accounts_and_cancellations() -> None:
    autopay = Payment(payee="Verizon", amount_usd=85.0, from_account="checking 0417", reference="autopay",
                      requested_by="user", status="pending", fact_ids=[1])
    card = Payment(payee="Verizon", from_account="wife's card", requested_by="user", status="pending", fact_ids=[2])
    [alert] = found(conflicting_payments, user_module(payments=[autopay, card]))
    assert alert.message == ("2 pending payments to Verizon disagree: from accounts checking 0417 vs wife's card; "
                             "it may be paid twice")
    same = Payment(payee="Verizon", from_account="checking ending 0417", requested_by="user", status="pending",
                   fact_ids=[3])
    assert found(conflicting_payments, user_module(payments=[autopay, same])) == []
    wire = Payment(payee="Apex Supply Co.", amount_usd=8500.0, reference="AX-3318", requested_by="Maria Lopez",
                   scheduled_date=day(5), status="pending", fact_ids=[4])
    stop = Payment(payee="Apex Supply Co.", requested_by="Greg Tanaka", status="cancelled", fact_ids=[5])
    [alert] = found(conflicting_payments, user_module(payments=[wire, stop]))
    assert alert.message == ("payment instructions for Apex Supply Co. conflict: Greg Tanaka asked to cancel the "
                             "payment Maria Lopez asked for (AX-3318 $8,500.00 2025-11-03)")
    own = Payment(payee="Apex Supply Co.", requested_by="Maria Lopez", status="cancelled", fact_ids=[6])
    assert found(conflicting_payments, user_module(payments=[wire, own])) == []


def test_a_second_invoice_or_next_months_payment_is_not_a_conflict() -> None:
    first = Payment(payee="Mike", amount_usd=1250.0, reference="318", to_account="Venmo", status="pending", fact_ids=[1])
    second = Payment(payee="Mike", amount_usd=1200.0, reference="331", to_account="Zelle", status="pending",
                     fact_ids=[2])
    assert found(conflicting_payments, user_module(payments=[first, second])) == []
    april = Payment(payee="Parkview Management", amount_usd=2150.0, scheduled_date=day(3), status="pending",
                    fact_ids=[3])
    may = Payment(payee="Parkview Management", amount_usd=2200.0, scheduled_date=day(33), status="pending",
                  fact_ids=[4])
    assert found(conflicting_payments, user_module(payments=[april, may])) == []
    # the same invoice asked for twice, differently, is one obligation: it conflicts
    again = Payment(payee="Mike", amount_usd=1250.0, reference="318", to_account="Zelle", status="pending",
                    fact_ids=[5])
    [alert] = found(conflicting_payments, user_module(payments=[first, second, again]))
    assert alert.message == "2 pending payments to Mike disagree: to accounts Venmo vs Zelle; it may be paid twice"


def test_an_invoice_someone_already_paid() -> None:
    planned = Payment(payee="Dan Pruitt", amount_usd=6400.0, reference="2207", requested_by="user",
                      from_account="joint checking", scheduled_date=day(2), status="pending", fact_ids=[1])
    paid = Payment(payee="Dan", reference="2207", requested_by="husband", from_account="husband's savings",
                   scheduled_date=day(-1), status="done", fact_ids=[2])
    [alert] = found(conflicting_payments, user_module(payments=[planned, paid]))
    assert alert.message == ("payment instructions for Dan Pruitt conflict: invoice 2207 was already paid by husband "
                             "on 2025-10-28; the pending payment (2207 $6,400.00 2025-10-31) would pay it twice")
    assert alert.fact_ids == (1, 2)
    # the user's own planned payment, reported done from the same account, is that payment
    mine = Payment(payee="Dan Pruitt", reference="2207", from_account="joint checking", status="done", fact_ids=[3])
    other_invoice = Payment(payee="Dan Pruitt", reference="2210", requested_by="husband", status="done", fact_ids=[4])
    assert found(conflicting_payments, user_module(payments=[planned, mine, other_invoice])) == []


def test_payees_named_shorter_are_the_same_payee() -> None:
    wire = Payment(payee="Apex Supply Co.", amount_usd=8500.0, requested_by="Maria Lopez", status="pending",
                   fact_ids=[1])
    stop = Payment(payee="Apex", requested_by="Greg Tanaka", status="cancelled", fact_ids=[2])
    [alert] = found(conflicting_payments, user_module(payments=[wire, stop]))
    assert alert.message.startswith("payment instructions for Apex Supply Co. conflict: Greg Tanaka asked to cancel")
    unrelated = Payment(payee="Apex Roofing", requested_by="Greg Tanaka", status="cancelled", fact_ids=[3])
    assert found(conflicting_payments, user_module(payments=[wire, unrelated])) == []
    bare = record_class("payment", without=("status",))
    result = run_constraints(user_module(payments=[bare(payee="Apex", fact_ids=[4])]), NOW, [conflicting_payments])
    assert [s.constraint for s in result.skipped] == ["conflicting_payments"] and not result.alerts


# --- phrasing families (merged per entity, as compiling merges them) -----------------------


def merged(*turns: tuple[str, str], ts: datetime = TS) -> dict[str, dict[str, JsonValue]]:
    """Each payment entity's fields after the session (later facts win)."""
    out: dict[str, dict[str, JsonValue]] = {}
    for kind, key, fields in money(*turns, ts=ts):
        if kind == "payment" and key is not None:
            out[key] = {**out.get(key, {}), **fields}
    return out


def one_payment(*turns: tuple[str, str], ts: datetime = TS) -> dict[str, JsonValue]:
    states = merged(*turns, ts=ts)
    assert len(states) == 1, states
    return next(iter(states.values()))


# TS is Friday, May 2, 2025
@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # who asked
        ("My boss emailed: wire $4,000 to Kestrel Design from the business checking on Monday.",
         {"payee": "Kestrel Design", "amount_usd": 4000.0, "requested_by": "boss",
          "from_account": "business checking", "scheduled_date": "2025-05-05", "status": "pending"}),
        ("Per Anita Shah's email, please send $950 to Lumen Print by ACH tomorrow.",
         {"payee": "Lumen Print", "amount_usd": 950.0, "requested_by": "Anita Shah", "scheduled_date": "2025-05-03",
          "status": "pending"}),
        ("My sister asked me to Venmo her landlord, Tom Becker, $600 for her share of the rent.",
         {"payee": "Tom Becker", "amount_usd": 600.0, "requested_by": "sister", "to_account": "Venmo"}),
        ("Got a text from my dad asking me to pay the plumber $180 today.",
         {"payee": "plumber", "amount_usd": 180.0, "requested_by": "dad", "scheduled_date": "2025-05-02"}),
        ("The contractor, Rick Alvarez, wants the $2,500 deposit by Zelle before he orders the tile.",
         {"payee": "Rick Alvarez", "amount_usd": 2500.0, "to_account": "Zelle"}),
        # amounts
        ("I'll pay Nina Park $1.2k for the photos on the 15th.",
         {"payee": "Nina Park", "amount_usd": 1200.0, "scheduled_date": "2025-05-15", "requested_by": "user",
          "status": "pending"}),
        ("gonna send the roofer 1,250 bucks fri",
         {"payee": "roofer", "amount_usd": 1250.0, "scheduled_date": "2025-05-09", "status": "pending"}),
        # from which account
        ("Transfer $3,000 out of the joint account to Harbor Title on May 9.",
         {"payee": "Harbor Title", "amount_usd": 3000.0, "from_account": "joint", "scheduled_date": "2025-05-09"}),
        ("Pay Verizon $85 from checking ending 4821 on the 20th.",
         {"payee": "Verizon", "amount_usd": 85.0, "from_account": "checking 4821", "scheduled_date": "2025-05-20"}),
        ("Please wire $12,000 from our Chase savings to Bayview Escrow on Tuesday.",
         {"payee": "Bayview Escrow", "amount_usd": 12000.0, "from_account": "Chase savings",
          "scheduled_date": "2025-05-06"}),
        # to whom, how
        ("Send $75 to the dog walker by Venmo.", {"payee": "dog walker", "amount_usd": 75.0, "to_account": "Venmo"}),
        ("I need to wire $8,200 to Oakline Builders, account ending 3390 at Wells Fargo, by May 12.",
         {"payee": "Oakline Builders", "amount_usd": 8200.0, "scheduled_date": "2025-05-12"}),
        # references
        ("Pay invoice #4471 from Greenway Landscaping, $640, next week.",
         {"payee": "Greenway Landscaping", "amount_usd": 640.0, "reference": "4471"}),
        ("Please ACH Delta Parts $2,310 for invoice DP-20931 on Thursday.",
         {"payee": "Delta Parts", "amount_usd": 2310.0, "reference": "DP-20931", "scheduled_date": "2025-05-08"}),
        # done
        ("I paid the electrician, Sam Ortiz, $450 yesterday by check.",
         {"payee": "Sam Ortiz", "amount_usd": 450.0, "status": "done", "scheduled_date": "2025-05-01"}),
        ("Already zelled Priya $120 for the concert tickets this morning.",
         {"payee": "Priya", "amount_usd": 120.0, "status": "done", "to_account": "Zelle",
          "scheduled_date": "2025-05-02"}),
        # stop
        ("Don't pay the old Crestline invoice, they sent a corrected one.",
         {"payee": "Crestline", "status": "cancelled"}),
        ("Please hold the deposit to Summit Pools until the permit comes through.",
         {"payee": "Summit Pools", "status": "cancelled"}),
        ("hey can u remind me - owe jake 85 for the concert, sending it tmrw via venmo",
         {"payee": "Jake", "amount_usd": 85.0, "to_account": "Venmo", "scheduled_date": "2025-05-03",
          "status": "pending"}),
        ("Wire $15,000 to Brightstone Capital LLC from the brokerage account on June 3, ref BC-7781.",
         {"payee": "Brightstone Capital LLC", "from_account": "brokerage", "reference": "BC-7781"}),
        ("My wife told me she already paid the daycare $1,150 for May from our joint account.",
         {"payee": "daycare", "amount_usd": 1150.0, "requested_by": "wife", "from_account": "joint",
          "status": "done"}),
        ("Please schedule a payment of $2,450 to Evergreen HOA on the 1st from my Wells Fargo checking.",
         {"payee": "Evergreen HOA", "from_account": "Wells Fargo checking", "scheduled_date": "2025-06-01"}),
        ("I wrote a check to the piano teacher for $240 on Tuesday.",
         {"payee": "piano teacher", "status": "done", "scheduled_date": "2025-04-29"}),
        ("Our CFO, Dana Reyes, instructed us to release the $48,000 payment to Harbor Freightways on Monday.",
         {"payee": "Harbor Freightways", "amount_usd": 48000.0, "requested_by": "Dana Reyes"}),
        ("Noted: $320 to Kim's Cleaning by Zelle on Saturday, May 10, 2025, at your husband's request.",
         {"payee": "Kim's Cleaning", "requested_by": "husband", "to_account": "Zelle", "scheduled_date": "2025-05-10"}),
        ("Mortgage payment of $2,310 goes out of checking ending 9921 on the 1st.",
         {"payee": "mortgage", "amount_usd": 2310.0, "from_account": "checking 9921"}),
        ("i paid 1,250 bucks for the sofa at Crate & Barrel last saturday",
         {"payee": "Crate & Barrel", "amount_usd": 1250.0, "status": "done", "scheduled_date": "2025-04-26"}),
        ("Pay the $75 late fee to the city parking office today.", {"payee": "city parking office", "amount_usd": 75.0}),
        ("Don't send anything to Apex until Greg signs off.", {"payee": "Apex", "status": "cancelled"}),
        ("The CFO, Mark Holt, just told me not to pay Pinnacle until they fix the shipment.",
         {"payee": "Pinnacle", "requested_by": "Mark Holt", "status": "cancelled"}),
        ("my husband just venmoed Rosa $650 for this week from his account, so she'd get paid twice if my zelle "
         "goes out friday",
         {"payee": "Rosa", "amount_usd": 650.0, "requested_by": "husband", "from_account": "husband's account",
          "to_account": "Venmo", "status": "done"}),
        ("Got an email from Bella Catering saying their bank changed and to send the BC-221 payment to a new account "
         "at Chase ending 9911 instead.",
         {"payee": "Bella Catering", "requested_by": "Bella Catering", "reference": "BC-221",
          "to_account": "Chase 9911"}),
        ("My accountant, Priya Nair, asked me to send the quarterly estimated tax of $4,200 to the IRS on June 15.",
         {"payee": "IRS", "amount_usd": 4200.0, "requested_by": "Priya Nair", "scheduled_date": "2025-06-15"}),
    ],
)
def test_payment_phrasings(sentence: str, expected: dict[str, JsonValue]) -> None:
    state = one_payment(("user", sentence))
    assert {name: state.get(name) for name in expected} == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "Should I pay the contractor $2,000 up front?",
        "If I paid the plumber $300 today, would that leave enough for rent?",
        "I'm thinking about sending my nephew $500 for graduation.",
        "Maybe I'll pay off the card next month.",
        "I get paid $3,100 on the 15th.",
        "My client paid me $1,800 for the logo yesterday.",
        "Dana venmoed me $40 for dinner.",
        "I sent an invoice to Brightline for $2,400 today.",
        "You should always pay attention to the fine print.",
        "It pays to compare quotes from three roofers.",
        "We had to cancel our trip to Rome.",
        "The 4K monitor was on sale at Best Buy last week.",
        "My salary goes into checking ending 7712 on Fridays.",
        "Can you pay my Con Edison bill?",
        "Yesterday my neighbor paid his roofer $9,000 in cash, crazy.",
        "We paid 30 percent down on the car last year.",
        "The invoice says $3,200 but I think it should be $2,300.",
        "I'll probably pay Mark back for lunch at some point.",
    ],
)
def test_no_payment_instruction(sentence: str) -> None:
    assert [k for k, _, _ in money(("user", sentence)) if k == "payment"] == []


def test_assistant_advice_is_no_payment() -> None:
    facts = money(("user", "What's the safest way to pay a contractor I don't know yet?"),
                  ("assistant", "Pay by check or card rather than a wire, and never send the full $5,000 up front."),
                  ("assistant", "You could pay the contractor the $2,000 deposit by check to be safe."))
    assert facts == []


def test_a_session_amends_one_instruction() -> None:
    state = one_payment(
        ("user", "Please send Marta Silva $900 for the cleaning from checking on Friday."),
        ("user", "Sorry, it's $950, she added the windows."),
        ("user", "Actually send it from savings instead."),
        ("assistant", "Updated: $950 to Marta Silva from savings on Friday, May 9, 2025."))
    assert {k: state.get(k) for k in ("payee", "amount_usd", "from_account", "scheduled_date", "status")} == {
        "payee": "Marta Silva", "amount_usd": 950.0, "from_account": "savings", "scheduled_date": "2025-05-09",
        "status": "pending"}


def test_a_pronoun_payee_is_the_person_named_before() -> None:
    state = one_payment(("user", "The mechanic, Luis, says I owe $685 for the brakes. I'll pay him Friday by card."))
    assert {k: state.get(k) for k in ("payee", "amount_usd", "from_account", "scheduled_date")} == {
        "payee": "Luis", "amount_usd": 685.0, "from_account": "card", "scheduled_date": "2025-05-09"}
    joe = one_payment(("user", "Joe wants the $400 for the bike, I told him I'd send it Monday."),
                      ("user", "Wait, make it $380, he knocked off twenty."))
    assert (joe["payee"], joe["amount_usd"], joe["scheduled_date"]) == ("Joe", 380.0, "2025-05-05")


def test_a_relayed_cancellation_names_who_asked() -> None:
    states = merged(("user", "Our accountant just called."),
                    ("user", "She says to stop the transfer to Ridgeway Capital, the paperwork isn't signed."))
    [state] = states.values()
    assert (state["payee"], state["status"], state["requested_by"]) == ("Ridgeway Capital", "cancelled", "accountant")


def test_a_payee_account_is_no_account_of_the_users() -> None:
    facts = money(("user", "The landlord emailed that rent now goes to a new account, Chase ending 5521."))
    assert [k for k, _, _ in facts if k == "account"] == []
    mine = money(("user", "Move $500 from checking 0417 to my savings ending 8830 on Monday."))
    assert sorted(fields["last4"] for k, _, fields in mine if k == "account") == ["0417", "8830"]


def test_one_invoice_to_two_payees_conflicts() -> None:
    usual = Payment(payee="Northgate Logistics", amount_usd=12750.0, reference="NL-5582", to_account="operating 4821",
                    status="pending", fact_ids=[1])
    rerouted = Payment(payee="Northgate Freight Services", reference="nl-5582", to_account="Wells Fargo 8812",
                       status="pending", fact_ids=[2])
    [alert] = found(conflicting_payments, user_module(payments=[usual, rerouted]))
    assert alert.message.startswith("2 pending payments to Northgate Freight Services disagree: payees Northgate "
                                    "Logistics vs Northgate Freight Services;")
    gary = Payment(payee="Gary", reference="August rent", to_account="Zelle", status="pending", fact_ids=[3])
    rent = Payment(payee="rent", reference="August rent", to_account="Chase 9043", status="pending", fact_ids=[4])
    [alert] = found(conflicting_payments, user_module(payments=[gary, rent]))
    assert "to accounts Zelle vs Chase 9043" in alert.message
    # a generic reference links nothing: two autopays are two bills
    verizon = Payment(payee="Verizon", reference="autopay", amount_usd=85.0, status="pending", fact_ids=[5])
    netflix = Payment(payee="Netflix", reference="autopay", amount_usd=15.49, status="pending", fact_ids=[6])
    may_rent = Payment(payee="rent", reference="May rent", to_account="Chase 9043", status="pending", fact_ids=[7])
    assert found(conflicting_payments, user_module(payments=[verizon, netflix, gary, may_rent])) == []


def test_a_payment_someone_else_already_made_without_an_invoice_number() -> None:
    planned = Payment(payee="IRS", amount_usd=4200.0, requested_by="accountant", from_account="savings",
                      scheduled_date=day(5), status="pending", fact_ids=[1])
    paid = Payment(payee="IRS", requested_by="husband", from_account="checking", scheduled_date=day(-3),
                   status="done", fact_ids=[2])
    [alert] = found(conflicting_payments, user_module(payments=[planned, paid]))
    assert alert.message == ("payment instructions for IRS conflict: IRS was already paid by husband on 2025-10-26; "
                             "the pending payment ($4,200.00 2025-11-03) would pay it twice")
    # the user reporting their own planned payment done, another amount, or last month's payment: no conflict
    mine = Payment(payee="IRS", amount_usd=4200.0, from_account="card", status="done", fact_ids=[3])
    other_amount = Payment(payee="IRS", amount_usd=900.0, requested_by="husband", status="done", fact_ids=[4])
    last_month = Payment(payee="IRS", amount_usd=4200.0, requested_by="husband", scheduled_date=day(-40),
                         status="done", fact_ids=[5])
    assert found(conflicting_payments, user_module(payments=[planned, mine, other_amount, last_month])) == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Picked up a Dyson V15 at Target yesterday for $649.",
         {"payee": "Target", "amount_usd": 649.0, "status": "done", "scheduled_date": "2025-05-01"}),
        ("We ordered a Samsung washer from Home Depot on March 3 for $899, order number WD-4471902.",
         {"payee": "Home Depot", "amount_usd": 899.0, "scheduled_date": "2025-03-03", "reference": "WD-4471902"}),
        ("The new iPhone was $1,099 at the Apple Store, I paid with my Chase Sapphire.",
         {"payee": "Apple Store", "amount_usd": 1099.0, "status": "done"}),
        ("Noted: a Bosch 500 dishwasher from Lowe's, $949, bought April 20, 2025.",
         {"payee": "Lowe's", "amount_usd": 949.0, "scheduled_date": "2025-04-20"}),
    ],
)
def test_a_purchase_is_a_payment_made(sentence: str, expected: dict[str, JsonValue]) -> None:
    state = one_payment(("user", sentence))
    assert {name: state.get(name) for name in expected} == expected


def test_someone_elses_purchase_keeps_its_subject() -> None:
    facts = RuleExtractor().extract(session(("user", "My daughter bought a laptop at Best Buy for $1,200.")),
                                    user_only=False)
    [payment] = [f for f in facts if f.kind == "payment"]
    assert (payment.fields["payee"], payment.fields["subject"]) == ("Best Buy", "daughter")
    assert money(("user", "I'm thinking of buying a new dishwasher at Lowe's for about $800.")) == []


def test_a_new_account_named_in_a_later_instruction_is_said() -> None:
    first = Payment(payee="Jim Reyes", amount_usd=5000.0, requested_by="user", from_account="checking",
                    status="pending", fact_ids=[1])
    moved = Payment(payee="Jim", requested_by="Jim", to_account="Chase 1234", status="pending", fact_ids=[2])
    [alert] = found(conflicting_payments, user_module(payments=[first, moved]))
    assert alert.message == ("2 pending payments to Jim Reyes disagree: requested by user vs Jim; only Jim names the "
                             "to account Chase 1234")


def test_two_sessions_on_one_day_stay_two_instructions() -> None:
    morning = money(("user", "I'm paying Dr. Lee's office the $380 for Sam's filling tomorrow on my Visa."),
                    ts=datetime(2025, 2, 3, 10, 0))
    evening = money(("user", "oh no my wife says she already paid Dr. Lee's office the $380 this afternoon"),
                    ts=datetime(2025, 2, 3, 20, 0))
    assert [(key, fields["payee"], fields["status"]) for _, key, fields in morning + evening] == [
        ("dr. lee's office/2025-02-03T10:00", "Dr. Lee's office", "pending"),
        ("dr. lee's office/2025-02-03T20:00", "Dr. Lee's office", "done")]

"""factlog.typed.stance: whether a clause is asserted by its speaker, family by family."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.extract import RuleExtractor
from factlog.model import NewFact
from factlog.transcripts import Message, Session
from factlog.typed import stance

QUESTIONS = [
    "Is my passport still valid on April 3?",
    "is it still $9.99 a month?",
    "How long is the flight to Tokyo?",
    "when does the flight leave",  # dictated, no question mark
    "Do I have the dentist on Tuesday",
    "did the refill go through",
    "can I take advil with this",
    "What's the copay on that?",
    "Where is my car insurance card",
    "Who is my dentist again",
    "Has the payment cleared?",
    "Which one did I book?",
    "Any chance you have the code?",
    "So are we still on for Thursday?",
    "uh what time does the pharmacy close",
    "Had you booked it already",
    "was it the 3rd or the 4th",
    "Have we paid the plumber",
    "Could you tell me when it renews?",
    "The appointment is at 3. Does that work?",
]
STATEMENTS = [
    "When I land I'll call the hotel.",
    "What I need is a new passport.",
    "My passport expires in June, right?",  # a tag asks only to be confirmed
    "It renews on the 3rd, correct?",
    "It expires May 3, isn't it?",
    "Have had my Global Entry since 2019.",
    "I asked the bank whether the fee applies.",
    "I asked the pharmacist if I can take it with food.",
    "The pharmacist said it's fine.",
    "When my passport is renewed I'll book.",
    "How I pay it: from checking, on the 1st.",
    "I can take it with food.",
    "She could not come.",
    "It is okay now.",
    "Had a rash from it last year.",  # subject dropped: a weak auxiliary asks only before a pronoun
    "Do the $500 transfer to Mike on Friday.",
    "Was the best trip we've had.",
    "Have the tickets in my email.",
    "Is what she said, anyway.",
]


@pytest.mark.parametrize("text", QUESTIONS)
def test_questions_are_asked(text: str) -> None:
    assert stance.is_question(text)
    assert not stance.stance_of(text).asserted


@pytest.mark.parametrize("text", STATEMENTS[:-1])
def test_statements_are_not_questions(text: str) -> None:
    assert not stance.is_question(text)


@pytest.mark.parametrize("text", ["My passport expires in June, right?", "It renews on the 3rd, correct?",
                                  "it's the blue one ok?", "That's $40 a month, yeah?"])
def test_tag_questions(text: str) -> None:
    assert stance.ends_in_question(text) and stance.is_tag_question(text)


@pytest.mark.parametrize("text", ["can I take ibuprofen with it", "Could we move it to Friday", "Is it ok to fly",
                                  "is it safe with grapefruit", "May I bring my dog", "Should I renew now"])
def test_asking_leave_is_a_question(text: str) -> None:
    assert stance.is_question(text)


@pytest.mark.parametrize(("clause", "asked"), [
    ("is Keflex ok", True), ("and can he take Advil", True), ("should I stop the statin", True),
    ("any issue with grapefruit", True), ("what about amoxicillin", True), ("do they clash", True),
    ("I'm allergic to penicillin", False), ("my husband takes warfarin", False), ("she started Zoloft", False),
])
def test_question_clauses(clause: str, asked: bool) -> None:
    assert stance.is_question_clause(clause) is asked


@pytest.mark.parametrize(("text", "yes_no"), [
    ("Would you like the aisle seat?", True), ("Do you want me to set a reminder?", True),
    ("Great, is the 3rd ok?", True), ("What is your date of birth?", False), ("When do you leave?", False),
])
def test_yes_no_questions(text: str, yes_no: bool) -> None:
    assert stance.is_yes_no_question(text) is yes_no


@pytest.mark.parametrize(("text", "small"), [
    ("Anything else?", True), ("Does that work for you?", True), ("Is that correct?", True),
    ("Any other questions?", True), ("How can I help today?", True),
    ("What's the confirmation number?", False), ("When does it expire?", False),
])
def test_small_talk_questions(text: str, small: bool) -> None:
    assert stance.is_small_talk_question(text) is small


@pytest.mark.parametrize("text", ["Can you add that she's allergic to latex?", "could you please note the dose",
                                  "Would you record that I stopped it?", "will you update my list",
                                  "can you remember that it's 20 mg?",
                                  "Can you put my team sync on the calendar?"])
def test_requests_to_record(text: str) -> None:
    assert stance.is_request(text) and not stance.is_question(text)
    assert stance.stance_of(text).asserted


@pytest.mark.parametrize("text", ["Can you tell me if it's safe?", "I added it myself.", "you can note that later"])
def test_requests_must_not_match(text: str) -> None:
    assert not stance.is_request(text)


HYPOTHETICALS = [
    "Maybe a haircut Thursday.", "I might get Disney+.", "Perhaps we'll go in May.",
    "Thinking about signing up for Peloton.", "thinking of moving the dentist", "Considering the premium plan.",
    "I'm debating whether to keep Hulu.", "Tempted to cancel Netflix.", "Wondering if I should get a visa.",
    "Not sure the pharmacy has it.", "Hoping to see the cardiologist in March.", "I'd like to try yoga.",
    "We would love to visit Lisbon.", "Suppose I pay it early.", "What if I pay it on the 3rd?",
]


@pytest.mark.parametrize("text", HYPOTHETICALS)
def test_hypotheticals(text: str) -> None:
    assert stance.is_hypothetical(text)
    assert not stance.stance_of(text).asserted


@pytest.mark.parametrize("text", ["I booked Lisbon for May.", "The dentist is Thursday at 3.",
                                  "I'm taking 20 mg of Lipitor.", "My mightiest worry is the bill.",
                                  "I paid the maybelline order."])
def test_hypothetical_must_not_match(text: str) -> None:
    assert not stance.is_hypothetical(text)


CONDITIONALS = [
    "If the invoice checks out, pay it.", "Unless he calls, pay Mike on Friday.", "in case it renews, cancel it",
    "Send the deposit if the contractor finishes.", "I'll cancel Hulu if the price goes up.",
    "Whether or not it renews, I'm done with it.", "If I can get a slot, a haircut Thursday.",
]


@pytest.mark.parametrize("text", CONDITIONALS)
def test_conditionals(text: str) -> None:
    assert stance.is_conditional(text)


@pytest.mark.parametrize("text", [
    "My passport expires in June, if that matters.", "I have the dentist Tuesday at 3 if you need me.",
    "I asked the bank whether the fee applies.", "I asked the pharmacist if I can take it with food.",
    "It renews on the 3rd, if it helps.", "The card ends in 4242, in case you need it.",
    "I pay $40 a month even if I don't use it.", "Rifle through the files.",
    "It renews on the 5th unless I cancel.", "Pay Mike $500 unless he cancels.",
])
def test_conditional_must_not_match(text: str) -> None:
    assert not stance.is_conditional(text)


@pytest.mark.parametrize(("text", "weighs"), [
    ("Should I renew it now?", True), ("could I pay it in two parts", True), ("Do I need a visa?", True),
    ("would it be cheaper yearly", True), ("I should renew it.", False), ("It would be cheaper.", False),
])
def test_asks_oneself(text: str, weighs: bool) -> None:
    assert stance.asks_oneself(text) is weighs


@pytest.mark.parametrize(("text", "planned"), [
    ("Planning a trip to Rome in May.", True), ("haven't booked the flights yet", True),
    ("we need to book the hotel", True), ("Hoping to go in June.", True), ("someday Japan", True),
    ("I booked Rome for May 3.", False), ("Flights are confirmed.", False),
])
def test_planned(text: str, planned: bool) -> None:
    assert stance.is_planned(text) is planned


@pytest.mark.parametrize(("text", "to_do"), [
    ("I need to call the dentist.", True), ("remind me to book the vet", True), ("I'll email the plumber.", True),
    ("gotta schedule a cleaning", True), ("Going to set up the appointment", True),
    ("Dentist is Tuesday at 3.", False), ("I called the dentist.", False),
])
def test_to_do(text: str, to_do: bool) -> None:
    assert stance.is_to_do(text) is to_do


@pytest.mark.parametrize(("text", "intent"), [
    ("I'm going to cancel Hulu.", True), ("I'll cancel it before it renews.", True),
    ("I need to cancel Spotify.", True), ("I want to kill the autopay", True), ("planning to cancel it", True),
    ("I cancelled Hulu yesterday.", False), ("Hulu was cancelled.", False),
])
def test_intent(text: str, intent: bool) -> None:
    assert stance.states_intent(text) is intent


@pytest.mark.parametrize(("text", "restated"), [
    ("You'd like to cancel Hulu.", True), ("You mentioned cancelling it.", True), ("you said you'd stop it", True),
    ("Your Hulu is cancelled.", False), ("Cancelled.", False),
])
def test_restated_intent(text: str, restated: bool) -> None:
    assert stance.restates_intent(text) is restated


@pytest.mark.parametrize(("text", "advice"), [
    ("You could pay the contractor by check.", True), ("It's best to pay before the 5th.", True),
    ("I'd recommend setting up autopay.", True), ("Make sure the account has funds.", True),
    ("Avoid wiring to a new account.", True), ("Noted: $2,000 to the contractor on Friday.", False),
    ("Your payment of $85 went out on the 3rd.", False),
])
def test_advice(text: str, advice: bool) -> None:
    assert stance.is_advice(text) is advice


@pytest.mark.parametrize(("text", "tentative"), [
    ("thinking about signing up for Disney+", True), ("if I sign up it's $8 a month", True),
    ("should I get the yearly plan", True), ("looking into switching to Verizon", True),
    ("I signed up for Disney+ at $8 a month.", False), ("Netflix renews on the 5th unless I cancel.", False),
    ("I asked the bank whether the $500 transfer went through.", True),
    ("I checked with the pharmacy if the refill is ready.", True), ("I asked the bank for a new card.", False),
])
def test_tentative(text: str, tentative: bool) -> None:
    assert stance.is_tentative(text) is tentative


def test_a_plain_statement_is_asserted() -> None:
    found = stance.stance_of("My passport expires March 5, 2027.")
    assert found.asserted and not (found.question or found.hypothetical or found.conditional or found.request)


# -- the readers ask stance ---------------------------------------------------------------

def _facts(*turns: tuple[str, str]) -> list[NewFact]:
    messages = [Message(role, text, i) for i, (role, text) in enumerate(turns)]
    return RuleExtractor().extract(Session("s1", datetime(2025, 3, 17, 21, 0), messages), user_only=False)


def _kinds(*turns: tuple[str, str]) -> list[tuple[str | None, str | None]]:
    return [(f.kind, f.key) for f in _facts(*turns) if f.kind is not None]


@pytest.mark.parametrize("text", ["can I take advil with this", "not sure the doctor wants me on Lipitor",
                                  "thinking about starting Zoloft", "debating whether to go back on Lexapro"])
def test_medicines_asked_or_entertained_is_not_taken(text: str) -> None:
    assert not any(kind == "medication" for kind, _ in _kinds(("user", text)))


@pytest.mark.parametrize("text", ["Can you add that I take Lipitor 20 mg?",
                                  "I take lisinopril 10 mg daily, if that matters."])
def test_medicines_requests_and_asides_are_stated(text: str) -> None:
    assert any(kind == "medication" for kind, _ in _kinds(("user", text)))


@pytest.mark.parametrize(("text", "kind"), [
    ("Can you put my team sync on the calendar? It's every Monday, 9 to 9:45.", "event"),  # a request states
    ("My daughter Emma is 12, if that matters.", "relative"),
    ("Netflix is $15.49 a month, right?", "subscription"),  # a tag question still states
    ("Send Mike $500 from checking on Friday, in case you need it for the records.", "payment"),
    ("The quarterly report is due March 18 unless the board moves it.", "deadline"),  # the default is stated
])
def test_readers_type_what_is_stated(text: str, kind: str) -> None:
    assert kind in [k for k, _ in _kinds(("user", text))]


@pytest.mark.parametrize(("text", "kind"), [
    ("Do I have the dentist on Tuesday at 3", "appointment"),  # dictated question, no "?"
    ("Put the $2,400 crown on CareCredit, no interest if it's paid in full by August 14.", "appointment"),
    ("I asked the bank whether the $500 transfer to Mike went through.", "payment"),
    ("What if I pay the $1,200 to the contractor on Friday?", "payment"),
    ("Tempted to sign up for Disney+ at $7.99 a month.", "subscription"),
])
def test_readers_type_nothing_asked_or_entertained(text: str, kind: str) -> None:
    assert kind not in [k for k, _ in _kinds(("user", text))]


@pytest.mark.parametrize(("text", "age"), [
    ("My daughter Emma is 12, if that matters.", 12), ("If my daughter Emma is 12 by June, she flies free.", None),
])
def test_an_age_is_kept_beside_a_relevance_aside_not_in_a_condition(text: str, age: int | None) -> None:
    found = [f for f in _facts(("user", text)) if f.kind == "relative"]
    assert [f.fields.get("age") for f in found] == [age]


@pytest.mark.parametrize(("text", "counterfactual"), [
    ("Thought I'd paid more off than that.", True), ("I wish we'd cleared it in time.", True),
    ("We should have paid the balance in March.", True), ("could've sworn it was paid", True),
    ("I was sure it was cleared.", True), ("If only we'd paid it off.", True),
    ("I paid the balance in March.", False), ("We cleared it in time.", False), ("I think it's paid.", False),
])
def test_a_counterfactual_states_the_opposite(text: str, counterfactual: bool) -> None:
    assert stance.is_counterfactual(text) is counterfactual


@pytest.mark.parametrize(("before", "after", "capable"), [
    ("I can take ", ", it's just codeine I can't", True),
    ("", " I can take, only my stomach does not like it", True),
    ("We can still have ", " at home", True),
    ("Can I take ", " with this?", False),  # a question: `is_question`'s, not a capability
    ("I'm able to take ", " without problems", True),
    ("", " is fine for me", True),
    ("my husband tolerates ", "", True),
    ("", " we can safely take, the pharmacist checked", True),
    ("I can take ", " for the fever", False),  # allowed for a present complaint: taken
    ("She said Lily can take ", " for the fever", False),
    ("I take ", " every morning", False),
    ("The doctor gave me ", " which I can take with food", False),
])
def test_capability_is_not_taking(before: str, after: str, capable: bool) -> None:
    assert stance.states_capability(before, after) is capable

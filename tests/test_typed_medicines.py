"""Medications and allergies typed from conversation (`factlog.typed.medicines`): sentence in,
facts out; whose they are; follow-ups and corrections; nothing lost; determinism; and the
medicine constraints raising (or not) from these facts alone."""

from __future__ import annotations

from datetime import datetime

import pytest
from constraint_records import user_module
from test_table_constraints import with_fields

from constraints.builtin import medication_allergy
from constraints.medicines import drug_interactions
from constraints.runner import run_constraints
from factlog.extract import RuleExtractor
from factlog.model import JsonValue, NewFact
from factlog.transcripts import Message, Session

TS = datetime(2025, 3, 17, 21, 0)


def facts(*turns: tuple[str, str], when: datetime = TS) -> list[NewFact]:
    messages = [Message(role, text, i) for i, (role, text) in enumerate(turns)]
    return RuleExtractor().extract(Session("s1", when, messages), user_only=False)


def health(*turns: tuple[str, str], when: datetime = TS) -> list[tuple[str | None, str | None, dict[str, JsonValue]]]:
    return [(f.kind, f.key, {k: v for k, v in f.fields.items() if k != "speaker"})
            for f in facts(*turns, when=when) if f.kind in ("medication", "allergy")]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("urgent care. amoxicillin 500 3x a day 10 days",
         [("medication", "amoxicillin", {"name": "amoxicillin", "drug_class": "penicillins",
                                         "dose": "500 mg three times a day", "start_date": "2025-03-17",
                                         "end_date": "2025-03-26", "status": "current",
                                         "prescriber": "urgent care", "subject": "user"})]),
        ("I continue on metoprolol, 25 milligrams twice daily.",
         [("medication", "metoprolol", {"name": "metoprolol", "drug_class": "beta blockers",
                                        "dose": "25 mg twice daily", "status": "current", "subject": "user"})]),
        ("My urologist, Dr. Kim, has prescribed sildenafil, 50 milligrams, to be taken as needed.",
         [("medication", "sildenafil", {"name": "sildenafil", "drug_class": "pde5 inhibitors",
                                        "dose": "50 mg as needed", "start_date": "2025-03-17", "status": "current",
                                        "prescriber": "Dr. Kim", "subject": "user"})]),
        ("I stopped taking Zoloft last month.",
         [("medication", "sertraline", {"name": "sertraline", "drug_class": "ssris", "status": "stopped",
                                        "subject": "user"})]),
        ("My husband Mike started warfarin yesterday.",
         [("medication", "husband/warfarin", {"name": "warfarin", "drug_class": "anticoagulants",
                                              "start_date": "2025-03-16", "status": "current", "person": "Mike",
                                              "subject": "husband"})]),
        ("I'm allergic to penicillin, I get hives.",
         [("allergy", "penicillin", {"allergen": "penicillin", "drug_class": "penicillins", "severity": "hives",
                                     "subject": "user"})]),
        ("My husband is allergic to penicillin.",
         [("allergy", "husband/penicillin", {"allergen": "penicillin", "drug_class": "penicillins",
                                             "person": "husband", "subject": "husband"})]),
        ("I am mildly allergic to cats.",
         [("allergy", "cat", {"allergen": "cats", "severity": "mild", "subject": "user"})]),
        ("I'm allergic to Keflex.",
         [("allergy", "cephalexin", {"allergen": "cephalexin", "drug_class": "cephalosporins", "subject": "user"})]),
    ],
)
def test_sentence_to_medication_or_allergy(sentence: str, expected: list[object]) -> None:
    assert health(("user", sentence)) == expected


@pytest.mark.parametrize("sentence", [
    "I'm not allergic to Cipro, I took that last year and was fine.",
    "No other drug allergies.",
    "Acetaminophen is generally the preferred pain reliever.",  # a drug the table does not know
    "Can you help me plan an easy dinner for the week?",
])
def test_no_medication_or_allergy(sentence: str) -> None:
    assert health(("user", sentence)) == []


def test_the_assistant_restating_is_not_read() -> None:
    assert health(("assistant", "Noted: Advil (ibuprofen) 400 mg three times a day for a week.")) == []


def test_follow_ups_complete_the_last_medication() -> None:
    found = health(("user", "Saw the orthopedist about my knee today."),
                   ("user", "He said take Aleve, two tablets twice a day. No, sorry, one tablet twice a day. "
                            "For two weeks."))
    assert [f[2].get("dose") for f in found] == ["two tablets twice a day", "one tablet twice a day",
                                                 "one tablet twice a day"]
    assert {f[1] for f in found} == {"naproxen"}  # one entity, the later fact wins
    assert found[-1][2] | {} == {"name": "naproxen", "drug_class": "nsaids", "dose": "one tablet twice a day",
                                 "start_date": "2025-03-17", "end_date": "2025-03-30", "status": "current",
                                 "prescriber": "orthopedist", "subject": "user"}


def test_a_corrected_allergy_replaces_the_one_just_named() -> None:
    found = health(("user", "I'm allergic to Cipro. No wait. Keflex. Definitely Keflex, I broke out in hives."))
    keys = {key for _, key, _ in found}
    assert keys == {"ciprofloxacin"}  # the same entity: its later facts supersede the first
    assert found[-1][2]["allergen"] == "cephalexin" and found[-1][2]["severity"] == "hives"


def test_an_answer_to_an_allergy_question() -> None:
    found = health(("user", "new dentist form asks for allergies. what do i put"),
                   ("assistant", "List any medications you've reacted to. Do you have any?"),
                   ("user", "penicillin. hives as a kid"))
    assert found == [("allergy", "penicillin", {"allergen": "penicillin", "drug_class": "penicillins",
                                                "severity": "hives", "subject": "user"})]


def test_a_named_child_is_the_subject_across_sentences() -> None:
    found = health(("user", "Lily woke up screaming with her ear."),
                   ("user", "The doctor prescribed Augmentin, 5 milliliters twice a day for ten days."))
    assert found[0][1] == "lily/amoxicillin/clavulanate" and found[0][2]["person"] == "Lily"


def test_every_sentence_is_still_a_fact_and_extraction_is_deterministic() -> None:
    turns = (("user", "urgent care. said advil 400 3x a day for a week + heat"),
             ("user", "I'm allergic to penicillin."), ("user", "Eliquis. 2.5 twice a day."))
    first, second = facts(*turns), facts(*turns)
    assert first == second
    texts = {f.text for f in first}
    assert {"urgent care. said advil 400 3x a day for a week + heat", "I'm allergic to penicillin.",
            "Eliquis.", "2.5 twice a day."} <= texts


# --- the constraints from these facts alone ----------------------------------------------

Medication = with_fields("medication", "subject")
Allergy = with_fields("allergy", "subject")
NOW = datetime(2025, 3, 17, 22, 0)


def records(*turns: tuple[str, str]) -> tuple[list[object], list[object]]:
    """The records a compiler makes of these facts: fields merged per (kind, key), later wins."""
    merged: dict[tuple[str, str | None], dict[str, JsonValue]] = {}
    for fact in facts(*turns):
        if fact.kind in ("medication", "allergy"):
            merged.setdefault((fact.kind, fact.key), {}).update(
                {k: v for k, v in fact.fields.items() if k != "speaker"})
    made: dict[str, list[object]] = {"medication": [], "allergy": []}
    for number, ((kind, _), fields) in enumerate(merged.items()):
        cls = Medication if kind == "medication" else Allergy
        values = {k: (datetime.fromisoformat(str(v)).date() if k.endswith("_date") else v) for k, v in fields.items()}
        made[kind].append(cls(**values, fact_ids=[number]))
    return made["medication"], made["allergy"]


def run(rule: object, medications: list[object], allergies: list[object]) -> tuple[list[str], list[str]]:
    result = run_constraints(user_module(medications=medications, allergies=allergies), NOW, [rule])  # type: ignore[list-item]
    return [a.message for a in result.alerts], [s.constraint for s in result.skipped]


def test_interaction_raises_from_conversation() -> None:
    meds, allergies = records(("user", "coumadin refill. 5mg."), ("user", "urgent care. said advil 400 3x a day"))
    messages, _ = run(drug_interactions, meds, allergies)
    assert len(messages) == 1 and "warfarin" in messages[0] and "ibuprofen" in messages[0] \
        and "bleeding risk" in messages[0]


def test_interaction_skipped_without_medications() -> None:
    skipped = run_constraints(user_module(allergies=[]), NOW, [drug_interactions]).skipped
    assert [s.constraint for s in skipped] == ["drug_interactions"]


def test_interaction_not_raised_across_people_or_unrelated_classes() -> None:
    meds, allergies = records(("user", "mike started warfarin yesterday. 5mg"), ("user", "I took 2 advil today."))
    assert run(drug_interactions, meds, allergies)[0] == []
    meds, allergies = records(("user", "I take lisinopril 10 mg every morning."),
                              ("user", "I continue on metoprolol, 25 milligrams twice daily."))
    assert run(drug_interactions, meds, allergies)[0] == []


def test_allergy_raises_and_skips_from_conversation() -> None:
    meds, allergies = records(("user", "I'm allergic to penicillin."),
                              ("user", "urgent care. amoxicillin 500 3x a day 10 days"))
    messages, _ = run(medication_allergy, meds, allergies)
    assert len(messages) == 1 and "amoxicillin" in messages[0] and "penicillin" in messages[0]
    meds, allergies = records(("user", "I'm allergic to penicillin."),
                              ("user", "Dr. Fischer prescribed azithromycin 250 milligrams daily for four days."))
    assert run(medication_allergy, meds, allergies)[0] == []
    skipped = run_constraints(user_module(medications=meds), NOW, [medication_allergy]).skipped  # no allergies
    assert [s.constraint for s in skipped] == ["medication_allergy"]


def test_two_allergies_in_one_sentence_keep_each_its_own_subject() -> None:
    got = health(("user", "I'm allergic to penicillin, and my husband Tom is allergic to peanuts."))
    assert [(key, fields.get("subject"), fields.get("allergen")) for _, key, fields in got] == [
        ("penicillin", "user", "penicillin"), ("husband/peanut", "husband", "peanuts")]

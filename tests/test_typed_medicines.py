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


# --- phrasing families (many wordings per family; must-not-extract cases) ----------------

def one(sentence: str, *before: tuple[str, str]) -> dict[str, JsonValue]:
    """The fields of the single medication or allergy the last sentence states (with speaker, subject)."""
    found = health(*before, ("user", sentence))
    last_sentence = [f for f in facts(*before, ("user", sentence)) if f.text == sentence
                     and f.kind in ("medication", "allergy")]
    assert len(last_sentence) == 1, (sentence, found)
    return {k: v for k, v in last_sentence[0].fields.items() if k != "speaker"}


@pytest.mark.parametrize(("sentence", "name", "drug_class"), [
    ("I take Tylenol 500 mg twice a day.", "acetaminophen", "analgesics"),
    ("The oral surgeon gave me Tylenol #3, one tablet every 4 hours.", "acetaminophen/codeine", "opioids"),
    ("Tylenol with codeine, 1 tab at bedtime.", "acetaminophen/codeine", "opioids"),
    ("Urgent care prescribed Bactrim DS twice a day for 3 days.", "sulfamethoxazole/trimethoprim", "sulfonamides"),
    ("My daughter's on Augmentin 875 twice daily.", "amoxicillin/clavulanate", "penicillins"),
    ("Took a Percocet this morning.", "oxycodone/acetaminophen", "opioids"),
    ("Dr. Patel prescribed Vasotec 10 mg twice a day.", "enalapril", "ace inhibitors"),
    ("I take Zestril 20 mg every morning.", "lisinopril", "ace inhibitors"),
    ("My GP put me on Keflex 500 mg four times a day.", "cephalexin", "cephalosporins"),
    ("Started Zoloft 50mg last Monday.", "sertraline", "ssris"),
    ("I'm on 20 mg of Lexapro.", "escitalopram", "ssris"),
    ("The dentist gave me Flagyl 500 mg three times a day for a week.", "metronidazole", "nitroimidazoles"),
    ("I take metformin 500 mg twice daily.", "metformin", "biguanides"),
])
def test_brands_and_combinations_become_generics_and_classes(sentence: str, name: str, drug_class: str) -> None:
    got = one(sentence)
    assert (got["name"], got["drug_class"]) == (name, drug_class)


@pytest.mark.parametrize(("sentence", "dose"), [
    ("I take lisinopril 10 mg twice a day.", "10 mg twice a day"),
    ("amoxicillin 500 3x a day", "500 mg three times a day"),
    ("Cipro 500 bid", "500 mg twice a day"),
    ("I take Tylenol, two of 500 mg.", "1000 mg"),
    ("Took 2 x 200mg Advil.", "400 mg"),
    ("vitamin D 1,000 units every day", "1000 IU daily"),
    ("Keflex, 500 mg, four times in day.", "500 mg four times a day"),
    ("tramadol 50 mg every 6 hours as needed", "50 mg every 6 hours as needed"),
    ("I'm on 20 mg of Lexapro.", "20 mg"),
    ("Xanax 0.5 mg at bedtime.", "0.5 mg at bedtime"),
    ("I take 10mg of Zoloft a day.", "10 mg daily"),
    ("Took two Tylenol extra strength.", "two tablets"),
    ("Prescribed a Z-Pak, azithromycin 250 milligrams, two tablets today and then one daily for four days.",
     "500 mg then 250 mg daily"),
    ("He said take Aleve, two tablets twice a day. No, sorry, one tablet twice a day.", "one tablet twice a day"),
])
def test_doses_in_many_wordings(sentence: str, dose: str) -> None:
    found = [f for _, _, f in health(("user", sentence)) if "name" in f]
    assert found[-1]["dose"] == dose


@pytest.mark.parametrize(("sentence", "status", "dates"), [
    ("I stopped taking Eliquis on March 10.", "stopped", {"end_date": "2025-03-10"}),
    ("I stopped the apixaban last week.", "stopped", {}),
    ("Finished my amoxicillin yesterday.", "stopped", {"end_date": "2025-03-16"}),
    ("I'm no longer on lisinopril.", "stopped", {}),
    ("Came off prednisone on Sunday.", "stopped", {"end_date": "2025-03-16"}),
    ("I used to take Zoloft years ago.", "stopped", {}),
    ("The doctor said to stop the ibuprofen.", "stopped", {}),
    ("I was taking ibuprofen 600 mg for my shoulder but I stopped it on Friday.", "stopped",
     {"end_date": "2025-03-14"}),
    ("I took 2 Tylenol last night for a headache.", "stopped", {"start_date": "2025-03-16", "end_date": "2025-03-16"}),
    ("I took amoxicillin for 10 days in January and was fine.", "stopped", {}),
    ("My GP put me on enalapril 5mg once a day starting tomorrow.", "planned", {"start_date": "2025-03-18"}),
    ("I'll start the prednisone on Friday, 40 mg a day for 5 days.", "planned",
     {"start_date": "2025-03-21", "end_date": "2025-03-25"}),
    ("Started on 25mg of Zoloft yesterday, going up to 50 next week.", "current", {"start_date": "2025-03-16"}),
    ("Took two Advil this morning.", "current", {"start_date": "2025-03-17"}),
    ("The urgent care doc gave me Cipro 500 bid x 7 days.", "current",
     {"start_date": "2025-03-17", "end_date": "2025-03-23"}),
])
def test_status_and_dates(sentence: str, status: str, dates: dict[str, str]) -> None:
    got = one(sentence)
    assert got["status"] == status
    assert {k: got[k] for k in ("start_date", "end_date") if k in got} == dates


def test_a_switch_stops_one_drug_and_starts_the_other() -> None:
    found = {key: f for _, key, f in health(("user", "Dr. Patel switched me from lisinopril to losartan 50 mg daily."))}
    assert found["lisinopril"]["status"] == "stopped"
    assert found["losartan"]["status"] == "current" and found["losartan"]["prescriber"] == "Dr. Patel"
    found = {key: f for _, key, f in health(("user", "She told me to stop taking the naproxen and use Tylenol instead."))}
    assert found["naproxen"]["status"] == "stopped" and found["acetaminophen"]["status"] == "current"


@pytest.mark.parametrize("sentence", [
    "Is ibuprofen safe with warfarin?",
    "Is it ok to take Advil with lithium?",
    "Should I ask about switching to Lexapro?",
    "My doctor wants me to try Lexapro but I haven't decided.",
    "I'm thinking about asking for Zoloft.",
    "Dr. Kim mentioned maybe adding Wellbutrin.",
    "Acetaminophen is the preferred pain reliever with a blood thinner.",
    "I read that Tylenol can hurt your liver.",
    "The pharmacist warned me not to take Advil with it.",
    "Pharmacist said Claritin is fine.",
    "I took Tylenol instead of Advil because of the Coumadin.",
    "I've never taken Cipro.",
    "Is amoxicillin a penicillin?",
])
def test_questions_hypotheticals_and_general_knowledge_are_not_medications(sentence: str) -> None:
    names = {f.get("name") for _, _, f in health(("user", sentence))}
    assert names <= {"acetaminophen", "warfarin"}  # only the drugs actually taken may appear
    if sentence.startswith("I took Tylenol instead"):
        assert names == {"acetaminophen"}
    elif "Coumadin" not in sentence:
        assert names == set()


@pytest.mark.parametrize(("turns", "subject", "person"), [
    ((("user", "My wife takes Xanax 0.5 mg at bedtime."),), "wife", "wife"),
    ((("user", "My son Jake is on Adderall."),), "son", "Jake"),
    ((("user", "Mike's on Lipitor 40 mg."),), "Mike", "Mike"),
    ((("user", "My mom moved in with us."), ("user", "She takes amlodipine 5 mg every morning.")), "mother", "mother"),  # the family word (factlog.relations)
    ((("user", "Mom has a UTI again."), ("user", "The nurse practitioner called in Bactrim, twice a day.")),
     "mother", "mother"),
    ((("user", "Noah's pediatrician prescribed cefalexin for his strep, 250 mg three times daily."),), "Noah", "Noah"),
])
def test_family_members_keep_their_subject(turns: tuple[tuple[str, str], ...], subject: str, person: str) -> None:
    got = health(*turns)[-1][2]
    assert (got["subject"], got["person"]) == (subject, person)


def test_the_assistant_confirmation_fills_in_what_the_user_left_out() -> None:
    found = health(("user", "I take Coumadin."),
                   ("assistant", "Noted: Coumadin (warfarin) 5 mg daily, prescribed by Dr. Lee."))
    assert [key for _, key, _ in found] == ["warfarin", "warfarin"]
    assert found[-1][2]["dose"] == "5 mg daily" and found[-1][2]["prescriber"] == "Dr. Lee"
    # never a drug only the assistant names, nor its general advice
    assert health(("assistant", "Noted: you're on Zoloft 100 mg daily.")) == []
    assert health(("user", "My knee hurts."), ("assistant", "Acetaminophen is usually the safer choice.")) == []


def test_a_dose_corrected_later_keeps_its_frequency() -> None:
    found = health(("user", "meds list: sertraline 100mg daily, been on it since 2023"),
                   ("user", "oh wait its 150 now, dr bumped it in june"))
    assert found[-1][2]["dose"] == "150 mg daily" and {key for _, key, _ in found} == {"sertraline"}


def test_an_answer_to_the_assistants_question() -> None:
    found = health(("assistant", "Did the doctor prescribe anything?"), ("user", "Yes, Keflex."),
                   ("user", "500 mg four times a day for a week."))
    assert found[-1][2] | {} == {"name": "cephalexin", "drug_class": "cephalosporins", "status": "current",
                                 "dose": "500 mg four times a day", "start_date": "2025-03-17",
                                 "end_date": "2025-03-23", "subject": "user"}
    assert health(("assistant", "Any drug allergies?"), ("user", "Just penicillin."))[0][2]["allergen"] == "penicillin"


@pytest.mark.parametrize(("sentence", "allergens", "severity"), [
    ("I'm allergic to penicillin and sulfa.", ["penicillin", "sulfa"], None),
    ("I react badly to codeine.", ["codeine"], None),
    ("Penicillin gives me hives.", ["penicillin"], "hives"),
    ("sulfa allergy", ["sulfa"], None),
    ("Amoxicillin made me break out in a rash when I was a kid.", ["amoxicillin"], "rash"),
    ("I can't take aspirin, it makes my throat swell.", ["aspirin"], "throat swelling"),
    ("I had an allergic reaction to Bactrim last year.", ["sulfamethoxazole/trimethoprim"], None),
    ("I am allergic to sulfa medicine, Bactrim, I get very bad rash.", ["sulfamethoxazole/trimethoprim"],
     "severe rash"),
    ("Allergies: penicillin, latex.", ["penicillin", "latex"], None),
    ("I get hives from amoxicillin.", ["amoxicillin"], "hives"),
    ("Can you add to my notes that Keflex gives me hives?", ["cephalexin"], "hives"),
])
def test_allergies_stated_many_ways(sentence: str, allergens: list[str], severity: str | None) -> None:
    found = [f for kind, _, f in health(("user", sentence)) if kind == "allergy"]
    assert [f["allergen"] for f in found] == allergens
    assert found[0].get("severity") == severity
    assert not [f for kind, _, f in health(("user", sentence)) if kind == "medication"]


@pytest.mark.parametrize("sentence", [
    "NKDA.", "No known drug allergies.", "I'm not allergic to anything.",
    "Is Keflex safe if I'm allergic to penicillin?",
    "I thought I was allergic to penicillin but the test was negative.",
    "I asked whether I might be allergic to penicillin.",
    "Urgent care gave me hydrocortisone cream for the rash.",
])
def test_no_allergy_stated(sentence: str) -> None:
    assert [k for k, _, _ in health(("user", sentence)) if k == "allergy"] == []


def test_a_stopped_medication_raises_no_interaction_later() -> None:
    meds, allergies = records(("user", "I was on ibuprofen 600 mg three times a day."),
                              ("user", "I stopped the ibuprofen yesterday."),
                              ("user", "Dr. Okafor put me on Eliquis 5 mg twice daily."))
    assert run(drug_interactions, meds, allergies)[0] == []
    meds, allergies = records(("user", "I'm on ibuprofen 600 mg three times a day."),
                              ("user", "Dr. Okafor put me on Eliquis 5 mg twice daily."))
    assert len(run(drug_interactions, meds, allergies)[0]) == 1


def test_a_combination_product_clashes_through_each_of_its_drugs() -> None:
    meds, allergies = records(("user", "I'm allergic to codeine, it gave me hives."),
                              ("user", "The oral surgeon gave me Tylenol #3, one tablet every 4 hours."))
    messages, _ = run(medication_allergy, meds, allergies)
    assert len(messages) == 1 and "codeine" in messages[0]
    meds, allergies = records(("user", "My mom takes warfarin 3 mg every evening."),
                              ("user", "She started Bactrim DS twice a day today."))
    messages, _ = run(drug_interactions, meds, allergies)
    assert len(messages) == 1 and "sulfamethoxazole" in messages[0]


def test_a_yes_to_the_assistants_question_states_what_it_asked() -> None:
    found = health(("assistant", "Are you still taking Coumadin 5 mg daily?"), ("user", "Yes."))
    assert found[-1][2]["name"] == "warfarin" and found[-1][2]["dose"] == "5 mg daily"
    found = health(("assistant", "Did you stop the Coumadin?"), ("user", "Yes, last week."))
    assert found[-1][2]["status"] == "stopped" and "end_date" not in found[-1][2]
    assert health(("assistant", "Is ibuprofen ok for you?"), ("user", "No.")) == []
    found = health(("assistant", "Is that a penicillin allergy?"), ("user", "Yep."))
    assert [(k, f["allergen"]) for k, _, f in found] == [("allergy", "penicillin")]
    found = health(("assistant", "Are you allergic to any medications?"), ("user", "Yes, penicillin."))
    assert [(k, f["allergen"]) for k, _, f in found] == [("allergy", "penicillin")]


def test_the_assistants_confirmation_of_an_allergy_the_reader_missed() -> None:
    found = health(("user", "I have a thing with penicillin."), ("assistant", "Noted: allergic to penicillin (hives)."))
    assert [(f["allergen"], f["severity"]) for _, _, f in found] == [("penicillin", "hives")]
    assert health(("user", "I asked whether I might be allergic to penicillin."),
                  ("assistant", "Understood: no penicillin allergy on your side.")) == []
    found = health(("user", "Lily is allergic to penicillin."),
                   ("assistant", "Noted: your daughter Lily is allergic to penicillin, rash."))
    # the session names Lily the daughter (`people.prescan`): one allergy, the daughter's
    assert {key for _, key, _ in found} == {"daughter/penicillin"} and found[-1][2]["severity"] == "rash"
    assert {(f["subject"], f["person"]) for _, _, f in found} == {("daughter", "Lily")}


@pytest.mark.parametrize(("turns", "expected"), [
    ((("user", "Meds: lisinopril 10, metformin 500 BID, Lipitor 20 qhs"),),
     {"lisinopril": "10 mg", "metformin": "500 mg twice a day", "atorvastatin": "20 mg at bedtime"}),
    ((("user", "I am currently taking the following: Coumadin 5 mg daily; Lipitor 20 mg at night."),),
     {"warfarin": "5 mg daily", "atorvastatin": "20 mg at night"}),
    ((("user", "I take 10mg lisinopril daily and 20 mg atorvastatin at night."),),
     {"lisinopril": "10 mg daily", "atorvastatin": "20 mg at night"}),
    ((("user", "half a tablet of Ambien at night"),), {"zolpidem": "half tablet at night"}),
    ((("user", "Doc upped my Lexapro to 20."),), {"escitalopram": "20 mg"}),
])
def test_lists_of_medications_each_with_its_own_dose(turns: tuple[tuple[str, str], ...],
                                                     expected: dict[str, str]) -> None:
    assert {f["name"]: f.get("dose") for _, _, f in health(*turns)} == expected


def test_ends_and_last_doses() -> None:
    assert one("Took my last dose of Cipro today.") | {} == {
        "name": "ciprofloxacin", "drug_class": "fluoroquinolones", "end_date": "2025-03-17", "status": "stopped",
        "subject": "user"}
    assert one("The Cipro course ends on Friday.")["end_date"] == "2025-03-21"
    found = health(("user", "Started Keflex today."), ("user", "I'll be on it for 2 weeks."))
    assert found[-1][2]["end_date"] == "2025-03-30"


def test_a_named_childs_medication() -> None:
    assert one("We picked up Lily's Augmentin from Walgreens.")["person"] == "Lily"
    assert one("Dr. Osei said Lily can take Tylenol for the fever.")["person"] == "Lily"
    assert one("I'm on birth control and Zoloft.")["name"] == "sertraline"


@pytest.mark.parametrize(("sentence", "dates"), [
    ("I'm not taking Coumadin anymore.", {}),
    ("I'm not on the Eliquis any more.", {}),
    ("I don't take ibuprofen anymore.", {}),
    ("I'm off the naproxen now.", {}),
    ("I was on Zoloft for two years.", {}),
    ("I had a Z-Pak in January.", {}),
    ("I had Cipro last year and was fine.", {}),
    ("I've been off lisinopril since March 1.", {"end_date": "2025-03-01"}),
    ("Mike doesn't take his warfarin anymore.", {}),
])
def test_no_longer_taken(sentence: str, dates: dict[str, str]) -> None:
    got = one(sentence)
    assert got["status"] == "stopped"
    assert {k: got[k] for k in ("start_date", "end_date") if k in got} == dates


def test_terse_and_assistant_heavy_sessions() -> None:
    found = health(("user", "need to log a new med"), ("assistant", "Sure, what is it?"), ("user", "nardil"),
                   ("assistant", "Got it, phenelzine (Nardil). What dose?"), ("user", "15 three times a day"))
    assert found[-1][2]["name"] == "phenelzine" and found[-1][2]["dose"] == "15 mg three times a day"
    found = health(("user", "rough cold. grabbed some Delsym at cvs"))
    assert [f["name"] for _, _, f in found] == ["dextromethorphan"]
    found = health(("user", "hey so my kid (Sam, 4) got prescribed amoxicillin for an ear infection."),
                   ("user", "250mg 2x a day x 10 days"))
    assert found[-1][1] == "child/amoxicillin" and found[-1][2]["person"] == "Sam"
    assert found[-1][2]["dose"] == "250 mg twice a day" and found[-1][2]["end_date"] == "2025-03-26"
    found = health(("user", "Update on Dad: the cardiologist has him on Eliquis now, 5 twice a day."),
                   ("assistant", "Noted: your dad takes Eliquis (apixaban) 5 mg twice a day."))
    assert found[-1][2]["dose"] == "5 mg twice a day" and found[-1][2]["person"] == "father"
    assert "start_date" not in one("Got my refill of Lexapro today, same dose as before.")
    assert "start_date" not in one("My doctor wants me on a statin, so I started rosuvastatin 10 mg this week.")


@pytest.mark.parametrize(("sentence", "expected"), [
    ("I'm allergic to both penicillin and amoxicillin.", [("penicillin", None), ("amoxicillin", None)]),
    ("I am allergic to sulfa drugs like Bactrim.", [("sulfamethoxazole/trimethoprim", None)]),
    ("Drug allergies: penicillin (rash), erythromycin (stomach upset)", [("penicillin", "rash"),
                                                                        ("erythromycin", None)]),
    ("Allergic to: PCN, sulfa, latex", [("penicillin", None), ("sulfa", None), ("latex", None)]),
    ("I'm allergic to Advil and Aleve.", [("ibuprofen", None), ("naproxen", None)]),
    ("Aspirin makes me wheeze.", [("aspirin", "wheezing")]),
    ("I'm sensitive to codeine, it makes me really nauseous.", [("codeine", "nausea")]),
    ("My son broke out in hives after taking Augmentin last year.", [("amoxicillin/clavulanate", "hives")]),
])
def test_several_allergens_each_with_its_reaction(sentence: str, expected: list[tuple[str, str | None]]) -> None:
    found = [f for kind, _, f in health(("user", sentence)) if kind == "allergy"]
    assert [(f["allergen"], f.get("severity")) for f in found] == expected


def test_an_allergy_list_answering_the_assistant() -> None:
    found = health(("assistant", "Any drug allergies?"), ("user", "Penicillin - hives."))
    assert [(f["allergen"], f.get("severity")) for _, _, f in found] == [("penicillin", "hives")]


def test_a_medication_got_for_someone_is_theirs() -> None:
    got = one("I picked up amoxicillin for Emma, 5 ml twice a day.")
    assert (got["subject"], got["person"], got["dose"]) == ("Emma", "Emma", "5 mL twice a day")
    got = one("The pediatrician prescribed Augmentin for my son, 400 mg twice a day.")
    assert (got["subject"], got["person"]) == ("son", "son")
    assert one("I take metoprolol for my heart.")["subject"] == "user"
    assert one("I got Tylenol for the fever.")["subject"] == "user"


@pytest.mark.parametrize(("sentence", "allergen", "severity"), [
    ("I had angioedema on lisinopril years ago, my tongue swelled up.", "lisinopril", "angioedema and tongue swelling"),
    ("Lisinopril made my lips swell.", "lisinopril", "lip swelling"),
    ("My face swelled up after I took Bactrim.", "sulfamethoxazole/trimethoprim", "facial swelling"),
])
def test_reactions_blamed_on_a_drug(sentence: str, allergen: str, severity: str) -> None:
    assert [(f["allergen"], f["severity"]) for k, _, f in health(("user", sentence)) if k == "allergy"] == [
        (allergen, severity)]


def test_a_reaction_blamed_on_something_else_is_no_drug_allergy() -> None:
    found = health(("user", "I'm on lisinopril and got hives from the new detergent."))
    assert [k for k, _, _ in found] == ["medication"]
    assert health(("user", "I got a rash on my arm.")) == []


@pytest.mark.parametrize(("sentence", "taken"), [
    ("I took Tylenol, not Advil, because of my Coumadin.", {"acetaminophen": "2025-03-17", "warfarin": None}),
    ("I know I can't have ibuprofen with the warfarin, so I used Tylenol.", {"acetaminophen": None}),
    ("No Advil for me since I'm on Eliquis.", {"apixaban": None}),
    ("The doctor said no NSAIDs, so no ibuprofen or Aleve.", {}),
    ("I avoided the Advil and took acetaminophen instead.", {"acetaminophen": "2025-03-17"}),
    ("My pharmacist said Tylenol is safer than Advil with warfarin.", {}),
    ("Can't take aspirin because of the blood thinner.", {}),
])
def test_drugs_avoided_are_not_taken_and_no_allergy(sentence: str, taken: dict[str, str | None]) -> None:
    found = health(("user", sentence))
    assert [k for k, _, _ in found if k == "allergy"] == []
    assert {f["name"]: f.get("start_date") for _, _, f in found} == taken


def test_a_corrected_drug_name_replaces_the_one_just_named() -> None:
    found = health(("user", "I'm taking Zoloft 50 mg daily. Sorry, I meant Lexapro."))
    assert {key for _, key, _ in found} == {"sertraline"}  # one entity: no wrong drug left behind
    assert found[-1][2]["name"] == "escitalopram" and found[-1][2]["dose"] == "50 mg daily"
    found = health(("user", "I'm taking Zoloft 50 mg daily."), ("user", "Actually, I also take Lipitor 20 mg."))
    assert [f["name"] for _, _, f in found] == ["sertraline", "atorvastatin"]

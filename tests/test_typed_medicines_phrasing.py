"""Medication and allergy phrasing families (`factlog.typed.medicines`, `allergies`, `doses`,
`care`, `drug_names`): another person's medication keeps its subject across sentences,
questions inside a sentence, misspelt and non-U.S. drug names, doses in words, limits,
pauses, allergies said without the word "allergic"; and what must NOT be read."""

from __future__ import annotations

from datetime import datetime

import pytest
from test_typed_medicines import records, run

from constraints.builtin import medication_allergy
from constraints.medicines import drug_interactions
from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.transcripts import Message, Session
from factlog.typed.doses import dose
from factlog.typed.drug_names import drug_names

TS = datetime(2025, 3, 17, 21, 0)
Found = list[tuple[str | None, dict[str, JsonValue]]]


def health(*turns: tuple[str, str]) -> Found:
    messages = [Message(role, text, i) for i, (role, text) in enumerate(turns)]
    facts = RuleExtractor().extract(Session("s1", TS, messages), user_only=False)
    return [(f.kind, {k: v for k, v in f.fields.items() if k != "speaker"})
            for f in facts if f.kind in ("medication", "allergy")]


def user(*sentences: str) -> Found:
    return health(*(("user", s) for s in sentences))


@pytest.mark.parametrize(("sentences", "subject"), [
    (("My husband threw his back out.", "He's on tramadol now."), "husband"),
    (("My husband had knee surgery on Friday.", "They put him on tramadol for the pain."), "husband"),
    (("my wife got home from the dentist, they gave her tramadol 50mg",), "wife"),
    (("Mom's doctor put her on Eliquis last week.",), "mother"),
    (("My patient is on warfarin 5 mg.",), "patient"),
    (("The kids are both on amoxicillin for ear infections.",), "kids"),
    (("Ruby (she's 7) can't have sulfa drugs, she came up in big welts last time.",), "Ruby"),
    (("Priya started sertraline 50 mg yesterday.",), "Priya"),
])
def test_another_persons_medication_keeps_its_subject(sentences: tuple[str, ...], subject: str) -> None:
    found = user(*sentences)
    assert found and all(fields["subject"] == subject for _, fields in found)


@pytest.mark.parametrize("sentence", [
    "He's on tramadol now, 50 mg every six hours.",
    "They put him on tramadol for the pain.",
    "She takes Xanax 0.5 mg at bedtime.",
    "He's allergic to penicillin.",
])
def test_a_he_or_she_with_no_one_named_is_not_the_user(sentence: str) -> None:
    assert all(fields["subject"] != "user" for _, fields in user(sentence))


@pytest.mark.parametrize("sentences", [
    ("I went with my husband to the pharmacy.", "I picked up my Lexapro 10 mg."),
    ("The doctor was nice.", "He prescribed amoxicillin 500 mg three times a day."),
    ("My husband drove me to urgent care.", "They gave me naproxen 500 mg twice a day."),
])
def test_the_users_own_medication_beside_other_people(sentences: tuple[str, ...]) -> None:
    found = user(*sentences)
    assert found and found[-1][1]["subject"] == "user"


@pytest.mark.parametrize("sentence", [
    "can you take ibuprofen with prozac btw? my roommate has some",
    "Is it ok to take Advil with Eliquis?",
    "would they ever give me Augmentin for this? isn't that a penicillin",
    "My doctor might switch me to Nardil.",
    "Dr. Ahn is thinking about putting me on lithium.",
    "She said she's thinking about switching me to an MAOI like Nardil if the next month doesn't improve.",
    "The clinic said take Tylenol instead, no Advil or Aleve.",
])
def test_questions_and_hypotheticals_take_nothing(sentence: str) -> None:
    names = {fields["name"] for kind, fields in user(sentence) if kind == "medication"}
    assert names <= {"acetaminophen"}


@pytest.mark.parametrize(("sentence", "status"), [
    ("I've paused my Lexapro for now.", "paused"),  # round 4: a pause is "paused" (not taken for alerts)
    ("I used to take Zoloft.", "stopped"),
    ("I finished the Cipro last week.", "stopped"),
    ("They went with doxycycline 100 mg twice a day for a week.", "current"),
    ("We're sticking with the Lexapro, I actually feel a lot better, so no Nardil.", "current"),
])
def test_status(sentence: str, status: str) -> None:
    found = [fields for kind, fields in user(sentence) if kind == "medication"]
    assert len(found) == 1 and found[0]["status"] == status


def test_a_start_in_a_past_month_is_not_today() -> None:
    found = user("I used to take ibuprofen every day but I stopped it in July when I started warfarin.")
    warfarin = [fields for _, fields in found if fields.get("name") == "warfarin"]
    assert warfarin and all("start_date" not in fields for fields in warfarin)


@pytest.mark.parametrize(("word", "meant"), [
    ("eloquis", "eliquis"), ("ibuprophen", "ibuprofen"), ("amoxicilin", "amoxicillin"), ("sertaline", "sertraline"),
    ("lisinipril", "lisinopril"), ("amlodapine", "amlodipine"), ("Lipiter", "lipitor"),
])
def test_misspelt_drug_names(word: str, meant: str) -> None:
    assert drug_names().misspelt(word) == meant


@pytest.mark.parametrize("word", ["concert", "ambient", "reflex", "lasting", "settled", "Walter", "relaxing",
                                  "metformine"])
def test_words_that_are_no_misspelt_drug(word: str) -> None:
    assert drug_names().misspelt(word) is None


def test_a_dictated_medication() -> None:
    found = user("ok uh note for my health stuff the cardiologist doctor brennan put me on eloquis five milligrams "
                 "twice a day for the afib uh starting last friday")
    assert found[0][1] | {} == {"name": "apixaban", "drug_class": "anticoagulants", "dose": "5 mg twice a day",
                                "start_date": "2025-03-14", "status": "current", "prescriber": "Dr. Brennan",
                                "subject": "user"}


@pytest.mark.parametrize(("sentence", "name"), [
    ("Doctor has given me Amoxyclav 625 twice daily for five days.", "amoxicillin/clavulanate"),
    ("The GP put me on co-amoxiclav 625 three times a day.", "amoxicillin/clavulanate"),
    ("My daughter's GP put her on Septrin, 5 mL twice a day.", "sulfamethoxazole/trimethoprim"),
    ("I take co-codamol 30/500 when my back is bad, two tablets.", "acetaminophen/codeine"),
])
def test_names_used_outside_the_us(sentence: str, name: str) -> None:
    assert [fields["name"] for kind, fields in user(sentence) if kind == "medication"] == [name]


@pytest.mark.parametrize(("text", "expected"), [
    ("five milligrams twice a day", "5 mg twice a day"),
    ("six hundred milligrams every six hours", "600 mg every six hours"),
    ("seventy five mcg daily", "75 mcg daily"),
    ("one hundred and twenty five mg", "125 mg"),
    ("50mg, take one when it starts, max 2 a day", "50 mg"),
    ("500 mg up to three times a day", "500 mg up to three times a day"),
    ("two five hundred milligram tablets", None),
])
def test_doses_in_words_and_limits(text: str, expected: str | None) -> None:
    assert dose(text) == expected


@pytest.mark.parametrize(("sentence", "care"), [
    ("the haematology clinic have put me on Xarelto, 20mg with my evening meal", "haematology clinic"),
    ("went to the student health clinic and the doctor gave me sumatriptan 50mg", "student health clinic"),
    ("my psychiatrist back home is dr. castellano and I take prozac 20mg every morning", "Dr. Castellano"),
    ("Warfarin is 4 mg a day now, my anticoagulation clinic checks my INR.", "anticoagulation clinic"),
])
def test_prescribers(sentence: str, care: str) -> None:
    assert user(sentence)[0][1]["prescriber"] == care


def test_extended_release_is_no_emergency_room() -> None:
    found = user("Isosorbide mononitrate ER (Imdur) 60 mg, one tablet every morning")
    assert found and "prescriber" not in found[0][1]


@pytest.mark.parametrize(("sentence", "allergen"), [
    ("I can't have sulfa.", "sulfa"),
    ("I can't take penicillin.", "penicillin"),
    ("keflex put me in the ER a few years back, throat closed up.", "cephalexin"),
    ("Codeine makes me break out.", "codeine"),
    ("I am having allergy to penicillin since childhood only.", "penicillin"),
    ("Sulfa drugs — bad rash.", "sulfa"),
    ("penicillin: hives as a kid", "penicillin"),
    ("I break out in hives with Bactrim.", "sulfamethoxazole/trimethoprim"),
])
def test_allergies_said_many_ways(sentence: str, allergen: str) -> None:
    found = user(sentence)
    assert [(kind, fields["allergen"]) for kind, fields in found] == [("allergy", allergen)]


@pytest.mark.parametrize("sentence", [
    "I can't take Advil because of my stomach.",
    "I can't take aspirin on my blood thinner.",
    "can I have penicillin?",
])
def test_cautions_and_questions_are_no_allergy(sentence: str) -> None:
    assert [kind for kind, _ in user(sentence) if kind == "allergy"] == []


def test_a_confirmation_keeps_the_allergys_own_person() -> None:
    found = health(("user", "For the record: my son Ben (9) is allergic to amoxicillin, it makes him break out all "
                            "over. My daughter Maya (5) isn't allergic to anything."),
                   ("assistant", "Noted: Ben, 9, is allergic to amoxicillin (breaks out in a rash). Maya, 5, has no "
                                 "known allergies."))
    assert [(f["subject"], f.get("person")) for _, f in found] == [("son", "Ben"), ("son", "Ben")]


def test_a_yes_to_the_class_of_the_allergy_just_named_adds_none() -> None:
    found = health(("user", "keflex put me in the ER a few years back, throat closed up."),
                   ("assistant", "So that's an allergy to cephalexin (Keflex), a cephalosporin. Should I record it "
                                 "as a cephalosporin allergy?"),
                   ("user", "yep"))
    assert {fields["allergen"] for _, fields in found} == {"cephalexin"}
    assert all(kind == "allergy" for kind, _ in found)


@pytest.mark.parametrize(("sentences", "start", "status"), [
    (("He wrote me a script for Cialis 5 mg daily.", "Starting tomorrow."), "2025-03-18", "planned"),
    (("I got a new prescription for Lexapro 10 mg.", "I start it on Friday."), "2025-03-21", "planned"),
])
def test_a_start_said_in_the_next_sentence(sentences: tuple[str, ...], start: str, status: str) -> None:
    last = user(*sentences)[-1][1]
    assert (last["start_date"], last["status"]) == (start, status)


def test_a_combination_written_with_a_slash_is_one_medication() -> None:
    found = user("I take hydrocodone/acetaminophen 5-325 at night.")
    assert [(f["name"], f["drug_class"]) for _, f in found] == [("hydrocodone/acetaminophen", "opioids")]


@pytest.mark.parametrize(("sentence", "names"), [
    ("The pharmacist said it's fine to take Claritin with lisinopril.", set()),
    ("I take Claritin daily and it's fine to take with my lisinopril 10 mg.", {"loratadine", "lisinopril"}),
])
def test_advice_about_taking_is_no_taking(sentence: str, names: set[str]) -> None:
    assert {f["name"] for _, f in user(sentence)} == names


def test_a_doctor_wanting_someone_on_a_drug_is_planned() -> None:
    found = user("My dad's cardiologist wants him on Plavix.")
    assert [(f["subject"], f["status"]) for _, f in found] == [("father", "planned")]


def test_a_relatives_drug_by_possessive_in_a_first_person_sentence() -> None:
    found = user("Remind me to pick up Mom's warfarin at 5.")
    assert [f["subject"] for _, f in found] == ["mother"]


@pytest.mark.parametrize(("sentences", "subjects"), [
    (("I took him to urgent care and they put him on tramadol.",), []),
    (("I gave her a Tylenol.",), []),
    (("I took my husband to urgent care and they put him on tramadol 50 mg.",), ["husband"]),
    (("My husband Raj hurt his back.", "I drove him to the clinic and they gave him tramadol 50 mg."), ["husband"]),
    (("The doctor gave me amoxicillin and told me to finish it all.",), ["user"]),
])
def test_given_to_him_or_her_beside_an_i(sentences: tuple[str, ...], subjects: list[str]) -> None:
    assert [f["subject"] for _, f in user(*sentences)] == subjects


@pytest.mark.parametrize(("turns", "expected"), [
    ((("assistant", "I see a penicillin allergy on your chart. Is that still accurate?"), ("user", "yep")),
     [("allergy", "penicillin")]),
    ((("assistant", "So to confirm, you're taking Eliquis 5 mg twice daily?"), ("user", "correct")),
     [("medication", "apixaban")]),
    ((("assistant", "You're not taking any blood thinners, right?"), ("user", "right")), []),
    ((("assistant", "Any allergies to medications?"), ("user", "nope none")), []),
])
def test_what_the_user_confirms(turns: tuple[tuple[str, str], ...], expected: list[tuple[str, str]]) -> None:
    assert [(kind, f.get("allergen", f.get("name"))) for kind, f in health(*turns)] == expected


@pytest.mark.parametrize("turns", [
    (("user", "I'm allergic to cephalosporins."), ("user", "The dentist gave me cefdinir 300 mg twice a day.")),
    (("user", "I can't have sulfa."), ("user", "Urgent care put me on Septrin twice a day for 5 days.")),
    (("user", "NSAIDs give me hives."), ("user", "The orthopedist prescribed naproxen 500 mg twice a day.")),
    (("user", "I'm allergic to macrolides."), ("user", "They gave me a Z-Pak today.")),
    (("user", "I'm allergic to penicillin."), ("user", "the GP put me on co-amoxiclav 625 three times a day.")),
])
def test_a_class_allergy_raised_by_a_new_drug_of_that_class(turns: tuple[tuple[str, str], ...]) -> None:
    meds, allergies = records(*turns)
    assert len(run(medication_allergy, meds, allergies)[0]) == 1


@pytest.mark.parametrize(("turns", "alerts"), [
    ((("user", "I'm on sertraline 100 mg."), ("user", "My neurologist started me on Imitrex 50 mg as needed.")), 1),
    ((("user", "I'm on warfarin 5mg."), ("user", "The dentist said take ibuprophen 600 every 6 hours.")), 1),
    ((("user", "I take Nardil 15 mg three times a day."), ("user", "My GP prescribed sertraline 50 mg today.")), 1),
    ((("user", "I'm on simvastatin 40 mg at night."),
      ("user", "I was prescribed clarithromycin 500 mg twice a day for a week.")), 1),
    ((("user", "My husband is on warfarin."), ("user", "I took ibuprofen 400 mg today.")), 0),
    ((("user", "I'm on warfarin."), ("user", "My husband threw his back out."), ("user", "He's on ibuprofen now.")), 0),
    ((("user", "I'm on Zoloft."), ("user", "Can you take tramadol with Zoloft?")), 0),
])
def test_a_new_prescription_that_clashes_by_class(turns: tuple[tuple[str, str], ...], alerts: int) -> None:
    meds, allergies = records(*turns)
    assert len(run(drug_interactions, meds, allergies)[0]) == alerts


@pytest.mark.parametrize(("sentence", "fields"), [
    ("He wrote me a script for Cialis.", {"name": "tadalafil", "start_date": "2025-03-17", "status": "current"}),
    ("Started the Xarelto on the 3rd.", {"name": "rivaroxaban", "start_date": "2025-03-03"}),
    ("I stopped the Xarelto on the 20th.", {"end_date": "2025-02-20", "status": "stopped"}),
])
def test_prescriptions_and_days_of_the_month(sentence: str, fields: dict[str, str]) -> None:
    found = user(sentence)
    assert len(found) == 1 and {k: found[0][1].get(k) for k in fields} == fields


def test_a_refill_filled_today_does_not_start_today() -> None:
    assert "start_date" not in user("The pharmacy filled my Eliquis today.")[0][1]

"""Medication and allergy phrasing FAMILIES (round 3, helper h-med3), each with phrasings in
voices other than the eval files' and the cases that must NOT be read: whose drug it is (a
titled name, the user's own name in a recap, "we both", a neighbour's, "her Voltaren"), a
recap of several drugs, doses ("every 6 hrs", "when my back hurts", "875/125"), pasted label
lines and a prescriber named on its own, salts, a replaced drug, a dose changed in a later
session without the drug, when a course began ("since yesterday"), fronted allergens."""

from __future__ import annotations

from datetime import datetime

import pytest

from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.transcripts import Message, Session

TS = datetime(2025, 11, 12, 18, 30)  # a Wednesday
Found = list[tuple[str | None, str | None, dict[str, JsonValue]]]


def facts(*turns: tuple[str, str], extractor: RuleExtractor | None = None, ts: datetime = TS) -> Found:
    messages = [Message(role, text, i) for i, (role, text) in enumerate(turns)]
    found = (extractor or RuleExtractor()).extract(Session("s1", ts, messages), user_only=False)
    return [(f.kind, f.key, {k: v for k, v in f.fields.items() if k != "speaker"})
            for f in found if f.kind in ("medication", "allergy")]


def user(*sentences: str) -> Found:
    return facts(*(("user", s) for s in sentences))


def last_of(found: Found, name: str) -> dict[str, JsonValue]:
    return [f for _, _, f in found if f.get("name") == name or f.get("allergen") == name][-1]


# -- whose it is ---------------------------------------------------------------------------


@pytest.mark.parametrize(("sentences", "person"), [
    (("Mrs Chen is on warfarin 5 mg daily.",), "Mrs Chen"),
    (("Please note for Mr. Alvarez: Eliquis 5 mg twice a day.",), "Mr. Alvarez"),
    (("Ms Ito's GP has put her on sertraline 50 mg.",), "Ms Ito"),
    (("Mr Dube saw the dentist today.", "The dentist prescribed amoxicillin 500 mg three times a day."), "Mr Dube"),
    (("I'm on sertraline 50 mg. Mrs Patel, my neighbour, takes warfarin 3 mg.",), "Mrs Patel"),
    (("Miss Okafor takes lisinopril 10 mg every morning.",), "Miss Okafor"),
])
def test_a_titled_name_keeps_its_subject(sentences: tuple[str, ...], person: str) -> None:
    found = [f for _, key, f in user(*sentences) if key and "/" in key]
    assert found and all(f["subject"] == person and f["person"] == person for f in found)


def test_the_user_of_a_titled_name_keeps_their_own() -> None:
    found = user("I'm on sertraline 50 mg. Mrs Patel, my neighbour, takes warfarin 3 mg.")
    assert last_of(found, "sertraline")["subject"] == "user"


@pytest.mark.parametrize("recap", [
    "Noted for Priya: atorvastatin 20 mg at night, from Dr Kaur.",
    "Thanks Priya, noted: atorvastatin 20 mg at night.",
    "Got it, Priya. Atorvastatin 20 mg at night.",
    "Noted for Priya: atorvastatin (Lipitor) 20 mg at night.",
    "Noted: atorvastatin 20 mg at night for Priya.",
])
def test_the_assistant_naming_the_user_makes_no_other_person(recap: str) -> None:
    found = facts(("user", "Dr Kaur started me on atorvastatin 20 mg at night."), ("assistant", recap))
    assert all("person" not in f and f["subject"] == "user" for _, _, f in found)


def test_a_person_the_user_named_is_still_added_by_the_recap() -> None:
    found = facts(("user", "Update on Dad: the cardiologist has him on Eliquis now, 5 twice a day."),
                  ("assistant", "Noted: your dad takes Eliquis (apixaban) 5 mg twice a day."))
    assert found[-1][2]["person"] == "father"  # the family word (factlog.relations)


@pytest.mark.parametrize(("sentence", "other"), [
    ("My husband and I both take vitamin D 1000 IU every morning.", "husband"),
    ("Raj and I are on the same statin, atorvastatin 20 mg.", "Raj"),
    ("My mom moved in. Both of us take metformin 500 mg twice a day.", "mother"),
    ("My wife Ana takes losartan, and we both take fish oil.", "wife"),
    ("my partner and I both use melatonin 3 mg at bedtime", "partner"),
])
def test_taking_it_together_is_the_users_and_the_others(sentence: str, other: str) -> None:
    subjects = {f["subject"] for _, _, f in user(sentence) if f["name"] != "losartan"}
    assert subjects == {"user", other}


@pytest.mark.parametrize("sentence", [
    "We both went to the clinic and the doctor put me on amoxicillin 500 mg.",
    "We're both on lisinopril 10 mg.",  # "we" with no one else named: the user's only
    "I moved to Madrid and I take sertraline 50 mg.",  # a place before "and I"
    "studying in lisbon and i take my zoloft 50mg every morning",
])
def test_together_without_another_taker_is_the_users(sentence: str) -> None:
    assert {f["subject"] for _, _, f in user(sentence)} == {"user"}


@pytest.mark.parametrize("sentence", [
    "My neighbour swears by her Voltaren gel.",
    "my roommate takes adderall 20mg every morning",
    "My friend Sara is on Xanax, she says it helps.",
    "My coworker takes ibuprofen 800 for his back.",
    "My colleague's on sertraline 100 mg and loves it.",
])
def test_an_acquaintances_pills_are_not_the_users(sentence: str) -> None:
    assert user(sentence) == []


def test_a_drug_after_his_or_her_is_that_persons() -> None:
    found = user("My husband forgot his Lipitor again, it's 20 mg at night.")
    assert found[0][2]["subject"] == "husband"
    found = user("My neighbour swears by her Voltaren gel, would that be alright with my warfarin, do you think?")
    assert [f["name"] for _, _, f in found] == ["warfarin"] and found[0][2]["subject"] == "user"


# -- the assistant's recap of several ------------------------------------------------------


@pytest.mark.parametrize(("user_says", "recap", "name", "absent"), [
    ("Stopped the naproxen on Monday. Cardiology started me on rivaroxaban 20 mg today.",
     "Noted: naproxen stopped on November 10; rivaroxaban 20 mg once a day from today.", "rivaroxaban", "end_date"),
    ("I take warfarin 5 mg, and paracetamol when I need it.",
     "Noted: warfarin 5 mg daily; paracetamol as needed.", "warfarin", "as needed"),
    ("Finished the cipro yesterday, and the GP gave me doxycycline 100 mg today.",
     "Noted: ciprofloxacin finished November 11; doxycycline 100 mg from today.", "doxycycline", "end_date"),
    ("I'm on sertraline 50 mg and take Advil sometimes.",
     "Noted: sertraline 50 mg every morning; Advil (ibuprofen) as needed.", "sertraline", "as needed"),
    ("My GP stopped the lisinopril yesterday and started losartan 50 mg.",
     "Noted: lisinopril stopped on November 11; losartan 50 mg daily from today.", "losartan", "end_date"),
])
def test_a_recap_of_several_gives_each_its_own(user_says: str, recap: str, name: str, absent: str) -> None:
    fields = last_of(facts(("user", user_says), ("assistant", recap)), name)
    assert absent not in fields and absent not in str(fields.get("dose", ""))


# -- doses --------------------------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "dose"), [
    ("urgent care gave me oxycodone 5mg every 4 hrs as needed", "5 mg every 4 hours as needed"),
    ("I take ibuprofen 400 mg when my knee hurts.", "400 mg as needed"),
    ("Mum has paracetamol 1 g whenever she needs it.", "1 g as needed"),
    ("I use my Ventolin 2 puffs when my asthma flares up", "two puffs as needed"),
    ("naproxen 250 mg when the pain is bad", "250 mg as needed"),
    ("She has given me Amoxiclav 875/125, two times in the day for 7 days.", "875/125 mg twice a day"),
    ("Percocet 5/325 mg every 6 hours as needed after the surgery, started today", "5/325 mg every 6 hours as needed"),
])
def test_doses_as_people_say_them(sentence: str, dose: str) -> None:
    assert user(sentence)[-1][2]["dose"] == dose


def test_when_it_starts_is_no_as_needed_of_a_limit() -> None:
    found = user("the doctor gave me sumatriptan 50mg, take one when it starts, max 2 a day")
    assert found[-1][2]["dose"] == "50 mg"


# -- pasted labels, prescribers, salts -----------------------------------------------------


@pytest.mark.parametrize(("text", "dose", "prescriber"), [
    ("Medication: Lithium carbonate 400 mg tablets\nDirections: Take ONE tablet twice daily\n"
     "Prescriber: Dr P. Naidoo (Psychiatrist)", "400 mg twice daily", "Dr. P. Naidoo"),
    ("Rx: Amoxicillin 500 mg capsules\nSig: take 1 capsule three times a day for 10 days\nPrescribed by Dr. Kim",
     "500 mg three times a day", "Dr. Kim"),
    ("I take metoprolol succinate 50 mg daily. Dr Oduya.", "50 mg daily", "Dr. Oduya"),
    ("The cardiologist has me on Plavix 75 mg once a day. Dr Abernathy.", "75 mg once a day", "Dr. Abernathy"),
    ("Drug: Sertraline 50 mg tablet\nDosage: one tablet every morning\nPrescriber: Dr. L. Moreau",
     "50 mg every morning", "Dr. L. Moreau"),
])
def test_pasted_labels_and_a_prescriber_named_alone(text: str, dose: str, prescriber: str) -> None:
    fields = user(*text.split("\n"))[-1][2]
    assert fields["dose"] == dose and fields["prescriber"] == prescriber


def test_a_prescriber_line_names_every_drug_of_the_same_unnamed_prescriber() -> None:
    found = user("Since the stent the cardiologist has me on Plavix 75 mg once a day and aspirin 81.", "Dr Abernathy.")
    assert {last_of(found, n)["prescriber"] for n in ("clopidogrel", "aspirin")} == {"Dr. Abernathy"}


def test_a_named_prescriber_is_not_replaced_by_a_later_name() -> None:
    found = user("Dr Lee prescribed sertraline 50 mg.", "Dr Park.")
    assert last_of(found, "sertraline")["prescriber"] == "Dr. Lee"


@pytest.mark.parametrize(("sentence", "name"), [
    ("I've been on lithium carbonate 300 mg twice a day for years.", "lithium"),
    ("metoprolol tartrate 25 mg twice daily", "metoprolol"),
    ("isosorbide mononitrate 30 mg every morning", "isosorbide mononitrate"),  # the generic's own name stays
])
def test_a_salt_names_its_drug(sentence: str, name: str) -> None:
    assert user(sentence)[0][2]["name"] == name


@pytest.mark.parametrize(("sentence", "care"), [
    ("family doc gave me a script for celebrex 200 mg once a day", "family doctor"),
    ("cardiology is starting me on apixaban 5 mg twice daily today", "cardiology"),
    ("Haematology has put me on rivaroxaban 20 mg with my evening meal.", "Haematology"),
    ("My family physician prescribed losartan 50 mg.", "family physician"),
    ("dermatology started me on doxycycline 100 mg daily", "dermatology"),
])
def test_a_family_doctor_or_a_department_prescribes(sentence: str, care: str) -> None:
    assert user(sentence)[-1][2]["prescriber"].casefold() == care.casefold()


# -- a replaced drug -----------------------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "And for me the doctor has given naproxen instead the ibuprofen, 500 two times a day.",
    "The GP gave me naproxen in place of the ibuprofen, 500 mg twice a day.",
    "she put me on naproxen rather than my old ibuprofen, 500 mg twice a day",
    "Naproxen instead of ibuprofen now, 500 mg twice daily.",
    "They've given me naproxen instead of the usual ibuprofen: 500 mg twice a day.",
])
def test_the_dose_after_a_replaced_drug_is_the_new_ones(sentence: str) -> None:
    found = user(sentence)
    assert [f["name"] for _, _, f in found] == ["naproxen"] and found[0][2]["dose"].startswith("500 mg")


def test_a_replaced_drug_the_user_took_is_stopped() -> None:
    found = user("I take ibuprofen 400 mg when my back hurts.",
                 "The GP gave me naproxen instead of the ibuprofen, 500 mg twice a day.")
    assert last_of(found, "ibuprofen")["status"] == "stopped" and last_of(found, "naproxen")["status"] == "current"
    found = user("Take Tylenol instead of Advil.")  # advice about a drug never taken: nothing stopped
    assert [f["name"] for _, _, f in found] == ["acetaminophen"]


# -- capability, a form in brackets --------------------------------------------------------


@pytest.mark.parametrize("sentence", [
    "Ibuprofen I can take, only my stomach does not like it so much.",
    "I can take ibuprofen, it's just codeine that makes me sick.",
    "I'm able to take aspirin without problems.",
    "Tylenol is fine for me.",
    "is an inhaler (albuterol) ok for kids?",
])
def test_what_one_can_take_is_not_taken(sentence: str) -> None:
    assert [f for _, _, f in user(sentence) if f.get("name")] == []


@pytest.mark.parametrize(("sentence", "name"), [
    ("also i have an inhaler for asthma (albuterol) i only use before hockey", "albuterol"),
    ("My blue puffer (Ventolin) lives in my bag.", "albuterol"),
    ("two Panado when the headache comes", "acetaminophen"),
    ("I keep Disprin 300 mg for headaches, one when needed", "aspirin"),
    ("salbutamol 100 mcg two puffs as needed", "salbutamol"),
])
def test_inhalers_and_regional_brands(sentence: str, name: str) -> None:
    assert user(sentence)[-1][2]["name"] == name


# -- across sessions: a dose changed without the drug --------------------------------------


def _two_sessions(first: list[tuple[str, str]], second: str) -> Found:
    extractor = RuleExtractor()
    facts(*first, extractor=extractor, ts=datetime(2025, 11, 1, 10, 0))
    return facts(("user", second), extractor=extractor)


@pytest.mark.parametrize(("second", "subject", "dose"), [
    ("The doctor has changed the dose of my mother since the 5 of March, now she take 3 mg.", "mother", "3 mg"),
    ("They upped my mother to 4 mg this week.", "mother", "4 mg"),
    ("My mother's INR was high so they lowered her to 2 mg.", "mother", "2 mg"),
    ("the GP upped my dose to 20 mg", "user", "20 mg"),
    ("I'm now on 15 mg after the review.", "user", "15 mg"),
])
def test_a_later_session_changes_the_one_course_it_can_mean(second: str, subject: str, dose: str) -> None:
    first = [("user", "My mother takes warfarin 2.5 mg each day. I take escitalopram 10 mg every morning.")]
    found = _two_sessions(first, second)
    assert len(found) == 1 and found[0][2]["subject"] == subject and found[0][2]["dose"] == dose


@pytest.mark.parametrize("second", [
    "My mother now weighs 50 kg.",  # no medication unit
    "They upped my dose to 20 mg.",  # the user has two courses: which one is not said
    "My mother is allergic to 500 mg of anything, she says, ha.",  # an allergy sentence
])
def test_a_later_dose_that_could_mean_several_is_not_read(second: str) -> None:
    first = [("user", "My mother takes warfarin 2.5 mg each day. I take escitalopram 10 mg and metformin 500 mg.")]
    assert [f for _, _, f in _two_sessions(first, second) if f.get("subject") == "user" or "kg" in second] == []


# -- when a course began -------------------------------------------------------------------


@pytest.mark.parametrize(("sentences", "start", "end"), [
    (("She has given me Amoxiclav 875/125, two times in the day for 7 days.", "I take it since yesterday evening."),
     "2025-11-11", "2025-11-17"),
    (("The doctor gave me amoxicillin 500 mg three times a day.", "I've been taking it since Monday."),
     "2025-11-10", None),
    (("The GP put me on doxycycline 100 mg twice a day for ten days.", "Started it on the 9th."),
     "2025-11-09", "2025-11-18"),
    (("I'm on sertraline 50 mg.", "I've had it since March 3rd."), "2025-03-03", None),
    (("They gave me cefalexin 500 mg four times a day for a week.", "been on them since Sunday"),
     "2025-11-09", "2025-11-15"),
])
def test_when_a_course_began_said_after_it(sentences: tuple[str, ...], start: str, end: str | None) -> None:
    fields = user(*sentences)[-1][2]
    assert fields["start_date"] == start and fields.get("end_date") == end


def test_a_start_in_the_future_is_not_a_since() -> None:
    fields = user("The doctor gave me amoxicillin 500 mg three times a day.", "I've been taking it since Friday.")[-1][2]
    assert fields["start_date"] <= "2025-11-12"


# -- allergies put first, reactions worded as said ----------------------------------------


@pytest.mark.parametrize(("sentence", "allergen", "subject"), [
    ("Against penicillin I am allergic since I am a child.", "penicillin", "user"),
    ("I have allergy against sulfa drugs.", "sulfa", "user"),
    ("My son is allergic against amoxicillin, he gets hives.", "amoxicillin", "son"),
    ("To penicillin my mother is allergic.", "penicillin", "mother"),
    ("Against cats I am allergic, the eyes get itchy.", "cats", "user"),
])
def test_fronted_and_against_allergens(sentence: str, allergen: str, subject: str) -> None:
    found = [f for kind, _, f in user(sentence) if kind == "allergy"]
    assert found and found[0]["allergen"] == allergen and found[0]["subject"] == subject


@pytest.mark.parametrize("sentence", [
    "Against the pain I take ibuprofen.",
    "codeine makes me sick, that's not an allergy, just nausea",
    "The doxycycline had me sick as a dog. Dr Brennan says it was only a side effect, not an allergy at all.",
    "I'm not allergic to penicillin anymore, they de-labelled me after a skin test.",
    "She passed the amoxicillin challenge, so she's NOT allergic to penicillin after all.",
])
def test_no_allergy_is_read(sentence: str) -> None:
    assert [f for kind, _, f in user(sentence) if kind == "allergy"] == []


@pytest.mark.parametrize(("sentence", "severity"), [
    ("I'm allergic to penicillin, I get red spots on the whole body and my lips become thick.",
     "red spots and lip swelling"),
    ("Amoxicillin gives me red blotches.", "red blotches"),
    ("I'm allergic to codeine, my face gets puffy.", "facial swelling"),
])
def test_reactions_as_people_word_them(sentence: str, severity: str) -> None:
    assert [f for kind, _, f in user(sentence) if kind == "allergy"][0]["severity"] == severity


# -- had but not begun; a pharmacist's advice ----------------------------------------------


@pytest.mark.parametrize("sentence", [
    "She gave me a sample of Xarelto to try, but I haven't started it.",
    "Got my metformin 500 mg from the pharmacy, haven't taken any yet.",
    "dr gave me a script for lexapro 10mg, im yet to start it",
    "The rheumatologist prescribed prednisone 10 mg but I have not started it yet.",
    "picked up the amoxicillin, not started it yet",
])
def test_a_drug_not_yet_begun_is_planned(sentence: str) -> None:
    fields = [f for _, _, f in user(sentence)][-1]
    assert fields["status"] == "planned" and "start_date" not in fields


def test_a_drug_begun_stays_current() -> None:
    assert user("I started sertraline 50 mg on Monday.")[0][2]["status"] == "current"


@pytest.mark.parametrize("sentence", [
    "The pharmacist said ibuprofen would be bad with my warfarin.",
    "The pharmacist told me to take my warfarin at the same time every day.",
    "My pharmacist reminded me to take my atorvastatin 20 mg at night.",
    "the pharmacist checked my sertraline 50 mg against the cold medicine",
    "Pharmacist says my lisinopril 10 mg is fine with the antihistamine.",
])
def test_a_pharmacist_giving_advice_prescribes_nothing(sentence: str) -> None:
    found = user(sentence)
    assert found and all("prescriber" not in f for _, _, f in found)


# -- a later session stops a course without naming it -------------------------------------


@pytest.mark.parametrize(("second", "end"), [
    ("Finished the antibiotics yesterday.", "2025-11-11"),
    ("I stopped it on Monday because of the rash.", "2025-11-10"),
    ("Done with the course now.", None),
    ("The antibiotics are done.", None),
    ("ok so the course is finished, feeling better", None),
    ("The amoxicillin is finished.", None),
])
def test_a_later_stop_ends_the_one_course_it_can_mean(second: str, end: str | None) -> None:
    found = _two_sessions([("user", "The GP gave me amoxicillin 500 mg three times a day for a week.")], second)
    assert len(found) == 1 and found[0][2]["status"] == "stopped" and found[0][2].get("end_date") == end


@pytest.mark.parametrize("second", [
    "I stopped it on Monday.",  # two current courses: which one is not said
    "Should I stop the antibiotics?",
    "if the rash comes back I'll stop it",
    "My mother finished her antibiotics.",  # the mother has none on record
    "ran out of my pills lol",  # two current ones
])
def test_a_later_stop_that_could_mean_several_or_none_is_not_read(second: str) -> None:
    first = [("user", "The GP gave me amoxicillin 500 mg three times a day for a week. I take sertraline 50 mg daily.")]
    assert _two_sessions(first, second) == []


def test_the_antibiotics_are_the_one_antibiotic_among_several() -> None:
    first = [("user", "The GP gave me amoxicillin 500 mg three times a day for a week. I take sertraline 50 mg daily.")]
    found = _two_sessions(first, "Finished the antibiotics yesterday.")
    assert [(f["name"], f["status"]) for _, _, f in found] == [("amoxicillin", "stopped")]

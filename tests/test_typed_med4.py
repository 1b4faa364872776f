"""Medication and allergy phrasing FAMILIES (round 4, helper h-med4), each with phrasings that are
not in conversations_h-med4.json and the cases that must NOT be read: a prescriber's full name
(two words, a label in capitals, "NAME MD"), places of care, whose drug it is ("the missus", a
child's name typed lower-case with an age, a relative an earlier session named), a last dose and
a start said ahead, a texted "tmrw", a first dose, tapers and elided dose changes, pasted lists
(numbers, NEW / CHANGED markers, a STOP TAKING section), what is usually given, a drug to follow
another's course, doses (a weekday exception, a strength said apart, a time of day, "at onset
of"), allergy classes that restate the drug, reactions as said, and the drug table's new classes."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from factlog.extract import RuleExtractor
from factlog.model import JsonValue
from factlog.reference.drugs import drug_classes, generic_names
from factlog.transcripts import Message, Session
from factlog.typed.care import care_named
from factlog.typed.doses import canonical_dose, dose
from factlog.typed.med_status import taper_days

TS = datetime(2026, 4, 15, 19, 0)  # a Wednesday
Found = list[tuple[str | None, str | None, dict[str, JsonValue]]]


def facts(*turns: tuple[str, str], extractor: RuleExtractor | None = None, ts: datetime = TS,
          kinds: tuple[str, ...] = ("medication", "allergy")) -> Found:
    messages = [Message(role, text, i) for i, (role, text) in enumerate(turns)]
    found = (extractor or RuleExtractor()).extract(Session("s1", ts, messages), user_only=False)
    return [(f.kind, f.key, {k: v for k, v in f.fields.items() if k != "speaker"})
            for f in found if f.kind in kinds]


def user(*sentences: str, ts: datetime = TS) -> Found:
    return facts(*(("user", s) for s in sentences), ts=ts)


def last_of(found: Found, name: str) -> dict[str, JsonValue]:
    return [f for _, _, f in found if f.get("name") == name or f.get("allergen") == name][-1]


def names(found: Found) -> list[JsonValue]:
    return [f.get("name") or f.get("allergen") for _, _, f in found]


# -- prescribers: the whole name, capitals, "MD"; places of care --------------------------------


@pytest.mark.parametrize(("text", "care"), [
    ("Dr. Amara Lindgren wrote the script", "Dr. Amara Lindgren"),
    ("Prescriber: JOHN OKORO MD", "Dr. John Okoro"),
    ("From: Lucia Ferrante, MD", "Dr. Lucia Ferrante"),
    ("DR. WEI ZHANG", "Dr. Wei Zhang"),
    ("my GP, Dr. Kwame Mensah-Bonsu, started it", "Dr. Kwame Mensah-Bonsu"),
    ("Dr. Kim Tuesday said to carry on", "Dr. Kim"),  # a weekday after the name is no surname
    ("Dr. Ortiz's office called", "Dr. Ortiz"),
    ("Dr. Patel of Riverside Family Practice", "Dr. Patel"),
    ("the anticoagulant clinic rang", "anticoagulant clinic"),
    ("The polyclinic gave it", "polyclinic"),
    ("Dentist said so", "dentist"),
    ("gp says keep going", "GP"),
])
def test_care_named_full_names_and_places(text: str, care: str) -> None:
    assert care_named(text) == care


@pytest.mark.parametrize("text", ["Dr. Happiness Tuesday", "the doctor said rest", "I saw a doctor"])
def test_care_named_no_name(text: str) -> None:
    assert care_named(text) in (None, "Dr. Happiness")


def test_prescriber_full_name_on_a_pasted_line() -> None:
    found = user("METFORMIN 500 MG TAB", "TAKE 1 TABLET BY MOUTH TWICE DAILY", "DR. ROSA DELGADO")
    assert last_of(found, "metformin")["prescriber"] == "Dr. Rosa Delgado"


# -- whose it is ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "subject"), [
    ("The missus is on Celebrex for her knees.", "wife"),
    ("the hubby takes lisinopril 10 mg.", "husband"),
    ("The wife is on warfarin since her valve.", "wife"),
    ("My wife is on Celebrex.", "wife"),
    ("I'm on warfarin 5 mg.", "user"),
])
def test_the_missus_is_the_wife(sentence: str, subject: str) -> None:
    assert user(sentence)[0][2]["subject"] == subject


def test_a_child_named_lower_case_with_an_age() -> None:
    found = facts(("user", "fyi my daughter mia (4) is allergic to penicillin, she got a rash"),
                  kinds=("allergy", "relative"))
    allergy = next(f for kind, _, f in found if kind == "allergy")
    assert (allergy["subject"], allergy["person"]) == ("daughter", "Mia")
    assert any(kind == "relative" and f.get("name") == "Mia" and f.get("age") == 4 for kind, _, f in found)


def test_a_relative_an_earlier_session_named_typed_lower_case() -> None:
    extractor = RuleExtractor()
    facts(("user", "My son Theo is 8."), extractor=extractor, kinds=("relative",))
    later = facts(("user", "ugh theo has strep again. they gave him amoxicillin 400 twice a day for 10 days"),
                  extractor=extractor, ts=datetime(2026, 4, 20, 18, 0))
    drug = last_of(later, "amoxicillin")
    assert (drug["subject"], drug["person"]) == ("son", "Theo")


def test_a_noun_in_ness_is_no_person() -> None:
    found = facts(("user", "I take metoprolol 25 mg daily."),
                  ("assistant", "Dizziness is common at first. Noted: metoprolol 25 mg daily."))
    assert all(f["subject"] == "user" and "person" not in f for _, _, f in found)


# -- status and days: a last dose, a start said ahead, tmrw, a first dose -----------------------


@pytest.mark.parametrize(("sentence", "end"), [
    ("Took my last lexapro on the 2nd.", "2026-04-02"),
    ("Had my final doxycycline yesterday.", "2026-04-14"),
    ("I took my last prednisone on the 10th.", "2026-04-10"),
])
def test_a_last_dose_stops_it(sentence: str, end: str) -> None:
    fields = user(sentence)[0][2]
    assert (fields["status"], fields["end_date"]) == ("stopped", end)


@pytest.mark.parametrize(("sentence", "status", "start"), [
    ("I start sertraline 50 mg on the 20th.", "planned", "2026-04-20"),
    ("So my mum starts the amoxicillin on the 2nd.", "planned", "2026-05-02"),
    ("I started sertraline 50 mg on the 3rd.", "current", "2026-04-03"),  # past: the last 3rd
    ("I've been taking sertraline 50 mg since the 3rd.", "current", "2026-04-03"),
])
def test_a_start_said_ahead_is_the_next_such_day(sentence: str, status: str, start: str) -> None:
    fields = user(sentence)[0][2]
    assert (fields["status"], fields["start_date"]) == (status, start)


@pytest.mark.parametrize("follow", ["starting tmrw morning", "first one tomorrow", "so starting tmrw",
                                    "i start them tmrw"])
def test_texted_tomorrow_plans_the_course(follow: str) -> None:
    found = user("urgent care gave me cefdinir 300 twice a day for 10 days", follow)
    fields = last_of(found, "cefdinir")
    assert (fields["status"], fields["start_date"], fields["end_date"]) == ("planned", "2026-04-16", "2026-04-25")


@pytest.mark.parametrize("follow", ["first one tonight", "yeah first dose tonight", "took the first one this afternoon"])
def test_a_first_dose_today_starts_it(follow: str) -> None:
    found = facts(("user", "The pharmacy label says LOSARTAN 50 MG TAB."), ("user", follow))
    assert last_of(found, "losartan").get("start_date") == "2026-04-15"


# -- tapers and dose changes said without the drug ---------------------------------------------


@pytest.mark.parametrize(("sentence", "days"), [
    ("40 mg a day for 3 days, then 20 mg for 3 days, then 10 mg for 3 days", 9),
    ("30 mg daily for 5 days then 15 mg daily for 5 days then stop", 10),
    ("two a day for a week, then one a day for a week", 14),
    ("500 mg today, then 250 mg daily for 4 days", None),  # one length: no taper
    ("for 10 days", None),
])
def test_taper_days(sentence: str, days: int | None) -> None:
    assert taper_days(sentence) == days


def test_a_taper_ends_after_its_steps() -> None:
    fields = user("The GP put me on prednisone 40 mg a day for 3 days starting today, then 20 mg a day for 3 days.")[0][2]
    assert (fields["start_date"], fields["end_date"]) == ("2026-04-15", "2026-04-20")


def test_a_later_step_is_not_this_dose() -> None:
    found = user("My psychiatrist and I agreed the venlafaxine isn't working.",
                 "I'm on 150 mg now, dropping to 75 mg from Monday, then 37.5 for a week, then off.")
    fields = last_of(found, "venlafaxine")
    assert fields["dose"] == "150 mg" and "end_date" not in fields and fields["status"] == "current"


@pytest.mark.parametrize(("later", "want"), [
    ("Down to 10 since Tuesday.", "10 mg daily"),
    ("Tapered to 5 mg now.", "5 mg daily"),
    ("down to 2.5 mg this week", "2.5 mg daily"),
    ("Up to 30 now, feeling ok.", "30 mg daily"),
    ("Dropped to 15 from today.", "15 mg daily"),
])
def test_an_elided_dose_change_in_a_later_session(later: str, want: str) -> None:
    extractor = RuleExtractor()
    facts(("user", "I take prednisone 20 mg daily."), extractor=extractor, ts=datetime(2026, 4, 1, 9, 0))
    assert last_of(facts(("user", later), extractor=extractor), "prednisone")["dose"] == want


@pytest.mark.parametrize("later", ["Down to 3 left in the bottle.", "Down to 2 days a week at the gym.",
                                   "Up to 10 cups a day of coffee lol", "down to 70 kg!"])
def test_an_elided_number_that_is_no_dose(later: str) -> None:
    extractor = RuleExtractor()
    facts(("user", "I take prednisone 20 mg daily."), extractor=extractor, ts=datetime(2026, 4, 1, 9, 0))
    assert facts(("user", later), extractor=extractor) == []


@pytest.mark.parametrize("sentence", ["The amlodipine is helping.", "the ibuprofen isn't doing anything",
                                      "Honestly the gabapentin doesn't really work."])
def test_what_a_drug_does_says_it_is_taken(sentence: str) -> None:
    assert user(sentence)[0][2]["status"] == "current"


@pytest.mark.parametrize("sentence", ["Does the gabapentin work for nerve pain?", "Is amlodipine working for most people?"])
def test_asking_what_a_drug_does_is_no_taking(sentence: str) -> None:
    assert user(sentence) == []


# -- pasted lists -----------------------------------------------------------------------------

DISCHARGE = """Discharge medications - St. Vincent's
Attending: Dr. Maria Okafor
1. Clopidogrel 75 mg daily - NEW
2. Atorvastatin 80 mg at bedtime - CHANGED (was 40 mg)
3. Metformin 500 mg twice daily - CONTINUE
Discontinued medications:
- Ibuprofen 400 mg as needed
- Lisinopril 10 mg daily (replaced by losartan)"""


def test_a_pasted_discharge_list() -> None:
    found = user(DISCHARGE)
    assert last_of(found, "clopidogrel") | {} == {**last_of(found, "clopidogrel"), "dose": "75 mg daily",
                                                   "start_date": "2026-04-15", "status": "current",
                                                   "prescriber": "Dr. Maria Okafor"}
    assert last_of(found, "atorvastatin")["dose"] == "80 mg at bedtime"  # "2." is no dose
    assert last_of(found, "atorvastatin")["prescriber"] == "Dr. Maria Okafor"
    assert last_of(found, "metformin")["status"] == "current" and "start_date" not in last_of(found, "metformin")
    assert last_of(found, "ibuprofen")["status"] == "stopped"
    assert last_of(found, "lisinopril")["status"] == "stopped"
    assert last_of(found, "losartan")["status"] == "current"  # the replacement is not stopped


def test_list_items_without_a_stop_header_stay_current() -> None:
    found = user("My meds:", "- Ibuprofen 400 mg as needed", "- Lisinopril 10 mg daily")
    assert [f["status"] for _, _, f in found] == ["current", "current"]


# -- what is usually given, and a drug to follow another's course ------------------------------


@pytest.mark.parametrize("sentence", [
    "He said normally he'd give amoxicillin but with my allergy it's azithromycin 500 mg today.",
    "Usually they would prescribe Keflex, but she gave me azithromycin 500 mg today.",
    "She would have prescribed amoxicillin but went with azithromycin 500 mg today.",
    "Ordinarily the dentist would use amoxicillin; I got azithromycin 500 mg today.",
    "Otherwise they'd give penicillin, so azithromycin 500 mg today it is.",
])
def test_what_is_usually_given_is_not_taken(sentence: str) -> None:
    assert names(user(sentence)) == ["azithromycin"]


@pytest.mark.parametrize("sentence", [
    "Because of my penicillin allergy the dentist gave me azithromycin 500 mg today.",
    "With my sulfa allergy she prescribed azithromycin 500 mg today instead.",
    "He put me on azithromycin 500 mg today because of my allergy.",
])
def test_an_allergy_as_the_reason_is_no_drug_taken(sentence: str) -> None:
    assert names([f for f in user(sentence) if f[0] == "medication"]) == ["azithromycin"]


def test_usually_i_take_is_taken() -> None:
    assert names(user("Usually I take ibuprofen 400 mg for headaches.")) == ["ibuprofen"]


@pytest.mark.parametrize(("follow", "start"), [
    ("she wants me on fluconazole after the cephalexin runs out", "2026-04-22"),
    ("then diflucan once the cephalexin is finished", "2026-04-22"),
    ("and fluconazole 150 mg when the cephalexin course ends", "2026-04-22"),
])
def test_a_drug_to_follow_another_course(follow: str, start: str) -> None:
    found = user("The GP gave me cephalexin 500 mg four times a day for 7 days, starting today.", follow)
    fields = last_of(found, "fluconazole")
    assert (fields["status"], fields["start_date"]) == ("planned", start)
    assert last_of(found, "cephalexin")["status"] == "current"  # its end is only the when


# -- doses --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "want"), [
    ("warfarin 5 mg every day except 7.5 mg on Fridays", "5 mg daily except 7.5 mg on Fridays"),
    ("2 mg daily but 3 mg on Mondays and", "2 mg daily except 3 mg on Mondays"),
    ("two tablets twice a day, the 500 mg ones", "1000 mg twice a day"),
    ("1 tab three times a day - the 200mg tabs", "200 mg three times a day"),
    ("10 mg once daily in the morning", "10 mg once daily in the morning"),
    ("20 mg twice a day at bedtime", "20 mg twice a day at bedtime"),
    ("one tablet at the first sign of a migraine", "one tablet at onset of migraine"),
    ("5 mg at onset of headache", "5 mg at onset of headache"),
])
def test_dose_families(text: str, want: str) -> None:
    assert dose(text) == want


def test_canonical_dose_keeps_one_wording() -> None:
    assert canonical_dose("40 mg once daily at bedtime") == canonical_dose("40 mg once a day at night")
    assert canonical_dose("3 mg daily except 4 mg on Sundays") == canonical_dose("3 mg every day except 4 mg on Sundays")


def test_a_salt_after_the_drug_is_no_supplement() -> None:
    assert names(user("She prescribed penicillin V potassium 500 mg four times daily.")) == ["penicillin v"]
    assert sorted(map(str, names(user("I take potassium 99 mg and losartan 50 mg daily.")))) == ["losartan",
                                                                                                 "potassium"]


# -- allergies ----------------------------------------------------------------------------------


@pytest.mark.parametrize("turns", [
    [("user", "I can't take naproxen, my face swells up. The doctor said NSAID allergy.")],
    [("user", "Naproxen gives me hives."), ("assistant", "Noted: you're allergic to naproxen (NSAIDs): hives.")],
    [("user", "I'm allergic to naproxen (an NSAID).")],
    [("user", "Allergic to naproxen: my lips swell, I ended up in A&E.")],
    [("user", "naproxen allergy, it's an NSAID so no NSAIDs for me")],
])
def test_a_class_restating_the_drug_is_one_allergy(turns: list[tuple[str, str]]) -> None:
    found = facts(*turns)
    assert {str(f["allergen"]) for _, _, f in found} == {"naproxen"}
    assert all(len(str(f["allergen"])) > 2 for _, _, f in found)


@pytest.mark.parametrize(("sentence", "severity"), [
    ("I'm allergic to penicillin, I get red rashes all over.", "red rashes"),
    ("Allergic to sulfa, came up in welts.", "welts"),
    ("Codeine allergy - rashes.", "rashes"),
    ("Allergic to amoxicillin, I get a rash.", "rash"),
    ("I'm allergic to penicillin, I get hives and my lips swell.", "hives and lip swelling"),
])
def test_reactions_as_said(sentence: str, severity: str) -> None:
    assert user(sentence)[0][2]["severity"] == severity


@pytest.mark.parametrize("sentence", ["My wife is allergic to penicillin, hives.", "No known drug allergies.",
                                      "If I were allergic to penicillin, what would they give?"])
def test_not_the_users_allergy(sentence: str) -> None:
    assert all(f["subject"] != "user" for _, _, f in user(sentence))


# -- the drug table -----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "generic", "klass"), [
    ("clindamycin", "clindamycin", "lincosamides"), ("Cleocin", "clindamycin", "lincosamides"),
    ("nitrofurantoin", "nitrofurantoin", "nitrofurans"), ("Macrobid", "nitrofurantoin", "nitrofurans"),
    ("Macrodantin", "nitrofurantoin", "nitrofurans"),
])
def test_new_table_entries(name: str, generic: str, klass: str) -> None:
    assert generic_names(name) == (generic,)
    assert drug_classes(generic) == (klass,)


def test_deterministic() -> None:
    first = user(DISCHARGE, "she wants me on fluconazole after the clopidogrel runs out")
    assert first == user(DISCHARGE, "she wants me on fluconazole after the clopidogrel runs out")
    assert date.fromisoformat("2026-04-15") == TS.date()


# -- a pause is its own status; what the doctor wants tried is planned -------------------------


@pytest.mark.parametrize("sentence", [
    "They've put my sertraline on hold.",
    "Pausing the ibuprofen till my kidney bloods come back.",
    "I'm taking a break from the lexapro.",
    "The warfarin is on hold for 5 days before surgery.",
    "Holding off on the metformin this week.",
])
def test_a_pause_is_paused(sentence: str) -> None:
    assert user(sentence)[0][2]["status"] == "paused"


@pytest.mark.parametrize(("sentence", "status"), [
    ("I stopped the naproxen.", "stopped"),
    ("I hold the baby while taking my sertraline 50 mg.", "current"),
])
def test_a_stop_or_no_pause(sentence: str, status: str) -> None:
    assert user(sentence)[0][2]["status"] == status


@pytest.mark.parametrize("sentence", [
    "The GP wants me to try amitriptyline 10 mg at night.",
    "I'm due to start sertraline 50 mg next week.",
    "The neurologist wants me on topiramate, no wait, on amitriptyline 10 mg at night.",
])
def test_wanted_or_due_is_planned(sentence: str) -> None:
    assert user(sentence)[-1][2]["status"] == "planned"


@pytest.mark.parametrize("sentence", ["You could try ibuprofen.", "Maybe try naproxen?", "Should I try cetirizine?"])
def test_a_suggestion_to_try_is_no_taking(sentence: str) -> None:
    assert user(sentence) == []


def test_paused_is_not_taken_for_alerts() -> None:
    from constraints.medicines import STOPPED
    assert "paused" in STOPPED


@pytest.mark.parametrize(("text", "want"), [
    ("amoxicillin 500mg tds", "500 mg three times a day"),
    ("lansoprazole 30 mg od", "30 mg once a day"),
    ("flucloxacillin 500mg q.d.s.", "500 mg four times a day"),
    ("doxycycline 100mg bd", "100 mg twice a day"),
    ("amitriptyline 10 mg nocte", "10 mg at night"),
    ("alendronic acid 70 mg once a week", "70 mg weekly"),
    ("methotrexate 2.5 mg three times a week", "2.5 mg three times a week"),
])
def test_british_and_weekly_frequencies(text: str, want: str) -> None:
    assert dose(text) == want


@pytest.mark.parametrize("text", ["I was on call od the weekend", "the BD team", "mane street"])
def test_abbreviations_need_their_own_word(text: str) -> None:
    assert dose(text) in (None, "once a day", "twice a day", "in the morning")  # a frequency word alone, no amount


@pytest.mark.parametrize(("sentence", "subject", "person"), [
    ("Pero mi esposo Carlos sí, he's allergic to penicillin.", "husband", "Carlos"),
    ("Mi hija Lucia takes amoxicillin 250 mg twice a day.", "daughter", "Lucia"),
    ("mi marido takes warfarin 5 mg.", "husband", "husband"),
    ("Mi esposa Ana is on sertraline 50 mg.", "wife", "Ana"),
    ("Mi hijo Mateo is allergic to amoxicillin.", "son", "Mateo"),
])
def test_a_spanish_family_word_said_in_english(sentence: str, subject: str, person: str) -> None:
    fields = user(sentence)[-1][2]
    assert (fields["subject"], fields.get("person")) == (subject, person)

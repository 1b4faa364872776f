"""Built-in constraints that read the bundled reference tables: passport validity per country,
the Schengen 90/180-day rule, drug interactions, allergies through brands and cross-reactivity,
insurance ending before a trip does, and warranties running out. Each has a raising case, a
case where nothing may fire, and a skipped one."""

from __future__ import annotations

from dataclasses import field, make_dataclass
from datetime import date
from typing import Any

import pytest
from constraint_records import Allergy, Document, Medication, Passport, Trip, record_class, user_module
from test_constraints import alerts, day, skip_reason

from constraints import BUILTIN
from constraints.builtin import medication_allergy, passport_valid_for_trips
from constraints.document_rules import warranty_expiring
from constraints.medicines import drug_interactions
from constraints.trip_rules import insurance_covers_trip, schengen_90_180
from factlog.vocabulary import CANONICAL


def with_fields(kind: str, *extra: str) -> Any:
    """The canonical record class of `kind` plus fields the vocabulary is gaining (status, item, ...)."""
    columns: list[Any] = [(name, Any, None) for name in dict.fromkeys((*CANONICAL[kind].fields, *extra))]
    columns.append(("fact_ids", list[int], field(default_factory=list)))
    return make_dataclass(CANONICAL[kind].class_name, columns, frozen=True, kw_only=True)


def passport(expiry_in: int, country: str = "USA") -> object:
    return Passport(number="X1", country=country, expiry_date=day(expiry_in), fact_ids=[1])


def trip(place: str, leave: int, back: int, ids: int = 7, country: str | None = None) -> object:
    return Trip(destination=place, country=country, departure_date=day(leave), return_date=day(back), fact_ids=[ids])


def test_the_new_builtins_are_registered() -> None:
    names = [c.name for c in BUILTIN]
    for name in ("schengen_90_180", "drug_interactions", "insurance_covers_trip", "warranty_expiring"):
        assert names.count(name) == 1


# --- passport validity per destination country ------------------------------------------


def test_a_six_month_country_wants_validity_from_entry() -> None:
    module = user_module(passport=passport(33), trips=[trip("Bangkok", 20, 27, country="Thailand")])
    [alert] = alerts(passport_valid_for_trips, module)
    assert alert.severity == "critical" and alert.due == day(20) and alert.fact_ids == (1, 7)
    assert alert.message == (
        f"passport expires 13 days after your Bangkok departure on {day(20)} (expiry {day(33)}); Thailand requires "
        f"6 months' validity from entry, to {date(2025, 9, 21)}: 171 days short")


def test_schengen_wants_three_months_beyond_departure_and_the_city_names_the_country() -> None:
    module = user_module(passport=passport(50), trips=[trip("Paris", 20, 30)])  # no country: the city's
    [alert] = alerts(passport_valid_for_trips, module)
    assert alert.severity == "critical"
    assert "France (Schengen area) requires 3 months' validity beyond departure" in alert.message
    assert day(30) == date(2025, 3, 31) and f"to {date(2025, 6, 30)}: " in alert.message  # June has 30 days


def test_enough_validity_for_the_country_raises_nothing() -> None:
    assert alerts(passport_valid_for_trips, user_module(passport=passport(240), trips=[trip("Bangkok", 20, 27)])) == []
    assert alerts(passport_valid_for_trips, user_module(passport=passport(400), trips=[trip("Paris", 20, 30)])) == []


def test_the_same_country_by_another_name_is_a_domestic_trip() -> None:
    home = trip("Denver", 20, 27, country="United States")
    assert alerts(passport_valid_for_trips, user_module(passport=passport(25, "USA"), trips=[home])) == []


def test_a_country_the_table_lacks_keeps_the_180_day_warning() -> None:
    module = user_module(passport=passport(100), trips=[trip("Ulaanbaatar", 20, 27, country="Mongolia")])
    [alert] = alerts(passport_valid_for_trips, module)
    assert alert.severity == "warning" and "many countries require 180 days' validity" in alert.message


# --- Schengen 90/180 ---------------------------------------------------------------------


def test_schengen_stays_over_90_days_in_180_are_critical() -> None:
    trips = [trip("Paris", 10, 54, ids=7), trip("Rome", 70, 115, ids=8), trip("Tokyo", 120, 140, ids=9)]
    [alert] = alerts(schengen_90_180, user_module(passport=passport(3000), trips=trips))
    assert alert.severity == "critical" and alert.fact_ids == (7, 8)
    assert alert.message == (
        f"Schengen stays exceed 90 days in 180: day 91 falls on {day(115)} (counting {day(-64)} – {day(115)}): "
        f"Paris ({day(10)} – {day(54)}), Rome ({day(70)} – {day(115)})")
    assert alert.due == day(70)


@pytest.mark.parametrize("trips", [
    [trip("Paris", 10, 54), trip("Rome", 70, 114)],  # 45 + 45 days: exactly 90
    [trip("Paris", 10, 80), trip("Oslo", 200, 250)],  # 71 and 51 days, more than 180 days apart
    [trip("Paris", -150, -60)],  # 91 days, all in the past
    [trip("Denver", 10, 150), trip("Tokyo", 160, 200)],  # not in Schengen
])
def test_schengen_stays_within_the_limit_raise_nothing(trips: list[object]) -> None:
    assert alerts(schengen_90_180, user_module(trips=trips)) == []


def test_schengen_limit_does_not_bind_an_eu_passport() -> None:
    long = [trip("Paris", 10, 150)]
    assert alerts(schengen_90_180, user_module(passport=passport(3000, "Germany"), trips=long)) == []
    assert len(alerts(schengen_90_180, user_module(passport=passport(3000, "Canada"), trips=long))) == 1


def test_schengen_skips_without_trips_or_places() -> None:
    assert "trips" in skip_reason(schengen_90_180, user_module(passport=passport(300)))
    Placeless = record_class("trip", without=("country", "destination"))
    placeless = user_module(trips=[Placeless(departure_date=day(3))])
    assert "neither 'country' nor 'destination'" in skip_reason(schengen_90_180, placeless)


# --- drug interactions -------------------------------------------------------------------

StatusMedication = with_fields("medication", "status")


def test_interacting_classes_found_through_brand_names_are_critical() -> None:
    meds = [Medication(name="Zoloft", fact_ids=[2]), Medication(name="Nardil", dose="15 mg", fact_ids=[3])]
    [alert] = alerts(drug_interactions, user_module(medications=meds))
    assert alert.severity == "critical" and alert.fact_ids == (2, 3)
    assert alert.message == "your medications Zoloft (SSRIs) and Nardil (MAOIs) interact: " \
                            "serotonin syndrome (contraindicated)"


def test_moderate_interactions_are_warnings_and_drug_class_text_counts() -> None:
    meds = [Medication(name="sertraline", drug_class="SSRI", fact_ids=[2]),
            Medication(name="Imitrex", fact_ids=[3]),
            Medication(name="warfarin", fact_ids=[4]), Medication(name="Advil", fact_ids=[5])]
    found = {a.fact_ids: (a.severity, a.message) for a in alerts(drug_interactions, user_module(medications=meds))}
    assert found[(2, 3)][0] == "warning" and "serotonin syndrome (moderate)" in found[(2, 3)][1]
    assert found[(4, 5)][0] == "critical" and "bleeding risk (major)" in found[(4, 5)][1]
    assert found[(2, 4)][0] == "critical"  # an SSRI with an anticoagulant
    assert found[(2, 5)][0] == "warning"  # an SSRI with an NSAID
    assert set(found) == {(2, 3), (4, 5), (2, 4), (2, 5)}


def test_no_interaction_between_unrelated_stopped_or_other_peoples_medications() -> None:
    meds = [Medication(name="sertraline", fact_ids=[2]), Medication(name="lisinopril", fact_ids=[3]),
            Medication(name="phenelzine", end_date=day(-1), fact_ids=[4]),
            StatusMedication(name="Nardil", status="stopped", fact_ids=[5]),
            Medication(name="tranylcypromine", person="Mia", fact_ids=[6]),
            Medication(name="Zoloft", fact_ids=[7]),  # the same drug twice is not an interaction
            Medication(name="chamomile", fact_ids=[8])]
    assert alerts(drug_interactions, user_module(medications=meds)) == []
    current = StatusMedication(name="Nardil", status="current", fact_ids=[5])
    assert len(alerts(drug_interactions, user_module(medications=[meds[0], current]))) == 1


def test_drug_interactions_skip_without_medications_or_names() -> None:
    assert "medications" in skip_reason(drug_interactions, user_module(allergies=[]))
    Nameless = record_class("medication", without=("name", "drug_class"))
    assert "neither 'name' nor 'drug_class'" in skip_reason(drug_interactions,
                                                             user_module(medications=[Nameless(dose="5 mg")]))


# --- allergies through brands and cross-reactivity -----------------------------------------


def test_a_brand_of_an_allergic_class_is_critical_and_a_cross_reacting_class_a_warning() -> None:
    allergy = Allergy(allergen="penicillin", fact_ids=[1])
    augmentin = Medication(name="Augmentin", fact_ids=[2])
    keflex = Medication(name="Keflex", fact_ids=[3])
    found = {a.fact_ids: a for a in alerts(medication_allergy, user_module(medications=[augmentin, keflex],
                                                                           allergies=[allergy]))}
    assert found[(1, 2)].severity == "critical"
    assert found[(1, 2)].message == "your medication Augmentin (penicillins) clashes with your allergy to penicillin"
    assert found[(1, 3)].severity == "warning"
    assert found[(1, 3)].message.startswith(
        "your medication Keflex (cephalosporins) needs caution with your allergy to penicillin (penicillins): ")


def test_an_allergy_to_one_drug_reaches_its_class_only_for_allergy_groups() -> None:
    amoxicillin = Allergy(allergen="amoxicillin", fact_ids=[1])
    codeine = Allergy(allergen="codeine", fact_ids=[4])
    meds = [Medication(name="ampicillin", fact_ids=[2]), Medication(name="morphine", fact_ids=[3]),
            StatusMedication(name="Amoxil", status="stopped", fact_ids=[5])]
    found = alerts(medication_allergy, user_module(medications=meds, allergies=[amoxicillin, codeine]))
    assert [(a.fact_ids, a.severity) for a in found] == [((1, 2), "critical")]


def test_allergy_skips_when_no_allergen_or_class_is_known() -> None:
    Bare = record_class("allergy", without=("drug_class",))
    meds = [Medication(name="Advil", fact_ids=[2])]
    assert "drug table" in skip_reason(medication_allergy, user_module(medications=meds,
                                                                       allergies=[Bare(allergen="pollen")]))
    assert alerts(medication_allergy, user_module(medications=meds, allergies=[Bare(allergen="aspirin", fact_ids=[1])])) \
        and alerts(medication_allergy, user_module(medications=meds, allergies=[Bare(allergen="Aleve", fact_ids=[1])]))


# --- insurance covering trips ------------------------------------------------------------

Policy = with_fields("document", "start_date", "item")


def test_insurance_ending_before_the_return_is_a_coverage_gap() -> None:
    insurance = Document(kind="travel insurance", number="TI-9", expiry_date=day(26), fact_ids=[3])
    module = user_module(passport=passport(3000), documents=[insurance], trips=[trip("Lisbon", 20, 30)])
    [alert] = alerts(insurance_covers_trip, module)
    assert alert.severity == "warning" and alert.fact_ids == (3, 7) and alert.due == day(20)
    assert alert.message == (f"your travel insurance TI-9 ends {day(26)}, 4 days before your Lisbon return "
                             f"({day(30)}): the last 4 days of the trip are not covered")


def test_insurance_starting_after_the_departure_is_a_coverage_gap() -> None:
    late = Policy(kind="insurance", start_date=day(22), expiry_date=day(60), fact_ids=[3])
    [alert] = alerts(insurance_covers_trip, user_module(passport=passport(3000), documents=[late],
                                                        trips=[trip("Lisbon", 20, 30)]))
    assert f"starts {day(22)}, 2 days after your Lisbon departure" in alert.message


@pytest.mark.parametrize("documents", [
    [Document(kind="insurance", expiry_date=day(40), fact_ids=[3])],  # covers the trip
    [Document(kind="insurance", expiry_date=day(26), fact_ids=[3]),  # a second policy covers it
     Document(kind="Travel Insurance", expiry_date=day(90), fact_ids=[4])],
    [Document(kind="car insurance", expiry_date=day(26), fact_ids=[3])],  # not travel cover
    [Document(kind="insurance", holder="Mia", expiry_date=day(26), fact_ids=[3])],  # someone else's
    [Document(kind="insurance", expiry_date=day(10), fact_ids=[3])],  # ended before: not this trip's policy
])
def test_covered_trips_raise_nothing(documents: list[object]) -> None:
    module = user_module(passport=passport(3000), documents=documents, trips=[trip("Lisbon", 20, 30)])
    assert alerts(insurance_covers_trip, module) == []


def test_domestic_and_past_trips_need_no_cover() -> None:
    insurance = [Document(kind="insurance", expiry_date=day(26), fact_ids=[3])]
    trips = [trip("Denver", 20, 30, country="USA"), trip("Lisbon", -20, -1)]
    assert alerts(insurance_covers_trip, user_module(passport=passport(3000), documents=insurance, trips=trips)) == []


def test_insurance_skips_without_documents_trips_or_their_fields() -> None:
    assert "documents" in skip_reason(insurance_covers_trip, user_module(trips=[trip("Lisbon", 20, 30)]))
    insurance = [Document(kind="insurance", expiry_date=day(26), fact_ids=[3])]
    assert "trips" in skip_reason(insurance_covers_trip, user_module(documents=insurance))
    Kindless = record_class("document", without=("kind",))
    assert "'kind'" in skip_reason(insurance_covers_trip, user_module(documents=[Kindless(expiry_date=day(2))],
                                                                      trips=[trip("Lisbon", 20, 30)]))


# --- warranties --------------------------------------------------------------------------

Warranty = with_fields("document", "item", "start_date")


def test_a_warranty_expiring_within_30_days_on_an_item_that_works_raises_nothing() -> None:
    # the espresso machine's warranty ends in 12 days, but nothing is wrong with it (the fault
    # reading is tested with warranty_fault_open in test_warranty_faults.py)
    espresso = Warranty(kind="warranty", item="Breville espresso machine", expiry_date=day(12), fact_ids=[4])
    assert alerts(warranty_expiring, user_module(documents=[espresso])) == []


def test_warranties_far_off_expired_or_other_documents_raise_nothing() -> None:
    documents = [Warranty(kind="warranty", item="TV", expiry_date=day(31), fact_ids=[1]),
                 Warranty(kind="warranty", item="fridge", expiry_date=day(-1), fact_ids=[2]),
                 Document(kind="visa", expiry_date=day(5), fact_ids=[3])]
    assert alerts(warranty_expiring, user_module(documents=documents)) == []


def test_warranty_skips_without_documents_or_kinds() -> None:
    assert "documents" in skip_reason(warranty_expiring, user_module(trips=[]))
    Kindless = record_class("document", without=("kind",))
    assert "'kind'" in skip_reason(warranty_expiring, user_module(documents=[Kindless(expiry_date=day(2))]))

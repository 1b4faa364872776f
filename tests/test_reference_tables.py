"""The bundled reference tables (factlog.reference): they load and validate, every entry
cites a source, a corrupt copy fails loudly, and the lookups read names as people write them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from factlog.reference.countries import country_named, country_of_city, country_of_place
from factlog.reference.drugs import class_id, cross_reactions, drug_classes, generic_names, interaction
from factlog.reference.tables import (
    ReferenceTableError,
    country_table,
    drug_table,
    load_country_table,
    load_drug_table,
)

TABLES = REPO / "factlog" / "reference"


def test_bundled_tables_load_and_cite_their_sources() -> None:
    drugs, countries = drug_table(), country_table()
    assert drugs.source and drugs.brands_source and countries.source and countries.cities_source
    assert all(item.source for item in (*drugs.classes, *drugs.interactions, *drugs.cross_reactivity))
    assert all(country.source for country in countries.countries)
    assert len(countries.cities) >= 300 and len(drugs.classes) >= 17
    wanted = {"penicillins", "cephalosporins", "sulfonamides", "nsaids", "maois", "ssris", "snris", "triptans",
              "anticoagulants", "antiplatelets", "statins", "macrolides", "fluoroquinolones", "opioids",
              "benzodiazepines", "ace_inhibitors", "beta_blockers"}
    assert wanted <= {item.id for item in drugs.classes}
    assert "United States passport" in countries.assumptions


def test_tables_are_package_data_of_the_wheel() -> None:
    text = (REPO / "pyproject.toml").read_text("utf-8")
    assert '"factlog.reference"' in text and '"*.json"' in text


def _corrupt(tmp_path: Path, name: str, change: Any) -> Path:
    data = json.loads((TABLES / name).read_text("utf-8"))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d["interactions"].append({**d["interactions"][0], "classes": ["ssris", "nope"]}), "nope"),
    (lambda d: d["brands"].update(Foo=["no-such-drug"]), "Foo"),
    (lambda d: d["classes"][0].pop("source"), "source"),
    (lambda d: d["interactions"][0].update(severity="mild"), "severity"),
    (lambda d: d["classes"].append(d["classes"][0]), "duplicate class id"),
    (lambda d: d["cross_reactivity"][0].update(caution="nothing"), "cross-reactivity"),
    (lambda d: d.update(extra=1), "extra"),
])
def test_a_corrupt_drug_table_fails_loudly(tmp_path: Path, change: Any, problem: str) -> None:
    with pytest.raises(ReferenceTableError, match=problem) as raised:
        load_drug_table(_corrupt(tmp_path, "drugs.json", change))
    assert "drugs.json" in str(raised.value)


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d["cities"].update(Atlantis="XX"), "unknown country codes"),
    (lambda d: d["countries"][0].update(passport_validity=None), "Schengen country needs"),
    (lambda d: d["countries"][0].update(iso2="fra"), "iso2"),
    (lambda d: d["countries"][0]["passport_validity"].update(months=-1), "months"),
    (lambda d: d["countries"].append(d["countries"][1]), "duplicate country code"),
    (lambda d: d["countries"][2].update(us_visa="maybe"), "us_visa"),
])
def test_a_corrupt_country_table_fails_loudly(tmp_path: Path, change: Any, problem: str) -> None:
    with pytest.raises(ReferenceTableError, match=problem):
        load_country_table(_corrupt(tmp_path, "countries.json", change))


def test_unreadable_or_malformed_tables_fail_loudly(tmp_path: Path) -> None:
    with pytest.raises(ReferenceTableError, match="missing.json"):
        load_drug_table(tmp_path / "missing.json")
    broken = tmp_path / "countries.json"
    broken.write_text('{"format": 1,', "utf-8")
    with pytest.raises(ReferenceTableError, match="countries.json"):
        load_country_table(broken)


def test_drug_names_brands_and_classes() -> None:
    assert generic_names("Advil") == ("ibuprofen",) and generic_names("Coumadin") == ("warfarin",)
    assert generic_names("Zoloft 50 mg tablets") == ("sertraline",) and generic_names("sertraline") == ("sertraline",)
    assert generic_names("vitamin D") == () and drug_classes("chamomile tea") == ()
    assert drug_classes("Zoloft") == ("ssris",) and drug_classes("tramadol") == ("opioids", "serotonergic_opioids")
    assert set(drug_classes("aspirin")) == {"salicylates", "antiplatelets"}
    for text, expected in [("SSRI", "ssris"), ("SSRIs", "ssris"), ("penicillin", "penicillins"), ("Sulfa drugs",
                           "sulfonamides"), ("blood thinners", "anticoagulants"), ("MAO inhibitors", "maois"),
                           ("beta-blockers", "beta_blockers"), ("NSAID", "nsaids")]:
        assert class_id(text) == expected, text
    assert class_id("pollen") is None


def test_interactions_and_cross_reactivity_are_symmetric_lookups() -> None:
    found = interaction("ssris", "maois")
    assert found is not None and found.severity == "contraindicated" and "serotonin syndrome" in found.reason
    assert interaction("maois", "ssris") == found
    assert interaction("anticoagulants", "nsaids") is not None and interaction("macrolides", "statins") is not None
    assert interaction("statins", "proton_pump_inhibitors") is None
    assert [c.caution for c in cross_reactions("penicillins")] == ["cephalosporins", "carbapenems"]
    assert cross_reactions("statins") == ()


def test_places_name_their_country() -> None:
    def name(found: object) -> str | None:
        return getattr(found, "name", None)

    assert name(country_of_city("Tokyo")) == "Japan" and name(country_of_city("  reykjavik ")) == "Iceland"
    assert name(country_named("USA")) == "United States" and name(country_named("Holland")) == "Netherlands"
    assert name(country_named("the UK")) == "United Kingdom"
    assert name(country_of_place("Paris, France")) == "France" and name(country_of_place("Kyoto")) == "Japan"
    assert country_of_place("Springfield") is None and country_of_place("") is None
    france, japan = country_named("France"), country_named("Japan")
    assert france is not None and france.schengen and france.passport_validity is not None
    assert (france.passport_validity.months, france.passport_validity.counted_from) == (3, "departure")
    assert japan is not None and not japan.schengen and japan.us_visa == "none"
    thailand = country_named("Thailand")
    assert thailand is not None and thailand.passport_validity is not None
    assert (thailand.passport_validity.months, thailand.passport_validity.counted_from) == (6, "entry")
    assert country_table().schengen.days == 90 and country_table().schengen.window_days == 180

"""The entity comparison of extraction labels (`runtime.eval_names`, `precision_entity`)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any, Callable

import pytest

from runtime.eval_labels import Extraction, Label, TypedFact, entity_pairs, largest_matching, matches, matches_entity
from runtime.eval_names import content_words, name_fields, owners, role, same_entity_value
from runtime.eval_report import extraction_changes

Uac = Callable[..., Any]

SAME = [  # (kind, field, extracted, labelled): the same entity, spelled differently
    ("event", "title", "standup", "team standup"),
    ("event", "title", "Team Standup", "standup"),
    ("bill", "payee", "Con Edison electric bill", "Con Edison"),
    ("payment", "payee", "Gary Morales (landlord)", "Gary Morales"),
    ("bill", "payee", "Chase Sapphire card", "Chase Sapphire credit card"),
    ("bill", "payee", "the Chase Sapphire", "Chase Sapphire credit card"),
    ("subscription", "vendor", "The New York Times", "New York Times"),
    ("appointment", "provider", "Dr. Patel", "Patel"),
    ("appointment", "provider", "Dr Patel's office", "Dr. Patel office"),
    ("event", "title", "yoga classes", "yoga class"),
    ("event", "title", "Zürich offsite", "zurich offsite"),
    ("payment", "from_account", "husband’s savings", "husband's savings"),
    ("medication", "name", "Coumadin", "warfarin"),
    ("medication", "name", "Augmentin", "amoxicillin/clavulanate"),
    ("medication", "name", "ibuprofen 200 mg", "ibuprofen"),
    ("allergy", "allergen", "penicillin", "penicillins"),
    ("trip", "destination", "Tokyo", "Japan"),
    ("trip", "destination", "Japan", "Tokyo"),
    ("trip", "destination", "Paris, France", "Paris"),
    ("trip", "country", "USA", "United States"),
    ("trip", "confirmation", "abc-123 xy", "ABC123XY"),
    ("account", "last4", "48 21", "4821"),
    ("relative", "name", "Emma", "emma"),
]

DIFFERENT = [  # (kind, field, extracted, labelled): not the same entity
    ("bill", "payee", "Chase Freedom", "Chase Sapphire"),
    ("appointment", "provider", "Dr. Patel", "Dr. Patil"),
    ("event", "title", "flight to Tokyo", "flight to Osaka"),
    ("payment", "payee", "Gary Smith", "Gary Morales"),
    ("bill", "payee", "credit card", "Chase Sapphire credit card"),  # only generic words: compared strictly
    ("event", "title", "dentist appointment", "appointment"),
    ("payment", "from_account", "joint checking", "husband's savings"),
    ("payment", "from_account", "savings", "husband's savings"),  # whose it is tells them apart
    ("event", "title", "camp", "Lily's summer camp"),
    ("payment", "requested_by", "user", "mom"),
    ("medication", "name", "warfarin", "apixaban"),  # one class, two drugs
    ("medication", "name", "Advil", "aspirin"),
    ("allergy", "allergen", "penicillin", "sulfa"),
    ("trip", "destination", "Tokyo", "Osaka"),  # two cities of one country
    ("trip", "destination", "Tokyo", "France"),
    ("trip", "confirmation", "ABC123", "ABC124"),
    ("relative", "name", "Emma", "Emily"),
]


@pytest.mark.parametrize(("kind", "field", "got", "want"), SAME)
def test_names_of_one_entity_match(kind: str, field: str, got: str, want: str) -> None:
    assert same_entity_value(kind, field, got, want) is True
    fact, label = TypedFact("s1", kind, {field: got}), Label("s1", kind, {field: want})
    assert matches_entity(fact, label)


@pytest.mark.parametrize(("kind", "field", "got", "want"), DIFFERENT)
def test_names_of_different_entities_do_not_match(kind: str, field: str, got: str, want: str) -> None:
    assert same_entity_value(kind, field, got, want) is False
    assert not matches_entity(TypedFact("s1", kind, {field: got}), Label("s1", kind, {field: want}))


@pytest.mark.parametrize(("kind", "field", "got", "want"), [
    ("subscription", "status", "cancelled", "cancelling"), ("subscription", "cadence", "monthly", "month"),
    ("trip", "booking_status", "booked", "planned"), ("relative", "relationship", "mother", "stepmother"),
    ("medication", "drug_class", "nsaid", "nsaids"), ("trip", "departure_time", "07:30", "7:30"),
    ("bill", "amount_usd", 120.0, 121.0), ("trip", "departure_date", "2025-03-14", "2025-03-15"),
])
def test_closed_vocabularies_dates_and_numbers_stay_strict(kind: str, field: str, got: object, want: object) -> None:
    assert same_entity_value(kind, field, got, want) is None
    assert not matches_entity(TypedFact("s1", kind, {field: got}), Label("s1", kind, {field: want}))


def test_the_roles_come_from_the_vocabulary() -> None:
    assert role("event", "title") == "name" and role("bill", "payee") == "name" and role("trip", "carrier") == "name"
    assert role("relative", "name") == "name" and role("medication", "name") == "drug"
    assert role("trip", "destination") == "place" and role("trip", "confirmation") == "identifier"
    assert role("subscription", "status") == "strict" and role("trip", "departure_date") == "strict"
    assert role("trip", "made_up_field") == "strict" and role("made_up_kind", "title") == "strict"
    assert ("medication", "name") not in name_fields() and ("bill", "payee") in name_fields()
    assert content_words("the Chase Sapphire credit card") == {"chase", "sapphire"}
    assert content_words("Gary Morales (landlord)") == {"gary", "morale", "landlord"}
    assert owners("my husband’s savings") == {"husband"} and owners("parents' car") == {"parent"}


def test_every_labelled_field_must_agree_and_kind_and_session_too() -> None:
    label = Label("s2", "bill", {"payee": "Con Edison", "amount_usd": 84.5})
    assert matches_entity(TypedFact("s2", "bill", {"payee": "Con Edison electric", "amount_usd": "$84.50"}), label)
    assert not matches_entity(TypedFact("s2", "bill", {"payee": "Con Edison electric", "amount_usd": 85}), label)
    assert not matches_entity(TypedFact("s2", "bill", {"payee": "Con Edison"}), label)  # a field missing
    assert not matches_entity(TypedFact("s1", "bill", {"payee": "Con Edison", "amount_usd": 84.5}), label)
    assert not matches_entity(TypedFact("s2", "subscription", {"payee": "Con Edison", "amount_usd": 84.5}), label)


def test_strict_and_entity_figures_side_by_side() -> None:
    facts = [TypedFact("s1", "event", {"title": "standup", "weekday": "monday"}),
             TypedFact("s1", "event", {"title": "Dr. Patil"}),
             TypedFact("s1", "bill", {"payee": "Con Edison", "amount_usd": 84.5})]
    labels = [Label("s1", "event", {"title": "team standup", "weekday": "monday"}),
              Label("s1", "event", {"title": "Dr. Patel"}), Label("s1", "bill", {"payee": "con edison"})]
    counts = Extraction()
    missed, missed_entity = counts.add_scenario(facts, labels)
    assert missed == labels[:2] and missed_entity == [labels[1]]
    found = counts.to_json()
    assert found["event"] == {"facts": 2, "labels": 2, "matched": 0, "precision": 0.0, "recall": 0.0,
                              "matched_entity": 1, "precision_entity": 0.5, "recall_entity": 0.5,
                              "found_facts": 1, "found_labels": 1, "precision_found": 0.5, "recall_found": 0.5}
    assert found["bill"]["precision"] == found["bill"]["precision_entity"] == 1.0
    merged = Extraction()
    merged.merge(counts.raw())
    merged.merge({"event": {"facts": 1, "labels": 1, "matched_facts": 1, "matched_labels": 1}})  # an older row
    assert merged.to_json()["event"]["matched_entity"] == 1 and merged.to_json()["event"]["matched"] == 1


def test_lenient_pairs_are_a_largest_matching() -> None:
    # "Chase" matches both labels; taken greedily by the first it would leave the second unpaired
    facts = [TypedFact("s1", "bill", {"payee": "Chase"}), TypedFact("s1", "bill", {"payee": "Chase Freedom"})]
    labels = [Label("s1", "bill", {"payee": "Chase Freedom"}), Label("s1", "bill", {"payee": "Chase Sapphire"})]
    assert [matches(f, label) for f in facts for label in labels] == [False, False, True, False]
    assert entity_pairs(facts, labels) == {0, 1}
    assert entity_pairs(facts[:1], labels) == {0}  # one state pairs with one label at most


def report(extraction: dict[str, Any] | None) -> dict[str, Any]:
    summary = {} if extraction is None else {"extraction": extraction}
    return {"format": 1, "command": "alerts", "git_revision": None, "producer": "compiler", "model": None,
            "settings": {}, "started_at": "", "seconds": 1, "summary": summary,
            "cases": [{"id": "c1", "status": "pass", "detail": "", "seconds": 0.1}]}


def test_compare_shows_strict_and_entity_figures_and_copes_with_older_reports(uac: Uac, tmp_path: Path) -> None:
    old = {"event": {"facts": 2, "labels": 2, "matched": 0, "precision": 0.0, "recall": 0.0},
           "bill": {"facts": 1, "labels": 1, "matched": 1, "precision": 1.0, "recall": 1.0}}
    new = {"event": {"facts": 2, "labels": 2, "matched": 0, "precision": 0.0, "recall": 0.0,
                     "precision_entity": 0.5, "recall_entity": 0.5},
           "bill": {"facts": 1, "labels": 1, "matched": 1, "precision": 1.0, "recall": 1.0,
                    "precision_entity": 1.0, "recall_entity": 1.0}}
    changes = extraction_changes(report(old), report(new))
    assert [c.kind for c in changes] == ["bill", "event"]
    assert changes[1].before["precision_entity"] is None and changes[1].after["recall_entity"] == 0.5
    assert extraction_changes(report(None), report(None)) == [] and extraction_changes(report(new), report(new)) == []
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(report(old)))
    b.write_text(json.dumps(report(new)))
    r = uac("eval", "compare", str(a), str(b))
    assert r.code == 0 and "event: 0.00 / 0.00 -> 0.00 / 0.00; - / - -> 0.50 / 0.50; - / - -> - / -" in r.out
    data = json.loads(uac("eval", "compare", str(a), str(b), "--json").out)
    unfound = dict.fromkeys(("precision_found", "recall_found"))
    assert data["extraction"][1] == {"kind": "event", "before": {**dict.fromkeys(
        ("precision_entity", "recall_entity")), "precision": 0.0, "recall": 0.0, **unfound},
        "after": {"precision": 0.0, "recall": 0.0, "precision_entity": 0.5, "recall_entity": 0.5, **unfound}}
    b.write_text(json.dumps(report({"event": "junk"})))  # a malformed summary is ignored, not a traceback
    assert uac("eval", "compare", str(a), str(b)).code == 0


def test_largest_matching_is_as_large_as_any() -> None:
    rng = random.Random(11)
    for _ in range(300):
        left, right = rng.randint(0, 5), rng.randint(0, 5)
        options = [[r for r in range(right) if rng.random() < 0.4] for _ in range(left)]
        found = largest_matching(options)
        assert all(found_left in range(left) and state in options[found_left] for state, found_left in found.items())
        assert len(set(found.values())) == len(found)
        assert len(found) == _brute(options)
    chain = [[0]] + [[i - 1, i] for i in range(1, 1500)]  # augmenting paths deeper than the recursion limit
    assert len(largest_matching(chain)) == 1500


def _brute(options: list[list[int]]) -> int:
    best = 0
    for pick in itertools.product(*[[*o, None] for o in options]):
        taken = [p for p in pick if p is not None]
        if len(set(taken)) == len(taken):
            best = max(best, len(taken))
    return best


@pytest.mark.parametrize(("got", "want", "same"), [
    ("25 mg daily", "25 mg once a day", True), ("400 mg twice daily", "400 mg two times a day", True),
    ("500 mg bid", "500 mg twice a day", True), ("5 mg each morning", "5 mg in the morning", True),
    ("40 mg at bedtime", "40 mg at night", True), ("2.5 mg each day", "2.5 mg daily", True),
    ("25 mg daily", "50 mg daily", False), ("400 mg twice a day", "400 mg three times a day", False),
    ("3 mg every evening", "3 mg at night", False), ("81 mg", "81 mg once a day", False),
])
def test_doses_agree_as_entities_in_any_wording_of_the_same_frequency(got: str, want: str, same: bool) -> None:
    assert same_entity_value("medication", "dose", got, want) is same


def test_a_dose_neither_side_can_read_is_compared_strictly() -> None:
    assert same_entity_value("medication", "dose", "a splash", "a splash") is None

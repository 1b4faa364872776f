"""Documents across a session: a renewed passport supersedes the old expiry, year-less
expiries lie ahead, and warranties on several items bought together each keep their item."""

from __future__ import annotations

from datetime import datetime

import pytest
from typed_sessions import extracted, session

from factlog.extract import RuleExtractor
from factlog.model import JsonValue

JAN = datetime(2026, 1, 8, 15, 0)


def documents(*turns: tuple[str, str], ts: datetime = JAN) -> list[tuple[str | None, str | None, dict[str, JsonValue]]]:
    return extracted(("passport", "document"), *turns, ts=ts)


@pytest.mark.parametrize("said", [
    "Good news, the new passport came through the post this morning.",
    "I renewed my passport last week.",
    "Got my new passport back today!",
    "Finally have my brand new passport.",
    "The new one arrived yesterday, so the old passport is void.",
    "My passport renewal came through!",
    "Finally have my new passport, good until 2036.",
])
def test_a_renewal_clears_the_old_expiry(said: str) -> None:
    facts = documents(("user", "My passport expires on the 2nd of June."), ("user", said))
    assert facts[0][2] == {"expiry_date": "2026-06-02"}
    assert ("passport", "passport") == facts[-1][:2] and facts[-1][2].get("expiry_date", "unset") is None


@pytest.mark.parametrize("said", [
    "I need to renew my passport before June.",
    "I'll renew my passport once the trip is booked.",
    "I have applied for a new passport.",
    "Waiting for the new passport to arrive.",
    "Should I renew my passport now?",
    "I cannot travel until the new passport arrives.",
])
def test_a_renewal_not_yet_done_keeps_the_expiry(said: str) -> None:
    facts = documents(("user", "My passport expires on the 2nd of June."), ("user", said))
    assert all(fields.get("expiry_date", "2026-06-02") == "2026-06-02" for _, _, fields in facts)


def test_the_new_expiry_said_later_is_the_new_passports() -> None:
    facts = documents(("user", "My passport runs out on the 2nd of June."),
                      ("user", "Renewed it! The new passport says expiry 4 Feb 2036."))
    assert facts[-1] == ("passport", "passport", {"expiry_date": "2036-02-04"})


@pytest.mark.parametrize(("said", "expiry"), [
    ("my passport expires on the 30th of August", "2026-08-30"),  # not last August
    ("my passport is valid till 3 May", "2026-05-03"),
    ("my visa expires March 31", "2026-03-31"),
    ("my passport expired on the 30th of August", "2025-08-30"),  # told as past
    ("my passport expires 30 August 2025", "2025-08-30"),  # the year said
])
def test_a_year_less_expiry_lies_ahead_unless_told_as_past(said: str, expiry: str) -> None:
    [fact] = documents(("user", said))
    assert fact[2]["expiry_date"] == expiry


def test_day_first_numeric_dates() -> None:
    [fact] = documents(("user", "Picked up my China visa, single entry, valid till 31/5."), ts=datetime(2026, 2, 9))
    assert fact[2]["expiry_date"] == "2026-05-31"


MARCH = datetime(2025, 3, 22, 14, 0)


def test_two_items_bought_together_keep_their_own_warranties() -> None:
    facts = documents(("user", "big day. got a Bosch washer and an LG dryer at Home Depot today. washer came with 2 "
                               "years warranty, the dryer just 1"), ts=MARCH)
    assert facts == [
        ("document", "warranty/bosch", {"kind": "warranty", "item": "Bosch washer", "purchase_date": "2025-03-22",
                                        "expiry_date": "2027-03-22", "provider": "Bosch"}),
        ("document", "warranty/lg", {"kind": "warranty", "item": "LG dryer", "purchase_date": "2025-03-22",
                                     "expiry_date": "2026-03-22", "provider": "LG"})]


def test_a_recap_naming_both_items_by_brand_and_noun() -> None:
    facts = documents(("user", "Bought a Bosch washer and an LG dryer today."),
                      ("assistant", "Noted. The Bosch warranty runs until March 22, 2027 and the LG dryer's until "
                                    "March 22, 2026."), ts=MARCH)
    assert [(key, fields["item"], fields["expiry_date"]) for _, key, fields in facts] == [
        ("warranty/bosch", "Bosch washer", "2027-03-22"), ("warranty/lg", "LG dryer", "2026-03-22")]


def test_one_of_the_items_named_alone() -> None:
    facts = documents(("user", "We bought a Samsung fridge and a Bosch dishwasher today."),
                      ("user", "The dishwasher has a two-year warranty."), ts=MARCH)
    assert [fields.get("item") for _, _, fields in facts] == ["Bosch dishwasher"]


def test_same_day_is_the_day_of_the_purchase_before() -> None:
    facts = documents(("user", "for my records: on 3/4 I bought a KitchenAid stand mixer, comes with a five year "
                               "warranty. same day got a Breville espresso machine, one year warranty."),
                      ts=datetime(2025, 3, 5))
    assert [(fields["item"], fields["purchase_date"], fields["expiry_date"]) for _, _, fields in facts] == [
        ("KitchenAid stand mixer", "2025-03-04", "2030-03-04"),
        ("Breville espresso machine", "2025-03-04", "2026-03-04")]


def test_an_item_named_by_brand_and_size_takes_what_it_replaced() -> None:
    [fact, *_] = documents(("user", "The old water heater gave up last weekend, and Ace Plumbing put in a new Rheem "
                                    "50-gallon on Thursday, the 3rd. It has a six-year Rheem warranty."),
                           ts=datetime(2024, 10, 5))
    assert fact[2]["item"] == "Rheem 50-gallon water heater"


@pytest.mark.parametrize(("said", "insurer"), [
    ("Sorted the travel insurance through Cover-More.", "Cover-More"),
    ("Bought a policy with Medibank for the trip.", "Medibank"),
    ("Saved: TravelSure single-trip Europe policy TS-4471-2093, cover from 10 April to 25 April 2026.", "TravelSure"),
])
def test_an_insurer_the_list_does_not_know(said: str, insurer: str) -> None:
    facts = documents(("user" if not said.startswith("Saved") else "assistant", said))
    assert facts and facts[0][2]["provider"] == insurer


@pytest.mark.parametrize("said", [
    "Got travel insurance from March 3 to March 15.",  # a date, not an insurer
    "Saved: Travel insurance from March 3 to March 15.",
    "My travel insurance with Europe coverage ends May 2.",
])
def test_no_insurer_from_dates_places_or_plan_words(said: str) -> None:
    facts = documents(("assistant" if said.startswith("Saved") else "user", said))
    assert all("provider" not in fields for _, _, fields in facts)


def test_a_relation_named_in_full_keeps_relation_and_name() -> None:
    facts = documents(("user", "I am handling my father's travel this year."), ("user", "His name is Ramesh Iyer."),
                      ("user", "His passport is expiring on 3rd June 2026."),
                      ("assistant", "Noted: your father Ramesh Iyer's passport expires on 3 June 2026."))
    assert {(key, fields["holder"]) for _, key, fields in facts} == {("passport/father", "Ramesh Iyer")}


FEB = datetime(2026, 2, 10, 12, 0)


@pytest.mark.parametrize(("said", "kind", "expiry"), [
    ("My passport's good until March next year.", "passport", "2027-03-01"),
    ("passport expiry is 03/2027", "passport", "2027-03-01"),
    ("my ESTA runs out in August", "document", "2026-08-01"),
    ("I have travel cover until the end of June.", "document", "2026-06-30"),
    ("My licence is up for renewal in May 2027.", "document", "2027-05-01"),
    ("My daughter's passport expires in July.", "document", "2026-07-01"),
    ("I've got AppleCare on my iPhone 15 until September 2027.", "document", "2027-09-01"),
])
def test_an_expiry_said_by_its_month_is_its_first_day(said: str, kind: str, expiry: str) -> None:
    [fact] = documents(("user", said), ts=FEB)
    assert fact[0] == kind and fact[2]["expiry_date"] == expiry


@pytest.mark.parametrize("said", [
    "My passport expired in March.",  # past
    "I might go in March.",  # no document
    "Is my passport still valid in March?",  # a question
])
def test_no_month_expiry_from_the_past_or_questions(said: str) -> None:
    assert all(fields.get("expiry_date") != "2026-03-01" for _, _, fields in documents(("user", said), ts=FEB))


def test_a_guarantee_is_a_warranty_and_a_possessive_item_is_the_item() -> None:
    [hairdryer] = documents(("user", "Bought a Dyson hairdryer last week, two-year guarantee."), ts=FEB)
    assert hairdryer[2]["kind"] == "warranty" and hairdryer[2]["item"] == "Dyson hairdryer"
    [laptop] = documents(("user", "The laptop's warranty runs out on 1 April."), ts=FEB)
    assert laptop[2]["item"] == "laptop" and laptop[2]["expiry_date"] == "2026-04-01"


def test_a_relations_passport_named_either_way_is_one_document() -> None:
    turns = (("user", "my daughter Maya is 12. her passport expires aug 20"),
             ("assistant", "Noted: Maya's passport expires on August 20, 2026."))
    facts = RuleExtractor().extract(session(*turns, ts=FEB), user_only=False)
    assert {(f.key, f.fields["holder"], f.fields["subject"]) for f in facts if f.kind == "document"} == {
        ("passport/daughter", "Maya", "daughter")}


@pytest.mark.parametrize(("said", "start", "end"), [
    ("Travel insurance sorted: coverage 3 Jun – 15 Jun.", "2026-06-03", "2026-06-15"),
    ("My travel insurance policy covers 14 days starting June 3.", "2026-06-03", "2026-06-16"),
    ("Bought travel insurance through Allianz, policy #AZ-55123, June 3 to June 15.", "2026-06-03", "2026-06-15"),
    ("the insurance runs from the 3rd to the 15th of June", "2026-06-03", "2026-06-15"),
])
def test_insurance_periods(said: str, start: str, end: str) -> None:
    [fact] = documents(("user", said), ts=FEB)
    assert (fact[2]["start_date"], fact[2]["expiry_date"]) == (start, end)


@pytest.mark.parametrize(("said", "fields"), [
    ("I'm insured until the 15th of June with Allianz.", {"expiry_date": "2026-06-15", "provider": "Allianz"}),
    ("Got my extended warranty from Best Buy on the TV, 3 more years.", {"provider": "Best Buy", "item": "TV"}),
    ("Our Samsung fridge, bought 14 Feb 2025, has a 12-month warranty.",
     {"item": "Samsung fridge", "provider": "Samsung", "purchase_date": "2025-02-14", "expiry_date": "2026-02-14"}),
    ("The washing machine warranty finishes end of next month.", {"expiry_date": "2026-03-31"}),
])
def test_more_ways_to_state_cover(said: str, fields: dict[str, JsonValue]) -> None:
    [fact] = documents(("user", said), ts=FEB)
    assert fact[2] == {**fact[2], **fields}


def test_an_expiry_before_a_later_date_is_no_range() -> None:
    [fact] = documents(("assistant", "Note that your e-visa ends February 25, before a March 5 return."), ts=FEB)
    assert fact[2]["expiry_date"] == "2026-02-25" and "start_date" not in fact[2]

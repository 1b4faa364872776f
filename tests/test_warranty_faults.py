"""warranty_fault_open and warranty_expiring: a fault the user reported on an item whose
warranty ends within 60 days (warranty_fault_open) or 30 (warranty_expiring): raising, not
raising (no fault, a fault on another appliance), skipped; and the note reading."""

from __future__ import annotations

from dataclasses import dataclass, field

from constraint_records import Document, record_class, user_module
from test_constraints import alerts, day, skip_reason
from test_table_constraints import Warranty

from constraints.document_rules import warranty_expiring
from constraints.warranty_faults import open_fault, warranty_fault_open


@dataclass
class Note:
    text: str
    fact_ids: list[int] = field(default_factory=list)


def notes(*texts: str, first: int = 10) -> list[Note]:
    return [Note(text, [first + i]) for i, text in enumerate(texts)]


def bosch(expiry_in: int) -> object:
    return Warranty(kind="warranty", item="Bosch 300 Series dishwasher", provider="Bosch",
                    expiry_date=day(expiry_in), fact_ids=[3])


def test_a_fault_named_after_the_item_raises_with_the_fault_in_the_message() -> None:
    module = user_module(documents=[bosch(34)], notes=notes("Remember the Bosch?", "The fancy dishwasher?",
                                                           "It's been leaving dirty water after every cycle."))
    [alert] = alerts(warranty_fault_open, module)
    assert alert.severity == "warning" and alert.due == day(34) and alert.fact_ids == (3,)
    assert alert.message == (f"the warranty on your Bosch 300 Series dishwasher expires in 34 days ({day(34)}) and you "
                             "reported a fault (\"It's been leaving dirty water after every cycle.\"); claim it before then")


def test_a_fault_in_the_same_sentence_as_the_item_raises() -> None:
    module = user_module(documents=[bosch(50)], notes=notes("The dishwasher stopped draining last week."))
    assert len(alerts(warranty_fault_open, module)) == 1


def test_no_fault_a_fixed_fault_far_off_or_within_30_days_raises_nothing() -> None:
    quiet = notes("The dishwasher works fine.", "No problems with the Bosch so far.")
    fixed = notes("The dishwasher is leaking.", "The Bosch technician fixed the dishwasher, works great now.")
    old = notes("Our old dishwasher leaked for years, so we bought the Bosch.")
    for found, expiry_in in ((quiet, 40), (fixed, 40), (old, 40), (notes("The dishwasher is leaking."), 90),
                             (notes("The dishwasher is leaking."), 20), (notes("The dishwasher is leaking."), -3)):
        assert alerts(warranty_fault_open, user_module(documents=[bosch(expiry_in)], notes=found)) == []


def test_a_fault_said_before_the_warranty_was_recorded_or_about_another_item_raises_nothing() -> None:
    before = notes("The dishwasher is leaking.", first=1)  # before fact 3, the warranty
    other = notes("The fridge is leaking.", "Also the car makes a grinding noise.", "Weather is nice.", "Yes.",
                  "The Bosch? Fine.")
    for found in (before, other):
        assert alerts(warranty_fault_open, user_module(documents=[bosch(40)], notes=found)) == []


def test_a_fault_far_from_the_naming_sentence_is_not_the_items() -> None:
    far = notes("The dishwasher is great.", "a", "b", "c", "d", "It keeps leaking.")
    assert open_fault([(n.fact_ids[0], n.text) for n in far], frozenset({"dishwasher"})) is None


def test_without_notes_or_other_documents_nothing_is_raised_and_without_documents_it_is_skipped() -> None:
    assert alerts(warranty_fault_open, user_module(documents=[bosch(40)])) == []
    assert alerts(warranty_fault_open, user_module(documents=[Document(kind="visa", expiry_date=day(40),
                                                                       fact_ids=[1])], notes=[])) == []
    assert "documents" in skip_reason(warranty_fault_open, user_module(trips=[]))
    Kindless = record_class("document", without=("kind",))
    assert "'kind'" in skip_reason(warranty_fault_open, user_module(documents=[Kindless(expiry_date=day(2))]))


def test_the_brand_alone_names_another_product_of_it() -> None:
    washer = Warranty(kind="warranty", item="Samsung washer", provider="Samsung", expiry_date=day(40), fact_ids=[3])
    phone = notes("My Samsung phone screen cracked.")
    assert alerts(warranty_fault_open, user_module(documents=[washer], notes=phone)) == []
    assert len(alerts(warranty_fault_open, user_module(documents=[washer], notes=notes("The washer is leaking.")))) == 1
    macbook = Warranty(kind="warranty", item="MacBook Air", provider="AppleCare", expiry_date=day(40), fact_ids=[3])
    keys = notes("Three keys on the MacBook stopped working.")
    assert len(alerts(warranty_fault_open, user_module(documents=[macbook], notes=keys))) == 1


def test_within_30_days_warranty_expiring_raises_only_on_the_faulty_item() -> None:
    washer = Warranty(kind="warranty", item="Bosch washer", provider="Bosch", expiry_date=day(12), fact_ids=[3])
    dryer = Warranty(kind="warranty", item="LG dryer", provider="LG", expiry_date=day(20), fact_ids=[4])
    module = user_module(documents=[washer, dryer], notes=notes("ugh the dryer stopped heating",
                                                                "the washer is fine at least"))
    [alert] = alerts(warranty_expiring, module)
    assert alert.fact_ids == (4,) and alert.severity == "warning" and alert.due == day(20)
    assert alert.message == (f"the warranty on your LG dryer expires in 20 days ({day(20)}) and you reported a fault "
                             "(\"ugh the dryer stopped heating\"); claim it before then")
    assert alerts(warranty_fault_open, module) == []  # within 30 days: warranty_expiring's


def test_within_30_days_a_fault_fixed_or_none_raises_nothing() -> None:
    dryer = Warranty(kind="warranty", item="LG dryer", provider="LG", expiry_date=day(20), fact_ids=[4])
    assert alerts(warranty_expiring, user_module(documents=[dryer], notes=notes("the dryer is great"))) == []
    fixed = notes("the dryer stopped heating", "LG came out and fixed the dryer")
    assert alerts(warranty_expiring, user_module(documents=[dryer], notes=fixed)) == []


def test_water_left_in_the_machine_is_a_fault_for_the_30_day_reminder() -> None:
    module = user_module(documents=[bosch(15)], notes=notes("The dishwasher is leaving water at the bottom again"))
    [alert] = alerts(warranty_expiring, module)
    assert "leaving water at the bottom" in alert.message
    assert alerts(warranty_expiring, user_module(documents=[bosch(15)], notes=notes("The dishwasher works fine"))) == []

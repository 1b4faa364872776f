"""Recall for questions that need many facts: the typed answer first, evidence grouped by
session and entity, enumerating questions widen the budgets, session metadata is searched."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from test_recall import FILLER, corpus, fact

from factlog.model import Fact
from runtime.recall import recall
from runtime.recall_index import RecallIndex, RecordText
from runtime.recall_question import MAX_WIDE_CHARS, MAX_WIDE_ITEMS, analyse, widened

DRUGS = ["warfarin", "aspirin", "metformin", "lisinopril", "atorvastatin", "omeprazole", "sertraline",
         "amoxicillin", "ibuprofen", "cetirizine", "levothyroxine", "amlodipine", "simvastatin",
         "prednisone", "gabapentin", "losartan"]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[RecallIndex]:
    with RecallIndex(tmp_path / "recall.db") as ix:
        yield ix


def medication_facts(start: int = 100) -> list[Fact]:
    return [fact(start + i, f"I take {drug} for my medication routine every day", kind="medication", key=drug,
                 fields={"name": drug}) for i, drug in enumerate(DRUGS)]


@pytest.mark.parametrize(("question", "enumerates", "kinds"), [
    ("what are all my subscriptions and what do they cost?", True, ("subscription",)),
    ("which medications am I on?", True, ("medication",)),
    ("list my trips", True, ("trip",)),
    ("which trip is booked and when does it leave?", True, ("trip",)),
    ("how many bills do I pay?", True, ("bill",)),
    ("what are my allergies", True, ("allergy",)),
    ("what pills do I take", True, ("medication",)),
    ("when does my passport expire?", False, ("passport",)),
    ("what did the bank tell me", False, ()),
    ("", False, ()),
])
def test_the_question_rule(question: str, enumerates: bool, kinds: tuple[str, ...]) -> None:
    asked = analyse(question)
    assert (asked.enumerates, asked.kinds) == (enumerates, kinds)


def test_widening_is_bounded_and_never_narrows() -> None:
    assert widened(8, 2000) == (24, 6000)
    assert widened(50, 10_000) == (MAX_WIDE_ITEMS, MAX_WIDE_CHARS)
    assert widened(100, 20_000) == (100, 20_000)  # a caller's larger budget stays
    assert widened(0, 0) == (0, 0)


def test_an_enumerating_question_gets_more_than_a_single_one(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER) + medication_facts())
    single = recall(index, "alice", "what is my daily medication routine?", max_ms=1000)
    every = recall(index, "alice", "list every daily medication routine", max_ms=1000)
    assert len(single.items) == 8 and "items" in single.truncated_by
    assert len(every.items) > len(single.items)
    assert {int(i) for item in every.items for i in item.fact_ids} >= set(range(100, 100 + len(DRUGS)))
    exact = recall(index, "alice", "list every daily medication routine", max_ms=1000, widen=False)
    assert len(exact.items) == 8


def test_the_typed_answer_comes_first_with_its_fact_ids(index: RecallIndex) -> None:
    notes = [fact(i, f"The pharmacy said my medications refill on day {i}") for i in range(60, 72)]
    index.sync_facts("alice", corpus(FILLER, start=50) + notes + medication_facts()[:3])
    # Before any checkpoint: the current typed facts of the kind.
    lines = recall(index, "alice", "what pills do I take?", max_ms=1000).context.splitlines()
    assert lines[0] == "# typed: medications"
    assert [line.split(" [facts ")[1] for line in lines[1:4]] == ["100]", "101]", "102]"]
    # With a module version: its records, in module order, even those the words miss.
    index.set_records("alice", 1, [RecordText(f"Medication(name='{d}')", (100 + i,), "medications")
                                   for i, d in enumerate(DRUGS[:3])])
    result = recall(index, "alice", "which medications am I on?", max_ms=1000)
    typed = [item for item in result.items if item.typed]
    assert [item.text for item in typed] == [f"Medication(name='{d}')" for d in DRUGS[:3]]
    assert result.items[: len(typed)] == typed and [item.fact_ids for item in typed] == [(100,), (101,), (102,)]
    assert result.context.splitlines()[:4] == ["# typed: medications"] + [item.line() for item in typed]
    assert any(not item.typed and "pharmacy" in item.text for item in result.items)  # text evidence after


def test_the_typed_answer_respects_kind_and_time_filters(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER) + medication_facts()[:2])
    assert not any(i.typed for i in recall(index, "alice", "my medications", kinds=["note"]).items)
    assert not any(i.typed for i in recall(index, "alice", "my medications", session="s1").items)


def session_facts() -> list[Fact]:
    bank = {"session_metadata": {"business": "First National Bank", "channel": "phone"}}
    return [
        *corpus(FILLER),
        fact(20, "They said the wire transfer limit is 5000 a day", session="b1", message=1,
             session_ts="2025-03-01T10:00:00", fields=bank),
        fact(21, "Travel plans for the Lisbon transfer next month", session="t1", message=0,
             session_ts="2025-03-05T09:00:00"),
        fact(22, "Also the transfer needs a code sent by text", session="b1", message=3,
             session_ts="2025-03-01T10:00:00", fields=bank),
        fact(23, "Book the airport transfer in Lisbon", session="t1", message=2, session_ts="2025-03-05T09:00:00"),
    ]


def test_session_metadata_is_searched_and_shown_once(index: RecallIndex) -> None:
    index.sync_facts("alice", session_facts())
    hits = index.search("alice", "what did the bank tell me")
    assert {h.fact_ids for h in hits} == {(20,), (22,)}
    assert all(h.meta == "business: First National Bank; channel: phone" for h in hits)
    result = recall(index, "alice", "what did the bank tell me")
    assert result.context.splitlines()[0] == "# session b1, 2025-03-01 (business: First National Bank; channel: phone)"
    assert all("session_metadata" not in item.text and "National" not in item.text for item in result.items)
    assert result.items[0].to_json()["session_metadata"] == "business: First National Bank; channel: phone"


def test_evidence_is_grouped_by_session(index: RecallIndex) -> None:
    index.sync_facts("alice", session_facts())
    result = recall(index, "alice", "transfer", max_ms=1000)
    sessions = [item.session for item in result.items]
    assert sorted(sessions, key=sessions.index) == sessions  # each session's items together
    lines = result.context.splitlines()
    assert [line for line in lines if line.startswith("# ")] == [
        lines[0], "# session t1, 2025-03-05" if lines[0].startswith("# session b1") else
        "# session b1, 2025-03-01 (business: First National Bank; channel: phone)"]
    assert len(lines) == len(result.items) + 2


def test_items_of_one_entity_stay_together_in_a_session(index: RecallIndex) -> None:
    where = {"session": "s", "session_ts": "2025-04-01T09:00:00"}
    index.sync_facts("alice", [
        fact(1, "tokyo flight booked", kind="trip", key="tokyo", message=0, **where),  # type: ignore[arg-type]
        fact(2, "tokyo flight hotel", message=1, **where),  # type: ignore[arg-type]
        fact(3, "tokyo flight moved to friday", kind="trip", key="tokyo", message=2,
             fields={"departure_date": "2025-05-02"}, **where),  # type: ignore[arg-type]
    ])
    entities = [item.entity for item in recall(index, "alice", "tokyo flight", session="s").items]
    assert entities.count("trip/tokyo") == 2
    first = entities.index("trip/tokyo")
    assert entities[first + 1] == "trip/tokyo"


@pytest.mark.parametrize("question", ["", "\x00\x01\x1b[31m", "all " * 100_000, "list\n\r\t" * 1000])
def test_hostile_questions_stay_within_the_widened_budgets(index: RecallIndex, question: str) -> None:
    index.sync_facts("alice", corpus(FILLER) + medication_facts())
    result = recall(index, "alice", question, max_items=8, max_chars=2000, max_ms=1000)
    assert len(result.items) <= 24 and len(result.context) <= 6000
    assert all(line.isprintable() for line in result.context.splitlines())

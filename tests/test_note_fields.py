"""Notes keep their typed values: amounts, dates, times, identifiers, speaker and session
(`factlog.note_fields`, rendered by the compiler as the vocabulary's `NOTE_FIELDS`), so
sums and filters over notes work in the compiled module and in queries."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import pytest
from fact_helpers import import_package, make_fact
from uac_home import clone_home

from codegen.compile import ListLog, compile_incremental, compile_package
from codegen.compile_state import FORMAT
from factlog.model import Fact, JsonValue, Provenance
from factlog.note_fields import note_dates, note_extra
from factlog.recognizers import _CURRENCY
from factlog.vocabulary import NOTE_FIELDS, NOTE_REQUIRED
from runtime.memory import Memory

SAID = Provenance(session_id="bank-1", message_index=0, role="user", session_ts="2025-03-01T10:00:00")


def _note(fact_id: int, fields: dict[str, JsonValue], provenance: Provenance | None = None,
          text: str = "a note", valid_from: date | None = None) -> Fact:
    return make_fact(fact_id, text, None, fields, valid_from=valid_from, provenance=provenance)


# -- the reading --------------------------------------------------------------------------


def test_recognised_values_provenance_and_other_currencies() -> None:
    fact = _note(1, {"dates": ["2025-03-04", "2025-03-01"], "times": ["14:30"], "amounts_usd": [1250, 40.5],
                     "identifiers": ["INV-9"], "percentages": [4.5], "emails": ["a@b.co"], "phones": ["503-555-0100"],
                     "amounts_other": [{"value": 40.0, "currency": "EUR"}, {"value": 7, "currency": "gbp"},
                                       {"value": 3.0, "currency": "JPY"}],
                     "counts": [{"value": 3, "unit": "nights"}]}, SAID)
    assert note_dates(fact) == (date(2025, 3, 1), date(2025, 3, 4))
    assert dict(note_extra(fact)) == {
        "times": ["14:30"], "amounts_usd": [1250.0, 40.5], "amounts_eur": [40.0], "amounts_gbp": [7.0],
        "percentages": [4.5], "identifiers": ["INV-9"], "emails": ["a@b.co"], "phones": ["503-555-0100"],
        "speaker": "user", "session_id": "bank-1"}
    assert [name for name, _ in note_extra(fact)] == [n for n in NOTE_FIELDS if dict(note_extra(fact)).get(n)]


@pytest.mark.parametrize("fields", [
    {"amounts_usd": "12"}, {"amounts_usd": ["12", True, None, [3.0]]}, {"times": [1, None]},
    {"amounts_other": [{"value": "4", "currency": "EUR"}, {"currency": "EUR"}, "EUR 4", {"value": 4}]},
    {"amounts_other": {"value": 4.0, "currency": "EUR"}}, {"speaker": 3}, {"identifiers": []},
])
def test_values_of_another_shape_are_left_out(fields: dict[str, JsonValue]) -> None:
    assert note_extra(_note(1, fields)) == ()


def test_speaker_from_the_provenance_first_then_the_fields() -> None:
    assert dict(note_extra(_note(1, {"speaker": "assistant"}))) == {"speaker": "assistant"}
    said = Provenance(session_id="s", role="assistant")
    assert dict(note_extra(_note(1, {"speaker": "user"}, said))) == {"speaker": "assistant", "session_id": "s"}


def test_dates_fall_back_to_valid_from_only_when_none_is_given() -> None:
    assert note_dates(_note(1, {}, valid_from=date(2024, 1, 2))) == (date(2024, 1, 2),)
    assert note_dates(_note(1, {"dates": "2024-05-06"}, valid_from=date(2024, 1, 2))) == (date(2024, 5, 6),)
    assert note_dates(_note(1, {"dates": ["2024-02-30", "May 6", 7]})) == ()


def test_every_recognised_currency_has_a_note_field() -> None:
    for code in set(_CURRENCY.values()):
        assert NOTE_FIELDS.get(f"amounts_{code.lower()}") == "list[float]", code
    assert NOTE_REQUIRED <= set(NOTE_FIELDS)


# -- the compiled module --------------------------------------------------------------------

FACTS = [
    _note(1, {"dates": ["2025-03-04"], "amounts_usd": [120.0], "identifiers": ["INV-1"]}, SAID, "Paid $120."),
    _note(2, {"amounts_usd": [80.5, 19.5]}, Provenance(session_id="bank-2", role="assistant"), "Fees $80.50, $19.50."),
    _note(3, {}, None, "I like tea."),
    make_fact(4, "Lisbon", "trip", {"destination": "Lisbon", "cost_usd": 900.0}),
    _note(5, {"amounts_other": [{"value": 40.0, "currency": "EUR"}], "dates": ["2025-04-01"]}, SAID, "Paid €40."),
]


def test_sums_and_filters_over_notes_in_the_compiled_module(tmp_path: Path) -> None:
    module = import_package(compile_package("alice", FACTS), tmp_path)
    notes = module.notes
    assert sum(a for n in notes for a in n.amounts_usd) == 220.0
    assert sum(a for n in notes for a in n.amounts_eur) == 40.0
    assert [n.text for n in notes if any(d.month == 3 for d in n.dates)] == ["Paid $120."]
    assert [n.fact_ids for n in notes if n.speaker == "assistant"] == [[2]]
    assert [n.session_id for n in notes] == ["bank-1", "bank-2", None, "bank-1"]
    plain = notes[1 + 1]
    assert (plain.amounts_usd, plain.times, plain.speaker, plain.dates) == ([], [], None, [])


def test_incremental_compiles_equal_the_full_one(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    first = compile_incremental("alice", state, ListLog(FACTS[:2]))
    assert first.rebuilt is not None
    retraction = make_fact(6, "no", retracts=1)
    later = compile_incremental("alice", state, ListLog([*FACTS, retraction]))
    assert later.rebuilt is None
    assert later.files == compile_package("alice", [*FACTS, retraction]).files
    assert "amounts_eur=[40.0]" in later.files["notes_000.py"] and "INV-1" not in later.files["notes_000.py"]


def test_a_state_of_the_format_before_is_rebuilt(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    compile_incremental("alice", state, ListLog(FACTS[:2]))
    with sqlite3.connect(state) as db:  # the notes table as format 3 wrote it
        db.execute("DROP TABLE notes")
        db.execute("CREATE TABLE notes(fact_id INTEGER PRIMARY KEY, ordinal INTEGER NOT NULL, text TEXT NOT NULL, "
                   "dates TEXT NOT NULL, hash TEXT NOT NULL, line TEXT NOT NULL, needs TEXT NOT NULL)")
        db.execute("UPDATE meta SET value = '3' WHERE key = 'format'")
    assert FORMAT != "3"
    again = compile_incremental("alice", state, ListLog(FACTS))
    assert again.rebuilt is not None and again.files == compile_package("alice", FACTS).files


# -- a conversation, checkpointed and queried --------------------------------------------------

CHATS = [
    {"session_id": "contractor", "timestamp": "2025-03-03T09:00:00",
     "messages": [{"role": "user", "content": "I paid the roofer $1,250 yesterday."},
                  {"role": "user", "content": "The gutter guy got 300 bucks on March 10."}]},
    {"session_id": "bank", "timestamp": "2025-04-02T09:00:00",
     "messages": [{"role": "user", "content": "What was the wire fee?"},
                  {"role": "assistant", "content": "The wire fee was $25 on April 1, reference WX-4410."}]},
]


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")  # a warm mypy cache


@pytest.mark.slow  # a full checkpoint (mypy, import) and a query worker: a few seconds
def test_a_conversation_is_summed_and_filtered_by_a_query(mem: Memory) -> None:
    for chat in CHATS:
        mem.ingest_conversation("owner", chat)
    mem.checkpoint("owner")
    total = mem.query("owner", "sum(a for n in notes for a in n.amounts_usd)")
    assert total.value == 1575.0, total
    march = mem.query("owner", "sorted(n.text for n in notes if any(d.month == 3 for d in n.dates))")
    assert march.value == ["I paid the roofer $1,250 yesterday.", "The gutter guy got 300 bucks on March 10."]
    said = mem.query("owner", "[(n.speaker, n.session_id, n.identifiers) for n in notes if n.amounts_usd == [25.0]]")
    assert said.value == [("assistant", "bank", ["WX-4410"])]

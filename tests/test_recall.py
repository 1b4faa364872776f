"""Recall index (FTS5, BM25, filters, forgetting) and recall (code answer, gates, redundancy)."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trip_module import Trip

from factlog.liveness import superseders
from factlog.model import Fact, JsonValue, Provenance
from runtime.recall import CodeAnswer, recall
from runtime.recall_index import RecallIndex, RecordText, record_texts
from runtime.recall_question import analyse, widened

FILLER = [
    "I bought groceries at the market on Saturday",
    "The weather in Lisbon was sunny last week",
    "My favourite colour is dark green",
    "We watched a documentary about whales",
    "The car needs new tyres before winter",
    "I started reading a novel about sailors",
    "Our neighbour plays the piano every evening",
    "The library closes early on public holidays",
]


def fact(
    fid: int,
    text: str,
    *,
    user: str = "alice",
    kind: str | None = None,
    fields: dict[str, JsonValue] | None = None,
    key: str | None = None,
    valid_from: date | None = None,
    retracts: int | None = None,
    session: str | None = None,
    message: int | None = None,
    session_ts: str | None = None,
) -> Fact:
    return Fact(user, fid, f"2025-02-{fid % 28 + 1:02d}T09:00:00+00:00", text, kind, fields or {}, key,
                valid_from, None, retracts, Provenance(session, message, "user", session_ts), "", "")


def corpus(texts: list[str], user: str = "alice", start: int = 1) -> list[Fact]:
    return [fact(start + i, t, user=user) for i, t in enumerate(texts)]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[RecallIndex]:
    with RecallIndex(tmp_path / "recall.db") as ix:
        yield ix


HOSTILE = ['"', '""', "NEAR(", "* OR", "a AND", "OR", "NOT", "(((", "col:val", "^start", "x*",
           "'; DROP TABLE docs; --", "\\", "   ", "", "{body}: x", "-", "+", "NEAR(a b, 3)", "\x00"]


@pytest.mark.parametrize("question", HOSTILE)
def test_hostile_questions_do_not_error(index: RecallIndex, question: str) -> None:
    index.sync_facts("alice", corpus(FILLER + ["NEAR OR AND NOT are words too"]))
    index.search("alice", question, limit=5)
    result = recall(index, "alice", question)
    assert len(result.context) <= 2000


def test_any_text_is_a_safe_question(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER))

    @settings(max_examples=150, deadline=None)
    @given(st.text(max_size=60))
    def check(question: str) -> None:
        assert all(h.fact_ids for h in index.search("alice", question))

    check()


def test_bm25_ranks_the_more_relevant_fact_first(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER + [
        "Once we talked about the history of medicine, penicillin came up",
        "I am allergic to penicillin: a severe allergy, penicillin gives me hives",
    ]))
    hits = index.search("alice", "penicillin allergy?", limit=5)
    assert [h.fact_ids for h in hits] == [(10,), (9,)]
    assert hits[0].score > hits[1].score > 0


def test_stemming_matches_word_forms(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER + ["I am flying to Osaka in spring"]))
    assert [h.fact_ids for h in index.search("alice", "flights to osaka")] == [(9,)]


def test_common_words_do_not_select_when_rare_words_suffice(
    index: RecallIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("runtime.recall_index.COMMON_ROWS", 3)
    index.sync_facts("alice", corpus([f"paid {n} dollars for lunch" for n in range(10)] + [
        "Madrid hotel by the old royal palace", "Madrid flight for 300 dollars",
        "Madrid museum tickets for the Prado gallery",
    ] + [f"note {n} about the garden" for n in range(20)]))
    assert index._terms(["madrid", "dollars"], 3) == (['"madrid"*', '"dollars"'], ['"madrid"*'])
    assert index._terms(["madrid", "dollars"], 8) == (['"madrid"*', '"dollars"'], [])
    top = index.search("alice", "Madrid dollars", limit=3)
    assert [h.fact_ids for h in top][0] == (12,)  # both words: first
    assert {h.fact_ids for h in top} == {(11,), (12,), (13,)}
    wide = index.search("alice", "Madrid dollars", limit=8)  # too few rare rows: every word selects
    assert [h.fact_ids for h in wide][0] == (12,) and len(wide) == 8


def test_filters_by_kind_time_and_session(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER) + [
        fact(20, "Trip to Rome", kind="trip", valid_from=date(2024, 5, 1), session="s1"),
        fact(21, "Trip to Oslo", kind="trip", valid_from=date(2025, 3, 1), session="s2"),
        fact(22, "Trip note: bring adapters", session="s1"),
    ])
    index.set_records("alice", 1, [RecordText("Trip(destination='Rome')", (20,), "trips")])

    def ids(**filters: object) -> set[int]:
        return {i for h in index.search("alice", "trip", **filters) for i in h.fact_ids}  # type: ignore[arg-type]

    assert ids() == {20, 21, 22}
    assert ids(kinds=["trip"]) == {20, 21}
    assert ids(kinds=["allergy"]) == set()
    assert ids(since=date(2025, 1, 1)) == {21, 22}  # 22 has no valid_from: its recorded date counts
    assert ids(until=date(2024, 12, 31)) == {20}
    assert ids(since=date(2024, 1, 1), until=date(2024, 12, 31)) == {20}
    assert ids(session="s1") == {20, 22}
    assert {h.source for h in index.search("alice", "trip", kinds=["trip"])} == {"fact", "record"}
    assert {h.source for h in index.search("alice", "trip", session="s1")} == {"fact"}


def test_users_do_not_see_each_other(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER))
    index.sync_facts("bob", corpus(["Bob keeps bees in the garden"], user="bob"))
    assert index.search("alice", "bees garden") == []
    assert len(index.search("bob", "bees")) == 1
    with pytest.raises(ValueError):
        index.sync_facts("alice", corpus(["wrong owner"], user="bob", start=50))


def test_sync_is_incremental_and_retraction_removes_the_fact(index: RecallIndex) -> None:
    facts = corpus(FILLER + ["My locker code is 4412 at the gym"])
    assert index.sync_facts("alice", facts) == 9
    assert index.sync_facts("alice", facts) == 0
    assert len(index.search("alice", "locker gym")) == 1
    retraction = fact(10, "Retracted: wrong gym locker, sorry kumquat", retracts=9)
    assert index.sync_facts("alice", [*facts, retraction]) == 1
    assert index.last_fact_id("alice") == 10
    assert index.search("alice", "locker gym") == []
    assert index.search("alice", "kumquat") == []  # the retraction itself is not indexed


def test_set_records_replaces_the_previous_version(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER))
    index.set_records("alice", 1, [RecordText("Vehicle(make='Volvo')", (3,), "vehicles")])
    index.set_records("alice", 2, [RecordText("Vehicle(make='Saab')", (3,), "vehicles")])
    assert index.record_version("alice") == 2
    assert index.search("alice", "volvo") == []
    assert [h.source for h in index.search("alice", "saab")] == ["record"]


def test_forget_leaves_no_text_in_the_database_files(tmp_path: Path) -> None:
    path = tmp_path / "recall.db"
    secret = "zqxvwjkplm"
    with RecallIndex(path) as index:
        index.sync_facts("victim42", corpus([*FILLER[:7], "a tangerine umbrella", f"my secret word is {secret}"],
                                                user="victim42"))
        index.set_records("victim42", 1, [RecordText(f"Note(text='{secret}')", (9,), "notes")])
        index.sync_facts("bob", corpus(FILLER, user="bob"))
        assert index.search("victim42", secret)
        assert index.forget("victim42") == 10
        assert index.search("victim42", secret) == []
        assert index.last_fact_id("victim42") == 0
        assert len(index.search("bob", "piano")) == 1

        def file_bytes() -> bytes:
            return b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("recall.db"))

        for needle in (secret.encode(), b"victim42", b"tangerine umbrella"):
            assert needle not in file_bytes()
    assert secret.encode() not in file_bytes()
    assert b"piano" in file_bytes()  # bob's rows are still there: the search is meaningful


def test_record_texts_render_a_module_namespace() -> None:
    tokyo = Trip(destination="Tokyo", country="Japan", departure_date=date(2025, 1, 15), fact_ids=[3, 7])
    namespace = {"trips": [tokyo], "passport": None, "Trip": Trip, "_private": [replace(tokyo, destination="x")]}
    assert record_texts(namespace) == [
        RecordText("Trip(destination='Tokyo', country='Japan', departure_date=2025-01-15)", (3, 7), "trips")
    ]


def test_code_answer_comes_first(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER + ["Trip to Rome cost 900 dollars", "Trip to Oslo cost 1200"]))
    answer = CodeAnswer("sum(t.cost_usd for t in trips)", "2100.0", (9, 10))
    result = recall(index, "alice", "how much did my trips cost", code_answer=answer)
    assert result.items[0].source == "code"
    assert result.context.splitlines()[0] == "code: sum(t.cost_usd for t in trips) = 2100.0 [facts 9, 10]"
    assert {i for item in result.items[1:] for i in item.fact_ids} == {9, 10}  # evidence still shown
    assert result.items[0].to_json() == {"source": "code", "text": "sum(t.cost_usd for t in trips) = 2100.0",
                                         "fact_ids": [9, 10], "score": 1.0, "said": None, "superseded_by": None,
                                         "session": None, "session_metadata": None, "entity": None,
                                         "typed": False}
    assert result.to_json()["truncated_by"] == []


def test_near_duplicates_are_not_both_chosen(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER + [
        "My dentist appointment is on Tuesday at 3pm with Dr Smith",
        "My dentist appointment is Tuesday at 3pm with Dr Smith.",
        "Dr Smith the dentist has an office on Main Street",
    ]))
    result = recall(index, "alice", "when is my dentist appointment with Dr Smith", max_items=2)
    chosen = [item.fact_ids[0] for item in result.items]
    assert len(chosen) == 2 and 11 in chosen and len({9, 10} & set(chosen)) == 1


def test_record_citing_the_same_facts_is_redundant(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER + ["The renewal office says passport X123 expires in 2031"]))
    index.set_records("alice", 1, [RecordText("Passport(number='X123', expiry_date=2031-05-01)", (9,), "passport"),
                                   RecordText("Document(kind='visa', number='X123')", (9, 4), "documents")])
    result = recall(index, "alice", "passport X123 expires")
    assert sorted(item.fact_ids for item in result.items) == [(9,), (9, 4)]


def test_time_gate_stops_the_search(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER))
    result = recall(index, "alice", "piano", code_answer=CodeAnswer("len(notes)", "8", ()), max_ms=0)
    assert [item.source for item in result.items] == ["code"]
    assert result.truncated_by == {"time"}


def test_char_gate_truncates_the_last_item_with_an_ellipsis(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER + ["Piano lessons every Thursday " + "with scales " * 20]))
    result = recall(index, "alice", "piano thursday lessons", max_chars=80)
    assert len(result.context) <= 80
    assert result.context.endswith("… [facts 9]")
    assert "chars" in result.truncated_by


def currency(index: RecallIndex, word: str = "passport") -> dict[int, int | None]:
    """Fact id → the fact superseding it (None: current), for the facts matching `word`."""
    return {h.fact_ids[0]: h.superseded_by for h in index.search("alice", word, limit=100) if h.source == "fact"}


def renewal_facts() -> list[Fact]:
    """The demo's story: a passport expiry said in a chat (a free-text fact and its structured
    twin, extracted from the same message), then the passport renewed."""
    said = "Passport expiration date: March 3rd, 2027."
    return [
        *corpus(FILLER),
        fact(9, said, fields={"attribute": "passport expiration date", "dates": ["2027-03-03"]},
             session="desk", message=6, session_ts="2026-10-14T09:15:00"),
        fact(10, said, kind="passport", key="passport", fields={"expiry_date": "2027-03-03"},
             session="desk", message=6, session_ts="2026-10-14T09:15:00"),
        fact(11, "Renewed my passport: new expiry November 20th, 2036.", kind="passport", key="passport",
             fields={"number": "P9120455", "expiry_date": "2036-11-20"}),
    ]


def test_the_current_record_comes_before_superseded_facts(index: RecallIndex) -> None:
    index.sync_facts("alice", renewal_facts())
    assert currency(index) == {9: 11, 10: 11, 11: None}
    question = "when does my passport expire and where am I flying?"
    # Before any checkpoint: the current fact first, the superseded ones marked.
    shown = recall(index, "alice", question).context.splitlines()
    assert shown[0] == "# typed: passport" and "# session desk, 2026-10-14" in shown
    lines = [line for line in shown if not line.startswith("# ")]
    assert lines[0].startswith("fact 2025-02-12: Renewed my passport")
    assert {line.split(":")[0] for line in lines[1:]} == {"fact 2026-10-14 (superseded by 11)"}
    index.set_records("alice", 1, [
        RecordText("Passport(number='P9120455', expiry_date=2036-11-20)", (10, 11), "passport"),
        RecordText("Note(text='Passport expiration date: March 3rd, 2027.', dates=[2027-03-03])", (9,), "notes"),
    ])
    answer = CodeAnswer("passport.expiry_date", "2036-11-20", (10, 11))
    result = recall(index, "alice", question, code_answer=answer)
    assert [item.source for item in result.items[:2]] == ["code", "record"]
    assert result.items[1].text.startswith("Passport(")
    stale = [item for item in result.items if item.superseded_by is not None]
    assert stale and all(item.line().split(": ")[0].endswith("(superseded by 11)") for item in stale)
    assert min(item.score for item in result.items[:2]) > max(item.score for item in stale)
    # The note renders fact 9: it shares the fact's date and currency (and is a duplicate of it).
    note = [h for h in index.search("alice", "expiration") if h.text.startswith("Note(")]
    assert [(h.said, h.superseded_by) for h in note] == [("2026-10-14", 11)]
    # Withdrawing the renewal makes the old statements current again, the note too.
    index.sync_facts("alice", [fact(12, "Retracts fact 11", retracts=11)])
    assert currency(index) == {9: None, 10: None}
    assert [h.superseded_by for h in index.search("alice", "expiration") if h.text.startswith("Note(")] == [None]


def test_currency_follows_the_compilers_identity(index: RecallIndex) -> None:
    def passport(fid: int, **kw: object) -> Fact:
        return fact(fid, f"passport fact {fid}", **kw)  # type: ignore[arg-type]

    index.sync_facts("alice", [
        passport(1, kind="profile", key="a", fields={"home_city": "Oslo"}),
        passport(2, kind="profile", key="b", fields={"email": "x@y.z"}),  # singular: same entity, other field
        passport(3, kind="trip", fields={"destination": "Rome"}),  # no key: an entity of its own
        passport(4, kind="trip", fields={"destination": "Oslo"}),
        passport(5, kind="trips", key="T1", fields={"destination": "Lima"}),  # plural kind normalised
        passport(6, fields={"destination": "Lima"}),  # free text, no twin
    ])
    assert currency(index) == {1: None, 2: None, 3: None, 4: None, 5: None, 6: None}
    index.sync_facts("alice", [passport(7, kind="trip", key="T1", fields={"destination": "Quito"})])
    index.sync_facts("alice", [passport(8, kind="profile", fields={"home_city": "Bergen"})])
    assert currency(index) == {1: 8, 2: None, 3: None, 4: None, 5: 7, 6: None, 7: None, 8: None}
    # An update is ordered by its effective date, then id: a backdated fact is already old.
    index.sync_facts("alice", [passport(9, kind="trip", key="T1", fields={"destination": "Cusco"},
                                        valid_from=date(2020, 1, 1))])
    assert currency(index)[9] == 7 and currency(index)[5] == 7
    index.sync_facts("alice", [fact(10, "withdrawn", retracts=7)])
    assert currency(index) == {1: 8, 2: None, 3: None, 4: None, 5: None, 6: None, 8: None, 9: 5}


def test_superseders_names_the_latest_restatement() -> None:
    assert superseders([("2025-01-01", 1, ["a", "b"]), ("2025-01-02", 2, ["b"]), ("2025-01-03", 3, ["b"]),
                        ("2025-01-03", 4, ["c"]), ("2025-01-03", 5, [])]) == {1: 3, 2: 3}
    assert superseders([("2025-01-02", 1, []), ("2025-01-01", 2, ["a"])]) == {}
    assert superseders([("2025-01-01", 1, []), ("2025-01-02", 2, ["a"])]) == {1: 2}


def test_fact_lines_show_when_they_were_said(index: RecallIndex) -> None:
    index.sync_facts("alice", [fact(1, "The piano\nneeds tuning", session="s", message=0,
                                    session_ts="2024-06-30T22:00:00"),
                               fact(2, "Piano lessons on Thursday")])
    result = recall(index, "alice", "piano")
    assert sorted(result.context.splitlines()) == ["# session s, 2024-06-30",
                                                   "fact 2024-06-30: The piano needs tuning [facts 1]",
                                                   "fact 2025-02-03: Piano lessons on Thursday [facts 2]"]
    assert {item.to_json()["said"] for item in result.items} == {"2024-06-30", "2025-02-03"}


def test_prefix_terms_bridge_stems(index: RecallIndex) -> None:
    index.sync_facts("alice", corpus(FILLER))
    index.set_records("alice", 1, [RecordText("Passport(expiry_date=2036-11-20)", (1,), "passport"),
                                   RecordText("Trip(departure_date=2025-01-15)", (2,), "trips")])
    for question, start in (("when does it expire", "Passport("), ("departing when", "Trip(")):
        assert [h.text[: len(start)] for h in index.search("alice", question)] == [start]
    assert index.search("alice", "exp") == []  # short tokens match whole words only


def test_an_index_of_another_layout_is_rebuilt(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.executescript("CREATE TABLE users (user TEXT PRIMARY KEY, last_fact_id INTEGER, record_version INTEGER);"
                      "INSERT INTO users VALUES ('alice', 99, 3); CREATE TABLE docs (id INTEGER PRIMARY KEY);")
    old.close()
    with RecallIndex(path) as index:
        assert index.last_fact_id("alice") == 0 and index.record_version("alice") is None
        index.sync_facts("alice", corpus(FILLER))
        assert len(index.search("alice", "piano")) == 1


WORDS = ["piano", "tokyo", "trip", "dentist", "passport", "garden", "bees", "rome", "cost", "winter"]


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=30).map(" ".join),
                   min_size=0, max_size=30),
    question=st.lists(st.sampled_from(WORDS + ["all", "trips", "list"]), min_size=1, max_size=4).map(" ".join),
    max_items=st.integers(0, 12),
    max_chars=st.integers(0, 600),
    with_code=st.booleans(),
)
def test_gates_are_never_exceeded_and_citations_exist(
    texts: list[str], question: str, max_items: int, max_chars: int, with_code: bool
) -> None:
    facts = [fact(i, t, kind="passport", fields={"number": t[:9]}) if i % 3 == 0
             else fact(i, t, session=f"s{i % 4}", message=i, session_ts=f"2025-01-0{i % 4 + 1}T10:00:00",
                       fields={"session_metadata": {"business": t[:20]}}) if i % 3 == 1 else fact(i, t)
             for i, t in enumerate(texts, 1)]  # every third fact renews the passport
    code = CodeAnswer("len(trips)", "3", (1,)) if with_code and facts else None
    with tempfile.TemporaryDirectory() as tmp, RecallIndex(Path(tmp) / "r.db") as index:
        index.sync_facts("alice", facts)
        index.sync_facts("bob", corpus(texts[:3], user="bob"))
        index.set_records("alice", 1, [RecordText(f"Note(text='{t[:40]}')", (f.id,), "notes")
                                       for t, f in zip(texts[:5], facts)])
        result = recall(index, "alice", question, code_answer=code, max_items=max_items,
                        max_chars=max_chars, max_ms=1000)
    wide_items, wide_chars = widened(max_items, max_chars) if analyse(question).enumerates else (max_items, max_chars)
    assert len(result.items) <= wide_items
    assert len(result.context) <= wide_chars
    lines = result.context.splitlines()
    assert [line for line in lines if not line.startswith("# ")] == [item.line() for item in result.items]
    assert all(line.startswith(("# typed", "# session")) for line in lines if line.startswith("# "))
    known = {f.id for f in facts}
    assert all(set(item.fact_ids) <= known for item in result.items)
    assert all(item.superseded_by in known | {None} for item in result.items)
    assert len({item.line() for item in result.items}) == len(result.items)

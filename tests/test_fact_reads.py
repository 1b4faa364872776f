"""Log reads: facts share the values that repeat, fields decode a page at a time only where
rows cannot run together, a paged read is never a cut-off prefix, the checkpoint's view of
the log hands out one sequence, and the log summary takes a retracted fact's hash from the
log."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import factlog.sqlite
from codegen.compile import ListLog
from codegen.log_view import StoreLog
from factlog.fact_rows import FactReader
from factlog.model import Fact, NewFact
from factlog.sqlite import _COLUMNS, SqliteFactStore, _row_to_fact
from users.log_summary import forget_kept, set_hash, summarize

USER = "ana"


def _expenses(start: int, count: int) -> list[NewFact]:
    return [NewFact(f"spent {i} at Shell", "expense",
                    {"payee": "Shell", "category": "fuel-and-travel", "amount_usd": float(i)}, key=f"exp-{i}")
            for i in range(start, start + count)]


def _rows(store: SqliteFactStore, user: str = USER) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store.path) as db:
        return db.execute(f"SELECT {_COLUMNS} FROM facts WHERE user = ? ORDER BY id", (user,)).fetchall()


def test_a_log_read_holds_repeated_values_once(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db")
    try:
        store.append(USER, _expenses(0, 6))
        first, second, *_ = facts = list(store.facts(USER))
        assert facts == [_row_to_fact(row) for row in _rows(store)]  # the same facts as read one by one
        assert second.prev_hash is first.hash
        assert second.user is first.user and second.kind is first.kind
        assert second.recorded_at is first.recorded_at
        assert second.provenance is first.provenance
        assert second.fields["payee"] is first.fields["payee"]
        assert second.fields["category"] is first.fields["category"]
        assert [n for n in second.fields][0] is [n for n in first.fields][0]
    finally:
        store.close()


def _row(fact_id: int, fields: str) -> tuple[Any, ...]:
    return (USER, fact_id, "2026-01-01T00:00:00+00:00", "a fact", "thing", fields, None, None, None, None,
            None, None, None, None, "0" * 64, f"{fact_id:064x}")


@pytest.mark.parametrize("texts", [
    ['{"a":{"b":1},"c":"}"}', '{"d":[{"e":2},{"f":3}]}', '{"g":"x"}'],  # nested: decoded alone
    ['{"a":1}', '{ "b" : 2 }', '{"c":"a}b"}', ' {"d":4}'],
])
def test_fields_decode_as_each_row_alone(texts: list[str]) -> None:
    rows = [_row(i, text) for i, text in enumerate(texts, start=1)]
    assert [f.fields for f in FactReader().facts(rows)] == [json.loads(t) for t in texts]


@pytest.mark.parametrize("texts", [
    ['{"a":["}', '{"]}'],  # two tampered rows that would decode as one object if joined
    ['{"x":1},{"y":2}', '{"z":3}'],  # one row that would decode as two
])
def test_rows_that_could_run_together_are_refused_not_shifted(texts: list[str]) -> None:
    rows = [_row(i, text) for i, text in enumerate(texts, start=1)]
    with pytest.raises(json.JSONDecodeError) as alone:
        json.loads(texts[0])
    with pytest.raises(json.JSONDecodeError) as together:
        FactReader().facts(rows)
    assert str(together.value) == str(alone.value)  # the error of the row read alone


def test_a_paged_read_is_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factlog.sqlite, "_ROWS_PER_PAGE", 3)
    store = SqliteFactStore(tmp_path / "facts.db")
    try:
        store.append(USER, _expenses(0, 10))
        assert [f.id for f in store.facts(USER)] == list(range(1, 11))
        assert [f.id for f in store.facts(USER, after=2, upto=9)] == list(range(3, 10))
        assert [f.id for f in store.all_facts()] == list(range(1, 11))
        assert [f.id for f in store.facts_by_id(USER, [9, 2, 5])] == [2, 5, 9]
    finally:
        store.close()


def test_a_user_forgotten_during_a_paged_read_is_read_again(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factlog.sqlite, "_ROWS_PER_PAGE", 3)
    store = SqliteFactStore(tmp_path / "facts.db")
    real = FactReader.facts
    pages = [0]

    def forgetting(self: FactReader, rows: Any) -> list[Fact]:
        pages[0] += 1
        if pages[0] == 2:
            store.forget(USER)
        return real(self, rows)

    try:
        store.append(USER, _expenses(0, 10))
        monkeypatch.setattr(FactReader, "facts", forgetting)
        read = list(store.facts(USER))
        assert read == []  # the log as it is after the forget, not its first pages
    finally:
        store.close()


def test_the_checkpoint_view_hands_out_one_sequence(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db")
    try:
        store.append(USER, _expenses(0, 20))
        log = StoreLog(store, USER, 18)
        whole = log.after(0)
        assert log.after(0) is whole and tuple(log.after(0)) is whole and len(whole) == 18
        assert log.after(15) == whole[15:] and log.after(18) == ()
        assert all(log.get(f.id) is f for f in whole)
        assert log.get(19) is None and log.get(0) is None
        tail = StoreLog(store, USER, 18)
        assert [f.id for f in tail.after(15)] == [16, 17, 18]
        assert [f.id for f in tail.after(10)] == list(range(11, 19))
        assert tail.get(12) == whole[11] and tail.get(3) == whole[2]
    finally:
        store.close()


class _Forgetful(ListLog):
    """A log that cannot give one fact by id (as if it were gone from the store)."""

    def __init__(self, facts: list[Fact], lost: int) -> None:
        super().__init__(facts)
        self.lost = lost

    def get(self, fact_id: int) -> Fact | None:
        return None if fact_id == self.lost else super().get(fact_id)


def test_a_summary_takes_a_retracted_facts_hash_from_the_log(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db")
    path = tmp_path / "summary.sqlite"
    try:
        store.append(USER, _expenses(0, 8))
        summarize(path, ListLog(list(store.facts(USER))), "")
        store.append(USER, [NewFact("not so", retracts=3)])
        facts = list(store.facts(USER))
        live = [f for f in facts if f.id not in (3, 9)]
        forget_kept()  # a new process: the summary file alone
        followed = summarize(path, ListLog(facts), "")
        assert followed.rebuilt is None and followed.live == {f.id for f in live}
        assert followed.input_hash((), ListLog(facts)) == set_hash(f.hash for f in live)
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT name FROM sqlite_master WHERE name = 'live'").fetchone() is None
        # the same step when the log cannot give the retracted fact: read the whole log again
        (path.parent / "again").mkdir()
        again = path.parent / "again" / "summary.sqlite"
        summarize(again, ListLog(facts[:8]), "")
        forget_kept()
        rebuilt = summarize(again, _Forgetful(facts, lost=3), "")
        assert rebuilt.rebuilt == "a retracted fact could not be read"
        assert rebuilt.live == followed.live and rebuilt.live_sum == followed.live_sum
    finally:
        store.close()


def test_a_summary_of_the_older_format_is_rebuilt(tmp_path: Path) -> None:
    store = SqliteFactStore(tmp_path / "facts.db")
    path = tmp_path / "summary.sqlite"
    try:
        store.append(USER, _expenses(0, 5))
        facts = list(store.facts(USER))
        summarize(path, ListLog(facts), "")
        with sqlite3.connect(path) as db:
            db.execute("UPDATE meta SET value = '1' WHERE key = 'format'")
            db.execute("CREATE TABLE live(id INTEGER PRIMARY KEY, hash TEXT NOT NULL)")
        forget_kept()
        again = summarize(path, ListLog(facts), "")
        assert again.rebuilt == "summary of another format" and again.live == {1, 2, 3, 4, 5}
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT name FROM sqlite_master WHERE name = 'live'").fetchone() is None
    finally:
        store.close()

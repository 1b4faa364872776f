"""What a long-lived process keeps of the alert runs: the alert state (re-read only when the
file changed, written from kept per-alert text, byte for byte as `AlertState.save`) and
the constraints' findings (run again only over what changed: the same as a full run)."""

from __future__ import annotations

import random
import types
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from constraint_records import Bill, Deadline, Document, Passport, Trip, Vehicle, record_class, user_module

from constraints import BUILTIN, Alert, Constraint, Finding, constraint, run_constraints
from constraints.kept_results import KeptResults
from constraints.kept_state import KeptStates
from constraints.runner import evaluate_and_record
from constraints.state import HISTORY_LIMIT, ActiveAlert, AlertState, AlertStateError, ResolvedAlert

WHEN = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


def alert(n: int, due: date | None = None, message: str = "") -> Alert:
    return Alert(f"rule:f{n}", "rule", "warning", message or f"situation {n} — ünïcode \"q\"\n", (n, n + 100), due)


def states() -> list[AlertState]:
    active = tuple(ActiveAlert(alert(i, date(2025, 4, i % 28 + 1) if i % 2 else None), WHEN, i % 3 or None)
                   for i in range(30))
    history = tuple(ResolvedAlert(alert(i), WHEN, None, WHEN + timedelta(hours=1), 7) for i in range(40, 60))
    naive = ActiveAlert(alert(99, message="naïve"), datetime(2025, 3, 1, 9, 0), 1)
    shifted = ActiveAlert(alert(98), WHEN.astimezone(timezone(timedelta(hours=2))), 2)
    return [AlertState(), AlertState(active=active), AlertState(history=history, version=3),
            AlertState(active, history, WHEN, 5), AlertState(active[:3] + (naive, shifted), (), WHEN, 6),
            AlertState(active[5:] + (ActiveAlert(alert(7), WHEN, 9),), history[:2], WHEN.replace(hour=11), 7),
            AlertState(history=tuple(ResolvedAlert(alert(i), WHEN, None, WHEN, None)
                                     for i in range(HISTORY_LIMIT + 3)))]


def test_written_byte_for_byte_as_save_and_read_back(tmp_path: Path) -> None:
    kept = KeptStates()
    path, plain = tmp_path / "kept" / "alerts.json", tmp_path / "plain" / "alerts.json"
    for state in states():  # one after the other: entries written before come from kept text
        kept.save(path, state)
        state.save(plain)
        assert path.read_bytes() == plain.read_bytes()
        assert AlertState.load(path) == kept.load(path) == replace(state, history=state.history[-HISTORY_LIMIT:])


def test_an_equal_moment_in_another_zone_is_written_as_given(tmp_path: Path) -> None:
    kept, path, plain = KeptStates(), tmp_path / "a.json", tmp_path / "b.json"
    kept.save(path, AlertState((ActiveAlert(alert(1), WHEN, 1),)))
    moved = AlertState((ActiveAlert(alert(1), WHEN.astimezone(timezone(timedelta(hours=3))), 1),))
    kept.save(path, moved)
    moved.save(plain)
    assert path.read_bytes() == plain.read_bytes()


def test_a_kept_state_is_not_read_again_until_the_file_changes(tmp_path: Path) -> None:
    kept, path = KeptStates(), tmp_path / "alerts.json"
    first, second = states()[3], states()[5]
    first.save(path)
    assert kept.load(path) == first and kept.reads == 1
    assert kept.load(path) == first and kept.reads == 1
    kept.save(path, second)
    assert kept.load(path) == second and kept.reads == 1  # what it wrote itself
    first.save(path)  # another process
    assert kept.load(path) == first and kept.reads == 2
    path.unlink()
    assert kept.load(path) == AlertState()
    path.write_text("{not json")
    with pytest.raises(AlertStateError, match="alerts.json"):
        kept.load(path)
    with pytest.raises(AlertStateError):  # still not kept
        kept.load(path)


def test_a_failed_write_keeps_neither_the_new_state_nor_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    kept, path = KeptStates(), tmp_path / "alerts.json"
    kept.save(path, states()[3])

    def crash(*args: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk gone"):
        kept.save(path, states()[5])
    monkeypatch.undo()
    assert kept.load(path) == states()[3] == AlertState.load(path)


def test_alert_runs_with_and_without_kept_state_agree(tmp_path: Path) -> None:
    today = WHEN.date()
    docs = [Document(kind="visa", number=str(i), expiry_date=today + timedelta(days=i * 9 - 40), fact_ids=[i])
            for i in range(1, 12)]
    kept, results = KeptStates(), KeptResults()
    rng = random.Random(3)
    for step in range(12):
        module = user_module(documents=list(docs))
        now = WHEN + timedelta(days=step // 3, hours=step)
        a = evaluate_and_record(module, now, BUILTIN, tmp_path / "a.json", step, kept=kept, results=results)
        b = evaluate_and_record(module, now, BUILTIN, tmp_path / "b.json", step)
        assert a == b
        assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
        docs[rng.randrange(len(docs))] = Document(kind="lease", number=f"n{step}", fact_ids=[100 + step],
                                                  expiry_date=today + timedelta(days=rng.randint(-50, 100)))


# --- kept results ------------------------------------------------------------------------

Appointment = record_class("appointment")


def random_record(rng: random.Random, n: int, today: date) -> tuple[str, object]:
    day = today + timedelta(days=rng.randint(-40, 120))
    later = day + timedelta(days=rng.randint(0, 9))
    kind = rng.choice(["documents", "bills", "deadlines", "vehicles", "trips", "appointments"])
    maybe = (lambda v: v) if rng.random() > 0.1 else (lambda v: None)
    if kind == "documents":
        return kind, Document(kind="visa", number=str(n), expiry_date=maybe(day), fact_ids=[n])
    if kind == "bills":
        return kind, Bill(payee=f"p{n % 4}", amount_usd=float(n), due_date=maybe(day), fact_ids=[n])
    if kind == "deadlines":
        return kind, Deadline(title=f"t{n}", due_date=maybe(day), fact_ids=[n, n + 1])
    if kind == "vehicles":
        return kind, Vehicle(make="VW", plate=str(n), next_service_date=maybe(day), fact_ids=[n])
    if kind == "trips":
        return kind, Trip(destination=f"d{n}", country="FR", departure_date=maybe(day), return_date=later,
                          fact_ids=[n])
    start = datetime.combine(day, datetime.min.time()) + timedelta(hours=rng.randint(0, 23))
    return kind, Appointment(provider=f"dr{n}", start=maybe(start), end=start + timedelta(hours=2), fact_ids=[n])


@pytest.mark.parametrize("seed", range(6))
def test_kept_results_equal_a_full_run_as_the_module_changes(seed: int) -> None:
    rng = random.Random(seed)
    today = date(2025, 3, 1)
    module: dict[str, list[object]] = {}
    passport = Passport(country="US", expiry_date=today + timedelta(days=100), fact_ids=[0])
    n = 1
    for _ in range(60):
        kind, record = random_record(rng, n, today)
        module.setdefault(kind, []).append(record)
        n += 2
    kept = KeptResults()
    for step in range(40):
        now = datetime.combine(today + timedelta(days=step // 10), datetime.min.time(), timezone.utc) \
            + timedelta(minutes=step)
        for _ in range(rng.randint(0, 4)):  # add, replace (a new object) or remove records
            kind, record = random_record(rng, n, today)
            n += 2
            records = module.setdefault(kind, [])
            roll = rng.random()
            if roll < 0.5 or not records:
                records.append(record)
            elif roll < 0.8:
                records[rng.randrange(len(records))] = record
            else:
                del records[rng.randrange(len(records))]
        if step % 7 == 3:
            module.pop(rng.choice(sorted(module)), None)  # a kind gone: skipped as a whole
        shown = types.SimpleNamespace(**{k: list(v) for k, v in module.items()},
                                      **({"passport": passport} if step % 5 else {}))
        assert run_constraints(shown, now, BUILTIN, kept) == run_constraints(shown, now, BUILTIN)


def test_only_what_changed_runs_again() -> None:
    today = date(2025, 3, 1)
    now = datetime(2025, 3, 1, 12, tzinfo=timezone.utc)
    docs = [Document(kind="visa", number=str(i), expiry_date=today + timedelta(days=i), fact_ids=[i])
            for i in range(1, 200)]
    trips = [Trip(destination="x", country="FR", departure_date=today + timedelta(days=i), fact_ids=[1000 + i])
             for i in range(30)]
    # judged one by one: each document by document_expiry, warranty_expiring and warranty_fault_open; each trip by
    # insurance_covers_trip, visa_covers_trip and others_passports_for_trips, which read the
    # documents too (passport_valid_for_trips lacks a passport)
    per_document = {c.name for c in BUILTIN if c.per_record == "documents"}
    assert per_document == {"document_expiry", "warranty_expiring", "warranty_fault_open"}
    kept = KeptResults()
    run_constraints(user_module(documents=docs, trips=trips), now, BUILTIN, kept)
    assert kept.judged == 3 * len(docs) + 3 * len(trips)
    runs = kept.runs
    judged = kept.judged
    docs = [*docs, Document(kind="lease", number="new", expiry_date=today, fact_ids=[5000])]
    again = run_constraints(user_module(documents=docs, trips=trips), now + timedelta(hours=1), BUILTIN, kept)
    assert kept.judged == judged + 3 + 3 * len(trips)  # the new document; the trips against the new documents
    assert kept.runs == runs + 1  # overlapping_schedule (its clock is the moment) runs; trips' are kept
    assert any(a.id == "document_expiry:f5000" for a in again.alerts)
    judged = kept.judged
    run_constraints(user_module(documents=docs, trips=trips), now + timedelta(days=1), BUILTIN, kept)
    assert kept.judged == judged + 3 * len(docs) + 3 * len(trips)  # another day: judged again


def test_constraints_declaring_nothing_run_every_time() -> None:
    calls: list[int] = []

    @constraint(name="mine", needs=("documents",))
    def mine(module: object, now: datetime) -> list[Finding]:
        calls.append(1)
        return [Finding("info", "seen", tuple(getattr(module, "documents")))]

    assert isinstance(mine, Constraint) and mine.reads is None
    kept = KeptResults()
    module = user_module(documents=[Document(kind="visa", fact_ids=[1])])
    for _ in range(3):
        assert run_constraints(module, WHEN, [mine], kept) == run_constraints(module, WHEN, [mine])
    assert len(calls) == 6


WRITER = """
import sys
from datetime import datetime, timezone
from pathlib import Path
sys.path[:0] = sys.argv[2:]
from test_kept_alerts import states
from constraints.kept_state import KeptStates
kept, path, picks = KeptStates(), Path(sys.argv[1]), states()
for n in range(10**9):
    kept.save(path, picks[n % len(picks)])
    if n == 0:
        print("ready", flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("wait_s", [0.05, 0.2])
def test_a_killed_writer_leaves_a_whole_state(tmp_path: Path, wait_s: float) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    path = tmp_path / "alerts.json"
    here = str(Path(__file__).parent)
    root = str(Path(__file__).parent.parent)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), here, root], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        time.sleep(wait_s)
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    expected = [replace(s, history=s.history[-HISTORY_LIMIT:]) for s in states()]
    assert AlertState.load(path) in expected
    assert KeptStates().load(path) in expected


def test_an_entry_is_stored_as_its_model_stores_it() -> None:
    from constraints.state import _plain_entry, model_entry, stored_entry

    by_model = model_entry
    entries = [e for s in states() for e in (*s.active, *s.history[:5])]
    assert entries and all(_plain_entry(e) is not None and stored_entry(e) == by_model(e) for e in entries)
    odd = [ActiveAlert(Alert("a", "c", "info", "m", [1, 2]), WHEN, 1),  # type: ignore[arg-type]
           ActiveAlert(Alert("a", "c", "info", "m", (1,), datetime(2025, 1, 1, 5)), WHEN, 1),
           ActiveAlert(alert(1), WHEN, True)]
    for entry in odd:  # not exactly the stored types: through the model, as before
        assert _plain_entry(entry) is None
        try:
            expected = by_model(entry)
        except ValueError as error:  # pydantic's ValidationError
            with pytest.raises(type(error)):
                stored_entry(entry)
        else:
            assert stored_entry(entry) == expected


def test_an_unchanged_alert_keeps_its_entry_and_is_written_as_save_would(tmp_path: Path) -> None:
    found: list[Alert] = []

    @constraint(name="rule")
    def rule(module: object, now: datetime) -> list[Alert]:
        return list(found)

    kept, path, plain = KeptStates(), tmp_path / "alerts.json", tmp_path / "plain.json"
    found[:] = [alert(1), alert(2)]
    evaluate_and_record(user_module(), WHEN, [rule], path, 1, kept=kept)
    first = kept.load(path).active
    found[:] = [alert(1), alert(2), alert(3)]  # equal alerts, new objects, and a new one
    evaluate_and_record(user_module(), WHEN + timedelta(hours=1), [rule], path, 2, kept=kept)
    second = kept.load(path).active
    assert second[0] is first[0] and second[1] is first[1] and second[2].raised_version == 2
    kept.load(path).save(plain)
    assert path.read_bytes() == plain.read_bytes()
    # equal but of another type (a float fact id): a new entry, written as the new alert is
    found[:] = [Alert("rule:f1", "rule", "warning", alert(1).message, (1.0, 101), None)]  # type: ignore[arg-type]
    evaluate_and_record(user_module(), WHEN + timedelta(hours=2), [rule], path, 3, kept=kept)
    third = kept.load(path).active
    assert third[0] is not first[0] and third[0].raised_at == WHEN and type(third[0].alert.fact_ids[0]) is float
    kept.load(path).save(plain)
    assert path.read_bytes() == plain.read_bytes()

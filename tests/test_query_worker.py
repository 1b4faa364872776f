"""QueryWorker: same answers as in-process evaluation, hard limits on work done in C."""

from __future__ import annotations

import io
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from enum import Enum
from pathlib import Path

import pytest

from runtime import query_worker
from runtime.query_worker import QueryWorker, WorkerClosed
from runtime.safe_eval import QueryFailure, QuerySuccess, evaluate

pytestmark = pytest.mark.skipif(not query_worker.FORKING, reason="the worker needs Linux")


class Mood(Enum):
    CALM = "calm"
    BUSY = "busy"


@dataclass(frozen=True, kw_only=True)
class Trip:
    destination: str
    departure_date: date
    cost: Decimal
    mood: Mood
    fact_ids: list[int] = field(default_factory=list)


TRIPS = [Trip(destination=f"City{i % 7}", departure_date=date(2023, 1, 1) + timedelta(days=9 * i),
              cost=Decimal(i) / 4, mood=Mood.CALM if i % 3 else Mood.BUSY, fact_ids=[i])
         for i in range(200)]
NAMESPACE: dict[str, object] = {"trips": TRIPS, "Trip": Trip, "Mood": Mood}

DEPTH = 35
LAMBDA_HASH_BOMB = "(lambda g: {" + "g(" * DEPTH + "1" + ")" * DEPTH + "})(lambda a: (a, a))"
COMPREHENSION_HASH_BOMB = ("[0 for a0 in [1] " + " ".join(
    f"for a{i + 1} in [(a{i}, a{i})]" for i in range(DEPTH)) + f" if {{a{DEPTH}}}]")
# Each strftime call is ~0.3 s of C with no budget check in between.
STRFTIME_BURNER = "(lambda f: [date.today().strftime(f) for x in range(40)])('%c' * 500000)"
# Each split makes ~20 MB of new strings in C; the soft RSS poll never runs.
SPLIT_MEMORY_BOMB = "len((lambda s: [s.split() for x in range(40)])('ab ' * 333333))"


@pytest.fixture(scope="module")
def worker() -> Iterator[QueryWorker]:
    with QueryWorker(NAMESPACE) as shared:
        yield shared


def process_gone(pid: int) -> bool:
    """Exited and reaped: not even a zombie is left."""
    return not Path(f"/proc/{pid}").exists()


@pytest.mark.parametrize("expression", [
    "len(trips)",
    "sum(t.cost for t in trips if t.departure_date.year == 2024)",
    "[t for t in trips if t.mood == Mood.BUSY][:5]",
    "max(trips, key=lambda t: t.cost)",
    "Counter(t.destination for t in trips).most_common(3)",
    "Counter(t.mood for t in trips)",
    "{t.departure_date for t in trips[:4]}",
    "(t.departure_date - date(2023, 1, 1) for t in trips[:3])",
    "Trip",
    "1 / 0",
    "trips[0].__class__",
    "len(",
])
def test_results_equal_in_process_evaluation(worker: QueryWorker, expression: str) -> None:
    expected = evaluate(expression, NAMESPACE)
    got = worker.run(expression)
    assert type(got) is type(expected)
    if isinstance(expected, QuerySuccess):
        assert isinstance(got, QuerySuccess) and got.value == expected.value
        assert type(got.value) is type(expected.value)
    else:
        assert got == expected


@pytest.mark.parametrize("attack", [LAMBDA_HASH_BOMB, COMPREHENSION_HASH_BOMB, STRFTIME_BURNER])
def test_work_in_c_is_stopped_within_two_seconds(attack: str) -> None:
    with QueryWorker(NAMESPACE) as worker:
        first = worker.pid
        assert first is not None
        started = time.perf_counter()
        result = worker.run(attack)
        assert time.perf_counter() - started < 2.0
        assert isinstance(result, QueryFailure) and result.kind == "timeout", result
        assert "stopped" in result.message  # the parent's kill, not the soft guard
        assert process_gone(first)
        again = worker.run("len(trips)")
        assert isinstance(again, QuerySuccess) and again.value == len(TRIPS)
        assert worker.pid not in (None, first)


HARD_MEMORY_LIMITS = {
    "out of memory",  # a MemoryError: the address-space limit
    "the query used over 32 MB and was stopped",  # the parent's kill at the deadline
}


def test_memory_bomb_is_stopped_by_the_address_space_limit() -> None:
    # Which hard limit stops it depends on how much freed memory this process had mapped
    # before the fork (the child fills that without growing its address space): either way
    # it is reported as memory. No wall-clock assertion: the worker's deadline bounds it.
    with QueryWorker(NAMESPACE, memory_limit_mb=32, time_limit_s=1.5) as worker:
        first = worker.pid
        result = worker.run(SPLIT_MEMORY_BOMB)
        assert isinstance(result, QueryFailure) and result.kind == "memory", result
        assert result.message in HARD_MEMORY_LIMITS  # not the soft RSS guard
        assert first is not None and process_gone(first)
        again = worker.run("len(trips)")
        assert isinstance(again, QuerySuccess) and again.value == len(TRIPS)


def test_namespace_records_come_back_as_the_same_objects(worker: QueryWorker) -> None:
    result = worker.run("[trips[3], Trip(destination='New', departure_date=date(2024, 1, 1), "
                        "cost=Decimal(1), mood=Mood.CALM)]")
    assert isinstance(result, QuerySuccess) and isinstance(result.value, list)
    old, new = result.value
    assert old is TRIPS[3]
    assert new == Trip(destination="New", departure_date=date(2024, 1, 1), cost=Decimal(1),
                       mood=Mood.CALM) and new.mood is Mood.CALM


@pytest.mark.parametrize("payload", [
    QuerySuccess(os.system, 0.0),
    QuerySuccess(subprocess.Popen, 0.0),
])
def test_the_parent_unpickles_only_allowed_classes(payload: object) -> None:
    unpickler = query_worker._ResultUnpickler(
        io.BytesIO(pickle.dumps(payload)), frozenset({__name__}), {})
    with pytest.raises(query_worker._Refused):
        unpickler.load()


def test_record_references_resolve_only_to_the_workers_records() -> None:
    records: dict[int, object] = {id(TRIPS[0]): TRIPS[0]}
    pickled = io.BytesIO()
    query_worker._ResultPickler(pickled, records).dump(QuerySuccess([TRIPS[0]], 0.0))
    data = pickled.getvalue()
    loaded = query_worker._ResultUnpickler(io.BytesIO(data), frozenset(), records).load()
    assert loaded.value[0] is TRIPS[0]
    with pytest.raises(query_worker._Refused):
        query_worker._ResultUnpickler(io.BytesIO(data), frozenset(), {}).load()


@pytest.mark.parametrize(("expression", "message"), [
    ("lambda t: t", "the result cannot be returned: function"),
    ("[1, lambda t: t]", "the result cannot be returned: list holding a value that cannot"),
    ("[len]", "the result cannot be returned: it holds builtins.len"),
])
def test_unreturnable_results_are_clear_errors(worker: QueryWorker, expression: str,
                                               message: str) -> None:
    result = worker.run(expression)
    assert isinstance(result, QueryFailure) and result.kind == "runtime"
    assert result.message.startswith(message)


def test_results_over_the_size_cap_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(query_worker, "MAX_RESULT_BYTES", 1 << 19)
    with QueryWorker(NAMESPACE) as worker:  # within the result budgets, over the byte cap
        result = worker.run("['x' * 300000, 'y' * 300000]")
        assert isinstance(result, QueryFailure) and result.kind == "memory"
        assert "too large to return" in result.message
        small = worker.run("'x' * 1000")
        assert isinstance(small, QuerySuccess) and small.value == "x" * 1000


def test_close_reaps_the_child_and_later_queries_raise() -> None:
    worker = QueryWorker(NAMESPACE)
    pid = worker.pid
    assert pid is not None and not process_gone(pid)
    worker.close()
    assert process_gone(pid)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    with pytest.raises(WorkerClosed):
        worker.run("len(trips)")
    worker.close()  # twice is fine


def test_a_child_that_crashes_mid_query_is_reported_and_replaced() -> None:
    with QueryWorker(NAMESPACE) as worker:
        pid = worker.pid
        assert pid is not None
        threading.Timer(0.2, os.kill, (pid, signal.SIGSEGV)).start()
        result = worker.run(STRFTIME_BURNER)
        assert result == QueryFailure("runtime", "the query process crashed (Segmentation fault)")
        assert process_gone(pid)
        assert isinstance(worker.run("len(trips)"), QuerySuccess)


def test_a_child_that_died_idle_is_replaced_transparently() -> None:
    with QueryWorker(NAMESPACE) as worker:
        pid = worker.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead (not reaped): no sleep to race
        result = worker.run("len(trips)")
        assert isinstance(result, QuerySuccess) and result.value == len(TRIPS)
        assert worker.pid != pid and process_gone(pid)


def test_child_ignores_sigint_and_keeps_only_its_pipes(worker: QueryWorker) -> None:
    pid = worker.pid
    assert pid is not None
    os.kill(pid, signal.SIGINT)
    assert isinstance(worker.run("len(trips)"), QuerySuccess)
    assert worker.pid == pid
    fds = sorted(int(name) for name in os.listdir(f"/proc/{pid}/fd"))
    assert len(fds) == 5 and fds[:3] == [0, 1, 2]
    assert all(os.readlink(f"/proc/{pid}/fd/{fd}") == os.devnull for fd in (0, 1, 2))


def test_concurrent_runs_from_threads(worker: QueryWorker) -> None:
    answers: dict[int, object] = {}

    def ask(n: int) -> None:
        result = worker.run(f"len(trips[:{n}])")
        answers[n] = result.value if isinstance(result, QuerySuccess) else result

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == {n: n for n in range(12)}


def test_a_forked_copy_uses_its_own_child(worker: QueryWorker) -> None:
    parent_child = worker.pid
    pid = os.fork()
    if pid == 0:  # the copy: must not talk to (or kill) the parent's child
        status = 1
        try:
            result = worker.run("len(trips)")
            ok = isinstance(result, QuerySuccess) and result.value == len(TRIPS)
            status = 0 if ok and worker.pid not in (None, parent_child) else 2
            worker.close()
        finally:
            os._exit(status)
    assert os.waitpid(pid, 0)[1] == 0
    assert worker.pid == parent_child
    assert isinstance(worker.run("len(trips)"), QuerySuccess)


def test_works_when_the_parent_runs_with_stdio_closed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    script = (
        "import os, sys\n"
        "from runtime.query_worker import QueryWorker\n"
        "with QueryWorker({'xs': [1, 2, 3]}) as worker:\n"
        "    result = worker.run('sum(xs)')\n"
        f"open({str(out)!r}, 'w').write(repr(result.value))\n"
    )
    closed = "import os\nfor fd in (0, 1, 2): os.close(fd)\n"
    subprocess.run([sys.executable, "-c", closed + script], check=True, timeout=20,
                   cwd=Path(__file__).parent.parent)
    assert out.read_text() == "6"


def test_elapsed_time_is_measured_by_the_parent(worker: QueryWorker) -> None:
    result = worker.run("len(trips)")
    assert isinstance(result, QuerySuccess) and 0 < result.elapsed_ms < 1000

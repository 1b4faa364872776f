"""`runtime.watch.Watcher` and `uac watch`: real watchdog on a real SQLite log.

Facts are appended through a second `Memory` (its own SQLite connection), as another
process would; the watcher notices the write, checkpoints, runs constraints and reports.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pytest
from uac_home import USER, FunctionProducer, clone_home, with_file

import runtime.checkpoint_service
import users.checkpoint
from codegen.compile import GeneratedPackage, compile_package
from factlog.model import Fact
from factlog.records import structured_fact
from runtime.cli_app import out as cli_out
from runtime.memory import CheckpointReport, Memory
from runtime.safe_eval import QueryFailure
from runtime.watch import Watcher
from users.checkpoint import CheckpointResult, Failed, Published, Unchanged

REPO = Path(__file__).resolve().parents[1]
UAC = REPO / ".venv" / "bin" / "uac"
WAIT_S = 10.0
POISON = "POISON: this fact makes the producer emit a mistyped package"
BOOM = "BOOM: this fact makes the producer crash"


class Reports:
    """What the watcher's report callback saw, safe to read from the test thread."""

    def __init__(self) -> None:
        self.items: list[tuple[str, object]] = []
        self._cond = threading.Condition()

    def __call__(self, user: str, outcome: object) -> None:
        with self._cond:
            self.items.append((user, outcome))
            self._cond.notify_all()

    def wait_for(self, test: Callable[[object], bool], start: int = 0, timeout: float = WAIT_S) -> object:
        """The first outcome at index >= start that passes `test`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for _, outcome in self.items[start:]:
                    if test(outcome):
                        return outcome
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no matching report within {timeout}s; saw {self.items[start:]!r}")
                self._cond.wait(left)

    def __len__(self) -> int:
        with self._cond:
            return len(self.items)


def published(outcome: object) -> bool:
    return isinstance(outcome, CheckpointReport) and isinstance(outcome.result, Published)


def failed(outcome: object) -> bool:
    return isinstance(outcome, CheckpointReport) and isinstance(outcome.result, Failed)


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")


@pytest.fixture
def poisonable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checkpoints compile with the real compiler, except right after a POISON or BOOM fact."""
    real = users.checkpoint.checkpoint

    def producer(user: str, facts: Sequence[Fact]) -> GeneratedPackage:
        package = compile_package(user, facts)
        if facts and facts[-1].text == BOOM:
            raise RuntimeError("producer crashed")
        if facts and facts[-1].text == POISON:
            return with_file(package, "__init__.py", package.files["__init__.py"] + "\nbad: int = 'x'\n")
        return package

    def checkpoint(*args: Any, **kwargs: Any) -> CheckpointResult:
        return real(*args, **{**kwargs, "producer": FunctionProducer(producer)})

    monkeypatch.setattr(runtime.checkpoint_service, "checkpoint", checkpoint)


@pytest.fixture
def writer(home: Path) -> Iterator[Memory]:
    mem = Memory.open(home)
    yield mem
    mem.close()


def test_watcher_publishes_reports_failures_and_keeps_going(home: Path, writer: Memory, poisonable: None) -> None:
    watched = Memory.open(home)
    reports = Reports()
    watcher = Watcher(watched, watched.workspace.facts_db, [USER], reports, debounce_s=0.05)
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run_until, args=(stop,), daemon=True)
    thread.start()
    try:
        # The catch-up pass: nothing new since the seeded v2.
        caught_up = reports.wait_for(lambda o: isinstance(o, CheckpointReport))
        assert isinstance(caught_up, CheckpointReport) and isinstance(caught_up.result, Unchanged)

        # Another connection appends a passport that expires soon after an upcoming trip.
        today = date.today()
        mark = len(reports)
        trip, = writer.facts.append(USER, [
            structured_fact("passport", {"number": "P1", "country": "USA",
                                         "expiry_date": (today + timedelta(days=60)).isoformat()}, key="passport"),
            structured_fact("trip", {"destination": "Oslo", "country": "Norway", "is_international": True,
                                     "departure_date": (today + timedelta(days=30)).isoformat(),
                                     "return_date": (today + timedelta(days=40)).isoformat()}, key="oslo"),
        ])[1:]
        report = reports.wait_for(published, mark)
        assert isinstance(report, CheckpointReport) and isinstance(report.result, Published)
        assert report.result.version.number == 3 and report.result.version.meta.log_position == trip.id
        assert report.alerts is not None
        raised = [a for a in report.alerts.raised
                  if a.constraint == "passport_valid_for_trips" and trip.id in a.fact_ids]
        assert len(raised) == 1 and "Oslo" in raised[0].message and raised[0].severity == "critical"  # Schengen: 3 months

        # A fact whose module fails validation: reported, v3 stays current, the watcher goes on.
        mark = len(reports)
        poison = writer.add(USER, POISON)
        bad = reports.wait_for(failed, mark)
        assert isinstance(bad, CheckpointReport) and isinstance(bad.result, Failed)
        assert bad.result.stage == "mypy" and bad.alerts is None
        assert bad.result.current is not None and bad.result.current.number == 3
        assert writer.versions.current(USER).number == 3  # type: ignore[union-attr]

        # A producer that crashes: the exception itself is reported.
        mark = len(reports)
        writer.add(USER, BOOM)
        crash = reports.wait_for(lambda o: isinstance(o, Exception), mark)
        assert isinstance(crash, RuntimeError) and "producer crashed" in str(crash)

        # A later good fact publishes, with the earlier facts in it: nothing was lost.
        mark = len(reports)
        good = writer.add(USER, "back to normal")
        report = reports.wait_for(published, mark)
        assert isinstance(report, CheckpointReport) and isinstance(report.result, Published)
        assert report.result.version.number == 4 and report.result.version.meta.log_position == good.id
        texts = writer.query(USER, "[n.text for n in notes]")
        assert not isinstance(texts, QueryFailure)
        assert {POISON, BOOM, "back to normal"} <= set(texts.value)  # type: ignore[call-overload]
        assert poison.id < good.id
        assert all(user == USER for user, _ in reports.items)
    finally:
        started = time.monotonic()
        stop.set()
        thread.join(timeout=5)
        watched.close()
    assert not thread.is_alive()
    assert time.monotonic() - started < 2.0


def test_watcher_stops_promptly_with_nothing_to_do(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "empty")
    reports = Reports()
    watcher = Watcher(mem, mem.workspace.facts_db, None, reports, debounce_s=0.05)
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run_until, args=(stop,), daemon=True)
    thread.start()
    time.sleep(0.3)
    started = time.monotonic()
    stop.set()
    thread.join(timeout=5)
    mem.close()
    assert not thread.is_alive() and time.monotonic() - started < 1.0
    assert reports.items == []  # no users, nothing to report


def read_line_with(proc: subprocess.Popen[str], needle: str, timeout: float = WAIT_S) -> list[str]:
    """Lines of stdout up to and including the first that contains `needle`."""
    assert proc.stdout is not None
    lines: list[str] = []
    result: list[bool] = []

    def reader() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if needle in line:
                result.append(True)
                return

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(timeout)
    assert result, f"{needle!r} not seen within {timeout}s; got {lines!r}"
    return lines


def as_background_job() -> None:
    """What a shell does to a command started with `&` (no job control): SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.skipif(not UAC.exists(), reason="the uac console script is not installed in .venv")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_uac_watch_process_publishes_and_stops_on_a_signal(home: Path, writer: Memory, signum: int) -> None:
    """Also when started as a background job (SIGINT inherited as ignored, as under `pytest &`):
    `uac watch` installs its own handlers."""
    env = {**os.environ, "UAC_HOME": str(home.parent / "elsewhere")}  # --home must win
    proc = subprocess.Popen([str(UAC), "--home", str(home), "watch", "--debounce", "0.05"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=as_background_job)
    try:
        first = read_line_with(proc, "watching")
        assert str(home / "facts.db") in first[-1]
        # A new user: a notes-only module, so the report ends with "no alerts" whatever today is.
        writer.add("bob", "seen by the watch process")
        lines = read_line_with(proc, "published")
        assert "published bob v1" in lines[-1]
        read_line_with(proc, "no alerts")  # the pass is over; the main thread is waiting
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # The signal becomes a KeyboardInterrupt; cli_modules.watch prints "stopped" and returns normally.
    assert proc.returncode == 0, (out, err)
    assert out.strip().splitlines()[-1] == "stopped"
    assert "Traceback" not in err
    assert writer.versions.current("bob").number == 1  # type: ignore[union-attr]
    alice = writer.versions.current(USER)
    assert alice is not None and alice.number == 2  # nothing new for alice


class BlockingCheckpointer:
    """A checkpointer whose second pass blocks until released (stands in for a slow checkpoint)."""

    def __init__(self) -> None:
        self.caught_up = threading.Event()
        self.blocked = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()

    def users(self) -> list[str]:
        return [USER]

    def watch_step(self, user: str, policy: object, clock_tick: bool) -> object:
        if not self.caught_up.is_set():  # the catch-up pass returns at once
            self.caught_up.set()
            return "caught up"
        self.blocked.set()
        self.release.wait(WAIT_S)
        self.finished.set()
        return "done"


def test_stop_waits_for_a_pass_in_flight(tmp_path: Path) -> None:
    log = tmp_path / "facts.db"
    log.write_bytes(b"")
    fake = BlockingCheckpointer()
    reports = Reports()
    watcher = Watcher(fake, log, None, reports, debounce_s=0.05)
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run_until, args=(stop,), daemon=True)
    thread.start()
    reports.wait_for(lambda o: o == "caught up")
    log.with_name("facts.db-wal").write_bytes(b"x")  # a write to the log: the debounced pass starts
    assert fake.blocked.wait(WAIT_S)
    stop.set()
    threading.Timer(0.3, fake.release.set).start()  # the slow checkpoint ends a little later
    thread.join(timeout=WAIT_S)
    assert not thread.is_alive()
    assert fake.finished.is_set(), "run_until returned while a checkpoint pass was still running"
    assert reports.items[-1] == (USER, "done")


def test_ctrl_c_right_after_the_watching_banner_still_stops_cleanly(
        uac: Any, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_print = cli_out.print

    def print_then_interrupt(*args: Any, **kwargs: Any) -> None:
        real_print(*args, **kwargs)
        if args and "watching" in str(args[0]):
            raise KeyboardInterrupt  # as if Ctrl-C arrived just as the banner was written

    monkeypatch.setattr(cli_out, "print", print_then_interrupt)  # the console cli_modules prints on
    r = uac("--home", str(home), "watch")
    assert "watching" in r.out
    assert r.code == 0 and r.out.strip().splitlines()[-1] == "stopped"


def test_watch_rejects_a_bad_user_id_up_front(uac: Any, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    passes: list[int] = []

    def one_pass(self: Watcher, stop: threading.Event) -> None:  # instead of watching forever
        passes.append(1)
        self.run_pass()

    monkeypatch.setattr(Watcher, "run_until", one_pass)
    r = uac("--home", str(home), "watch", "../x")
    assert r.code == 2 and "user id" in r.err, (r.code, r.out, r.err)
    assert passes == [] and "watching" not in r.out


if sys.platform != "linux":  # inotify-backed observer assumed by the timing bounds above
    pytestmark = pytest.mark.skip(reason="watch timing tests assume Linux inotify")

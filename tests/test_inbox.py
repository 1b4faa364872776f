"""`uac watch --inbox DIR`: transcripts dropped in a folder are ingested once each (offline or
through the scripted model), refused files go to `.failed/` with a reason, files still being
written are not read, and a crash between ingest and move re-ingests nothing twice.

The watcher is real (`runtime.watch.Watcher` on a thread, watchdog on real files); where a
test is about the inbox alone its checkpointer is a stub that only records the passes, so
no test pays for the compiler except the one that checks the checkpoint.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from scripted_llm import Reply, ScriptedLLM
from test_llm_extract import GOOD, TRANSCRIPT, TWO_SESSIONS
from uac_home import USER, clone_home

from factlog.errors import InputError
from factlog.transcripts import MAX_TRANSCRIPT_BYTES
from runtime.inbox import CRASH_HOOK, InboxOutcome
from runtime.inbox_watch import InboxWatch
from runtime.memory import CheckpointReport, Memory
from runtime.watch import Watcher
from users.checkpoint import Published

REPO = Path(__file__).resolve().parents[1]
UAC = REPO / ".venv" / "bin" / "uac"
WAIT_S = 20.0
PROCESS_WAIT_S = 180.0  # a `uac` process importing the openai client, on a loaded machine
SETTLE_S = 0.1
Uac = Callable[..., Any]

GYM = {"sessions": [{"id": "g1", "timestamp": "2024-11-16 09:00:00", "messages": [
    {"role": "user", "content": "The gym costs $45 a month."}]}]}


class Seen:
    """Everything a callback was given, waitable from the test thread."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._cond = threading.Condition()

    def __call__(self, *args: Any) -> None:
        with self._cond:
            self.items.append(args[-1])
            self._cond.notify_all()

    def wait_for(self, test: Callable[[Any], bool], timeout: float = WAIT_S) -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for item in self.items:
                    if test(item):
                        return item
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"nothing matching within {timeout}s; saw {self.items!r}")
                self._cond.wait(left)

    def count(self, n: int, timeout: float = WAIT_S) -> list[Any]:
        self.wait_for(lambda _: len(self.items) >= n, timeout)
        return list(self.items)


class StubCheckpointer:
    """Stands in for the checkpoint pass: records which passes ran."""

    def __init__(self) -> None:
        self.passes: list[str] = []

    def users(self) -> list[str]:
        return [USER]

    def watch_step(self, user: str, policy: object, clock_tick: bool, producer: object = None) -> object:
        self.passes.append(user)
        return "pass"


@contextlib.contextmanager
def watching(mem: Memory, inbox: Path, checkpointer: Any = None, **options: Any
             ) -> Iterator[tuple[InboxWatch, Seen, Seen]]:
    """A real watcher thread over `mem`'s log and the inbox: (the inbox watch, its outcomes,
    the checkpoint reports)."""
    outcomes, reports = Seen(), Seen()
    feed = InboxWatch(mem.inbox(inbox, **options), outcomes, settle_s=SETTLE_S)
    watcher = Watcher(checkpointer or StubCheckpointer(), mem.workspace.facts_db, None, reports,
                      debounce_s=0.05, inbox=feed)
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run_until, args=(stop,), daemon=True)
    thread.start()
    try:
        assert watcher.started.wait(WAIT_S)  # a writer opening a file before this is not seen open
        yield feed, outcomes, reports
    finally:
        stop.set()
        thread.join(WAIT_S)
        feed.inbox.close()
        assert not thread.is_alive()


def drop(inbox: Path, rel: str, data: Any) -> Path:
    """Write a file elsewhere, then rename it in (as a careful producer does)."""
    path = inbox / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = inbox.parent / ("staged-" + path.name)
    staged.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    os.rename(staged, path)
    return path


def texts(mem: Memory, user: str = USER) -> list[str]:
    return [f.text for f in mem.log(user)]


def test_a_dropped_file_becomes_facts_and_a_checkpoint(tmp_path_factory: pytest.TempPathFactory,
                                                       tmp_path: Path) -> None:
    home = clone_home(tmp_path_factory, tmp_path / "home")
    mem = Memory.open(home)
    inbox = tmp_path / "inbox"
    try:
        with watching(mem, inbox, checkpointer=mem) as (_, outcomes, reports):
            drop(inbox, f"{USER}/gym.json", GYM)
            outcome: InboxOutcome = outcomes.wait_for(lambda o: True)
            report = reports.wait_for(lambda r: isinstance(r, CheckpointReport)
                                      and isinstance(r.result, Published) and r.result.version.number == 3)
        assert not outcome.failed and outcome.new_facts >= 1 and outcome.user == USER
        assert outcome.moved_to == inbox / ".done" / USER / "gym.json" and outcome.moved_to.is_file()
        assert not (inbox / USER / "gym.json").exists()
        assert "The gym costs $45 a month." in texts(mem)
        assert report.result.version.meta.log_position == max(f.id for f in mem.log(USER)) and len(list(mem.log(USER)))  # the checkpoint saw the new facts
    finally:
        mem.close()


def test_llm_file_gives_typed_facts(mem: Memory, tmp_path: Path, scripted_llm: ScriptedLLM) -> None:
    scripted_llm.queue(GOOD)
    inbox = tmp_path / "inbox"
    with watching(mem, inbox, user=USER, llm=True) as (_, outcomes, _):
        drop(inbox, "chat.json", TRANSCRIPT)  # directly in the inbox: the --user's file
        outcome: InboxOutcome = outcomes.wait_for(lambda o: True)
    assert not outcome.failed and outcome.report is not None and outcome.report.extraction is not None
    assert outcome.report.extraction.extracted == ["s1"] and not outcome.report.extraction.failed
    kinds = [f.kind for f in mem.log(USER)]
    assert kinds == ["allergy", "allergy", "trip", None]
    assert len(scripted_llm.chat_requests) == 1
    assert (inbox / ".done" / "chat.json").is_file()


def test_an_outage_keeps_raw_facts_lists_the_failure_and_the_file_is_handled(
        mem: Memory, tmp_path: Path, scripted_llm: ScriptedLLM, uac: Uac) -> None:
    scripted_llm.queue(*[Reply(status=500)] * 3)
    inbox = tmp_path / "inbox"
    with watching(mem, inbox, llm=True) as (_, outcomes, _):
        drop(inbox, f"{USER}/chat.json", TWO_SESSIONS)
        outcome: InboxOutcome = outcomes.wait_for(lambda o: True)
    assert not outcome.failed and outcome.report is not None and outcome.report.extraction is not None
    assert [chunk.session_id for chunk in outcome.report.extraction.failed] == ["s1", "s2"]
    done = inbox / ".done" / USER / "chat.json"
    assert outcome.moved_to == done and done.is_file()
    joined = " ".join(texts(mem))
    assert "penicillin" in joined and "503-555-8924" in joined  # raw facts: nothing lost
    r = uac("--home", str(mem.workspace.home), "log", USER, "--failed", "--json")
    assert r.code == 0, r.err
    failures = json.loads(r.out)
    assert [f["session_id"] for f in failures] == ["s1", "s2"]
    assert all(f["path"] == str(done) and "HTTP 500" in f["reason"] for f in failures)  # where the file is now
    scripted_llm.queue(GOOD, json.dumps({"facts": []}))
    r = uac("--home", str(mem.workspace.home), "ingest", USER, str(done), "--llm", "--retry-failed")
    assert r.code == 0, r.out + r.err
    assert json.loads(uac("--home", str(mem.workspace.home), "log", USER, "--failed", "--json").out) == []


def test_bad_files_go_to_failed_with_a_reason_and_the_watcher_goes_on(mem: Memory, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    (inbox / USER / "nested").mkdir(parents=True)
    (inbox / USER / "broken.json").write_text("{not json", encoding="utf-8")
    (inbox / USER / "notes.txt").write_text("hello", encoding="utf-8")
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(GYM), encoding="utf-8")
    (inbox / USER / "link.json").symlink_to(secret)  # a path escaping the inbox
    (inbox / "outside").symlink_to(tmp_path, target_is_directory=True)
    with open(inbox / USER / "huge.json", "wb") as handle:  # sparse: large without the bytes
        handle.truncate(MAX_TRANSCRIPT_BYTES + 1)
    os.mkfifo(inbox / USER / "pipe.json")
    (inbox / "bad user!").mkdir()
    (inbox / "bad user!" / "chat.json").write_text(json.dumps(GYM), encoding="utf-8")
    (inbox / "loose.json").write_text(json.dumps(GYM), encoding="utf-8")  # no --user: no owner
    refused = {f"{USER}/nested": "a folder", f"{USER}/broken.json": "malformed JSON",
               f"{USER}/notes.txt": "unknown transcript type", f"{USER}/link.json": "a symlink",
               "outside": "no user", f"{USER}/huge.json": "at most", f"{USER}/pipe.json": "not a regular file",
               "bad user!/chat.json": "user id", "loose.json": "no user"}
    with watching(mem, inbox) as (_, outcomes, _):
        seen = outcomes.count(len(refused))
        drop(inbox, f"{USER}/gym.json", GYM)  # and a good one after them all
        good: InboxOutcome = outcomes.wait_for(lambda o: not o.failed)
    assert {o.file for o in seen} == set(refused)
    for outcome in seen:
        assert outcome.failed and refused[outcome.file] in (outcome.reason or ""), outcome
        assert outcome.moved_to == inbox / ".failed" / outcome.file
        assert os.path.lexists(outcome.moved_to)
        note = outcome.moved_to.with_name(outcome.moved_to.name + ".reason").read_text(encoding="utf-8")
        assert note.count("\n") == 1 and note.strip() == outcome.reason
        assert str(inbox / ".work") not in note
    assert good.new_facts == 1 and texts(mem) == ["The gym costs $45 a month."]  # the secret was never read
    assert secret.read_text(encoding="utf-8") == json.dumps(GYM)
    assert sorted(os.listdir(inbox)) == [".done", ".failed", ".lock", ".work", USER, "bad user!"]
    assert os.listdir(inbox / USER) == [] == os.listdir(inbox / "bad user!")


def test_a_half_written_file_is_not_read_until_closed(mem: Memory, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    (inbox / USER).mkdir(parents=True)
    data = json.dumps(TWO_SESSIONS)
    half = len(data) // 2
    with watching(mem, inbox) as (feed, outcomes, _):
        with open(inbox / USER / "chat.json", "w", encoding="utf-8") as handle:
            handle.write(data[:half])
            handle.flush()
            # The writer pauses well past the settle time: unchanged, but still open for writing.
            started, polls = time.monotonic(), feed.polls
            while feed.polls < polls + 4 or time.monotonic() - started < 5 * SETTLE_S:
                assert time.monotonic() - started < WAIT_S and not outcomes.items, outcomes.items
                time.sleep(SETTLE_S)
            assert outcomes.items == [] and (inbox / USER / "chat.json").exists()
            handle.write(data[half:])
        outcome: InboxOutcome = outcomes.wait_for(lambda o: True)
    assert not outcome.failed, outcome.reason
    assert "My phone number is 503-555-8924." in texts(mem)
    assert len(outcomes.items) == 1


def test_restart_does_not_re_ingest_and_the_same_content_adds_nothing(mem: Memory, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    with watching(mem, inbox) as (_, outcomes, _):
        drop(inbox, f"{USER}/chat.json", TWO_SESSIONS)
        outcomes.wait_for(lambda o: True)
    before = [f.id for f in mem.log(USER)]
    with watching(mem, inbox) as (feed, outcomes, _):
        polls = feed.polls
        drop(inbox, f"{USER}/other.json", GYM)  # something new, so the restarted watch surely looked
        outcomes.wait_for(lambda o: True)
        assert feed.polls > polls
        drop(inbox, f"{USER}/chat.json", TWO_SESSIONS)  # the same content dropped again
        again: InboxOutcome = outcomes.wait_for(lambda o: o.file == f"{USER}/chat.json")
    assert [o.file for o in outcomes.items] == [f"{USER}/other.json", f"{USER}/chat.json"]
    assert again.new_facts == 0 and again.report is not None and again.report.skipped == len(before)
    assert again.moved_to == inbox / ".done" / USER / "chat.1.json"  # the name was taken
    assert len(list(mem.log(USER))) == len(before) + 1


def _watch_process(home: Path, inbox: Path, *extra: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([str(UAC), "--home", str(home), "watch", "--inbox", str(inbox), "--settle", "0.05",
                             "--json", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _first_inbox_line(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdout is not None
    found: list[dict[str, Any]] = []

    def reader() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith('{"inbox"'):
                found.append(json.loads(line)["inbox"])
                return

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(PROCESS_WAIT_S)
    assert found, "no inbox outcome from the watch process"
    return found[0]


@pytest.mark.slow
@pytest.mark.skipif(not UAC.exists(), reason="the uac console script is not installed in .venv")
def test_a_crash_between_ingest_and_move_re_ingests_nothing(home: Path, tmp_path: Path,
                                                            scripted_llm: ScriptedLLM) -> None:
    """A real `uac watch --inbox --llm` process dies right after the ingest (the test hook);
    the next one finds the file claimed, ingests it again — no new fact, no model call — and
    moves it to `.done`."""
    inbox = tmp_path / "inbox"
    drop(inbox, f"{USER}/chat.json", TRANSCRIPT)
    scripted_llm.queue(GOOD)
    env = {**os.environ, CRASH_HOOK: "1"}
    crashed = _watch_process(home, inbox, "--llm", env=env)
    out, err = crashed.communicate(timeout=PROCESS_WAIT_S)
    assert crashed.returncode == 75, (out, err)
    assert (inbox / ".work" / USER / "chat.json").is_file() and not (inbox / ".done").exists()
    mem = Memory.open(home)
    try:
        stored = [(f.id, f.kind) for f in mem.log(USER)]
    finally:
        mem.close()
    assert [k for _, k in stored] == ["allergy", "allergy", "trip", None]
    env.pop(CRASH_HOOK)
    proc = _watch_process(home, inbox, "--llm", USER, env=env)
    try:
        outcome = _first_inbox_line(proc)
    finally:
        proc.terminate()
        proc.communicate(timeout=PROCESS_WAIT_S)
    assert outcome["file"] == f"{USER}/chat.json" and not outcome["failed"], outcome
    assert outcome["count"] == 0 and outcome["extraction"]["skipped_sessions"] == 1
    assert outcome["moved_to"] == str(inbox / ".done" / USER / "chat.json")
    assert len(scripted_llm.chat_requests) == 1  # the model was asked once, before the crash
    mem = Memory.open(home)
    try:
        assert [(f.id, f.kind) for f in mem.log(USER)] == stored  # no duplicates
    finally:
        mem.close()
    assert os.listdir(inbox / ".work" / USER) == []


def test_the_api_handles_a_claimed_leftover_then_the_dropped_files(mem: Memory, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    leftover = inbox / ".work" / USER / "chat.json"
    leftover.parent.mkdir(parents=True)
    leftover.write_text(json.dumps(TWO_SESSIONS), encoding="utf-8")
    mem.ingest_transcript(USER, leftover)  # ingested, then the crash before the move
    before = texts(mem)
    drop(inbox, f"{USER}/gym.json", GYM)
    outcomes = mem.ingest_inbox(inbox)
    assert [(o.file, o.new_facts, o.failed) for o in outcomes] == [(f"{USER}/chat.json", 0, False),
                                                                  (f"{USER}/gym.json", 1, False)]
    assert texts(mem) == before + ["The gym costs $45 a month."]
    assert sorted(p.name for p in (inbox / ".done" / USER).iterdir()) == ["chat.json", "gym.json"]
    assert mem.ingest_inbox(inbox) == []


def test_one_process_handles_an_inbox_at_a_time(mem: Memory, tmp_path: Path, uac: Uac,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import one_error_line

    monkeypatch.setattr(Watcher, "run_until", lambda self, stop: pytest.fail("watch started"))
    inbox = tmp_path / "inbox"
    with mem.inbox(inbox):
        r = uac("watch", "--inbox", str(inbox))
        one_error_line(r, "another process is handling it")
        with pytest.raises(InputError, match="another process"):
            mem.ingest_inbox(inbox)
    assert mem.ingest_inbox(inbox) == []  # let go: free again


@pytest.mark.parametrize("args, needle", [
    (["--llm"], "go with --inbox"),
    (["--user", USER], "go with --inbox"),
    (["--inbox", "{file}"], "not a folder"),
    (["--inbox", "{dir}", "--user", "../x"], "user id"),
    (["--inbox", "{dir}", "--llm"], "no model configured"),
    (["--inbox", "{dir}", "--model", "m"], "go with --llm"),
    (["--inbox", "{dir}", "--user", "bob", USER], "not among the watched users"),
])
def test_bad_inbox_options_are_one_line_exit_2(uac: Uac, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               args: list[str], needle: str) -> None:
    from conftest import one_error_line

    monkeypatch.setattr(Watcher, "run_until", lambda self, stop: pytest.fail("watch started"))
    a_file = tmp_path / "a.json"
    a_file.write_text("{}", encoding="utf-8")
    filled = [a.format(file=a_file, dir=tmp_path / "box") for a in args]
    r = uac("watch", *filled)
    one_error_line(r, needle)


if sys.platform != "linux":  # close-write events (inotify) assumed by the half-written test
    pytestmark = pytest.mark.skip(reason="inbox watch tests assume Linux inotify")

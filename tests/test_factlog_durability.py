"""Real processes against one SQLite log: concurrent appends, and a SIGKILL mid-stream."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from factlog.sqlite import SqliteFactStore

APPENDER = Path(__file__).with_name("appender.py")


def spawn(db: Path, user: str, count: int, tag: str, *go: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(APPENDER), str(db), user, str(count), tag, *map(str, go)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_four_processes_appending_at_once_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    SqliteFactStore(db).close()  # schema exists before the race starts
    per_process = 300
    go = tmp_path / "go"
    procs = [spawn(db, "alice", per_process, f"p{i}", go) for i in range(4)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    acked: list[int] = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        acked += [int(line) for line in out.split()]
    store = SqliteFactStore(db)
    facts = list(store.facts("alice"))
    assert [f.id for f in facts] == list(range(1, 4 * per_process + 1))  # unique and gap-free
    assert sorted(acked) == [f.id for f in facts]
    for i in range(4):  # each process's facts all there, in its own order
        mine = [f.fields["n"] for f in facts if f.fields["tag"] == f"p{i}"]
        assert mine == list(range(per_process))
    assert store.verify().ok
    switches = sum(1 for a, b in zip(facts, facts[1:]) if a.fields["tag"] != b.fields["tag"])
    assert switches > 3, "the processes did not overlap; the test proved nothing"


def test_sigkill_mid_stream_keeps_every_acknowledged_append(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    proc = spawn(db, "alice", 0, "k")
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    acked: list[int] = []
    deadline = time.monotonic() + 30
    while len(acked) < 200 and time.monotonic() < deadline:
        acked.append(int(proc.stdout.readline()))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert len(acked) >= 200
    store = SqliteFactStore(db)
    report = store.verify()
    assert report.ok, report
    ids = [f.id for f in store.facts("alice")]
    assert set(acked) <= set(ids)
    assert ids == list(range(1, len(ids) + 1))

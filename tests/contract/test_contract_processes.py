"""Store contract: real processes writing at once, and a writer killed mid-stream. Each child
opens the store with `factlog.stores.open_store(kit.location)`, like any other process would."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from contract.store_kits import StoreKit

APPENDER = Path(__file__).with_name("appender.py")


def spawn(location: str, user: str, count: int, tag: str, *go: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(APPENDER), location, user, str(count), tag, *map(str, go)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_processes_appending_at_once_lose_nothing(kit: StoreKit, tmp_path: Path) -> None:
    """Four writers on one user and two on another: every acknowledged fact stored once,
    ids unique and gap-free per user, each writer's facts in its own order, chains valid."""
    kit.open().close()  # the store exists before the race starts
    writers = {"p0": ("alice", 300), "p1": ("alice", 300), "p2": ("alice", 300), "p3": ("alice", 300),
               "q0": ("bob", 100), "q1": ("bob", 100)}
    go = tmp_path / "go"
    procs = {tag: spawn(kit.location, user, count, tag, go) for tag, (user, count) in writers.items()}
    for proc in procs.values():
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    acked: dict[str, list[int]] = {"alice": [], "bob": []}
    for tag, proc in procs.items():
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        acked[writers[tag][0]] += [int(line) for line in out.split()]
    store = kit.open()
    for user, total in (("alice", 1200), ("bob", 200)):
        facts = list(store.facts(user))
        assert [f.id for f in facts] == list(range(1, total + 1))  # unique and gap-free
        assert sorted(acked[user]) == [f.id for f in facts]
        for tag in (t for t, (u, _) in writers.items() if u == user):  # each writer's facts, in its order
            mine = [f.fields["n"] for f in facts if f.fields["tag"] == tag]
            assert mine == list(range(writers[tag][1]))
    assert store.verify().ok
    alice = list(store.facts("alice"))
    switches = sum(1 for a, b in zip(alice, alice[1:]) if a.fields["tag"] != b.fields["tag"])
    assert switches > 3, "the processes did not overlap; the test proved nothing"


def test_a_writer_killed_mid_stream_keeps_every_acknowledged_append(kit: StoreKit) -> None:
    proc = spawn(kit.location, "alice", 0, "k")
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    acked: list[int] = []
    deadline = time.monotonic() + 30
    while len(acked) < 200 and time.monotonic() < deadline:
        acked.append(int(proc.stdout.readline()))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert len(acked) >= 200
    store = kit.open()
    report = store.verify()
    assert report.ok, report
    ids = [f.id for f in store.facts("alice")]
    assert set(acked) <= set(ids)
    assert ids == list(range(1, len(ids) + 1))

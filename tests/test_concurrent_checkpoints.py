"""Two processes appending and checkpointing one user at once: every checkpoint passes or
finds nothing new, version numbers stay distinct, and the last version holds every fact."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from runtime.memory import Memory
from users.checkpoint import Published, Unchanged

SCRIPT = Path(__file__).with_name("checkpointer.py")


def test_two_processes_checkpointing_the_same_user(tmp_path: Path) -> None:
    home, go = tmp_path / "home", tmp_path / "go"
    Memory.open(home).close()
    procs = [subprocess.Popen([sys.executable, str(SCRIPT), str(home), "alice", tag, "3", str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for tag in ("a", "b")]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outcomes += out.split()
    assert set(outcomes) <= {"Published", "Unchanged"} and "Published" in outcomes
    mem = Memory.open(home)
    assert isinstance(mem.checkpoint("alice"), (Published, Unchanged))
    history = mem.versions.history("alice")
    assert [v.number for v in history] == list(range(1, len(history) + 1))
    positions = [v.meta.log_position for v in history]
    assert positions == sorted(set(positions))  # current never moved back in the log
    result = mem.query("alice", "sorted(t.destination for t in trips)")
    assert getattr(result, "value", None) == sorted(f"{t} city {n}" for t in "ab" for n in range(3))
    assert mem.verify().ok and mem.versions.verify("alice") == []
    mem.close()

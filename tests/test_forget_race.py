"""`forget` racing a checkpoint, an alert run or a recall in another process: nothing derived
from the forgotten log survives (no version, no alert state, no index row), and a new user
of the same name, whose facts arrive right after the forget, never gets a version mixing in
the old facts.

Two long-lived worker processes (tests/forget_racer.py) keep their imports and mypy warm, so
a round costs one real checkpoint; the forget is sent after a random delay that lands it
before, inside or after the other process's read-compile-validate-publish window.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime.memory import Memory

SCRIPT = Path(__file__).with_name("forget_racer.py")
VICTIM = "victim"


class Worker:
    def __init__(self, home: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, str(SCRIPT), str(home)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.reply() == "ready"

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def reply(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            assert self.proc.stderr is not None
            raise AssertionError(f"worker died: {self.proc.wait(30)}: {self.proc.stderr.read()[-2000:]}")
        return line.strip()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(60)


def index_rows(home: Path, user: str) -> int:
    path = home / "index.db"
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        docs = db.execute("SELECT count(*) FROM docs WHERE user = ?", (user,)).fetchone()[0]
        users = db.execute("SELECT count(*) FROM users WHERE user = ?", (user,)).fetchone()[0]
    return int(docs) + int(users)


def files_mentioning(root: Path, marker: str) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and marker.encode() in path.read_bytes():
            found.append(str(path.relative_to(root)))
    return found


def race(tmp_path: Path, rounds: int, seed: int) -> None:
    home = tmp_path / "home"
    Memory.open(home).close()
    builder, forgetter = Worker(home), Worker(home)
    rng = random.Random(seed)
    mem = Memory.open(home)
    try:
        builder.send(f"add {VICTIM} warm 2")  # the first checkpoint runs mypy cold: not a round
        builder.send(f"checkpoint {VICTIM}")
        assert [builder.reply(), builder.reply()] == ["added", "Published"]
        forgetter.send(f"forget {VICTIM}")
        assert forgetter.reply().startswith("forgot")
        for n in range(rounds):
            old, new = f"old{n}x", f"new{n}x"
            builder.send(f"add {VICTIM} {old} {3 + n % 4}")
            assert builder.reply() == "added"
            builder.send(f"{'recall' if n % 3 == 2 else 'checkpoint'} {VICTIM}")
            time.sleep(rng.uniform(0.0, 0.6))
            again = n % 2 == 1  # odd rounds: a new user of the same name right after the forget
            forgetter.send(f"forget_add {VICTIM} {new} 2" if again else f"forget {VICTIM}")
            built, forgot = builder.reply(), forgetter.reply()
            where = f"round {n}: builder {built!r}, forgetter {forgot!r}"
            assert not built.startswith("refused") or "forgotten" in built or "no published" in built, where
            user_dir = home / "users" / VICTIM
            assert files_mentioning(home / "users", old) == [], where
            assert files_mentioning(home / "cache", old) == [], where
            assert mem.verify().ok, where
            if not again:
                assert not user_dir.exists(), (where, sorted(p.name for p in user_dir.iterdir()))
                assert index_rows(home, VICTIM) == 0, where
                assert mem.facts.head(VICTIM) == 0, where
                continue
            # The new user: whatever a racing checkpoint published holds new facts only ...
            assert not (user_dir / "alerts.json").exists() or mem.versions.current(VICTIM) is not None, where
            assert mem.versions.verify(VICTIM) == [], where
            for info in mem.versions.history(VICTIM):
                assert info.meta.log_position <= mem.facts.head(VICTIM), where
            # ... and the next checkpoint shows exactly the new user's facts.
            mem.checkpoint(VICTIM)
            cities = mem.query(VICTIM, "sorted(t.destination for t in trips)")
            assert getattr(cities, "value", None) == [f"{new} city 0", f"{new} city 1"], where
            forgetter.send(f"forget {VICTIM}")
            assert forgetter.reply().startswith("forgot"), where
            assert not user_dir.exists() and index_rows(home, VICTIM) == 0, where
    finally:
        mem.close()
        builder.close()
        forgetter.close()


@pytest.mark.slow
def test_forget_racing_checkpoint_alerts_and_recall(tmp_path: Path) -> None:
    race(tmp_path, rounds=4, seed=7)


@pytest.mark.slow
def test_forget_racing_checkpoint_many_rounds(tmp_path: Path) -> None:
    race(tmp_path, rounds=24, seed=11)


def test_a_checkpoint_that_read_the_log_before_a_forget_does_not_publish(tmp_path: Path) -> None:
    """Even without the workspace lock (a producer that is still compiling when the forget
    lands, e.g. in a process that does not hold it), the epoch check refuses the publish."""
    from uac_home import FunctionProducer

    from codegen.compile import compile_package
    from users.checkpoint import Unchanged, checkpoint

    mem = Memory.open(tmp_path / "home")
    mem.add(VICTIM, "Old trip", kind="trip", key="T1", fields={"destination": "Oldtown"})

    def producer(user: str, log: object) -> object:
        package = compile_package(user, log)  # type: ignore[arg-type]
        epoch_before = mem.versions.epoch()
        mem.facts.forget(user)
        mem.versions.forget(user)  # under the user's lock: replaces the epoch
        assert mem.versions.epoch() != epoch_before
        mem.add(user, "New trip", kind="trip", key="T9", fields={"destination": "Newtown"})
        return package

    result = checkpoint(mem.facts, mem.versions, mem.validator, VICTIM,
                        stage_root=mem.workspace.cache_dir / "stage",
                        producer=FunctionProducer(producer))  # type: ignore[arg-type]
    assert isinstance(result, Unchanged) and "forgotten" in result.reason
    assert mem.versions.history(VICTIM) == []
    assert not (mem.versions.root / VICTIM).exists()
    mem.checkpoint(VICTIM)
    assert getattr(mem.query(VICTIM, "[t.destination for t in trips]"), "value", None) == ["Newtown"]
    mem.close()

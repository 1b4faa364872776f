"""A compile state built from scratch, written into its file by a forked child.

A build from the whole log makes every row of the compiler's state (`codegen.compile_state`),
and only the next compile reads them. `start` forks a child that replays the kept writes
(`DeferredState.writes`) into the state file in one transaction, while the parent goes on
with the package (validation, publishing). The child takes the write lock first and checks
that the state's meta row is still the one the parent read before it compiled; if not,
another process moved the state on meanwhile, and the child leaves it alone.

RULE: a state is read only once its write is over. `wait(path)` waits for this process's
writer of that state (`codegen.compile.compile_incremental` calls it before it opens the
state; whoever asked for the write calls `StateWrite.wait` when its own work is done: the
checkpoint does, before it returns). The transaction makes the write all or nothing: a
child that fails, is killed, or misses its deadline (it is killed then) leaves the state as
it was, and the next compile finds it missing, behind the log or of another epoch, and
rebuilds or follows it as it does any state. Without `fork` (or when one cannot be started)
the parent writes the state itself before `start` returns.

The child is niced: it is a cache's write, and the validation's own children (bytecode,
mypy) are on the critical path.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from codegen.compile_state import StateDb, Write, replay
from codegen.forked import Forked, fork_call

BASE_SECONDS = 120.0  # how long a writer may take: this, plus SECONDS_PER_FACT per fact compiled
SECONDS_PER_FACT = 0.0005
NICE = 10

_PENDING: dict[str, StateWrite] = {}  # state path -> this process's writer of it, until waited for
_LOCK = threading.Lock()


class StateWrite:
    """The write of one state: done already (`child` None) or by a child."""

    def __init__(self, path: Path, child: Forked[bool] | None, status: str) -> None:
        self.path = path
        self._child = child
        self._lock = threading.Lock()
        self.status = status  # written, left (the state had moved on), failed, running

    def wait(self) -> str:
        """Wait for the write to end (the child is stopped at its deadline); its status."""
        with self._lock:
            child, self._child = self._child, None
            if child is not None:
                answer = child.answer()
                self.status = "failed" if answer is None else "written" if answer else "left"
        with _LOCK:
            if _PENDING.get(str(self.path)) is self:
                del _PENDING[str(self.path)]
        return self.status


def write(path: Path, seen: Mapping[str, str], writes: Sequence[Write]) -> bool:
    """Replay `writes` into the state at `path` after clearing it, in one transaction, if
    its meta row is still `seen`; whether it was written."""
    db = StateDb(path)
    try:
        db.begin_write()
        if db.meta() != dict(seen):
            db.rollback()
            return False
        db.clear()
        replay(db, writes)
        db.commit()
        return True
    except BaseException:
        db.rollback()
        raise
    finally:
        db.close()


def start(path: Path, seen: Mapping[str, str], writes: Sequence[Write], facts: int) -> StateWrite:
    """Write the state behind the caller (see module); waits first for an earlier writer of
    the same state in this process. `facts`: how many facts the state holds (for the
    child's deadline)."""
    wait(path)
    seen = dict(seen)

    def run() -> bool:
        try:
            os.nice(NICE)
        except OSError:
            pass
        return write(path, seen, writes)

    child = fork_call(run, bool, BASE_SECONDS + SECONDS_PER_FACT * facts)
    if child is None:
        return StateWrite(path, None, "written" if write(path, seen, writes) else "left")
    pending = StateWrite(path, child, "running")  # the parent lets the rows go: holding
    # them through validation costs more (every collection walks them) than freeing them now
    with _LOCK:
        _PENDING[str(path)] = pending
    return pending


def wait(path: Path) -> str | None:
    """Wait for this process's writer of the state at `path`, if one runs; its status."""
    with _LOCK:
        pending = _PENDING.get(str(path))
    return None if pending is None else pending.wait()

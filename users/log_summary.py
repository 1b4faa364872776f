"""What a checkpoint needs of the whole log, kept per user so that a checkpoint reads only
the facts after the last one it summarized: the live fact ids, the retractions (target ->
retracting fact), and the set hash of the live facts. A retraction of a fact summarized
before takes that fact's hash from the log (by id) to take it out of the set hash; when
the log cannot give it, the summary is rebuilt from the whole log.

The rules are the fact log's (`factlog.liveness`): a retraction and its target are dead,
for good, so the live set follows the log fact by fact. The INPUT HASH of a version
(`PublishMeta.input_hash`, `sum:<64 hex digits>`) is a set hash: the sum, modulo 2**256,
of sha256("live\\n" + fact hash) over the live facts the package holds (live, not left
out), so adding or retracting a fact updates it without reading the others. (Versions
published before it carry sha256 over the list of those hashes, and keep it.)

The summary is a cache in one SQLite file per user: its meta row names the log position
it describes, the chain hash of the fact there (the anchor) and the store's forget epoch;
on any mismatch, or a file that cannot be read, it is rebuilt from the whole log. It is
updated in one `BEGIN IMMEDIATE` transaction, so two processes checkpointing one user
serialize, and it never describes a log prefix other than the one it claims.

A process also keeps the live ids and retractions it last read or wrote of each summary
file, with the meta row they belong to: while the file's meta row is exactly that one
(the same log prefix, anchor, sum and epoch), a checkpoint reads and writes only the rows
of the new facts; otherwise the file is read as it stands.

A summary made afresh from a long log (`start_summary`) is made by a forked child once
the parent holds the whole log (a `codegen.log_view.StoreLog` read from its start: the
child reads nothing of the store), while the parent goes on (compiling); `result` waits
for it and keeps what the child wrote, as if the parent had. A child that cannot be
started, fails, or misses its deadline leaves the summary to the parent, as without one.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from codegen.forked import Forked, fork_call
from codegen.gc_pause import gc_paused
from codegen.log_view import StoreLog
from factlog.liveness import live_ids
from factlog.log_access import LogAccess, prefix_problem

FORMAT = "2"
FORK_MIN_FACTS = 20_000  # a summary made afresh from this many facts is made by a child (`start_summary`)
CHILD_SECONDS = 120.0  # how long such a child may take: this, plus CHILD_SECONDS_PER_FACT per fact
CHILD_SECONDS_PER_FACT = 0.0005
_MOD = 2**256
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS live_ids(id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS retractions(target INTEGER PRIMARY KEY, by INTEGER NOT NULL);
"""


class OutOfOrder(ValueError):
    """The log retracts a fact before it arrives: only a whole-log reading applies."""


def _term(fact_hash: str) -> int:
    return int.from_bytes(hashlib.sha256(b"live\n" + fact_hash.encode("ascii", "replace")).digest(), "big")


def set_hash(hashes: Iterable[str]) -> str:
    """The input hash of these facts' hashes (see module)."""
    return f"sum:{sum(_term(h) for h in hashes) % _MOD:064x}"


@dataclass(frozen=True)
class Summary:
    position: int
    live: frozenset[int]
    retractions: dict[int, int]  # target -> retracting fact
    live_sum: int
    rebuilt: str | None  # why the whole log was read, None when the summary was followed

    def input_hash(self, left_out: Iterable[int], log: LogAccess) -> str:
        """The set hash of the live facts but `left_out` (their hashes read by id)."""
        total = self.live_sum
        for fact_id in set(left_out) & self.live:
            fact = log.get(fact_id)
            if fact is not None:
                total -= _term(fact.hash)
        return f"sum:{total % _MOD:064x}"


@dataclass
class _Kept:
    """What a process holds of one summary file: its meta row, live ids and retractions."""

    meta: dict[str, str]
    live: frozenset[int]
    retractions: dict[int, int]


_KEPT: dict[str, _Kept] = {}  # summary file path -> what this process last read or wrote of it
_KEPT_LOCK = threading.Lock()


def forget_kept(path: Path | None = None) -> None:
    """Drop what this process holds of a summary file (of all, with None)."""
    with _KEPT_LOCK:
        if path is None:
            _KEPT.clear()
        else:
            _KEPT.pop(str(path), None)


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=120.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(_SCHEMA)
    return conn


@gc_paused
def summarize(path: Path | None, log: LogAccess, epoch: str) -> Summary:
    """The summary of `log` up to its head, following the stored one (see module)."""
    if path is None:
        return _summarize(sqlite3.connect(":memory:", isolation_level=None), log, epoch, persist=False)
    try:
        return _summarize(_connect(path), log, epoch, persist=True, key=str(path))
    except sqlite3.DatabaseError as error:
        forget_kept(path)
        if isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error)):
            # another process holds the summary too long: read the whole log, leaving it alone
            return _summarize(sqlite3.connect(":memory:", isolation_level=None), log, epoch, persist=False)
        for suffix in ("", "-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        return _summarize(_connect(path), log, epoch, persist=True, key=str(path))


def _summarize(conn: sqlite3.Connection, log: LogAccess, epoch: str, *, persist: bool,
               key: str | None = None, rebuild: bool = False) -> Summary:
    try:
        if persist:
            conn.execute("BEGIN IMMEDIATE")
        else:
            conn.executescript(_SCHEMA)
            conn.execute("BEGIN")
        meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
        reason = prefix_problem(meta, log, format=FORMAT, epoch=epoch, what="summary")
        with _KEPT_LOCK:
            kept = _KEPT.pop(key, None) if key is not None else None  # back only once committed
        if kept is not None and (reason is not None or kept.meta != meta):
            kept = None
        if reason == "summary ahead of the log":  # another process went further: leave it alone
            conn.execute("ROLLBACK")
            return _summarize(sqlite3.connect(":memory:", isolation_level=None), log, epoch, persist=False)
        if reason is None and rebuild:
            reason = "a retracted fact could not be read"
        if reason is not None:
            conn.execute("DROP TABLE IF EXISTS live")  # format 1 kept each live fact's hash too
            for table in ("meta", "live_ids", "retractions"):
                conn.execute(f"DELETE FROM {table}")
            position, total = 0, 0
        else:
            position, total = int(meta["position"]), int(meta["sum"], 16)
        new = tuple(log.after(position))  # the same tuple when the log hands one out
        if any(f.retracts is not None and f.retracts >= f.id for f in new):
            raise OutOfOrder("a retraction names a later fact")  # never from a store
        added: dict[int, str] = {}
        removed: set[int] = set()
        retracted: dict[int, int] = {}
        for fact in new:
            if fact.retracts is None:
                added[fact.id] = fact.hash
                total += _term(fact.hash)
                continue
            retracted.pop(fact.retracts, None)  # a later retraction of the same target comes last
            retracted[fact.retracts] = fact.id
            gone = added.pop(fact.retracts, None)
            if gone is None and position:  # (a summary started afresh holds no live rows yet)
                if conn.execute("DELETE FROM live_ids WHERE id = ?", (fact.retracts,)).rowcount:
                    target = log.get(fact.retracts)
                    if target is None:  # the log lost a fact below the anchor: start afresh
                        conn.execute("ROLLBACK")
                        return _summarize(conn, log, epoch, persist=persist, key=key, rebuild=True)
                    gone = target.hash
                    removed.add(fact.retracts)
            if gone is not None:
                total -= _term(gone)
        conn.executemany("INSERT OR REPLACE INTO retractions(target, by) VALUES (?, ?)", retracted.items())
        conn.executemany("INSERT OR REPLACE INTO live_ids(id) VALUES (?)", ((i,) for i in added))
        total %= _MOD
        head = new[-1].id if new else position
        anchor = log.get(head) if head else None
        written = {"format": FORMAT, "epoch": epoch, "position": str(head), "sum": f"{total:064x}",
                   "anchor": anchor.hash if anchor else ""}
        conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(written.items()))
        if kept is not None:  # what this process held of the file, and the new facts' rows
            live = kept.live.difference(removed).union(added)
            retractions = {t: b for t, b in kept.retractions.items() if t not in retracted}
            retractions.update(retracted)
        elif not position:  # read afresh: the tables hold exactly what was just written
            live = frozenset(added)
            retractions = dict(sorted(retracted.items(), key=lambda item: item[1]))
        else:
            live = frozenset(int(r[0]) for r in conn.execute("SELECT id FROM live_ids"))
            retractions = {int(t): int(b) for t, b in
                           conn.execute("SELECT target, by FROM retractions ORDER BY by")}
        conn.execute("COMMIT")
        if key is not None:
            with _KEPT_LOCK:
                _KEPT[key] = _Kept(written, live, retractions)
        return Summary(head, live, dict(retractions), total, reason)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()  # (again after a rebuild, which closed it already: a no-op)


class SummaryJob:
    """A summary on its way: made already, or by a forked child (see module)."""

    def __init__(self, path: Path | None, log: LogAccess, epoch: str, child: Forked[tuple[object, ...]] | None = None,
                 ready: Summary | None = None) -> None:
        self._path, self._log, self._epoch = path, log, epoch
        self._child = child
        self._ready = ready
        self._live: frozenset[int] | None = None

    @property
    def forked(self) -> bool:
        return self._child is not None

    @property
    def live(self) -> frozenset[int]:
        """The live fact ids (before the summary is done: read off the log in memory)."""
        if self._ready is not None:
            return self._ready.live
        if self._live is None:
            self._live = frozenset(live_ids(tuple(self._log.after(0))))
        return self._live

    def result(self) -> Summary:
        """The summary (waits for the child; made here if it gave none)."""
        if self._ready is None:
            child, self._child = self._child, None
            answer = None if child is None else child.answer()
            summary = answer[0] if isinstance(answer, tuple) and len(answer) == 2 else None
            kept = answer[1] if isinstance(answer, tuple) and len(answer) == 2 else None
            if isinstance(summary, Summary):
                if isinstance(kept, _Kept) and self._path is not None:
                    with _KEPT_LOCK:
                        _KEPT[str(self._path)] = kept
                self._ready = summary
            else:
                self._ready = summarize(self._path, self._log, self._epoch)
        return self._ready

    def close(self) -> None:
        """Stop the child if its summary was not taken."""
        if self._child is not None:
            self._child.close()
            self._child = None


def start_summary(path: Path | None, log: LogAccess, epoch: str, *, fork_min: int | None = None) -> SummaryJob:
    """`summarize`, by a forked child when the summary must be made afresh from at least
    `fork_min` (default FORK_MIN_FACTS) facts of a `StoreLog` (read here first, whole; see
    module)."""
    fork_min = FORK_MIN_FACTS if fork_min is None else fork_min
    key = str(path)
    with _KEPT_LOCK:
        known = key in _KEPT  # this process summarized that file before: it follows the log
    if path is None or known or not isinstance(log, StoreLog) or log.head < fork_min \
            or not _afresh(path, log, epoch):
        return SummaryJob(path, log, epoch, ready=summarize(path, log, epoch))
    log.after(0)  # the whole log, held: the child reads nothing of the store

    def run() -> tuple[Summary, _Kept | None]:
        summary = summarize(path, log, epoch)
        with _KEPT_LOCK:
            return summary, _KEPT.get(key)

    child = fork_call(run, tuple, CHILD_SECONDS + CHILD_SECONDS_PER_FACT * log.head) if log.holds_all else None
    if child is None:
        return SummaryJob(path, log, epoch, ready=summarize(path, log, epoch))
    return SummaryJob(path, log, epoch, child=child)


def _afresh(path: Path, log: LogAccess, epoch: str) -> bool:
    """Whether the summary at `path` must be made from the whole log (its file missing,
    unreadable, or not describing a prefix of `log`)."""
    if not path.exists():
        return True
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=120.0)
        try:
            meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return True
    return prefix_problem(meta, log, format=FORMAT, epoch=epoch, what="summary") is not None

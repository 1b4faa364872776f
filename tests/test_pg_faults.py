"""The PostgreSQL store under faults: the server restarted (or killed) while writer processes
append, and many writers on several users at once. Every acknowledged fact is stored exactly
once, each user's ids are gap-free, and every chain verifies."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable

import pytest
from pg_server import PgServer

from factlog.postgres import PostgresFactStore

WRITER = Path(__file__).with_name("store_writer.py")


Acked = dict[str, list[tuple[str, int, float]]]  # writer -> (user, id, when acknowledged)


def run_writers(url: str, plan: dict[str, tuple[int, list[str]]], go: Path,
                during: threading.Thread | None = None) -> Acked:
    """Start one writer per tag (count, users), let them go together, run `during` meanwhile;
    returns each writer's acknowledged appends. Every writer must finish with exit 0."""
    procs = {tag: subprocess.Popen([sys.executable, str(WRITER), url, tag, str(count), ",".join(users), str(go)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for tag, (count, users) in plan.items()}
    for proc in procs.values():
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    if during is not None:
        during.start()
    acked: Acked = {}
    for tag, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        acked[tag] = [(user, int(fid), float(when)) for user, fid, when in map(str.split, out.splitlines())]
    if during is not None:
        during.join()
    return acked


def check_log(url: str, plan: dict[str, tuple[int, list[str]]], acked: Acked) -> None:
    store = PostgresFactStore(url)
    try:
        expected: dict[str, int] = defaultdict(int)
        for count, users in plan.values():
            for n in range(count):
                expected[users[n % len(users)]] += 1
        for user, total in expected.items():
            facts = list(store.facts(user))
            assert [f.id for f in facts] == list(range(1, total + 1))  # all stored, once, gap-free
            mine = sorted(fid for tag in acked for (u, fid, _) in acked[tag] if u == user)
            assert mine == [f.id for f in facts]  # every acknowledged fact is there, none twice
            for tag, (count, users) in plan.items():  # each writer's facts of this user, in its order
                sent = [n for n in range(count) if users[n % len(users)] == user]
                assert [f.fields["n"] for f in facts if f.fields["tag"] == tag] == sent
        report = store.verify()
        assert report.ok, report
    finally:
        store.close()


class Fault(threading.Thread):
    """Runs `action` once the writers have stored `after` facts; records when it ran."""

    def __init__(self, url: str, after: int, action: Callable[[], None]) -> None:
        super().__init__()
        self.url, self.after, self.action = url, after, action
        self.began = self.ended = 0.0

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while True:
                row = conn.execute("SELECT COUNT(*) FROM facts").fetchone()
                if row is not None and row[0] >= self.after:
                    break
                time.sleep(0.02)
        self.began = time.time()
        self.action()
        self.ended = time.time()


def check_overlap(fault: Fault, acked: Acked) -> None:
    """The fault happened while the writers were writing (else the test proved nothing)."""
    times = [when for rows in acked.values() for (_, _, when) in rows]
    assert fault.began > 0 and min(times) < fault.began and max(times) > fault.ended


def test_a_restart_under_load_loses_no_acknowledged_fact(pg_server: PgServer, pg_url: str, tmp_path: Path) -> None:
    plan = {"a": (40, ["alice", "bob"]), "b": (40, ["alice"])}
    fault = Fault(pg_url, 15, pg_server.restart)
    acked = run_writers(pg_url, plan, tmp_path / "go", during=fault)
    check_overlap(fault, acked)
    check_log(pg_url, plan, acked)


@pytest.mark.slow
def test_a_killed_server_loses_no_acknowledged_fact(pg_server: PgServer, pg_url: str, tmp_path: Path) -> None:
    def crash() -> None:
        pg_server.kill()
        pg_server.start_again()

    plan = {"a": (150, ["alice", "bob"]), "b": (150, ["bob", "alice"]), "c": (150, ["carol", "alice"])}
    fault = Fault(pg_url, 60, crash)
    acked = run_writers(pg_url, plan, tmp_path / "go", during=fault)
    check_overlap(fault, acked)
    check_log(pg_url, plan, acked)


@pytest.mark.slow
def test_restarts_again_and_again_under_load(pg_server: PgServer, pg_url: str, tmp_path: Path) -> None:
    def restarts() -> None:
        for _ in range(3):
            pg_server.restart()
            time.sleep(0.3)

    plan = {f"w{i}": (150, ["alice", "bob", "carol"][i % 3:] + ["alice", "bob", "carol"][:i % 3]) for i in range(4)}
    fault = Fault(pg_url, 60, restarts)
    acked = run_writers(pg_url, plan, tmp_path / "go", during=fault)
    check_overlap(fault, acked)
    check_log(pg_url, plan, acked)


@pytest.mark.slow
def test_writers_on_several_users_at_once(pg_url: str, tmp_path: Path) -> None:
    users = ["u1", "u2", "u3"]
    plan = {f"w{i}": (40, users[i % 3:] + users[:i % 3]) for i in range(4)}
    check_log(pg_url, plan, run_writers(pg_url, plan, tmp_path / "go"))


@pytest.mark.slow
def test_eight_writers_times_a_thousand_facts(pg_url: str, tmp_path: Path) -> None:
    users = ["u1", "u2", "u3", "u4", "u5"]
    plan = {f"w{i}": (1000, users[i % 5:] + users[:i % 5]) for i in range(8)}
    check_log(pg_url, plan, run_writers(pg_url, plan, tmp_path / "go"))

"""Alerts raised by checkpoint workers reach the tenant's webhook (runtime.webhooks.webhook_outbox):
a delivery is recorded in the transaction that writes the alert state, so each new alert is
recorded exactly once — with two runs racing, and after a run that died before its commit
is retried — and the sender posts it signed. PostgreSQL holds the log, versions, alert
state, queue and tenants; the receiver is a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Iterator

import pytest
from webhook_receiver import Receiver

from constraints import AlertDiff
from runtime.memory import Memory
from runtime.tenants import PgTenantRegistry, Tenant
from runtime.webhooks import (
    DELIVERY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    WebhookSender,
    deliver_from_alert_runs,
    verify_signature,
)
from runtime.work_queue import WorkQueue
from runtime.worker import Worker
from users.checkpoint import CheckpointPolicy

DYING_WORKER = Path(__file__).with_name("dying_outbox_worker.py")


def passport(mem: Memory, user: str, days: int = 20) -> int:
    """A passport expiring in `days` days (critical within 30): the next constraint run raises
    `passport_expiry`."""
    expiry = (date.today() + timedelta(days=days)).isoformat()
    mem.add(user, "my passport", kind="passport", fields={"expiry_date": expiry, "country": "FR"})
    return mem.facts.head(user)


class Tenancy:
    """Tenant `a` (webhook to a receiver) with user alice, and tenant `b` without a webhook."""

    def __init__(self, pg_url: str) -> None:
        self.registry = PgTenantRegistry(pg_url)
        self.receiver = Receiver()
        self.a: Tenant = self.registry.add_tenant("a")
        self.b: Tenant = self.registry.add_tenant("b")
        self.secret = self.registry.set_webhook("a", self.receiver.url) or ""
        self.alice = self.a.internal_user("alice")

    def payloads(self) -> list[dict[str, Any]]:
        return [json.loads(d.payload) for d in self.registry.deliveries("a")]

    def close(self) -> None:
        self.receiver.close()
        self.registry.close()


@pytest.fixture
def tenancy(pg_url: str) -> Iterator[Tenancy]:
    found = Tenancy(pg_url)
    yield found
    found.close()


def opened(home: Path, pg_url: str, outbox: bool = True) -> Memory:
    mem = Memory.open(home, store=pg_url)
    if outbox:
        assert deliver_from_alert_runs(mem)
    return mem


def run_worker(pg_url: str, mem: Memory, owner: str = "w1") -> list[str]:
    seen: list[str] = []
    with WorkQueue.open(pg_url, debounce_s=0, lease_s=30, retry_s=0) as queue:
        queue.enqueue({user: mem.facts.head(user) for user in mem.facts.users()})
        worker = Worker(queue, mem, CheckpointPolicy(), None, owner, lambda o: seen.append(o.status),
                        poll_s=0.01, sweep_s=None)
        worker.run_until(threading.Event(), exit_when_idle=True)
    return seen


def test_a_workers_new_alert_is_delivered_signed_once(pg_url: str, tenancy: Tenancy, tmp_path: Path) -> None:
    mem = opened(tmp_path / "home", pg_url)
    try:
        passport(mem, tenancy.alice)
        mem.add(tenancy.b.internal_user("carol"), "likes tea")  # a tenant without a webhook: nothing recorded
        passport(mem, "dave")  # no tenant's user (the CLI's): nothing recorded
        assert sorted(run_worker(pg_url, mem)) == ["published"] * 3
        [payload] = tenancy.payloads()
        assert (payload["tenant"], payload["user"], payload["operation"]) == ("a", "alice", "checkpoint")
        assert [a["constraint"] for a in payload["raised"]] == ["passport_expiry"]
        assert tenancy.a.namespace not in json.dumps(payload)  # the stored id never leaves
        mem.add(tenancy.alice, "likes tea")  # a new version, the same alert still active: no news
        assert run_worker(pg_url, mem) == ["published"]
        assert len(tenancy.payloads()) == 1
    finally:
        mem.close()
    [delivery] = tenancy.registry.pending_deliveries()
    assert WebhookSender(tenancy.registry, attempts=1).deliver(delivery) == "delivered"
    [(headers, body)] = tenancy.receiver.requests
    assert verify_signature(tenancy.secret, headers[TIMESTAMP_HEADER.lower()], headers[SIGNATURE_HEADER.lower()],
                            body)
    assert headers[DELIVERY_HEADER.lower()] == str(delivery.id) and json.loads(body)["user"] == "alice"
    assert [d.status for d in tenancy.registry.deliveries("a")] == ["delivered"]


def test_two_alert_runs_racing_record_one_delivery(pg_url: str, tenancy: Tenancy, tmp_path: Path) -> None:
    first = opened(tmp_path / "one", pg_url)
    second = opened(tmp_path / "two", pg_url)  # another machine: its own workspace, the same database
    try:
        passport(first, tenancy.alice)
        run_worker(pg_url, first)
        with first.versions.pool.connection() as conn:  # forget what the worker's run recorded
            conn.execute("DELETE FROM webhook_deliveries")
            conn.execute("DELETE FROM alert_states")
        barrier = threading.Barrier(2)
        diffs: list[AlertDiff] = []

        def run(mem: Memory) -> None:
            barrier.wait()
            diffs.append(mem.alerts(tenancy.alice))

        threads = [threading.Thread(target=run, args=(m,)) for m in (first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(len(d.raised) for d in diffs) == [0, 1]  # one run raised it; the other saw it raised
        assert len(tenancy.payloads()) == 1
    finally:
        first.close()
        second.close()


def test_a_worker_killed_before_its_alert_commit_leaves_one_delivery_to_the_retry(
        pg_url: str, tenancy: Tenancy, tmp_path: Path) -> None:
    """kill -9 after the publish and after the outbox recorded the delivery, before the commit:
    nothing of the alert run stays; the retry (the version is current already) runs the
    alerts again and records the delivery once."""
    home, marker = tmp_path / "home", tmp_path / "in-outbox"
    mem = opened(home, pg_url)
    try:
        head = passport(mem, tenancy.alice)
        with WorkQueue.open(pg_url, debounce_s=0) as queue:
            queue.enqueue({tenancy.alice: head})
        dying = subprocess.Popen([sys.executable, str(DYING_WORKER), pg_url, str(home), str(marker)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert dying.poll() is None, dying.communicate()
            assert time.monotonic() < deadline, "the worker never reached its outbox"
            time.sleep(0.02)
        os.kill(dying.pid, signal.SIGKILL)
        dying.communicate()
        assert mem.versions.current(tenancy.alice) is not None  # published before it died
        assert tenancy.payloads() == []  # the delivery died with the transaction
        time.sleep(1.1)  # the dead worker's lease (1 s) expires
        assert run_worker(pg_url, mem, "w2") == ["unchanged"]
        [payload] = tenancy.payloads()
        assert [a["constraint"] for a in payload["raised"]] == ["passport_expiry"]
        assert payload["operation"] == "checkpoint"  # the retry's run catches up the checkpoint's
        mem.add(tenancy.alice, "likes tea")
        assert run_worker(pg_url, mem, "w3") == ["published"]  # caught up: the alert is not news again
        assert len(tenancy.payloads()) == 1
    finally:
        mem.close()

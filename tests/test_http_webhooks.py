"""An HTTP API run's new alerts reach the tenant's webhook through the alert runs' outbox
(runtime.webhooks.deliver_from_alert_runs), as a checkpoint worker's do, on both stores the
server supports: the embedded one (`alerts.json` and `tenants.db`) and PostgreSQL. A
checkpoint raising an alert gives exactly one signed delivery, verified by a real receiver
on 127.0.0.1; a repeat gives none; a server killed (kill -9) in the run leaves the delivery
recorded exactly when the alert state was saved."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from fastapi.testclient import TestClient
from webhook_receiver import Receiver

from runtime.http_api import HttpApi
from runtime.memory import Memory
from runtime.tenants import TenantRegistry, open_registry
from runtime.webhooks import DELIVERY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, WebhookSender, verify_signature

TODAY = "2026-01-01"
PASSPORT = {"kind": "passport", "fields": {"expiry_date": "2026-01-20", "country": "FR"}}  # critical on TODAY
DYING_SERVER = Path(__file__).with_name("dying_http_server.py")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest) -> str | None:
    """None: the workspace's own store; else a PostgreSQL URL."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


class Served:
    """`uac serve`'s app over a home (and a store), in this process."""

    def __init__(self, home: Path, store: str | None) -> None:
        self.registry: TenantRegistry = open_registry(home, store)
        self.mem = Memory.open(home, store=store)
        self.api = HttpApi(self.mem, self.registry)
        self.client = TestClient(self.api.app())

    def post(self, path: str, body: dict[str, Any], key: str) -> Any:
        answer = self.client.post(f"/v1/users/alice/{path}", json=body, headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def payloads(self) -> list[dict[str, Any]]:
        return [json.loads(d.payload) for d in self.registry.deliveries("a")]

    def close(self) -> None:
        self.client.close()
        self.api.close()
        self.mem.close()
        self.registry.close()


def tenant_a(home: Path, store: str | None, url: str) -> tuple[str, str]:
    """Tenant `a` with a webhook to `url`: (its key, the signing secret)."""
    registry = open_registry(home, store)
    try:
        registry.add_tenant("a")
        return registry.add_key("a")[1], registry.set_webhook("a", url) or ""
    finally:
        registry.close()


def raised(report: dict[str, Any]) -> list[str]:
    return [alert["constraint"] for alert in report["raised"]]


def test_an_http_checkpoint_raising_an_alert_delivers_it_once_signed(
        store: str | None, receiver: Receiver, tmp_path: Path) -> None:
    home = tmp_path / "home"
    key, secret = tenant_a(home, store, receiver.url)
    served = Served(home, store)
    try:
        served.post("facts", PASSPORT, key)
        report = served.post("checkpoint", {"today": TODAY}, key)
        assert report["outcome"] == "published" and raised(report["alerts"]) == ["passport_expiry"]
        [payload] = served.payloads()
        assert (payload["tenant"], payload["user"], payload["operation"]) == ("a", "alice", "checkpoint")
        assert [a["constraint"] for a in payload["raised"]] == ["passport_expiry"]
        assert served.registry.tenant("a").namespace not in json.dumps(payload)  # the stored id never leaves
        served.post("facts", {"text": "I like tea"}, key)  # a new version, the alert still active: no news
        again = served.post("checkpoint", {"today": TODAY}, key)
        assert again["outcome"] == "published" and again["alerts"]["raised"] == []
        assert raised(served.post("alerts", {"today": TODAY}, key)) == []
        [delivery] = served.registry.deliveries("a")
        assert delivery.status == "pending"
        assert WebhookSender(served.registry, attempts=1).deliver(delivery) == "delivered"
    finally:
        served.close()
    [(headers, body)] = receiver.requests
    assert verify_signature(secret, headers[TIMESTAMP_HEADER.lower()], headers[SIGNATURE_HEADER.lower()], body)
    assert not verify_signature("whsec_other", headers[TIMESTAMP_HEADER.lower()], headers[SIGNATURE_HEADER.lower()],
                                body)
    assert headers[DELIVERY_HEADER.lower()] == str(delivery.id)
    assert json.loads(body)["raised"][0]["constraint"] == "passport_expiry"


@pytest.mark.parametrize(("store_kind", "phase", "saved"), [
    ("sqlite", "before-save", False),
    ("sqlite", "after-save", True),
    ("sqlite", "before-response", True),
    ("postgresql", "in-transaction", False),
    ("postgresql", "before-response", True),
])
def test_a_server_killed_in_a_checkpoint_leaves_the_delivery_with_the_saved_state(
        store_kind: str, phase: str, saved: bool, receiver: Receiver, tmp_path: Path,
        request: pytest.FixtureRequest) -> None:
    """kill -9 at `phase` of a checkpoint's alert run: a server started again holds one
    delivery when the alert state was saved, none (nothing staged either) when it was not;
    then an `alerts` run raises the alert (if the state had not kept it) and records it: one
    delivery in the end, whichever the phase."""
    store = None if store_kind == "sqlite" else str(request.getfixturevalue("pg_url"))
    home, marker = tmp_path / "home", tmp_path / "reached"
    key, _ = tenant_a(home, store, receiver.url)
    served = Served(home, store)
    try:
        served.post("facts", PASSPORT, key)
    finally:
        served.close()
    dying = subprocess.Popen([sys.executable, str(DYING_SERVER), str(home), store or "-", key, str(marker), phase],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while not marker.exists():
        assert dying.poll() is None, dying.communicate()
        assert time.monotonic() < deadline, f"the server never reached {phase}"
        time.sleep(0.02)
    os.kill(dying.pid, signal.SIGKILL)
    dying.communicate()
    served = Served(home, store)  # a server started again: what the dead one left staged is settled
    try:
        alice = served.registry.tenant("a").internal_user("alice")
        assert served.mem.versions.current(alice) is not None  # published before it died
        assert len(served.payloads()) == (1 if saved else 0)
        assert [d.status for d in served.registry.deliveries("a")] == (["pending"] if saved else [])
        assert bool(served.mem.alert_runs.state(alice).active) == saved
        assert raised(served.post("alerts", {"today": TODAY}, key)) == ([] if saved else ["passport_expiry"])
        [payload] = served.payloads()
        assert [a["constraint"] for a in payload["raised"]] == ["passport_expiry"]
        assert payload["operation"] == ("checkpoint" if saved else "alerts")
    finally:
        served.close()


def test_a_failed_save_of_the_alert_state_records_no_delivery(
        receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded store: the staged delivery goes with a save that failed; the next
    run, saving, raises the alert again and records it once."""
    from constraints.kept_state import KeptStates

    home = tmp_path / "home"
    key, _ = tenant_a(home, None, receiver.url)
    served = Served(home, None)
    try:
        served.post("facts", PASSPORT, key)
        real_save = KeptStates.save

        def failing(self: KeptStates, path: Path, state: Any) -> None:
            raise OSError("disk full")

        monkeypatch.setattr(KeptStates, "save", failing)
        answer = served.client.post("/v1/users/alice/checkpoint", json={"today": TODAY},
                                    headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 400 and "disk full" in answer.json()["error"]  # a tool error
        assert served.registry.deliveries("a") == []
        monkeypatch.setattr(KeptStates, "save", real_save)
        assert raised(served.post("alerts", {"today": TODAY}, key)) == ["passport_expiry"]
        assert [d.status for d in served.registry.deliveries("a")] == ["pending"]
    finally:
        served.close()


def test_a_tenants_db_made_before_staging_gains_its_columns(tmp_path: Path) -> None:
    import sqlite3

    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "tenants.db") as db:  # the schema before staged deliveries
        db.execute("CREATE TABLE webhook_deliveries (id INTEGER PRIMARY KEY, tenant_id INTEGER NOT NULL, "
                   "url TEXT NOT NULL, payload TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL "
                   "DEFAULT 0, last_error TEXT, created TEXT NOT NULL, updated TEXT NOT NULL)")
    registry = open_registry(home)
    try:
        tenant = registry.add_tenant("a")
        registry.set_webhook("a", "http://127.0.0.1:1/hook")
        staged = registry.stage_delivery(registry.tenant("a"), "{}", tenant.internal_user("alice"), "0" * 64)
        assert registry.staged_deliveries() == [(staged, tenant.internal_user("alice"), "0" * 64)]
        assert registry.pending_deliveries() == []  # staged: not sent
        registry.confirm_delivery(staged)
        assert [d.id for d in registry.pending_deliveries()] == [staged] and registry.staged_deliveries() == []
    finally:
        registry.close()

"""`uac serve --store postgresql://…` as a real process on a free port, driven with httpx: two
tenants write, checkpoint and query their own users and cannot see each other's; a checkpoint
worker's alert reaches the tenant's webhook through the server's sender, signed, once; SIGTERM
stops the server cleanly (exit 0)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

import httpx
import pytest
from webhook_receiver import Receiver

from runtime.tenants import PgTenantRegistry
from runtime.webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER, verify_signature
from runtime.work_queue import WorkQueue

UAC = [sys.executable, "-c", "from runtime.cli import main; main()"]
REPO = Path(__file__).resolve().parents[1]
TRIP = {"kind": "trip", "fields": {"destination": "Tokyo", "cost_usd": 1200, "departure_date": "2026-03-01"}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def passport(days: int = 20) -> dict[str, object]:
    expiry = (date.today() + timedelta(days=days)).isoformat()
    return {"kind": "passport", "fields": {"expiry_date": expiry, "country": "FR"}}


@contextmanager
def served(home: Path, pg_url: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`uac serve --store pg_url` on a free port until the block ends; then SIGTERM, and the
    server must exit 0 within a minute."""
    port = free_port()
    server = subprocess.Popen([*UAC, "--home", str(home), "serve", "--store", pg_url, "--port", str(port)],
                              stderr=subprocess.PIPE, env={**os.environ, "UAC_WARM": "off"}, cwd=REPO)
    try:
        assert server.stderr is not None
        line = server.stderr.readline().decode()
        assert "serving the HTTP API" in line, line + server.stderr.read().decode()
        yield server, f"http://127.0.0.1:{port}"
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert code == 0, (server.stderr.read().decode() if server.stderr else "")


def test_two_tenants_over_a_real_server_and_sigterm(pg_url: str, tmp_path: Path) -> None:
    registry = PgTenantRegistry(pg_url)
    try:
        registry.add_tenant("a")
        registry.add_tenant("b")
        keys = {name: {"Authorization": f"Bearer {registry.add_key(name)[1]}"} for name in ("a", "b")}
    finally:
        registry.close()
    with served(tmp_path / "home", pg_url) as (_server, url), httpx.Client(base_url=url, timeout=120) as http:
        assert http.get("/v1/health").json() == {"status": "ok"}
        for tenant, user in (("a", "alice"), ("b", "bob")):
            assert http.post(f"/v1/users/{user}/facts", json=TRIP, headers=keys[tenant]).status_code == 201
            done = http.post(f"/v1/users/{user}/checkpoint", json={}, headers=keys[tenant])
            assert done.status_code == 200 and done.json()["outcome"] == "published", done.text
            query = http.post(f"/v1/users/{user}/query", json={"expression": "len(trips)"}, headers=keys[tenant])
            assert query.status_code == 200 and query.json()["value"] == 1, query.text
        assert http.get("/v1/users", headers=keys["a"]).json() == {"users": ["alice"]}
        assert http.get("/v1/users", headers=keys["b"]).json() == {"users": ["bob"]}
        for method, path, body in (("POST", "/v1/users/USER/query", {"expression": "len(trips)"}),
                                   ("GET", "/v1/users/USER/history", None),
                                   ("GET", "/v1/users/USER/manifest", None),
                                   ("POST", "/v1/users/USER/checkpoint", {}),
                                   ("DELETE", "/v1/users/USER", None)):
            theirs = http.request(method, path.replace("USER", "alice"), json=body, headers=keys["b"])
            nobody = http.request(method, path.replace("USER", "ghost"), json=body, headers=keys["b"])
            assert theirs.status_code == 404, (path, theirs.text)
            assert theirs.text == nobody.text.replace("ghost", "alice"), path
        # a write by b to "alice" makes b's own alice; a's alice is untouched
        assert http.post("/v1/users/alice/facts", json=TRIP, headers=keys["b"]).status_code == 201
        assert http.delete("/v1/users/alice", headers=keys["b"]).json() == {"forgotten_facts": 1}
        query = http.post("/v1/users/alice/query", json={"expression": "len(trips)"}, headers=keys["a"])
        assert query.json()["value"] == 1


@pytest.mark.slow  # a worker process and a checkpoint: several seconds
def test_a_workers_alert_is_posted_by_the_servers_sender_once(pg_url: str, tmp_path: Path) -> None:
    """fact over HTTP -> `uac worker` checkpoints it (the server enqueued the user) -> the
    worker's run records the delivery -> the server posts it, signed."""
    receiver = Receiver()
    registry = PgTenantRegistry(pg_url)
    try:
        registry.add_tenant("a")
        key = {"Authorization": f"Bearer {registry.add_key('a')[1]}"}
        secret = registry.set_webhook("a", receiver.url) or ""
        home = tmp_path / "home"
        with served(home, pg_url) as (_server, url), httpx.Client(base_url=url, timeout=120) as http:
            assert http.post("/v1/users/carol/facts", json=passport(), headers=key).status_code == 201
            with WorkQueue.open(pg_url) as queue:
                assert queue.status().pending == 1  # the server's write enqueued carol
            worker = subprocess.run([*UAC, "--home", str(home), "worker", "--store", pg_url, "--until-idle",
                                     "--debounce", "0", "--poll", "0.05", "--sweep", "3600"],
                                    capture_output=True, text=True, timeout=300, cwd=REPO)
            assert worker.returncode == 0, worker.stderr
            assert "published" in worker.stdout, worker.stdout
            deadline = time.monotonic() + 30  # the sender looks for pending deliveries every 5 s
            while not receiver.requests and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(0.5)
            [(headers, body)] = receiver.requests
            assert verify_signature(secret, headers[TIMESTAMP_HEADER.lower()], headers[SIGNATURE_HEADER.lower()],
                                    body)
            payload = json.loads(body)
            assert (payload["tenant"], payload["user"]) == ("a", "carol")
            assert [a["constraint"] for a in payload["raised"]] == ["passport_expiry"]
        assert [(d.status, d.attempts) for d in registry.deliveries("a")] == [("delivered", 1)]
    finally:
        registry.close()
        receiver.close()

"""The HTTP API (`uac serve`, runtime.http_api): two tenants' keys against every endpoint
(a tenant cannot read, write, forget or even detect another tenant's users), read-only keys,
authentication, body and rate limits, JSON errors, and signed webhook deliveries verified by
a receiver on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from fastapi.testclient import TestClient
from webhook_receiver import Receiver

from factlog.errors import UacError
from runtime.http_api import HttpApi
from runtime.memory import Memory
from runtime.tenants import MAX_USER_CHARS, TenantRegistry, open_registry
from runtime.webhooks import DELIVERY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, WebhookSender, verify_signature

TODAY = "2026-01-01"
PASSPORT = {"kind": "passport", "fields": {"expiry_date": "2026-01-20", "country": "FR"}}
TRIP = {"kind": "trip", "fields": {"destination": "Tokyo", "cost_usd": 1200, "departure_date": "2026-03-01"}}


class Served:
    def __init__(self, home: Path, **options: Any) -> None:
        self.registry: TenantRegistry = open_registry(home)
        self.mem = Memory.open(home)
        self.api = HttpApi(self.mem, self.registry, **options)
        self.client = TestClient(self.api.app())

    def key(self, tenant: str, read_only: bool = False) -> dict[str, str]:
        if tenant not in {t.name for t in self.registry.tenants()}:
            self.registry.add_tenant(tenant)
        return {"Authorization": f"Bearer {self.registry.add_key(tenant, read_only=read_only)[1]}"}

    def close(self) -> None:
        self.client.close()
        self.api.close()
        self.mem.close()
        self.registry.close()


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


def publish_now(mem: Memory, user: str, stage: Path) -> None:
    """Publish the user's log as a version directly (as benchmarks/bench_query.py builds one):
    what a checkpoint publishes, without its seconds of type checking."""
    from codegen.compile import compile_package
    from codegen.loader import load_package, unload_package
    from codegen.manifest import build_manifest, identity_from_facts
    from users.versions import PublishMeta

    log = list(mem.facts.facts(user))
    package = compile_package(user, log)
    stage.mkdir()
    for name, text in package.files.items():
        (stage / name).write_text(text, encoding="utf-8")
    module = load_package(stage, "_http_api_stage")
    manifest = build_manifest(vars(module), identity=identity_from_facts({f.id: f for f in log}),
                              quarantined=package.quarantined)
    unload_package("_http_api_stage")
    mem.versions.publish(user, package.files, PublishMeta(log_position=package.log_position,
                                                          input_hash=package.input_hash, producer="compiler"),
                         manifest=manifest)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, receiver: Receiver) -> Iterator[dict[str, Any]]:
    """Tenant `a` with user alice (a passport and a trip; version 1; an alert run over HTTP
    raised the passport alert, recorded for a's webhook); tenant `b` with no users."""
    root = tmp_path_factory.mktemp("http")
    served = Served(root / "home")
    a, a_ro, b = served.key("a"), served.key("a", read_only=True), served.key("b")
    secret = served.registry.set_webhook("a", receiver.url)
    c = served.client
    assert c.post("/v1/users/alice/facts", json=PASSPORT, headers=a).status_code == 201
    assert c.post("/v1/users/alice/facts", json=TRIP, headers=a).status_code == 201
    publish_now(served.mem, served.registry.tenant("a").internal_user("alice"), root / "stage")
    run = c.post("/v1/users/alice/alerts", json={"today": TODAY}, headers=a)
    assert run.status_code == 200 and run.json()["raised"], run.text
    yield {"served": served, "c": c, "a": a, "a_ro": a_ro, "b": b, "secret": secret}
    served.close()


def _state(world: dict[str, Any]) -> str:
    """What tenant a can see of alice: her log, versions and query answer."""
    mem: Memory = world["served"].mem
    alice = world["served"].registry.tenant("a").internal_user("alice")
    return json.dumps([[f.id for f in mem.log(alice)], [v.number for v in mem.versions.history(alice)],
                       world["c"].post("/v1/users/alice/query", json={"expression": "len(trips)"},
                                       headers=world["a"]).json()["value"]])


# Every endpoint: (method, path with USER, JSON body). Reads and the writes that need an
# existing user first, then the two writes that create one.
ENDPOINTS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/v1/users/USER/query", {"expression": "len(trips)"}),
    ("POST", "/v1/users/USER/ask", {"question": "How many trips?"}),
    ("POST", "/v1/users/USER/recall", {"question": "Tokyo trip"}),
    ("POST", "/v1/users/USER/alerts", {"today": TODAY}),
    ("GET", "/v1/users/USER/manifest", None),
    ("GET", "/v1/users/USER/history", None),
    ("GET", "/v1/users/USER/diff", None),
    ("POST", "/v1/users/USER/checkpoint", {"today": TODAY}),
    ("POST", "/v1/users/USER/rollback", {"version": 1}),
    ("POST", "/v1/users/USER/facts/1/retract", {"reason": "wrong"}),
    ("DELETE", "/v1/users/USER", None),
    ("POST", "/v1/users/USER/facts", {"text": "I like tea"}),
    ("POST", "/v1/users/USER/conversations", {"session_id": "s1", "messages": [
        {"role": "user", "content": "I moved to Berlin."}]}),
]
WRITES = {"/checkpoint", "/rollback", "/retract", "/facts", "/conversations"}


def _call(c: TestClient, method: str, path: str, body: dict[str, Any] | None, headers: dict[str, str]) -> Any:
    return c.request(method, path, json=body, headers=headers)


def test_a_tenant_cannot_detect_another_tenants_user_on_any_endpoint(world: dict[str, Any]) -> None:
    c, b = world["c"], world["b"]
    before = _state(world)
    a_internal = world["served"].registry.tenant("a").internal_user("alice")
    for method, path, body in ENDPOINTS:
        theirs = _call(c, method, path.replace("USER", "alice"), body, b)
        nobody = _call(c, method, path.replace("USER", "ghost"), body, b)
        assert theirs.status_code == nobody.status_code, (path, theirs.text, nobody.text)
        assert theirs.text == nobody.text.replace("ghost", "alice"), path
        assert theirs.headers.get("content-type") == "application/json"
        if not path.endswith(("/facts", "/conversations")):
            assert theirs.status_code in (400, 404), (path, theirs.text)  # no such user, to b
        # the stored id of a's user, named by b, is only a name in b's own namespace
        named = _call(c, method, path.replace("USER", a_internal), body, b)
        assert named.status_code == nobody.status_code
        assert named.text == nobody.text.replace("ghost", a_internal), path
    assert _state(world) == before  # a's alice untouched: same facts, versions, answer
    assert c.get("/v1/users", headers=b).json() == {"users": sorted(["alice", "ghost", a_internal])}
    assert "alice" in c.get("/v1/users", headers=world["a"]).json()["users"]
    mem: Memory = world["served"].mem
    b_alice = world["served"].registry.tenant("b").internal_user("alice")
    assert [f.text for f in mem.log(b_alice)][0] == "I like tea"  # b wrote to its own alice
    assert c.delete("/v1/users/alice", headers=b).status_code == 200  # b forgets its own alice ...
    assert _state(world) == before  # ... and a's is still there


def test_every_endpoint_answers_its_own_tenant(world: dict[str, Any]) -> None:
    c, a = world["c"], world["a"]
    assert c.post("/v1/users/alice/query", json={"expression": "len(trips)"}, headers=a).json()["value"] == 1
    manifest = c.get("/v1/users/alice/manifest", headers=a).json()
    assert manifest["user"] == "alice" and "trips" in manifest["collections"]
    history = c.get("/v1/users/alice/history", headers=a).json()
    assert [v["version"] for v in history] == [1] and history[0]["user"] == "alice"
    assert all("path" not in v for v in history)  # no server path leaves the server
    assert c.get("/v1/users/alice/diff", headers=a).json()["to"] == 1
    assert c.post("/v1/users/alice/recall", json={"question": "Tokyo"}, headers=a).status_code == 200
    assert c.post("/v1/users/alice/rollback", json={"version": 1}, headers=a).json()["current_version"] == 1
    listed = c.get("/openapi.json").json()["paths"]
    assert {"/v1/users/{user}/query", "/v1/users/{user}/facts", "/v1/users/{user}"} <= set(listed)


def test_a_read_only_key_is_refused_on_every_write(world: dict[str, Any]) -> None:
    c, ro = world["c"], world["a_ro"]
    before = _state(world)
    for method, path, body in ENDPOINTS:
        response = _call(c, method, path.replace("USER", "alice"), body, ro)
        write = method == "DELETE" or any(path.endswith(w) for w in WRITES)
        if write:
            assert response.status_code == 403, path
            assert response.json()["error"].endswith("this API key is read-only")
        else:
            assert response.status_code != 403, path
    assert _state(world) == before


def test_keys_missing_wrong_or_revoked_authenticate_nobody(tmp_path: Path) -> None:
    served = Served(tmp_path / "home")
    try:
        good = served.key("a")
        c = served.client
        assert c.get("/v1/users", headers=good).json() == {"users": []}
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": good["Authorization"][:-1] + "x"},
                        {"Authorization": "Basic " + good["Authorization"].split()[1]}):
            response = c.get("/v1/users", headers=headers)
            assert response.status_code == 401 and list(response.json()) == ["error"]
            assert response.headers["www-authenticate"] == "Bearer"
        key_id = served.registry.keys("a")[0].key_id
        served.registry.revoke_key(key_id)
        assert c.get("/v1/users", headers=good).status_code == 401  # at once, on a running server
        stored = (tmp_path / "home" / "tenants.db").read_bytes()
        assert good["Authorization"].split()[1].encode() not in stored  # only a hash is kept
    finally:
        served.close()


def test_limits_and_errors_are_one_json_line(tmp_path: Path) -> None:
    served = Served(tmp_path / "home", rate=0.01, burst=3, max_body_bytes=2048)
    try:
        c, a = served.client, served.key("a")
        big = c.post("/v1/users/u/facts", json={"text": "x" * 5000}, headers=a)
        assert big.status_code == 413 and "limit of 2,048 bytes" in big.json()["error"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams in
            yield b'{"text": "'
            for _ in range(10):
                yield b"y" * 500
            yield b'"}'

        streamed = c.post("/v1/users/u/facts", content=chunks(), headers={**a, "Content-Type": "application/json"})
        assert streamed.status_code == 413
        assert served.mem.users() == []  # nothing written
        bad_user = c.post("/v1/users/bad%20name/facts", json={"text": "t"}, headers=a)
        assert bad_user.status_code == 400 and "is not allowed" in bad_user.json()["error"]
        too_long = c.get(f"/v1/users/{'u' * (MAX_USER_CHARS + 1)}/history", headers=a)
        assert too_long.status_code == 400 and f"at most {MAX_USER_CHARS}" in too_long.json()["error"]
        refused = [r for r in (c.get("/v1/users", headers=a) for _ in range(3)) if r.status_code == 429]
        assert refused, "the bucket of 3 is spent by the requests above"
        assert int(refused[0].headers["retry-after"]) >= 1 and "rate limit" in refused[0].json()["error"]
        other = served.key("b")  # a bucket per key
        assert c.get("/v1/users", headers=other).status_code == 200
        for response, status in ((c.get("/v1/nowhere", headers=other), 404),
                                 (c.put("/v1/users/u/facts", headers=other), 405),
                                 (c.post("/v1/users/u/query", json={"expr": "1"}, headers=other), 422),
                                 (c.post("/v1/users/u/query", content=b"{not json", headers=other), 422)):
            assert response.status_code == status, response.text
            body = response.json()
            assert list(body) == ["error"] and "\n" not in body["error"] and "Traceback" not in body["error"]
    finally:
        served.close()


def test_alerts_reach_the_webhook_signed(world: dict[str, Any], receiver: Receiver) -> None:
    served: Served = world["served"]
    pending = served.registry.pending_deliveries()
    assert len(pending) == 1  # the alert run of the fixture raised the passport alert
    sender = WebhookSender(served.registry, attempts=3, base_delay_s=0.01)
    assert sender.deliver(pending[0]) == "delivered"
    raw, body = receiver.requests[-1]
    headers = {name: raw[name.lower()] for name in (TIMESTAMP_HEADER, SIGNATURE_HEADER, DELIVERY_HEADER)}
    assert verify_signature(world["secret"], headers[TIMESTAMP_HEADER], headers[SIGNATURE_HEADER], body)
    assert not verify_signature("whsec_other", headers[TIMESTAMP_HEADER], headers[SIGNATURE_HEADER], body)
    assert not verify_signature(world["secret"], headers[TIMESTAMP_HEADER], headers[SIGNATURE_HEADER], body + b" ")
    assert not verify_signature(world["secret"], str(int(headers[TIMESTAMP_HEADER]) - 3600),
                                headers[SIGNATURE_HEADER], body)  # an old delivery replayed
    data = json.loads(body)
    assert headers[DELIVERY_HEADER] == str(pending[0].id)
    assert data["tenant"] == "a" and data["user"] == "alice" and data["operation"] == "alerts"
    assert "passport_expiry" in {a["constraint"] for a in data["raised"]}
    assert served.registry.tenant("a").namespace not in body.decode()  # the tenant's names only
    [done] = served.registry.deliveries("a")
    assert (done.status, done.attempts) == ("delivered", 1)
    assert served.registry.deliveries("b") == []


def test_webhook_retries_with_backoff_and_records_failure(tmp_path: Path) -> None:
    flaky, dead = Receiver(fail_first=2), Receiver(fail_first=99)
    registry = open_registry(tmp_path / "home")
    try:
        tenant = registry.add_tenant("a")
        registry.set_webhook("a", flaky.url)
        first = registry.record_delivery(tenant, '{"event": "alerts"}')
        registry.set_webhook("a", dead.url)
        second = registry.record_delivery(tenant, '{"event": "alerts"}')
        sender = WebhookSender(registry, attempts=3, base_delay_s=0.01)
        assert [sender.deliver(d) for d in registry.pending_deliveries()] == ["delivered", "failed"]
        found = {d.id: d for d in registry.deliveries("a")}
        assert (found[first].status, found[first].attempts) == ("delivered", 3)
        assert (found[second].status, found[second].attempts, found[second].last_error) == ("failed", 3, "HTTP 500")
        assert len(flaky.requests) == 3 and len(dead.requests) == 3
        assert registry.pending_deliveries() == []
    finally:
        registry.close()
        flaky.close()
        dead.close()


def test_the_sender_thread_sends_what_was_left_pending(tmp_path: Path) -> None:
    """Deliveries recorded before the sender starts (a server stopped with them pending) are
    sent when it starts."""
    receiver = Receiver()
    registry = open_registry(tmp_path / "home")
    sender = WebhookSender(registry, attempts=2, base_delay_s=0.01)
    try:
        tenant = registry.add_tenant("a")
        registry.set_webhook("a", receiver.url)
        registry.record_delivery(tenant, '{"event": "alerts"}')
        sender.start()
        deadline = time.monotonic() + 30
        while registry.pending_deliveries() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [d.status for d in registry.deliveries("a")] == ["delivered"] and len(receiver.requests) == 1
    finally:
        sender.stop()
        registry.close()
        receiver.close()


def test_token_bucket_refills_at_its_rate() -> None:
    from runtime.http_limits import RateLimiter, retry_after

    now = [100.0]
    limiter = RateLimiter(rate=2.0, burst=2, clock=lambda: now[0])
    assert [limiter.take("k"), limiter.take("k")] == [0.0, 0.0]
    assert limiter.take("k") == pytest.approx(0.5) and retry_after(0.5) == "1"
    assert limiter.take("other") == 0.0  # a bucket per key
    now[0] += 0.5
    assert limiter.take("k") == 0.0 and limiter.take("k") > 0
    now[0] += 60
    assert [limiter.take("k") for _ in range(3)][:2] == [0.0, 0.0]  # refilled up to the burst, no more


def test_tenant_and_key_commands(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from runtime.cli import app

    home = str(tmp_path / "home")
    runner = CliRunner()

    def uac(*args: str) -> Any:
        return runner.invoke(app, ["--home", home, *args])

    for refused in (("tenants", "add", "Not A Name"), ("keys", "add", "acme"), ("keys", "revoke", "0123456789ab")):
        assert isinstance(uac(*refused).exception, UacError)
    assert not (tmp_path / "home").exists()  # bad input writes nothing, not even the home
    assert uac("tenants", "add", "acme").exit_code == 0
    key = uac("keys", "add", "acme", "--read-only").output.strip()
    assert key.startswith("uac_")
    listed = json.loads(uac("keys", "list", "acme", "--json").output)
    assert [(k["tenant"], k["read_only"], k["revoked"]) for k in listed] == [("acme", True, None)]
    assert uac("keys", "revoke", listed[0]["key_id"]).exit_code == 0
    registry = open_registry(tmp_path / "home")
    try:
        assert registry.authenticate(key) is None
    finally:
        registry.close()


def test_pg_registry_keeps_tenants_keys_and_deliveries(pg_url: str, tmp_path: Path) -> None:
    registry = open_registry(Path("unused"), pg_url)
    try:
        tenant = registry.add_tenant("acme")
        _, token = registry.add_key("acme", read_only=True)
        who = registry.authenticate(token)
        assert who is not None and who.read_only and who.tenant.name == "acme"
        assert registry.authenticate(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
        registry.set_webhook("acme", "http://127.0.0.1:1/hook")
        delivery = registry.record_delivery(tenant, "{}")
        assert delivery is not None and [d.id for d in registry.pending_deliveries()] == [delivery]
        registry.mark_delivery(delivery, "failed", 5, "HTTP 500")
        assert registry.deliveries("acme")[0].status == "failed"
        registry.revoke_key(who.key_id)
        assert registry.authenticate(token) is None
    finally:
        registry.close()
    again = open_registry(Path("unused"), pg_url)  # the migrations ran once; the data stays
    try:
        assert [t.name for t in again.tenants()] == ["acme"]
        _, live = again.add_key("acme")
        mem = Memory.open(tmp_path / "home")  # the API over a PostgreSQL registry
        api = HttpApi(mem, again)
        try:
            with TestClient(api.app()) as client:
                headers = {"Authorization": f"Bearer {live}"}
                assert client.post("/v1/users/alice/facts", json={"text": "hi"}, headers=headers).status_code == 201
                assert client.get("/v1/users", headers=headers).json() == {"users": ["alice"]}
                assert client.get("/v1/users", headers={"Authorization": f"Bearer {token}"}).status_code == 401
        finally:
            api.close()
            mem.close()
    finally:
        again.close()


UAC = [sys.executable, "-c", "from runtime.cli import main; main()"]


def test_serve_refuses_a_store_it_cannot_open_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from runtime.cli import run

    for store in ("/some/file.db", "mysql://nobody@127.0.0.1/none"):
        with pytest.raises(SystemExit) as exited:
            run(["--home", str(tmp_path / "home"), "serve", "--port", "1", "--store", store])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_real_server_delivers_a_checkpoints_alerts_to_the_webhook(tmp_path: Path) -> None:
    """`uac serve` (uvicorn on 127.0.0.1): a checkpoint raising an alert is posted, signed, by
    the server's own sender thread; Ctrl-C stops the server cleanly."""
    import httpx

    home = tmp_path / "home"
    receiver = Receiver(fail_first=1)  # the first attempt fails: the retry delivers it
    registry = open_registry(home)
    registry.add_tenant("a")
    key = registry.add_key("a")[1]
    secret = registry.set_webhook("a", receiver.url)
    registry.close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([*UAC, "--home", str(home), "serve", "--port", str(port)], stderr=subprocess.PIPE,
                              env={**os.environ, "UAC_WARM": "off"})
    try:
        assert server.stderr is not None
        assert "serving the HTTP API" in server.stderr.readline().decode()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"},
                          timeout=120) as http:
            assert http.get("/v1/health").json() == {"status": "ok"}
            assert http.post("/v1/users/alice/facts", json=PASSPORT).status_code == 201
            assert http.post("/v1/users/alice/checkpoint", json={"today": TODAY}).json()["outcome"] == "published"
        deadline = time.monotonic() + 60
        while len(receiver.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        raw, body = receiver.requests[1]
        assert verify_signature(secret or "", raw[TIMESTAMP_HEADER.lower()], raw[SIGNATURE_HEADER.lower()], body)
        assert json.loads(body)["user"] == "alice"
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 0
        receiver.close()
    registry = open_registry(home)
    try:
        [delivery] = registry.deliveries("a")
        assert (delivery.status, delivery.attempts) == ("delivered", 2)
    finally:
        registry.close()

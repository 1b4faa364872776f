"""Alerts delivered to a tenant's webhook: signed, retried with backoff, recorded.

A delivery is a POST of a JSON body with three headers:

    X-UAC-Delivery:  the delivery's id (a receiver may use it to drop duplicates)
    X-UAC-Timestamp: seconds since the epoch when it was signed
    X-UAC-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" under the tenant's secret>

`verify_signature` is what a receiver runs. The delivery is recorded (pending) before the first
attempt; a 2xx answer marks it delivered; anything else is retried after `base_delay_s`, then
twice that, ... up to `attempts` tries, then it is marked failed with the last error. A server
that stops with deliveries pending sends them when it starts again (at least once).

Deliveries are recorded where alerts are found: the HTTP API records those its `alerts` runs
and checkpoints report; a checkpoint worker's runs record theirs through `webhook_outbox`,
in the transaction that writes the alert state (`deliver_from_alert_runs`), so each new
alert is recorded once however many workers race and whichever of them is killed. The
sender of `uac serve` posts both.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any, Final

from constraints.alert_json import alert_json
from runtime.tenants import PG_SQL, Delivery, Tenant, TenantRegistry, record_delivery_on

if TYPE_CHECKING:
    from psycopg import Connection

    from constraints import AlertDiff
    from runtime.memory import Memory

SIGNATURE_HEADER: Final = "X-UAC-Signature"
TIMESTAMP_HEADER: Final = "X-UAC-Timestamp"
DELIVERY_HEADER: Final = "X-UAC-Delivery"
TOLERANCE_S: Final = 300
ALERT_LISTS: Final = ("raised", "escalated", "resolved")  # what changed: still-active alerts are not news


def signature(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify_signature(secret: str, timestamp: str, signed: str, body: bytes, *, now: float | None = None,
                     tolerance_s: float = TOLERANCE_S) -> bool:
    """Whether `signed` (the X-UAC-Signature header) signs `body` at `timestamp`, and the
    timestamp is within `tolerance_s` of now (a replayed old delivery is refused)."""
    try:
        moment = int(timestamp)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - moment) > tolerance_s:
        return False
    return hmac.compare_digest(signature(secret, timestamp, body), signed)


def alert_payload(tenant: Tenant, user: str, operation: str, result: object) -> str | None:
    """The delivery body for the alerts an operation's result reports (an `alerts` run, or a
    checkpoint's), None when nothing changed. `user` is the tenant's own name for the user."""
    if not isinstance(result, dict):
        return None
    alerts = result.get("alerts") if operation == "checkpoint" else result
    if not isinstance(alerts, dict) or not any(alerts.get(name) for name in ALERT_LISTS):
        return None
    data: dict[str, object] = {"event": "alerts", "tenant": tenant.name, "user": user, "operation": operation}
    data.update({name: alerts.get(name) or [] for name in ALERT_LISTS})
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def webhook_outbox(conn: Connection[Any], user: str, diff: AlertDiff) -> None:
    """Record a delivery of the news in `diff` (raised, escalated, resolved) for the stored
    user `user`, on `conn` in its transaction, when the user is a tenant's with a webhook
    (`constraints.pg_alert_state.PgAlertStates.outbox`)."""
    lists = {name: [alert_json(alert) for alert in getattr(diff, name)] for name in ALERT_LISTS}
    if not any(lists.values()):
        return

    def payload_of(tenant: Tenant, own: str) -> str | None:
        payload = alert_payload(tenant, own, "checkpoint", {"alerts": lists})
        return None if payload is None else payload.replace(user, own)  # as the HTTP API hides the stored id

    record_delivery_on(conn, user, payload_of)


def deliver_from_alert_runs(memory: Memory) -> bool:
    """Make the alert runs of `memory` record webhook deliveries with their alert state;
    False (nothing done) unless its alert states are in PostgreSQL, where the tenants are."""
    from factlog.pg import migrate

    shared = memory.alert_runs.shared
    if shared is None:
        return False
    migrate(shared.pool, "tenants", PG_SQL)  # the tables the outbox reads and writes
    shared.outbox = webhook_outbox
    return True


class WebhookSender:
    """A thread sending the registry's pending deliveries, one at a time, oldest first."""

    def __init__(self, registry: TenantRegistry, *, attempts: int = 5, base_delay_s: float = 1.0,
                 timeout_s: float = 10.0) -> None:
        self.registry = registry
        self.attempts = attempts
        self.base_delay_s = base_delay_s
        self.timeout_s = timeout_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="uac-webhooks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self.timeout_s + 1)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                pending = self.registry.pending_deliveries()
            except Exception:  # the database is away for a moment: try again soon
                pending = []
            for delivery in pending:
                if self._stop.is_set():
                    return
                self.deliver(delivery)
            self._wake.wait(timeout=5.0)

    def deliver(self, delivery: Delivery) -> str:
        """Send one delivery, retrying with backoff; record and return its final status."""
        secret = self.registry.delivery_secret(delivery) or ""
        body = delivery.payload.encode("utf-8")
        error: str | None = None
        for attempt in range(delivery.attempts, self.attempts):
            if attempt > 0 and self._stop.wait(self.base_delay_s * 2 ** (attempt - 1)):
                return "pending"  # stopping: sent when the server starts again
            error = self._post(delivery, secret, body)
            if error is None:
                self.registry.mark_delivery(delivery.id, "delivered", attempt + 1, None)
                return "delivered"
            self.registry.mark_delivery(delivery.id, "pending", attempt + 1, error)
        self.registry.mark_delivery(delivery.id, "failed", max(self.attempts, delivery.attempts), error)
        return "failed"

    def _post(self, delivery: Delivery, secret: str, body: bytes) -> str | None:
        """None when the receiver answered 2xx; otherwise what went wrong, on one line."""
        stamp = str(int(time.time()))
        request = urllib.request.Request(delivery.url, data=body, method="POST", headers={
            "Content-Type": "application/json", DELIVERY_HEADER: str(delivery.id), TIMESTAMP_HEADER: stamp,
            SIGNATURE_HEADER: signature(secret, stamp, body), "User-Agent": "user-as-code-webhooks"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                status = int(response.status)
        except urllib.error.HTTPError as exc:
            return f"HTTP {exc.code}"
        except (OSError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}".splitlines()[0]
        return None if 200 <= status < 300 else f"HTTP {status}"

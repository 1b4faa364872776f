"""Alerts delivered to a tenant's webhook: signed, retried with backoff, recorded.

A delivery is a POST of a JSON body with three headers:

    X-UAC-Delivery:  the delivery's id (a receiver may use it to drop duplicates)
    X-UAC-Timestamp: seconds since the epoch when it was signed
    X-UAC-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" under the tenant's secret>

`verify_signature` is what a receiver runs. The delivery is recorded (pending) before the first
attempt; a 2xx answer marks it delivered; anything else is retried after `base_delay_s`, then
twice that, ... up to `attempts` tries, then it is marked failed with the last error. A server
that stops with deliveries pending sends them when it starts again (at least once).

Deliveries are recorded where alerts are found, by one rule (`news_payload`) and one hook
(`deliver_from_alert_runs`) for every run: a checkpoint worker's, and the HTTP API's
checkpoints and `alerts` runs. With the alert state in PostgreSQL, `webhook_outbox` records
the delivery in the transaction that writes the state, so each new alert is recorded once
however many runs race and whichever of them is killed. With the state in `alerts.json` (the
embedded default), `FileOutbox` stages the delivery in `tenants.db` before the file is saved
and confirms it after; `settle_staged` decides, when a server starts, what a killed process
left staged. The sender of `uac serve` posts them.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from constraints.alert_json import alert_json
from constraints.kept_state import state_bytes
from factlog.durable import exclusive_lock
from factlog.errors import UacError
from runtime.tenants import PG_SQL, Delivery, SqliteTenantRegistry, Tenant, TenantRegistry, record_delivery_on

if TYPE_CHECKING:
    from psycopg import Connection

    from constraints import AlertDiff
    from constraints.state import AlertState
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


def news_payload(tenant: Tenant, own: str, stored: str, operation: str, diff: AlertDiff) -> str | None:
    """The delivery body announcing a run's news (alerts raised, escalated, resolved) for the
    tenant's user `own`, stored as `stored` (which never leaves); None when nothing changed.
    `operation`: what ran the constraints ("checkpoint", or an "alerts" run)."""
    lists = {name: [alert_json(alert) for alert in getattr(diff, name)] for name in ALERT_LISTS}
    if not any(lists.values()):
        return None
    data: dict[str, object] = {"event": "alerts", "tenant": tenant.name, "user": own, "operation": operation, **lists}
    return json.dumps(data, ensure_ascii=False, sort_keys=True).replace(stored, own)


def has_news(diff: AlertDiff) -> bool:
    return any(getattr(diff, name) for name in ALERT_LISTS)


def webhook_outbox(conn: Connection[Any], user: str, diff: AlertDiff, operation: str) -> None:
    """Record a delivery of the news in `diff` for the stored user `user`, on `conn` in its
    transaction, when the user is a tenant's with a webhook
    (`constraints.pg_alert_state.PgAlertStates.outbox`)."""
    if has_news(diff):
        record_delivery_on(conn, user, lambda tenant, own: news_payload(tenant, own, user, operation, diff))


class FileOutbox:
    """The outbox of alert states kept as files (`alerts.json`, the workspace's own store),
    with the tenants in `tenants.db`: entered under the state file's lock around its save
    (`AlertsService.file_outbox`). The delivery is staged before the save (keyed by the
    SHA-256 of the state about to be written), confirmed after it, dropped if it fails; a
    process killed in between leaves it staged, and `settle_staged` (when a server starts)
    keeps it exactly when the file holds that state."""

    def __init__(self, registry: SqliteTenantRegistry) -> None:
        self.registry = registry

    @contextlib.contextmanager
    def __call__(self, user: str, operation: str, state: AlertState, diff: AlertDiff) -> Iterator[None]:
        owner = self.registry.owner(user) if has_news(diff) else None
        payload = None if owner is None or owner[0].webhook_url is None else \
            news_payload(owner[0], owner[1], user, operation, diff)
        if owner is None or payload is None:
            yield
            return
        staged = self.registry.stage_delivery(owner[0], payload, user, hashlib.sha256(state_bytes(state)).hexdigest())
        try:
            yield
        except BaseException:
            self.registry.discard_delivery(staged)
            raise
        self.registry.confirm_delivery(staged)


def settle_staged(memory: Memory, registry: SqliteTenantRegistry) -> tuple[int, int]:
    """Settle the deliveries a killed process left staged: kept (to be sent) when the user's
    `alerts.json` holds the state they announce, else dropped (the save never happened, and
    the next run raises the alerts again). (kept, dropped)."""
    kept = dropped = 0
    for delivery_id, user, digest in registry.staged_deliveries():
        try:
            path = memory.alert_runs.state_path(user)
        except UacError:
            path = None
        saved = False
        if path is not None and path.parent.is_dir():
            with exclusive_lock(path.with_name(path.name + ".lock")):  # a live run's save and confirm finish first
                saved = path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest
                (registry.confirm_delivery if saved else registry.discard_delivery)(delivery_id)
        else:
            registry.discard_delivery(delivery_id)
        kept, dropped = kept + saved, dropped + (not saved)
    return kept, dropped


def deliver_from_alert_runs(memory: Memory, registry: TenantRegistry | None = None) -> bool:
    """Make the alert runs of `memory` record webhook deliveries with their alert state: in
    its transaction when the states are in PostgreSQL (where the tenants are), else beside
    the state file through `registry`'s `tenants.db` (settling what a killed process left
    staged first). False (nothing done) when neither applies."""
    shared = memory.alert_runs.shared
    if shared is not None:
        from factlog.pg import migrate

        migrate(shared.pool, "tenants", PG_SQL)  # the tables the outbox reads and writes
        shared.outbox = webhook_outbox
        return True
    if isinstance(registry, SqliteTenantRegistry):
        settle_staged(memory, registry)
        memory.alert_runs.file_outbox = FileOutbox(registry)
        return True
    return False


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

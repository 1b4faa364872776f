"""Tenants, their API keys and their webhook deliveries: who may call the HTTP API, and as whom.

    registry = open_registry(home, store)    # <home>/tenants.db, or PostgreSQL for a postgresql:// store
    registry.add_tenant("acme")
    key_id, token = registry.add_key("acme", read_only=True)   # the token is shown once
    caller = registry.authenticate(token)    # a `Caller`, or None

The rules this module owns:

- A key is `uac_<key id>_<secret>`, the secret 32 random bytes; only the SHA-256 of the whole
  token is stored, compared in constant time. A revoked or unknown key authenticates nobody.
- Every tenant has a random namespace (`t` and 12 hex digits). Its user `alice` is stored
  under the internal id `<namespace>.alice` (`internal_user`): every name a tenant gives is
  put in its own namespace, so no tenant can name another tenant's users, let alone read them.
- A webhook delivery is recorded before it is sent (pending), then marked delivered or
  failed: an alert is never dropped by a crash between the two (`pending_deliveries` resumes).
  `record_delivery_on` records one on a caller's PostgreSQL connection, inside the caller's
  transaction (the alert state's, `runtime.webhooks.webhook_outbox`). In `tenants.db` a
  delivery can be staged (`stage_delivery`: recorded, not sent) until the alert state file it
  announces is saved (`confirm_delivery`), or dropped (`discard_delivery`).

The same SQL runs on both databases (`?` placeholders, rewritten for psycopg); the schema is
`runtime/pg_sql/tenants/` on PostgreSQL (numbered migrations, `factlog.pg.migrate`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Final, Sequence

from factlog.errors import InputError, NotFound
from factlog.model import check_user_id
from factlog.pg import is_postgres_url

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg_pool import ConnectionPool

TENANT_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
KEY_PREFIX: Final = "uac_"
KEY_TOKEN: Final = re.compile(r"uac_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
NAMESPACE_CHARS: Final = 13  # "t" and 12 hex digits
MAX_USER_CHARS: Final = 64 - NAMESPACE_CHARS - 1  # a tenant's user id, at most (the internal id is <= 64)
PG_SQL: Final = Path(__file__).resolve().parent / "pg_sql" / "tenants"
SQLITE_FILE: Final = "tenants.db"
TENANT_COLUMNS: Final = "id, name, namespace, webhook_url, webhook_secret"
INSERT_DELIVERY: Final = ("INSERT INTO webhook_deliveries (tenant_id, url, payload, status, attempts, created, "
                          "updated) VALUES (?, ?, ?, 'pending', 0, ?, ?) RETURNING id")

_SQLITE_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS tenants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
    "namespace TEXT NOT NULL UNIQUE, created TEXT NOT NULL, webhook_url TEXT, webhook_secret TEXT)",
    "CREATE TABLE IF NOT EXISTS api_keys (key_id TEXT PRIMARY KEY, tenant_id INTEGER NOT NULL "
    "REFERENCES tenants (id), token_sha256 TEXT NOT NULL, read_only INTEGER NOT NULL, created TEXT NOT NULL, "
    "revoked TEXT)",
    "CREATE TABLE IF NOT EXISTS webhook_deliveries (id INTEGER PRIMARY KEY, tenant_id INTEGER NOT NULL "
    "REFERENCES tenants (id), url TEXT NOT NULL, payload TEXT NOT NULL, status TEXT NOT NULL, "
    "attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, created TEXT NOT NULL, updated TEXT NOT NULL, "
    "staged_user TEXT, staged_hash TEXT)",
)
_SQLITE_STAGED: Final = ("staged_user", "staged_hash")  # added to a tenants.db made before them


@dataclass(frozen=True)
class Tenant:
    id: int
    name: str
    namespace: str
    webhook_url: str | None = None
    webhook_secret: str | None = None

    def internal_user(self, user: str) -> str:
        """The stored id of this tenant's user `user` (InputError for a bad or too long id)."""
        check_user_id(user)
        if len(user) > MAX_USER_CHARS:
            raise InputError(f"user id is {len(user)} characters; at most {MAX_USER_CHARS} are allowed")
        return f"{self.namespace}.{user}"

    def own_user(self, internal: str) -> str | None:
        """The tenant's name for a stored user id, None when the user is not this tenant's."""
        prefix = self.namespace + "."
        return internal[len(prefix):] if internal.startswith(prefix) else None


@dataclass(frozen=True)
class Caller:
    """Who made a request: the key's id, its tenant, whether it may write."""

    key_id: str
    tenant: Tenant
    read_only: bool


@dataclass(frozen=True)
class KeyRow:
    key_id: str
    tenant: str
    read_only: bool
    created: str
    revoked: str | None


@dataclass(frozen=True)
class Delivery:
    id: int
    tenant_id: int
    url: str
    payload: str
    status: str  # pending, delivered, failed
    attempts: int
    last_error: str | None
    created: str


def check_tenant_name(name: str) -> str:
    if not isinstance(name, str) or not TENANT_NAME.fullmatch(name):
        raise InputError(f"tenant name {str(name)[:80]!r} is not allowed: 1-40 lowercase ASCII letters, digits, "
                         "'_' or '-', starting with a letter or digit")
    return name


def check_webhook_url(url: str) -> str:
    if not re.fullmatch(r"https?://[^\s/?#]+[^\s]*", url or "") or len(url) > 2000:
        raise InputError(f"webhook URL {url[:200]!r} is not allowed: an http:// or https:// URL")
    return url


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class TenantRegistry:
    """The tenants, keys and deliveries of one installation; subclasses run the SQL."""

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _write(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Run one statement in its own transaction; its returned rows."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # -- tenants -----------------------------------------------------------------------

    def add_tenant(self, name: str) -> Tenant:
        check_tenant_name(name)
        if self._rows("SELECT 1 FROM tenants WHERE name = ?", (name,)):
            raise InputError(f"tenant {name!r} exists already")
        namespace = "t" + secrets.token_hex(6)
        self._write("INSERT INTO tenants (name, namespace, created) VALUES (?, ?, ?)", (name, namespace, _now()))
        return self.tenant(name)

    def tenant(self, name: str) -> Tenant:
        check_tenant_name(name)
        rows = self._rows(f"SELECT {TENANT_COLUMNS} FROM tenants WHERE name = ?", (name,))
        if not rows:
            raise NotFound(f"no tenant {name!r} (`uac tenants add {name}` makes one)")
        return Tenant(*rows[0])

    def tenants(self) -> list[Tenant]:
        return [Tenant(*row) for row in self._rows(f"SELECT {TENANT_COLUMNS} FROM tenants ORDER BY name")]

    def set_webhook(self, name: str, url: str | None) -> str | None:
        """Send the tenant's alerts to `url` (None: stop); returns the new signing secret."""
        tenant = self.tenant(name)
        secret = None if url is None else "whsec_" + secrets.token_urlsafe(32)
        if url is not None:
            check_webhook_url(url)
        self._write("UPDATE tenants SET webhook_url = ?, webhook_secret = ? WHERE id = ?", (url, secret, tenant.id))
        return secret

    # -- keys --------------------------------------------------------------------------

    def add_key(self, tenant_name: str, *, read_only: bool = False) -> tuple[str, str]:
        """A new key of the tenant: (key id, token). Only the token's hash is kept."""
        tenant = self.tenant(tenant_name)
        key_id = secrets.token_hex(6)
        token = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        self._write("INSERT INTO api_keys (key_id, tenant_id, token_sha256, read_only, created) VALUES (?, ?, ?, ?, ?)",
                    (key_id, tenant.id, token_hash(token), int(read_only), _now()))
        return key_id, token

    def revoke_key(self, key_id: str) -> None:
        rows = self._rows("SELECT revoked FROM api_keys WHERE key_id = ?", (key_id,))
        if not rows:
            raise NotFound(f"no key {key_id[:40]!r} (`uac keys list TENANT` shows the key ids)")
        if rows[0][0] is None:
            self._write("UPDATE api_keys SET revoked = ? WHERE key_id = ?", (_now(), key_id))

    def keys(self, tenant_name: str | None = None) -> list[KeyRow]:
        sql = ("SELECT k.key_id, t.name, k.read_only, k.created, k.revoked FROM api_keys k "
               "JOIN tenants t ON t.id = k.tenant_id")
        params: tuple[object, ...] = ()
        if tenant_name is not None:
            sql += " WHERE t.id = ?"
            params = (self.tenant(tenant_name).id,)
        return [KeyRow(r[0], r[1], bool(r[2]), r[3], r[4]) for r in self._rows(sql + " ORDER BY k.created, k.key_id",
                                                                                 params)]

    def authenticate(self, token: str) -> Caller | None:
        """The caller a token belongs to; None for a malformed, unknown or revoked token."""
        match = KEY_TOKEN.fullmatch(token)
        digest = token_hash(token)  # hashed whatever the token: the same work for every answer
        if match is None:
            return None
        rows = self._rows("SELECT k.token_sha256, k.read_only, k.revoked, t.id, t.name, t.namespace, t.webhook_url, "
                          "t.webhook_secret FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.key_id = ?",
                          (match.group(1),))
        if not rows:
            return None
        stored, read_only, revoked, *tenant = rows[0]
        if not hmac.compare_digest(stored, digest) or revoked is not None:
            return None
        return Caller(match.group(1), Tenant(*tenant), bool(read_only))

    # -- webhook deliveries ------------------------------------------------------------

    def record_delivery(self, tenant: Tenant, payload: str) -> int | None:
        """Record a delivery of `payload` to the tenant's webhook (pending); None without one."""
        current = self.tenant(tenant.name)
        if current.webhook_url is None:
            return None
        now = _now()
        rows = self._write(INSERT_DELIVERY, (current.id, current.webhook_url, payload, now, now))
        return int(rows[0][0])

    def owner(self, internal_user: str) -> tuple[Tenant, str] | None:
        """The tenant whose user the stored id `internal_user` is, and its name for the user."""
        split = split_internal(internal_user)
        if split is None:
            return None
        rows = self._rows(f"SELECT {TENANT_COLUMNS} FROM tenants WHERE namespace = ?", (split[0],))
        return (Tenant(*rows[0]), split[1]) if rows else None

    def mark_delivery(self, delivery_id: int, status: str, attempts: int, error: str | None) -> None:
        self._write("UPDATE webhook_deliveries SET status = ?, attempts = ?, last_error = ?, updated = ? WHERE id = ?",
                    (status, attempts, None if error is None else error[:500], _now(), delivery_id))

    def pending_deliveries(self) -> list[Delivery]:
        return self._deliveries("WHERE d.status = 'pending'")

    def deliveries(self, tenant_name: str) -> list[Delivery]:
        return self._deliveries("WHERE d.tenant_id = ?", (self.tenant(tenant_name).id,))

    def delivery_secret(self, delivery: Delivery) -> str | None:
        rows = self._rows("SELECT webhook_secret FROM tenants WHERE id = ?", (delivery.tenant_id,))
        return rows[0][0] if rows else None

    def _deliveries(self, where: str, params: Sequence[object] = ()) -> list[Delivery]:
        return [Delivery(*row) for row in self._rows(
            "SELECT d.id, d.tenant_id, d.url, d.payload, d.status, d.attempts, d.last_error, d.created "
            f"FROM webhook_deliveries d {where} ORDER BY d.id", params)]


class SqliteTenantRegistry(TenantRegistry):
    """`<home>/tenants.db`, beside the embedded fact log."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            for statement in _SQLITE_SCHEMA:
                self._db.execute(statement)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(webhook_deliveries)")}
            for column in _SQLITE_STAGED:
                if column not in columns:
                    self._db.execute(f"ALTER TABLE webhook_deliveries ADD COLUMN {column} TEXT")

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, tuple(params)).fetchall()

    def _write(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                rows = self._db.execute(sql, tuple(params)).fetchall()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return rows

    def stage_delivery(self, tenant: Tenant, payload: str, internal_user: str, state_hash: str) -> int:
        """Record a delivery that is not to be sent yet: it waits for the user's alert state
        with SHA-256 `state_hash` to be saved (`confirm_delivery`)."""
        now = _now()
        rows = self._write("INSERT INTO webhook_deliveries (tenant_id, url, payload, status, attempts, created, "
                           "updated, staged_user, staged_hash) VALUES (?, ?, ?, 'staged', 0, ?, ?, ?, ?) RETURNING id",
                           (tenant.id, tenant.webhook_url, payload, now, now, internal_user, state_hash))
        return int(rows[0][0])

    def confirm_delivery(self, delivery_id: int) -> None:
        """The staged delivery's alert state is saved: send it."""
        self._write("UPDATE webhook_deliveries SET status = 'pending', staged_user = NULL, staged_hash = NULL, "
                    "updated = ? WHERE id = ? AND status = 'staged'", (_now(), delivery_id))

    def discard_delivery(self, delivery_id: int) -> None:
        """The staged delivery's alert state was not saved: it announces nothing."""
        self._write("DELETE FROM webhook_deliveries WHERE id = ? AND status = 'staged'", (delivery_id,))

    def staged_deliveries(self) -> list[tuple[int, str, str]]:
        """(id, stored user id, state hash) of the deliveries still staged (a process died
        between staging and confirming them)."""
        return [(int(r[0]), r[1], r[2]) for r in self._rows(
            "SELECT id, staged_user, staged_hash FROM webhook_deliveries WHERE status = 'staged' ORDER BY id")]

    def close(self) -> None:
        self._db.close()


class PgTenantRegistry(TenantRegistry):
    """The same tables in PostgreSQL, beside a PostgreSQL fact store."""

    def __init__(self, url: str) -> None:
        from factlog.pg import migrate, open_pool

        self.pool: ConnectionPool = open_pool(url, max_size=4, name="uac-tenants")
        migrate(self.pool, "tenants", PG_SQL)

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self.pool.connection() as conn:
            rows: list[tuple[Any, ...]] = conn.execute(sql.replace("?", "%s"), tuple(params)).fetchall()
            return rows

    def _write(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self.pool.connection() as conn:  # committed when the block ends
            cursor = conn.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.fetchall() if cursor.description is not None else []

    def close(self) -> None:
        self.pool.close()


def split_internal(internal_user: str) -> tuple[str, str] | None:
    """(namespace, the tenant's name) of a stored user id in a tenant's namespace, else None."""
    namespace, dot, own = internal_user.partition(".")
    if not dot or len(namespace) != NAMESPACE_CHARS or not namespace.startswith("t"):
        return None
    return namespace, own


def record_delivery_on(conn: Connection[Any], internal_user: str,
                       payload_of: Callable[[Tenant, str], str | None]) -> int | None:
    """Record a delivery to the webhook of the tenant whose user `internal_user` is, on a
    PostgreSQL connection and inside its transaction (committed, or not, with it); the
    payload is `payload_of(tenant, the tenant's name for the user)`. None when the user is
    no tenant's, the tenant has no webhook, or the payload is None."""
    split = split_internal(internal_user)
    if split is None:
        return None
    namespace, own = split
    row = conn.execute(f"SELECT {TENANT_COLUMNS} FROM tenants WHERE namespace = %s", (namespace,)).fetchone()
    if row is None or row[3] is None:
        return None
    tenant = Tenant(*row)
    payload = payload_of(tenant, own)
    if payload is None:
        return None
    now = _now()
    recorded = conn.execute(INSERT_DELIVERY.replace("?", "%s"),
                            (tenant.id, tenant.webhook_url, payload, now, now)).fetchone()
    return None if recorded is None else int(recorded[0])


def open_registry(home: Path, store: str | None = None, *, create: bool = True) -> TenantRegistry:
    """The registry beside the fact log: PostgreSQL for a `postgresql://` store, else
    `<home>/tenants.db` (made, with the home, if missing; NotFound then unless `create`)."""
    if store is not None and is_postgres_url(store):
        return PgTenantRegistry(store)
    if not create and not (home / SQLITE_FILE).is_file():
        raise NotFound("no tenants in this workspace yet (`uac tenants add NAME` makes one)")
    home.mkdir(parents=True, exist_ok=True)
    return SqliteTenantRegistry(home / SQLITE_FILE)

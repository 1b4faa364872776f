"""`uac serve` (the HTTP API, runtime.http_api), `uac tenants ...` and `uac keys ...` (who may
call it: runtime.tenants)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from runtime.cli_app import JsonOpt, State, app, emit_json, say

if TYPE_CHECKING:
    from runtime.tenants import TenantRegistry

tenants_app = typer.Typer(help="Tenants of the HTTP API: add, list, webhook, deliveries.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys of the HTTP API: add, list, revoke.", no_args_is_help=True)
app.add_typer(tenants_app, name="tenants")
app.add_typer(keys_app, name="keys")

StoreOpt = typer.Option(None, "--store", envvar="UAC_STORE",
                        help="The fact store (default: the workspace's facts.db); tenants and keys live beside it.")


def _home(create: bool) -> Path:
    from runtime.workspace import Workspace

    return Workspace.at(State.home, read_only=not create).home


def _store(store: Optional[str]) -> Optional[str]:
    """This command's `--store` (or UAC_STORE), else the one given before the command."""
    given = store if store is not None else getattr(State, "store", None)
    return given if isinstance(given, str) else None


def registry(store: Optional[str], create: bool = False) -> TenantRegistry:
    """The tenants beside the fact log; without `create`, a workspace with none is refused
    (NotFound) and nothing is made."""
    from runtime.tenants import open_registry

    return open_registry(_home(create), _store(store), create=create)


@app.command("serve")
def serve_cmd(port: int = typer.Option(..., "--port", min=1, max=65535, help="the TCP port to listen on"),
              host: str = typer.Option("127.0.0.1", "--host", help="the address to listen on"),
              store: Optional[str] = StoreOpt,
              rate: float = typer.Option(20.0, "--rate", min=0.001, help="requests a second per API key, on average"),
              burst: int = typer.Option(40, "--burst", min=1, help="requests at once per API key"),
              max_body: int = typer.Option(1 << 20, "--max-body", min=1024, help="request body bytes, at most"),
              webhook_attempts: int = typer.Option(5, "--webhook-attempts", min=1, max=20,
                                                   help="tries per webhook delivery")) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs): tenants' API keys, per-tenant users."""
    from factlog.errors import InputError
    from factlog.pg import is_postgres_url
    from runtime.http_api import HttpApi, serve
    from runtime.memory import Memory
    from runtime.webhooks import WebhookSender
    from runtime.workspace import Workspace

    store = _store(store)
    if store is not None and not is_postgres_url(store):
        raise InputError("--store names a PostgreSQL server (postgresql://...); the embedded store is the "
                         "workspace's own facts.db (--home)")
    workspace = Workspace.at(State.home, store=store)  # facts, versions and alert state there
    mem = Memory(workspace)
    queue = None
    if store is not None:  # writes enqueue their users for the checkpoint workers (`uac worker`)
        from runtime.work_queue import WorkQueue

        queue = WorkQueue.open(store)
        mem.enqueue_writes(queue.enqueue)
    tenants = registry(store, create=True)
    api = HttpApi(mem, tenants, rate=rate, burst=burst, max_body_bytes=max_body,
                  sender=WebhookSender(tenants, attempts=webhook_attempts))
    try:
        serve(api, host, port)
    except KeyboardInterrupt:
        pass
    finally:
        mem.close()
        tenants.close()
        if queue is not None:
            queue.close()


@tenants_app.command("add")
def tenants_add(name: str = typer.Argument(..., help="the tenant's name"), store: Optional[str] = StoreOpt,
                as_json: bool = JsonOpt) -> None:
    """Add a tenant: its users live in a namespace of their own."""
    from runtime.tenants import check_tenant_name

    check_tenant_name(name)
    reg = registry(store, create=True)
    try:
        tenant = reg.add_tenant(name)
    finally:
        reg.close()
    emit_json({"tenant": tenant.name}) if as_json else say(f"tenant {tenant.name} added")


@tenants_app.command("list")
def tenants_list(store: Optional[str] = StoreOpt, as_json: bool = JsonOpt) -> None:
    """The tenants, with their webhooks and keys."""
    from factlog.errors import NotFound

    rows: list[dict[str, object]] = []
    try:
        reg = registry(store)
    except NotFound:
        reg = None
    if reg is not None:
        try:
            rows = [{"tenant": t.name, "webhook": t.webhook_url,
                     "keys": sum(1 for k in reg.keys(t.name) if k.revoked is None)} for t in reg.tenants()]
        finally:
            reg.close()
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        say(f"{row['tenant']}: {row['keys']} live key(s), webhook {row['webhook'] or '-'}")


@tenants_app.command("webhook")
def tenants_webhook(name: str = typer.Argument(..., help="the tenant"),
                    url: Optional[str] = typer.Argument(None, help="http(s) URL receiving the tenant's alerts"),
                    off: bool = typer.Option(False, "--off", help="stop sending the tenant's alerts"),
                    store: Optional[str] = StoreOpt, as_json: bool = JsonOpt) -> None:
    """Send the tenant's alerts to URL, signed with a new secret (printed once), or --off."""
    from factlog.errors import InputError

    if (url is None) == (not off):
        raise InputError("give the webhook URL, or --off")
    reg = registry(store)
    try:
        secret = reg.set_webhook(name, None if off else url)
    finally:
        reg.close()
    if as_json:
        emit_json({"tenant": name, "webhook": url, "secret": secret})
    elif secret is None:
        say(f"tenant {name}: no webhook")
    else:
        say(f"tenant {name}: alerts go to {url}, signed with this secret (shown once):")
        say(secret)


@tenants_app.command("deliveries")
def tenants_deliveries(name: str = typer.Argument(..., help="the tenant"), store: Optional[str] = StoreOpt,
                       as_json: bool = JsonOpt) -> None:
    """The tenant's webhook deliveries: pending, delivered or failed, with attempts."""
    reg = registry(store)
    try:
        rows = [{"id": d.id, "status": d.status, "attempts": d.attempts, "last_error": d.last_error,
                 "created": d.created, "url": d.url} for d in reg.deliveries(name)]
    finally:
        reg.close()
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        error = f" ({row['last_error']})" if row["last_error"] else ""
        say(f"{row['id']}: {row['status']} after {row['attempts']} attempt(s){error}, {row['created']}")


@keys_app.command("add")
def keys_add(tenant: str = typer.Argument(..., help="the tenant"),
             read_only: bool = typer.Option(False, "--read-only", help="a key that can only read"),
             store: Optional[str] = StoreOpt, as_json: bool = JsonOpt) -> None:
    """Make an API key for the tenant and print it (once: only its hash is kept)."""
    reg = registry(store)
    try:
        key_id, token = reg.add_key(tenant, read_only=read_only)
    finally:
        reg.close()
    if as_json:
        emit_json({"tenant": tenant, "key_id": key_id, "key": token, "read_only": read_only})
    else:
        say(token)


@keys_app.command("list")
def keys_list(tenant: Optional[str] = typer.Argument(None, help="only this tenant's keys"),
              store: Optional[str] = StoreOpt, as_json: bool = JsonOpt) -> None:
    """The keys' ids (never the keys), tenants, rights and state."""
    reg = registry(store)
    try:
        rows = reg.keys(tenant)
    finally:
        reg.close()
    if as_json:
        emit_json([{"key_id": k.key_id, "tenant": k.tenant, "read_only": k.read_only, "created": k.created,
                    "revoked": k.revoked} for k in rows])
        return
    for k in rows:
        state = f"revoked {k.revoked}" if k.revoked else "live"
        say(f"{k.key_id}  {k.tenant}  {'read-only' if k.read_only else 'read-write'}  {state}")


@keys_app.command("revoke")
def keys_revoke(key_id: str = typer.Argument(..., help="the key's id (`uac keys list`), or the key itself"),
                store: Optional[str] = StoreOpt, as_json: bool = JsonOpt) -> None:
    """Revoke a key: it authenticates nobody from the next request on."""
    from runtime.tenants import KEY_TOKEN

    match = KEY_TOKEN.fullmatch(key_id)
    ident = match.group(1) if match else key_id
    reg = registry(store)
    try:
        reg.revoke_key(ident)
    finally:
        reg.close()
    emit_json({"key_id": ident, "revoked": True}) if as_json else say(f"key {ident} revoked")

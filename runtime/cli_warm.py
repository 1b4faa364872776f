"""`uac warm start|stop|status`: the workspace's warm worker (runtime.warm_server), which
runs `checkpoint`, `query`, `alerts`, `recall` and `show` with the user's package already
loaded (see runtime.warm_client for when `uac` uses it)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from runtime.cli_app import JsonOpt, State, app, emit_json, say

warm_app = typer.Typer(help="The workspace's warm worker: start, stop, status.", no_args_is_help=True)
app.add_typer(warm_app, name="warm")


def _home(create: bool = False) -> Path:
    """The workspace's folder; `create`: made, with its fact log, if missing (a worker serves
    a workspace that has one)."""
    from runtime.workspace import Workspace

    workspace = Workspace.at(State.home, read_only=not create)
    if create and not workspace.facts_db.exists():
        workspace.open_facts().close()
    return workspace.home


def _describe(found: dict[str, object]) -> str:
    return (f"warm worker {found.get('pid')} for {found.get('home')}: up {found.get('uptime_s')} s, "
            f"{found.get('served')} command(s) served, {found.get('rss_mb')} MB, "
            f"exits after {found.get('idle_minutes'):g} idle minute(s)")


@warm_app.command("start")
def warm_start(user: Optional[str] = typer.Option(None, "--user", help="load this user's current version now"),
               as_json: bool = JsonOpt) -> None:
    """Start the worker (if none of this code runs) and wait until it answers."""
    from factlog.errors import InputError
    from factlog.model import check_user_id
    from runtime.warm_client import start
    from runtime.warm_wire import supported

    if user is not None:
        check_user_id(user)
    if not supported():
        raise InputError("the warm worker needs Unix sockets with peer credentials (Linux)")
    found = start(_home(create=True), user)
    if found is None:
        raise InputError("the warm worker did not start: see <home>/cache/warm/log")
    emit_json(found) if as_json else say(_describe(found))


@warm_app.command("stop")
def warm_stop(as_json: bool = JsonOpt) -> None:
    """Stop the worker (after the command it runs) and wait until it has exited."""
    from runtime.warm_client import stop

    pid = stop(_home())
    if as_json:
        emit_json({"stopped": pid})
    else:
        say("no warm worker" if pid is None else f"warm worker {pid} stopped")


@warm_app.command("status")
def warm_status(as_json: bool = JsonOpt) -> None:
    """Whether a worker serves the workspace, and what it has done."""
    from runtime.warm_client import status

    found = status(_home())
    if as_json:
        emit_json(found)
    else:
        say("no warm worker" if found is None else _describe(found))

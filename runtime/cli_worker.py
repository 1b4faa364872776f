"""`uac worker --store URL [--concurrency N]` and `uac worker status --store URL`: checkpoint
workers over the PostgreSQL queue (runtime.worker, runtime.work_queue). `--store` is the
PostgreSQL database holding the fact log and the queue; the workspace (`--home`) holds what
the workers publish and cache locally."""

from __future__ import annotations

from typing import Optional

import typer

from factlog.errors import InputError
from runtime.cli_app import JsonOpt, State, app, emit_json, say

worker_app = typer.Typer(help="Checkpoint workers over a PostgreSQL queue: run them, or see the queue.",
                         invoke_without_command=True)
app.add_typer(worker_app, name="worker")

StoreOpt = typer.Option(None, "--store", envvar="UAC_STORE",
                        help="the PostgreSQL database of the queue: postgresql://user@host:port/db")


def _store(store: Optional[str]) -> str:
    from factlog.pg import is_postgres_url

    if store is None:
        raise InputError("uac worker needs --store postgresql://user@host:port/database (or UAC_STORE)")
    if not is_postgres_url(store):
        raise InputError("--store: workers need a PostgreSQL URL (postgresql://user@host:port/database)")
    return store


@worker_app.callback()
def worker(ctx: typer.Context, store: Optional[str] = StoreOpt,
           concurrency: int = typer.Option(1, "--concurrency", min=1, max=64, help="worker processes"),
           producer: Optional[str] = typer.Option(None, "--producer", help="the registered producer "
                                                  "[default: settings.json, else compiler]"),
           every_facts: Optional[int] = typer.Option(
               None, "--every-facts", min=1, help="checkpoint after N new facts [default: settings.json, else 1]"),
           every_seconds: Optional[float] = typer.Option(
               None, "--every-seconds", min=0, help="... or when a new fact has waited this long"),
           debounce: float = typer.Option(0.5, "--debounce", min=0, max=3600,
                                          help="seconds a new job waits for more facts (swept ones)"),
           lease: float = typer.Option(60, "--lease", min=1, max=86400,
                                       help="seconds a job stays with a worker that stops renewing it"),
           sweep: float = typer.Option(10, "--sweep", min=0.1, max=86400,
                                       help="seconds between comparisons of log heads with the queue"),
           poll: float = typer.Option(0.5, "--poll", min=0.01, max=60, help="longest idle wait between claims"),
           until_idle: bool = typer.Option(False, "--until-idle", help="exit once nothing is pending")) -> None:
    """Run checkpoint workers: claim due users, checkpoint, run constraints, record alerts.
    SIGTERM lets the job under way finish, then exits 0."""
    if ctx.invoked_subcommand is not None:
        return
    import threading

    from codegen.producer import producer_named
    from runtime.work_queue import WorkQueue
    from runtime.worker import WorkerOptions, run_workers, serve, stop_on_signals

    url = _store(store)
    if producer is not None:
        producer_named(producer)  # an unknown name is refused before anything starts
    WorkQueue.open(url).close()  # reachable, and migrated once before the workers start
    options = WorkerOptions(queue_url=url, home=State.home, producer=producer, every_facts=every_facts,
                            every_seconds=every_seconds, debounce_s=debounce, lease_s=lease, poll_s=poll,
                            sweep_s=sweep, exit_when_idle=until_idle)
    stop = threading.Event()
    stop_on_signals(stop)
    if concurrency == 1:
        serve(options, stop)
        return
    code = run_workers(options, concurrency, stop)
    if code:
        raise typer.Exit(1)


@worker_app.command("status")
def status(store: Optional[str] = StoreOpt, as_json: bool = JsonOpt) -> None:
    """The queue: pending and due jobs, lag (how long the oldest due job has waited), running
    leases, and the jobs whose last attempt failed, with the reason."""
    from runtime.work_queue import WorkQueue

    with WorkQueue.open(_store(store), max_size=1, timeout=10) as queue:
        found = queue.status()
    if as_json:
        emit_json(found.as_json())
        return
    say(f"queue: {found.pending} pending ({found.due} due) of {found.users} user(s); "
        f"lag {found.lag_s:.1f} s; oldest pending {found.oldest_pending_s:.1f} s")
    say(f"runs: {found.runs}, publishes: {found.publishes}")
    expired = f"; expired leases: {found.expired_leases}" if found.expired_leases else ""
    say(f"running: {len(found.running)}{expired}")
    for lease in found.running:
        say(f"  {lease.user}: {lease.owner}, lease ends in {lease.expires_in_s:.1f} s")
    say(f"failures: {len(found.failures)}")
    for failure in found.failures:
        parked = "; waits for new facts" if failure.parked else ""
        say(f"  {failure.user}: {failure.attempts} attempt(s), {failure.failed_at.isoformat(timespec='seconds')}: "
            f"{failure.error}{parked}")

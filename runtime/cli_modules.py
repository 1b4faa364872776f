"""`uac` commands over typed modules: checkpoint, show, history, diff, rollback, gc, query,
alerts, recall, manifest, ask, watch. Each command imports the machinery it runs inside its body (see
`runtime.cli_app`): only `checkpoint`, `ingest --checkpoint`, `watch` and `demo` load the
compiler and the validator."""

from __future__ import annotations

import io
import json
import signal
import sys
import threading
from contextlib import contextmanager
from datetime import datetime, time, timezone
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Iterator, Optional

import typer

from factlog.errors import InputError
from factlog.model import check_user_id, parse_iso_date
from factlog.timeparse import parse_date, parse_datetime
from runtime.cli_app import JsonOpt, State, app, emit_json, err, memory, out, say

if TYPE_CHECKING:
    from codegen.manifest import Manifest
    from runtime.inbox import InboxOutcome


def parse_now(value: Optional[str]) -> datetime:
    """`--now`: an ISO date or date-time (default: this moment)."""
    if value is None:
        return datetime.now(timezone.utc)
    try:
        moment = parse_datetime(value)
    except ValueError:
        raise InputError(f"--now {value!r} is not an ISO date (YYYY-MM-DD) or date-time") from None
    if len(value) <= 10:  # a bare date means the start of that day
        moment = datetime.combine(parse_date(value), time())
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


ProducerOpt = typer.Option(None, "--producer", help="the registered producer that writes the package "
                                                     "(default: compiler)")


@app.command("checkpoint")
def checkpoint_cmd(user: str, now: Optional[str] = typer.Option(None, "--now", help="clock for constraints"),
                   producer: Optional[str] = ProducerOpt,
                   full: bool = typer.Option(False, "--full", help="rebuild from the whole log (a producer "
                                                                   "that works incrementally, e.g. llm)"),
                   as_json: bool = JsonOpt) -> None:
    """Compile the log into a new validated version (if anything changed), then run constraints."""
    from codegen.producer import producer_named
    from runtime.cli_output import checkpoint_json, print_checkpoint
    from runtime.producer_choice import with_settings, workspace_producer
    from users.checkpoint import Failed

    chosen = None if producer is None else producer_named(producer)
    mem = memory()
    mem.require_user(user)
    chosen = workspace_producer(mem.workspace.home, None, full=full) if chosen is None \
        else with_settings(mem.workspace.home, chosen, full)
    report = mem.checkpoint_and_alert(user, parse_now(now), producer=chosen)
    emit_json(checkpoint_json(report)) if as_json else print_checkpoint(report)
    if isinstance(report.result, Failed):
        raise typer.Exit(1)


@app.command()
def show(user: str, version: Optional[str] = typer.Option(None, "--version"),
         source: bool = typer.Option(False, "--source", help="print every file of the package"),
         as_json: bool = JsonOpt) -> None:
    """Show a version: its attributes, classes and record counts (or its source)."""
    from rich.markup import escape
    from rich.table import Table

    from runtime.cli_output import print_quarantine

    mem = memory()
    info = mem.versions.current(user) if version is None else mem.versions.get(user, version)
    if info is None:
        raise InputError(f"user {user!r} has no published version yet: run `uac checkpoint {user}`")
    files = mem.versions.files(user, info.number)
    manifest = mem.manifest_of(info)
    if as_json:
        emit_json({**info.to_json(), **_manifest_json(manifest), "files": files if source else sorted(files)})
        return
    if source:
        for name, text in sorted(files.items()):
            out.print(f"# ==== {name}", markup=False)
            out.print(text, markup=False)
        return
    table = Table(title=f"{user} v{info.number} (log position {info.meta.log_position}, {info.meta.producer})")
    for column in ("name", "type", "records / fields"):
        table.add_column(column, overflow="fold")
    for name, kind, shown in show_rows(manifest):
        table.add_row(name, kind, escape(shown))
    out.print(table)
    print_quarantine(manifest.quarantined)


def _manifest_json(manifest: Manifest) -> dict[str, object]:
    """What `meta.json` used to carry of a version's content, now read from its manifest."""
    from runtime.version_json import summary_json

    return {**summary_json((manifest.record_counts(), manifest.quarantined)),
            "entities": dict(sorted(manifest.entities().items()))}


def show_rows(manifest: Manifest) -> list[tuple[str, str, str]]:
    """`show`'s table rows from a manifest: (name, type, records or fields), by name."""
    from runtime.render_value import record_text, to_text
    from users.records import collections, record_classes

    classes = record_classes(manifest)
    colls = collections(manifest)
    rows = []
    for name in sorted(manifest.names):
        if name in classes:
            rows.append((name, "class", ", ".join(f"{k}: {t}" for k, t in classes[name].items())))
        elif name in colls and not colls[name].singular:
            rows.append((name, "list", str(len(colls[name].records))))
        elif name in colls:
            records = colls[name].records
            if not records:
                rows.append((name, "NoneType", to_text(None)[:120]))
            else:
                r = records[0]
                text = record_text(r.class_name, r.values, r.fact_ids if r.has_provenance else None)
                rows.append((name, r.class_name, text[:120]))
        elif name in manifest.others:
            other = manifest.others[name]
            if other.type == "list":
                rows.append((name, "list", str(other.size)))
            else:
                rows.append((name, other.type, "<type>" if other.type == "type" else to_text(other.value)[:120]))
    return rows


@app.command()
def history(user: str, as_json: bool = JsonOpt) -> None:
    """List a user's versions, oldest first."""
    from rich.table import Table

    from runtime.cli_output import quarantine_lines

    mem = memory()
    if as_json:
        from runtime.version_json import history_json

        emit_json(history_json(mem, user))
        return
    mem.require_user(user)
    versions = mem.versions.history(user)
    current = mem.versions.current(user)
    summaries = {v.number: mem.versions.summary(v) for v in versions}
    table = Table(title=f"{user}: {len(versions)} versions")
    any_quarantined = any(quarantined for _, quarantined in summaries.values())
    for column in ("version", "created", "log pos", "producer", "records", "validation s"):
        table.add_column(column)
    if any_quarantined:
        table.add_column("quarantined")
    for v in versions:
        mark = " *" if current is not None and v.number == current.number else ""
        timings = v.meta.timings
        counts, quarantined = summaries[v.number]
        row = [f"v{v.number}{mark}", v.created_at[:19], str(v.meta.log_position), v.meta.producer,
               str(sum(counts.values())),
               f"{sum(t for k, t in timings.items() if k != 'publish'):.3f}"]
        if any_quarantined:
            row.append(", ".join(map(str, sorted(quarantined))) or "-")
        table.add_row(*row)
    out.print(table)
    for v in versions:
        for line in quarantine_lines(summaries[v.number][1], v.number):
            out.print(line, markup=False)


@app.command()
def diff(user: str, a: Optional[str] = typer.Argument(None), b: Optional[str] = typer.Argument(None),
         text: bool = typer.Option(False, "--text", help="plain unified diff of the files"),
         as_json: bool = JsonOpt) -> None:
    """What changed between two versions (default: previous vs current; a first version
    against nothing, shown as v0), citing facts."""
    mem = memory()
    mem.require_user(user)
    a_num, b_num = mem.diff_pair(user, a, b)
    if text:
        from users.diff import unified_text_diff

        patch = unified_text_diff(mem.versions.files(user, a_num) if a_num else {}, mem.versions.files(user, b_num),
                                  label_a=f"v{a_num}", label_b=f"v{b_num}")
        emit_json({"from": a_num, "to": b_num, "diff": patch}) if as_json else out.print(patch, markup=False)
        return
    result = mem.diff(user, a_num, b_num)
    if as_json:
        from runtime.version_json import diff_json

        emit_json(diff_json(a_num, b_num, result))
        return
    out.print(f"diff {user} v{a_num} -> v{b_num}" + (" (the first version, against nothing)" if not a_num else ""),
              markup=False)
    out.print(result.render() if not result.is_empty else "no changes", markup=False)


@app.command()
def rollback(user: str, version: str, as_json: bool = JsonOpt) -> None:
    """Make an older version current again (recorded in the history)."""
    mem = memory()
    mem.require_user(user)
    mem.versions.get(user, version)  # NotFound / InputError before anything is locked or written
    info = mem.rollback(user, version)
    emit_json(info.to_json()) if as_json else out.print(f"{user}: v{info.number} is current again")


@app.command()
def gc(user: Optional[str] = typer.Argument(None, help="one user (default: every user)"),
       keep: Optional[int] = typer.Option(None, "--keep", help="versions to keep per user, the newest "
                                          "(default: `retention.keep` in settings.json, else all); "
                                          "the current one always stays"),
       as_json: bool = JsonOpt) -> None:
    """Remove old versions beyond the retention and the stored files no version uses."""
    reports = memory().gc(user, keep)
    if as_json:
        emit_json([r.to_json() for r in reports])
        return
    for r in reports:
        removed = ", ".join(f"v{n}" for n in r.versions) or "no versions"
        out.print(f"{r.user}: removed {removed}, {r.blobs} unused blob(s), {r.temp} leftover(s); "
                  f"{r.bytes:,} bytes freed", markup=False)


@app.command()
def query(user: str, expression: str, version: Optional[str] = typer.Option(None, "--version"),
          as_json: bool = JsonOpt) -> None:
    """Evaluate one safe Python expression over the user's module, e.g.
    'sum(t.cost_usd for t in trips if t.departure_date.year == 2024)'."""
    from runtime.render_value import printable, to_jsonable, to_text
    from runtime.safe_eval import QueryFailure

    result = memory().query(user, expression, version)
    if isinstance(result, QueryFailure):
        raise InputError(result.describe())
    # Rendering spends the result budgets too: over one, it raises InputError (one line).
    if as_json:
        emit_json({"expression": printable(expression), "value": to_jsonable(result.value),
                   "elapsed_ms": round(result.elapsed_ms, 3)})
    else:
        say(to_text(result.value))


@app.command()
def alerts(user: str, now: Optional[str] = typer.Option(None, "--now", help="ISO date (default: today)"),
           as_json: bool = JsonOpt) -> None:
    """Run every constraint over the current version; show new, escalated, active and resolved
    alerts. Exits 1 when a constraint failed (each named on one line; the others still report)."""
    from runtime.cli_output import alerts_json, print_alerts

    result = memory().alerts(user, parse_now(now))
    emit_json(alerts_json(result)) if as_json else print_alerts(result)
    if result.errors:
        raise typer.Exit(1)


@app.command()
def recall(user: str, question: str,
           expr: Optional[str] = typer.Option(None, "--expr", help="a query whose answer goes first"),
           max_items: int = typer.Option(8, "--max-items", min=1, max=200),
           max_chars: int = typer.Option(2000, "--max-chars", min=1, max=200_000),
           max_ms: float = typer.Option(50.0, "--max-ms", min=0, max=60_000),
           kind: list[str] = typer.Option([], "--kind", help="only facts/records of this kind"),
           since: Optional[str] = typer.Option(None, "--since", help="facts said on or after DATE"),
           until: Optional[str] = typer.Option(None, "--until", help="facts said on or before DATE"),
           session: Optional[str] = typer.Option(None, "--session", help="facts from this session id"),
           widen: bool = typer.Option(True, "--widen/--no-widen",
                                      help="widen the budgets when the question enumerates (\"all my ...\")"),
           as_json: bool = JsonOpt) -> None:
    """Cited context for a prompt: the code answer, the typed records of the kinds the question
    names, then BM25 facts and records grouped by session and entity, under budget."""
    from runtime.recall_question import check_question

    question = check_question(question)
    result = memory().recall(user, question, expression=expr, max_items=max_items, max_chars=max_chars,
                             max_ms=max_ms, kinds=kind or None, since=parse_iso_date(since, "--since"),
                             until=parse_iso_date(until, "--until"), session=session, widen=widen)
    emit_json(result.to_json()) if as_json else out.print(result.context or "(nothing found)", markup=False)


@app.command("manifest")
def manifest_cmd(user: str, version: Optional[str] = typer.Option(None, "--version"),
                 limit: int = typer.Option(2000, "--limit", min=200, max=1_000_000,
                                           help="characters of the text at most (a cut says what it left out)"),
                 as_json: bool = JsonOpt) -> None:
    """The agent manifest: a compact summary of the user's module for an agent's context
    (classes, fields, sizes, date ranges, active alerts, version; never the records)."""
    context = memory().agent_manifest(user, version, limit=limit)
    emit_json(context.to_json()) if as_json else say(context.text)


@app.command("ask")
def ask_cmd(user: str, question: str,
            model: Optional[str] = typer.Option(None, "--model", help="model name [default: UAC_MODEL, "
                                                "else llm.model in settings.json]"),
            base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint "
                                                   "[default: OPENAI_BASE_URL, else llm.base_url]"),
            as_json: bool = JsonOpt) -> None:
    """Answer a question by code: the model reads the manifest and writes one query expression,
    the sandbox runs it (an error is fed back once); recall context when code cannot answer.
    Exits 1 when the model cannot be reached (the question was fine: try again later)."""
    from codegen.llm import ModelUnavailable
    from runtime.cli import fail

    try:
        result = memory().ask(user, question, model=model, base_url=base_url)
    except ModelUnavailable as error:
        fail(str(error), 1, as_json)
    if as_json:
        emit_json(result.to_json())
    else:
        for line in result.lines():
            out.print(line, markup=False)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextmanager
def stop_signals() -> Iterator[None]:
    """SIGINT and SIGTERM stop `watch` cleanly (as KeyboardInterrupt), installed explicitly:
    a process started in the background by a shell inherits SIGINT *ignored*, and Python
    then leaves it ignored. The previous handlers come back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _interrupt) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@app.command()
def watch(users: list[str] = typer.Argument(None), debounce: float = typer.Option(0.5, "--debounce", min=0.05),
          every_facts: Optional[int] = typer.Option(
              None, "--every-facts", min=1, help="checkpoint after N new facts [default: settings.json, else 1]"),
          every_seconds: Optional[float] = typer.Option(
              None, "--every-seconds", min=0, help="... or when a new fact has waited this long "
              "[default: settings.json, else never]"),
          tick: float = typer.Option(3600, "--tick", min=1, help="seconds between clock runs of the constraints"),
          producer: Optional[str] = ProducerOpt,
          inbox: Optional[Path] = typer.Option(
              None, "--inbox", help="also ingest transcripts dropped in this folder: DIR/<user>/FILE "
              "(or DIR/FILE with --user); then moved to DIR/.done/ (refused: DIR/.failed/)"),
          inbox_user: Optional[str] = typer.Option(None, "--user", help="with --inbox: the user of the files "
                                                   "directly in DIR"),
          llm: bool = typer.Option(False, "--llm", help="with --inbox: a model extracts typed facts"),
          model: Optional[str] = typer.Option(None, "--model", help="with --llm: the model (else UAC_MODEL)"),
          base_url: Optional[str] = typer.Option(None, "--base-url",
                                                 help="with --llm: the endpoint (else OPENAI_BASE_URL)"),
          settle: float = typer.Option(1.0, "--settle", min=0.05, max=3600,
                                       help="with --inbox: seconds a file must stay unchanged (and closed)"),
          as_json: bool = JsonOpt) -> None:
    """Watch the log: each change → checkpoint → constraints → new and resolved alerts.
    With --inbox, transcripts dropped in a folder are ingested first (each once)."""
    from codegen.producer import producer_named
    from runtime.checkpoint_service import CheckpointReport
    from runtime.cli_output import checkpoint_json, print_checkpoint
    from runtime.producer_choice import with_settings, workspace_producer
    from runtime.watch import Watcher
    from users.checkpoint import Unchanged

    if inbox is None and (inbox_user is not None or llm or model is not None or base_url is not None):
        raise InputError("--user, --llm, --model and --base-url go with --inbox")
    chosen = None if producer is None else producer_named(producer)
    mem = memory()
    from runtime.settings import load_settings

    settings = load_settings(mem.workspace.home)
    policy = settings.policy(every_facts, every_seconds)
    chosen = workspace_producer(mem.workspace.home, None) if chosen is None \
        else with_settings(mem.workspace.home, chosen)

    def report(user: str, outcome: object) -> None:
        if isinstance(outcome, CheckpointReport):
            quiet = outcome.alerts is None or not (outcome.alerts.news or outcome.alerts.resolved)
            if isinstance(outcome.result, Unchanged) and quiet:
                return
            if as_json:  # one JSON document per line, for programs reading a stream
                sys.stdout.write(json.dumps(checkpoint_json(outcome), ensure_ascii=False, default=str) + "\n")
                sys.stdout.flush()
            else:
                print_checkpoint(outcome)
        else:
            err.print(f"{user}: checkpoint error: {outcome}", markup=False)

    def report_inbox(outcome: InboxOutcome) -> None:
        if as_json:
            sys.stdout.write(json.dumps({"inbox": outcome.to_json()}, ensure_ascii=False, default=str) + "\n")
            sys.stdout.flush()
        else:
            (err if outcome.failed else out).print(outcome.line(), markup=False)

    for name in users or []:
        check_user_id(name)
    feed = None
    if inbox is not None:  # loaded only then: the transcript readers are not cheap to import
        from runtime.inbox_watch import InboxWatch

        feed = InboxWatch(mem.inbox(inbox, inbox_user, users or None, llm=llm, model=model, base_url=base_url),
                          report_inbox, settle_s=settle)
    stop = threading.Event()
    watcher = Watcher(mem, mem.workspace.facts_db, users or None, report, debounce,
                      policy, tick, producer=chosen, inbox=feed)
    try:
        with stop_signals():
            if not as_json:
                out.print(f"watching {mem.workspace.facts_db}" + (f" and inbox {inbox}" if inbox else "")
                          + " (Ctrl-C to stop)", markup=False)
            watcher.run_until(stop)
    except KeyboardInterrupt:
        stop.set()
    finally:
        if feed is not None:
            feed.inbox.close()
    if not as_json:
        out.print("stopped")


@app.command()
def demo(now: Optional[str] = typer.Option(None, "--now", help="demo clock (default 2026-12-01)"),
         as_json: bool = JsonOpt) -> None:
    """Run the whole loop on a bundled example user (offline, no API key), in its own
    workspace `<home>/demo`: the users of the main workspace are never touched."""
    from rich.console import Console

    from runtime.demo import DEMO_NOW, open_demo, run_demo
    from runtime.workspace import Workspace

    console = Console(file=io.StringIO()) if as_json else out
    moment = parse_now(now) if now else DEMO_NOW
    mem = State.mem = open_demo(Workspace.at(State.home).home)
    summary = run_demo(mem, console, moment)
    if as_json:
        emit_json(summary)

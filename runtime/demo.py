"""`uac demo`: the whole loop on a bundled example user, offline, no API key.

ingest (a transcript + structured records) → checkpoint → aggregate queries → alerts (a
passport that expires too soon after a Tokyo trip; a medication in an allergy's drug
class) → a new fact (passport renewed) → a new version → the diff and the resolved alert.
"""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.rule import Rule

from constraints import AlertDiff
from factlog.errors import InputError
from factlog.timeparse import parse_datetime
from runtime.checkpoint_service import CheckpointReport
from runtime.cli_output import alerts_json, print_alerts
from runtime.memory import Memory
from runtime.render_value import to_jsonable, to_text
from runtime.safe_eval import QueryFailure
from users.checkpoint import Failed, Published

DEMO_USER = "sam"
DEMO_FOLDER = "demo"  # the demo's own workspace, inside the main one: <home>/demo
DEMO_MARK = ".uac-demo"  # marks a folder as a demo workspace (the demo may reset its user there)
DEMO_NOW = parse_datetime("2026-12-01T09:00:00+00:00")

QUERIES = (
    ("trips per year", "sorted(Counter(t.departure_date.year for t in trips).items())"),
    ("spent on trips in 2024", "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)"),
    ("countries visited abroad", "sorted({t.country for t in trips if t.is_international})"),
    ("longest trip", "max(trips, key=lambda t: (t.return_date - t.departure_date).days).destination"),
    ("passport valid after the Tokyo return (days)",
     "[(passport.expiry_date - t.return_date).days for t in trips if t.destination == 'Tokyo']"),
)


def example(name: str) -> Path:
    return Path(str(resources.files("runtime") / "examples" / name))


def open_demo(home: Path) -> Memory:
    """The demo's own workspace `<home>/demo`, created and marked on first use. A folder of
    that name that the demo did not make is refused, never written."""
    folder = home / DEMO_FOLDER
    mark = folder / DEMO_MARK
    if folder.exists() and not mark.is_file() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{folder} exists and is not a demo workspace; move it away to run the demo")
    mem = Memory.open(folder)
    mark.touch()
    return mem


def run_demo(mem: Memory, console: Console, now: datetime = DEMO_NOW) -> dict[str, object]:
    """Run the demo in `mem` (a demo workspace: see `open_demo`; its user `sam` is reset),
    narrating on `console`; return what it found, as JSON-ready data."""
    if not (mem.workspace.home / DEMO_MARK).is_file():
        raise InputError(f"{mem.workspace.home} is not a demo workspace: the demo runs only in one (open_demo)")
    summary: dict[str, object] = {"user": DEMO_USER, "now": now.isoformat(), "workspace": str(mem.workspace.home)}

    def step(title: str) -> None:
        console.print(Rule(f"[bold]{title}"))

    console.print(f"demo workspace: {mem.workspace.home} (its own; the users of "
                  f"{mem.workspace.home.parent} are not touched)", markup=False)
    mem.forget(DEMO_USER)  # the demo starts from nothing each time, in its own workspace
    step("1. ingest: a chat transcript (offline extraction) and structured records")
    transcript = mem.ingest_transcript(DEMO_USER, example("sam_sessions.yaml"))
    console.print(f"transcript: {len(transcript.facts)} facts, each citing its session and message")
    trips = mem.ingest_records(DEMO_USER, example("sam_trips.jsonl"), "trip", key_field="ref")
    console.print(f"trips: {len(trips.facts)} structured facts (keys from the 'ref' field)")
    for line in example("sam_health.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        fact = mem.add(DEMO_USER, kind=item["kind"], key=item["key"], fields=item["fields"])
        console.print(f"fact {fact.id}: {fact.text}", markup=False)
    summary["facts"] = {"transcript": len(transcript.facts), "trips": len(trips.facts),
                        "total": mem.facts.head(DEMO_USER)}
    for fact in transcript.facts[:6]:
        p = fact.provenance
        console.print(f"  fact {fact.id} [{p.session_id}#{p.message_index}]: {fact.text}", markup=False)

    step("2. checkpoint: facts → typed module → libcst/ast allowlist → mypy --strict → import → coverage")
    first = mem.checkpoint_and_alert(DEMO_USER, now)
    _print_result(console, first)
    ns = mem.namespace(DEMO_USER)
    console.print("module names: " + ", ".join(sorted(k for k, v in ns.items() if not isinstance(v, type))))

    step("3. exact answers: safe Python expressions over the typed module")
    answers = []
    for label, expression in QUERIES:
        result = mem.query(DEMO_USER, expression)
        value = result.message if isinstance(result, QueryFailure) else to_text(result.value)
        console.print(f"[bold]{label}[/bold]\n  [dim]{expression}[/dim]\n  → ", end="")
        console.print(value, markup=False)
        answers.append({"label": label, "expression": expression,
                        "value": None if isinstance(result, QueryFailure) else to_jsonable(result.value),
                        "error": result.message if isinstance(result, QueryFailure) else None})
    summary["queries"] = answers

    step(f"4. proactive alerts (clock: {now.date().isoformat()})")
    _print_alerts(console, first.alerts)

    step("5. a new fact: the passport was renewed")
    renewed = mem.add(DEMO_USER, "Renewed my passport: new expiry November 20th, 2036.", kind="passport",
                      key="passport", fields={"number": "P9120455", "issue_date": "2026-11-21",
                                              "expiry_date": "2036-11-20"})
    console.print(f"fact {renewed.id}: {renewed.text}", markup=False)
    second = mem.checkpoint_and_alert(DEMO_USER, now)
    _print_result(console, second)

    step("6. what changed, and why (semantic diff citing facts)")
    diff = mem.diff(DEMO_USER)
    console.print(diff.render(), markup=False)
    _print_alerts(console, second.alerts)
    summary["versions"] = [v.number for v in mem.versions.history(DEMO_USER)]
    summary["alerts_first"] = alerts_json(first.alerts) if first.alerts else None
    summary["diff"] = diff.to_json()
    summary["alerts_after_renewal"] = alerts_json(second.alerts) if second.alerts else None

    step("7. recall: cited context for an agent's prompt")
    recalled = mem.recall(DEMO_USER, "when does my passport expire and where am I flying?",
                          expression="passport.expiry_date", max_items=5, max_chars=600)
    console.print(recalled.context, markup=False)
    console.print(f"\n[dim]workspace: {mem.workspace.home} — try `uac --home {mem.workspace.home} "
                  f"query {DEMO_USER} 'len(trips)'`[/dim]")
    summary["recall"] = recalled.to_json()
    return summary


def _print_result(console: Console, report: CheckpointReport) -> None:
    result = report.result
    if isinstance(result, Published):
        v = result.version
        split = ", ".join(f"{k} {t * 1000:.0f} ms" for k, t in result.timings.items())
        recorded = report.manifest.record_counts() if report.manifest else {}
        counts = ", ".join(f"{k} {n}" for k, n in sorted(recorded.items()) if n)
        console.print(f"[green]published v{v.number}[/green] ({counts})\n  {split}")
    elif isinstance(result, Failed):
        raise InputError(f"demo checkpoint failed: {result.message}")
    else:
        console.print(str(result), markup=False)


def _print_alerts(console: Console, diff: AlertDiff | None) -> None:
    if diff is not None:
        print_alerts(diff, quiet_skips=True, console=console)

"""How `uac` prints checkpoints and alerts, for people (rich) and as JSON."""

from __future__ import annotations

from typing import Mapping

from rich.console import Console
from rich.markup import escape

from constraints import AlertDiff, ConstraintFailure
from constraints.alert_json import alert_json
from runtime.checkpoint_service import CheckpointReport
from runtime.cli_app import err, out
from users.checkpoint import Published, Unchanged


def constraint_error_line(error: ConstraintFailure) -> str:
    """One line naming the broken constraint, however many lines its error has."""
    text = " ".join(error.error.split())
    return f"constraint {error.constraint} failed: {text[:500]}{'...' if len(text) > 500 else ''}"


def alerts_json(diff: AlertDiff) -> dict[str, object]:
    return {"raised": [alert_json(a) for a in diff.raised],
            "escalated": [alert_json(a) for a in diff.escalated],
            "still_active": [alert_json(a) for a in diff.still_active],
            "resolved": [alert_json(a) for a in diff.resolved],
            "skipped": [{"constraint": s.constraint, "reason": s.reason} for s in diff.skipped],
            "errors": [{"constraint": e.constraint, "error": e.error} for e in diff.errors],
            "notices": [n.to_json() for n in diff.notices]}


SEVERITY_STYLE = {"critical": "bold red", "warning": "yellow", "info": "cyan"}


CHECKPOINT_ACTIVE = 20  # alerts still active that a checkpoint lists; `uac alerts` lists them all


def print_alerts(diff: AlertDiff, *, quiet_skips: bool = False, console: Console = out,
                 active_limit: int | None = None, user: str = "USER") -> None:
    """News in full (new, worse, resolved); alerts still active up to `active_limit` (None:
    all), then one line saying how many more there are."""
    active = diff.still_active if active_limit is None else diff.still_active[:active_limit]
    for label, alerts in (("NEW", diff.raised), ("WORSE", diff.escalated), ("active", active),
                          ("resolved", diff.resolved)):
        if label == "resolved" and len(active) < len(diff.still_active):
            console.print(f"{len(diff.still_active) - len(active):>8} more alerts still active "
                          f"(`uac alerts {user}` lists them)", markup=False)
        for a in alerts:
            style = "green" if label == "resolved" else SEVERITY_STYLE[a.severity]
            due = f" (due {a.due.isoformat()})" if a.due else ""
            console.print(f"[{style}]{label:>8} {a.severity:<8}[/{style}] ", end="")
            console.print(f"{a.message}{due} [facts {', '.join(map(str, a.fact_ids))}]", markup=False)
    if not (diff.raised or diff.escalated or diff.still_active or diff.resolved):
        console.print("no alerts")
    for n in diff.notices:
        console.print(f"[dim]notice {escape(n.constraint)}:[/dim] {escape(n.message)}")
    for e in diff.errors:
        err.print(constraint_error_line(e), markup=False)
    if not quiet_skips:
        for s in diff.skipped:
            console.print(f"[dim]skipped {escape(s.constraint)}: {escape(s.reason)}[/dim]")


def quarantine_lines(quarantined: Mapping[int, str], version: int | None = None) -> list[str]:
    """One line per quarantined fact: left out of the version because it cannot be compiled."""
    where = f"v{version} " if version is not None else ""
    return [f"{where}quarantined fact {fact}: {reason}" for fact, reason in sorted(quarantined.items())]


def print_quarantine(quarantined: Mapping[int, str], version: int | None = None,
                     console: Console = out) -> None:
    if quarantined:
        console.print(f"[yellow]{len(quarantined)} fact(s) quarantined[/yellow] (left out: they cannot be "
                      "compiled; fix or retract them)")
    for line in quarantine_lines(quarantined, version):
        console.print(line, markup=False)


def checkpoint_json(report: CheckpointReport) -> dict[str, object]:
    result = report.result
    data: dict[str, object] = {"user": report.user}
    if isinstance(result, Published):
        counts, quarantined = _summary(report)
        data.update(outcome="published", version=result.version.number, new_facts=result.new_facts,
                    log_position=result.version.meta.log_position,
                    record_counts=counts,
                    quarantined={str(k): v for k, v in quarantined.items()},
                    timings_s={k: round(v, 4) for k, v in result.timings.items()})
    elif isinstance(result, Unchanged):
        data.update(outcome="unchanged", reason=result.reason,
                    version=result.version.number if result.version else None)
    else:
        data.update(outcome="failed", stage=result.stage, reason=result.message,
                    problems=[str(p) for p in result.problems],
                    current_version=result.current.number if result.current else None,
                    producer=result.producer, attempts=[a.to_json() for a in result.attempts])
    if report.alerts is not None:
        data["alerts"] = alerts_json(report.alerts)
    return data


def _summary(report: CheckpointReport) -> tuple[dict[str, int], dict[int, str]]:
    """Record counts and quarantined facts of the version a checkpoint published."""
    if report.manifest is not None:
        return report.manifest.record_counts(), dict(report.manifest.quarantined)
    assert isinstance(report.result, Published)
    return dict(report.result.version.meta.record_counts), dict(report.result.version.meta.quarantined)


def print_checkpoint(report: CheckpointReport) -> None:
    result = report.result
    if isinstance(result, Published):
        v = result.version
        split = ", ".join(f"{k} {v_:.3f}s" for k, v_ in result.timings.items())
        out.print(f"[green]published[/green] {report.user} v{v.number} (log position "
                  f"{v.meta.log_position}, {result.new_facts} new facts; {split})")
        print_quarantine(_summary(report)[1])
    elif isinstance(result, Unchanged):
        out.print(f"unchanged: {result.reason}", markup=False)
    else:
        current = f"v{result.current.number}" if result.current else "no version"
        tries = f" after {len(result.attempts)} attempts by {result.producer}" if len(result.attempts) > 1 else ""
        err.print(f"checkpoint FAILED for {report.user}{tries}; {current} stays current", style="bold red")
        err.print(result.message, markup=False)
    if report.alerts is not None:
        print_alerts(report.alerts, quiet_skips=True, active_limit=CHECKPOINT_ACTIVE, user=report.user)

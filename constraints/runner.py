"""Running constraints over a module, and tracking alerts from one run to the next."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path

from constraints.kept_results import KeptResults
from constraints.kept_state import KeptStates
from constraints.model import SEVERITIES, Alert, Constraint, ConstraintFailure, ConstraintSkip, MissingInput
from constraints.notices import FieldNotice, field_notices
from constraints.state import ActiveAlert, AlertState, ResolvedAlert
from factlog.durable import exclusive_lock


@dataclass(frozen=True)
class RunResult:
    alerts: tuple[Alert, ...]  # most severe first, then soonest due
    skipped: tuple[ConstraintSkip, ...]
    errors: tuple[ConstraintFailure, ...]
    notices: tuple[FieldNotice, ...] = ()  # records lacking a field a constraint reads


@dataclass(frozen=True)
class AlertDiff:
    raised: tuple[Alert, ...]  # new since the previous run
    still_active: tuple[Alert, ...]  # as of this run, no more severe than before (the message may change)
    resolved: tuple[Alert, ...]  # as last seen active
    skipped: tuple[ConstraintSkip, ...] = ()  # filled by evaluate_and_record
    errors: tuple[ConstraintFailure, ...] = ()
    escalated: tuple[Alert, ...] = ()  # active before, more severe now (e.g. due soon -> overdue)
    notices: tuple[FieldNotice, ...] = ()  # records lacking a field a constraint reads

    @property
    def news(self) -> tuple[Alert, ...]:
        """What is worth announcing: new alerts, then alerts that got worse."""
        return self.raised + self.escalated


def run_constraints(module: object, now: datetime, constraints: Iterable[Constraint],
                    kept: KeptResults | None = None) -> RunResult:
    """Run every constraint; one that lacks inputs is skipped, one that raises is an error.
    `kept`: what they found over this user's last module (reused where nothing changed)."""
    alerts: dict[str, Alert] = {}
    skipped: list[ConstraintSkip] = []
    errors: list[ConstraintFailure] = []
    constraints = list(constraints)
    for item in constraints:
        try:
            found = list(item.check(module, now)) if kept is None else kept.run(item, module, now)
        except MissingInput as missing:
            skipped.append(ConstraintSkip(item.name, str(missing)))
            continue
        except Exception as error:  # a broken constraint must not stop the others
            errors.append(ConstraintFailure(item.name, f"{type(error).__name__}: {error}"))
            continue
        for alert in found:
            alerts.setdefault(alert.id, alert)
    return RunResult(tuple(sorted(alerts.values(), key=_urgency)), tuple(skipped), tuple(errors),
                     field_notices(module, constraints))


def _urgency(alert: Alert) -> tuple[int, date, str]:
    return SEVERITIES.index(alert.severity), alert.due or date.max, alert.id


_RANK = {severity: rank for rank, severity in enumerate(SEVERITIES)}


def is_worse(alert: Alert, before: Alert) -> bool:
    """More severe than it was (critical is the most severe)."""
    return _RANK[alert.severity] < _RANK[before.severity]


def _still(alert: Alert, before: ActiveAlert | None, now: datetime, version: int | None) -> ActiveAlert:
    """The active entry of `alert`: the one kept when the alert is as it was (the same
    object, so what was kept of its stored text is found by identity), else a new one
    (raised when it was first raised, or now)."""
    if before is None:
        return ActiveAlert(alert, now, version)
    if before.alert is alert or _same(before.alert, alert):
        return before
    return ActiveAlert(alert, before.raised_at, before.raised_version)


def _same(a: Alert, b: Alert) -> bool:
    """Equal, and with values of the same types (so both are stored alike)."""
    return a == b and type(a.id) is type(b.id) and type(a.message) is type(b.message) \
        and type(a.severity) is type(b.severity) and type(a.constraint) is type(b.constraint) \
        and type(a.due) is type(b.due) and type(a.fact_ids) is type(b.fact_ids) \
        and all(type(x) is type(y) for x, y in zip(a.fact_ids, b.fact_ids))


def diff_alerts(previous: Iterable[Alert], current: Iterable[Alert]) -> AlertDiff:
    before = {a.id: a for a in previous}
    now = {a.id: a for a in current}
    raised: list[Alert] = []
    still: list[Alert] = []
    escalated: list[Alert] = []
    for key, alert in now.items():
        earlier = before.get(key)
        if earlier is None:
            raised.append(alert)
        elif earlier is not alert and is_worse(alert, earlier):
            escalated.append(alert)
        else:
            still.append(alert)
    return AlertDiff(
        raised=tuple(raised),
        still_active=tuple(still),
        resolved=tuple(a for i, a in before.items() if i not in now),
        escalated=tuple(escalated),
    )


def _next_state(state: AlertState, result: RunResult, now: datetime,
                version: int | None) -> tuple[AlertState, AlertDiff]:
    """The state after a run with `result` over `state`, and the diff between the two."""
    errored = {e.constraint for e in result.errors}
    current = list(result.alerts) + [a for a in state.alerts() if a.constraint in errored]
    diff = diff_alerts(state.alerts(), current)
    earlier = {a.alert.id: a for a in state.active}
    active = tuple(map(lambda a: _still(a, earlier.get(a.id), now, version), current))
    resolved = tuple(
        ResolvedAlert(a, earlier[a.id].raised_at, earlier[a.id].raised_version, now, version)
        for a in diff.resolved
    )
    return AlertState(active, state.history + resolved, now, version), diff


def evaluate_and_record(
    module: object,
    now: datetime,
    constraints: Iterable[Constraint],
    state_path: Path,
    version: int | None = None,
    on_new_alert: Callable[[Alert], None] | None = None,
    kept: KeptStates | None = None,
    results: KeptResults | None = None,
    shared: AbstractContextManager[tuple[AlertState, Callable[[AlertState, AlertDiff], None]]] | None = None,
    staged: Callable[[AlertState, AlertDiff], AbstractContextManager[object]] | None = None,
) -> AlertDiff:
    """Run, diff against the stored state, store the new state, then announce the news:
    raised alerts, then escalated ones (an alert that got more severe is news too).

    Alerts of a constraint that errored this run stay active (an error says nothing about
    whether the situation is over); a skipped constraint's alerts resolve, since the data
    they were about is gone. The state is saved before `on_new_alert` is called, so a
    failing callback cannot wedge the state (each alert is announced at most once). Runs
    over the same state file are serialised (a lock file beside it), so none is lost.
    `kept`: the states this process keeps (read again only when the file changed);
    `results`: what the constraints found last (`run_constraints`). `shared`: the state
    kept elsewhere (`constraints.pg_alert_state`), held (read, then saved with the diff, so
    what is announced can be recorded in the same transaction) instead of the file's.
    `staged(new_state, diff)`: entered, under the file's lock, around the save of the state
    file (an outbox staging what it records before the save, confirming it after, dropping
    it when the save fails).
    """
    result = run_constraints(module, now, constraints, results)
    if shared is not None:
        with shared as (state, save):
            new_state, diff = _next_state(state, result, now, version)
            save(new_state, diff)
    else:
        with exclusive_lock(state_path.with_name(state_path.name + ".lock")):
            state = AlertState.load(state_path) if kept is None else kept.load(state_path)
            new_state, diff = _next_state(state, result, now, version)
            with contextlib.nullcontext() if staged is None else staged(new_state, diff):
                if kept is None:
                    new_state.save(state_path)
                else:
                    kept.save(state_path, new_state)
    if on_new_alert is not None:
        for alert in diff.news:
            on_new_alert(alert)
    return replace(diff, skipped=result.skipped, errors=result.errors, notices=result.notices)

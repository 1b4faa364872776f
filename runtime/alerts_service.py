"""Constraints and alert runs: every constraint over a user's current version, the alert
diff against the last run, and the run recorded."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeAlias

from constraints import (
    BUILTIN,
    Alert,
    AlertDiff,
    Constraint,
    ConstraintFailure,
    evaluate_and_record,
    load_user_constraints,
)
from constraints.builtin import drop_kept
from constraints.kept_results import KeptResults
from constraints.kept_state import KeptStates
from constraints.state import AlertState
from constraints.user_loader import LoadFailure
from runtime.versions_service import VersionsService
from users.store import VersionStore
from users.versions import VersionInfo

if TYPE_CHECKING:
    from constraints.pg_alert_state import PgAlertStates

# (user, operation, the new state, the diff): entered around the save of `alerts.json`
FileOutbox: TypeAlias = Callable[[str, str, AlertState, AlertDiff], AbstractContextManager[object]]


class AlertsService:
    """`home` holds the user's own constraint modules (`<home>/constraints/*.py`). Keeps,
    for the runs of this process, each user's alert state (`KeptStates`: re-read when the
    file changed) and what the constraints found last (`KeptResults`)."""

    def __init__(self, home: Path, versions: VersionStore, modules: VersionsService,
                 shared: PgAlertStates | None = None) -> None:
        """`shared`: the alert states kept in PostgreSQL (instead of each user's
        `alerts.json`), for a workspace whose versions are there."""
        self.home = home
        self.shared = shared
        self.versions = versions
        self.modules = modules
        self.kept_states = KeptStates()
        self._results: dict[str, KeptResults] = {}
        self.file_outbox: FileOutbox | None = None  # what a run's news records, beside `alerts.json`

    def forget(self, user: str) -> None:
        """Drop what is kept of the user (the forget itself is coordinated by `Forgetting`)."""
        self._results.pop(user, None)
        drop_kept()  # the overlap constraints' kept records (whoever's they are)
        try:
            self.kept_states.forget(self.state_path(user))
        except Exception:  # the id or folder refused: keep nothing of anyone
            self.kept_states = KeptStates()

    def state_path(self, user: str) -> Path:
        return self.versions.user_dir(user) / "alerts.json"

    def state(self, user: str) -> AlertState:
        """The alert state the last constraint run recorded (read, never written)."""
        if self.shared is not None:
            return self.shared.load(user)
        return AlertState.load(self.state_path(user))

    def constraints(self) -> tuple[list[Constraint], list[LoadFailure]]:
        loaded = load_user_constraints(self.home)
        return [*BUILTIN, *loaded.constraints], list(loaded.failures)

    def alerts(self, user: str, now: datetime | None = None,
               on_new_alert: Callable[[Alert], None] | None = None, operation: str = "alerts") -> AlertDiff:
        """Run every constraint over the current version; diff against the last run and keep it.
        A user constraint file that fails to load is reported among the errors."""
        with self.versions.in_use():  # a forget waits, so no alert state outlives it
            return self.alerts_of(self.modules.info(user), now, on_new_alert, operation)

    def alerts_of(self, info: VersionInfo, now: datetime | None = None,
                  on_new_alert: Callable[[Alert], None] | None = None, operation: str = "checkpoint") -> AlertDiff:
        """`alerts` over version `info`, already read by the caller (who holds
        `versions.in_use()`): a version just published runs on the module validated.
        `operation` (a checkpoint's run, or an `alerts` run) is told to the outbox, which
        records the news with the state: `shared.outbox` in PostgreSQL, else `file_outbox`."""
        constraints, failures = self.constraints()
        moment = now or datetime.now(timezone.utc)
        results = self._results.setdefault(info.user, KeptResults())
        diff = evaluate_and_record(self.modules.module_of(info), moment, constraints, self.state_path(info.user),
                                   info.number, on_new_alert, kept=self.kept_states, results=results,
                                   shared=None if self.shared is None else self.shared.held(info.user, operation),
                                   staged=None if self.file_outbox is None else self._staged(info.user, operation))
        broken = tuple(ConstraintFailure(f"constraints/{f.name}", f.error) for f in failures)
        return replace(diff, errors=broken + diff.errors)

    def _staged(self, user: str, operation: str) -> Callable[[AlertState, AlertDiff], AbstractContextManager[object]]:
        outbox = self.file_outbox
        assert outbox is not None
        return lambda state, diff: outbox(user, operation, state, diff)

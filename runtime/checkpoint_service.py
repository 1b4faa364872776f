"""Checkpoints as the API runs them: compile, validate and publish a user's log (with the
validator and its caches), then run the alerts on a new version; the policy that says
when a checkpoint is due, and what `uac watch` does per user."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from codegen.manifest import Manifest
from codegen.producer import Producer
from codegen.validate import Validator
from constraints import Alert, AlertDiff
from factlog.model import check_user_id
from factlog.store import FactStore
from factlog.timeparse import parse_datetime
from runtime.alerts_service import AlertsService
from users.checkpoint import CheckpointPolicy, CheckpointResult, Published, Unchanged, checkpoint, state_paths
from users.store import VersionStore


@dataclass(frozen=True)
class CheckpointReport:
    user: str
    result: CheckpointResult
    alerts: AlertDiff | None  # None when no new version was published
    manifest: Manifest | None = None  # the published version's, when one was published


class CheckpointService:
    """`cache_dir` holds the validator's caches (`validation/`) and the staging area (`stage/`);
    `home`, the workspace whose `settings.json` a producer given by name (or None) follows
    (`runtime.producer_choice.workspace_producer`; without one, None is the compiler and a
    name the registered producer as it is)."""

    def __init__(self, facts: FactStore, versions: VersionStore, alerts: AlertsService, cache_dir: Path,
                 home: Path | None = None) -> None:
        self.home = home
        self.facts = facts
        self.versions = versions
        self.alerts = alerts
        self.cache_dir = cache_dir
        self._validator: Validator | None = None

    @property
    def validator(self) -> Validator:
        if self._validator is None:
            self._validator = Validator(self.cache_dir / "validation")
        return self._validator

    def close(self) -> None:
        if self._validator is not None:
            self._validator.close()

    @property
    def state_root(self) -> Path:
        """The checkpoints' log summaries and the producers' incremental states."""
        return self.cache_dir / "state"

    def forget(self, user: str) -> None:
        """Drop the user's validation caches, checkpoint states and what the alert runs kept
        (the forget itself is coordinated by `Forgetting`)."""
        self.validator.forget(user)
        self.drop_states(user)
        self.alerts.forget(user)

    def drop_states(self, user: str) -> None:
        """Remove the user's checkpoint states (the next checkpoint reads the whole log)."""
        for path in state_paths(self.state_root, user):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)

    def checkpoint(self, user: str, producer: Producer | str | None = None, *, full: bool = False) -> CheckpointResult:
        """Produce and validate the user's package; publish a new version if anything changed.
        `producer`: a registered name or None (the workspace's producer: `settings.json`, else
        the compiler), configured with the workspace's `llm` settings; or an object, used as
        it is. `full`: read the whole log and compile from scratch (the states are rebuilt;
        the files are the same)."""
        check_user_id(user)
        if self.home is not None and (producer is None or isinstance(producer, str)):
            from runtime.producer_choice import workspace_producer

            producer = workspace_producer(self.home, producer)
        if full:
            with self.versions.in_use():
                self.drop_states(user)
        return checkpoint(self.facts, self.versions, self.validator, user,
                          stage_root=self.cache_dir / "stage", producer=producer, state_root=self.state_root)

    def checkpoint_and_alert(self, user: str, now: datetime | None = None,
                             on_new_alert: Callable[[Alert], None] | None = None,
                             producer: Producer | str | None = None) -> CheckpointReport:
        """Checkpoint, then (on a new version) run every constraint and record the alert diff."""
        with self.versions.in_use():  # no forget between the two
            result = self.checkpoint(user, producer)
            alerts = manifest = None
            if isinstance(result, Published):
                # the version just published: its module is the one validated (not imported again)
                alerts = self.alerts.alerts_of(result.version, now, on_new_alert)
                manifest = self.alerts.modules.manifest_of(result.version)
        return CheckpointReport(user, result, alerts, manifest)

    def checkpoint_if_due(self, user: str, policy: CheckpointPolicy, now: datetime | None = None,
                          on_new_alert: Callable[[Alert], None] | None = None,
                          producer: Producer | str | None = None) -> CheckpointReport:
        """Checkpoint (and run constraints) when `policy` says so; otherwise report why not."""
        current = self.versions.current(user)
        new_facts = self.facts.head(user) - (current.meta.log_position if current else 0)
        age = None
        if current is not None:
            age = (datetime.now(timezone.utc) - parse_datetime(current.created_at)).total_seconds()
        if policy.due(new_facts, age):
            return self.checkpoint_and_alert(user, now, on_new_alert, producer)
        reason = f"{new_facts} new facts; the policy waits for {policy.every_facts}" if new_facts \
            else "no new facts"
        return CheckpointReport(user, Unchanged(current, reason), None)

    def watch_step(self, user: str, policy: CheckpointPolicy, clock_tick: bool = False,
                   producer: Producer | str | None = None) -> CheckpointReport:
        """What `uac watch` does per user: checkpoint if due; on a clock tick, also re-run the
        constraints when no new version came (alerts change as time passes)."""
        report = self.checkpoint_if_due(user, policy, producer=producer)
        if clock_tick and isinstance(report.result, Unchanged) and report.result.version is not None:
            return CheckpointReport(user, report.result, self.alerts.alerts(user))
        return report

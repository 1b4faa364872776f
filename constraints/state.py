"""The alert set kept between runs, as one JSON file written atomically.

Alert state is derived (it can be rebuilt by re-running the constraints), but losing it
would re-announce every alert as new, so a write never leaves a half-written file: the
new state goes to a temporary file in the same folder, is fsynced, and replaces the old
one with `os.replace` (`factlog.durable.replace_file`). A crash at any point leaves either the old or the new state.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from constraints.alert_json import alert_json
from constraints.model import SEVERITIES, Alert
from factlog.durable import replace_file
from factlog.errors import InputError
from factlog.model import JsonValue

HISTORY_LIMIT = 1000  # resolved alerts kept, newest last


class AlertStateError(InputError):
    """The state file exists but cannot be read as alert state (one line, exit 2)."""


@dataclass(frozen=True)
class ActiveAlert:
    alert: Alert
    raised_at: datetime
    raised_version: int | None


@dataclass(frozen=True)
class ResolvedAlert:
    alert: Alert  # as it was last seen active
    raised_at: datetime
    raised_version: int | None
    resolved_at: datetime
    resolved_version: int | None


@dataclass(frozen=True)
class AlertState:
    active: tuple[ActiveAlert, ...] = ()
    history: tuple[ResolvedAlert, ...] = ()
    evaluated_at: datetime | None = None
    version: int | None = None

    def alerts(self) -> tuple[Alert, ...]:
        return tuple(a.alert for a in self.active)

    @classmethod
    def load(cls, path: Path) -> AlertState:
        """The stored state; an empty state when the file does not exist yet."""
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            return cls()
        return cls.parse(data, source=str(path))

    @classmethod
    def parse(cls, data: bytes, *, source: str) -> AlertState:
        """A state file's bytes (`AlertStateError` when they are not alert state)."""
        from constraints.alert_state_file import AlertStateFile  # pydantic: only where state is read

        try:
            stored = AlertStateFile.parse(data, source=source)
        except InputError as error:
            raise AlertStateError(str(error)) from None
        return cls(
            active=tuple(ActiveAlert(a.alert.alert(), a.raised_at, a.raised_version) for a in stored.active),
            history=tuple(ResolvedAlert(h.alert.alert(), h.raised_at, h.raised_version, h.resolved_at,
                                        h.resolved_version) for h in stored.history),
            evaluated_at=stored.evaluated_at,
            version=stored.version,
        )

    def save(self, path: Path) -> None:
        from constraints.alert_state_file import AlertStateFile

        stored = AlertStateFile.model_validate({
            "evaluated_at": self.evaluated_at, "version": self.version,
            "active": [stored_entry(a) for a in self.active],
            "history": [stored_entry(h) for h in self.history[-HISTORY_LIMIT:]]})
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        replace_file(Path(path), (stored.dump(indent=1) + "\n").encode("utf-8"))


def stored_entry(entry: ActiveAlert | ResolvedAlert) -> dict[str, JsonValue]:
    """An active or resolved alert as `alerts.json` stores it (checked by its model, unless
    every value already has exactly the type the model would store: `_plain_entry`)."""
    plain = _plain_entry(entry)
    return plain if plain is not None else model_entry(entry)


def model_entry(entry: ActiveAlert | ResolvedAlert) -> dict[str, JsonValue]:
    """The entry as its pydantic model stores it (the slow path `stored_entry` may skip)."""
    from constraints.alert_state_file import AlertJson, StoredActiveAlert, StoredResolvedAlert

    alert = AlertJson.model_validate(alert_json(entry.alert))
    if isinstance(entry, ResolvedAlert):
        return StoredResolvedAlert(alert=alert, raised_at=entry.raised_at, raised_version=entry.raised_version,
                                   resolved_at=entry.resolved_at,
                                   resolved_version=entry.resolved_version).model_dump(mode="json")
    return StoredActiveAlert(alert=alert, raised_at=entry.raised_at,
                             raised_version=entry.raised_version).model_dump(mode="json")


def _version(value: object) -> bool:
    return value is None or type(value) is int


def _plain_entry(entry: ActiveAlert | ResolvedAlert) -> dict[str, JsonValue] | None:
    """`stored_entry` without pydantic, for an entry of exactly the types the models hold
    (what the built-in constraints and a state read back give); None for anything else."""
    alert = entry.alert
    if not (type(alert.id) is str and type(alert.constraint) is str and type(alert.message) is str
            and alert.severity in SEVERITIES and type(alert.severity) is str
            and type(alert.fact_ids) is tuple and all(type(i) is int for i in alert.fact_ids)
            and (alert.due is None or type(alert.due) is date)
            and type(entry.raised_at) is datetime and _version(entry.raised_version)):
        return None
    stored: dict[str, JsonValue] = {"alert": alert_json(alert), "raised_at": entry.raised_at.isoformat(),
                                    "raised_version": entry.raised_version}
    if isinstance(entry, ResolvedAlert):
        if not (type(entry.resolved_at) is datetime and _version(entry.resolved_version)):
            return None
        stored.update(resolved_at=entry.resolved_at.isoformat(), resolved_version=entry.resolved_version)
    return stored

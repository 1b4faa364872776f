"""The alert set kept between runs, as one JSON file written atomically.

Alert state is derived (it can be rebuilt by re-running the constraints), but losing it
would re-announce every alert as new, so a write never leaves a half-written file: the
new state goes to a temporary file in the same folder, is fsynced, and replaces the old
one with `os.replace` (`factlog.durable.replace_file`). A crash at any point leaves either the old or the new state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from constraints.model import SEVERITIES, Alert, Severity
from factlog.durable import replace_file
from factlog.errors import UacError
from factlog.timeparse import parse_date, parse_datetime

FORMAT = 1
HISTORY_LIMIT = 1000  # resolved alerts kept, newest last


class AlertStateError(UacError, ValueError):
    """The state file exists but cannot be read as alert state."""


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
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise AlertStateError(f"{path}: unsupported alert state format {data.get('format')!r}")
            return cls(
                active=tuple(
                    ActiveAlert(_alert(a["alert"]), _moment(a["raised_at"]), a["raised_version"])
                    for a in data["active"]
                ),
                history=tuple(
                    ResolvedAlert(
                        _alert(h["alert"]),
                        _moment(h["raised_at"]),
                        h["raised_version"],
                        _moment(h["resolved_at"]),
                        h["resolved_version"],
                    )
                    for h in data["history"]
                ),
                evaluated_at=_moment(data["evaluated_at"]) if data["evaluated_at"] else None,
                version=data["version"],
            )
        except AlertStateError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise AlertStateError(f"{path}: not valid alert state ({type(error).__name__}: {error})") from error

    def save(self, path: Path) -> None:
        data = {
            "format": FORMAT,
            "evaluated_at": self.evaluated_at.isoformat() if self.evaluated_at else None,
            "version": self.version,
            "active": [
                {"alert": _alert_json(a.alert), "raised_at": a.raised_at.isoformat(),
                 "raised_version": a.raised_version}
                for a in self.active
            ],
            "history": [
                {
                    "alert": _alert_json(h.alert),
                    "raised_at": h.raised_at.isoformat(),
                    "raised_version": h.raised_version,
                    "resolved_at": h.resolved_at.isoformat(),
                    "resolved_version": h.resolved_version,
                }
                for h in self.history[-HISTORY_LIMIT:]
            ],
        }
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        replace_file(Path(path), (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def _alert_json(alert: Alert) -> dict[str, Any]:
    return {
        "id": alert.id,
        "constraint": alert.constraint,
        "severity": alert.severity,
        "message": alert.message,
        "fact_ids": list(alert.fact_ids),
        "due": alert.due.isoformat() if alert.due else None,
    }


def _alert(data: dict[str, Any]) -> Alert:
    severity = data["severity"]
    if severity not in SEVERITIES:
        raise ValueError(f"unknown severity {severity!r}")
    checked: Severity = severity
    return Alert(
        id=str(data["id"]),
        constraint=str(data["constraint"]),
        severity=checked,
        message=str(data["message"]),
        fact_ids=tuple(int(i) for i in data["fact_ids"]),
        due=parse_date(data["due"]) if data["due"] else None,
    )


def _moment(text: object) -> datetime:
    if not isinstance(text, str):
        raise ValueError(f"expected an ISO timestamp, got {text!r}")
    return parse_datetime(text)

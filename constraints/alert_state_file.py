"""`<home>/users/<user>/alerts.json` as stored: the alert state's persisted format
(`constraints.state.AlertState` is what the runner works with)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from constraints.model import Alert, Severity
from factlog.formats import Format, IsoDate, IsoDateTime


class AlertJson(BaseModel):
    """An alert as `constraints.alert_json.alert_json` renders it, read back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    constraint: str
    severity: Severity
    message: str
    fact_ids: tuple[int, ...]
    due: IsoDate | None = None

    def alert(self) -> Alert:
        return Alert(id=self.id, constraint=self.constraint, severity=self.severity, message=self.message,
                     fact_ids=self.fact_ids, due=self.due)


class StoredActiveAlert(BaseModel):
    """An active alert in `alerts.json`: the alert, when and in which version it was raised."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    alert: AlertJson
    raised_at: IsoDateTime
    raised_version: int | None


class StoredResolvedAlert(StoredActiveAlert):
    """A resolved alert in `alerts.json`'s history: as last seen active, and when it resolved."""

    resolved_at: IsoDateTime
    resolved_version: int | None


class AlertStateFile(Format):
    """`alerts.json`. Format 1 (the only one so far) is the shape written before formats
    were models, `format: 1` included."""

    FORMAT: ClassVar[int] = 1
    evaluated_at: IsoDateTime | None
    version: int | None
    active: tuple[StoredActiveAlert, ...]
    history: tuple[StoredResolvedAlert, ...]

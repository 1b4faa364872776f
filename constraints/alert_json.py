"""An alert as JSON: the one shape `uac alerts --json`, the checkpoint report, the demo
summary and the stored alert state (`alerts.json`) all use."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from constraints.model import Alert, Severity
from factlog.formats import IsoDate
from factlog.model import JsonValue


class AlertJson(BaseModel):
    """An `Alert` as stored and printed (keys in this order)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    constraint: str
    severity: Severity
    message: str
    fact_ids: tuple[int, ...]
    due: IsoDate | None = None

    @classmethod
    def of(cls, alert: Alert) -> AlertJson:
        return cls(id=alert.id, constraint=alert.constraint, severity=alert.severity, message=alert.message,
                   fact_ids=alert.fact_ids, due=alert.due)

    def alert(self) -> Alert:
        return Alert(id=self.id, constraint=self.constraint, severity=self.severity, message=self.message,
                     fact_ids=self.fact_ids, due=self.due)


def alert_json(alert: Alert) -> dict[str, JsonValue]:
    """`alert` as JSON data: id, constraint, severity, message, fact_ids, due (ISO or null)."""
    data: dict[str, JsonValue] = AlertJson.of(alert).model_dump(mode="json")
    return data

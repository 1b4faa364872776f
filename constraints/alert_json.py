"""An alert as JSON: the one rendering `uac alerts --json`, the checkpoint report, the
demo summary and the stored alert state (`alerts.json`) all use. (Reading it back is
`constraints.alert_state_file.AlertJson`.)"""

from __future__ import annotations

from constraints.model import Alert
from factlog.model import JsonValue


def alert_json(alert: Alert) -> dict[str, JsonValue]:
    """`alert` as JSON data: id, constraint, severity, message, fact_ids, due (ISO or null)."""
    return {"id": alert.id, "constraint": alert.constraint, "severity": alert.severity,
            "message": alert.message, "fact_ids": list(alert.fact_ids),
            "due": alert.due.isoformat() if alert.due else None}

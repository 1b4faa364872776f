"""What an agent is told about a user's module: the agent manifest of a version
(`codegen.agent_manifest`) with the alerts the constraints left active.

The alerts are those the last constraint run recorded (`alerts.json`, or PostgreSQL's; read, never
written: a manifest changes nothing); `alerts_version` says which version that run saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegen.agent_manifest import DEFAULT_LIMIT, agent_manifest, agent_manifest_data
from codegen.manifest import Manifest
from constraints import Alert
from constraints.state import AlertState


def alert_line(alert: Alert) -> str:
    """`warning passport_expiry: Passport expires 2031-04-30 (due 2031-01-30) [facts 1]`."""
    due = f" (due {alert.due.isoformat()})" if alert.due else ""
    facts = f" [facts {', '.join(map(str, alert.fact_ids))}]" if alert.fact_ids else ""
    return f"{alert.severity} {alert.constraint}: {alert.message}{due}{facts}"


@dataclass(frozen=True)
class AgentContext:
    user: str
    version: int
    text: str  # the agent manifest, within its limit
    data: dict[str, object]  # the same, nothing cut
    alerts_version: int | None  # the version the last constraint run saw (None: never run)

    def to_json(self) -> dict[str, object]:
        return {"user": self.user, **self.data, "alerts_version": self.alerts_version, "text": self.text}


def agent_context(user: str, version: int, manifest: Manifest, state: AlertState,
                  limit: int = DEFAULT_LIMIT) -> AgentContext:
    """The agent manifest of `manifest` (version `version`) with the active alerts of the
    recorded alert `state`."""
    alerts = [alert_line(a) for a in state.alerts()]
    return AgentContext(user, version, agent_manifest(manifest, version=version, alerts=alerts, limit=limit),
                        agent_manifest_data(manifest, version=version, alerts=alerts), state.version)

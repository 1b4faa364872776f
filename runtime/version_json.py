"""Versions as JSON, one shape for `uac history/diff --json` and the agent tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runtime.memory import Memory
    from users.diff import ModuleDiff


def summary_json(summary: tuple[dict[str, int], dict[int, str]]) -> dict[str, object]:
    """A version's record counts and quarantine as `meta.json` listed them (keys sorted)."""
    counts, quarantined = summary
    return {"record_counts": dict(sorted(counts.items())),
            "quarantined": dict(sorted((str(k), v) for k, v in quarantined.items()))}


def history_json(mem: Memory, user: str) -> list[dict[str, object]]:
    """The user's versions, oldest first, each with its counts and whether it is current;
    NotFound for a user the workspace never heard of."""
    mem.require_user(user)
    current = mem.versions.current(user)
    return [{**v.to_json(), **summary_json(mem.versions.summary(v)),
             "current": current is not None and v.number == current.number} for v in mem.versions.history(user)]


def diff_json(a: int, b: int, result: ModuleDiff) -> dict[str, object]:
    """What changed from version `a` to `b` (0: the first version, against nothing)."""
    return {"from": a, "to": b, **result.to_json()}

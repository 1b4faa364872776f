"""Anchors: each version records the log position it was built from and the chain hash of
the fact there (`PublishMeta.log_hash`). The log must still hold that fact with that hash;
if not, facts were deleted or the log was rewritten after the version was published."""

from __future__ import annotations

from factlog.errors import NotFound
from factlog.store import FactStore
from users.store import VersionStore


def anchor_problems(versions: VersionStore, facts: FactStore, user: str) -> list[tuple[int, str]]:
    """(version, problem) for every stored version whose anchor the log no longer holds.
    Versions published before anchors existed (no `log_hash`) are skipped: unanchored."""
    problems: list[tuple[int, str]] = []
    for info in versions.history(user):
        position, expected = info.meta.log_position, info.meta.log_hash
        if expected is None or position == 0:
            continue
        try:
            found = facts.get(user, position).hash
        except NotFound:
            problems.append((info.number, f"it was built from the log up to fact {position}, which the log "
                                          "no longer holds (facts were deleted)"))
            continue
        if found != expected:
            problems.append((info.number, f"the log's fact {position} is not the one it was built from "
                                          f"(hash {found[:12]}, anchored {expected[:12]}): the log was rewritten"))
    return problems


def unanchored(versions: VersionStore, user: str) -> list[int]:
    """Versions whose metadata predates anchors."""
    return [info.number for info in versions.history(user) if info.meta.log_hash is None]

"""A user's published versions as the API reads them: the loaded modules (one cached per
version), what a query sees, diffs, rollback and the versions' integrity against the log."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Callable, Mapping

from factlog.errors import NotFound
from factlog.model import Fact, JsonValue
from factlog.store import FactStore
from users.store import VersionStore
from users.versions import VersionInfo

if TYPE_CHECKING:  # diffs, anchors and manifests load when asked for: a query needs none
    from codegen.manifest import Manifest
    from users.diff import ModuleDiff
    from users.gc import GcReport


class VersionsService:
    def __init__(self, facts: FactStore, versions: VersionStore) -> None:
        self.facts = facts
        self.versions = versions
        # Keyed by the files' hash too: a user forgotten and re-created (by any process) numbers
        # versions from 1 again, and must never be served the old user's module.
        self._modules: dict[tuple[str, int, str], ModuleType] = {}

    def forget(self, user: str) -> None:
        """Drop the user's loaded modules (the forget itself is coordinated by `Forgetting`)."""
        self._modules = {k: v for k, v in self._modules.items() if k[0] != user}

    def info(self, user: str, version: int | str | None = None) -> VersionInfo:
        """The version (current by default); NotFound when the user has published none."""
        info = self.versions.current(user) if version is None else self.versions.get(user, version)
        if info is None:
            raise NotFound(f"user {user!r} has no published version yet: run `uac checkpoint {user}`")
        return info

    def module(self, user: str, version: int | str | None = None) -> ModuleType:
        """The user's typed module (current version by default); cached per version."""
        return self.module_of(self.info(user, version))

    def module_of(self, info: VersionInfo) -> ModuleType:
        """The module of a version already read (its metadata is not read again)."""
        key = (info.user, info.number, info.files_sha256)
        if key in self._modules:
            self.versions.check(info)  # a stat per file while nothing changed
        else:
            self._modules[key] = self.versions.load_info(info)  # the validated module, if just published
        return self._modules[key]

    def manifest(self, user: str, version: int | str | None = None) -> Manifest:
        """The version's manifest (current version by default): its classes, collections and
        records as data, read without importing the version."""
        return self.manifest_of(self.info(user, version))

    def manifest_of(self, info: VersionInfo) -> Manifest:
        return self.versions.manifest_of(info, self._facts_by_id(info.user))

    def _facts_by_id(self, user: str) -> Callable[[], Mapping[int, Fact]]:
        """The log's facts by id, read when called (for versions written before manifests)."""
        return lambda: {f.id: f for f in self.facts.facts(user)}

    def namespace(self, user: str, version: int | str | None = None) -> dict[str, object]:
        """What a query sees: the module's public names (records, lists, classes)."""
        return module_namespace(self.module(user, version))

    def rollback(self, user: str, version: int | str) -> VersionInfo:
        return self.versions.rollback(user, version)

    def diff(self, user: str, a: int | str | None = None, b: int | str | None = None) -> ModuleDiff:
        """What changed from version `a` to `b` (default: the current version against its
        parent). A first version, which has no parent, is diffed against nothing: every
        class and record shows as added."""
        from users.diff import diff_manifests, diff_versions

        a_num, b_num = self.diff_pair(user, a, b)
        if a_num == 0:
            new = self.versions.get(user, b_num)
            return diff_manifests(None, self.manifest_of(new), retractions=new.meta.retractions)
        return diff_versions(self.versions, user, a_num, b_num, self._facts_by_id(user))

    def diff_pair(self, user: str, a: int | str | None, b: int | str | None) -> tuple[int, int]:
        """Default: the current version against its parent; 0 (nothing) for a first version."""
        if b is None:
            current = self.versions.current(user)
            if current is None:
                raise NotFound(f"user {user!r} has no published version")
            b_num = current.number
        else:
            b_num = self.versions.get(user, b).number
        if a is None:
            parent = self.versions.get(user, b_num).parent
            return (0 if parent is None else parent), b_num
        if a in (0, "0", "v0"):  # nothing: the state before the first version
            return 0, b_num
        return self.versions.get(user, a).number, b_num

    def gc(self, user: str, keep: int | None) -> GcReport:
        """Remove the user's versions beyond the newest `keep` and the blobs nothing links."""
        report = self.versions.gc(user, keep)
        removed = set(report.versions)
        self._modules = {k: v for k, v in self._modules.items() if not (k[0] == user and k[1] in removed)}
        return report

    def version_problems(self, user: str | None = None) -> list[dict[str, JsonValue]]:
        """Every stored version (of `user`, or of everyone) whose files no longer match the
        hash recorded at publish, or whose anchor the log no longer holds."""
        from users.anchors import anchor_problems

        problems: list[dict[str, JsonValue]] = []
        for name in [user] if user else self.versions.users():
            found = self.versions.verify(name) + anchor_problems(self.versions, self.facts, name)
            problems += [{"user": name, "version": number, "reason": why} for number, why in sorted(found)]
        return problems


def module_namespace(module: ModuleType) -> dict[str, object]:
    """A module's public names (records, lists, classes), without the modules it imported."""
    return {k: v for k, v in vars(module).items()
            if not k.startswith("_") and not isinstance(v, ModuleType)}

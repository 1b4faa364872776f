"""Queries over a user's module: one forked worker per user holds the version in use."""

from __future__ import annotations

from runtime.query_worker import QueryWorker
from runtime.safe_eval import QueryResult
from runtime.versions_service import VersionsService, module_namespace
from users.store import VersionStore


class QueryService:
    def __init__(self, versions: VersionStore, modules: VersionsService) -> None:
        self.versions = versions
        self.modules = modules
        self._workers: dict[tuple[str, int, str], QueryWorker] = {}

    def close(self) -> None:
        for worker in self._workers.values():
            worker.close()
        self._workers.clear()

    def forget(self, user: str) -> None:
        """Stop the user's worker (the forget itself is coordinated by `Forgetting`)."""
        for key in [k for k in self._workers if k[0] == user]:
            self._workers.pop(key).close()

    def query(self, user: str, expression: str, version: int | str | None = None) -> QueryResult:
        """Evaluate a safe expression in a forked worker that holds the module: the in-process
        guards bound ordinary work, the worker's kill and RLIMIT_AS bound the rest."""
        info = self.modules.info(user, version)
        key = (user, info.number, info.files_sha256)
        self.versions.check(info)  # also when a worker already holds the module
        worker = self._workers.get(key)
        if worker is None:
            for stale in [k for k in self._workers if k[0] == user]:
                self._workers.pop(stale).close()  # one worker per user: the version in use
            worker = self._workers[key] = QueryWorker(module_namespace(self.modules.module_of(info)))
        return worker.run(expression)

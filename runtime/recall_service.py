"""Recall: the derived index kept in step with the log and the current version, then asked.
A code expression's answer (a query) comes first when one is given."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from runtime.facts_service import FactsService
from runtime.query_service import QueryService
from runtime.recall import CodeAnswer, RecallResult, code_answer, recall
from runtime.recall_index import RecallIndex, record_texts
from runtime.versions_service import VersionsService
from users.store import VersionStore


class RecallService:
    """`index_db` is the derived index (`<home>/index.db`): rebuildable, never the truth."""

    def __init__(self, index_db: Path, facts: FactsService, versions: VersionStore,
                 modules: VersionsService, queries: QueryService) -> None:
        self.index_db = index_db
        self.facts = facts
        self.versions = versions
        self.modules = modules
        self.queries = queries

    def forget(self, user: str) -> None:
        """Erase the user from the index (the forget itself is coordinated by `Forgetting`)."""
        if self.index_db.exists():
            with RecallIndex(self.index_db) as index:
                index.forget(user)

    def recall(self, user: str, question: str, *, expression: str | None = None,
               max_items: int = 8, max_chars: int = 2000, max_ms: float = 50,
               kinds: list[str] | None = None, since: date | None = None,
               until: date | None = None, session: str | None = None, widen: bool = True) -> RecallResult:
        self.facts.require_user(user)
        with self.versions.in_use():
            # Everything that can refuse runs before the derived index is written.
            code = None if expression is None else self._code_answer(user, expression)
            with RecallIndex(self.index_db) as index:
                index.sync_facts(user, self.facts.log(user, after=index.last_fact_id(user)))
                current = self.versions.current(user)
                if current is not None and index.record_version(user) != current.number:
                    index.set_records(user, current.number,
                                      record_texts(self.modules.manifest_of(current)))
                return recall(index, user, question, code_answer=code, max_items=max_items,
                              max_chars=max_chars, max_ms=max_ms, kinds=kinds, since=since,
                              until=until, session=session, widen=widen)

    def _code_answer(self, user: str, expression: str) -> CodeAnswer:
        return code_answer(expression, self.queries.query(user, expression), self.modules.namespace(user))

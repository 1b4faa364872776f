"""`Memory` is a facade over small services, and everything above the fact log is typed
against the `FactStore` protocol: no package but the store factory names the SQLite class,
and a whole session through `Memory` calls nothing on its store the protocol does not have."""

from __future__ import annotations

import ast
import typing
from datetime import datetime, timezone
from pathlib import Path

import pytest

from factlog.errors import InputError
from factlog.model import NewFact
from factlog.sqlite import SqliteFactStore
from factlog.store import FactStore
from factlog.stores import open_store
from runtime.memory import Memory
from runtime.safe_eval import QuerySuccess
from runtime.workspace import Workspace
from users.checkpoint import Published

REPO = Path(__file__).resolve().parents[1]
MEMBERS = frozenset(name for name in vars(FactStore) if not name.startswith("_")) - set(dir(typing.Protocol))


def imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return names


def test_only_the_store_factory_names_the_sqlite_store() -> None:
    naming = sorted(str(path.relative_to(REPO)) for package in ("codegen", "users", "constraints", "runtime", "factlog")
                    for path in (REPO / package).glob("*.py")
                    if any(name.startswith("factlog.sqlite") for name in imported_names(path)))
    assert naming == ["factlog/stores.py"]


def test_the_protocol_has_every_public_method_of_the_sqlite_store() -> None:
    public = {name for name in vars(SqliteFactStore) if not name.startswith("_")}
    assert public - MEMBERS == set()


class ProtocolOnly:
    """A store that answers only to the protocol's members (and records which were used)."""

    def __init__(self, inner: FactStore) -> None:
        self._inner = inner
        self.used: set[str] = set()

    def __getattr__(self, name: str) -> object:
        if name not in MEMBERS:
            raise AttributeError(f"{name!r} is not part of the FactStore protocol")
        self.used.add(name)
        return getattr(self._inner, name)


def test_a_whole_session_uses_nothing_but_the_protocol(home: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[ProtocolOnly] = []
    real_open = Workspace.open_facts

    def open_facts(self: Workspace) -> FactStore:
        opened.append(ProtocolOnly(real_open(self)))
        return typing.cast(FactStore, opened[-1])

    monkeypatch.setattr(Workspace, "open_facts", open_facts)
    records = tmp_path / "trips.jsonl"
    records.write_text('{"id": "t1", "destination": "Oslo", "cost_usd": 900}\n'
                       '{"id": "t2", "destination": "Rome", "cost_usd": 700}\n', encoding="utf-8")
    mem = Memory.open(home)
    try:
        mem.add("alice", "I like green tea")
        assert mem.ingest_records("alice", records, "trip", "id").last_id == 3
        assert mem.ingest_records("alice", records, "trip", "id").skipped == 2
        mem.retract("alice", 1, "not any more")
        assert isinstance(mem.checkpoint("alice"), Published)
        assert mem.alerts("alice", datetime(2026, 1, 1, tzinfo=timezone.utc)).errors == ()
        result = mem.query("alice", "sum(t.cost_usd for t in trips)")
        assert isinstance(result, QuerySuccess) and result.value == 1600
        assert mem.recall("alice", "Oslo").items
        assert mem.diff("alice").classes and mem.version_problems() == [] and mem.verify("alice").ok
        export = tmp_path / "alice.jsonl"
        assert mem.export(export) == 4 == len(list(mem.log("alice")))
        other = Memory.open(tmp_path / "other")
        try:
            assert other.import_(export) == 4 and other.users() == ["alice"]
        finally:
            other.close()
        assert mem.forget("alice") == 4 and mem.users() == []
    finally:
        mem.close()
    used = set().union(*(store.used for store in opened))
    assert {"append", "append_sourced", "import_facts", "facts", "all_facts", "get", "head", "knows",
            "users", "forget", "verify", "close"} <= used


def test_open_store_takes_a_path_or_a_sqlite_url(tmp_path: Path) -> None:
    by_path = open_store(tmp_path / "a.db")
    by_url = open_store(f"sqlite://{tmp_path / 'a.db'}")
    try:
        by_path.append("alice", [NewFact("one")])
        assert [f.text for f in by_url.facts("alice")] == ["one"]
    finally:
        by_path.close()
        by_url.close()


@pytest.mark.parametrize("location, message", [
    ("mysql://x/y", "unknown fact store mysql://"),
    ("sqlite://server/path.db", "names a local file"),
])
def test_open_store_refuses_a_store_it_does_not_have(location: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        open_store(location)
    assert "\n" not in str(caught.value)

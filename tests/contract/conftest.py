"""The contract suite runs every test once per store implementation (`contract.store_kits.STORE_FACTORIES`)."""

from __future__ import annotations

from typing import Callable, Iterator

import pytest

from contract.store_kits import STORE_FACTORIES, StoreKit
from factlog.store import FactStore


@pytest.fixture(params=STORE_FACTORIES, ids=lambda factory: factory.__name__.removesuffix("_kit"))
def new_kit(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], StoreKit]]:
    """Makes new, empty stores of the implementation under test (closed when the test ends).
    A kit that needs the PostgreSQL server asks for it (the `pg_server` fixture, which skips
    the test, with its reason, where no server can be started)."""
    made: list[StoreKit] = []

    def server() -> object:
        return request.getfixturevalue("pg_server")

    def make() -> StoreKit:
        made.append(request.param(tmp_path_factory.mktemp("store"), server))
        return made[-1]

    yield make
    for kit in made:
        kit.close_all()


@pytest.fixture
def kit(new_kit: Callable[[], StoreKit]) -> StoreKit:
    return new_kit()


@pytest.fixture
def store(kit: StoreKit) -> FactStore:
    """One connection to a new, empty store (this overrides the SQLite-only `store` fixture)."""
    return kit.open()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The real-process races on PostgreSQL take a minute on a shared machine: they run with
    the slow tests (`-m slow`); `tests/test_pg_faults.py` keeps a small multi-process race in
    the default run."""
    for item in items:
        if "test_contract_processes" in item.nodeid and "[postgres]" in item.nodeid:
            item.add_marker(pytest.mark.slow)

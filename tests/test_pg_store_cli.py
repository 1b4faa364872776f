"""`uac --store postgresql://…` (and `UAC_STORE`): the fact log in PostgreSQL, everything else
in the home; a bad or unreachable store is exit 2 with one line, its password redacted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from pg_server import free_port

Uac = Callable[..., Any]


@pytest.mark.slow  # a checkpoint runs the compiler and mypy
def test_add_log_checkpoint_query_on_postgres(uac: Uac, pg_url: str, tmp_path: Path) -> None:
    for text, destination, cost in (("Flying to Tokyo", "Tokyo", "1200"), ("Train to Kyoto", "Kyoto", "80")):
        r = uac("--store", pg_url, "add", "alice", text, "--kind", "trip", "--field", f"destination={destination}",
                "--field", f"cost_usd={cost}", "--json")
        assert r.code == 0, r.err
    log = json.loads(uac("--store", pg_url, "log", "alice", "--json").out)
    assert [f["id"] for f in log] == [1, 2]
    home = Path(str(tmp_path / "uac-home"))
    assert not (home / "facts.db").exists()  # the log is in PostgreSQL, not in the home
    r = uac("--store", pg_url, "checkpoint", "alice")
    assert r.code == 0, r.err
    r = uac("--store", pg_url, "query", "alice", "sum(t.cost_usd for t in trips)")
    assert r.code == 0, r.err
    assert float(r.out.strip()) == 1280
    assert json.loads(uac("--store", pg_url, "verify", "--json").out)["ok"] is True
    assert "Tokyo" not in uac("log", "alice").out  # without --store: the home's own log, empty


def test_uac_store_from_the_environment(uac: Uac, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UAC_STORE", pg_url)
    assert uac("add", "bob", "hello").code == 0
    assert json.loads(uac("users", "--json").out) == [{"user": "bob", "facts": 1}]
    monkeypatch.delenv("UAC_STORE")
    assert uac("--store", pg_url, "log", "bob").out.count("hello") == 1


@pytest.mark.parametrize("store, message", [
    ("postgresql://alice:s3cret@127.0.0.1:{port}/db", "cannot reach PostgreSQL at postgresql://alice:***@127.0.0.1"),
    ("mysql://x@localhost/db", "unknown fact store mysql://"),
    (" ", "the fact store (--store) is empty"),
])
def test_a_bad_or_unreachable_store_is_one_line_and_exit_2(uac: Uac, store: str, message: str,
                                                           tmp_path: Path) -> None:
    r = uac("--store", store.format(port=free_port()), "add", "alice", "hello")
    assert r.code == 2
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.err
    assert "s3cret" not in r.err + r.out
    assert not (tmp_path / "uac-home" / "facts.db").exists()

"""Shared fixtures: every test gets its own workspace."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from pg_server import NoServer, PgServer
from scripted_llm import ScriptedLLM

from factlog.sqlite import SqliteFactStore
from runtime.memory import Memory

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data" / "book_eval_layer1"
MISSING_DATA = "test data not found"  # every skip for lack of data says this


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """With UAC_REQUIRE_DATA=1 (CI sets it), a test skipped for lack of data fails instead."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("UAC_REQUIRE_DATA") == "1" and MISSING_DATA in str(report.longrepr):
        report.outcome = "failed"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One throwaway PostgreSQL server for the whole run (tests/pg_server.py), started on first
    use. Tests that need it skip with the reason when none can be started here, unless
    UAC_REQUIRE_POSTGRES=1 (CI sets it): then they fail."""
    try:
        server = PgServer.start()
    except NoServer as exc:
        if os.environ.get("UAC_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"no PostgreSQL server could be started: {exc}")
        pytest.skip(f"no PostgreSQL server could be started: {exc}")
    yield server
    server.destroy()


_pg_databases = iter(range(1, 1_000_000))


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a new, empty database on the test server (one per test)."""
    return pg_server.create_database(f"uac_test_{os.getpid()}_{next(_pg_databases)}")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point UAC_HOME at a fresh folder; no test sees a real API key, endpoint or model, and
    no model request can leave this machine (UAC_ALLOW_MODEL_REQUESTS=0: only 127.0.0.1,
    localhost and ::1 are reachable, as the scripted server is); `uac` starts no warm worker
    (UAC_WARM=off: the tests that want one say so)."""
    home = tmp_path / "uac-home"
    monkeypatch.setenv("UAC_HOME", str(home))
    monkeypatch.setenv("UAC_WARM", "off")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("UAC_MODEL", raising=False)
    monkeypatch.setenv("UAC_ALLOW_MODEL_REQUESTS", "0")
    return home


@pytest.fixture
def scripted_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLM]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (tests/scripted_llm.py), with
    OPENAI_BASE_URL and UAC_MODEL pointing at it (subprocesses inherit them)."""
    with ScriptedLLM() as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.url)
        monkeypatch.setenv("UAC_MODEL", llm.model)
        yield llm


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    return _isolated_home


@pytest.fixture
def mem(home: Path) -> Iterator[Memory]:
    """The workspace at `home` (a module may override `home`, e.g. with a cloned one), opened."""
    m = Memory.open(home)
    yield m
    m.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteFactStore]:
    s = SqliteFactStore(tmp_path / "facts.db")
    yield s
    s.close()


@dataclass
class CliResult:
    code: int
    out: str
    err: str


def one_error_line(r: CliResult, *needles: str) -> None:
    """The command failed as a usage error: exit 2, one `error: ...` line naming every needle."""
    assert r.code == 2, (r.code, r.out, r.err)
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert "Traceback" not in r.err + r.out
    for needle in needles:
        assert needle in r.err, r.err


@pytest.fixture
def uac(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Run the real `uac` entry point in-process: `uac("add", "alice", "text")`."""
    from runtime import cli

    def run(*args: str) -> CliResult:
        monkeypatch.setattr(sys, "argv", ["uac", *args])
        code = 0
        try:
            cli.main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared {MISSING_DATA} at {SHARED_DATA}")
    return SHARED_DATA

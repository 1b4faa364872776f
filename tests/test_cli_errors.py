"""The error contract of `uac`: a bad input or usage exits 2 with ONE line and writes nothing;
an unexpected error exits 1 with one line and a hint (`--debug` adds the traceback); with
`--json` the error is also a JSON document on stdout. Each case below printed a traceback,
wrote something, or exited 0 silently before."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from conftest import one_error_line
from uac_home import USER, clone_home

import runtime.memory
from runtime.workspace import Workspace

Uac = Callable[..., Any]
REPO = Path(__file__).resolve().parents[1]
UAC = REPO / ".venv" / "bin" / "uac"
HUGE = "1" + "0" * 22  # 23 digits: more than SQLite's INTEGER holds


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (the SQLite side files aside), by relative path."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "home")


def test_fact_ids_too_large_for_sqlite_are_usage_errors(uac: Uac, home: Path) -> None:
    before = tree(home)
    for args in (("retract", USER, HUGE), ("log", USER, "--after", HUGE), ("log", USER, "--limit", HUGE),
                 ("retract", USER, "0"), ("log", USER, "--after", "-1"), ("retract", USER, "x")):
        one_error_line(uac("--home", str(home), *args), "(see `uac")
    assert tree(home) == before


def test_log_limit_zero_shows_no_facts(uac: Uac, home: Path) -> None:
    assert json.loads(uac("--home", str(home), "log", USER, "--limit", "0", "--json").out) == []
    last = json.loads(uac("--home", str(home), "log", USER, "--limit", "2", "--json").out)
    assert [f["id"] for f in last] == [5, 6]


def test_export_into_a_missing_folder_onto_a_folder_or_into_the_workspace(uac: Uac, home: Path,
                                                                          tmp_path: Path) -> None:
    before = tree(home)
    one_error_line(uac("--home", str(home), "export", str(tmp_path / "missing" / "x.jsonl")), "does not exist")
    one_error_line(uac("--home", str(home), "export", str(tmp_path)), "is a folder")
    one_error_line(uac("--home", str(home), "export", str(home / "facts.db")), "inside the workspace")
    one_error_line(uac("--home", str(home), "export", str(home / "users" / "x.jsonl")), "inside the workspace")
    one_error_line(uac("--home", str(home), "export", str(tmp_path / "x.jsonl"), "--user", "nobody"),
                   "no such user")
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # like /dev/null: an atomic replace would swap it for a plain file
    one_error_line(uac("--home", str(home), "export", str(pipe)), "not a regular file")
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert tree(home) == before and not (tmp_path / "missing").exists() and not (tmp_path / "x.jsonl").exists()
    assert uac("--home", str(home), "export", str(tmp_path / "x.jsonl")).code == 0


def test_home_that_is_a_file_below_a_file_or_empty(uac: Uac, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("not a folder")
    for home, needle in (("file", "not a folder"), ("file/below", "not a folder"), ("", "empty"), (" ", "empty")):
        for command in (("users",), ("add", "alice", "hi"), ("demo",)):
            one_error_line(uac("--home", home, *command), needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # no ./facts.db, nothing at all
    assert (tmp_path / "file").read_text() == "not a folder"


def test_unknown_user_is_not_an_empty_user(uac: Uac, home: Path) -> None:
    for command in ("log", "history", "diff"):
        one_error_line(uac("--home", str(home), command, "alicia"), "no such user 'alicia'")
    r = uac("--home", str(home), "log", "alicia", "--json")
    assert r.code == 2 and json.loads(r.out) == {"error": "no such user 'alicia' (see `uac users`)", "exit": 2}
    assert uac("--home", str(home), "add", "bob", "hi").code == 0  # facts but no version yet: known
    assert json.loads(uac("--home", str(home), "history", "bob", "--json").out) == []


def test_reading_commands_never_create_a_workspace(uac: Uac, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    r = uac("--home", str(missing), "users", "--json")
    assert r.code == 0 and json.loads(r.out) == []
    assert json.loads(uac("--home", str(missing), "verify", "--json").out)["ok"] is True
    one_error_line(uac("--home", str(missing), "log", "alice"), "no such user")
    assert not missing.exists()


def test_usage_errors_are_one_line_exit_2(uac: Uac, home: Path) -> None:
    one_error_line(uac("--home", str(home), "--bogus"), "No such option: --bogus", "`uac --help`")
    one_error_line(uac("--home", str(home), "log"), "Missing argument", "`uac log --help`")
    one_error_line(uac("--home", str(home), "nosuchcommand"), "No such command")
    one_error_line(uac("--home", str(home), "log", USER, "--after", "soon"), "--after")
    r = uac("--home", str(home), "log", "--json")
    assert r.code == 2 and json.loads(r.out)["exit"] == 2 and "Missing argument" in json.loads(r.out)["error"]


def test_unexpected_error_is_one_line_exit_1_and_debug_shows_the_traceback(
        uac: Uac, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the disk\nis on fire")

    monkeypatch.setattr(runtime.memory.Memory, "log", broken)
    r = uac("--home", str(home), "log", USER)
    assert r.code == 1 and r.out == "" and "Traceback" not in r.err
    assert r.err == ("unexpected error: RuntimeError: the disk is on fire; "
                     "run again with --debug for the traceback\n")
    r = uac("--home", str(home), "log", USER, "--json")
    assert r.code == 1 and json.loads(r.out)["exit"] == 1 and "RuntimeError" in json.loads(r.out)["error"]
    for args in (("--debug", "--home", str(home), "log", USER), ("--home", str(home), "log", USER, "--debug")):
        r = uac(*args)
        assert r.code == 1 and "Traceback" in r.err and "the disk" in r.err
        assert r.err.splitlines()[-1].startswith("unexpected error: RuntimeError")


def test_input_errors_stay_exit_2_and_help_still_works(uac: Uac, home: Path) -> None:
    r = uac("--home", str(home), "add", "../x", "hi", "--json")
    assert r.code == 2 and "user id" in json.loads(r.out)["error"] and r.err.count("\n") == 1
    r = uac("--help")
    assert r.code == 0 and "--debug" in r.out and "Usage" in r.out


def test_messages_are_one_bounded_line() -> None:
    from runtime.cli import MAX_MESSAGE, one_line

    assert one_line("a\nb\r\nc\u2028d") == "a b c d"
    assert len(one_line("x" * 100_000)) == MAX_MESSAGE
    assert one_line("") == "(no message)"


# -- a read-only workspace: the reading commands work ---------------------------------------

SETPRIV = shutil.which("setpriv")


@pytest.fixture
def read_only_home(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Iterator[Path]:
    """A seeded workspace nobody may write: every file and folder without write permission."""
    home = clone_home(tmp_path_factory, tmp_path / "home")
    Workspace.at(home).open_facts().close()  # fold any WAL into facts.db, as a closed workspace is
    for path in [home, *home.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        yield home
    finally:
        for path in [home, *home.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def run_unprivileged(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`uac` without the capabilities that let root write anyway (same user, no CAP_DAC_*)."""
    drop = [SETPRIV, "--bounding-set=-all", "--inh-caps=-all"] if os.geteuid() == 0 and SETPRIV else []
    return subprocess.run([*drop, str(UAC), "--home", str(home), *args], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.skipif(not UAC.exists(), reason="the uac console script is not installed in .venv")
@pytest.mark.skipif(os.geteuid() == 0 and not SETPRIV, reason="root writes anyway; setpriv drops that")
def test_read_only_workspace_reads_and_refuses_writes_in_one_line(read_only_home: Path) -> None:
    before = tree(read_only_home)
    for args in (("log", USER), ("users",), ("verify",), ("history", USER), ("show", USER), ("diff", USER),
                 ("query", USER, "len(trips)")):
        r = run_unprivileged(read_only_home, *args)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    assert run_unprivileged(read_only_home, "query", USER, "len(trips)").stdout.strip() == "3"
    r = run_unprivileged(read_only_home, "add", USER, "hi")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "read-only" in r.stderr, (r.stdout, r.stderr)
    assert tree(read_only_home) == before


def test_the_api_keeps_the_same_rules_as_the_cli(home: Path, tmp_path: Path) -> None:
    """The CLI's checks live in the layers below it, so a Python caller gets them too."""
    from factlog.errors import InputError, NotFound
    mem = runtime.memory.Memory.open(home)
    before = tree(home)
    try:
        with pytest.raises(NotFound):
            mem.retract(USER, int(HUGE))
        with pytest.raises(InputError, match="not a regular file"):
            fifo = tmp_path / "pipe"
            os.mkfifo(fifo)
            mem.export(fifo)
        with pytest.raises(InputError, match="inside the workspace"):
            mem.export(home / "facts.jsonl")
        assert list(mem.log(USER, after=int(HUGE))) == []
    finally:
        mem.close()
    assert tree(home) == before


def test_a_pipe_is_not_read_as_a_record_file(uac: Uac, home: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "records.jsonl"
    os.mkfifo(fifo)  # nobody writes it: reading it would block forever
    before = tree(home)
    one_error_line(uac("--home", str(home), "ingest", USER, str(fifo), "--kind", "trip"), "not a regular file")
    one_error_line(uac("--home", str(home), "import", str(fifo)), "not a regular file")
    assert tree(home) == before


def test_checkpoint_of_an_unknown_user_is_refused(uac: Uac, home: Path) -> None:
    before = tree(home)
    one_error_line(uac("--home", str(home), "checkpoint", "alicia"), "no such user 'alicia'")
    assert tree(home) == before


def test_ctrl_c_is_one_line_not_a_traceback(uac: Uac, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runtime.memory.Memory, "log", interrupted)
    r = uac("--home", str(home), "log", USER)
    assert (r.code, r.err) == (1, "error: interrupted\n")


def test_recall_refuses_before_it_writes_its_index(uac: Uac, home: Path) -> None:
    """A refused recall (unknown user, or an --expr the sandbox refuses) leaves the derived
    index as it was: every check runs before the index is synced."""
    before = tree(home)
    one_error_line(uac("--home", str(home), "recall", "alicia", "trips"), "no such user 'alicia'")
    one_error_line(uac("--home", str(home), "recall", USER, "trips", "--expr", "__import__('os')"), "--expr")
    assert tree(home) == before


@pytest.mark.parametrize(("question", "needle"), [
    ("", "question: empty"), ("   \n", "question: empty"), ("trips\x00", "U+0000 at position 5"),
    ("all my \x1b[31mtrips", "U+001B"), ("trip " * 5000, "over the limit of 20000"),
])
def test_recall_refuses_a_bad_question_in_one_line(uac: Uac, home: Path, question: str, needle: str) -> None:
    before = tree(home)
    one_error_line(uac("--home", str(home), "recall", USER, question), needle)
    assert tree(home) == before

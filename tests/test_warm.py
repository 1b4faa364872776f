"""The warm worker (runtime.warm_server) and `uac`'s routing to it (runtime.warm_client).

Real processes throughout: `uac` runs as a subprocess, the worker as the detached process
`uac` starts. Every test that starts a worker stops it (and kills it if it will not stop).
No timing assertions: the tests check output bytes, exit codes, what the worker says it
served, and what the log and version store hold.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from uac_home import USER, clone_home

from runtime import warm_client, warm_wire

REPO = Path(__file__).resolve().parents[1]
UAC = [sys.executable, "-c", "from runtime.cli import main; main()"]
WAIT_S = 120.0  # a generous bound for a worker to come or go on a loaded machine (not a measurement)


def uac(home: Path, *args: str, warm: str = "off", cwd: Path = REPO,
        extra: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "UAC_HOME": str(home), "UAC_WARM": warm, **(extra or {})}
    done = subprocess.run([*UAC, *args], capture_output=True, cwd=cwd, env=env, timeout=600)
    return done.returncode, done.stdout, done.stderr


def status(home: Path) -> dict[str, object] | None:
    return warm_client.status(home)


def served(home: Path) -> int:
    found = status(home)
    assert found is not None, "no worker answers"
    return int(found["served"])  # type: ignore[call-overload]


def wait_for(check: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def stop_worker(home: Path) -> None:
    """Stop the workspace's worker, and any worker of it still starting (a command that
    found its worker dead starts the next one in the background)."""
    found = status(home)
    pid = warm_client.stop(home)
    for p in {pid, found.get("pid") if found else None, *workers_of(home)} - {None}:
        try:
            os.kill(int(p), signal.SIGKILL)  # type: ignore[arg-type]
        except ProcessLookupError:
            pass


def workers_of(home: Path) -> list[int]:
    """The pids of the warm workers started for `home` (read from /proc; none elsewhere)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"runtime.warm_server" in argv and str(home).encode() in argv:
            found.append(int(entry.name))
    return found


@pytest.fixture
def seeded(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Iterator[Path]:
    home = clone_home(tmp_path_factory, tmp_path / "w")
    yield home
    stop_worker(home)


@pytest.fixture
def twin(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Iterator[Path]:
    home = clone_home(tmp_path_factory, tmp_path / "t")
    yield home
    stop_worker(home)


def start(home: Path) -> dict[str, object]:
    code, out, err = uac(home, "warm", "start", "--user", USER, "--json", warm="on")
    assert code == 0, (out, err)
    return dict(json.loads(out))


TIMING = re.compile(rb"\d+\.\d+ ?s\b|\"(elapsed_ms|compile|safety|mypy|import|coverage|publish)\": \d+(\.\d+)?"
                    rb"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?")


def same_shape(a: bytes, home_a: Path, b: bytes, home_b: Path) -> tuple[bytes, bytes]:
    """Both outputs with their workspace path and clock readings masked."""
    return (TIMING.sub(b"<t>", a.replace(str(home_a).encode(), b"<home>")),
            TIMING.sub(b"<t>", b.replace(str(home_b).encode(), b"<home>")))


# Each routed command, as a user would type it; run in order on two copies of one workspace.
LINES: list[tuple[str, ...]] = [
    ("query", USER, "len(trips)"),
    ("query", USER, "sum(t.cost_usd for t in trips if t.cost_usd)", "--json"),
    ("query", USER, "[t.destination for t in trips]"),
    ("query", USER, "1/0"),
    ("query", USER, "__import__('os').system('true')"),
    ("query", "nobody", "1"),
    ("query", USER, "len(trips)", "--version", "1"),
    ("--debug", "query", USER, "len(notes)"),
    ("show", USER),
    ("show", USER, "--json"),
    ("show", USER, "--source"),
    ("show", USER, "--version", "1"),
    ("show", "nobody"),
    ("alerts", USER, "--now", "2026-12-01"),
    ("alerts", USER, "--now", "2026-12-01", "--json"),
    ("alerts", USER, "--now", "not-a-date"),
    ("recall", USER, "tea"),
    ("recall", USER, "passport expiry", "--json"),
    ("recall", USER, "trips", "--max-items", "0"),
    ("checkpoint", USER),
    ("checkpoint", "nobody"),
    ("checkpoint", USER, "--producer", "nope"),
    ("query", USER, "len(trips)", "--bogus"),
]


@pytest.mark.slow  # 5-28 s of processes; the default suite keeps the warm worker's other tests
def test_each_routed_command_prints_what_it_prints_in_process(seeded: Path, twin: Path) -> None:
    start(twin)
    before = served(twin)
    for line in LINES:
        here = uac(seeded, *line, warm="off")
        there = uac(twin, *line, warm="on")
        assert here[0] == there[0], (line, here, there)
        out_here, out_there = same_shape(here[1], seeded, there[1], twin)
        err_here, err_there = same_shape(here[2], seeded, there[2], twin)
        assert out_here == out_there, (line, out_here, out_there)
        assert err_here == err_there, (line, err_here, err_there)
        assert b"Traceback" not in there[2]
    assert served(twin) == before + len(LINES)  # the worker ran every one of them
    # A new fact in both, then a checkpoint that publishes: the same report but its timings.
    for home in (seeded, twin):
        assert uac(home, "add", USER, "I like oolong too")[0] == 0
    here, there = uac(seeded, "checkpoint", USER, warm="off"), uac(twin, "checkpoint", USER, warm="on")
    assert here[0] == there[0] == 0 and b"published alice v3" in there[1]
    out_here, out_there = same_shape(here[1], seeded, there[1], twin)
    assert out_here == out_there and here[2] == there[2]
    assert served(twin) == before + len(LINES) + 1


@pytest.mark.slow  # 5-28 s of processes; the default suite keeps the warm worker's other tests
def test_read_only_queries_print_byte_for_byte_the_same(seeded: Path, twin: Path) -> None:
    """Without clocks in the output, the bytes are equal, unmasked (and both ways of naming
    the workspace reach the same worker)."""
    start(twin)
    before = served(twin)
    lines = [("query", USER, "sorted(t.destination for t in trips)"), ("show", USER), ("show", USER, "--source"),
             ("query", USER, "'caf\\u00e9 \\u2603'"), ("recall", USER, "green tea"), ("query", USER, "1/0")]
    for line in lines:
        here = uac(seeded, *line, warm="off")
        there = uac(twin, *line, warm="on")
        assert here == (there[0], there[1], there[2]), line
    relative = uac(twin, "--home", twin.name, "query", USER, "len(trips)", warm="on", cwd=twin.parent,
                   extra={"UAC_HOME": "/nonexistent"})
    assert relative == (0, b"3\n", b"")
    assert served(twin) == before + len(lines) + 1


@pytest.mark.slow  # 5-28 s of processes; the default suite keeps the warm worker's other tests
def test_the_terminal_width_travels_with_the_command(seeded: Path, twin: Path) -> None:
    start(twin)
    for columns in ("40", "200"):
        here = uac(seeded, "show", USER, warm="off", extra={"COLUMNS": columns})
        there = uac(twin, "show", USER, warm="on", extra={"COLUMNS": columns})
        assert here == there
    assert uac(twin, "show", USER, warm="on", extra={"COLUMNS": "40"}) != \
        uac(twin, "show", USER, warm="on", extra={"COLUMNS": "200"})


def test_off_and_unroutable_lines_never_reach_the_worker(seeded: Path) -> None:
    start(seeded)
    before = served(seeded)
    assert uac(seeded, "query", USER, "len(trips)", warm="off")[:2] == (0, b"3\n")
    assert uac(seeded, "log", USER, warm="on")[0] == 0  # not a routed command
    assert uac(seeded, "query", "--help", warm="on")[0] == 0
    assert uac(seeded, "add", USER, "a fact", warm="on")[0] == 0
    assert served(seeded) == before


def test_conftest_keeps_the_suite_off() -> None:
    assert os.environ["UAC_WARM"] == "off"


def test_auto_starts_a_worker_for_the_next_command_when_the_log_is_large(seeded: Path) -> None:
    (seeded / "settings.json").write_text(json.dumps({"warm": {"mode": "auto", "min_log_mb": 0}}))
    code, out, _ = uac(seeded, "query", USER, "len(trips)", warm="")  # the setting decides
    assert (code, out) == (0, b"3\n")
    wait_for(lambda: status(seeded) is not None, "the worker auto started")
    before = served(seeded)
    assert uac(seeded, "query", USER, "len(trips)", warm="")[:2] == (0, b"3\n")
    assert served(seeded) == before + 1


def test_auto_leaves_a_small_workspace_alone(seeded: Path) -> None:
    assert uac(seeded, "checkpoint", USER, warm="auto")[0] == 0
    assert uac(seeded, "query", USER, "len(trips)", warm="auto")[:2] == (0, b"3\n")
    assert not (seeded / "cache" / "warm").exists()
    assert status(seeded) is None


def test_the_socket_and_its_folder_are_private(seeded: Path) -> None:
    start(seeded)
    assert os.stat(warm_wire.warm_dir(seeded)).st_mode & 0o777 == 0o700
    assert os.stat(warm_wire.socket_path(seeded)).st_mode & 0o777 == 0o600


def test_a_peer_of_another_uid_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = socket.socketpair(socket.AF_UNIX)
    with a, b:
        warm_wire.check_peer(a)  # ours
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 4242)
        with pytest.raises(warm_wire.WireError):
            warm_wire.check_peer(a)


def _raw(home: Path, request: dict[str, object]) -> dict[str, object]:
    sock = warm_client.connect(home)
    assert sock is not None
    with sock:
        warm_wire.send_json(sock, request)
        return warm_wire.receive_json(sock)


def test_another_workspace_or_chain_key_is_refused_and_the_command_runs_here(seeded: Path) -> None:
    start(seeded)
    good = warm_client.request(warm_client.Line("query", str(seeded), USER), ["query", USER, "1"])
    assert _raw(seeded, {**good, "home": str(seeded.parent)})["status"] == "refused"
    assert _raw(seeded, {**good, "open": "0" * 64})["status"] == "refused"
    before = served(seeded)
    assert uac(seeded, "query", USER, "len(trips)", warm="on", extra={"UAC_CHAIN_KEY": "k" * 64})[:2] == (0, b"3\n")
    assert served(seeded) == before  # refused: it ran in the `uac` process
    assert status(seeded) is not None  # and the worker stays for the others


@pytest.mark.slow  # 5-28 s of processes; the default suite keeps the warm worker's other tests
def test_a_worker_of_other_code_steps_down_and_is_replaced(seeded: Path) -> None:
    first = start(seeded)
    good = warm_client.request(warm_client.Line("query", str(seeded), USER), ["query", USER, "1"])
    answer = _raw(seeded, {**good, "code": "f" * 64})
    assert answer["status"] == "refused" and answer["stepping_down"] is True
    wait_for(lambda: not warm_client._alive(int(first["pid"])), "the stale worker to exit")  # type: ignore[call-overload]
    assert not os.path.exists(warm_wire.socket_path(seeded))
    again = start(seeded)
    assert again["pid"] != first["pid"]


def test_a_stale_socket_file_is_replaced(seeded: Path) -> None:
    folder = warm_client.private_dir(seeded)
    dead = socket.socket(socket.AF_UNIX)
    with warm_wire.short_path(os.path.join(folder, "socket")) as address:
        dead.bind(address)  # bound, never listening, closed: a file no process answers
    dead.close()
    assert os.path.exists(warm_wire.socket_path(seeded))
    assert uac(seeded, "query", USER, "len(trips)", warm="auto")[:2] == (0, b"3\n")  # runs here
    found = start(seeded)
    assert found["pid"] and served(seeded) == 0
    assert uac(seeded, "query", USER, "len(trips)", warm="on")[:2] == (0, b"3\n")
    assert served(seeded) == 1


DYING = """
import os, sys
import runtime.warm_server as s
def die(self, request):
    os.kill(os.getpid(), 9)
s.Worker.execute = die
sys.exit(s.main(sys.argv[1:]))
"""


def test_a_worker_dying_mid_command_leaves_the_command_to_the_client(seeded: Path) -> None:
    log = open(seeded / "dying.log", "wb")
    proc = subprocess.Popen([sys.executable, "-c", DYING, str(seeded)], cwd=REPO, stdout=log, stderr=log,
                            env=dict(os.environ, UAC_HOME=str(seeded)))
    try:
        wait_for(lambda: status(seeded) is not None, "the dying worker to listen")
        assert uac(seeded, "add", USER, "Ask about the Oslo conference")[0] == 0
        code, out, err = uac(seeded, "checkpoint", USER, warm="on")
        assert proc.wait(timeout=WAIT_S) == -signal.SIGKILL  # it did take the command, and died
        assert code == 0 and out.startswith(b"published alice v3"), (out, err)
        assert b"Traceback" not in err + out
        assert uac(seeded, "query", USER, "len(notes)", warm="off")[:2] == (0, b"3\n")
        assert uac(seeded, "verify", USER)[0] == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


def test_commands_from_many_clients_run_one_at_a_time(seeded: Path) -> None:
    start(seeded)
    before = served(seeded)
    results: list[tuple[int, bytes, bytes]] = []

    def ask(expression: str) -> None:
        results.append(uac(seeded, "query", USER, expression, warm="on"))

    threads = [threading.Thread(target=ask, args=(f"len(trips) + {i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r[1] for r in results) == [f"{3 + i}\n".encode() for i in range(6)]
    assert served(seeded) == before + 6


@pytest.mark.slow
def test_other_processes_writing_and_checkpointing_are_seen(seeded: Path) -> None:
    """A writer process adds facts and checkpoints in-process while clients checkpoint and
    query through the worker: no fact is lost, every answer is of a published version, and
    the worker sees the other process's versions."""
    start(seeded)
    rounds = 3
    errors: list[object] = []

    def writer() -> None:
        for i in range(rounds):
            for cmd in (("add", USER, f"writer note {i}"), ("checkpoint", USER)):
                code, out, err = uac(seeded, *cmd, warm="off")
                if code != 0:
                    errors.append((cmd, out, err))

    def through_worker() -> None:
        for i in range(rounds):
            for cmd in (("add", USER, f"client note {i}"), ("checkpoint", USER), ("query", USER, "len(notes)")):
                code, out, err = uac(seeded, *cmd, warm="on")
                if code != 0 or b"Traceback" in err:
                    errors.append((cmd, out, err))

    threads = [threading.Thread(target=writer), threading.Thread(target=through_worker)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    # The last word: the worker checkpoints whatever is left and sees all 2 + 2 x rounds notes.
    uac(seeded, "checkpoint", USER, warm="on")
    assert uac(seeded, "query", USER, "len(notes)", warm="on")[:2] == (0, f"{2 + 2 * rounds}\n".encode())
    assert uac(seeded, "query", USER, "len(notes)", warm="off")[:2] == (0, f"{2 + 2 * rounds}\n".encode())
    # The worker answers for the version another process published last.
    assert uac(seeded, "add", USER, "one more from elsewhere")[0] == 0
    assert uac(seeded, "checkpoint", USER, warm="off")[0] == 0
    shown = uac(seeded, "show", USER, "--json", warm="on")
    assert json.loads(shown[1])["version"] == json.loads(uac(seeded, "show", USER, "--json")[1])["version"]
    assert uac(seeded, "verify", USER)[0] == 0
    assert served(seeded) > 0


def test_warm_commands_start_report_and_stop(seeded: Path) -> None:
    assert uac(seeded, "warm", "status")[1] == b"no warm worker\n"
    code, out, err = uac(seeded, "warm", "start")
    assert code == 0 and out.startswith(b"warm worker "), err
    assert b"0 command(s) served" in uac(seeded, "warm", "status")[1]
    pid = int(json.loads(uac(seeded, "warm", "status", "--json")[1])["pid"])
    assert uac(seeded, "warm", "stop")[1] == f"warm worker {pid} stopped\n".encode()
    assert not warm_client._alive(pid)
    assert uac(seeded, "warm", "stop")[1] == b"no warm worker\n"
    assert not os.path.exists(warm_wire.socket_path(seeded))


def test_a_bad_warm_setting_is_one_line_and_turns_routing_off(seeded: Path) -> None:
    (seeded / "settings.json").write_text(json.dumps({"warm": {"mode": "sometimes"}}))
    assert warm_client.warm_settings(seeded)[0] == "off"
    code, out, err = uac(seeded, "gc", warm="")
    assert code == 2 and err.count(b"\n") == 1 and b"warm.mode" in err, err


def on_a_terminal(home: Path, args: tuple[str, ...], warm: str, size: tuple[int, int]) -> tuple[int, bytes]:
    """`uac ARGS` with stdout and stderr on a pseudo-terminal of `size` (rows, columns): its
    exit code and what the terminal received."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR")}
    env.update(UAC_HOME=str(home), UAC_WARM=warm, TERM="xterm-256color")
    proc = subprocess.Popen([*UAC, *args], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, cwd=REPO, env=env)
    os.close(slave)
    received = b""
    while True:
        try:
            block = os.read(master, 65536)
        except OSError:  # the terminal's other side closed
            break
        if not block:
            break
        received += block
    os.close(master)
    return proc.wait(timeout=600), received


def test_on_a_terminal_the_worker_prints_the_same_colours_and_width(seeded: Path, twin: Path) -> None:
    start(twin)
    before = served(twin)
    shown = []
    for args in (("show", USER), ("query", "nobody", "1")):
        here = on_a_terminal(seeded, args, "off", (30, 100))
        there = on_a_terminal(twin, args, "on", (30, 100))
        assert here == there, (args, here, there)
        shown.append(here[1])
    assert b"\x1b[" in shown[0]  # coloured: the terminal was seen as one
    assert served(twin) == before + 2


def test_on_never_creates_a_workspace_that_is_not_there(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    code, out, err = uac(missing, "query", USER, "1", warm="on")
    assert code == 2 and (b"no published version" in err or b"no such user" in err), err
    assert not missing.exists()


def test_output_chunks_of_one_stream_are_joined_in_order() -> None:
    from runtime.warm_server import merged

    assert merged([b"\1a", b"\1b", b"\2c", b"\1d", b"\1e"]) == [b"\1ab", b"\2c", b"\1de"]
    assert merged([]) == []
    assert merged([b"\1" + bytes([i % 256]) for i in range(10_000)]) == [b"\1" + bytes(i % 256 for i in range(10_000))]


@pytest.mark.slow
def test_alert_state_written_by_another_process_is_seen_by_the_worker(seeded: Path, twin: Path) -> None:
    """The worker keeps the alert state between commands; a state another process wrote
    meanwhile is read again, so each run prints what it prints in a fresh process."""
    start(seeded)
    steps = [("2026-12-01", "on"), ("2027-09-01", "off"), ("2026-12-01", "on"), ("2026-12-01", "on"),
             ("2028-01-01", "off"), ("2027-01-01", "on")]
    for day, warm in steps:
        here = uac(seeded, "alerts", USER, "--now", day, warm=warm)
        there = uac(twin, "alerts", USER, "--now", day, warm="off")
        assert here == there, (day, warm, here, there)
    assert served(seeded) >= 4


FREEZE_AND_COLLECT = """
import gc, socket, sys
from pathlib import Path
from runtime.warm_server import FULL_COLLECT_EVERY, Job, Worker

worker = Worker(Path(sys.argv[1]), None, "code", 60.0)
worker.execute = lambda request: (0, [b"\\1done"])
mine, theirs = socket.socketpair()
gc.unfreeze()
worker.run(Job(mine, {}))
assert worker.frozen == 1 and gc.get_freeze_count() > 0, "a command's leftovers are not frozen"
worker.collect()
assert worker.frozen == 0 and gc.get_freeze_count() > 0, "an idle collection did not reset"
worker.frozen = FULL_COLLECT_EVERY - 1
worker.run(Job(mine, {}))
assert worker.frozen == 0, "no full collection after FULL_COLLECT_EVERY commands"
"""


def test_what_a_command_leaves_alive_is_frozen_and_collected_when_idle(tmp_path: Path) -> None:
    """The collector's passes during a command skip what earlier commands left (frozen);
    a full collection runs when idle, or every FULL_COLLECT_EVERY commands. (In a fresh
    interpreter: collecting the test process's whole heap would take a minute, and its
    collector state stays as it was.)"""
    done = subprocess.run([sys.executable, "-c", FREEZE_AND_COLLECT, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

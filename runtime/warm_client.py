"""The `uac` side of the warm worker: send a command that imports a user's package to the
workspace's worker (`runtime.warm_server`) and print what it printed, or say to run it here.

Routed: `checkpoint`, `query`, `alerts`, `recall`, `show` (they read a user's package and
write no facts; a checkpoint or query run twice gives the same result). Never routed: any
other command, `--help`, or a line whose options before the command are not `--home` /
`--debug`. The mode is `UAC_WARM`, else `warm.mode` in `<home>/settings.json`, else `auto`:

- `off`: always run here;
- `auto`: use a worker that answers; if none does, run here and, when the workspace's fact
  log is at least `warm.min_log_mb` (default 4 MB, about 10,000 facts; a small workspace
  starts in well under a second anyway), start one in the background for the next command;
- `on`: as `auto`, but start a worker (whatever the log's size) and wait for it.

Whatever goes wrong (no worker, another code version or workspace, a worker that dies
mid-command, a malformed answer) the command runs here instead, as if there were no
worker: the worker's output reaches the terminal only once it has all arrived.

Standard library only, and only `os`/`sys` until a command is known to be routable: this
check runs before every `uac` command.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Callable, Final, NamedTuple, NoReturn

if TYPE_CHECKING:
    import socket
    import subprocess

    from runtime.warm_wire import PathLike

ROUTED = frozenset({"checkpoint", "query", "alerts", "recall", "show"})
DEFAULT_MODE: Final = "auto"
DEFAULT_MIN_LOG_MB = 4.0
ACCEPT_TIMEOUT_S = 30.0  # the worker answers a request at once, even while busy
START_TIMEOUT_S = 300.0  # `on` and `uac warm start`: how long to wait for a new worker to warm up
LOG_LIMIT = 1 << 20  # the worker's log is cut when it grows past this, at the next start


class Plan(NamedTuple):
    """What `route` decided: `code` is the exit code of a command the worker ran (None: run
    it here); `spawn`, when set, starts a worker in the background (call it afterwards)."""

    code: int | None = None
    spawn: Callable[[], object] | None = None


class Line(NamedTuple):
    command: str
    home: str  # resolved
    user: str | None


def parse_line(args: list[str]) -> Line | None:
    """The command, workspace and user of a routable line; None for any other line."""
    home: str | None = None
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "--home" and i + 1 < len(args):
            home, i = args[i + 1], i + 2
        elif args[i].startswith("--home="):
            home, i = args[i][len("--home="):], i + 1
        elif args[i] == "--debug":
            i += 1
        else:
            return None
    if i >= len(args) or args[i] not in ROUTED or "--help" in args or os.environ.get("UAC_STORE"):
        return None  # (a worker serves its home's own log, never another store)
    if home is None:
        home = os.environ.get("UAC_HOME") or "~/.uac"
    if not home.strip():
        return None
    user = next((a for a in args[i + 1:] if not a.startswith("-")), None)
    return Line(args[i], os.path.realpath(os.path.expanduser(home)), user)


def warm_settings(home: PathLike) -> tuple[str, float]:
    """(mode, min_log_mb): `UAC_WARM` wins over `warm` in settings.json. A value that is not
    one of `off`/`auto`/`on`, or a settings file that cannot be read, means `off` (the
    command then reports a bad settings file itself, as it always did)."""
    from runtime.warm_wire import MODES

    mode, min_mb = None, DEFAULT_MIN_LOG_MB
    try:
        with open(os.path.join(home, "settings.json"), "rb") as handle:
            import json

            section = json.loads(handle.read(1 << 16)).get("warm", {})
        mode = section.get("mode", DEFAULT_MODE)
        given = section.get("min_log_mb", DEFAULT_MIN_LOG_MB)
        min_mb = float(given) if isinstance(given, (int, float)) and not isinstance(given, bool) else -1.0
    except FileNotFoundError:
        mode = DEFAULT_MODE
    except (OSError, ValueError, AttributeError):
        mode = "off"
    env = os.environ.get("UAC_WARM")
    if env:  # set and not empty
        mode = env.strip().lower()
    if mode not in MODES or min_mb < 0:
        return "off", min_mb
    return mode, min_mb


def route(args: list[str]) -> Plan:
    """Run `uac ARGS` in the workspace's warm worker if the line is routable and a worker
    takes it; never raises (anything unexpected means: run it here)."""
    try:
        line = parse_line(args)
        if line is None:
            return Plan()
        from runtime.warm_wire import supported

        if not supported():
            return Plan()
        mode, min_mb = warm_settings(line.home)
        if mode == "off":
            return Plan()
        code, state = ask(line, args)
        if code is not None:
            return Plan(code)
        if state == "gone":  # it stepped down (another code version) or died mid-command
            return Plan(spawn=lambda: spawn(line.home, line.user))
        if state == "refused":  # another workspace or chain key: leave it be
            return Plan()
        if mode == "on":
            if start(line.home, line.user):
                code, _ = ask(line, args)
            return Plan(code)
        if log_bytes(line.home) >= min_mb * 1e6:
            return Plan(spawn=lambda: spawn(line.home, line.user))
        return Plan()
    except KeyboardInterrupt:
        interrupted(args)
    except Exception:
        return Plan()


def interrupted(args: list[str]) -> NoReturn:
    """Ctrl-C while the worker ran the command: what the command line says then (exit 1)."""
    end = args.index("--") if "--" in args else len(args)
    if "--json" in args[:end]:
        sys.stdout.write('{"error": "interrupted", "exit": 1}\n')
    sys.stderr.write("error: interrupted\n")
    sys.exit(1)


def log_bytes(home: PathLike) -> int:
    total = 0
    for name in ("facts.db", "facts.db-wal"):
        try:
            total += os.stat(os.path.join(home, name)).st_size
        except OSError:
            pass
    return total


def connect(home: PathLike) -> socket.socket | None:
    """A connection to the workspace's worker, or None if none listens there."""
    import socket

    from runtime.warm_wire import check_peer, short_path, socket_path

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with short_path(socket_path(home)) as address:
            sock.connect(address)
        check_peer(sock)
    except OSError:
        sock.close()
        return None
    except Exception:
        sock.close()
        raise
    return sock


def terminal_env() -> dict[str, str]:
    """COLUMNS / LINES as rich would find them here (the variables, else the first of
    stdin, stdout, stderr that is a terminal): the worker's own streams are no terminal."""
    found: dict[str, str] = {}
    size = None
    for fd in (0, 1, 2):
        try:
            size = os.get_terminal_size(fd)
            break
        except (OSError, ValueError):
            continue
    for name, index in (("COLUMNS", 0), ("LINES", 1)):
        value = os.environ.get(name)
        if value is not None and value.isdigit():
            found[name] = value
        elif size is not None and size[index] > 0:
            found[name] = str(size[index])
    return found


def stream_info(stream: object) -> dict[str, object]:
    def get(name: str, default: object) -> object:
        try:
            value = getattr(stream, name)
            return value() if callable(value) else value
        except (AttributeError, ValueError, OSError):
            return default
    return {"tty": bool(get("isatty", False)), "encoding": get("encoding", None) or "utf-8",
            "errors": get("errors", None) or "strict", "line_buffering": bool(get("line_buffering", False)),
            "write_through": bool(get("write_through", False))}


def request(line: Line, args: list[str]) -> dict[str, object]:
    from runtime.warm_wire import code_fingerprint, forwarded_env, open_time_digest

    env = {k: v for k, v in forwarded_env(os.environ).items() if k not in ("COLUMNS", "LINES")}
    env.update(terminal_env())
    return {"op": "run", "code": code_fingerprint(), "home": line.home,
            "open": open_time_digest(line.home, os.environ), "argv": args, "env": env, "cwd": os.getcwd(),
            "stdout": stream_info(sys.stdout), "stderr": stream_info(sys.stderr)}


def ask(line: Line, args: list[str]) -> tuple[int | None, str]:
    """(exit code, "done") once the worker ran the command and its output was printed; else
    no code and why: "none" (no worker listens), "refused" (it serves another workspace or
    chain key), "gone" (it stepped down for another code version, or hung up mid-command)."""
    from runtime.warm_wire import WireError, receive, receive_json, send_json

    sock = connect(line.home)
    if sock is None:
        return None, "none"
    with sock:
        try:
            send_json(sock, request(line, args))
            sock.settimeout(ACCEPT_TIMEOUT_S)
            answer = receive_json(sock)
            if answer.get("status") != "accepted":
                return None, "gone" if answer.get("stepping_down") else "refused"
            sock.settimeout(None)  # a checkpoint takes what it takes; a dead worker hangs up
            header = receive_json(sock)
            if header.get("status") == "failed":  # it could not run this one; it stays for the others
                return None, "refused"
            code = header.get("exit")
            count = header.get("chunks")
            if header.get("status") != "done" or not isinstance(code, int) or not isinstance(count, int):
                return None, "gone"
            chunks = [receive(sock) for _ in range(count)]
        except (OSError, WireError):
            return None, "gone"
    try:
        replay(chunks)
    except OSError:  # our stdout or stderr is closed (`| head`): the command ran, its output is lost
        return 1, "done"
    return code, "done"


def replay(chunks: list[bytes]) -> None:
    """Write the worker's output chunks, each to stdout (1) or stderr (2), in its order."""
    for chunk in chunks:
        stream = sys.stdout if chunk[:1] == b"\1" else sys.stderr
        stream.flush()
        binary = getattr(stream, "buffer", None)
        if binary is not None:
            binary.write(chunk[1:])
            binary.flush()
        else:
            stream.write(chunk[1:].decode(getattr(stream, "encoding", None) or "utf-8", "replace"))
            stream.flush()


def private_dir(home: PathLike) -> str:
    """`<home>/cache/warm`, made 0700 if missing; refused (OSError) if it is not a folder of
    this user's or others may enter it."""
    import stat

    from runtime.warm_wire import warm_dir

    folder = warm_dir(home)
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise PermissionError(f"{folder} is not a folder of this user's")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    return folder


def spawn(home: PathLike, user: str | None = None) -> subprocess.Popen[bytes] | None:
    """Start a worker for `home` in the background (its own session, stdio to its log);
    quietly None if that fails. A worker that finds another one live exits at once."""
    try:
        import subprocess

        if not os.path.exists(os.path.join(home, "facts.db")):  # no workspace here: create none
            return None
        folder = private_dir(home)
        log = os.path.join(folder, "log")
        try:
            if os.stat(log).st_size > LOG_LIMIT:
                os.unlink(log)
        except FileNotFoundError:
            pass
        root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        command = [sys.executable, "-m", "runtime.warm_server", os.fspath(home)] + (["--user", user] if user else [])
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, cwd=home, env=env,
                                    start_new_session=True, close_fds=True)
        finally:
            os.close(fd)
    except Exception:
        return None


def _ask(home: PathLike, op: str) -> dict[str, object] | None:
    """The worker's answer to `{"op": op}`, or None if none answers."""
    from runtime.warm_wire import WireError, receive_json, send_json

    sock = connect(home)
    if sock is None:
        return None
    with sock:
        try:
            sock.settimeout(ACCEPT_TIMEOUT_S)
            send_json(sock, {"op": op})
            return receive_json(sock)
        except (OSError, WireError):
            return None


def status(home: PathLike) -> dict[str, object] | None:
    """The live worker's own account (pid, served, ...), or None if none answers."""
    return _ask(home, "status")


def start(home: PathLike, user: str | None = None, timeout: float = START_TIMEOUT_S) -> dict[str, object] | None:
    """Start a worker unless one of this code answers; wait until it is warmed up (its
    status), or None."""
    import time

    fingerprint = _fingerprint()
    found = status(home)
    if found is not None and found.get("code") != fingerprint:
        stop(home)
        found = None
    process = spawn(home, user) if found is None else None
    if found is None and process is None:
        return None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = status(home)
        if found is not None and found.get("code") == fingerprint and found.get("ready"):
            return found
        if found is None and process is not None and process.poll() is not None:
            return None  # it gave up (see its log), and no other worker answers
        time.sleep(0.05)
    return None


def _fingerprint() -> str:
    from runtime.warm_wire import code_fingerprint

    return code_fingerprint()


def stop(home: PathLike, timeout: float = START_TIMEOUT_S) -> int | None:
    """Ask the worker to exit (after the command it runs); wait until it has. Its pid, or
    None if none answered."""
    import time

    answer = _ask(home, "stop")
    if answer is None:
        return None
    pid = answer.get("pid")
    deadline = time.monotonic() + timeout
    while isinstance(pid, int) and time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    return pid if isinstance(pid, int) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (a child of this process not yet reaped) has exited
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().split(b") ")[-1][:1] != b"Z"
    except OSError:
        return False

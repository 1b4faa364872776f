"""The warm worker: one long-lived process per workspace holding one `Memory` (its version
store, loaded packages, validator and query workers), running the `uac` commands clients
send it (`runtime.warm_client`) exactly as `uac` would run them in-process.

    python -m runtime.warm_server HOME [--user USER]

Started by `uac` (mode `auto`/`on`) or `uac warm start`, in its own session, stdio to
`<home>/cache/warm/log`. The rules:

- one worker per workspace: it holds `<home>/cache/warm/lock` (flock) for its life, and
  only the lock's holder (re)binds the socket, so a stale socket file is replaced;
- a request is answered at once (accepted or refused) by the accepting thread; commands run
  one at a time, in the main thread, each with the client's argv, working folder,
  environment (UAC_*, OPENAI_*, the terminal's) and stream kinds; the output is captured
  and sent back whole, with the exit code;
- refused: a peer of another uid; another workspace; another chain key; another code
  version (a hash of our sources and the interpreter): the worker then steps down, so the
  next command starts one of the new code;
- the `Memory` re-reads what other processes wrote: the version store's caches are checked
  against the files (stat) on each use, and the fact log is SQLite;
- collections of Python's cyclic garbage collector do not traverse the workspace's
  packages on each command: what is alive after a command is frozen (`gc.freeze`), and a
  full collection (unfrozen) runs when the worker is idle, or after `FULL_COLLECT_EVERY`
  commands, so garbage cycles (a package no version uses) are still freed;
- it exits when idle for `warm.idle_minutes` (settings.json, default 10), on `uac warm
  stop`, when its socket file is removed or replaced, when the workspace's fact log is gone,
  after an unexpected error in a command (its state is then suspect), and when its memory
  grew past three times what it held after its first command (and over 1 GB).
"""

from __future__ import annotations

import argparse
import fcntl
import gc
import io
import os
import queue
import socket
import sys
import threading
import time
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.warm_wire import (
    FORWARDED_PREFIXES,
    TERMINAL_ENV,
    WireError,
    check_peer,
    code_fingerprint,
    open_time_digest,
    receive_json,
    send,
    send_json,
    short_path,
    socket_path,
)

if TYPE_CHECKING:
    from runtime.memory import Memory

LOCK_WAIT_S = 15.0  # a worker stepping down may still hold the lock for a moment
POLL_S = 1.0
REQUEST_TIMEOUT_S = 10.0
GROWTH_LIMIT = 3
RSS_FLOOR = 1 << 30
FULL_COLLECT_EVERY = 16  # commands between full collections when the worker is never idle


def say(text: str) -> None:
    sys.stderr.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [{os.getpid()}] {text}\n")
    sys.stderr.flush()


class _Sink(io.RawIOBase):
    """The bytes a stream wrote, as chunks tagged with its number (1 stdout, 2 stderr)."""

    def __init__(self, tag: int, chunks: list[bytes]) -> None:
        super().__init__()
        self.tag = bytes([tag])
        self.chunks = chunks

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        block = bytes(data)
        if block:
            self.chunks.append(self.tag + block)
        return len(block)


class _Capture(io.TextIOWrapper):
    """A text stream standing in for the client's: its encoding, buffering and tty-ness."""

    def __init__(self, tag: int, chunks: list[bytes], info: dict[str, Any]) -> None:
        super().__init__(io.BufferedWriter(_Sink(tag, chunks)), encoding=str(info.get("encoding") or "utf-8"),
                         errors=str(info.get("errors") or "strict"),
                         line_buffering=bool(info.get("line_buffering")),
                         write_through=bool(info.get("write_through")))
        self._tty = bool(info.get("tty"))

    def isatty(self) -> bool:
        return self._tty


@dataclass
class Job:
    conn: socket.socket
    request: dict[str, Any]


def merged(chunks: list[bytes]) -> list[bytes]:
    """Consecutive chunks of one stream as one (joined once: a checkpoint listing thousands
    of alerts writes thousands of lines)."""
    return [tag + b"".join(chunk[1:] for chunk in group) for tag, group in groupby(chunks, key=lambda c: c[:1])]


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Worker:
    def __init__(self, home: Path, mem: Memory, fingerprint: str, idle_s: float) -> None:
        self.home = home
        self.mem = mem
        self.fingerprint = fingerprint
        self.opened = open_time_digest(home, os.environ)
        self.idle_s = idle_s
        self.jobs: queue.Queue[Job] = queue.Queue()
        self.stopping = threading.Event()
        self.served = 0
        self.started = time.time()
        self.last = time.monotonic()
        self.first_rss = 0
        self.socket_id: tuple[int, int] | None = None
        self.listener: socket.socket | None = None
        self.ready = False  # warmed up: the user's version loaded
        self.frozen = 0  # commands whose survivors were frozen since the last full collection

    # -- the accepting thread ---------------------------------------------------------------

    def listen(self) -> None:
        path = socket_path(self.home)
        try:
            os.unlink(path)  # stale (its worker is gone: we hold the lock)
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            with short_path(path) as address:
                listener.bind(address)
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        listener.listen(64)
        st = os.stat(path)
        self.socket_id = (st.st_dev, st.st_ino)
        self.listener = listener

    def accept_forever(self) -> None:
        assert self.listener is not None
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                if self.stopping.is_set():
                    return
                time.sleep(0.05)
                continue
            try:
                self.answer(conn)
            except (OSError, WireError) as exc:
                say(f"request dropped: {exc}")
                conn.close()

    def answer(self, conn: socket.socket) -> None:
        """Accept or refuse at once; an accepted command waits in the queue."""
        check_peer(conn)
        conn.settimeout(REQUEST_TIMEOUT_S)
        request = receive_json(conn)
        op = request.get("op")
        if op == "status":
            send_json(conn, self.status())
            conn.close()
        elif op == "stop":
            say("asked to stop")
            send_json(conn, {"status": "stopping", "pid": os.getpid()})
            conn.close()
            self.stopping.set()
        elif op != "run":
            send_json(conn, {"status": "refused", "reason": f"unknown request {op!r}"})
            conn.close()
        elif request.get("code") != self.fingerprint:
            say("a client runs other code: stepping down")
            send_json(conn, {"status": "refused", "reason": "other code", "stepping_down": True})
            conn.close()
            self.stopping.set()
        elif request.get("home") != str(self.home) or request.get("open") != self.opened:
            send_json(conn, {"status": "refused", "reason": "other workspace or chain key"})
            conn.close()
        elif self.stopping.is_set():
            send_json(conn, {"status": "refused", "reason": "stopping", "stepping_down": True})
            conn.close()
        else:
            send_json(conn, {"status": "accepted"})
            conn.settimeout(None)
            self.jobs.put(Job(conn, request))

    def status(self) -> dict[str, Any]:
        return {"status": "ok", "pid": os.getpid(), "home": str(self.home), "code": self.fingerprint,
                "served": self.served, "ready": self.ready, "uptime_s": round(time.time() - self.started, 1),
                "idle_minutes": self.idle_s / 60, "rss_mb": round(rss_bytes() / 1e6, 1)}

    # -- the main thread ----------------------------------------------------------------------

    def serve(self) -> None:
        while not self.stopping.is_set():
            try:
                job = self.jobs.get(timeout=POLL_S)
            except queue.Empty:
                if self.frozen:
                    self.collect()
                reason = self.why_exit()
                if reason:
                    say(f"exiting: {reason}")
                    return
                continue
            try:
                self.run(job)
            finally:
                job.conn.close()
                self.last = time.monotonic()
        say("stopped")

    def why_exit(self) -> str | None:
        if time.monotonic() - self.last > self.idle_s:
            return f"idle for {self.idle_s / 60:g} min"
        try:
            st = os.stat(socket_path(self.home))
            if (st.st_dev, st.st_ino) != self.socket_id:
                return "the socket was replaced"
        except OSError:
            return "the socket is gone"
        if not self.mem.workspace.facts_db.exists():
            return "the workspace's fact log is gone"
        return None

    def run(self, job: Job) -> None:
        try:
            code, chunks = self.execute(job.request)
        except Exception as exc:  # the worker's own trouble (a working folder gone, ...): the client runs it
            say(f"could not run a command: {type(exc).__name__}: {exc}")
            try:
                send_json(job.conn, {"status": "failed"})
            except OSError:
                pass
            return
        self.served += 1
        try:
            send_json(job.conn, {"status": "done", "exit": code, "chunks": len(chunks)})
            for chunk in chunks:
                send(job.conn, chunk)
        except OSError as exc:
            say(f"the client left before the answer: {exc}")
        if any(c[:1] == b"\2" and b"unexpected error:" in c for c in chunks):
            say("a command ended in an unexpected error: exiting")
            self.stopping.set()
        rss = rss_bytes()
        self.first_rss = self.first_rss or rss
        if rss > RSS_FLOOR and rss > GROWTH_LIMIT * self.first_rss:
            say(f"memory grew to {rss / 1e6:,.0f} MB: exiting")
            self.stopping.set()
        self.frozen += 1
        if self.frozen >= FULL_COLLECT_EVERY:
            self.collect()
        else:
            gc.collect(1)  # what this command left in the young generations
            gc.freeze()

    def collect(self) -> None:
        """A full collection of cyclic garbage, then what survives is frozen: the next
        commands' collections traverse only what they allocate."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.frozen = 0

    def execute(self, request: dict[str, Any]) -> tuple[int, list[bytes]]:
        """Run `uac ARGV` as the client would have, here: (exit code, output chunks)."""
        from runtime import cli, cli_app

        chunks: list[bytes] = []
        out = _Capture(1, chunks, request.get("stdout") or {})
        err = _Capture(2, chunks, request.get("stderr") or {})
        saved_env = dict(os.environ)
        saved_streams = sys.stdout, sys.stderr
        cwd = os.getcwd()
        code = 1
        try:
            for name in [k for k in os.environ if k.startswith(FORWARDED_PREFIXES) or k in TERMINAL_ENV]:
                del os.environ[name]
            os.environ.update({str(k): str(v) for k, v in dict(request.get("env") or {}).items()})
            os.chdir(str(request.get("cwd") or self.home))
            _fresh_consoles(cli_app)
            sys.stdout, sys.stderr = out, err
            try:
                cli.run([str(a) for a in request.get("argv") or []], shared=self.mem)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            for stream in (out, err):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            sys.stdout, sys.stderr = saved_streams
            _fresh_consoles(cli_app)
            os.environ.clear()
            os.environ.update(saved_env)
            os.chdir(cwd)
        return code, merged(chunks)


def _fresh_consoles(cli_app: Any) -> None:
    """The command line's consoles are made again for each command, from its streams and
    environment (width, colours)."""
    for console in (cli_app.out, cli_app.err):
        console._console = None


def take_lock(folder: str) -> int | None:
    fd = os.open(os.path.join(folder, "lock"), os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.1)


def warm_up(mem: Memory, user: str | None) -> None:
    """Load what the routed commands use, and the user's current version, before serving."""
    import importlib

    for name in ("runtime.cli", "runtime.cli_output", "runtime.render_value", "codegen.producer", "users.checkpoint",
                 "runtime.checkpoint_service", "runtime.query_service", "runtime.alerts_service",
                 "runtime.recall_service", "runtime.settings", "rich.console", "rich.table", "rich.markup"):
        importlib.import_module(name)
    mem.checkpoints  # noqa: B018  (the services: made now, not during the first command)
    mem.recalls  # noqa: B018
    if user is None:
        return
    try:
        mem.require_user(user)
        mem.module(user)
        mem.manifest(user)
    except Exception as exc:  # a hint only: the command itself reports what is wrong
        say(f"warm-up of {user!r} skipped: {type(exc).__name__}: {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m runtime.warm_server")
    parser.add_argument("home")
    parser.add_argument("--user")
    args = parser.parse_args(argv)
    from runtime.warm_client import private_dir

    fingerprint = code_fingerprint()  # before more of our code is imported
    home = Path(os.path.realpath(args.home))
    if not (home / "facts.db").exists():
        say(f"{home}: no fact log; not starting")
        return 0
    folder = private_dir(home)
    lock = take_lock(folder)
    if lock is None:
        say("another worker holds the workspace: not starting")
        return 0
    from runtime.memory import Memory
    from runtime.settings import load_settings

    try:
        idle_s = load_settings(home).warm.idle_minutes * 60
        mem = Memory.open(home)
    except Exception as exc:
        say(f"cannot open {home}: {type(exc).__name__}: {exc}")
        return 1
    worker = Worker(home, mem, fingerprint, idle_s)

    def after_fork_in_child() -> None:
        """A process forked from the worker (a query worker) holds neither its socket nor its
        lock: were the worker to die first, neither may outlive it."""
        try:
            if worker.listener is not None:
                worker.listener.close()
            os.close(lock)
        except OSError:
            pass

    os.register_at_fork(after_in_child=after_fork_in_child)
    try:
        worker.listen()
        say(f"listening for {home}")
        threading.Thread(target=worker.accept_forever, name="warm-accept", daemon=True).start()
        warm_up(mem, args.user)
        worker.collect()
        worker.ready = True
        worker.last = time.monotonic()
        worker.serve()
    finally:
        worker.stopping.set()
        try:
            st = os.stat(socket_path(home))
            if (st.st_dev, st.st_ino) == worker.socket_id:
                os.unlink(socket_path(home))
        except OSError:
            pass
        if worker.listener is not None:
            worker.listener.close()
        while True:  # accepted commands not run: their clients see the hang-up and run them themselves
            try:
                worker.jobs.get_nowait().conn.close()
            except queue.Empty:
                break
        mem.close()
        os.close(lock)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A throwaway PostgreSQL server for tests and benchmarks, run from the installed binaries.

    server = PgServer.start()                 # initdb into a new temp folder, then `postgres`
    url = server.create_database("t1")        # postgresql://postgres@127.0.0.1:PORT/t1
    server.restart()                          # a fast shutdown and a start, same data and port
    server.kill()                             # SIGKILL the postmaster (then `start_again()`)
    server.destroy()                          # stop it and remove its folder

The binaries come from `PATH` (`initdb`, `postgres`) or the distribution's
`/usr/lib/postgresql/<version>/bin`. PostgreSQL refuses to run as root, so under root the
server runs as the `postgres` system user (or `nobody`) and its folder is given to that user.
It listens on 127.0.0.1 on a free port with `trust` authentication, and keeps every commit
on disk in the normal way (`synchronous_commit` on; only `fsync` is off, which loses nothing
unless the machine itself crashes). `UAC_TEST_POSTGRES=postgresql://…` names an existing
server to use instead (its user must be allowed to create databases).

Run as a script, it starts a server and prints its URL until interrupted:

    python tests/pg_server.py
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

START_TIMEOUT = 60.0


class NoServer(RuntimeError):
    """No PostgreSQL server can be started here (the reason is the message)."""


def find_binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    if candidates:
        return candidates[0]
    raise NoServer(f"PostgreSQL's `{name}` is not installed (apt-get install postgresql)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _run_as() -> tuple[int, int] | None:
    """(uid, gid) to run the server as when this process is root; None otherwise."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return entry.pw_uid, entry.pw_gid
    raise NoServer("running as root and no `postgres` or `nobody` user to run PostgreSQL as")


@dataclass
class PgServer:
    folder: Path
    port: int
    owner: tuple[int, int] | None
    proc: subprocess.Popen[bytes] | None = None
    databases: list[str] = field(default_factory=list)
    admin_url: str | None = None  # set when using an existing server (UAC_TEST_POSTGRES)

    @staticmethod
    def start() -> PgServer:
        """A new server in a new temp folder (or the one UAC_TEST_POSTGRES names)."""
        existing = os.environ.get("UAC_TEST_POSTGRES")
        if existing:
            server = PgServer(Path(tempfile.gettempdir()), 0, None, admin_url=existing)
            server.wait_ready()
            return server
        initdb = find_binary("initdb")
        owner = _run_as()
        folder = Path(tempfile.mkdtemp(prefix="uac-pg-"))
        os.chmod(folder, 0o755)
        data, sockets = folder / "data", folder / "sock"
        data.mkdir()
        sockets.mkdir()
        if owner is not None:
            for path in (data, sockets):
                os.chown(path, *owner)
        done = subprocess.run([initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync",
                               "-E", "UTF8", "--locale=C"], capture_output=True, text=True,
                              user=owner[0] if owner else None, group=owner[1] if owner else None)
        if done.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            raise NoServer(f"initdb failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
        server = PgServer(folder, free_port(), owner)
        server.start_again()
        return server

    def start_again(self) -> None:
        """Start the postmaster on this server's folder and port; returns once it answers."""
        if self.admin_url is not None:
            return
        postgres = find_binary("postgres")
        for attempt in range(50):  # after a SIGKILL, old backends hold the shared memory a moment
            self._spawn(postgres)
            try:
                self.wait_ready()
                return
            except NoServer:
                if self.proc is None or self.proc.poll() is None or attempt == 49:
                    raise
                time.sleep(0.2)

    def _spawn(self, postgres: str) -> None:
        self.proc = subprocess.Popen(
            [postgres, "-D", str(self.folder / "data"), "-p", str(self.port), "-k", str(self.folder / "sock"),
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
             "-c", "max_connections=300", "-c", "shared_buffers=128MB", "-c", "log_min_messages=fatal"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            user=self.owner[0] if self.owner else None, group=self.owner[1] if self.owner else None)

    def wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with psycopg.connect(self.url("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError as exc:
                if self.proc is not None and self.proc.poll() is not None:
                    raise NoServer(f"postgres exited with {self.proc.returncode} on start") from exc
                if time.monotonic() > deadline:
                    raise NoServer(f"postgres did not answer within {START_TIMEOUT:.0f} s: {exc}") from exc
                time.sleep(0.1)

    def url(self, database: str) -> str:
        if self.admin_url is not None:
            from psycopg.conninfo import conninfo_to_dict, make_conninfo

            params = conninfo_to_dict(self.admin_url)
            params["dbname"] = database
            return "postgresql://" + _url_tail(make_conninfo(**params))
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new, empty database; returns its URL."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        return self.url(name)

    def stop(self, *, mode: int = signal.SIGINT) -> None:
        """Stop the postmaster: SIGINT is a fast shutdown (clients are cut off, commits kept)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(mode)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def kill(self) -> None:
        """SIGKILL the postmaster (its backends exit when they notice); `start_again()` recovers."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> None:
        self.stop()
        self.start_again()

    def destroy(self) -> None:
        if self.admin_url is not None:
            import psycopg

            with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
                for name in self.databases:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        self.stop()
        # a test run leaves a database per test (~1,000 files each): removing them takes a
        # minute on a busy machine, so a detached `rm` does it after the run has ended
        subprocess.Popen(["rm", "-rf", str(self.folder)], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _url_tail(conninfo: str) -> str:
    """`host=h port=p user=u dbname=d` as `u@h:p/d` (no password in test URLs)."""
    parts = dict(item.split("=", 1) for item in conninfo.split())
    user = parts.get("user", "postgres")
    return f"{user}@{parts.get('host', '127.0.0.1')}:{parts.get('port', '5432')}/{parts.get('dbname', 'postgres')}"


def main() -> int:
    try:
        server = PgServer.start()
    except NoServer as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(server.url("postgres"), flush=True)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        server.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`uac watch`: watchdog on the fact log; debounced checkpoint → constraints → alerts.

Writes to the log touch `facts.db` / `facts.db-wal`; each burst of changes (quiet for
`debounce_s`) triggers one pass over the watched users, checkpointing those the policy says
are due. A clock tick (`tick_s`) runs a pass too, with the constraints run even when no new
version came, because alerts change with time (a document comes within 30 days of expiry).
A failed checkpoint is reported and the watcher goes on; the last good version stays current.

With an inbox (`runtime.inbox_watch.InboxWatch`), its folder is watched too: at start the
files a crash left claimed are handled, then every loop turn (0.2 s) hands the complete
dropped files to the inbox; when they stored new facts a pass runs at once.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from codegen.producer import Producer
from users.checkpoint import CheckpointPolicy

if TYPE_CHECKING:
    from runtime.inbox_watch import InboxWatch


class Checkpointer(Protocol):
    def users(self) -> list[str]: ...

    def watch_step(self, user: str, policy: CheckpointPolicy, clock_tick: bool,
                   producer: Producer | str | None = None) -> object: ...


class _Debounced(FileSystemEventHandler):
    def __init__(self, names: set[str], fire: Callable[[], None], delay_s: float) -> None:
        self._names, self._fire, self._delay = names, fire, delay_s
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def on_any_event(self, event: FileSystemEvent) -> None:
        path = event.src_path if isinstance(event.src_path, str) else event.src_path.decode()
        if Path(path).name not in self._names:
            return
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self._delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()


class Watcher:
    """Runs `memory.watch_step(user, ...)` for each watched user after the log changes and on
    each clock tick, handing every outcome to `report`."""

    def __init__(self, memory: Checkpointer, log_path: Path, users: list[str] | None,
                 report: Callable[[str, object], None], debounce_s: float = 0.5,
                 policy: CheckpointPolicy = CheckpointPolicy(), tick_s: float | None = 3600.0,
                 producer: Producer | str | None = None, inbox: InboxWatch | None = None) -> None:
        self._inbox = inbox
        self._memory, self._users, self._report = memory, users, report
        self._producer = producer  # None: the memory's default
        self._log_path, self._policy, self._tick_s = log_path, policy, tick_s
        self._pass_lock = threading.Lock()
        self._stopped = False
        self.started = threading.Event()  # set once the observer watches (its inotify watches are armed)
        names = {log_path.name, log_path.name + "-wal"}
        self._handler = _Debounced(names, self.run_pass, debounce_s)
        self._observer = Observer()

    def run_pass(self, clock_tick: bool = False) -> None:
        """One pass over the users; one at a time even if changes keep coming."""
        with self._pass_lock:
            if self._stopped:
                return
            for user in self._users or self._memory.users():
                try:
                    outcome = self._memory.watch_step(user, self._policy, clock_tick) if self._producer is None \
                        else self._memory.watch_step(user, self._policy, clock_tick, producer=self._producer)
                except Exception as exc:  # noqa: BLE001 - a watcher reports and goes on
                    outcome = exc
                self._report(user, outcome)

    def start(self) -> None:
        self._log_path.parent.mkdir(parents=True, exist_ok=True)
        self._observer.schedule(self._handler, str(self._log_path.parent), recursive=False)
        if self._inbox is not None:
            self._observer.schedule(self._inbox, str(self._inbox.inbox.root.resolve()), recursive=True)
        self._observer.start()

    def stop(self) -> None:
        """Stop watching, then wait for a pass already under way to finish its report."""
        self._stopped = True
        self._handler.cancel()
        if self._observer.is_alive():
            self._observer.stop()
            self._observer.join(timeout=5)
        with self._pass_lock:
            pass

    def run_until(self, stop: threading.Event) -> None:
        try:
            self.start()
            self.started.set()
            if self._inbox is not None:
                with self._pass_lock:  # one writer at a time: the inbox never runs beside a pass
                    self._inbox.start()
            self.run_pass(clock_tick=True)  # catch up on what was written while nobody watched
            last_tick = time.monotonic()
            while not stop.wait(0.2):
                if self._inbox is not None:
                    with self._pass_lock:
                        handled = self._inbox.poll()
                    if any(o.new_facts for o in handled):
                        self.run_pass()
                if self._tick_s is not None and time.monotonic() - last_tick >= self._tick_s:
                    last_tick = time.monotonic()
                    self.run_pass(clock_tick=True)
        finally:
            self.stop()

"""Watching an inbox folder: a dropped file is handed to `runtime.inbox.Inbox` once complete.

A file is complete when its size, modification time and inode have not changed for
`settle_s` seconds and nobody the watch saw open it has closed it yet (inotify open and
close events; the inbox itself opens a file only after moving it to `.work/`). A file
renamed into the inbox is complete after `settle_s`; one found at start (dropped while
nobody watched) counts on stability alone. A writer that keeps a file open is waited for
however long it pauses, up to `stale_s` without any change (a lost close event must not
stall the file forever).
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from runtime.inbox import Inbox, InboxOutcome

Signature = tuple[int, int, int]  # (size, mtime_ns, inode)


def _text(path: bytes | str) -> str:
    return path if isinstance(path, str) else path.decode()


class InboxWatch(FileSystemEventHandler):
    """Tracks the inbox's files; `poll()` hands the complete ones to the inbox, reporting
    each outcome. Events arrive on the observer's thread, `poll` runs on the watcher's."""

    def __init__(self, inbox: Inbox, report: Callable[[InboxOutcome], None], settle_s: float = 1.0,
                 stale_s: float = 60.0) -> None:
        self.inbox, self._report = inbox, report
        self._settle, self._stale = settle_s, max(stale_s, settle_s)
        self._root = str(inbox.root.resolve())
        self._lock = threading.Lock()
        self._dirty = True  # scan at the first poll: files dropped while nobody watched
        self._open: dict[str, int] = {}  # opens seen and not yet closed
        self._seen: dict[str, tuple[Signature, float]] = {}  # last signature and since when
        self.polls = 0  # scans done (tests wait on it)

    # -- events (observer thread) ------------------------------------------------------

    def _rel(self, path: bytes | str) -> str | None:
        text = _text(path)
        if not text.startswith(self._root + "/"):
            return None
        rel = text[len(self._root) + 1:]
        return None if any(part.startswith(".") for part in rel.split("/")) else rel

    def on_any_event(self, event: FileSystemEvent) -> None:
        rel = self._rel(event.src_path)
        with self._lock:
            self._dirty = True
            if rel is None or event.is_directory:
                return
            if event.event_type == "opened":
                self._open[rel] = self._open.get(rel, 0) + 1
            elif event.event_type in ("closed", "closed_no_write"):
                left = self._open.get(rel, 0) - 1
                if left > 0:
                    self._open[rel] = left
                else:
                    self._open.pop(rel, None)
            elif event.event_type in ("moved", "deleted"):
                self._open.pop(rel, None)

    # -- polling (watcher thread) ------------------------------------------------------

    def start(self) -> list[InboxOutcome]:
        """Handle what a crash left claimed but not moved; call before the first poll."""
        outcomes = []
        for rel in self.inbox.claimed():
            outcome = self.inbox.handle_claimed(rel)
            self._report(outcome)
            outcomes.append(outcome)
        return outcomes

    def poll(self, now: float | None = None) -> list[InboxOutcome]:
        """Scan if anything changed or a file is settling; handle the complete files."""
        with self._lock:
            if not self._dirty and not self._seen:
                return []
            self._dirty = False
            busy = {rel for rel, n in self._open.items() if n > 0}
        self.polls += 1
        now = time.monotonic() if now is None else now
        ready: list[str] = []
        present = self.inbox.dropped()
        for rel in present:
            signature = self._signature(rel)
            if signature is None:
                continue
            last = self._seen.get(rel)
            if last is None or last[0] != signature:
                self._seen[rel] = (signature, now)
                continue
            quiet = now - last[1]
            if quiet >= self._settle and (rel not in busy or quiet >= self._stale):
                ready.append(rel)
        for rel in set(self._seen) - set(present):
            del self._seen[rel]
        outcomes = []
        for rel in ready:
            del self._seen[rel]
            with self._lock:
                self._open.pop(rel, None)
            try:
                outcome = self.inbox.handle(rel)
            except OSError as exc:  # e.g. a full disk while moving it on: it stays where it is
                outcome = InboxOutcome(rel, None, self.inbox.root / rel, reason=f"not handled yet: {exc}")
            if outcome is not None:
                self._report(outcome)
                outcomes.append(outcome)
        return outcomes

    def _signature(self, rel: str) -> Signature | None:
        try:
            info = (self.inbox.root / rel).lstat()
        except OSError:
            return None
        return (info.st_size, info.st_mtime_ns, info.st_ino)


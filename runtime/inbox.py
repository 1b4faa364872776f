"""An inbox folder of transcripts: each file dropped in is ingested once for its user.

The rule of ownership: a file in a sub-folder `DIR/<user>/` is that user's (the folder's
name is checked as a user id); a file directly in `DIR` is the inbox's `user` when one is
given, else it fails. With `users` given, a file for any other user fails. Names starting
with `.` are not read (editors' temporary files; the inbox's own `.done`, `.failed`, `.work`).

Handling one file, so that nothing is lost and nothing is read twice:

1. claim: rename it into `DIR/.work/` (same relative path). The entry is moved, never
   followed, so a symlink is moved as a symlink and fails there; nothing outside `DIR` is read;
2. check: a regular file (not a symlink, a folder, a pipe), a transcript suffix, at most
   `MAX_TRANSCRIPT_BYTES`;
3. ingest it for its user through `FactsService.ingest_transcript` (offline, or `llm` through
   `runtime.llm_ingest`: a session the model fails on is stored as raw facts with a recorded
   failure, and the file still counts as handled);
4. move it to `DIR/.done/` — or, when a check or the ingest refused it, to `DIR/.failed/` with
   `<name>.reason` beside it (one line). A name already taken there gets `.1`, `.2`, ...

A crash after 3 and before 4 leaves the file in `.work/`; the next `handle_all` (or watcher
start) handles it first, and since ingest is idempotent by content (`factlog.sources`), the
second ingest stores nothing new and asks the model nothing. Whether a file is complete
(not still being written) is the caller's business: `runtime.inbox_watch` waits for it.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from factlog.errors import InputError
from factlog.model import check_user_id
from factlog.transcripts import MAX_TRANSCRIPT_BYTES, SUFFIXES

if TYPE_CHECKING:
    from runtime.facts_service import FactsService, IngestReport

DONE, FAILED, WORK = ".done", ".failed", ".work"
LOCK = ".lock"  # held (flock) by the one process handling the inbox
REASON_SUFFIX = ".reason"
CRASH_HOOK = "UAC_INBOX_TEST_CRASH_AFTER_INGEST"  # tests: exit here, between ingest and move


@dataclass(frozen=True)
class InboxOutcome:
    """One handled file: ingested (`report`) and moved to `.done`, or refused (`reason`) and
    moved to `.failed`."""

    file: str  # its path relative to the inbox, as dropped
    user: str | None  # None when no user could be decided
    moved_to: Path
    report: IngestReport | None = None
    reason: str | None = None

    @property
    def failed(self) -> bool:
        return self.reason is not None

    @property
    def new_facts(self) -> int:
        return len(self.report.facts) if self.report is not None else 0

    def line(self) -> str:
        """One line for a person."""
        if self.reason is not None:
            return f"inbox {self.file}: refused ({self.reason}); moved to {self.moved_to}"
        assert self.report is not None
        text = f"inbox {self.file} for {self.user}: {self.report.summary}"
        extraction = self.report.extraction
        if extraction is not None:
            text += f"; {extraction.summary}"
        return text + f"; moved to {self.moved_to}"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"file": self.file, "user": self.user, "moved_to": str(self.moved_to),
                                  "failed": self.failed}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.report is not None:
            out["count"] = len(self.report.facts)
            out["skipped"] = self.report.skipped
            if self.report.extraction is not None:
                out["extraction"] = self.report.extraction.to_json()
        return out


def _one_line(text: str, limit: int = 500) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _free(path: Path) -> Path:
    """`path`, or `stem.N.suffix` for the first N whose file and reason file are both free."""
    candidate, n = path, 0
    while candidate.exists() or candidate.is_symlink() or \
            candidate.with_name(candidate.name + REASON_SUFFIX).exists():
        n += 1
        candidate = path.with_name(f"{path.stem}.{n}{path.suffix}")
    return candidate


class Inbox:
    """The inbox at `root` (created if missing), ingesting through `facts`; see the module
    docstring. `user` owns the files directly in `root`; `users`, when given, are the only
    users it ingests for. `llm`/`model`/`base_url` as `Memory.ingest_transcript` takes them."""

    def __init__(self, facts: FactsService, root: Path, user: str | None = None,
                 users: Collection[str] | None = None, *, llm: bool = False, model: str | None = None,
                 base_url: str | None = None, user_only: bool = False) -> None:
        if not llm and (model is not None or base_url is not None):
            raise InputError("--model and --base-url go with --llm")
        if user is not None:
            check_user_id(user)
        self.users = None if users is None else frozenset(check_user_id(u) for u in users)
        if user is not None and self.users is not None and user not in self.users:
            raise InputError(f"the inbox's user {user!r} is not among the watched users")
        if llm:  # a missing model or a bad URL is refused now, not at the first file
            from codegen.llm.config import EndpointConfig
            from runtime.settings import load_settings

            EndpointConfig.resolve(base_url=base_url, model=model,
                                   settings=load_settings(facts.workspace.home).llm)
        if root.is_symlink() or (root.exists() and not root.is_dir()):
            raise InputError(f"inbox {root}: not a folder")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"inbox {root}: cannot create it: {exc.strerror or exc}") from None
        self.root, self.user, self._facts = root, user, facts
        self._lock_fd: int | None = None
        try:
            self._lock_fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise InputError(f"inbox {root}: cannot open its lock file {LOCK}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.close()
            raise InputError(f"inbox {root}: another process is handling it") from None
        self._llm, self._model, self._base_url, self._user_only = llm, model, base_url, user_only

    def close(self) -> None:
        """Let another process handle the inbox (the lock also goes when this process ends)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> Inbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what is waiting ---------------------------------------------------------------

    def claimed(self) -> list[str]:
        """Files left in `.work/` by a handler that stopped before moving them (a crash)."""
        return sorted(self._entries(self.root / WORK))

    def dropped(self) -> list[str]:
        """Entries waiting in the inbox (relative paths): files directly in it, files in the
        user folders, and anything there that will be refused (a symlink, a nested folder)."""
        return sorted(self._entries(self.root))

    def _entries(self, base: Path) -> list[str]:
        """Non-dot entries of `base` and of its folders (one level), as relative paths."""
        found: list[str] = []
        try:
            entries = list(os.scandir(base))
        except OSError:
            return found
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                try:
                    inner = list(os.scandir(entry.path))
                except OSError:
                    continue
                found += [f"{entry.name}/{e.name}" for e in inner if not e.name.startswith(".")]
            else:
                found.append(entry.name)
        return found

    def owner(self, rel: str) -> str:
        """The user a dropped entry belongs to (InputError: why it belongs to none)."""
        parts = rel.split("/")
        if len(parts) == 1:
            if self.user is None:
                raise InputError("no user for a file directly in the inbox: put it in a folder named "
                                 "for the user, or watch the inbox with --user")
            return self.user
        user = check_user_id(parts[0])
        if self.users is not None and user not in self.users:
            raise InputError(f"user {user!r} is not among the watched users")
        return user

    # -- handling ----------------------------------------------------------------------

    def handle_all(self) -> list[InboxOutcome]:
        """Handle what a crash left in `.work/`, then every entry now in the inbox (all taken
        as complete: drop files by renaming them in, or let `runtime.inbox_watch` wait)."""
        outcomes = [self.handle_claimed(rel) for rel in self.claimed()]
        for rel in self.dropped():
            outcome = self.handle(rel)
            if outcome is not None:
                outcomes.append(outcome)
        return outcomes

    def handle(self, rel: str) -> InboxOutcome | None:
        """Claim, check, ingest and move one dropped entry; None if it is gone already."""
        source, work = self.root / rel, self.root / WORK / rel
        if work.exists() or work.is_symlink():  # a crash left one: `claimed()` goes first, this waits
            return None
        try:
            work.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.rename(source, work)
        except FileNotFoundError:
            return None
        return self.handle_claimed(rel)

    def handle_claimed(self, rel: str) -> InboxOutcome:
        """Check and ingest the claimed `.work/<rel>`, then move it on."""
        work = self.root / WORK / rel
        user: str | None = None
        try:
            user = self.owner(rel)
            self._check(work)
            done = _free(self.root / DONE / rel)
            report = self._facts.ingest_transcript(
                user, work, user_only=self._user_only, llm=self._llm, model=self._model,
                base_url=self._base_url, name=str(done))
        except Exception as exc:  # noqa: BLE001 - every refusal is recorded with the file, and the inbox goes on
            text = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
            return self._refuse(rel, user, _one_line(text.replace(str(work), rel)))
        if os.environ.get(CRASH_HOOK) == "1":
            os._exit(75)
        done.parent.mkdir(parents=True, exist_ok=True)
        os.rename(work, done)
        return InboxOutcome(rel, user, done, report=report)

    def _check(self, work: Path) -> None:
        info = os.lstat(work)
        if stat.S_ISLNK(info.st_mode):
            raise InputError("a symlink: the inbox reads only regular files inside it")
        if stat.S_ISDIR(info.st_mode):
            raise InputError("a folder: put transcript files directly in the inbox or in DIR/<user>/")
        if not stat.S_ISREG(info.st_mode):
            raise InputError("not a regular file")
        if work.suffix.lower() not in SUFFIXES:
            raise InputError(f"unknown transcript type {work.suffix!r}; use one of {sorted(SUFFIXES)}")
        if info.st_size > MAX_TRANSCRIPT_BYTES:
            raise InputError(f"file is {info.st_size} bytes; at most {MAX_TRANSCRIPT_BYTES} are allowed")

    def _refuse(self, rel: str, user: str | None, reason: str) -> InboxOutcome:
        failed = _free(self.root / FAILED / rel)
        failed.parent.mkdir(parents=True, exist_ok=True)
        note = failed.with_name(failed.name + REASON_SUFFIX)
        partial = note.with_name(note.name + ".part")
        partial.write_text(reason + "\n", encoding="utf-8")
        os.replace(partial, note)
        os.rename(self.root / WORK / rel, failed)
        return InboxOutcome(rel, user, failed, reason=reason)

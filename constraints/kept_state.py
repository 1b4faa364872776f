"""The alert state a long-lived process keeps between runs (`KeptStates`).

`alerts.json` is parsed once, then each use checks the file's identity (device, inode,
size, mtime, ctime) against the one it had when it was read or written here: unchanged,
the state kept is used; changed or gone, the file is read again. Every writer replaces
the file (a new inode) under the state's lock file, and the identity is taken under that
lock, so a state written by another process is always seen.

A write renders the same bytes `AlertState.save` does (`Format.dump`, indent 1, keys
sorted), but each alert's JSON text is kept from the last write: a run that changed a
few alerts renders only those (through the pydantic models, as `save` does) and joins
the rest. The file is still written whole and atomically (`factlog.durable.replace_file`).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Hashable
from dataclasses import replace
from pathlib import Path

from constraints.state import HISTORY_LIMIT, ActiveAlert, AlertState, ResolvedAlert, stored_entry
from factlog.durable import replace_file

Identity = tuple[int, int, int, int, int]
Entry = ActiveAlert | ResolvedAlert


def identity_of(st: os.stat_result) -> Identity:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _json(value: object) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)


class _Kept:
    __slots__ = ("identity", "state", "texts")

    def __init__(self) -> None:
        self.identity: Identity | None = None
        self.state = AlertState()
        self.texts: dict[Hashable, str] = {}  # entry -> its JSON text, as a list item


class KeptStates:
    """Alert states by file path, for the runs of one process (`evaluate_and_record`)."""

    def __init__(self) -> None:
        self._kept: dict[str, _Kept] = {}
        self._lock = threading.Lock()
        self.reads = 0  # files parsed (a state not kept, or changed by another process)

    def _entry(self, path: Path) -> _Kept:
        with self._lock:
            return self._kept.setdefault(str(path), _Kept())

    def load(self, path: Path) -> AlertState:
        """The state in `path` (empty when there is none); call it holding the state's lock."""
        kept = self._entry(path)
        try:
            with open(path, "rb") as handle:
                found = identity_of(os.fstat(handle.fileno()))
                if found == kept.identity:
                    return kept.state
                data = handle.read()
        except FileNotFoundError:
            kept.identity, kept.state = None, AlertState()
            return kept.state
        self.reads += 1
        kept.identity = None
        state = AlertState.parse(data, source=str(path))
        kept.identity, kept.state = found, state
        return state

    def save(self, path: Path, state: AlertState) -> None:
        """`state.save(path)`, re-rendering only the entries not written before; call it
        holding the state's lock."""
        kept = self._entry(path)
        state = replace(state, history=state.history[-HISTORY_LIMIT:])
        texts: dict[Hashable, str] = {}
        data = render(state, kept.texts, texts).encode("utf-8")
        kept.identity = None  # until the new file is in place
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        replace_file(Path(path), data)
        kept.texts = texts
        try:
            kept.identity, kept.state = identity_of(os.stat(path)), state
        except OSError:
            pass

    def forget(self, path: Path) -> None:
        with self._lock:
            self._kept.pop(str(path), None)


def _key(entry: Entry) -> Hashable:
    """What an entry's text depends on: the entry, and the offsets of its moments (equal
    moments in two zones are equal, but are written apart)."""
    if isinstance(entry, ResolvedAlert):
        return entry, entry.raised_at.utcoffset(), entry.resolved_at.utcoffset()
    return entry, entry.raised_at.utcoffset()


def render(state: AlertState, known: dict[Hashable, str], texts: dict[Hashable, str]) -> str:
    """`state` as `AlertState.save` writes it (history already bounded). `known`: entry
    texts of the last write; `texts` gets the texts of this one."""

    def items(entries: tuple[Entry, ...]) -> str:
        if not entries:
            return "[]"
        parts = []
        for entry in entries:
            key = _key(entry)
            try:
                text = known.get(key)
                hashable = True
            except TypeError:  # an alert holding a list (a user constraint's): not kept
                text, hashable = None, False
            if text is None:
                text = _json(stored_entry(entry)).replace("\n", "\n  ")
            if hashable:
                texts[key] = text
            parts.append(text)
        return "[\n  " + ",\n  ".join(parts) + "\n ]"

    from constraints.alert_state_file import AlertStateFile  # pydantic: only where state is written

    evaluated = None if state.evaluated_at is None else state.evaluated_at.isoformat()  # as IsoDateTime
    return ("{\n \"active\": " + items(state.active)
            + ",\n \"evaluated_at\": " + _json(evaluated)
            + f",\n \"format\": {AlertStateFile.FORMAT}"
            + ",\n \"history\": " + items(state.history)
            + ",\n \"version\": " + _json(state.version)
            + "\n}\n")

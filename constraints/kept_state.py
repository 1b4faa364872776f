"""The alert state a long-lived process keeps between runs (`KeptStates`).

`alerts.json` is parsed once, then each use checks the file's identity (device, inode,
size, mtime, ctime) against the one it had when it was read or written here: unchanged,
the state kept is used; changed or gone, the file is read again. Every writer replaces
the file (a new inode) under the state's lock file, and the identity is taken under that
lock, so a state written by another process is always seen.

A write renders the same bytes `AlertState.save` does (`Format.dump`, indent 1, keys
sorted), but each entry's JSON text is kept from the last write, by the identity of the
entry object (kept alive with its text, so an identity is never another object's): a run
that carried its entries over (`evaluate_and_record` keeps the `ActiveAlert` of an alert
that did not change) renders only the new ones and joins the rest, hashing nothing. The
file is still written whole and atomically (`factlog.durable.replace_file`).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace
from pathlib import Path

from constraints.state import HISTORY_LIMIT, ActiveAlert, AlertState, ResolvedAlert, _plain_entry, model_entry
from factlog.durable import replace_file

Identity = tuple[int, int, int, int, int]
Entry = ActiveAlert | ResolvedAlert
Texts = dict[int, tuple[Entry, str]]


def identity_of(st: os.stat_result) -> Identity:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _json(value: object) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)


class _Kept:
    __slots__ = ("identity", "state", "texts")

    def __init__(self) -> None:
        self.identity: Identity | None = None
        self.state = AlertState()
        self.texts: Texts = {}  # id(entry) -> (the entry, its JSON text as a list item)


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
        texts: Texts = {}
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


def state_bytes(state: AlertState) -> bytes:
    """The state as `alerts.json` holds it once saved (history bounded): what `KeptStates.save`
    and `AlertState.save` write, and what PostgreSQL keeps."""
    return render(replace(state, history=state.history[-HISTORY_LIMIT:]), {}, {}).encode("utf-8")


def render(state: AlertState, known: Texts, texts: Texts) -> str:
    """`state` as `AlertState.save` writes it (history already bounded). `known`: entry
    texts of the last write, by entry identity; `texts` gets the texts of this one."""

    def items(entries: tuple[Entry, ...]) -> str:
        if not entries:
            return "[]"
        parts = []
        get = known.get
        for entry in entries:
            key = id(entry)
            found = get(key)
            if found is not None and found[0] is entry:
                text = found[1]
            else:
                plain = _plain_entry(entry)
                text = _json(model_entry(entry) if plain is None else plain).replace("\n", "\n  ")
                if plain is None:  # values of other types (a user constraint's list): not kept
                    parts.append(text)
                    continue
            texts[key] = (entry, text)
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

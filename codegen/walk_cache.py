"""Walks of chunk lists kept on disk by part key, for a new process.

A process keeps the walk of each chunk list it validated (`codegen.validate`); a new one
(`uac checkpoint`, the warm worker's first checkpoint) finds here the walks of the chunk
lists that did not change, one file per chunk list, instead of reading the version's
manifest pieces or walking the records again.

A part key names the walk of exactly one chunk list's records: the chunk module's content,
its class module's included, the list's name and whether entity ids were given
(`codegen.validate.chunk_runs`). Entity ids also depend on the facts the records cite,
so an entry carries the scope it was walked in (the store's forget epoch) and is used in
that scope only. An entry is one file named by the sha256 of its key, headed by a magic,
the sha256 of its key, of its scope and of its payload (the walk as `marshal` of plain
values); it is used only when all of these match. A missing, stale, torn or corrupt entry
is not used (the caller takes the walk from elsewhere), and a failure to write one only
costs that time later.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import uuid
from collections.abc import Collection, Mapping
from pathlib import Path

from codegen.gc_pause import gc_paused
from codegen.manifest import ClassInfo, Key, Part, RecordInfo

_MAGIC = b"UACWALK1"
_SUFFIX = ".walk"
_HEADER = len(_MAGIC) + 3 * 32


def _name(key: Key) -> str:
    return hashlib.sha256(str(key).encode("utf-8", "surrogatepass")).hexdigest()


def _header(key: Key, scope: str, payload: bytes) -> bytes:
    return (_MAGIC + bytes.fromhex(_name(key)) + hashlib.sha256(scope.encode("utf-8", "surrogatepass")).digest()
            + hashlib.sha256(payload).digest())


def entry(key: Key, scope: str, part: Part) -> bytes:
    """The bytes of the entry keeping `part` under `key`, walked in `scope`. Its payload:
    (records as (class, fact ids, entity, values), cited ids ascending, dates as
    {field: (earliest, latest)}, classes as {name: (fields, public)})."""
    records = [(r.record_class, r.fact_ids, r.entity, r.values) for r in part.records]
    classes = {name: (info.fields, info.public) for name, info in part.classes.items()}
    payload = marshal.dumps((records, sorted(part.cited), dict(part.dates), classes))
    return _header(key, scope, payload) + payload


@gc_paused
def read(folder: Path, scope: str, keys: Collection[Key]) -> dict[Key, Part]:
    """The walks `folder` keeps for these keys, walked in `scope` (the others left out)."""
    found: dict[Key, Part] = {}
    for key in keys:
        if not isinstance(key, str):
            continue
        try:
            with open(folder / f"{_name(key)}{_SUFFIX}", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        payload = data[_HEADER:]
        if len(data) <= _HEADER or data[:_HEADER] != _header(key, scope, payload):
            continue
        part = _part(payload)
        if part is not None:
            found[key] = part
    return found


def _part(payload: bytes) -> Part | None:
    try:
        records, cited, dates, classes = marshal.loads(payload)
        return Part([RecordInfo(c, ids, entity, values) for c, ids, entity, values in records],
                    frozenset(cited), {name: (low, high) for name, (low, high) in dates.items()},
                    {name: ClassInfo(fields, public) for name, (fields, public) in classes.items()})
    except (EOFError, ValueError, TypeError):
        return None


@gc_paused
def write(folder: Path, scope: str, parts: Mapping[Key, Part]) -> int:
    """Keep `parts` (walked in `scope`) in `folder`; best effort. Returns how many were written."""
    written = 0
    for key, part in parts.items():
        if not isinstance(key, str):
            continue
        target = folder / f"{_name(key)}{_SUFFIX}"
        temp = folder / f".tmp-{uuid.uuid4().hex}"
        try:
            data = entry(key, scope, part)
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(temp, "xb") as handle:
                handle.write(data)
            os.replace(temp, target)
            written += 1
        except (OSError, ValueError):
            _unlink(temp)
    return written


def prune(folder: Path, keep: Collection[Key], limit: int) -> int:
    """Remove the oldest entries whose key is not in `keep` (and leftovers of interrupted
    writes) until at most `limit` remain; returns how many went."""
    try:
        with os.scandir(folder) as found:
            files = [e for e in found if e.is_file(follow_symlinks=False)]
        if len(files) <= limit:
            return 0
        entries = [(e.stat().st_mtime_ns, e.name) for e in files]
    except OSError:
        return 0
    kept = {f"{_name(key)}{_SUFFIX}" for key in keep}
    doomed = [name for _, name in sorted(entries) if name not in kept]
    for name in doomed[:len(entries) - limit]:
        _unlink(folder / name)
    return min(len(doomed), len(entries) - limit)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


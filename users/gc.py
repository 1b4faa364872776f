"""Garbage collection of one user's stored versions (`VersionStore.gc`, `uac gc`).

Retention: with `keep` = N, the newest N versions (by number) stay, and so does the
current version, which after a rollback may be older; every other version is removed
(it can no longer be shown, diffed or rolled back to; `events.jsonl` keeps its lines).
`keep` None keeps every version. The newest version always stays, so version numbers are
never reused.

Then every blob that no remaining version links (link count 1: only its own name) nor
names in its manifest's tree (`users.manifest_parts.referenced`) is removed, and every
tree blob of the piece store (`users.piece_store`) no remaining tree names, with the
leftovers of interrupted writes (`.tmp-*`). If a remaining manifest cannot be read whole,
no blob is removed (the version fails `verify`). The caller holds the user's
lock, so no publish runs meanwhile. A version is first renamed out of sight (atomically),
then deleted, so a crash midway leaves only temp entries, which the next writer removes.
"""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from codegen.manifest_file import MANIFEST_FILE
from factlog import durable as fsio
from factlog.errors import InputError
from factlog.model import JsonValue
from users.blobs import blob_files, blobs_dir
from users.manifest_parts import referenced
from users.piece_store import piece_store, tree_reader
from users.versions import VERSION_NAME, version_name


@dataclass(frozen=True)
class GcReport:
    """What one collection removed."""

    user: str
    versions: tuple[int, ...]  # version numbers removed
    blobs: int  # blobs no version linked any more
    bytes: int  # of the files whose last link went (blobs, meta.json, plain copies) and the rows removed
    temp: int  # leftovers of interrupted writes

    def to_json(self) -> dict[str, JsonValue]:
        return {"user": self.user, "versions": list(self.versions), "blobs": self.blobs,
                "bytes": self.bytes, "temp": self.temp}


def check_keep(keep: object) -> int | None:
    """The retention from untrusted input: None (keep every version) or a count of 1 or more."""
    if keep is None:
        return None
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise InputError(f"keep={keep!r}: the number of versions to keep must be 1 or more")
    return keep


def doomed(numbers: Sequence[int], current: int | None, keep: int | None) -> list[int]:
    """The versions retention removes: all but the newest `keep` and the current one."""
    if keep is None:
        return []
    kept = set(sorted(numbers)[-keep:]) | ({current} if current is not None else set())
    return [n for n in sorted(numbers) if n not in kept]


def _unique_bytes(folder: Path) -> int:
    """Bytes of the files under `folder` that no other name links."""
    total = 0
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
                total += st.st_size
    return total


def named_blobs(folder: Path) -> set[str] | None:
    """Every blob the manifests of the versions in `folder` name (their parts and pieces,
    which are not linked); None when one cannot be read whole: then no unlinked blob can
    be known to be garbage, and none is removed."""
    named: set[str] = set()
    with tree_reader(folder) as blob:
        for entry in folder.iterdir():
            top = entry / MANIFEST_FILE
            if not VERSION_NAME.fullmatch(entry.name) or not top.is_file():
                continue
            try:
                named |= referenced(top.read_bytes(), blob, str(top))
            except (OSError, InputError):
                return None
    return named


def collect(user: str, folder: Path, remove: Sequence[int]) -> GcReport:
    """Remove the versions `remove`, then temp leftovers and unlinked blobs, from the user
    folder `folder` (under the user's lock)."""
    temp = [entry for entry in folder.iterdir() if entry.name.startswith(fsio.TEMP_PREFIX)]
    freed = 0
    for entry in temp:
        freed += _unique_bytes(entry) if entry.is_dir() and not entry.is_symlink() else 0
        fsio.remove_tree(entry)
    doomed_dirs = []
    for number in remove:
        path = folder / version_name(number)
        gone = folder / f"{fsio.TEMP_PREFIX}gc-{path.name}-{uuid.uuid4().hex}"
        os.rename(path, gone)
        doomed_dirs.append(gone)
    if doomed_dirs:
        fsio.fsync_dir(folder)  # out of sight for good before anything is deleted
    for gone in doomed_dirs:
        freed += _unique_bytes(gone)
        fsio.remove_tree(gone)
    blobs = 0
    named = named_blobs(folder)
    garbage = [] if named is None else [b for b in blob_files(folder) if b.name not in named]
    for blob in garbage:
        st = blob.stat(follow_symlinks=False)
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            os.unlink(blob.path)
            blobs += 1
            freed += st.st_size
    if blobs:
        fsio.fsync_dir(blobs_dir(folder))
    if named is not None:
        store = piece_store(folder)
        rows = {sha: size for sha, size in store.sizes().items() if sha not in named}
        store.remove(rows)
        blobs += len(rows)
        freed += sum(rows.values())
    return GcReport(user, tuple(remove), blobs, freed, len(temp))

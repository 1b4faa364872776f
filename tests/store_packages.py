"""Packages and manifests for the blob store tests: many chunk files, and a manifest whose
collection is cut into parts (one per chunk), built directly (no compiler, no validator)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from codegen.manifest import ClassInfo, CollectionInfo, Manifest, RecordInfo
from users.blobs import blob_files
from users.piece_store import PIECES_FILE
from users.versions import PublishMeta

PER_CHUNK = 50


def _chunk_name(index: int) -> str:
    return f"trip_{index:03d}"


def _city(record: int, edits: dict[int, str]) -> str:
    return edits.get(record, f"City {record}")


def package(chunks: int, edits: dict[int, str] | None = None, per_chunk: int = PER_CHUNK) -> dict[str, str]:
    """`chunks` chunk files of `per_chunk` trips each; `edits` renames some records' city."""
    edits = edits or {}
    files = {"trip.py": "from dataclasses import dataclass, field\n\n\n@dataclass(frozen=True)\nclass Trip:\n"
                        "    city: str\n    fact_ids: list[int] = field(default_factory=list)\n"}
    names = []
    for index in range(chunks):
        name = _chunk_name(index)
        names.append(name)
        rows = "".join(f"    Trip(city={_city(r, edits)!r}, fact_ids=[{r + 1}]),\n"
                       for r in range(index * per_chunk, (index + 1) * per_chunk))
        files[f"{name}.py"] = f"from .trip import Trip\n\n_{name}: list[Trip] = [\n{rows}]\n"
    imports = "".join(f"from .{n} import _{n}\n" for n in names)
    files["__init__.py"] = (f"from .trip import Trip as Trip\n{imports}\n"
                            f"trips: list[Trip] = [{', '.join(f'*_{n}' for n in names)}]\n")
    return files


def manifest(chunks: int, edits: dict[int, str] | None = None, *, parted: bool = True,
             per_chunk: int = PER_CHUNK) -> Manifest:
    """The manifest of `package(chunks, edits)`, its collection in one part per chunk."""
    edits = edits or {}
    records = [RecordInfo("Trip", [r + 1], f"trip/{r}", {"city": _city(r, edits)})
               for r in range(chunks * per_chunk)]
    trips = CollectionInfo(singular=False, record_class="Trip", size=len(records), records=records,
                           parts=[per_chunk] * chunks if parted else [])
    return Manifest(names=["Trip", "trips"], classes={"Trip": ClassInfo(fields=[("city", "str"),
                                                                               ("fact_ids", "list[int]")])},
                    collections={"trips": trips})


def meta(position: int) -> PublishMeta:
    return PublishMeta(log_position=position, input_hash=f"sha256-{position}", producer="compiler")


def inodes(folder: Path) -> dict[int, int]:
    """Inode -> size of every file under `folder`."""
    found = {}
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            found[st.st_ino] = st.st_size
    return found


def rows(folder: Path) -> dict[str, bytes]:
    """The tree blobs a user folder's piece store holds (sha256 -> bytes)."""
    path = folder / PIECES_FILE
    if not path.exists():
        return {}
    conn = sqlite3.connect(path)
    try:
        return {bytes(sha).hex(): bytes(data) for sha, data in conn.execute("SELECT sha, data FROM piece")}
    finally:
        conn.close()


def set_row(folder: Path, sha: str, data: bytes | None) -> None:
    """Change (or, with None, delete) a tree blob of the piece store behind the store's back."""
    conn = sqlite3.connect(folder / PIECES_FILE, isolation_level=None)
    try:
        if data is None:
            conn.execute("DELETE FROM piece WHERE sha = ?", (bytes.fromhex(sha),))
        else:
            conn.execute("UPDATE piece SET data = ? WHERE sha = ?", (data, bytes.fromhex(sha)))
    finally:
        conn.close()


def stored_sizes(folder: Path) -> dict[str, int]:
    """Every blob of a user folder, files and rows: name -> size."""
    found = {e.name: e.stat().st_size for e in blob_files(folder)}
    found.update({sha: len(data) for sha, data in rows(folder).items()})
    return found


def added_bytes(before: dict[int, int], after: dict[int, int]) -> int:
    """What a step added on disk (`inodes` before and after): new files, and the growth of
    files that were there (the piece store)."""
    return sum(size - before.get(ino, 0) for ino, size in after.items() if size > before.get(ino, 0))

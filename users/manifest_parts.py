"""A version's manifest stored in parts, so that a new version stores only the parts that changed.

A manifest whose collections have `parts` (runs of records, one per chunk list of the
package) is stored as:

- `manifest.json`: a small index (`ManifestIndex`): the manifest with the records of every
  parted collection left out, and per such collection the sha256 of each of its parts, in
  order;
- `manifest.<sha256>.json`: each part, the JSON list of its records as `Manifest.dump`
  writes them, named by the hash of its bytes (a blob, shared by every version holding
  the same records).

`meta.json` records the sha256 of `manifest.json`, which names every part's hash, so the
whole manifest is covered. Reading reassembles the manifest and checks each part against
its name. A manifest without parts (versions written before parts, other producers'
modules) is stored whole in `manifest.json`, as it always was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, ClassVar

from pydantic import Field

from codegen.manifest import Manifest, RecordInfo, records_json
from factlog.errors import InputError
from factlog.formats import Format
from users.blobs import digest

PART_FILE = re.compile(r"manifest\.([0-9a-f]{64})\.json", re.ASCII)


Sha256 = Annotated[str, Field(strict=True, pattern=r"^[0-9a-f]{64}$")]


class ChangedPart(InputError):
    """A part's bytes differ from the hash that names it."""


def part_name(sha256: str) -> str:
    return f"manifest.{sha256}.json"


class ManifestIndex(Format):
    """`manifest.json` of a manifest stored in parts."""

    FORMAT: ClassVar[int] = 1

    manifest: dict[str, Any]  # the manifest's JSON, the parted collections' records left out
    parts: Annotated[dict[str, list[Sha256]], Field(min_length=1)]  # collection -> each part's sha256, in order


def _runs(size: int, parts: Sequence[int]) -> list[tuple[int, int]] | None:
    """(start, end) of each run, or None unless `parts` cuts exactly `size` records."""
    if not parts or any(type(n) is not int or n < 0 for n in parts) or sum(parts) != size:
        return None
    runs, start = [], 0
    for n in parts:
        runs.append((start, start + n))
        start += n
    return runs


class PartCache:
    """The parts of the manifest split last (for one user), by the identity of their
    records: a run made of the very same `RecordInfo` objects (the validator keeps the walk
    of an unchanged chunk) is not encoded and hashed again. Identity, not equality: the
    cache holds the records, so their ids cannot be reused while it is consulted."""

    def __init__(self) -> None:
        self._runs: dict[tuple[int, int], tuple[list[RecordInfo], bytes, str]] = {}
        self._used: dict[tuple[int, int], tuple[list[RecordInfo], bytes, str]] = {}
        self.encoded = 0  # runs encoded (not found)

    def part(self, run: list[RecordInfo]) -> tuple[bytes, str]:
        key = (id(run[0]) if run else 0, len(run))
        hit = self._runs.get(key) or self._used.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], run)):
            data = records_json(run).encode("utf-8")
            hit = (run, data, digest(data))
            self.encoded += 1
        self._used[key] = hit
        return hit[1], hit[2]

    def done(self) -> None:
        """Keep only what the last split used."""
        self._runs, self._used = self._used, {}


def split(manifest: Manifest, cache: PartCache | None = None) -> tuple[bytes, dict[str, bytes]]:
    """The bytes of `manifest.json` and the parts it names (sha256 -> bytes). A manifest
    without parts gives its whole JSON and no parts."""
    cache = cache or PartCache()
    hashes: dict[str, list[str]] = {}
    blobs: dict[str, bytes] = {}
    skeleton = {}
    for name, collection in manifest.collections.items():
        runs = _runs(len(collection.records), collection.parts)
        if runs is None:
            continue
        for start, end in runs:
            data, sha = cache.part(collection.records[start:end])
            blobs[sha] = data
            hashes.setdefault(name, []).append(sha)
        skeleton[name] = collection.model_copy(update={"records": []})
    cache.done()
    if not hashes:
        return (manifest.dump() + "\n").encode("utf-8"), {}
    bare = manifest.model_copy(update={"collections": {**manifest.collections, **skeleton}})
    index = (f'{{"format":{ManifestIndex.FORMAT},"manifest":{bare.dump()},'
             f'"parts":{json.dumps(hashes, sort_keys=True, separators=(",", ":"))}}}\n')
    return index.encode("utf-8"), blobs


def _document(data: bytes, source: str) -> dict[str, Any]:
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{source}: not valid JSON ({type(exc).__name__})") from None
    if not isinstance(document, dict):
        raise InputError(f"{source}: expected a JSON object")
    return document


def index_of(data: bytes, source: str) -> ManifestIndex | None:
    """The index `manifest.json` holds, or None when it holds a whole manifest."""
    document = _document(data, source)
    if "parts" not in document:  # a whole manifest has no top-level `parts`
        return None
    return ManifestIndex.load(document, source=source)


def read_manifest(data: bytes, read_part: Callable[[str], bytes], source: str) -> Manifest:
    """The manifest from the bytes of `manifest.json` (already checked against `meta.json`)
    and `read_part(name)` giving a part file's bytes; InputError naming a part whose bytes do
    not match its hash."""
    document = _document(data, source)
    if "parts" not in document:
        return Manifest.load(document, source=source)
    index = ManifestIndex.load(document, source=source)
    whole = index.manifest
    collections = whole.get("collections")
    if not isinstance(collections, dict):
        raise InputError(f"{source}: the manifest has no collections")
    for name, hashes in index.parts.items():
        collection = collections.get(name)
        if not isinstance(collection, dict):
            raise InputError(f"{source}: parts of an unknown collection {name!r}")
        records: list[Any] = []
        sizes = []
        for sha in hashes:
            part = read_part(part_name(sha))
            if digest(part) != sha:
                raise ChangedPart(f"{part_name(sha)} changed since it was published")
            run = json.loads(part)
            if not isinstance(run, list):
                raise InputError(f"{part_name(sha)}: expected a JSON list of records")
            records += run
            sizes.append(len(run))
        collection["records"] = records
        collection["parts"] = sizes
    return Manifest.load(whole, source=source)


def part_hashes(data: bytes, source: str) -> list[str]:
    """Every part `manifest.json` names (none for a whole manifest)."""
    index = index_of(data, source)
    return [] if index is None else [sha for hashes in index.parts.values() for sha in hashes]


def part_files(blobs: Mapping[str, bytes]) -> dict[str, bytes]:
    """Part file name -> bytes."""
    return {part_name(sha): data for sha, data in blobs.items()}

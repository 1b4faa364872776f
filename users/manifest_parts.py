"""A version's manifest stored as a tree of blobs, so a new version stores only what changed.

A manifest whose collections have `parts` (runs of records, one per chunk list of the
package) is stored as:

- `manifest.json` (in the version folder): a small index (`ManifestIndex`): the manifest
  with the records of every parted collection left out, and per such collection the
  sha256 of each part's blob, in order;
- a part blob: the JSON list of the sha256 of its pieces, in order;
- a piece blob: the JSON list of at most PIECE consecutive records of the part, each as
  `Manifest.dump` writes it.

Part and piece blobs live in the user's blob store (`users.blobs`), named by the sha256 of
their bytes, shared by every version holding the same records, and are not linked into
version folders (a version would need thousands of links): `gc` keeps every blob a
remaining version's tree names (`referenced`). A new version stores its index, and for
each run of records that changed, one piece of PIECE records and its part's list.

`meta.json` records the sha256 of `manifest.json`, which names every part's hash, each
naming its pieces' hashes: the whole manifest is covered. Reading reassembles it and checks
every blob against its name. A manifest without parts (versions written before parts,
other producers' modules) is stored whole in `manifest.json`, as it always was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from factlog import strict_json as J
from factlog.errors import InputError
from users.blobs import digest

if TYPE_CHECKING:  # the manifest's code loads where a manifest is split or read, not to check a version
    from codegen.manifest import Manifest, RecordInfo

PIECE = 100  # records per piece blob: what one changed record costs to store again

_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)
Blob = Callable[[str], bytes]  # sha256 -> the blob's bytes (OSError if it cannot be read)


class ChangedPart(InputError):
    """A blob of the manifest's tree is missing, or its bytes differ from the hash naming it."""


@dataclass(frozen=True)
class ManifestIndex:
    """`manifest.json` of a manifest stored in parts (read strictly, without pydantic: a
    manifest is read on query and recall paths)."""

    FORMAT: ClassVar[int] = 1

    manifest: dict[str, Any]  # the manifest's JSON, the parted collections' records left out
    parts: dict[str, list[str]]  # collection -> each part's sha256 (at least one collection)

    @classmethod
    def load(cls, data: object, *, source: str) -> ManifestIndex:
        return J.read_document(data, source=source, current=cls.FORMAT, read=_read_index)


def _sha256(value: object, where: J.Where) -> str:
    return J.text(value, where, pattern=_SHA256)


def _read_index(body: dict[str, Any]) -> ManifestIndex:
    data = J.fields(body, (), ("manifest", "parts"))
    manifest = data["manifest"]
    if type(manifest) is not dict:
        J.fail(("manifest",), "expected a JSON object")
    parts = J.dict_of(J.any_text, J.list_of(_sha256))(data["parts"], ("parts",))
    if not parts:
        J.fail(("parts",), "expected at least 1 collection")
    return ManifestIndex(manifest, parts)


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
    """The pieces of the manifest split last (for one user), by the identity of their
    records: a piece made of the very same `RecordInfo` objects (the validator keeps the
    walk of an unchanged chunk) is not encoded and hashed again. Identity, not equality:
    the cache holds the records, so their ids cannot be reused while it is consulted."""

    def __init__(self) -> None:
        self._runs: dict[tuple[int, int], tuple[list[RecordInfo], bytes, str]] = {}
        self._used: dict[tuple[int, int], tuple[list[RecordInfo], bytes, str]] = {}
        self.encoded = 0  # pieces encoded (not found)

    def piece(self, run: list[RecordInfo]) -> tuple[bytes, str]:
        key = (id(run[0]) if run else 0, len(run))
        hit = self._runs.get(key) or self._used.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[0], run)):
            from codegen.manifest import records_json

            data = records_json(run).encode("utf-8")
            hit = (run, data, digest(data))
            self.encoded += 1
        self._used[key] = hit
        return hit[1], hit[2]

    def done(self) -> None:
        """Keep only what the last split used."""
        self._runs, self._used = self._used, {}


def _list(hashes: list[str]) -> bytes:
    return json.dumps(hashes, separators=(",", ":")).encode("ascii")


def split(manifest: Manifest, cache: PartCache | None = None) -> tuple[bytes, dict[str, bytes]]:
    """The bytes of `manifest.json` and the blobs of its tree (sha256 -> bytes). A manifest
    without parts gives its whole JSON and no blobs."""
    cache = cache or PartCache()
    hashes: dict[str, list[str]] = {}
    blobs: dict[str, bytes] = {}
    skeleton = {}
    for name, collection in manifest.collections.items():
        runs = _runs(len(collection.records), collection.parts)
        if runs is None:
            continue
        for start, end in runs:
            pieces = []
            for at in range(start, end, PIECE) if end > start else [start]:
                data, sha = cache.piece(collection.records[at:min(at + PIECE, end)])
                blobs[sha] = data
                pieces.append(sha)
            part = _list(pieces)
            part_sha = digest(part)
            blobs[part_sha] = part
            hashes.setdefault(name, []).append(part_sha)
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


def _checked(blob: Blob, sha: str, what: str) -> list[Any]:
    """The JSON list a blob of the tree holds, its bytes checked against its name."""
    try:
        data = blob(sha)
    except OSError:
        raise ChangedPart(f"manifest {what} {sha} is missing") from None
    if digest(data) != sha:
        raise ChangedPart(f"manifest {what} {sha} changed since it was published")
    try:
        found = json.loads(data)
    except ValueError:
        found = None
    if not isinstance(found, list):
        raise ChangedPart(f"manifest {what} {sha} is not a JSON list")
    return found


def _tree(index: ManifestIndex, blob: Blob) -> Iterator[tuple[str, list[list[Any]]]]:
    """(collection, its parts as lists of records), every blob checked."""
    for name, hashes in index.parts.items():
        parts = []
        for part_sha in hashes:
            records: list[Any] = []
            for piece_sha in _checked(blob, part_sha, "part"):
                if not isinstance(piece_sha, str):
                    raise ChangedPart(f"manifest part {part_sha} names a piece that is not a hash")
                records += _checked(blob, piece_sha, "piece")
            parts.append(records)
        yield name, parts


def index_of(data: bytes, source: str) -> ManifestIndex | None:
    """The index `manifest.json` holds, or None when it holds a whole manifest."""
    document = _document(data, source)
    if "parts" not in document:  # a whole manifest has no top-level `parts`
        return None
    return ManifestIndex.load(document, source=source)


def read_manifest(data: bytes, blob: Blob, source: str) -> Manifest:
    """The manifest from the bytes of `manifest.json` (already checked against `meta.json`)
    and `blob(sha256)` reading the user's blobs; `ChangedPart` for a missing or changed blob."""
    from codegen.manifest import Manifest

    document = _document(data, source)
    if "parts" not in document:
        return Manifest.load(document, source=source)
    index = ManifestIndex.load(document, source=source)
    whole = index.manifest
    collections = whole.get("collections")
    if not isinstance(collections, dict):
        raise InputError(f"{source}: the manifest has no collections")
    for name, parts in _tree(index, blob):
        collection = collections.get(name)
        if not isinstance(collection, dict):
            raise InputError(f"{source}: parts of an unknown collection {name!r}")
        collection["records"] = [record for part in parts for record in part]
        collection["parts"] = [len(part) for part in parts]
    return Manifest.load(whole, source=source)


def referenced(data: bytes, blob: Blob, source: str) -> set[str]:
    """Every blob the tree under `manifest.json` names (none for a whole manifest);
    `ChangedPart` (or InputError) when it cannot be read whole."""
    index = index_of(data, source)
    if index is None:
        return set()
    found: set[str] = set()
    for hashes in index.parts.values():
        for part_sha in hashes:
            found.add(part_sha)
            found.update(str(sha) for sha in _checked(blob, part_sha, "part"))
    for sha in found:  # every piece is there and as published
        if len(sha) != 64:
            raise ChangedPart(f"manifest names {sha!r}, which is not a hash")
    return found

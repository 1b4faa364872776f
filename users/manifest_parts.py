"""A version's manifest stored as a tree of blobs, so a new version stores only what changed.

A manifest whose collections have `parts` (runs of records, one per chunk list of the
package) is stored as:

- `manifest.json` (in the version folder): a small index (`ManifestIndex`): the manifest
  with the records of every parted collection left out, and per such collection the
  sha256 of each part's blob, in order;
- a part blob: the JSON list of the sha256 of its pieces, in order; or, for a part the
  validator walked under a part key (`codegen.validate.chunk_runs`), a JSON object holding
  that list (`pieces`) and the rest of the walk (`PartWalk`): the key, the cited ids beyond
  the records' own, the date ranges and the records' classes;
- a piece blob: the JSON list of at most PIECE consecutive records of the part, each as
  `Manifest.dump` writes it.

A part key names the chunk module's content and its class module's, so a walk stored under
it is the walk of the same records: a new process takes the walks of unchanged chunk lists
from the current version (`stored_parts`) instead of walking them again. Every blob read is
checked against its name; a part that cannot be read whole is simply walked again.

Part and piece blobs live in the user's piece store (`users.piece_store`: rows of one
SQLite table, stored in one transaction per version), named by the sha256 of their bytes,
shared by every version holding the same records, and are not linked into version folders
(a version would need thousands of links): `gc` keeps every blob a remaining version's
tree names (`referenced`). A new version stores its index, and for each run of records
that changed, one piece of PIECE records and its part's list: the parts of unchanged runs,
known to be stored (`PartCache`), are neither encoded nor written. Index format 1 (written
before the piece store) kept them as files in the blob folder; they are read from there
(`users.piece_store.tree_reader`), and format 2 trees may name such files too (parts
unchanged since).

`meta.json` records the sha256 of `manifest.json`, which names every part's hash, each
naming its pieces' hashes: the whole manifest is covered. Reading reassembles it and checks
every blob against its name. A manifest without parts (versions written before parts,
other producers' modules) is stored whole in `manifest.json`, as it always was.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar

from factlog import strict_json as J
from factlog.errors import InputError
from users.blobs import digest

if TYPE_CHECKING:  # the manifest's code loads where a manifest is split or read, not to check a version
    from codegen.manifest import Manifest, Part, RecordInfo

    Walks = Mapping[str, Sequence[tuple[object, Part]]]  # collection -> each run's part key and walk

PIECE = 12  # records per piece blob: what one changed record costs to store again

_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)
Blob = Callable[[str], bytes]  # sha256 -> the blob's bytes (OSError if it cannot be read)


class ChangedPart(InputError):
    """A blob of the manifest's tree is missing, or its bytes differ from the hash naming it."""


@dataclass(frozen=True)
class ManifestIndex:
    """`manifest.json` of a manifest stored in parts (read strictly, without pydantic: a
    manifest is read on query and recall paths)."""

    FORMAT: ClassVar[int] = 2  # 1: the same index, its tree blobs files of the blob folder

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
    """What one user's store knows of manifest parts, so that a new version costs its
    changed runs only:

    - pieces of the manifest split last, by the identity of their records: a piece made
      of the very same `RecordInfo` objects is not encoded and hashed again;
    - part blobs by the identity of the validator's walk (`Part`) they were made from;
    - the parts known stored in full (the part blob and every piece, written by this
      process or read and checked), for the version `base` names: while that version is
      still the one a new version builds on, the blobs its tree names are kept (`gc`
      removes only what no remaining version names), so they are not written again;
    - the walks of that version by part key (`stored_parts`).

    Identity, not equality: the cache holds the objects, so their ids cannot be reused
    while it is consulted."""

    def __init__(self) -> None:
        self._runs: dict[tuple[int, int], tuple[list[RecordInfo], bytes, str]] = {}
        self._used: dict[tuple[int, int], tuple[list[RecordInfo], bytes, str]] = {}
        self._walks: dict[int, tuple[Part, str]] = {}  # id(walk) -> (walk, its part blob's sha)
        self._walks_used: dict[int, tuple[Part, str]] = {}
        self.encoded = 0  # pieces encoded (not found)
        self.base: object = None  # the version `stored` and `keys` describe (None: none)
        self.stored: set[str] = set()  # part blobs stored in full under `base`
        self.keys: dict[str, tuple[str, Part]] = {}  # part key -> (part sha, walk) under `base`
        self.all_keys: set[str] = set()  # every part key `base` holds (walks read or not)
        self._pending: tuple[set[str], dict[str, tuple[str, Part]]] = (set(), {})  # of the last split

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

    def walk(self, part: Part) -> str | None:
        """The sha of the part blob made from this very walk, if any."""
        hit = self._walks.get(id(part)) or self._walks_used.get(id(part))
        if hit is None or hit[0] is not part:
            return None
        self._walks_used[id(part)] = hit
        return hit[1]

    def made(self, part: Part, sha: str) -> None:
        self._walks_used[id(part)] = (part, sha)

    def done(self, pending: tuple[set[str], dict[str, tuple[str, Part]]] | None = None) -> None:
        """Keep only what the last split used (and what it would make stored)."""
        self._runs, self._used = self._used, {}
        self._walks, self._walks_used = self._walks_used, {}
        self._pending = pending or (set(), {})

    def published(self, base: object) -> None:
        """The last split was written as the version `base` names: its parts are stored."""
        self.base = base
        self.stored, self.keys = self._pending
        self.all_keys = set(self.keys)
        self._pending = (set(), {})

    def known(self, base: object, stored: set[str], keys: dict[str, tuple[str, Part]], all_keys: set[str]) -> None:
        """Parts read and checked from the version `base` names (see `stored_parts`)."""
        if base != self.base:
            self.forget_stored()
        self.base, self.all_keys = base, all_keys
        self.stored |= stored
        self.keys.update(keys)
        for sha, part in keys.values():
            self._walks[id(part)] = (part, sha)

    def forget_stored(self) -> None:
        self.base, self.stored, self.keys, self.all_keys = None, set(), {}, set()


def _list(hashes: list[str]) -> bytes:
    return json.dumps(hashes, separators=(",", ":")).encode("ascii")


def _aligned(records: Sequence[RecordInfo], runs: list[tuple[int, int]],
             walks: Sequence[tuple[object, Part]] | None) -> Sequence[tuple[object, Part]] | None:
    """The walks, if they are exactly the runs' (same count, sizes and first records)."""
    if walks is None or len(walks) != len(runs):
        return None
    for (start, end), (_, part) in zip(runs, walks):
        if len(part.records) != end - start or (end > start and part.records[0] is not records[start]):
            return None
    return walks


def _part_blob(pieces: list[str], key: object, part: Part | None) -> bytes:
    """A part's list of pieces, with the rest of its walk when it has a part key (text)
    and its cited ids include its records' own (so they can be told apart)."""
    if part is None or not isinstance(key, str):
        return _list(pieces)
    own = set(chain.from_iterable([record.fact_ids for record in part.records]))
    if not own <= part.cited:
        return _list(pieces)
    walk = {
        "classes": {name: {"fields": [list(f) for f in info.fields], "public": info.public}
                    for name, info in part.classes.items()},
        "cited": sorted(part.cited - own),
        "dates": {name: list(span) for name, span in part.dates.items()},
        "key": key,
        "pieces": pieces,
    }
    return json.dumps(walk, sort_keys=True, separators=(",", ":")).encode("ascii")


def split(manifest: Manifest, cache: PartCache | None = None,
          walks: Walks | None = None) -> tuple[bytes, dict[str, bytes]]:
    """The bytes of `manifest.json` and the blobs of its tree to write (sha256 -> bytes):
    all of them, but the parts `cache` knows stored in full (with their pieces). A
    manifest without parts gives its whole JSON and no blobs. `walks` (the validator's,
    `ValidationSuccess.parts`) put each run's walk in its part blob, and let an unchanged
    walk name its part blob without encoding anything."""
    cache = cache or PartCache()
    hashes: dict[str, list[str]] = {}
    blobs: dict[str, bytes] = {}
    skeleton = {}
    every: set[str] = set()
    keyed: dict[str, tuple[str, Part]] = {}
    for name, collection in manifest.collections.items():
        runs = _runs(len(collection.records), collection.parts)
        if runs is None:
            continue
        aligned = _aligned(collection.records, runs, (walks or {}).get(name))
        for number, (start, end) in enumerate(runs):
            key, walk = aligned[number] if aligned is not None else (None, None)
            part_sha = cache.walk(walk) if walk is not None else None
            if part_sha is None or part_sha not in cache.stored:
                pieces = []
                for at in range(start, end, PIECE) if end > start else [start]:
                    data, sha = cache.piece(collection.records[at:min(at + PIECE, end)])
                    blobs[sha] = data
                    pieces.append(sha)
                part = _part_blob(pieces, key, walk)
                part_sha = digest(part)
                blobs[part_sha] = part
                if walk is not None:
                    cache.made(walk, part_sha)
            elif walk is not None:
                cache.made(walk, part_sha)
            every.add(part_sha)
            if isinstance(key, str) and walk is not None:
                keyed[key] = (part_sha, walk)
            hashes.setdefault(name, []).append(part_sha)
        skeleton[name] = collection.model_copy(update={"records": []})
    cache.done((every, keyed))
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


def _read(blob: Blob, sha: str, what: str) -> Any:
    """The JSON a blob of the tree holds, its bytes checked against its name."""
    try:
        data = blob(sha)
    except OSError:
        raise ChangedPart(f"manifest {what} {sha} is missing") from None
    if digest(data) != sha:
        raise ChangedPart(f"manifest {what} {sha} changed since it was published")
    try:
        return json.loads(data)
    except ValueError:
        return None


def _checked(blob: Blob, sha: str, what: str) -> list[Any]:
    """The JSON list a piece blob holds, checked."""
    found = _read(blob, sha, what)
    if not isinstance(found, list):
        raise ChangedPart(f"manifest {what} {sha} is not a JSON list")
    return found


def _part(blob: Blob, sha: str) -> tuple[list[str], dict[str, Any] | None]:
    """A part blob's pieces (checked to be hashes) and its walk, if it holds one."""
    found = _read(blob, sha, "part")
    walk = found if isinstance(found, dict) else None
    pieces = walk.get("pieces") if walk is not None else found
    if not isinstance(pieces, list):
        raise ChangedPart(f"manifest part {sha} is not a JSON list of pieces")
    for piece in pieces:
        if not isinstance(piece, str) or len(piece) != 64:
            raise ChangedPart(f"manifest part {sha} names a piece that is not a hash")
    return pieces, walk


def _tree(index: ManifestIndex, blob: Blob) -> Iterator[tuple[str, list[list[Any]]]]:
    """(collection, its parts as lists of records), every blob checked."""
    for name, hashes in index.parts.items():
        parts = []
        for part_sha in hashes:
            records: list[Any] = []
            for piece_sha in _part(blob, part_sha)[0]:
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
    found: set[str] = set()
    for part_sha, pieces in part_pieces(data, blob, source).items():
        found.add(part_sha)
        found.update(pieces)
    return found


def part_pieces(data: bytes, blob: Blob, source: str,
                known: Mapping[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Each part blob the tree under `manifest.json` names -> the pieces it names (empty for
    a whole manifest); the parts in `known` (whose blobs the caller knows unchanged) are
    not read. `ChangedPart` (or InputError) when it cannot be read whole."""
    index = index_of(data, source)
    if index is None:
        return {}
    found: dict[str, list[str]] = {}
    for hashes in index.parts.values():
        for part_sha in hashes:
            if part_sha not in found:
                pieces = known.get(part_sha) if known is not None else None
                found[part_sha] = pieces if pieces is not None else _part(blob, part_sha)[0]
    return found


def _records(items: list[Any]) -> list[RecordInfo]:
    """Records as a piece holds them (checked against its hash, so as written): each an
    object of exactly the record's fields, its fact ids a list (ValueError otherwise)."""
    from codegen.manifest import RecordInfo

    records = []
    fields = _record_fields()
    for item in items:
        if type(item) is not dict or item.keys() != fields or type(item["fact_ids"]) is not list:
            raise ValueError("not a record")
        record = _new_record(RecordInfo)
        record.__dict__.update(item)  # a frozen dataclass of exactly these fields (as its __init__ would)
        records.append(record)
    return records


@cache
def _record_fields() -> set[str]:
    from codegen.manifest import RecordInfo

    return {f.name for f in dataclasses.fields(RecordInfo)}


_new_record = object.__new__


def _walk(walk: Mapping[str, Any], records: list[RecordInfo]) -> Part:
    """The validator's walk of a part from what its blob holds (ValueError if malformed)."""
    from codegen.manifest import ClassInfo, Part

    cited: set[int] = set()
    for record in records:
        cited.update(record.fact_ids)
    extra, dates, classes = walk.get("cited"), walk.get("dates"), walk.get("classes")
    if not isinstance(extra, list) or not all(type(i) is int for i in extra) \
            or not isinstance(dates, dict) or not isinstance(classes, dict):
        raise ValueError("not a walk")
    spans: dict[str, tuple[str, str]] = {}
    for name, span in dates.items():
        if not (isinstance(span, list) and len(span) == 2 and all(isinstance(d, str) for d in span)):
            raise ValueError("not a date range")
        spans[name] = (span[0], span[1])
    infos: dict[str, ClassInfo] = {}
    for name, info in classes.items():
        fields = info.get("fields") if isinstance(info, dict) else None
        if not isinstance(fields, list) or not all(
                isinstance(f, list) and len(f) == 2 and all(isinstance(t, str) for t in f) for f in fields) \
                or not isinstance(info.get("public"), bool):
            raise ValueError("not a class")
        infos[name] = ClassInfo.model_construct(fields=[(f[0], f[1]) for f in fields], public=info["public"])
    return Part(records, frozenset(cited.union(extra)), spans, infos)


def stored_parts(data: bytes, blob: Blob, source: str, wanted: Collection[object]
                 ) -> tuple[set[str], dict[str, tuple[str, Part]], set[str]]:
    """The walks a stored manifest (`manifest.json` bytes, already checked) holds under the
    `wanted` part keys: (the part blobs read and checked in full, part key -> (part sha,
    walk), every part key the manifest holds). A part whose blobs are missing, changed or
    malformed is left out (its chunk list is walked again); so is a key found twice."""
    index = index_of(data, source)
    wanted_keys = {key for key in wanted if isinstance(key, str)}
    stored: set[str] = set()
    found: dict[str, tuple[str, Part]] = {}
    twice: set[str] = set()
    every: set[str] = set()
    if index is None:
        return stored, found, every
    for hashes in index.parts.values():
        for part_sha in hashes:
            try:
                pieces, walk = _part(blob, part_sha)
                key = walk.get("key") if walk is not None else None
                if walk is None or not isinstance(key, str):
                    continue
                every.add(key)
                if key not in wanted_keys:
                    continue
                if key in found:
                    twice.add(key)
                    continue
                records = [record for piece in pieces for record in _records(_checked(blob, piece, "piece"))]
                found[key] = (part_sha, _walk(walk, records))
                stored.add(part_sha)
            except (ChangedPart, ValueError):
                continue
    for key in twice:
        stored.discard(found.pop(key)[0])
    return stored, found, every

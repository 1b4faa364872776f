"""Versions as hard links to content-addressed blobs, their manifests' trees as rows of the
piece store: unchanged files and manifest parts are stored once, a new version costs what
changed, a crash leaves only blobs no version names, and `verify` names every version a
changed blob belongs to."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from store_packages import added_bytes, inodes, manifest, meta, package, rows, set_row, stored_sizes

from codegen.manifest import Manifest
from users.blobs import blob_files, blob_path
from users.gc import named_blobs
from users.integrity import CHECKED, IntegrityError
from users.manifest_parts import PIECE, referenced
from users.piece_store import PIECES_FILE, tree_reader
from users.store import VersionStore

REPO = Path(__file__).resolve().parents[1]
USER = "alice"


@pytest.fixture
def versions(tmp_path: Path) -> VersionStore:
    CHECKED.clear()
    return VersionStore(tmp_path / "users")


def fresh(versions: VersionStore) -> VersionStore:
    """Another process's view: nothing cached."""
    CHECKED.clear()
    return VersionStore(versions.root)


def garbage(folder: Path) -> set[str]:
    """Blobs no version links and no version's manifest names (files and rows)."""
    named = named_blobs(folder)
    assert named is not None
    unlinked = {e.name for e in blob_files(folder) if e.stat().st_nlink == 1 and e.name not in named}
    return unlinked | (set(rows(folder)) - named)


def tree(versions: VersionStore, number: int) -> set[str]:
    """The blobs of a version's manifest tree."""
    top = (versions.root / USER / f"v{number:06d}" / "manifest.json").read_bytes()
    with tree_reader(versions.root / USER) as blob:
        return referenced(top, blob, "test")


def writable(path: Path) -> Path:
    os.chmod(path, 0o644)
    return path


def test_unchanged_files_and_parts_share_inodes(versions: VersionStore) -> None:
    one = versions.publish(USER, package(6), meta(1), manifest=manifest(6))
    two = versions.publish(USER, package(6, {120: "Oslo"}), meta(2), manifest=manifest(6, {120: "Oslo"}))
    for name in ("trip.py", "trip_000.py", "trip_001.py", "trip_003.py", "__init__.py"):
        assert (one.path / name).stat().st_ino == (two.path / name).stat().st_ino, name
        assert (one.path / name).stat().st_nlink == 3, name  # the blob and both versions
    assert (one.path / "trip_002.py").stat().st_ino != (two.path / "trip_002.py").stat().st_ino
    per_part = 1 + -(-50 // PIECE)  # a chunk of 50 records: its part list and its pieces
    shared = tree(versions, 1) & tree(versions, 2)
    assert len(tree(versions, 1)) == len(tree(versions, 2)) == 6 * per_part
    assert len(shared) == 6 * per_part - 2  # the changed record's piece and its part's list
    assert not stat.S_IMODE((one.path / "trip.py").stat().st_mode) & 0o222  # blobs are read-only too


def test_a_small_change_costs_a_small_fraction_of_a_full_version(versions: VersionStore) -> None:
    chunks, size = 40, 500  # chunk lists of 500 records, as the compiler writes them
    versions.publish(USER, package(chunks, per_chunk=size), meta(1), manifest=manifest(chunks, per_chunk=size))
    full = sum(inodes(versions.root / USER).values())
    before = inodes(versions.root / USER)
    edits = {chunks * size - 1: "Kyiv"}  # a record of the last chunk, as new facts do
    two = versions.publish(USER, package(chunks, edits, size), meta(2),
                           manifest=manifest(chunks, edits, per_chunk=size))
    after = inodes(versions.root / USER)
    new = added_bytes(before, after)  # new files and the piece store's growth
    changed = [p.name for p in two.path.iterdir() if p.stat().st_ino not in before]
    assert sorted(changed) == ["manifest.json", "meta.json", "trip_039.py"]
    assert len(tree(versions, 2) - tree(versions, 1)) == 2  # one piece of records and its part's list
    assert new < 0.03 * full, (new, full)  # one chunk file and one part of forty, and little else
    overhead = (two.path / "manifest.json").stat().st_size + (two.path / "meta.json").stat().st_size
    assert overhead < 0.004 * full, (overhead, full)


def test_parted_manifest_reads_back_whole_and_small_index(versions: VersionStore) -> None:
    built = manifest(5)
    info = versions.publish(USER, package(5), meta(1), manifest=built)
    top = (info.path / "manifest.json").read_bytes()
    assert len(top) < len(built.dump()) / 5
    assert "parts" in json.loads(top)
    read = fresh(versions).manifest(USER, 1)
    assert read.dump() == built.dump() and read.collections["trips"].parts == [50] * 5
    assert [r.values["city"] for _, r in read.records()] == [f"City {i}" for i in range(250)]


def test_a_manifest_without_parts_is_stored_whole(versions: VersionStore) -> None:
    built = manifest(3, parted=False)
    info = versions.publish(USER, package(3), meta(1), manifest=built)
    assert Manifest.parse((info.path / "manifest.json").read_bytes(), source="m").dump() == built.dump()
    assert tree(versions, 1) == set()
    assert fresh(versions).manifest(USER, 1).dump() == built.dump()


def test_verify_names_every_version_a_changed_blob_belongs_to(versions: VersionStore) -> None:
    versions.publish(USER, package(3), meta(1), manifest=manifest(3))
    versions.publish(USER, package(3, {0: "Rome"}), meta(2), manifest=manifest(3, {0: "Rome"}))
    three = versions.publish(USER, package(3, {1: "Lima"}), meta(3), manifest=manifest(3, {1: "Lima"}))
    shared = blob_path(versions.root / USER, three.file_sha256["trip_001.py"])
    text = shared.read_text()
    writable(shared).write_text(text.replace("City 60", "City 66"))  # same size
    assert fresh(versions).verify(USER) == [(n, "trip_001.py changed since it was published") for n in (1, 2, 3)]
    with pytest.raises(IntegrityError, match="trip_001.py changed"):
        fresh(versions).load(USER)


def test_verify_and_reading_catch_a_changed_manifest_piece(versions: VersionStore) -> None:
    versions.publish(USER, package(3), meta(1), manifest=manifest(3))
    versions.publish(USER, package(3, {140: "Rome"}), meta(2), manifest=manifest(3, {140: "Rome"}))
    folder = versions.root / USER
    stored = rows(folder)
    [piece] = [sha for sha in tree(versions, 1) & tree(versions, 2) if b"City 0" in stored[sha]]
    set_row(folder, piece, stored[piece].replace(b"City", b"Ciyt"))
    assert fresh(versions).verify(USER) == [(n, f"manifest piece {piece} changed since it was published")
                                            for n in (1, 2)]
    with pytest.raises(IntegrityError, match=f"manifest piece {piece} changed since it was published"):
        fresh(versions).manifest(USER, 1)
    assert fresh(versions).gc(USER).blobs == 0  # what the versions name stays, even when changed
    set_row(folder, piece, None)
    assert fresh(versions).verify(USER) == [(n, f"manifest piece {piece} is missing") for n in (1, 2)]
    versions.publish(USER, package(3), meta(3), manifest=manifest(3))  # stores that piece again
    assert rows(folder)[piece] == stored[piece] and fresh(versions).verify(USER) == []


def test_a_changed_row_is_replaced_when_a_version_stores_it_again(versions: VersionStore) -> None:
    versions.publish(USER, package(2), meta(1), manifest=manifest(2))
    folder = versions.root / USER
    stored = rows(folder)
    piece = next(sha for sha, data in stored.items() if data.startswith(b"[{"))
    set_row(folder, piece, stored[piece].replace(b"City", b"Ciyt"))
    assert fresh(versions).verify(USER) == [(1, f"manifest piece {piece} changed since it was published")]
    fresh(versions).publish(USER, package(2), meta(2), manifest=manifest(2))  # the same records, a new process
    assert rows(folder)[piece] == stored[piece] and fresh(versions).verify(USER) == []


def test_a_changed_blob_is_not_reused_by_a_new_version(versions: VersionStore) -> None:
    one = versions.publish(USER, package(2), meta(1))
    blob = blob_path(versions.root / USER, one.file_sha256["trip_000.py"])
    writable(blob).write_text(blob.read_text().replace("City 1", "City 9"))
    two = versions.publish(USER, package(2), meta(2))
    assert (two.path / "trip_000.py").stat().st_ino != (one.path / "trip_000.py").stat().st_ino
    assert fresh(versions).verify(USER) == [(1, "trip_000.py changed since it was published")]
    assert fresh(versions).files(USER, 2) == package(2)


def test_without_hard_links_versions_get_copies(versions: VersionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", refuse)
    versions.publish(USER, package(2), meta(1), manifest=manifest(2))
    info = versions.publish(USER, package(2, {3: "Rome"}), meta(2), manifest=manifest(2, {3: "Rome"}))
    assert all(p.stat().st_nlink == 1 for p in info.path.iterdir())
    store = fresh(versions)
    assert store.verify(USER) == [] and store.files(USER, 2) == package(2, {3: "Rome"})
    assert store.manifest(USER, 2).dump() == manifest(2, {3: "Rome"}).dump()
    assert store.load(USER).trips[3].city == "Rome"
    report = store.gc(USER)
    assert report.blobs > 0 and not blob_files(versions.root / USER)  # no version links a blob
    assert set(rows(versions.root / USER)) == tree(versions, 1) | tree(versions, 2)
    assert fresh(versions).verify(USER) == []


def test_a_blob_at_its_link_limit_is_replaced_by_a_fresh_one(versions: VersionStore,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    one = versions.publish(USER, package(2), meta(1))
    real = os.link
    calls: list[str] = []

    def full_once(src: Any, dst: Any, **kwargs: Any) -> None:
        calls.append(str(dst))
        if len(calls) == 1:
            raise OSError(errno.EMLINK, "too many links")
        real(src, dst, **kwargs)

    monkeypatch.setattr(os, "link", full_once)
    two = versions.publish(USER, package(2), meta(2))
    first = Path(calls[0]).name
    assert (two.path / first).stat().st_ino != (one.path / first).stat().st_ino
    assert (two.path / first).stat().st_ino == blob_path(versions.root / USER, two.file_sha256[first]).stat().st_ino
    assert fresh(versions).verify(USER) == []


CRASH_BEFORE_RENAME = """
import os, sys
from pathlib import Path
sys.path.insert(0, "tests")
from store_packages import manifest, meta, package
from users.store import VersionStore
real = os.rename
def crash(src, dst, *args, **kwargs):
    if Path(src).name.startswith(".tmp-v"):  # the version folder: its blobs are all written
        os._exit(3)
    return real(src, dst, *args, **kwargs)
os.rename = crash
VersionStore(Path(sys.argv[1])).publish("alice", package(4, {10: "Rome"}), meta(2), manifest=manifest(4, {10: "Rome"}))
"""


def test_a_crash_before_the_version_rename_leaves_blobs_gc_removes(versions: VersionStore) -> None:
    versions.publish(USER, package(4), meta(1), manifest=manifest(4))
    stored = set(stored_sizes(versions.root / USER))
    done = subprocess.run([sys.executable, "-c", CRASH_BEFORE_RENAME, str(versions.root)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    folder = versions.root / USER
    new_blobs = set(stored_sizes(folder)) - stored
    assert len(new_blobs & set(rows(folder))) == 2  # the changed piece and its part: committed before the rename
    assert new_blobs and [p for p in folder.iterdir() if p.name.startswith(".tmp-v")]
    store = fresh(versions)
    assert [v.number for v in store.history(USER)] == [1] and store.current(USER).number == 1  # type: ignore[union-attr]
    assert store.verify(USER) == [] and store.files(USER, 1) == package(4)
    assert store.manifest(USER, 1).dump() == manifest(4).dump()
    report = store.gc(USER)
    # the temp folder and the new pointer's temp file (written, with the blobs, before the rename)
    assert report.versions == () and report.temp == 2 and report.blobs == len(new_blobs)
    assert set(stored_sizes(folder)) == stored
    assert not [p for p in folder.iterdir() if p.name.startswith(".tmp")]
    assert garbage(folder) == set()
    assert store.publish(USER, package(4, {10: "Rome"}), meta(2)).number == 2


def test_gc_keeps_the_newest_and_the_current_and_frees_what_only_they_used(versions: VersionStore) -> None:
    for n in range(1, 6):
        versions.publish(USER, package(3, {n: f"Town {n}"}), meta(n), manifest=manifest(3, {n: f"Town {n}"}))
    folder = versions.root / USER
    assert versions.gc(USER).versions == ()  # no retention: every version stays
    versions.rollback(USER, 2)
    blobs_before = stored_sizes(folder)
    metas = sum((folder / f"v00000{n}" / "meta.json").stat().st_size for n in (1, 3))
    report = versions.gc(USER, keep=2)
    assert report.versions == (1, 3)
    assert [v.number for v in versions.history(USER)] == [2, 4, 5] and versions.current(USER).number == 2  # type: ignore[union-attr]
    gone = set(blobs_before) - set(stored_sizes(folder))
    assert report.blobs == len(gone) == 8  # trip_000.py, manifest.json, the changed piece and part, of v1 and v3
    assert report.bytes == sum(blobs_before[b] for b in gone) + metas
    assert garbage(folder) == set()
    store = fresh(versions)
    assert store.verify(USER) == []
    assert store.load(USER, 4).trips[4].city == "Town 4" and store.manifest(USER, 5).dump() == \
        manifest(3, {5: "Town 5"}).dump()
    assert [e.version for e in store.events(USER)] == [1, 2, 3, 4, 5, 2]  # the log stays
    assert versions.publish(USER, package(3), meta(6)).number == 6  # numbers are never reused


def test_gc_refuses_a_bad_retention(versions: VersionStore) -> None:
    from factlog.errors import InputError

    versions.publish(USER, package(1), meta(1))
    for keep in (0, -1, True, 1.5, "2"):
        with pytest.raises(InputError, match="versions to keep"):
            versions.gc(USER, keep)  # type: ignore[arg-type]
    assert [v.number for v in versions.history(USER)] == [1]


GC_RACER = """
import sys
from pathlib import Path
sys.path.insert(0, "tests")
from store_packages import manifest, meta, package
from users.store import VersionStore
store = VersionStore(Path(sys.argv[1]))
if sys.argv[2] == "publish":
    for n in range(2, 14):
        store.publish("alice", package(4, {n: f"Town {n}"}), meta(n), manifest=manifest(4, {n: f"Town {n}"}))
else:
    for _ in range(40):
        store.gc("alice", keep=1)
"""


def test_gc_and_publish_in_real_processes_leave_a_complete_current_version(versions: VersionStore) -> None:
    versions.publish(USER, package(4), meta(1), manifest=manifest(4))
    procs = [subprocess.Popen([sys.executable, "-c", GC_RACER, str(versions.root), role], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for role in ("publish", "gc")]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    store = fresh(versions)
    current = store.current(USER)
    assert current is not None and current.number == 13
    assert store.verify(USER) == [] and store.files(USER, 13) == package(4, {13: "Town 13"})
    assert store.manifest(USER, 13).dump() == manifest(4, {13: "Town 13"}).dump()
    store.gc(USER, keep=1)
    assert [v.number for v in store.history(USER)] == [13]
    folder = versions.root / USER
    linked = {os.lstat(p).st_ino for p in current.path.iterdir()}
    assert {e.inode() for e in blob_files(folder) if e.name not in tree(store, 13)} <= linked  # the current's only
    assert not [p for p in folder.iterdir() if p.name.startswith(".tmp")]


def test_forget_erases_the_blobs(versions: VersionStore) -> None:
    versions.publish(USER, package(2), meta(1), manifest=manifest(2))
    assert (versions.root / USER / PIECES_FILE).is_file() and blob_files(versions.root / USER)
    versions.forget(USER)
    assert not (versions.root / USER).exists()


STEPS = ("open", "write", "fsync", "mkdir", "chmod", "rename", "replace", "link")


class Injected(OSError):
    pass


def fail_at(monkeypatch: pytest.MonkeyPatch, index: int | None) -> list[str]:
    """Wrap the os calls a publish makes; the `index`-th one raises."""
    seen: list[str] = []
    for name in STEPS:
        real = getattr(os, name)

        def wrapper(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            seen.append(_name)
            if index is not None and len(seen) - 1 == index:
                raise Injected(f"injected failure at {_name}")
            return _real(*args, **kwargs)

        monkeypatch.setattr(os, name, wrapper)
    return seen


@pytest.mark.slow
def test_a_failure_at_any_step_leaves_old_or_new_and_gc_leaves_only_linked_blobs(tmp_path: Path) -> None:
    old, new = (package(2), manifest(2)), (package(2, {70: "Rome"}), manifest(2, {70: "Rome"}))
    probe = VersionStore(tmp_path / "probe")
    probe.publish(USER, old[0], meta(1), manifest=old[1])
    with pytest.MonkeyPatch.context() as mp:
        steps = fail_at(mp, None)
        probe.publish(USER, new[0], meta(2), manifest=new[1])
    assert {"link", "rename", "fsync"} <= set(steps)
    for index, step in enumerate(steps):
        CHECKED.clear()
        versions = VersionStore(tmp_path / f"run{index}")
        versions.publish(USER, old[0], meta(1), manifest=old[1])
        with pytest.MonkeyPatch.context() as mp:
            fail_at(mp, index)
            try:
                versions.publish(USER, new[0], meta(2), manifest=new[1])
            except Injected:
                pass
        store = fresh(versions)
        numbers = [v.number for v in store.history(USER)]
        assert numbers in ([1], [1, 2]), (index, step)
        for number in numbers:  # every visible version is complete
            files, built = (old, new)[number - 1]
            assert store.files(USER, number) == files and store.manifest(USER, number).dump() == built.dump()
        assert store.verify(USER) == [], (index, step)
        store.gc(USER)
        folder = versions.root / USER
        assert garbage(folder) == set(), (index, step)
        assert not [p for p in folder.iterdir() if p.name.startswith(".tmp")], (index, step)
        assert store.publish(USER, new[0], meta(3), manifest=new[1]).number == numbers[-1] + 1
        assert fresh(versions).verify(USER) == []


def test_parts_of_unchanged_records_are_not_encoded_again() -> None:
    from users.manifest_parts import PartCache, split

    cache = PartCache()
    first = manifest(5)
    pieces = 5 * -(-50 // PIECE)  # five chunks of 50 records
    assert split(first, cache) == split(first) and cache.encoded == pieces
    records = list(first.collections["trips"].records)
    records[130] = type(records[130])("Trip", [131], "trip/130", {"city": "Rome"})  # a new object, as a new walk
    second = first.model_copy(update={"collections": {
        "trips": first.collections["trips"].model_copy(update={"records": records})}})
    top, parts = split(second, cache)
    assert cache.encoded == pieces + 1  # only the changed record's piece
    assert (top, parts) == split(second) == split(manifest(5, {130: "Rome"}))

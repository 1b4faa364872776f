"""What a publish writes, and how it makes it durable: the new blobs, `meta.json` and the
pointer's temp file in one concurrent fsync batch, the manifest's tree in one transaction
of the piece store committed before the version appears (a process killed in either, or at
any moment, leaves the old version current and complete), only the bytes of changed texts
encoded, and the version just written known without parsing its `meta.json` again."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from store_packages import manifest, meta, package, rows

from users import blobs as blob_module
from users.integrity import CHECKED
from users.manifest_parts import referenced
from users.piece_store import tree_reader
from users.store import CURRENT_FILE, VersionStore

REPO = Path(__file__).resolve().parents[1]
USER = "alice"


@pytest.fixture
def versions(tmp_path: Path) -> VersionStore:
    CHECKED.clear()
    return VersionStore(tmp_path / "users")


def fresh(versions: VersionStore) -> VersionStore:
    CHECKED.clear()
    return VersionStore(versions.root)


def hashes(files: dict[str, str]) -> dict[str, str]:
    return {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in files.items()}


def test_new_blobs_meta_and_pointer_are_fsynced_in_one_concurrent_batch(versions: VersionStore,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    versions.publish(USER, package(4), meta(1), manifest=manifest(4))
    batches: list[list[str]] = []
    threads: set[int] = set()
    real_durable, real_fsync = blob_module.durable, blob_module._fsync

    def durable(paths: object) -> None:
        batches.append([str(p) for p in paths])  # type: ignore[attr-defined]
        real_durable(batches[-1])

    def fsync(path: object) -> None:
        threads.add(threading.get_ident())
        real_fsync(path)  # type: ignore[arg-type]

    monkeypatch.setattr(blob_module, "durable", durable)
    monkeypatch.setattr("users.store.durable", durable)
    monkeypatch.setattr(blob_module, "_fsync", fsync)
    before = {e.name for e in os.scandir(versions.root / USER / ".blobs")}
    stored = set(rows(versions.root / USER))
    two = versions.publish(USER, package(4, {120: "Oslo"}), meta(2), manifest=manifest(4, {120: "Oslo"}))
    added = {e.name for e in os.scandir(versions.root / USER / ".blobs")} - before
    files, folders = batches  # the files, then the folders: two rounds of flushes in all
    names = [Path(p).name for p in files]
    assert len(files) == len(added) + 2  # every new blob (under its temp name), meta.json, the pointer
    assert sum(n.startswith(".tmp-blob-") for n in names) == len(added) == 2  # the chunk and manifest.json
    assert len(set(rows(versions.root / USER)) - stored) == 2  # the piece and its part: rows, no files
    assert "meta.json" in names and any(n.startswith(f".tmp-{CURRENT_FILE}-") for n in names)
    assert {Path(p).name for p in folders} == {".blobs", Path(folders[-1]).name} and len(folders) == 2
    assert len(threads) > 1  # concurrently, not one after the other
    assert fresh(versions).current(USER) == two and fresh(versions).verify(USER) == []


CRASH_IN_BATCH = """
import os, sys, threading
sys.path.insert(0, "tests")
from pathlib import Path
from store_packages import manifest, meta, package
from users.store import VersionStore
real = os.fsync
def fsync(fd):
    if threading.current_thread() is not threading.main_thread():
        os._exit(3)  # killed while the batch is in flight
    return real(fd)
os.fsync = fsync
VersionStore(Path(sys.argv[1])).publish("alice", package(4, {10: "Rome"}), meta(2), manifest=manifest(4, {10: "Rome"}))
"""


def test_a_process_killed_during_the_fsync_batch_leaves_the_old_version(versions: VersionStore) -> None:
    versions.publish(USER, package(4), meta(1), manifest=manifest(4))
    done = subprocess.run([sys.executable, "-c", CRASH_IN_BATCH, str(versions.root)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    folder = versions.root / USER
    assert [p for p in folder.iterdir() if p.name.startswith(".tmp-")]  # it died mid-write
    store = fresh(versions)
    assert [v.number for v in store.history(USER)] == [1] and store.current(USER).number == 1  # type: ignore[union-attr]
    assert store.verify(USER) == [] and store.files(USER, 1) == package(4)
    assert store.gc(USER).temp >= 2 and not [p for p in folder.iterdir() if p.name.startswith(".tmp-")]
    two = store.publish(USER, package(4, {10: "Rome"}), meta(2), manifest=manifest(4, {10: "Rome"}))
    assert two.number == 2 and fresh(versions).verify(USER) == []
    assert fresh(versions).manifest(USER, 2).dump() == manifest(4, {10: "Rome"}).dump()


CRASH_IN_TRANSACTION = """
import os, sys
sys.path.insert(0, "tests")
from pathlib import Path
from store_packages import manifest, meta, package
from users import piece_store
from users.store import VersionStore
def put(self, blobs):
    conn = self._open(create=True)
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(piece_store._PUT, [(piece_store._key(sha), data) for sha, data in blobs.items()])
    conn.execute("DELETE FROM piece")  # and more: a journal that must be rolled back
    os._exit(3)  # killed before the commit
piece_store.SqlitePieces.put = put
VersionStore(Path(sys.argv[1])).publish("alice", package(4, {10: "Rome"}), meta(2), manifest=manifest(4, {10: "Rome"}))
"""


def test_a_process_killed_inside_the_tree_transaction_leaves_the_old_version(versions: VersionStore) -> None:
    versions.publish(USER, package(4), meta(1), manifest=manifest(4))
    folder = versions.root / USER
    stored = rows(folder)
    done = subprocess.run([sys.executable, "-c", CRASH_IN_TRANSACTION, str(versions.root)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert (folder / "pieces.sqlite-journal").stat().st_size > 0  # hot: the next connection rolls it back
    store = fresh(versions)
    assert [v.number for v in store.history(USER)] == [1] and store.current(USER).number == 1  # type: ignore[union-attr]
    assert store.verify(USER) == [] and store.manifest(USER, 1).dump() == manifest(4).dump()
    assert rows(folder) == stored
    two = store.publish(USER, package(4, {10: "Rome"}), meta(2), manifest=manifest(4, {10: "Rome"}))
    assert two.number == 2 and fresh(versions).verify(USER) == []
    assert fresh(versions).manifest(USER, 2).dump() == manifest(4, {10: "Rome"}).dump()
    fresh(versions).gc(USER, keep=1)
    with tree_reader(folder) as blob:
        assert set(rows(folder)) == referenced((two.path / "manifest.json").read_bytes(), blob, "test")


PUBLISH_FOREVER = """
import sys
sys.path.insert(0, "tests")
from pathlib import Path
from store_packages import manifest, meta, package
from users.store import VersionStore
store = VersionStore(Path(sys.argv[1]))
n = 2
print("ready", flush=True)
while True:
    edits = {n * 7 % 200: f"Town {n}"}
    store.publish("alice", package(4, edits), meta(n), manifest=manifest(4, edits))
    n += 1
"""


@pytest.mark.slow
def test_publishers_killed_at_random_moments_leave_a_complete_current_version(versions: VersionStore) -> None:
    versions.publish(USER, package(4), meta(1), manifest=manifest(4))
    for delay in (0.15, 0.4, 0.9):
        proc = subprocess.Popen([sys.executable, "-c", PUBLISH_FOREVER, str(versions.root)], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        store = fresh(versions)
        current = store.current(USER)
        assert current is not None and store.verify(USER) == []
        for info in store.history(USER):  # every visible version is complete
            assert store.files(USER, info.number) == store.files(USER, info.number)
            store.manifest(USER, info.number)
        store.gc(USER)
        assert not [p for p in (versions.root / USER).iterdir() if p.name.startswith(".tmp-")]
    last = fresh(versions).current(USER)
    assert last is not None and last.number > 1  # the killed publishers got somewhere


class Counted(str):
    """A text that counts how often it is encoded."""

    encodes = 0

    def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        Counted.encodes += 1
        return super().encode(encoding, errors)


def test_only_changed_texts_are_encoded(versions: VersionStore) -> None:
    texts = {name: Counted(text.replace("City 1", "Zürich 1")) for name, text in package(4).items()}
    versions.publish_if_newer(USER, texts, meta(1), hashes=hashes(texts))
    changed = dict(texts)
    assert not texts["trip_002.py"].isascii()
    changed["trip_002.py"] = Counted(texts["trip_002.py"].replace("Zürich 1", "Zürich 9"))
    given = hashes(changed)  # as the validator gives them
    Counted.encodes = 0
    two = versions.publish_if_newer(USER, changed, meta(2), hashes=given)
    assert Counted.encodes == 1  # the changed text, once (its size and its blob)
    assert two is not None and fresh(versions).files(USER, 2) == {k: str(v) for k, v in changed.items()}
    assert fresh(versions).verify(USER) == []


def test_the_version_just_written_is_not_parsed_again(versions: VersionStore,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[Path] = []
    real = VersionStore._parse_info

    def parse(self: VersionStore, user: str, path: Path, raw: bytes) -> object:
        parsed.append(path)
        return real(self, user, path, raw)

    monkeypatch.setattr(VersionStore, "_parse_info", parse)
    one = versions.publish(USER, package(2), meta(1), manifest=manifest(2))
    two = versions.publish(USER, package(2, {3: "Rome"}), meta(2), manifest=manifest(2, {3: "Rome"}))
    assert versions.current(USER) == two and versions.get(USER, 1) == one
    assert parsed == []
    again = fresh(versions)
    assert again.current(USER) == two and again.get(USER, 1) == one and len(parsed) == 2
    raw = (two.path / "meta.json").read_bytes()
    assert raw == two.meta_bytes() and raw.count(b"\n") == len(two.meta_json()) + 2  # a line per key

"""Loading a version this process just published checks only what it did not write or check
itself: files that are its own unchanged blobs and manifest rows it put or checked while the
piece store kept its identity are not read again; anything changed behind its back still is,
and `verify` reads everything."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_packages import manifest, meta, package, rows, set_row

import users.integrity as integrity
from users.blobs import blob_path
from users.integrity import CHECKED, IntegrityError
from users.piece_store import CHECKED_ROWS, PIECES_FILE, db_stamp
from users.store import VersionStore

USER = "alice"


@pytest.fixture
def versions(tmp_path: Path) -> Iterator[VersionStore]:
    CHECKED.clear()
    yield VersionStore(tmp_path / "users")
    CHECKED.clear()


class Reads:
    """Counts the files hashed and the tree blobs read by integrity checks."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.files = 0
        self.blobs = 0
        sha256 = integrity._sha256
        reader = vars(integrity)["tree_reader"]

        def counted_sha256(*args: Any) -> str:
            self.files += 1
            return sha256(*args)

        def counted_reader(*args: Any) -> Any:
            context = reader(*args)

            class Wrapped:
                def __enter__(inner) -> Any:
                    blob = context.__enter__()

                    def read(sha: str) -> bytes:
                        self.blobs += 1
                        return bytes(blob(sha))
                    return read

                def __exit__(inner, *exc: Any) -> Any:
                    return context.__exit__(*exc)
            return Wrapped()

        monkeypatch.setattr(integrity, "_sha256", counted_sha256)
        monkeypatch.setattr(integrity, "tree_reader", counted_reader)

    def reset(self) -> None:
        self.files = self.blobs = 0


def test_a_version_just_published_is_loaded_without_reading_what_this_process_wrote(
        versions: VersionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    versions.publish(USER, package(4), meta(1), manifest=manifest(4))
    versions.load(USER)  # the first load of a process reads the parts' lists
    reads = Reads(monkeypatch)
    two = versions.publish(USER, package(4, {60: "Rome"}), meta(2), manifest=manifest(4, {60: "Rome"}))
    versions.load(USER)
    assert reads.files == 0  # every file is a blob this process wrote or compared, unchanged
    assert reads.blobs <= 1  # the changed part's list only; no piece is read again
    assert fresh_verify(versions) == []
    reads.reset()
    integrity.CHECKED.drop((str(two.path), two.files_sha256))
    assert integrity.version_problem(two, use_cache=False) is None  # an explicit check reads everything
    assert reads.files == len(two.file_sha256) and reads.blobs > 4


def fresh_verify(versions: VersionStore) -> list[tuple[int, str]]:
    return VersionStore(versions.root).verify(USER)


def test_a_row_changed_after_the_publish_is_caught_when_the_version_is_loaded(versions: VersionStore) -> None:
    versions.publish(USER, package(3), meta(1), manifest=manifest(3))
    versions.load(USER)  # every row of the tree is now known checked
    versions.publish(USER, package(3, {140: "Rome"}), meta(2), manifest=manifest(3, {140: "Rome"}))
    folder = versions.root / USER
    stored = rows(folder)
    piece = next(sha for sha, data in stored.items() if b"City 0" in data and data.startswith(b"[{"))
    set_row(folder, piece, stored[piece].replace(b"City", b"Ciyt"))  # a piece both versions name
    with pytest.raises(IntegrityError, match=f"manifest piece {piece} changed since it was published"):
        versions.load(USER)


def test_a_database_edited_behind_the_process_back_forgets_every_row_checked(versions: VersionStore) -> None:
    versions.publish(USER, package(2), meta(1), manifest=manifest(2))
    versions.load(USER)
    database = versions.root / USER / PIECES_FILE
    assert CHECKED_ROWS.rows(database, db_stamp(database))
    with open(database, "r+b") as handle:  # bytes rewritten as they were: the identity still changes
        handle.seek(100)
        data = handle.read(16)
        handle.seek(100)
        handle.write(data)
    assert not CHECKED_ROWS.rows(database, db_stamp(database))


def test_a_shared_file_changed_between_versions_is_caught_in_the_version_linking_it(versions: VersionStore) -> None:
    one = versions.publish(USER, package(3), meta(1), manifest=manifest(3))
    versions.load(USER)
    blob = blob_path(versions.root / USER, one.file_sha256["trip_001.py"])
    os.chmod(blob, 0o644)
    blob.write_text(blob.read_text().replace("City 60", "City 66"))  # same size
    two = versions.publish(USER, package(3, {0: "Rome"}), meta(2), manifest=manifest(3, {0: "Rome"}))
    versions.load(USER)  # the new version links a fresh blob of the right bytes
    assert (two.path / "trip_001.py").stat().st_ino != (one.path / "trip_001.py").stat().st_ino
    with pytest.raises(IntegrityError, match="trip_001.py changed"):
        versions.load(USER, 1)

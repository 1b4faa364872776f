"""The piece store (`users.piece_store`): a manifest's tree as rows of one SQLite table per
user. Trees written as files (index format 1, tests/fixtures/blob_store_2026_12.tar.gz,
written by the code of December 2026) still read, verify, take new versions and collect;
a damaged database reads as missing pieces, in one line."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest
from store_packages import manifest, meta, package, rows

from factlog.errors import InputError
from users.blobs import blob_files
from users.integrity import CHECKED, IntegrityError
from users.manifest_parts import referenced
from users.piece_store import PIECES_FILE, piece_store, tree_reader
from users.store import VersionStore

ARCHIVE = Path(__file__).parent / "fixtures" / "blob_store_2026_12.tar.gz"
USER = "alice"
EDITS = {1: {}, 2: {140: "Rome"}, 3: {10: "Oslo"}}  # what each version of the archive holds


@pytest.fixture
def old(tmp_path: Path) -> Path:
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(tmp_path, filter="data")
    CHECKED.clear()
    return tmp_path / "blob_store_2026_12"


def fresh(root: Path) -> VersionStore:
    CHECKED.clear()
    return VersionStore(root)


def tree(folder: Path, number: int) -> set[str]:
    top = (folder / f"v{number:06d}" / "manifest.json").read_bytes()
    with tree_reader(folder) as blob:
        return referenced(top, blob, "test")


def test_trees_written_as_files_read_verify_and_take_new_versions(old: Path) -> None:
    folder = old / USER
    assert not (folder / PIECES_FILE).exists()
    assert json.loads((folder / "v000001" / "manifest.json").read_bytes())["format"] == 1
    files = {e.name for e in blob_files(folder)}
    store = fresh(old)
    assert store.verify(USER) == []
    for number, edits in EDITS.items():
        assert store.manifest(USER, number).dump() == manifest(3, edits).dump()
        assert tree(folder, number) <= files  # every tree blob a file
    assert not (folder / PIECES_FILE).exists()  # reading creates nothing

    four = store.publish(USER, package(3, {20: "Lima"}), meta(4), manifest=manifest(3, {20: "Lima"}))
    assert json.loads((four.path / "manifest.json").read_bytes())["format"] == 2
    assert tree(folder, 4) - files and tree(folder, 4) == set(rows(folder))  # its tree is rows
    assert fresh(old).verify(USER) == [] and fresh(old).manifest(USER, 4).dump() == manifest(3, {20: "Lima"}).dump()

    report = fresh(old).gc(USER, keep=1)
    assert report.versions == (1, 2, 3)
    linked = {*four.file_sha256.values(), four.manifest_sha256}
    assert {e.name for e in blob_files(folder)} <= tree(folder, 4) | linked  # the old tree's files v4 names stay
    assert set(rows(folder)) == tree(folder, 4)
    assert fresh(old).verify(USER) == [] and fresh(old).manifest(USER, 4).dump() == manifest(3, {20: "Lima"}).dump()


def test_a_damaged_database_reads_as_missing_pieces_in_one_line(tmp_path: Path) -> None:
    versions = fresh(tmp_path / "users")
    versions.publish(USER, package(2), meta(1), manifest=manifest(2))
    path = tmp_path / "users" / USER / PIECES_FILE
    path.chmod(0o644)
    path.write_bytes(b"not a database" * 100)
    problems = fresh(tmp_path / "users").verify(USER)
    assert len(problems) == 1 and problems[0][0] == 1 and "is missing" in problems[0][1]
    with pytest.raises(IntegrityError, match="failed its integrity check: manifest part .* is missing"):
        fresh(tmp_path / "users").manifest(USER, 1)
    with pytest.raises(InputError, match=f"{PIECES_FILE}: cannot store manifest pieces") as caught:
        fresh(tmp_path / "users").publish(USER, package(2), meta(2), manifest=manifest(2))
    assert "\n" not in str(caught.value)
    assert [v.number for v in fresh(tmp_path / "users").history(USER)] == [1]
    assert fresh(tmp_path / "users").gc(USER).blobs == 0  # a tree it cannot read: nothing is removed


def test_blob_names_are_hashes_never_paths(tmp_path: Path) -> None:
    folder = tmp_path / USER
    folder.mkdir()
    (folder / "secret").write_bytes(b"x")
    piece_store(folder).put({"ab" * 32: b"[]"})
    with tree_reader(folder) as blob:
        assert blob("ab" * 32) == b"[]"
        for name in ("../secret", "AB" * 32, "ab" * 31, ("ab" * 32)[:-2] + "/x"):
            with pytest.raises(OSError):
                blob(name)


def test_a_store_copied_as_a_whole_reads_the_same(tmp_path: Path) -> None:
    versions = fresh(tmp_path / "a")
    versions.publish(USER, package(3), meta(1), manifest=manifest(3))
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert fresh(tmp_path / "b").verify(USER) == []
    assert fresh(tmp_path / "b").manifest(USER, 1).dump() == manifest(3).dump()

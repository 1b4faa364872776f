"""A new process takes the walks of unchanged chunk lists from the validator's walk cache
(`codegen.walk_cache`): the same manifest as a full walk, no stored manifest read, no
records walked; a damaged entry, another scope or a forgotten user falls back to the
stored walks or a walk of the records. A +10 hashes only the texts that changed."""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest
from test_incremental_validation import (
    CHUNKS,
    LIVE,
    Loaded,
    chunk,
    full_walk,
    package,
    success,
    trip_fact,
    without_parts,
)

from codegen import walk_cache
from codegen.loader import unload_package
from codegen.manifest import Key, Part
from codegen.typecheck import stable_name
from codegen.validate import WALKS, ValidationSuccess, Validator

FACTS = {i: trip_fact(i) for i in LIVE}


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("_uac_gen_inc")]:
        unload_package(name.split(".")[0])


def fresh(root: Path, files: dict[str, str], number: int, scope: str = "",
          stored: dict[Key, Part] | None = None) -> tuple[Validator, ValidationSuccess, list[Collection[Key]]]:
    """A validator as a new process has it (nothing in memory), on the same cache root."""
    asked: list[Collection[Key]] = []

    def stored_parts(keys: Collection[Key]) -> dict[Key, Part]:
        asked.append(list(keys))
        return {key: part for key, part in (stored or {}).items() if key in keys}
    validator = Validator(root / "cache")
    result = validator.validate(files, user="inc", version=f"n{number}", live_fact_ids=LIVE, facts=FACTS,
                                stage_dir=root / f"n{number}", stored_parts=stored_parts, scope=scope)
    return validator, success(result), asked


def entries(root: Path) -> list[Path]:
    folder = root / "cache" / WALKS / stable_name("inc")
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_a_new_process_takes_unchanged_walks_from_the_cache(root: Path) -> None:
    _, first, _ = fresh(root, package(CHUNKS), 1)
    assert len(entries(root)) == len(CHUNKS)
    files = package(CHUNKS, position=1)
    files["trip_002.py"] = chunk(2, CHUNKS[2], city="Town")
    validator, second, asked = fresh(root, files, 2)
    assert validator.parts_walked == 1  # the changed chunk only
    assert len(asked) == 1 and len(asked[0]) == 1  # only its walk was asked elsewhere
    assert without_parts(second.manifest) == without_parts(full_walk(second, FACTS))
    assert second.manifest.entities() == full_walk(second, FACTS).entities()
    assert first.manifest.collections["trips"].records[:8] == second.manifest.collections["trips"].records[:8]


def test_a_damaged_entry_is_not_used(root: Path) -> None:
    fresh(root, package(CHUNKS), 1)
    for path in entries(root):
        data = bytearray(path.read_bytes())
        data[-3] ^= 0xFF
        path.write_bytes(bytes(data))
    validator, second, _ = fresh(root, package(CHUNKS, position=1), 2)
    assert validator.parts_walked == len(CHUNKS)  # walked again, not read
    assert without_parts(second.manifest) == without_parts(full_walk(second, FACTS))


def test_walks_of_another_scope_are_not_used(root: Path) -> None:
    fresh(root, package(CHUNKS), 1, scope="epoch-1")
    validator, _, _ = fresh(root, package(CHUNKS, position=1), 2, scope="epoch-2")
    assert validator.parts_walked == len(CHUNKS)


def test_stored_walks_fill_the_cache(root: Path) -> None:
    validator, first, _ = fresh(root, package(CHUNKS), 1)
    stored = {key: part for walks in first.parts.values() for key, part in walks if key is not None}
    for path in entries(root):
        path.unlink()
    validator, _, asked = fresh(root, package(CHUNKS, position=1), 2, stored=stored)
    assert validator.parts_walked == 0 and len(asked[0]) == len(CHUNKS)
    assert len(entries(root)) == len(CHUNKS)
    validator, _, asked = fresh(root, package(CHUNKS, position=2), 3)
    assert validator.parts_walked == 0 and asked == []


def test_forget_removes_the_users_walks(root: Path) -> None:
    validator, _, _ = fresh(root, package(CHUNKS), 1)
    assert entries(root)
    validator.forget("inc")
    assert not entries(root)


def test_an_entry_reads_back_as_the_walk_it_keeps(root: Path) -> None:
    _, first, _ = fresh(root, package(CHUNKS), 1)
    parts = {key: part for walks in first.parts.values() for key, part in walks if key is not None}
    folder = root / "cache" / WALKS / stable_name("inc")
    assert walk_cache.read(folder, "", list(parts)) == parts
    assert walk_cache.read(folder, "other", list(parts)) == {}
    assert walk_cache.prune(folder, [], 1) == len(parts) - 1


def test_a_new_version_hashes_only_the_texts_that_changed(tmp_path: Path) -> None:
    loaded = Loaded(tmp_path)
    try:
        success(loaded.validate(package(CHUNKS)))
        hashed = loaded.validator.hashed
        files = {name: "".join(list(text)) for name, text in package(CHUNKS, position=1).items()}  # equal, not the same
        files["trip_002.py"] = chunk(2, CHUNKS[2], city="Town")
        second = success(loaded.validate(files))
        assert loaded.validator.hashed - hashed == 2  # `__init__.py` and the changed chunk
        fresh_hashes = Validator(tmp_path / "other")._hashes("inc", files)
        assert dict(second.hashes) == fresh_hashes
    finally:
        loaded.close()

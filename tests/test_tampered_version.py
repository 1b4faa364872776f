"""A version whose files changed after publishing is never imported: `query`, `alerts`,
`recall`, `diff`, `show` and the API refuse it with one line (exit 2); an untampered
version is hashed once per process, then recognised by its files' identities."""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from uac_home import USER, clone_home

from codegen.loader import PackageLoadError, TamperedFile, load_package, module_name_for
from runtime.memory import Memory
from users.integrity import CHECKED, IntegrityError
from users.store import VersionStore

Tamper = Callable[[Path], str]  # edits a version folder; returns the expected problem


def _writable(path: Path) -> Path:
    os.chmod(path.parent, 0o755)
    if path.exists():
        os.chmod(path, 0o644)
    return path


def edit(folder: Path) -> str:
    trip = _writable(folder / "trip_000.py")
    trip.write_text(trip.read_text().replace("Tokyo", "Pwned City"))
    return "trip_000.py changed since it was published"


def edit_same_size_restored_mtime(folder: Path) -> str:
    trip = folder / "trip_000.py"
    before = trip.stat()
    _writable(trip)
    text = trip.read_text()
    trip.write_text(text.replace("Tokyo", "Kyoto"))
    os.utime(trip, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.chmod(trip, stat.S_IMODE(before.st_mode))
    after = trip.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    return "trip_000.py changed since it was published"


def add_module(folder: Path) -> str:
    _writable(folder / "evil.py").write_text("import os\n")
    return "evil.py was added since it was published"


def add_bytecode_folder(folder: Path) -> str:
    _writable(folder / "__pycache__").mkdir()
    return "__pycache__ was added since it was published"


def delete_file(folder: Path) -> str:
    _writable(folder / "notes.py").unlink()
    return "notes.py was deleted since it was published"


TAMPERS = [edit, edit_same_size_restored_mtime, add_module, add_bytecode_folder, delete_file]


@pytest.fixture
def seeded(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Path:
    return clone_home(tmp_path_factory, tmp_path / "h")


def expected_error(problem: str) -> str:
    return f"error: version 2 of {USER} failed its integrity check: {problem}; run uac verify\n"


@pytest.mark.parametrize("tamper", TAMPERS, ids=lambda t: t.__name__)
def test_every_command_refuses_a_tampered_version(seeded: Path, uac: Any, tamper: Tamper) -> None:
    home = str(seeded)
    assert uac("--home", home, "query", USER, "len(trips)").out.strip() == "3"  # checked and cached
    problem = tamper(seeded / "users" / USER / "v000002")
    for command in (["query", USER, "len(trips)"], ["alerts", USER], ["recall", USER, "tokyo"],
                    ["diff", USER], ["show", USER], ["query", USER, "len(trips)", "--json"]):
        result = uac("--home", home, *command)
        assert (result.code, result.err) == (2, expected_error(problem)), command
        assert "Traceback" not in result.out + result.err
    assert not (seeded / "users" / USER / "alerts.json").exists()  # the refused run wrote nothing
    verify = uac("--home", home, "verify")
    assert verify.code == 1 and problem in verify.out + verify.err
    assert uac("--home", home, "query", USER, "len(trips)", "--version", "1").out.strip() == "2"


def test_the_api_refuses_even_a_module_it_already_holds(seeded: Path) -> None:
    mem = Memory.open(seeded)
    assert len(mem.namespace(USER)["trips"]) == 3  # type: ignore[arg-type]
    assert getattr(mem.query(USER, "len(trips)"), "value", None) == 3  # a worker now holds v2
    problem = edit(seeded / "users" / USER / "v000002")
    for call in (lambda: mem.module(USER), lambda: mem.namespace(USER), lambda: mem.query(USER, "len(trips)"),
                 lambda: mem.alerts(USER), lambda: mem.recall(USER, "tokyo"), lambda: mem.diff(USER),
                 lambda: mem.versions.load(USER)):
        with pytest.raises(IntegrityError, match=f"^version 2 of {USER} failed its integrity check: {problem}"):
            call()
    mem.close()


def test_a_file_changed_after_the_check_is_refused_by_the_import(seeded: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The import compiles only bytes matching the recorded hashes: a swap between the check
    and the import (simulated by skipping the check) is still refused."""
    versions = VersionStore(seeded / "users")
    problem = edit(seeded / "users" / USER / "v000002")
    monkeypatch.setattr(VersionStore, "check", lambda self, info: None)
    with pytest.raises(IntegrityError, match=problem):
        versions.load(USER)
    assert not any(name.startswith(module_name_for(USER, "v000002")) for name in list(sys.modules))


def test_a_pinned_package_loads_only_matching_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("from .a import x\n")
    (folder / "a.py").write_text("x = 1\n")
    pins = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in ("__init__.py", "a.py")}
    assert load_package(folder, "_uac_test_pinned", pins).x == 1
    (folder / "a.py").write_text("x = 2\n")
    with pytest.raises(TamperedFile) as caught:
        load_package(folder, "_uac_test_pinned", pins)
    assert caught.value.file == "a.py" and isinstance(caught.value, PackageLoadError)
    assert load_package(folder, "_uac_test_pinned").x == 2  # unpinned: as before


def test_unchanged_versions_are_not_hashed_again(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    CHECKED.clear()
    monkeypatch.setattr(CHECKED, "hashed", 0)
    mem = Memory.open(seeded)
    for _ in range(5):
        assert getattr(mem.query(USER, "len(trips)"), "value", None) == 3
    mem.alerts(USER)
    mem.recall(USER, "tokyo")
    assert CHECKED.hashed == 1  # v2, once
    other = Memory.open(seeded)  # a second Memory in the same process reuses the check
    assert len(other.namespace(USER)["trips"]) == 3  # type: ignore[arg-type]
    mem.diff(USER)
    assert CHECKED.hashed == 2  # v1 joined for the diff
    edit_same_size_restored_mtime(seeded / "users" / USER / "v000002")
    with pytest.raises(IntegrityError):
        mem.query(USER, "len(trips)")
    assert CHECKED.hashed == 3
    other.close()
    mem.close()

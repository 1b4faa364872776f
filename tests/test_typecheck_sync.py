"""mypy takes a module whose size and whole-second mtime match its cache as unchanged, without
reading it. The package's work folder is synced file by file (`codegen.typecheck._sync`), so
a module rewritten with another text of the same size in the same second would be checked as
its old text: a new version judged by the previous one's code. Every file a sync writes is
therefore dated after every second an earlier sync used."""

from __future__ import annotations

from pathlib import Path

from codegen.typecheck import TypecheckFailure, TypecheckSuccess, _sync, typecheck


def test_a_rewrite_is_dated_after_every_earlier_write(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    _sync({"__init__.py": "from .aa import X as X\n", "aa.py": "X: int = 1\n"}, package, {})
    first = {p.name: int(p.stat().st_mtime) for p in package.glob("*.py")}
    _sync({"__init__.py": "from .bb import X as X\n", "bb.py": "X: int = 1\n"}, package, {})  # same sizes
    second = {p.name: int(p.stat().st_mtime) for p in package.glob("*.py")}
    assert set(second) == {"__init__.py", "bb.py"}
    assert min(second.values()) > max(first.values())
    _sync({"__init__.py": "from .bb import X as X\n", "bb.py": "X: int = 2\n"}, package, {})
    third = {p.name: int(p.stat().st_mtime) for p in package.glob("*.py")}
    assert third["__init__.py"] == second["__init__.py"] and third["bb.py"] > second["bb.py"]  # unchanged: kept


def test_successive_packages_of_the_same_sizes_are_each_checked_as_written(tmp_path: Path) -> None:
    work, cache = tmp_path / "work", tmp_path / "cache"
    good = typecheck({"__init__.py": "from .aa import X as X\n", "aa.py": "X: int = 1\n"}, "p_sync", work, cache)
    assert isinstance(good, TypecheckSuccess)
    moved = typecheck({"__init__.py": "from .bb import X as X\n", "bb.py": "X: int = 1\n"}, "p_sync", work, cache)
    assert isinstance(moved, TypecheckSuccess), moved  # not the old __init__ importing the removed .aa
    wrong = typecheck({"__init__.py": "from .bb import Y as Y\n", "bb.py": "X: int = 1\n"}, "p_sync", work, cache)
    assert isinstance(wrong, TypecheckFailure)  # not the old, valid __init__

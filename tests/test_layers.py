"""Lower layers never import higher ones.

factlog (the facts' own rules and the ground every package shares) <- codegen <- users
<- constraints <- runtime. The import graph is read from the source with `ast`: every
`import` and `from ... import` at any depth (inside functions and `if TYPE_CHECKING:`
too) of every .py file of our packages. A package may import itself or a lower layer;
so factlog imports no other package of ours, and only runtime imports runtime.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYERS = ("factlog", "codegen", "users", "constraints", "runtime")  # lowest first
RANK = {name: rank for rank, name in enumerate(LAYERS)}


def imported_packages(source: str, filename: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import in `source`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return sorted(found)


def upward_imports(root: Path) -> list[str]:
    """Every import under `root` of one of our packages from a lower one, as
    `path:line: package imports higher_package`."""
    problems: list[str] = []
    for package in LAYERS:
        for path in sorted((root / package).rglob("*.py")):
            for line, imported in imported_packages(path.read_text(encoding="utf-8"), str(path)):
                if imported in RANK and RANK[imported] > RANK[package]:
                    problems.append(f"{path.relative_to(root)}:{line}: {package} imports {imported}")
    return problems


def test_no_package_imports_a_higher_layer() -> None:
    assert all((REPO / package / "__init__.py").is_file() for package in LAYERS)
    assert upward_imports(REPO) == []


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_checker_finds_upward_imports_at_any_depth(tmp_path: Path) -> None:
    for package in LAYERS:
        write(tmp_path, f"{package}/__init__.py", "")
    write(tmp_path, "factlog/model.py", "import json\nfrom factlog import errors\n")  # same package: fine
    write(tmp_path, "users/store.py", "from codegen.loader import load\nimport factlog.model\n")  # downward: fine
    assert upward_imports(tmp_path) == []
    write(tmp_path, "factlog/rules.py", "from codegen.naming import normalize_kind\n")
    write(tmp_path, "codegen/deep/inner.py",
          "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import users.store\n"
          "def f() -> None:\n    from runtime import memory\n")
    write(tmp_path, "constraints/runner.py", "import os, runtime.cli as cli\n")
    assert upward_imports(tmp_path) == [
        "factlog/rules.py:1: factlog imports codegen",
        "codegen/deep/inner.py:3: codegen imports users",
        "codegen/deep/inner.py:5: codegen imports runtime",
        "constraints/runner.py:1: constraints imports runtime",
    ]

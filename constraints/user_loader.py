"""Loading a user's own constraints from `<home>/constraints/*.py`.

These files are the user's own code in their own workspace, trusted like a config file:
they are imported and run with the caller's rights, with no sandbox. (Generated modules
are a different matter: they are untrusted and validated; never put generated code here.)
Each file exposes constraints with the `@constraint` decorator.

What is guarded against is accident, not malice: only files named `[a-z0-9_]+.py`
directly in that folder are read, a symlink pointing outside the folder is refused, and
a file that fails to import (or clashes with another constraint's name) is reported with
its error while the others still load.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from constraints.builtin import BUILTIN
from constraints.model import Constraint
from factlog.results import Failure

FOLDER = "constraints"
FILE_NAME = re.compile(r"[a-z0-9_]+\.py", re.ASCII)
BUILTIN_NAMES = frozenset(c.name for c in BUILTIN)


@dataclass(frozen=True)
class LoadFailure(Failure):
    name: str  # the file name
    error: str

    @property
    def message(self) -> str:
        return f"constraints/{self.name}: {self.error}"


@dataclass(frozen=True)
class UserConstraints:
    constraints: tuple[Constraint, ...]
    failures: tuple[LoadFailure, ...]


def load_user_constraints(
    home: Path, taken: Collection[str] = BUILTIN_NAMES
) -> UserConstraints:
    """Import every constraint file in `<home>/constraints/`, in name order.

    `taken` holds constraint names already in use (the built-ins by default): alert ids
    start with the constraint name, so a user constraint may not reuse one.
    """
    folder = Path(home) / FOLDER
    if not folder.is_dir():
        return UserConstraints((), ())
    root = folder.resolve()
    names = set(taken)
    loaded: list[Constraint] = []
    failures: list[LoadFailure] = []
    for entry in sorted(folder.iterdir()):
        if not entry.name.endswith(".py"):
            continue
        problem = _refusal(entry, root)
        if problem:
            failures.append(LoadFailure(entry.name, problem))
            continue
        try:
            found = _import(entry, root)
        except (Exception, SystemExit) as error:  # the user's code: report, keep going
            failures.append(LoadFailure(entry.name, f"{type(error).__name__}: {error}"))
            continue
        clashes = sorted(c.name for c in found if c.name in names)
        if clashes or len({c.name for c in found}) < len(found):
            failures.append(LoadFailure(entry.name,
                                        f"constraint names already in use: {clashes or 'duplicates in file'}"))
            continue
        names.update(c.name for c in found)
        loaded.extend(found)
    return UserConstraints(tuple(loaded), tuple(failures))


def _refusal(entry: Path, root: Path) -> str | None:
    if not FILE_NAME.fullmatch(entry.name):
        return "file name must match [a-z0-9_]+.py"
    target = entry.resolve()
    if target.parent != root:
        return "refused: the file resolves outside the constraints folder"
    if not target.is_file():
        return "not a regular file"
    return None


def _import(path: Path, root: Path) -> list[Constraint]:
    # A name unique to this workspace, so two users' files of the same name never mix.
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    name = f"uac_user_constraints_{tag}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path.name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typing look modules up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    # Only constraints defined here: one imported from elsewhere is not this file's.
    return [
        value
        for value in vars(module).values()
        if isinstance(value, Constraint) and getattr(value.function, "__module__", None) == name
    ]

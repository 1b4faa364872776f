"""Reuse of loaded modules across versions of one user's package, by content.

A new version of a package mostly repeats the previous one: the chunk files that did not
change hold the same records. Executing a module of the allowed subset (imports, classes,
literal values; see `codegen.safety_rules`) depends only on its own text and on the
modules it imports, and changes nothing outside itself. So a module whose file has the
same sha256 as one already loaded, and whose sibling imports are (recursively) the same,
is the same module: `codegen.loader.load_package` registers the loaded module object under
the new package's name instead of executing the file again.

The rules that keep this sound:

- A module's content key is the hash of its file and of the content keys of the siblings
  it imports (from the safety stage's reading of the file: every `from .m import N`); a
  module in an import cycle, or importing a file the package lacks, has no key and always
  runs.
- A module is reused only together with the very module objects it was executed against
  (`_Entry.deps`): the new package's `trip` must be the same object whose class the reused
  chunk's records are instances of.
- Sharing is per scope (a user): one user's records never appear in another's package.
- A reused module keeps its first package's name (`__name__`, its classes' `__module__`);
  that name stays in `sys.modules` while any loaded package uses the module (`unload`),
  so pickling a record's class by name and `typing.get_type_hints` keep working.

Records are frozen dataclasses, but lists inside them (`fact_ids`, list fields) are
mutable, so sharing relies on nothing mutating a published version's records: generated
code cannot (no calls but constructors, no statements but imports, classes and
assignments), our own readers do not, and queries run in a forked worker whose writes
never reach this process.
"""

from __future__ import annotations

import functools
import hashlib
import sys
import threading
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import AbstractSet, ParamSpec, TypeVar

INIT = "__init__"
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Reuse:
    """What `load_package` needs to reuse modules: the files' sha256 by file name, and the
    sibling modules each file imports (by module name: `trip` for `trip.py`)."""

    scope: str
    hashes: Mapping[str, str]
    imports: Mapping[str, AbstractSet[str]]
    planned: Mapping[str, types.ModuleType] | None = None  # `plan(...)` made beforehand, if any


@dataclass
class ReuseCounts:
    """Submodules executed from their file, and submodules reused, over this process."""

    executed: int = 0
    reused: int = 0


@dataclass(frozen=True)
class _Entry:
    module: types.ModuleType
    deps: Mapping[str, types.ModuleType]  # sibling name -> the module object it imported


@dataclass
class _Use:
    packages: set[str] = field(default_factory=set)  # loaded packages holding the module
    key: tuple[str, str] | None = None  # its pool key, if it is in the pool


COUNTS = ReuseCounts()
_POOL: dict[tuple[str, str], _Entry] = {}  # (scope, content key) -> loaded module
_USES: dict[str, _Use] = {}  # a module's own __name__ -> who uses it
_STUBS: set[str] = set()  # unloaded packages standing in sys.modules for modules they lent
_LOCK = threading.RLock()  # over the pool and the names above


def _locked(fn: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with _LOCK:
            return fn(*args, **kwargs)
    return wrapper


def content_keys(hashes: Mapping[str, str], imports: Mapping[str, AbstractSet[str]]) -> dict[str, str]:
    """Module name -> content key, for every module (not `__init__`) that has one."""
    modules = {name[:-3]: digest for name, digest in hashes.items() if name.endswith(".py")}
    keys: dict[str, str] = {}
    broken: set[str] = set()

    def key(name: str, visiting: frozenset[str]) -> str | None:
        if name in keys:
            return keys[name]
        if name in broken or name in visiting or name not in modules or name == INIT:
            return None
        h = hashlib.sha256(f"{name}\x00{modules[name]}".encode())
        for dep in sorted(imports.get(f"{name}.py", ())):
            dep_key = key(dep, visiting | {name})
            if dep_key is None:
                broken.add(name)
                return None
            h.update(f"\x00{dep}\x00{dep_key}".encode())
        keys[name] = h.hexdigest()
        return keys[name]

    for name in modules:
        key(name, frozenset())
    return keys


@_locked
def plan(reuse: Reuse) -> dict[str, types.ModuleType]:
    """Module name -> the loaded module to reuse for it, each chosen with its own imports."""
    keys = content_keys(reuse.hashes, reuse.imports)
    chosen: dict[str, types.ModuleType | None] = {}

    def pick(name: str) -> types.ModuleType | None:
        if name not in chosen:
            chosen[name] = None  # a cycle never reuses
            entry = _POOL.get((reuse.scope, keys[name])) if name in keys else None
            if entry is not None and set(entry.deps) == set(reuse.imports.get(f"{name}.py", ())) \
                    and all(pick(dep) is module for dep, module in entry.deps.items()):
                chosen[name] = entry.module
        return chosen[name]

    for name in keys:
        pick(name)
    return {name: module for name, module in chosen.items() if module is not None}


@_locked
def install(package: str, reused: Mapping[str, types.ModuleType]) -> None:
    """Make `package.<name>` resolve to each reused module, before the package runs."""
    for name, module in reused.items():
        sys.modules[f"{package}.{name}"] = module
    COUNTS.reused += len(reused)


@_locked
def register(package: str, reuse: Reuse | None, reused: Mapping[str, types.ModuleType]) -> None:
    """After `package` loaded: note which modules it holds, and offer the ones it executed
    (with the module objects they imported) for reuse."""
    prefix = package + "."
    loaded = {name[len(prefix):]: module for name, module in sys.modules.items()
              if name.startswith(prefix) and "." not in name[len(prefix):]}
    COUNTS.executed += sum(1 for name in loaded if name not in reused)
    keys = content_keys(reuse.hashes, reuse.imports) if reuse is not None else {}
    for name, module in loaded.items():
        use = _USES.setdefault(module.__name__, _Use())
        use.packages.add(package)
        key = keys.get(name)
        if reuse is None or key is None or name in reused or (reuse.scope, key) in _POOL or use.key is not None:
            continue
        deps = {dep: loaded[dep] for dep in reuse.imports.get(f"{name}.py", ()) if dep in loaded}
        if len(deps) == len(reuse.imports.get(f"{name}.py", ())):
            _POOL[(reuse.scope, key)] = _Entry(module, deps)
            use.key = (reuse.scope, key)


@_locked
def unload(package: str) -> int:
    """Drop `package` and its submodules from `sys.modules`, except a module another loaded
    package still uses under its own name (until the last user goes). Returns how many
    names `package` held."""
    prefix = package + "."
    names = [name for name in sys.modules if name == package or name.startswith(prefix)]
    _STUBS.discard(package)
    kept = False
    for name in names:
        module = sys.modules.get(name)
        found = getattr(module, "__name__", None)
        own = found if isinstance(found, str) else name
        use = _USES.get(own)
        if use is not None:
            use.packages.discard(package)
            if not use.packages:
                del _USES[own]
                if use.key is not None:
                    _POOL.pop(use.key, None)
                if own != name and sys.modules.get(own) is module:  # kept for others until now
                    del sys.modules[own]
                    _drop_stub(own.rpartition(".")[0])
        if own == name and use is not None and use.packages:
            kept = True
            continue  # another package uses it by this name
        del sys.modules[name]
    if kept:  # its kept modules' parent must be importable (pickle imports `package.trip`)
        stub = types.ModuleType(package, "Holds modules other packages still use; nothing else.")
        stub.__path__ = []
        sys.modules[package] = stub
        _STUBS.add(package)
    return len(names)


def _drop_stub(package: str) -> None:
    prefix = package + "."
    if package in _STUBS and not any(name.startswith(prefix) for name in sys.modules):
        _STUBS.discard(package)
        sys.modules.pop(package, None)


@_locked
def clear_names(package: str, keep: Mapping[str, types.ModuleType]) -> None:
    """Remove `package.<name>` entries left behind (kept for other packages) that are not
    about to be reused, so the package's own files run."""
    _STUBS.discard(package)  # the package itself is about to stand under its name again
    prefix = package + "."
    for name in [n for n in sys.modules if n.startswith(prefix)]:
        if keep.get(name[len(prefix):]) is not sys.modules[name]:
            del sys.modules[name]

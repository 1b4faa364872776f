"""Import a generated package directory in isolation, under a unique module name.

Only call `load_package` on a directory whose files passed validation: importing runs the
code. Generated files are compiled through an in-memory cache keyed by content hash (no
`__pycache__` is read or written), so a new version recompiles only the files that
changed; a package given a code folder (`keep_code`) also keeps its compiled code there,
so a fresh process does not compile it again (see `_CodeCache`). Each load registers the
package (and, as they import, its submodules) in `sys.modules` under `module_name`, so
relative imports (`from .trip import Trip`) resolve inside that package only; two users
with identical class or file names never collide because their packages live under
different top-level names.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import marshal
import os
import re
import sys
import threading
import types
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path

from codegen import module_reuse
from codegen.gc_pause import gc_paused
from codegen.module_reuse import Reuse

MODULE_PREFIX = "_uac_gen"
_UNSAFE = re.compile(r"[^a-z0-9]+")
_CODE_CACHE_ENTRIES = 1024


class _CodeCache:
    """Compiled code by sha256 of the source, so that a new version of a package compiles
    only the chunk files that changed (compiling dominates import time).

    In memory first; then, for a package with a code folder (`keep_code`), on disk: one
    file per source hash, named and headed by the interpreter's bytecode magic number and
    optimisation level, holding the source hash and a sha256 of the marshalled code. An
    entry is used only when all of these match the source bytes being imported, which the
    caller has checked against the version's recorded hashes; a missing, stale, torn or
    corrupt entry is ignored, the source compiled and the entry rewritten (atomically)."""

    def __init__(self) -> None:
        self._codes: OrderedDict[str, types.CodeType] = OrderedDict()
        self._offered: dict[str, types.CodeType] = {}  # source hash -> code compiled ahead
        self._lock = threading.Lock()
        self.compiles = 0
        self.disk_hits = 0  # compiled code read from a code folder
        self.ahead_hits = 0  # compiled code taken from what was compiled ahead (`offer`)

    def has(self, key: str) -> bool:
        """Whether code of the source with sha256 `key` is held in memory."""
        with self._lock:
            return key in self._codes or key in self._offered

    def offer(self, codes: Mapping[str, types.CodeType]) -> None:
        """Code compiled ahead of an import (`codegen.precompile`), by sha256 of its source:
        used, like a code folder's entry, only for a source with that very hash (and kept in
        the package's code folder then, as if compiled here). `withdraw` drops what was not
        taken."""
        with self._lock:
            self._offered.update(codes)

    def withdraw(self) -> None:
        with self._lock:
            self._offered.clear()

    def code(self, data: bytes, path: str) -> types.CodeType:
        key = hashlib.sha256(data).hexdigest()
        directory = str(Path(path).parent)
        expected = _EXPECTED.get(directory)
        if expected is not None and expected.get(Path(path).name) != key:
            raise TamperedFile(Path(path).name)
        with self._lock:
            code = self._codes.pop(key, None)
        kept = _KEPT.get(directory)
        if code is None and kept is not None:
            code = _read_code(kept[0], key)
            if code is not None:
                self.disk_hits += 1
        if code is None:
            with self._lock:
                code = self._offered.pop(key, None)
            if code is None:
                code = compile(data, path, "exec", dont_inherit=True)
                self.compiles += 1
            else:
                self.ahead_hits += 1
            if kept is not None:
                _write_code(kept, directory, key, code)
        if code.co_filename != path:
            code = _renamed(code, path)
        with self._lock:
            self._codes[key] = code
            while len(self._codes) > _CODE_CACHE_ENTRIES:
                self._codes.popitem(last=False)
        return code

    def clear(self) -> None:
        with self._lock:
            self._codes.clear()
            self._offered.clear()


_CODE_MAGIC = b"UACCODE1"
_CODE_SUFFIX = f"-{importlib.util.MAGIC_NUMBER.hex()}-o{sys.flags.optimize}.code"
_KEPT: dict[str, tuple[Path, tuple[int, int]]] = {}  # package directory -> (code folder, its device and inode)


def keep_code(directory: Path, folder: Path | None) -> None:
    """Keep the compiled code of the package at `directory` in `folder` too (None: no longer).

    Only code whose source hash matches is ever read back. An entry is written only while
    `directory` is still the folder it was when registered (so nothing lands in `folder`
    for a package erased meanwhile: its eraser removes `folder` after `directory`)."""
    location = str(directory.resolve())
    try:
        st = os.stat(location)
    except OSError:
        folder = None
    if folder is None:
        _KEPT.pop(location, None)
        return
    _KEPT[location] = (folder, (st.st_dev, st.st_ino))


def code_file(folder: Path, key: str) -> Path:
    """Where `folder` keeps the compiled code of the source with sha256 `key`."""
    return folder / f"{key}{_CODE_SUFFIX}"


def _header(key: str, payload: bytes) -> bytes:
    return (_CODE_MAGIC + importlib.util.MAGIC_NUMBER + bytes([sys.flags.optimize & 0xFF])
            + bytes.fromhex(key) + hashlib.sha256(payload).digest())


def code_entry(key: str, code: types.CodeType) -> bytes:
    """The bytes of a code folder's entry for `code`, compiled from the source with sha256
    `key` (`read_code` checks them)."""
    payload = marshal.dumps(code)
    return _header(key, payload) + payload


def read_code(folder: Path, key: str) -> types.CodeType | None:
    """The code `folder` keeps for the source with sha256 `key`; None if it keeps none, or
    an entry that is stale, torn or corrupt."""
    return _read_code(folder, key)


def _read_code(folder: Path, key: str) -> types.CodeType | None:
    try:
        with open(code_file(folder, key), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    size = len(_header(key, b""))
    payload = data[size:]
    if len(data) <= size or data[:size] != _header(key, payload):
        return None
    try:
        code = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def _write_code(kept: tuple[Path, tuple[int, int]], directory: str, key: str, code: types.CodeType) -> None:
    """Best effort: a cache that cannot be written is only slower."""
    folder, identity = kept
    target = code_file(folder, key)
    temp = folder / f".tmp-{key}-{uuid.uuid4().hex}"
    try:
        entry = code_entry(key, code)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(temp, "xb") as handle:
            handle.write(entry)
        os.replace(temp, target)
    except (OSError, ValueError):
        _unlink(temp)
        return
    try:
        st = os.stat(directory)
        erased = (st.st_dev, st.st_ino) != identity
    except OSError:
        erased = True
    if erased:  # the package was erased while it compiled: keep nothing of it
        _unlink(target)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def prune_code(folder: Path, keep: set[str], limit: int) -> int:
    """Remove the oldest entries of `folder` whose source hash is not in `keep` until at most
    `limit` remain (leftovers of interrupted writes too); returns how many went."""
    try:
        with os.scandir(folder) as found:
            files = [e for e in found if e.is_file(follow_symlinks=False)]
        if len(files) <= limit:  # the usual case: counted from the listing, nothing stat'ed
            return 0
        entries = [(e.stat().st_mtime_ns, e.name) for e in files]
    except OSError:
        return 0
    doomed = [name for _, name in sorted(entries)
              if name.startswith(".tmp-") or name.split("-", 1)[0] not in keep]
    for name in doomed[:len(entries) - limit]:
        _unlink(folder / name)
    return min(len(doomed), len(entries) - limit)


def _renamed(code: types.CodeType, path: str) -> types.CodeType:
    """`code` (and the code objects it holds: functions, class bodies) as compiled from `path`."""
    if types.CodeType not in set(map(type, code.co_consts)):  # a chunk of records: thousands of constants
        return code.replace(co_filename=path)
    consts = tuple(_renamed(c, path) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=path, co_consts=consts)


CODE_CACHE = _CodeCache()
_DIRECTORIES: dict[str, str] = {}  # package directory -> module name, while loaded
_EXPECTED: dict[str, Mapping[str, str]] = {}  # package directory -> file name -> sha256, if pinned


class _CachedSourceLoader(importlib.machinery.SourceFileLoader):
    """Source loader that never reads or writes `__pycache__` and reuses compiled code."""

    def get_code(self, fullname: str) -> types.CodeType:
        return CODE_CACHE.code(self.get_data(self.path), self.path)


def _path_hook(entry: str) -> importlib.machinery.FileFinder:
    if entry not in _DIRECTORIES:
        raise ImportError("not a generated package directory")
    return importlib.machinery.FileFinder(entry, (_CachedSourceLoader, [".py"]))


sys.path_hooks.insert(0, _path_hook)


class PackageLoadError(ImportError):
    """The package could not be imported; nothing of it stays in `sys.modules`."""


class TamperedFile(PackageLoadError):
    """A file's bytes differ from the hash the package was pinned to (`file` names it)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} does not match its recorded hash")
        self.file = name


def module_name_for(user: str, version: str) -> str:
    """A valid, unique top-level module name for one version of one user's package.

    The readable part is a lossy ASCII slug, so a short hash of the exact (user, version)
    pair keeps names apart that slug alike (`a.b` vs `a_b`).
    """
    digest = hashlib.sha256(f"{user}\x00{version}".encode("utf-8", "surrogatepass")).hexdigest()[:12]
    slug_user = _UNSAFE.sub("_", user.lower()).strip("_")[:32] or "user"
    slug_version = _UNSAFE.sub("_", version.lower()).strip("_")[:16] or "v"
    return f"{MODULE_PREFIX}_{slug_user}_{slug_version}_{digest}"


@gc_paused
def load_package(directory: Path, module_name: str,
                 pinned: Mapping[str, str] | None = None, *, reuse: Reuse | None = None) -> types.ModuleType:
    """Import `directory` (holding `__init__.py`) as the package `module_name`.

    A package already loaded under that name is unloaded first. On any error while
    importing, everything registered under the name is removed again and
    `PackageLoadError` carries the cause. With `pinned` (file name -> sha256), a file whose
    bytes, as read for compiling, do not match raises `TamperedFile`: what runs is what
    was checked. With `reuse` (the files' hashes and sibling imports, which must describe
    the directory's files), a module already loaded from the same content in the same
    scope is taken as it is instead of running its file again (`codegen.module_reuse`).
    """
    if not module_name.isidentifier() or not module_name.isascii():
        raise PackageLoadError(f"{module_name!r} is not a valid module name")
    init = directory / "__init__.py"
    if not init.is_file():
        raise PackageLoadError(f"{directory} has no __init__.py")
    unload_package(module_name)
    location = str(directory.resolve())
    _DIRECTORIES[location] = module_name
    if pinned is not None:
        _EXPECTED[location] = dict(pinned)
    sys.path_importer_cache.pop(location, None)  # a fresh finder sees the directory as it is now
    spec = importlib.util.spec_from_file_location(
        module_name, Path(location) / "__init__.py",
        loader=_CachedSourceLoader(module_name, str(Path(location) / "__init__.py")),
        submodule_search_locations=[location],
    )
    if spec is None or spec.loader is None:
        raise PackageLoadError(f"cannot build an import spec for {init}")
    module = importlib.util.module_from_spec(spec)
    reused = {} if reuse is None else reuse.planned if reuse.planned is not None else module_reuse.plan(reuse)
    module_reuse.clear_names(module_name, reused)
    sys.modules[module_name] = module
    try:
        module_reuse.install(module_name, reused)
        spec.loader.exec_module(module)
        for name, submodule in reused.items():  # as an import would have bound them
            if not hasattr(module, name):
                setattr(module, name, submodule)
        module_reuse.register(module_name, reuse, reused)
    except TamperedFile:
        unload_package(module_name)
        raise
    except Exception as exc:
        unload_package(module_name)
        raise PackageLoadError(f"importing {directory.name}: {type(exc).__name__}: {exc}") from exc
    except BaseException:
        unload_package(module_name)
        raise
    return module


def unload_package(module_name: str) -> int:
    """Drop the package and its submodules from `sys.modules` (a module another loaded
    package reuses stays until that one goes); returns how many names the package held."""
    count = module_reuse.unload(module_name)
    for location in [loc for loc, name in _DIRECTORIES.items() if name == module_name]:
        del _DIRECTORIES[location]
        _EXPECTED.pop(location, None)
        sys.path_importer_cache.pop(location, None)
    return count

"""Compiling a package's sources to bytecode in a forked child while the parent checks them.

Compiling source to bytecode executes none of it, so it may start before the safety stage
has passed: the child compiles the sources no cache holds yet and writes each code object,
in a code folder's format (`codegen.loader.code_entry`: headed by the source's sha256 and a
sha256 of the marshalled code), into a private folder of its own. Once the parent has
passed the checks that come before importing, `take` waits for the child and offers the
entries to the loader's code cache (`CODE_CACHE.offer`), which uses an entry only for a
source with that very hash, read from the package directory as it is imported.

A cache only: no fork, a child that fails, is killed, or is not done in time, a torn or
corrupt entry, all leave those sources to be compiled at import, as without a child. The
child is short-lived (one package) and holds little of its own: it writes each code
object as soon as it is compiled.
"""

from __future__ import annotations

import os
import shutil
import time
import types
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

from codegen.forked import kill
from codegen.loader import CODE_CACHE, code_entry, code_file, read_code

MIN_BYTES = 1_000_000  # sources to compile below this are compiled at import (a fork costs more)
BASE_SECONDS = 30.0  # how long a child may take: this, plus SECONDS_PER_MB per MB of source
SECONDS_PER_MB = 2.0
_POLL = 0.002


class Precompile:
    """A child compiling `keys` (source sha256 -> source bytes' path as imported) into `folder`."""

    def __init__(self, pid: int, folder: Path, keys: Mapping[str, str], deadline: float) -> None:
        self.pid = pid
        self.folder = folder
        self.keys = dict(keys)
        self.deadline = deadline
        self.taken = 0  # entries offered to the loader
        self.status: str = "running"  # then: done, failed, killed, timeout

    def take(self) -> int:
        """Wait for the child (until its deadline), offer what it compiled to the loader's
        code cache; returns how many entries were offered."""
        if self.status == "running":
            self.status = _wait(self.pid, self.deadline)
        if self.status != "done":
            return 0
        codes: dict[str, types.CodeType] = {}
        for key in self.keys:
            code = read_code(self.folder, key)
            if code is not None:
                codes[key] = code
        CODE_CACHE.offer(codes)
        self.taken = len(codes)
        shutil.rmtree(self.folder, ignore_errors=True)
        return self.taken

    def close(self) -> None:
        """Stop the child if it still runs, remove its folder and what it offered and was not used."""
        if self.status == "running":
            kill(self.pid)
            self.status = "killed"
        CODE_CACHE.withdraw()
        shutil.rmtree(self.folder, ignore_errors=True)


def start(files: Mapping[str, str], hashes: Mapping[str, str], root: Path, path_of: Callable[[str], str],
          cached: Callable[[str], bool], min_bytes: int = MIN_BYTES,
          kept: Callable[[str], bool] = lambda key: False) -> Precompile | None:
    """Fork a child compiling the files (name -> text; `hashes`: name -> sha256 of its UTF-8
    bytes) whose code no cache holds (`cached(hash)`: in memory, `kept(hash)`: on disk,
    asked only when there is enough to compile), if they come to `min_bytes` or more; None
    when nothing is worth a child or no child could be started. `root`: where the child's
    private folder goes; `path_of(name)`: the path the file is imported from."""
    todo: dict[str, str] = {}
    for name, text in files.items():
        key = hashes.get(name)
        if key is not None and key not in todo and isinstance(text, str) and not cached(key):
            todo[key] = name
    if sum(len(files[name]) for name in todo.values()) < min_bytes:
        return None
    todo = {key: name for key, name in todo.items() if not kept(key)}
    size = sum(len(files[name]) for name in todo.values())
    if not todo or size < min_bytes or not hasattr(os, "fork"):
        return None
    folder = root / f"{os.getpid()}-{uuid.uuid4().hex}"
    try:
        _sweep(root)
        folder.mkdir(mode=0o700, parents=True)
        pid = os.fork()
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    if pid == 0:  # the child: compile, write, leave without running anything of the parent's
        code = 1
        try:
            _compile_all(files, todo, folder, path_of)
            code = 0
        finally:
            os._exit(code)
    return Precompile(pid, folder, {key: path_of(name) for key, name in todo.items()},
                      time.monotonic() + deadline(size))


def deadline(size: int) -> float:
    """Seconds a child working on `size` characters of source may take before it is stopped
    (and its work done by the parent)."""
    return BASE_SECONDS + SECONDS_PER_MB * size / 1e6


def _compile_all(files: Mapping[str, str], todo: Mapping[str, str], folder: Path,
                 path_of: Callable[[str], str]) -> None:
    for key, name in todo.items():
        data = files[name].encode("utf-8", "surrogatepass")
        try:
            code = compile(data, path_of(name), "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue  # the import reports it
        temp = folder / f".tmp-{key}"
        with open(temp, "xb") as handle:
            handle.write(code_entry(key, code))
        os.replace(temp, code_file(folder, key))


def _wait(pid: int, deadline: float) -> str:
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return "failed"  # reaped elsewhere: its work cannot be trusted to be whole
        if done:
            return "done" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else "failed"
        if time.monotonic() > deadline:
            kill(pid)
            return "timeout"
        time.sleep(_POLL)


def _sweep(root: Path) -> None:
    """Remove folders left by processes that are gone (a parent killed while its child ran)."""
    try:
        entries = list(root.iterdir())
    except OSError:
        return
    for entry in entries:
        owner = entry.name.split("-", 1)[0]
        if owner.isdigit() and int(owner) != os.getpid() and not _alive(int(owner)):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True

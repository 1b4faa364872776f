"""Stage 2 of validation: `mypy --strict` over a generated package, in-process and cached.

What mypy reads: the class modules, `__init__.py` and every file but the record chunks the
record type check accepts (`codegen.record_types`, whose acceptance implies mypy's). Such
a chunk is given to mypy as a stub `<module>.pyi` in place of its `.py`: its imports and
`_trips_003: list[Trip]`, so the rest of the package sees the same names and types, and
the 100,000 record calls of a large package are never checked twice. A chunk the record
check is not sure of is checked by mypy as before, so its errors carry its file and line.

mypy's incremental cache is keyed by module name and file, so every version of one user's
package is checked under the same stable name in the same work directory, with its own
cache (one SQLite file). Unchanged files are not rewritten, so their mtimes stay and mypy
skips even re-hashing them; a file that switches between stub and source leaves no stale
twin behind.

Verdict cache: a run that passed is remembered under the sha256 of exactly what mypy was
given (file names and texts, with `__init__.py`'s leading docstring blanked: a docstring
cannot change mypy's verdict, and the generated `__init__.py` of every version differs
there), the configuration and the mypy and Python versions. A check whose input was
seen passing does not run mypy, nor import it. A missing or damaged record only costs a run.

Only text that passed the safety stage may be given here: mypy does not run the code,
but there is no reason to hand it anything hostile.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Collection, Mapping

from codegen import forked
from codegen.loader import module_name_for
from codegen.problems import Problem, format_problems
from codegen.record_shape import RecordShape
from codegen.record_types import ClassTable, accepts, plain_text
from factlog.durable import exclusive_lock
from factlog.results import Failure, Success

_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<level>error|note): (?P<msg>.*?)"
                   r"(?:  \[(?P<code>[a-z0-9-]+)\])?$")
_CONFIG = "[mypy]\nstrict = True\nwarn_unreachable = True\n"
_LOCK = threading.Lock()  # mypy.api.run is not re-entrant
SYNCED = ".synced.json"  # in the package's work directory: file -> [sha256, size, mtime_ns] as written
PASSED = "passed.json"  # in the package's mypy cache: keys of the inputs mypy passed, newest last
_PASSED_KEPT = 64
_MYPY_SECONDS = 3600.0  # a mypy child not done by then is stopped, and mypy runs here
_PLAIN: dict[str, bool] = {}  # sha256 of a chunk's text -> it holds no comment mypy reads
_PLAIN_KEPT = 20_000
_PLAIN_LOCK = threading.Lock()  # over `_PLAIN` and `_ACCEPTED`
# (chunk hash, the hashes of the siblings it imports from) -> its stub and the stub's sha256, or
# None: not accepted by the record type check
_ACCEPTED: dict[str, tuple[str, str] | None] = {}


def _fresh_locks() -> None:
    """In a forked child (`codegen.forked`): locks another thread of the parent held at the
    fork would never be released there."""
    global _LOCK, _PLAIN_LOCK
    _LOCK, _PLAIN_LOCK = threading.Lock(), threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_locks)


@dataclass(frozen=True)
class TypecheckSuccess(Success):
    stubs: int = 0  # record chunks given as stubs (checked by `codegen.record_types`)
    ran: bool = True  # False: this input had passed before, mypy did not run


@dataclass(frozen=True)
class TypecheckFailure(Failure):
    problems: tuple[Problem, ...]

    @property
    def message(self) -> str:
        return format_problems("mypy", self.problems)


def stable_name(user: str) -> str:
    """The name a user's package is type-checked under, the same for every version."""
    return module_name_for(user, "mypy")


def typecheck(files: Mapping[str, str], name: str, work_dir: Path, cache_dir: Path,
              hashes: Mapping[str, str] | None = None,
              records: Mapping[str, RecordShape] | None = None) -> TypecheckSuccess | TypecheckFailure:
    """Check `files` as the package `name` (a valid identifier), written under `work_dir`.
    `hashes` (file name -> sha256 of its UTF-8 bytes) let an unchanged file be recognised
    by its recorded hash and stat instead of reading it back. `records` (file name -> shape,
    `SafetySuccess.records`) names the record chunks the record type check may take over."""
    given, given_hashes = mypy_input(files, hashes or {}, records or {})
    package_dir = (work_dir / name).resolve()
    config = work_dir / "mypy.ini"
    cache = cache_dir / name  # one per package name: `forget` removes it whole
    # The cache in one SQLite file: a re-check reads the metadata of every module the
    # package imports, and one database costs a fraction of a JSON file per module.
    args = ["--config-file", str(config), "--cache-dir", str(cache), "--sqlite-cache",
            "--show-column-numbers",
            "--show-error-codes", "--no-error-summary", "--hide-error-context", "--no-pretty",
            "--no-color-output", str(package_dir)]
    stubs = sum(file.endswith(".pyi") for file in given)
    key = verdict_key(name, given, given_hashes)
    # One checker at a time per work directory, across threads and processes (`uac watch`
    # beside a manual `uac checkpoint`): otherwise one could check the other's files.
    with _LOCK, exclusive_lock(work_dir / ".lock"):
        _sync(given, package_dir, given_hashes)
        if not config.is_file() or config.read_text("utf-8") != _CONFIG:
            config.write_text(_CONFIG, "utf-8")
        passed = _passed(cache)
        if key in passed:
            return TypecheckSuccess(stubs, ran=False)
        stdout, stderr, status = _run(args)
        if status != 0 and not _parse(stdout, package_dir):  # mypy itself failed: a damaged
            shutil.rmtree(cache, ignore_errors=True)  # cache must cost time, not the answer
            stdout, stderr, status = _run(args)
        if status == 0:
            _remember(cache, [k for k in _passed(cache) if k != key] + [key])
    if status == 0:
        return TypecheckSuccess(stubs)
    problems = _parse(stdout, package_dir)
    if not problems:  # mypy itself failed (crash, bad config): say so rather than pass
        text = (stderr or stdout).strip()[-2000:]
        problems = [Problem("mypy", "", 0, 0, f"mypy exited with status {status}: {text}")]
    return TypecheckFailure(tuple(problems))


def mypy_input(files: Mapping[str, str], hashes: Mapping[str, str], records: Mapping[str, RecordShape],
               ) -> tuple[dict[str, str], dict[str, str]]:
    """The files mypy is given (an accepted record chunk `m.py` as the stub `m.pyi`) and
    their hashes (those of `hashes`; a stub's computed)."""
    classes = ClassTable(files)
    given: dict[str, str] = {}
    given_hashes: dict[str, str] = {}
    for file, text in files.items():
        shape = records.get(file)
        stub = _stub_of(file, text, shape, classes, hashes) if shape is not None and file != "__init__.py" else None
        if stub is not None:
            given[file + "i"], given_hashes[file + "i"] = stub
        else:
            given[file] = text
            if file in hashes:
                given_hashes[file] = hashes[file]
    return given, given_hashes


def _stub_of(file: str, text: str, shape: RecordShape, classes: ClassTable,
             hashes: Mapping[str, str]) -> tuple[str, str] | None:
    """The stub of an accepted record chunk and its sha256; None if not accepted. The
    verdict depends only on the chunk's text (its shape is read from it) and on the texts
    of the sibling modules it imports its classes from, so it is remembered by their
    hashes (`_ACCEPTED`); without every hash it is worked out afresh."""
    key = _accept_key(file, shape, hashes)
    if key is not None:
        with _PLAIN_LOCK:
            if key in _ACCEPTED:
                known = _ACCEPTED[key] = _ACCEPTED.pop(key)  # re-inserted last: the dict is an LRU
                return known
    found: tuple[str, str] | None = None
    if accepts(shape, classes, text, _plain(text, hashes.get(file))):
        stub = stub_text(shape)
        found = (stub, _sha256(stub))
    if key is not None:
        with _PLAIN_LOCK:
            _ACCEPTED[key] = found
            while len(_ACCEPTED) > _PLAIN_KEPT:
                del _ACCEPTED[next(iter(_ACCEPTED))]
    return found


def _accept_key(file: str, shape: RecordShape, hashes: Mapping[str, str]) -> str | None:
    """What the record type check's verdict on `file` depends on: its text's hash and, per
    sibling module it imports from, that module's name and text hash (None if any is not known)."""
    digest = hashes.get(file)
    if digest is None:
        return None
    parts = [digest]
    for imp in shape.imports:
        if imp.level != 0:
            module = imp.module or ""
            sibling = hashes.get(f"{module}.py")
            if sibling is None:
                return None
            parts.append(f"{imp.level}:{module}:{sibling}")
    return "\x00".join(parts)


def _plain(text: str, digest: str | None) -> bool:
    """`record_types.plain_text(text)`, remembered by the text's hash (an unchanged chunk
    of a large package is not scanned again)."""
    if digest is None:
        return plain_text(text)
    with _PLAIN_LOCK:
        known = _PLAIN.pop(digest, None)
    if known is None:
        known = plain_text(text)
    with _PLAIN_LOCK:
        _PLAIN[digest] = known  # re-inserted last: the dict is an LRU
        while len(_PLAIN) > _PLAIN_KEPT:
            del _PLAIN[next(iter(_PLAIN))]
    return known


def plain_known(digests: Collection[str]) -> dict[str, bool]:
    """What this process remembers of `_plain` for these text hashes (for another process)."""
    with _PLAIN_LOCK:
        return {digest: _PLAIN[digest] for digest in digests if digest in _PLAIN}


def remember_plain(known: Mapping[str, bool]) -> None:
    """Take `_plain` verdicts worked out by another process (`plain_known`)."""
    with _PLAIN_LOCK:
        for digest, plain in known.items():
            _PLAIN.pop(digest, None)
            _PLAIN[digest] = plain
        while len(_PLAIN) > _PLAIN_KEPT:
            del _PLAIN[next(iter(_PLAIN))]


def stub_text(shape: RecordShape) -> str:
    """What the rest of the package sees of a record chunk: its imports and its lists' types."""
    lines = []
    for imp in shape.imports:
        alias = f" as {imp.asname}" if imp.asname is not None else ""
        lines.append(f"from {'.' * imp.level}{imp.module} import {imp.name}{alias}")
    lines += [f"{records.name}: list[{records.class_name}]" for records in shape.lists]
    return "\n".join(lines) + "\n"


def verdict_key(name: str, given: Mapping[str, str], hashes: Mapping[str, str]) -> str:
    """The sha256 of mypy's input: configuration, versions, the package's name, and each
    file's name and text (`__init__.py` with its leading docstring blanked)."""
    h = hashlib.sha256(f"{_CONFIG}\x00{sys.version}\x00{_mypy_version()}\x00{name}\x00".encode())
    for file in sorted(given):
        text = given[file]
        if file == "__init__.py":
            digest = _sha256(blank_docstring(text))
        else:
            digest = hashes.get(file) or _sha256(text)
        h.update(f"{file}\x00{digest}\x00".encode())
    return h.hexdigest()


def blank_docstring(text: str) -> str:
    """`text` with the characters of its leading docstring (a first statement that is a
    string literal) replaced by `""`; any other text unchanged."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return text
    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and first.end_lineno is not None
            and first.end_col_offset is not None):
        return text
    data = text.encode("utf-8", "surrogatepass")
    starts = [0]
    for line in data.split(b"\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    begin = starts[first.lineno - 1] + first.col_offset
    end = starts[first.end_lineno - 1] + first.end_col_offset
    return (data[:begin] + b'""' + data[end:]).decode("utf-8", "surrogatepass")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@functools.cache
def _mypy_version() -> str:
    try:
        return metadata.version("mypy")
    except metadata.PackageNotFoundError:
        return "unknown"


def _passed(cache: Path) -> list[str]:
    """The keys of inputs mypy passed; [] when the record is missing or damaged."""
    try:
        data = json.loads((cache / PASSED).read_text("utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, list) or not all(isinstance(k, str) and len(k) == 64 for k in data):
        return []
    return data


def _remember(cache: Path, keys: list[str]) -> None:
    try:
        cache.mkdir(parents=True, exist_ok=True)
        temporary = cache / f"{PASSED}.{os.getpid()}.tmp"
        temporary.write_text(json.dumps(keys[-_PASSED_KEPT:]), "utf-8")
        os.replace(temporary, cache / PASSED)
    except OSError:
        pass  # a verdict not remembered costs a run next time


def _run(args: list[str]) -> tuple[str, str, int]:
    """mypy's (stdout, stderr, status); an exception it raises (a damaged cache database)
    as a failed run. mypy runs in a forked child where it can: what a run builds (typeshed,
    the module graph) stays alive in the process that ran it, so a long-lived process (the
    warm worker, `uac watch`, a test session) that ran it itself would grow by tens of MB per
    run. A child that cannot be started or gives no answer leaves the run to this process."""
    import mypy.main  # noqa: F401  (the checker itself: imported once here, not in each child)
    from mypy import api  # imported on the first run only: a remembered verdict needs no mypy

    def run() -> tuple[str, str, int]:
        try:
            return api.run(args)
        except Exception as exc:  # noqa: BLE001  (whatever mypy raises is reported, not raised)
            return "", f"mypy raised {type(exc).__name__}: {exc}", 2

    child = None if forked.IN_CHILD else forked.fork_call(run, tuple, _MYPY_SECONDS)
    answer = child.answer() if child is not None else None
    if answer is not None and len(answer) == 3 and isinstance(answer[0], str) \
            and isinstance(answer[1], str) and isinstance(answer[2], int):
        return answer[0], answer[1], answer[2]
    return run()


def _sync(files: Mapping[str, str], package_dir: Path, hashes: Mapping[str, str]) -> None:
    """Make `package_dir` hold exactly `files`, touching only what changed. A file whose
    hash, size and mtime match what `SYNCED` recorded when it was written is taken as
    unchanged; anything else (no record, another stat, no hash given) is compared byte
    for byte, so a damaged record only costs time."""
    package_dir.mkdir(parents=True, exist_ok=True)
    record = package_dir / SYNCED
    try:
        synced = json.loads(record.read_text("utf-8"))
        if not isinstance(synced, dict):
            synced = {}
    except (OSError, ValueError):
        synced = {}
    record.unlink(missing_ok=True)  # rewritten below, once the files match it
    floor = _mtime_floor(synced, package_dir)
    for stale in [*package_dir.glob("*.py"), *package_dir.glob("*.pyi")]:
        if stale.name not in files:  # gone, or switched between stub and source
            stale.unlink()
    written: dict[str, object] = {MTIME_FLOOR: floor}
    for file, text in files.items():
        path = package_dir / file
        digest = hashes.get(file)
        known = synced.get(file)
        data = text.encode("utf-8", "surrogatepass")
        try:
            st = path.stat()
            if digest is not None and known == [digest, st.st_size, st.st_mtime_ns]:
                written[file] = known
                continue
            if path.read_bytes() != data:
                _write(path, data, floor)
        except FileNotFoundError:
            _write(path, data, floor)
        if digest is not None:
            st = path.stat()
            written[file] = [digest, st.st_size, st.st_mtime_ns]
    temporary = record.with_suffix(".tmp")
    temporary.write_text(json.dumps(written), "utf-8")
    os.replace(temporary, record)


MTIME_FLOOR = "//mtime"  # in the sync record: the whole second every file of the last sync was dated


def _mtime_floor(synced: Mapping[str, object], package_dir: Path) -> int:
    """The whole second to date the files this sync writes: after every second an earlier sync
    dated a file with. mypy takes a module whose size and whole-second mtime match its cache as
    unchanged without reading it, so a rewrite of the same size in the same second would be
    checked as the old text; a later second makes it compare the hash. Without a record: after
    every file here and after the present second."""
    recorded = synced.get(MTIME_FLOOR)
    if isinstance(recorded, int) and not isinstance(recorded, bool):
        return max(recorded + 1, int(time.time()))
    seconds = [int(p.stat().st_mtime) for p in package_dir.iterdir() if p.suffix in (".py", ".pyi")]
    return max([*seconds, int(time.time())]) + 1


def _write(path: Path, data: bytes, second: int) -> None:
    path.write_bytes(data)
    os.utime(path, ns=(second * 1_000_000_000, second * 1_000_000_000))


def _parse(output: str, package_dir: Path) -> list[Problem]:
    problems: list[Problem] = []
    for raw in output.splitlines():
        match = _LINE.match(raw)
        if match is None:
            continue
        if match["level"] == "note":
            if problems:  # a note explains the error before it
                last = problems[-1]
                problems[-1] = Problem(last.rule, last.file, last.line, last.column,
                                       f"{last.message} (note: {match['msg']})")
            continue
        path = Path(match["path"])
        file = path.name if path.parent == package_dir else str(path)
        problems.append(Problem(f"mypy:{match['code'] or 'error'}", file, int(match["line"]),
                                int(match["col"]), match["msg"]))
    return problems

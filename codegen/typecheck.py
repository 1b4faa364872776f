"""Stage 2 of validation: `mypy --strict` over a generated package, in-process and cached.

mypy's incremental cache is keyed by module name and file, so every version of one user's
package is checked under the same stable name in the same work directory, with its own
cache (one SQLite file): a new version that changes one chunk file makes mypy re-check
that chunk, and `__init__.py` (it changes on every version), whose re-check reads the
cached interface of every module it imports. Unchanged files are not rewritten, so their
mtimes stay and mypy skips even re-hashing them.

Only text that passed the safety stage may be given here: mypy does not run the code,
but there is no reason to hand it anything hostile.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from mypy import api

from codegen.loader import module_name_for
from codegen.problems import Problem, format_problems
from factlog.durable import exclusive_lock
from factlog.results import Failure, Success

_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<level>error|note): (?P<msg>.*?)"
                   r"(?:  \[(?P<code>[a-z0-9-]+)\])?$")
_CONFIG = "[mypy]\nstrict = True\nwarn_unreachable = True\n"
_LOCK = threading.Lock()  # mypy.api.run is not re-entrant
SYNCED = ".synced.json"  # in the package's work directory: file -> [sha256, size, mtime_ns] as written


@dataclass(frozen=True)
class TypecheckSuccess(Success):
    pass


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
              hashes: Mapping[str, str] | None = None) -> TypecheckSuccess | TypecheckFailure:
    """Check `files` as the package `name` (a valid identifier), written under `work_dir`.
    `hashes` (file name -> sha256 of its UTF-8 bytes) let an unchanged file be recognised
    by its recorded hash and stat instead of reading it back."""
    package_dir = (work_dir / name).resolve()
    config = work_dir / "mypy.ini"
    cache = cache_dir / name  # one per package name: `forget` removes it whole
    # The cache in one SQLite file: a re-check reads the metadata of every module the
    # package imports, and one database costs a fraction of a JSON file per module.
    args = ["--config-file", str(config), "--cache-dir", str(cache), "--sqlite-cache",
            "--show-column-numbers",
            "--show-error-codes", "--no-error-summary", "--hide-error-context", "--no-pretty",
            "--no-color-output", str(package_dir)]
    # One checker at a time per work directory, across threads and processes (`uac watch`
    # beside a manual `uac checkpoint`): otherwise one could check the other's files.
    with _LOCK, exclusive_lock(work_dir / ".lock"):
        _sync(files, package_dir, hashes or {})
        if not config.is_file() or config.read_text("utf-8") != _CONFIG:
            config.write_text(_CONFIG, "utf-8")
        stdout, stderr, status = _run(args)
        if status != 0 and not _parse(stdout, package_dir):  # mypy itself failed: a damaged
            shutil.rmtree(cache, ignore_errors=True)  # cache must cost time, not the answer
            stdout, stderr, status = _run(args)
    if status == 0:
        return TypecheckSuccess()
    problems = _parse(stdout, package_dir)
    if not problems:  # mypy itself failed (crash, bad config): say so rather than pass
        text = (stderr or stdout).strip()[-2000:]
        problems = [Problem("mypy", "", 0, 0, f"mypy exited with status {status}: {text}")]
    return TypecheckFailure(tuple(problems))


def _run(args: list[str]) -> tuple[str, str, int]:
    """mypy's (stdout, stderr, status); an exception it raises (a damaged cache database)
    as a failed run."""
    try:
        return api.run(args)
    except Exception as exc:  # noqa: BLE001  (whatever mypy raises is reported, not raised)
        return "", f"mypy raised {type(exc).__name__}: {exc}", 2


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
    for stale in package_dir.glob("*.py"):
        if stale.name not in files:
            stale.unlink()
    written: dict[str, list[object]] = {}
    for file, text in files.items():
        path = package_dir / file
        digest = hashes.get(file)
        known = synced.get(file)
        try:
            st = path.stat()
            if digest is not None and known == [digest, st.st_size, st.st_mtime_ns]:
                written[file] = known
                continue
            data = text.encode("utf-8", "surrogatepass")
            if path.read_bytes() != data:
                path.write_bytes(data)
        except FileNotFoundError:
            data = text.encode("utf-8", "surrogatepass")
            path.write_bytes(data)
        if digest is not None:
            st = path.stat()
            written[file] = [digest, st.st_size, st.st_mtime_ns]
    temporary = record.with_suffix(".tmp")
    temporary.write_text(json.dumps(written), "utf-8")
    os.replace(temporary, record)


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

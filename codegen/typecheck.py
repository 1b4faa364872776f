"""Stage 2 of validation: `mypy --strict` over a generated package, in-process and cached.

mypy's incremental cache is keyed by module name and file, so every version of one user's
package is checked under the same stable name in the same work directory: a new version
that changes one chunk file makes mypy re-check that chunk only. Unchanged files are not
rewritten, so their mtimes stay and mypy skips even re-hashing them.

Only text that passed the safety stage may be given here: mypy does not run the code,
but there is no reason to hand it anything hostile.
"""

from __future__ import annotations

import re
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


def typecheck(files: Mapping[str, str], name: str, work_dir: Path,
              cache_dir: Path) -> TypecheckSuccess | TypecheckFailure:
    """Check `files` as the package `name` (a valid identifier), written under `work_dir`."""
    package_dir = (work_dir / name).resolve()
    config = work_dir / "mypy.ini"
    args = ["--config-file", str(config), "--cache-dir", str(cache_dir), "--show-column-numbers",
            "--show-error-codes", "--no-error-summary", "--hide-error-context", "--no-pretty",
            "--no-color-output", str(package_dir)]
    # One checker at a time per work directory, across threads and processes (`uac watch`
    # beside a manual `uac checkpoint`): otherwise one could check the other's files.
    with _LOCK, exclusive_lock(work_dir / ".lock"):
        _sync(files, package_dir)
        if not config.is_file() or config.read_text("utf-8") != _CONFIG:
            config.write_text(_CONFIG, "utf-8")
        stdout, stderr, status = api.run(args)
    if status == 0:
        return TypecheckSuccess()
    problems = _parse(stdout, package_dir)
    if not problems:  # mypy itself failed (crash, bad config): say so rather than pass
        text = (stderr or stdout).strip()[-2000:]
        problems = [Problem("mypy", "", 0, 0, f"mypy exited with status {status}: {text}")]
    return TypecheckFailure(tuple(problems))


def _sync(files: Mapping[str, str], package_dir: Path) -> None:
    """Make `package_dir` hold exactly `files`, touching only what changed."""
    package_dir.mkdir(parents=True, exist_ok=True)
    for stale in package_dir.glob("*.py"):
        if stale.name not in files:
            stale.unlink()
    for file, text in files.items():
        path = package_dir / file
        data = text.encode("utf-8", "surrogatepass")
        try:
            if path.read_bytes() == data:
                continue
        except FileNotFoundError:
            pass
        path.write_bytes(data)


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

"""Stage 1 of validation: the safety allowlist over a whole generated package.

Each file is checked on its own by `codegen.safety_rules`, and the verdict is cached by the
sha256 of its text (and of the rules themselves), in memory and optionally on disk, so
unchanged chunk files are never parsed again. Cold runs with many large files can fan out
to worker processes. Then the package-level checks: file names, `__init__.py`, and that
every sibling import names something the sibling really defines.

The disk cache is trusted like the code itself: keep it where only this program writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Mapping

from codegen import cst_audit, record_lines, record_shape, safety_rules
from codegen.problems import Problem, format_problems
from codegen.record_shape import Import, RecordList, RecordShape, Signature
from codegen.safety_rules import FileReport, Limits, SiblingUse, check_source
from factlog.limits import MAX_FILES, package_size_problem
from factlog.results import Failure, Success

FILE_NAME = re.compile(r"[a-z_][a-z0-9_]*\.py", re.ASCII)
_RULES = (safety_rules, cst_audit, record_lines, record_shape)  # what a verdict depends on
_RULES_DIGEST = hashlib.sha256(b"".join(Path(str(m.__file__)).read_bytes() for m in _RULES)).hexdigest()


@dataclass(frozen=True)
class SafetySuccess(Success):
    files: int
    parsed: int  # files checked afresh; the rest came from the cache
    imports: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)  # file -> sibling modules
    records: Mapping[str, RecordShape] = field(default_factory=dict, compare=False)  # records-only file -> shape


@dataclass(frozen=True)
class SafetyFailure(Failure):
    problems: tuple[Problem, ...]
    parsed: int

    @property
    def message(self) -> str:
        return format_problems("safety", self.problems)


class SafetyChecker:
    """Checks packages, remembering verdicts per file text. Not thread-safe; one per process
    is enough. `workers > 1` checks cold files in a process pool once the text to check
    exceeds `parallel_min_bytes`; call `close()` to stop the pool."""

    def __init__(self, cache_dir: Path | None = None, limits: Limits = Limits(), workers: int = 1,
                 parallel_min_bytes: int = 2_000_000, memory_entries: int = 2 * MAX_FILES) -> None:
        self.cache_dir = cache_dir
        self.limits = limits
        self.workers = workers
        self.parallel_min_bytes = parallel_min_bytes
        self.memory_entries = memory_entries
        self.parses = 0  # files parsed over this checker's life (cache misses)
        self._memory: dict[str, FileReport] = {}
        self._pool: ProcessPoolExecutor | None = None

    def check(self, files: Mapping[str, str], hashes: Mapping[str, str] | None = None,
              ) -> SafetySuccess | SafetyFailure:
        """`hashes` (file name -> sha256 of its UTF-8 bytes), when the caller has them, spare
        hashing the text again: an unchanged file then costs a lookup."""
        problems = _check_names(files, self.limits)
        if problems:
            return SafetyFailure(tuple(problems), 0)
        reports, parsed = self._reports(files, hashes or {})
        for name, report in reports.items():
            problems += [replace(p, file=name) for p in report.problems]
        problems += _check_siblings(reports)
        if problems:
            return SafetyFailure(tuple(problems), parsed)
        return SafetySuccess(len(files), parsed, {name: frozenset(use.module for use in report.sibling_uses)
                                                  for name, report in reports.items()},
                             {name: report.records for name, report in reports.items() if report.records is not None})

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    # ------------------------------------------------------------------ caching
    def _key(self, text: str, digest: str | None = None) -> str:
        """The verdict's key: the rules, the limits and the text's sha256."""
        h = hashlib.sha256(f"{_RULES_DIGEST}\x00{self.limits!r}\x00".encode())
        h.update((digest or content_hash(text)).encode())
        return h.hexdigest()

    def _reports(self, files: Mapping[str, str], hashes: Mapping[str, str],
                 ) -> tuple[dict[str, FileReport], int]:
        keys = {name: self._key(text, hashes.get(name)) for name, text in files.items()}
        found: dict[str, FileReport] = {}
        missing: dict[str, str] = {}  # key -> text
        for name, key in keys.items():
            report = self._memory.pop(key, None) or self._load(key)
            if report is None:
                missing[key] = files[name]
            else:
                found[key] = report
        found.update(self._check_texts(missing))
        for key, report in found.items():
            self._memory[key] = report  # re-inserted last: the dict is an LRU
        while len(self._memory) > self.memory_entries:
            del self._memory[next(iter(self._memory))]
        self.parses += len(missing)
        return {name: found[key] for name, key in keys.items()}, len(missing)

    def _check_texts(self, texts: dict[str, str]) -> dict[str, FileReport]:
        size = sum(len(t) for t in texts.values())
        if self.workers > 1 and len(texts) > 1 and size >= self.parallel_min_bytes:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"))
            results = self._pool.map(check_source, texts.values(), [self.limits] * len(texts))
            checked = dict(zip(texts, results))
        else:
            checked = {key: check_source(text, self.limits) for key, text in texts.items()}
        for key, report in checked.items():
            self._store(key, report)
        return checked

    def _path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / key[:2] / f"{key}.json"

    def _load(self, key: str) -> FileReport | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            return _report_from_json(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, TypeError, KeyError):
            return None  # absent or damaged: check the text again

    def _store(self, key: str, report: FileReport) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(_report_to_json(report)), "utf-8")
            os.replace(temporary, path)
        except OSError:
            pass  # the cache is an optimisation; a read-only cache dir must not fail validation


def content_hash(text: str) -> str:
    """sha256 of a file's text as written (UTF-8; lone surrogates kept), the file's identity
    in every cache of validation."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _check_names(files: Mapping[str, str], limits: Limits) -> list[Problem]:
    problems: list[Problem] = []
    if len(files) > limits.max_files:
        problems.append(Problem("file-name", "", 0, 0, f"{len(files)} files; at most {limits.max_files}"))
    else:
        oversize = package_size_problem(len(files), _package_bytes(files, limits.max_total_bytes),
                                        limits.max_files, limits.max_total_bytes)
        if oversize is not None:
            problems.append(Problem("package-size", "", 0, 0, oversize))
    if "__init__.py" not in files:
        problems.append(Problem("file-name", "__init__.py", 0, 0, "a package needs an __init__.py"))
    for name, text in files.items():
        if not isinstance(name, str) or not FILE_NAME.fullmatch(name) \
                or (name.startswith("__") and name != "__init__.py"):
            problems.append(Problem("file-name", str(name)[:80], 0, 0,
                                    "file names must match [a-z_][a-z0-9_]*.py (no other dunder files)"))
        elif not isinstance(text, str):
            problems.append(Problem("file-name", name, 0, 0, "file content must be text"))
    return problems


def _package_bytes(files: Mapping[str, str], limit: int) -> int:
    """The files' UTF-8 size; counted exactly only when it might exceed `limit` (a
    character takes at most 4 bytes, so fewer than limit / 4 characters always fit)."""
    texts = [text for text in files.values() if isinstance(text, str)]
    characters = sum(map(len, texts))
    if characters * 4 <= limit:
        return characters
    return sum(len(text.encode("utf-8", "surrogatepass")) for text in texts)


def _check_siblings(reports: Mapping[str, FileReport]) -> list[Problem]:
    """Every `from .m import N` must find N defined (or re-exported) by m.py; names used as
    classes (called, or `N.MEMBER`) must resolve to a class."""
    exports = {name[:-3]: report.exports for name, report in reports.items()}
    problems: list[Problem] = []
    for file, report in reports.items():
        for use in report.sibling_uses:
            kind = _resolve(exports, use.module, use.name)
            if kind is None:
                problems.append(_use_problem(file, use, f"module .{use.module} does not define {use.name!r}"))
            elif use.as_class and kind != "class":
                problems.append(_use_problem(file, use, f"{use.name!r} from .{use.module} is called or "
                                                        "dotted but is not a class"))
    return problems


def _resolve(exports: Mapping[str, Mapping[str, str]], module: str, name: str) -> str | None:
    seen: set[tuple[str, str]] = set()
    while (module, name) not in seen:
        seen.add((module, name))
        kind = exports.get(module, {}).get(name)
        if kind is None or not kind.startswith("from:"):
            return kind
        module = kind[5:]
    return None  # a re-export cycle defines nothing


def _use_problem(file: str, use: SiblingUse, message: str) -> Problem:
    return Problem("import", file, use.line, use.column, message)


def _report_to_json(report: FileReport) -> dict[str, Any]:
    return {
        "problems": [[p.rule, p.line, p.column, p.message] for p in report.problems],
        "exports": dict(report.exports),
        "uses": [[u.module, u.name, u.line, u.column, u.as_class] for u in report.sibling_uses],
        "records": report.records,  # NamedTuples: nested lists
    }


def _report_from_json(data: dict[str, Any]) -> FileReport:
    problems = tuple(Problem(str(r), "", int(ln), int(c), str(m)) for r, ln, c, m in data["problems"])
    exports = {str(k): str(v) for k, v in data["exports"].items()}
    uses = tuple(SiblingUse(str(m), str(n), int(ln), int(c), bool(a)) for m, n, ln, c, a in data["uses"])
    return FileReport(problems, exports, uses, _shape_from_json(data["records"]))


def _shape_from_json(data: Any) -> RecordShape | None:
    if data is None:
        return None
    imports, lists = data
    return RecordShape(
        tuple(Import(str(m), str(n), None if a is None else str(a), int(lv)) for m, n, a, lv in imports),
        tuple(RecordList(str(name), str(cls), tuple(Signature(str(called), tuple((str(k), str(t)) for k, t in kws))
                                                    for called, kws in signatures))
              for name, cls, signatures in lists))

"""Validation of a generated package: safety → mypy → import → coverage, stopping at the
first stage that fails. Nothing is imported before the safety and mypy stages pass, and
what is imported is exactly the text that was checked: the validator writes it itself.
"""

from __future__ import annotations

import hashlib
import shutil
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet, Literal, Mapping, Sequence

from codegen.loader import PackageLoadError, load_package, module_name_for, unload_package
from codegen.manifest import Manifest, identity_from_facts, walk_module
from codegen.problems import Problem, format_problems
from codegen.safety import SafetyChecker, SafetyFailure
from codegen.safety_rules import Limits
from codegen.typecheck import TypecheckFailure, stable_name, typecheck
from factlog.liveness import live_ids
from factlog.model import Fact
from factlog.results import Failure, Success

Stage = Literal["safety", "mypy", "import", "coverage"]


@dataclass(frozen=True)
class ValidationSuccess(Success):
    module: types.ModuleType  # loaded under `module_name`; unload with loader.unload_package
    module_name: str
    timings: Mapping[str, float]  # seconds per stage
    manifest: Manifest  # built by the coverage stage's walk


@dataclass(frozen=True)
class ValidationFailure(Failure):
    stage: Stage
    problems: tuple[Problem, ...]
    timings: Mapping[str, float]

    @property
    def message(self) -> str:
        return format_problems(self.stage, self.problems)

    def format_for_llm(self) -> str:
        return format_problems(self.stage, self.problems)


class Validator:
    """Holds the caches (safety verdicts, mypy's incremental cache) under `cache_root`."""

    def __init__(self, cache_root: Path, *, workers: int = 1, limits: Limits = Limits()) -> None:
        self.cache_root = cache_root
        self.safety = SafetyChecker(cache_root / "safety", limits, workers)

    def close(self) -> None:
        self.safety.close()

    def forget(self, user: str) -> None:
        """Drop what the caches hold of a user's text: mypy's working copy and its cache."""
        name = stable_name(user)
        shutil.rmtree(self.cache_root / "typecheck" / name, ignore_errors=True)
        for cached in (self.cache_root / "mypy").glob(f"*/{name}"):
            shutil.rmtree(cached, ignore_errors=True)

    def validate(self, files: Mapping[str, str], *, user: str, version: str, stage_dir: Path,
                 live_fact_ids: AbstractSet[int] | None = None,
                 facts: Sequence[Fact] | Mapping[int, Fact] | None = None,
                 quarantined: Mapping[int, str] | AbstractSet[int] = frozenset(),
                 ) -> ValidationSuccess | ValidationFailure:
        """Validate `files`; on success they are written to `stage_dir` (which must not
        exist yet) and imported from there, ready for the caller to publish by renaming.
        On failure `stage_dir` is removed again.

        `facts` (the user's log, or its facts by id) give the live facts coverage checks
        (unless `live_fact_ids` names them) and the records' entity identities in the
        manifest. Quarantined live facts, those the module declares (`_quarantined`) and
        those named here, are accounted for without a record (see `codegen.coverage`)."""
        by_id = _by_id(facts)
        if live_fact_ids is None:
            live_fact_ids = live_ids(list(by_id.values()))
        reasons = dict(quarantined) if isinstance(quarantined, Mapping) \
            else dict.fromkeys(quarantined, "left out by the producer")
        timings: dict[str, float] = {}
        started = time.perf_counter()
        safe = self.safety.check(files)
        timings["safety"] = time.perf_counter() - started
        if isinstance(safe, SafetyFailure):
            return ValidationFailure("safety", safe.problems, timings)

        started = time.perf_counter()
        self.cache_root.mkdir(parents=True, exist_ok=True)
        typed = typecheck(files, stable_name(user), self.cache_root / "typecheck", self.cache_root / "mypy")
        timings["mypy"] = time.perf_counter() - started
        if isinstance(typed, TypecheckFailure):
            return ValidationFailure("mypy", typed.problems, timings)

        started = time.perf_counter()
        if stage_dir.exists():
            return ValidationFailure("import", (Problem("import-error", "", 0, 0,
                                              f"stage directory {stage_dir} already exists"),), timings)
        name = module_name_for(user, f"{version}_{_digest(files)[:10]}")
        try:
            _write(files, stage_dir)
            module = load_package(stage_dir, name)
        except (OSError, PackageLoadError) as exc:
            shutil.rmtree(stage_dir, ignore_errors=True)
            timings["import"] = time.perf_counter() - started
            return ValidationFailure("import", (Problem("import-error", "", 0, 0, str(exc)),), timings)
        timings["import"] = time.perf_counter() - started

        started = time.perf_counter()
        walked = walk_module(vars(module), live_fact_ids=live_fact_ids,
                             identity=identity_from_facts(by_id) if by_id else None, quarantined=reasons)
        timings["coverage"] = time.perf_counter() - started
        if isinstance(walked, str) or not walked[0].complete:
            unload_package(name)
            shutil.rmtree(stage_dir, ignore_errors=True)
            problems = (Problem("coverage-quarantine", "__init__.py", 0, 0, walked),) if isinstance(walked, str) \
                else _coverage_problems(walked[0].missing, walked[0].unknown)
            return ValidationFailure("coverage", problems, timings)
        return ValidationSuccess(module, name, timings, walked[1])


def _by_id(facts: Sequence[Fact] | Mapping[int, Fact] | None) -> Mapping[int, Fact]:
    if facts is None:
        return {}
    return facts if isinstance(facts, Mapping) else {f.id: f for f in facts}


def _digest(files: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(f"{name}\x00{len(files[name])}\x00".encode())
        h.update(files[name].encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _write(files: Mapping[str, str], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=False)
    for name, text in files.items():
        (directory / name).write_bytes(text.encode("utf-8", "surrogatepass"))


def _coverage_problems(missing: tuple[int, ...], unknown: tuple[int, ...]) -> tuple[Problem, ...]:
    problems = []
    if missing:
        problems.append(Problem("coverage-missing", "", 0, 0,
                                f"{len(missing)} live fact(s) are in no record or note: {_ids(missing)}"))
    if unknown:
        problems.append(Problem("coverage-unknown", "", 0, 0,
                                f"records cite {len(unknown)} id(s) that are not live facts: {_ids(unknown)}"))
    return tuple(problems)


def _ids(ids: tuple[int, ...], limit: int = 50) -> str:
    shown = ", ".join(map(str, ids[:limit]))
    return shown + (f", ... ({len(ids) - limit} more)" if len(ids) > limit else "")

"""Validation of a generated package: safety → mypy → import → coverage. A version is
accepted only if every stage passes; the failure reported is that of the earliest stage
that fails, in this order. Nothing is imported before the safety stage passed, and what is
imported is exactly the text that was checked: the validator writes it itself.

For a large change (`Validator.fork_min_bytes` of source new to the code caches), forked
children use a second core: one compiles the sources while safety runs
(`codegen.precompile`), one runs mypy beside import and walk (`codegen.forked`), whose
verdict is still taken before theirs. Without a usable child the stage runs here.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import shutil
import sys
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet, Any, Callable, Collection, Literal, Mapping, Sequence

from codegen import forked, module_reuse, precompile, walk_cache
from codegen.loader import (
    CODE_CACHE,
    PackageLoadError,
    code_file,
    keep_code,
    load_package,
    module_name_for,
    prune_code,
    unload_package,
)
from codegen.manifest import Key, Manifest, Part, RecordInfo, Run, identity_from_facts, walk_module
from codegen.module_reuse import Reuse, content_keys
from codegen.problems import Problem, format_problems
from codegen.safety import SafetyChecker, SafetyFailure, SafetySuccess, content_hash
from codegen.safety_rules import Limits
from codegen.typecheck import TypecheckFailure, TypecheckSuccess, plain_known, remember_plain, stable_name, typecheck
from factlog.liveness import live_ids
from factlog.model import Fact
from factlog.results import Failure, Success

Stage = Literal["safety", "mypy", "import", "coverage"]

# Which walk a part key names: part keys are text (`chunk_runs`), stored with the part's walk
# (`users.manifest_parts`); a new walk of records (other record data) takes a new tag.
PART_WALK = "walk1"
StoredParts = Callable[[Collection[Key]], Mapping[Key, Part]]  # part keys -> walks kept elsewhere
CODE_SLACK = 64  # compiled-code entries a code folder keeps beyond twice a package's files
WALKS = "walks"  # under the cache root, per user: the walks of chunk lists (`codegen.walk_cache`)


@dataclass(frozen=True)
class ValidationSuccess(Success):
    module: types.ModuleType  # loaded under `module_name`; unload with loader.unload_package
    module_name: str
    timings: Mapping[str, float]  # seconds per stage
    manifest: Manifest  # built by the coverage stage's walk
    # Per collection with manifest `parts`: each run's part key (None: no key) and walk, in order.
    parts: Mapping[str, Sequence[tuple[Key | None, Part]]] = dataclasses.field(default_factory=dict)
    hashes: Mapping[str, str] = dataclasses.field(default_factory=dict)  # file -> sha256 of its UTF-8 text


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
    """Holds the caches (safety verdicts, mypy's incremental cache) under `cache_root`, and
    in memory the manifest parts of each user's last validated package.

    A new version costs what changed: an unchanged file's safety verdict is a lookup by its
    hash, mypy re-checks what changed (its own cache), import reuses the modules of
    unchanged files (`codegen.module_reuse`; while the previous package stays loaded), and
    the coverage walk visits only chunk lists whose chunk file or class module changed
    (a new process finds the others' walks in the walk cache). A text equal to the one the
    user's last validation had under its name is compared, not hashed again."""

    def __init__(self, cache_root: Path, *, workers: int = 1, limits: Limits = Limits(),
                 fork_min_bytes: int | None = precompile.MIN_BYTES) -> None:
        self.cache_root = cache_root
        # From this many bytes of source to compile, compile in a child, and run mypy in one (None: never).
        self.fork_min_bytes = fork_min_bytes
        self.ahead: precompile.Precompile | None = None  # the last validation's compile child, if one ran
        self.typing_child: forked.Forked[tuple[object, ...]] | None = None  # its mypy child, if one ran
        self.safety = SafetyChecker(cache_root / "safety", limits, workers)
        # user -> (scope, part key -> walk of one chunk list)
        self._parts: dict[str, tuple[str, dict[Key, Part]]] = {}
        self.parts_walked = 0  # chunk lists walked afresh over this validator's life
        # user -> file -> (text, its sha256) of the last files validated: an equal text has that hash
        self._hashed: dict[str, dict[str, tuple[str, str]]] = {}
        self.hashed = 0  # texts hashed over this validator's life (the others were equal to a known one)

    def close(self) -> None:
        self.safety.close()

    def forget(self, user: str) -> None:
        """Drop what the caches hold of a user's text: mypy's working copy and its cache."""
        self._parts.pop(user, None)
        self._hashed.pop(user, None)
        name = stable_name(user)
        shutil.rmtree(self.cache_root / "typecheck" / name, ignore_errors=True)
        shutil.rmtree(self.cache_root / "mypy" / name, ignore_errors=True)
        shutil.rmtree(self.cache_root / WALKS / name, ignore_errors=True)
        for cached in (self.cache_root / "mypy").glob(f"*/{name}"):  # the layout before per-user caches
            shutil.rmtree(cached, ignore_errors=True)

    def validate(self, files: Mapping[str, str], *, user: str, version: str, stage_dir: Path,
                 live_fact_ids: AbstractSet[int] | None = None,
                 facts: Sequence[Fact] | Mapping[int, Fact] | None = None,
                 quarantined: Mapping[int, str] | AbstractSet[int] = frozenset(),
                 stored_parts: StoredParts | None = None, code_dir: Path | None = None,
                 scope: str = "") -> ValidationSuccess | ValidationFailure:
        """Validate `files`; the files to import are written to `stage_dir` (which must not
        exist yet) and imported from there: all of them, but those whose modules are reused
        from a package loaded before (`codegen.module_reuse`). On failure `stage_dir` is
        removed again.

        `facts` (the user's log, or its facts by id) give the live facts coverage checks
        (unless `live_fact_ids` names them) and the records' entity identities in the
        manifest. Quarantined live facts, those the module declares (`_quarantined`) and
        those named here, are accounted for without a record (see `codegen.coverage`).
        `facts` may be a lazy mapping: only the facts cited by records of changed chunk
        lists are looked up (give `live_fact_ids` then).

        `stored_parts(keys)`: walks of chunk lists kept elsewhere (a version's stored
        manifest), asked for the keys this validator holds no walk of, neither in memory
        nor in its walk cache on disk (`codegen.walk_cache`, written on success); a part key names
        the chunk module's content, its class module's included (`chunk_runs`), so a walk
        found under it is the walk of these very records. `code_dir`: where compiled code
        is kept by source hash (`codegen.loader.keep_code`), so a new process compiles only
        the files no earlier import compiled. `scope`: what the facts belong to (the store's
        forget epoch): walks kept from another scope are not used (their entity ids came
        from other facts)."""
        by_id = _by_id(facts)
        if live_fact_ids is None:
            live_fact_ids = live_ids(list(by_id.values()))
        reasons = dict(quarantined) if isinstance(quarantined, Mapping) \
            else dict.fromkeys(quarantined, "left out by the producer")
        timings: dict[str, float] = {}
        started = time.perf_counter()
        hashes = self._hashes(user, files)
        self.typing_child = None
        self.ahead = ahead = self._compile_ahead(files, hashes, stage_dir, code_dir)
        try:
            return self._validate(files, hashes, ahead, started, timings, user=user, version=version,
                                  stage_dir=stage_dir, live_fact_ids=live_fact_ids, by_id=by_id,
                                  identified=facts is not None, reasons=reasons, stored_parts=stored_parts,
                                  code_dir=code_dir, scope=scope)
        finally:
            if ahead is not None:
                ahead.close()

    def _hashes(self, user: str, files: Mapping[str, str]) -> dict[str, str]:
        """Each file's sha256 (`content_hash`); a text equal to the one the user's last
        validation had under that name has the same hash, and is compared, not hashed."""
        known = self._hashed.get(user, {})
        kept: dict[str, tuple[str, str]] = {}
        for file, text in files.items():
            if not isinstance(text, str):
                continue
            seen = known.get(file)
            if seen is not None and (seen[0] is text or seen[0] == text):
                kept[file] = seen
            else:
                kept[file] = (text, content_hash(text))
                self.hashed += 1
        self._hashed[user] = kept
        return {file: digest for file, (_, digest) in kept.items()}

    def _compile_ahead(self, files: Mapping[str, str], hashes: Mapping[str, str], stage_dir: Path,
                       code_dir: Path | None) -> precompile.Precompile | None:
        """A child compiling the files no cache holds while the checks run (`codegen.precompile`)."""
        if self.fork_min_bytes is None:
            return None
        location = stage_dir.resolve()

        def kept(key: str) -> bool:
            return code_dir is not None and code_file(code_dir, key).exists()
        return precompile.start(files, hashes, self.cache_root / "ahead", lambda name: str(location / name),
                                CODE_CACHE.has, self.fork_min_bytes, kept)

    def _validate(self, files: Mapping[str, str], hashes: Mapping[str, str], ahead: precompile.Precompile | None,
                  started: float, timings: dict[str, float], *, user: str, version: str, stage_dir: Path,
                  live_fact_ids: AbstractSet[int], by_id: Mapping[int, Fact], identified: bool,
                  reasons: Mapping[int, str], stored_parts: StoredParts | None, code_dir: Path | None,
                  scope: str) -> ValidationSuccess | ValidationFailure:
        safe = self.safety.check(files, hashes)
        timings["safety"] = time.perf_counter() - started
        if isinstance(safe, SafetyFailure):
            return ValidationFailure("safety", safe.problems, timings)

        started = time.perf_counter()
        self.cache_root.mkdir(parents=True, exist_ok=True)
        mypy_args = (files, stable_name(user), self.cache_root / "typecheck", self.cache_root / "mypy",
                     hashes, safe.records)
        # Beside a compile child (a large change), mypy runs in a child too, beside import and
        # walk; its verdict still comes first (see `_typed`).
        child = forked.fork_call(lambda: (typecheck(*mypy_args), plain_known(hashes.values())), tuple,
                                 precompile.deadline(sum(map(len, files.values())))) if ahead is not None else None
        self.typing_child = child
        timings["mypy"] = 0.0  # (the stages in their order)
        if child is None:
            typed = typecheck(*mypy_args)
            timings["mypy"] = time.perf_counter() - started
            if isinstance(typed, TypecheckFailure):
                return ValidationFailure("mypy", typed.problems, timings)
        try:
            loaded = self._load(files, hashes, safe, ahead, timings, user=user, version=version,
                                stage_dir=stage_dir, live_fact_ids=live_fact_ids, by_id=by_id,
                                identified=identified, reasons=reasons, stored_parts=stored_parts,
                                code_dir=code_dir, scope=scope)
        except BaseException:
            if child is not None:
                child.close()
            raise
        if child is not None:
            started = time.perf_counter()
            typed = _typed(child, mypy_args)
            timings["mypy"] = time.perf_counter() - started
            if isinstance(typed, TypecheckFailure):
                if isinstance(loaded, tuple):
                    unload_package(loaded[0].module_name)
                    shutil.rmtree(stage_dir, ignore_errors=True)
                return ValidationFailure("mypy", typed.problems, timings)
        if isinstance(loaded, ValidationFailure):
            return loaded
        success, parts = loaded
        self._parts[user] = (scope, parts)
        return success

    def _load(self, files: Mapping[str, str], hashes: Mapping[str, str], safe: SafetySuccess,
              ahead: precompile.Precompile | None, timings: dict[str, float], *, user: str, version: str,
              stage_dir: Path, live_fact_ids: AbstractSet[int], by_id: Mapping[int, Fact], identified: bool,
              reasons: Mapping[int, str], stored_parts: StoredParts | None, code_dir: Path | None,
              scope: str) -> tuple[ValidationSuccess, dict[Key, Part]] | ValidationFailure:
        """The import and coverage stages: the package loaded and walked, with the walks of
        its chunk lists to keep, or the failure (nothing of the package left loaded)."""
        started = time.perf_counter()
        if stage_dir.exists():
            return ValidationFailure("import", (Problem("import-error", "", 0, 0,
                                              f"stage directory {stage_dir} already exists"),), timings)
        name = module_name_for(user, f"{version}_{_digest(hashes)[:10]}")
        planned = module_reuse.plan(Reuse(user, hashes, safe.imports))
        reuse = Reuse(user, hashes, safe.imports, planned)
        try:
            # Only the files that will run: a reused module's file is not read again.
            _write({file: text for file, text in files.items() if file[:-3] not in planned}, stage_dir)
            if code_dir is not None:
                keep_code(stage_dir, code_dir)
            if ahead is not None:
                ahead.take()
            try:
                module = load_package(stage_dir, name, hashes, reuse=reuse)
            finally:
                if code_dir is not None:
                    keep_code(stage_dir, None)
        except (OSError, PackageLoadError) as exc:
            shutil.rmtree(stage_dir, ignore_errors=True)
            timings["import"] = time.perf_counter() - started
            return ValidationFailure("import", (Problem("import-error", "", 0, 0, str(exc)),), timings)
        if code_dir is not None:  # code of older versions goes once it outnumbers this one's
            prune_code(code_dir, set(hashes.values()), 2 * len(hashes) + CODE_SLACK)
        timings["import"] = time.perf_counter() - started

        started = time.perf_counter()
        runs = chunk_runs(files["__init__.py"], name, content_keys(hashes, safe.imports), identified)
        kept_scope, known = self._parts.get(user, (scope, {}))
        if kept_scope != scope:
            known = {}
        previous = known
        missing = [key for collection in runs.values() for key, _ in collection
                   if key is not None and key not in known]
        walks = self.cache_root / WALKS / stable_name(user)
        kept = walk_cache.read(walks, scope, missing) if missing else {}
        stored = stored_parts([key for key in missing if key not in kept]) \
            if stored_parts is not None and len(kept) < len(missing) else {}
        if kept or stored:
            known = {**known, **kept, **stored}
        found: dict[Key, Part] = {}
        used: dict[str, list[tuple[Key | None, Part]]] = {}
        walked = walk_module(vars(module), live_fact_ids=live_fact_ids,
                             identity=identity_from_facts(by_id, _earlier_records(previous, missing, known))
                             if identified else None, quarantined=reasons,
                             runs=runs, known_parts=known, found_parts=found, used_parts=used)
        self.parts_walked += len(found)
        timings["coverage"] = time.perf_counter() - started
        if isinstance(walked, str) or not walked[0].complete:
            unload_package(name)
            shutil.rmtree(stage_dir, ignore_errors=True)
            problems = (Problem("coverage-quarantine", "__init__.py", 0, 0, walked),) if isinstance(walked, str) \
                else _coverage_problems(walked[0].missing, walked[0].unknown)
            return ValidationFailure("coverage", problems, timings)
        # Keep the parts of this package only (a failed one's are never kept: a record citing
        # an id that is no fact yet would keep an entity id of None).
        parts = {key: part for collection in runs.values() for key, _ in collection
                 if key is not None and (part := found.get(key) or known.get(key)) is not None}
        # A new process finds these walks on disk (those it walked or read from the version).
        walk_cache.write(walks, scope, {**stored, **found})
        walk_cache.prune(walks, parts.keys(), 2 * len(parts) + CODE_SLACK)
        return ValidationSuccess(module, name, timings, walked[1], used, hashes), parts




def _typed(child: forked.Forked[tuple[object, ...]], mypy_args: tuple[Any, ...],
           ) -> TypecheckSuccess | TypecheckFailure:
    """The mypy child's verdict, or (no answer to trust) mypy's run here."""
    answer = child.answer()
    if answer is not None and len(answer) == 2 and isinstance(answer[0], (TypecheckSuccess, TypecheckFailure)) \
            and isinstance(answer[1], dict):
        remember_plain(answer[1])
        return answer[0]
    return typecheck(*mypy_args)


def _earlier_records(previous: Mapping[Key, Part], missing: Sequence[Key],
                     known: Mapping[Key, Part]) -> list[RecordInfo]:
    """The records of the earlier walk of each chunk list about to be walked (the same
    list name, other content: a chunk that grew), so its unchanged records' entity ids
    are not looked up again."""
    wanted = {_list_name(key) for key in missing if key not in known and str(key).endswith(":1")}
    if not wanted:
        return []
    return [record for key, part in previous.items() if _list_name(key) in wanted for record in part.records]


def _list_name(key: Key) -> str:
    parts = str(key).split(":")
    return parts[2] if len(parts) == 4 and parts[0] == PART_WALK else ""


def _by_id(facts: Sequence[Fact] | Mapping[int, Fact] | None) -> Mapping[int, Fact]:
    if facts is None:
        return {}
    return facts if isinstance(facts, Mapping) else {f.id: f for f in facts}


def _digest(hashes: Mapping[str, str]) -> str:
    """One hash of a whole package, from its files' hashes."""
    h = hashlib.sha256()
    for name in sorted(hashes):
        h.update(f"{name}\x00{hashes[name]}\x00".encode())
    return h.hexdigest()


def chunk_runs(init_source: str, package: str, keys: Mapping[str, str],
               identified: bool) -> dict[str, list[Run]]:
    """The chunk lists each collection of `__init__.py` joins (`trips: list[Trip] =
    [*_trips_000, *_trips_001]`, each name imported `from .trip_000 import _trips_000`), as
    loaded in `package`, with the key their walk is kept by: text naming the walk
    (`PART_WALK`), the chunk module's content key (its text and, recursively, its class
    module's), the list's name and whether entity ids were given.
    Only a shape the walk can use is returned; it checks the join by identity itself."""
    try:
        tree = ast.parse(init_source)
    except (SyntaxError, ValueError):
        return {}
    imported: dict[str, tuple[str, str]] = {}
    joins: dict[str, list[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module:
            for alias in stmt.names:
                imported[alias.asname or alias.name] = (stmt.module, alias.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.List):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            items = stmt.value.elts
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and items and all(
                    isinstance(item, ast.Starred) and isinstance(item.value, ast.Name) for item in items):
                joins[targets[0].id] = [item.value.id for item in items]  # type: ignore[attr-defined]
    runs: dict[str, list[Run]] = {}
    for collection, names in joins.items():
        found: list[Run] = []
        for local in names:
            module, attribute = imported.get(local, ("", ""))
            value = getattr(sys.modules.get(f"{package}.{module}"), attribute, None) if module else None
            if type(value) is not list:
                break
            key = keys.get(module)
            found.append((f"{PART_WALK}:{key}:{attribute}:{int(identified)}" if key is not None else None, value))
        else:
            runs[collection] = found
    return runs


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

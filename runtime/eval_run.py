"""Running `uac eval` cases: each in its own throwaway workspace, one after another or in
worker processes (`--workers N`), a progress bar on a terminal.

A case function takes (position, case item, run folder, options) and returns a `CaseRow`;
it opens a fresh workspace under the run folder for that case and removes it after. Any
error a case raises becomes its error row (the run goes on): a `CaseError` or a refused
input with its own message, anything else as `unexpected error: Type: message`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING

from factlog.errors import UacError
from runtime.eval_cases import CaseError, case_label
from runtime.eval_report import CaseRow

if TYPE_CHECKING:
    from runtime.memory import Memory

MAX_WORKERS = 64


@dataclass(frozen=True)
class EvalOptions:
    """What every case of a run shares (picklable: worker processes get a copy)."""

    producer: str | None = None  # a registered producer's name; None: the compiler
    ask: bool = False  # analytical: answer through `uac ask` when a case has no expression
    llm_extract: bool = False  # alerts: extract conversations with the model
    judge: bool = False  # transcripts: answer the question from memory and have the model judge it
    model: str | None = None
    base_url: str | None = None


CaseFunction = Callable[[int, object, str, EvalOptions], CaseRow]


def error_row(label: str, message: str, started: float, extra: dict[str, object] | None = None) -> CaseRow:
    row = CaseRow(label, "error", " ".join(message.split())[:1000], perf_counter() - started)
    row.extra.update({k: v for k, v in (extra or {}).items()})  # type: ignore[misc]
    return row


def guarded(function: CaseFunction, index: int, item: object, root: str, options: EvalOptions,
            id_key: str) -> CaseRow:
    """`function`'s row, or the case's error row (see the module docstring)."""
    started = perf_counter()
    try:
        return function(index, item, root, options)
    except (CaseError, UacError) as exc:
        return error_row(case_label(item, index, id_key), str(exc), started)
    except Exception as exc:  # the run goes on; the row names what happened
        return error_row(case_label(item, index, id_key), f"unexpected error: {type(exc).__name__}: {exc}", started)


@contextmanager
def case_memory(root: str, index: int) -> Iterator[Memory]:
    """A fresh workspace for case `index` under the run folder, removed afterwards.

    Its validation cache (`cache/validation`: safety verdicts, mypy's incremental cache and
    verdicts, walks; all keyed by content) is the one this process's cases share, so the
    cases, which all name their user `CASE_USER`, are type-checked as successive versions
    of one package are: what an earlier case already checked is not checked again (a
    process's first checkpoint pays mypy's cold start, several seconds). The log, the
    versions and the checkpoint states are the case's own."""
    from runtime.memory import Memory

    home = Path(root) / f"case-{index:05d}"
    shared = _shared_validation()
    (home / "cache").mkdir(parents=True)
    (home / "cache" / "validation").symlink_to(shared, target_is_directory=True)
    mem = Memory.open(home)
    try:
        yield mem
    finally:
        mem.close()
        shutil.rmtree(home, ignore_errors=True)


CASE_USER = "case"
_SHARED: list[tempfile.TemporaryDirectory[str]] = []  # this process's validation cache, removed at exit


def _shared_validation() -> Path:
    """The validation cache this process's cases share (made on first use; the folder goes
    when the process exits, so successive runs in one process share it too)."""
    if not _SHARED:
        _SHARED.append(tempfile.TemporaryDirectory(prefix="uac-eval-validation-"))
    return Path(_SHARED[0].name)


def case_user(index: int) -> str:
    """The user of every case: one name, so that the shared validation cache serves them
    all (a package loaded under the same name is unloaded first: `codegen.loader`)."""
    return CASE_USER


def run_cases(items: Sequence[object], function: CaseFunction, options: EvalOptions, *, id_key: str,
              workers: int = 1, progress: bool = False, label: str = "cases") -> list[CaseRow]:
    """Every case's row, in the file's order."""
    with tempfile.TemporaryDirectory(prefix="uac-eval-") as root:
        with _progress(len(items), progress, label) as step:
            if workers <= 1 or len(items) <= 1:
                rows = []
                for index, item in enumerate(items):
                    rows.append(guarded(function, index, item, root, options, id_key))
                    step()
                return rows
            context = get_context("spawn")  # a clean interpreter per worker: no inherited threads or locks
            with ProcessPoolExecutor(max_workers=min(workers, len(items)), mp_context=context) as pool:
                futures: list[Future[CaseRow]] = [
                    pool.submit(guarded, function, index, item, root, options, id_key)
                    for index, item in enumerate(items)]
                for future in futures:
                    future.add_done_callback(lambda _: step())
                return [future.result() for future in futures]


@contextmanager
def _progress(total: int, shown: bool, label: str) -> Iterator[Callable[[], None]]:
    """A rich progress bar on stderr when `shown` and stderr is a terminal; else nothing."""
    if not shown or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn(f"eval {label}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda: bar.advance(task)


def check_workers(workers: int) -> int:
    from factlog.errors import InputError

    if not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"--workers must be between 1 and {MAX_WORKERS}, not {workers}")
    return workers

"""Pausing Python's cyclic garbage collector around stages that build many objects.

Building a package (reading the log, compiling, importing, walking the records) creates
millions of objects that all stay alive, so each automatic collection finds no garbage
and costs more than the last (it traverses everything allocated so far): a third of a
full checkpoint's time at 100,000 facts. Those stages make no reference cycles worth
collecting meanwhile, so `paused_gc()` turns automatic collection off for their duration
(reference counting still frees everything else at once) and back on when the outermost
pause ends, even on error. Nested and concurrent pauses share one count; collection resumes
only if it was on when the first one began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_depth = 0
_resume = False  # whether collection was on when the outermost pause began


@contextmanager
def paused_gc() -> Iterator[None]:
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()


def gc_paused(function: Callable[P, R]) -> Callable[P, R]:
    """`function` run inside `paused_gc()`."""

    @wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused_gc():
            return function(*args, **kwargs)
    return run

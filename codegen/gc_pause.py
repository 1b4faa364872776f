"""Pausing Python's cyclic garbage collector around stages that build many objects.

Building a package (reading the log, compiling, importing, walking the records) creates
millions of objects that all stay alive, so each automatic collection finds no garbage
and costs more than the last (it traverses everything allocated so far): a third of a
full checkpoint's time at 100,000 facts. Those stages make no reference cycles worth
collecting meanwhile, so `paused_gc()` turns automatic collection off for their duration
(reference counting still frees everything else at once) and back on when the outermost
pause ends, even on error. Nested and concurrent pauses share one count; collection resumes
only if it was on when the first one began.

When the outermost pause ends, what it left in the young generations is settled at once
(`settle`): the collector would otherwise traverse those objects in a young collection at
the next allocation, again in a middle one a few collections later, and only then leave
them to the oldest generation. A pause that kept at least `SETTLE_MIN` new objects
collects the young generations (`gc.collect(1)`: one traversal, the survivors go straight
to the oldest generation); one that kept at least `FULL_MIN` (a full build, a cold load
of a large state) collects everything, which costs little more, since nearly all that is
alive is then young, and tells the collector how large the long-lived heap is, so later
small pauses do not set off a full collection of it (the collector's own rule: a full
collection once the objects promoted since the last one exceed a quarter of those it
found then). Collection is exactly as correct as before: only when it runs changes.
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

SETTLE_MIN = 20_000  # a +10 checkpoint keeps fewer: its survivors take the young collection as before
FULL_MIN = 500_000

_lock = threading.RLock()  # a finalizer run by `settle` may pause again on this thread
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
                settle()
                gc.enable()


def settle() -> None:
    """Collect what the young generations hold now, fully if they hold very much (see the
    module docstring); nothing below `SETTLE_MIN` new objects."""
    young = gc.get_count()[0]
    if young >= FULL_MIN:
        gc.collect()
    elif young >= SETTLE_MIN:
        gc.collect(1)


def gc_paused(function: Callable[P, R]) -> Callable[P, R]:
    """`function` run inside `paused_gc()`."""

    @wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused_gc():
            return function(*args, **kwargs)
    return run

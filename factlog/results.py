"""One result vocabulary: every step that can pass, fail or not apply answers with a
subclass of `Success`, `Failure` or `Skip` (the shape of LibCST's codemod results).

- `Success`: the step did its work; the subclass carries what it produced.
- `Failure`: the step ran and found a problem; `message` says what, in one line for the
  user (a failure is an answer, not an exception: exceptions are for errors,
  `factlog.errors`).
- `Skip`: the step did not apply; `reason` says why.

The bases are frozen dataclasses without fields, so a subclass keeps its own fields in its
own order. `message` and `reason` are declared for the type checker only: a subclass gives
them as a field (`reason: str`) or as a property (`def message(self) -> str`). Callers
branch with `isinstance(result, Failure)`, or `match`, whatever the step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias


@dataclass(frozen=True)
class Success:
    """The step did its work."""


@dataclass(frozen=True)
class Failure:
    """The step ran and found a problem; `message` says what, in one line."""

    if TYPE_CHECKING:
        @property
        def message(self) -> str: ...


@dataclass(frozen=True)
class Skip:
    """The step did not apply; `reason` says why."""

    if TYPE_CHECKING:
        @property
        def reason(self) -> str: ...


Result: TypeAlias = Success | Failure | Skip

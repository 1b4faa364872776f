"""One problem found in a generated package, as every validation stage reports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Problem:
    """`rule` names the check (`import`, `call`, `mypy:arg-type`, ...); line and column are
    1-based, 0 when the problem concerns a whole file or package."""

    rule: str
    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: [{self.rule}] {self.message}"


def format_problems(stage: str, problems: Iterable[Problem], limit: int = 50) -> str:
    """Plain text of the problems, one per line, for a person or for an LLM repair prompt."""
    items = list(problems)
    lines = [f"Validation failed at stage '{stage}' with {len(items)} problem(s):"]
    lines += [f"- {p}" for p in items[:limit]]
    if len(items) > limit:
        lines.append(f"- ... and {len(items) - limit} more")
    return "\n".join(lines)

"""What every model request cost: one `Call` per HTTP attempt, summed in a `Usage`.

Tokens are the server's own count (`usage` in its answer) when it gives one; otherwise
characters / 4 of the prompt and the answer, and the call says `estimated=True`. A failed
attempt (an HTTP error, a timeout) counts no tokens and says why in `error`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """The usual rough count when a server reports none: characters / 4, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Call:
    """One request as made: the `attempt`-th HTTP attempt of one model call for `purpose`
    (retries of the same call count up; a re-ask after an invalid answer is a new call with
    `reask=True`)."""

    purpose: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    ok: bool
    estimated: bool
    error: str = ""
    attempt: int = 1
    reask: bool = False


class Usage:
    """The calls of one checkpoint, ingest or question, in the order made; safe to add to
    from several threads."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def add(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)

    def snapshot(self) -> list[Call]:
        """A copy of the calls so far."""
        with self._lock:
            return list(self.calls)

    def totals(self) -> dict[str, float]:
        """prompt_tokens, completion_tokens, seconds, calls (HTTP attempts) and failed_calls."""
        calls = self.snapshot()
        return {
            "prompt_tokens": float(sum(c.prompt_tokens for c in calls)),
            "completion_tokens": float(sum(c.completion_tokens for c in calls)),
            "seconds": sum(c.seconds for c in calls),
            "calls": float(len(calls)),
            "failed_calls": float(sum(1 for c in calls if not c.ok)),
        }

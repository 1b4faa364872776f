"""Trigger patterns, asked cheaply: whether a sentence may state something a reader reads.

Most sentences match none of a reader's triggers, and a case-insensitive alternation of
hundreds of words is tried branch by branch at every position of every sentence; `re` skips
a branch at once only when its first character is a plain (case-sensitive) literal.
`Triggers(patterns)` therefore runs the case-insensitive patterns as case-sensitive patterns on the
lowercased sentence (their letters lowercased too: `[A-Z]` becomes `[a-z]`, "Dr" "dr"),
which finds the same things about twice as fast. A pattern with a case-sensitive part
(`(?-i:...)`) runs as it is, but only on sentences its relaxed form (that part made
case-insensitive too, so it finds at least as much) finds in the lowercased sentence;
patterns without `re.I` run as they are. `Triggers.search` answers as the patterns
would (a capital outside ASCII that lowercases to more than one character may differ).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

_ESCAPE = re.compile(r"\\.")
_PIECE = re.compile(r"\\.|[^\\]+", re.S)
_GROUP_NAME = re.compile(r"[(][?]P<[A-Za-z0-9_]+>")


def lowercase_safe(pattern: re.Pattern[str]) -> bool:
    """Whether `pattern`, its letters lowercased, finds the same in a lowercased text without
    `re.I`: it ignores case everywhere."""
    return bool(pattern.flags & re.I) and "(?-i" not in _ESCAPE.sub("", pattern.pattern)


def _lowercased(source: str) -> str:
    """`source` with its letters lowercased, escapes (`\\W`, `\\S`, `\\B`) kept."""
    return _PIECE.sub(lambda piece: piece[0] if piece[0].startswith("\\") else piece[0].lower(), source)


@lru_cache(maxsize=16)
def lowered(text: str) -> str:
    """`text` lowercased (asked by every trigger set of the same sentence)."""
    return text.lower()


class Triggers:
    """Whether any of `patterns` finds something in a sentence."""

    def __init__(self, patterns: Iterable[re.Pattern[str]]) -> None:
        self.patterns = tuple(patterns)
        safe = [pattern for pattern in self.patterns if lowercase_safe(pattern)]
        cased = [pattern for pattern in self.patterns if pattern not in safe and pattern.flags & re.I]
        self._lowered = _joined(safe, keep_case=True)
        self._relaxed = _joined([re.compile(pattern.pattern.replace("(?-i:", "(?:"), pattern.flags)
                                 for pattern in cased], keep_case=True)
        self._cased = _joined(cased, keep_case=False)
        self._as_is = _joined([pattern for pattern in self.patterns if pattern not in safe and pattern not in cased],
                              keep_case=False)

    def search(self, text: str) -> bool:
        if self._lowered is not None and self._lowered.search(lowered(text)) is not None:
            return True
        if (self._relaxed is not None and self._cased is not None and self._relaxed.search(lowered(text)) is not None
                and self._cased.search(text) is not None):
            return True
        return self._as_is is not None and self._as_is.search(text) is not None


def _joined(patterns: Sequence[re.Pattern[str]], keep_case: bool) -> re.Pattern[str] | None:
    """One pattern finding what any of `patterns` finds (group names dropped); `keep_case`:
    compiled case-sensitive, else each keeps its own flags."""
    if not patterns:
        return None
    parts = (_GROUP_NAME.sub("(?:", pattern.pattern) for pattern in patterns)
    if keep_case:
        return re.compile("|".join(f"(?:{_lowercased(part)})" for part in parts))
    return re.compile("|".join(f"(?{_flags(pattern)}:{part})" for pattern, part in zip(patterns, parts)))


def _flags(pattern: re.Pattern[str]) -> str:
    return "".join(letter for flag, letter in ((re.I, "i"), (re.M, "m"), (re.S, "s")) if pattern.flags & flag)

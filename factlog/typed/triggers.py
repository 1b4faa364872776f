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

Each joined alternation runs through RE2 (`google-re2`: an automaton, so an alternation of
hundreds of words costs about one pass over the sentence) where RE2 reads the same as `re`:
on ASCII sentences (RE2's `\\b`, `\\w` and case folding are ASCII's; `re`'s are Unicode's),
without the control characters `re`'s `\\s` counts and RE2's lacks (a vertical tab,
\\x1c-\\x1f) or a final newline (RE2's `$` is the text's end only), and only for the patterns
RE2 compiles (no lookaround or backreference: those stay with `re`). Any other sentence is
asked of `re` alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import re2

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
        if self._lowered is not None and self._lowered.search(lowered(text)):
            return True
        if (self._relaxed is not None and self._cased is not None and self._relaxed.search(lowered(text))
                and self._cased.search(text)):
            return True
        return self._as_is is not None and self._as_is.search(text)


# where RE2 may answer otherwise on ASCII text: whitespace `re` has and RE2's `\s` lacks, a final newline
_NOT_RE2 = re.compile(r"[\v\x1c-\x1f]|\n\Z")


class _Union:
    """Whether any of several patterns finds something, asked of RE2 where it answers as `re`
    does: the patterns RE2 reads as they are (`sure`) at once; the others (`rest`, in `re`)
    only on a sentence that the same patterns without their lookarounds (`maybe`, in RE2: they
    find at least as much) find something in."""

    def __init__(self, parts: Sequence[str]) -> None:
        self.exact = re.compile("|".join(parts))
        sure = [part for part in parts if _re2(part) is not None]
        rest = [part for part in parts if part not in sure]
        self.sure = _re2("|".join(sure)) if sure else None
        self.rest = re.compile("|".join(rest)) if rest else None
        self.maybe = _re2("|".join(_without_lookarounds(part) for part in rest)) if rest else None
        if sure and self.sure is None:  # RE2 took each part, not their union: `re` alone
            self.rest, self.maybe = self.exact, None

    def search(self, text: str) -> bool:
        if not text.isascii() or _NOT_RE2.search(text) is not None:
            return self.exact.search(text) is not None
        if self.sure is not None and self.sure.search(text) is not None:
            return True
        if self.rest is None or self.maybe is not None and self.maybe.search(text) is None:
            return False
        return self.rest.search(text) is not None


def _re2(source: str) -> re2._Regexp[str] | None:
    """`source` compiled by RE2, or None where RE2 does not read it (lookaround, backreference)."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20  # the automaton of a few hundred alternatives
    try:
        return re2.compile(source, options)
    except re2.error:
        return None


_LOOKAROUNDS = ("(?=", "(?!", "(?<=", "(?<!")


def _without_lookarounds(source: str) -> str:
    """`source` without its lookahead and lookbehind assertions, and `\\Z` as RE2's `\\z`: a
    pattern that finds something wherever `source` does (assertions only take matches away)."""
    out: list[str] = []
    at = 0
    while at < len(source):
        if source.startswith(_LOOKAROUNDS, at):
            at = _end_of(source, at)
            continue
        end = _end_of(source, at) if source[at] == "[" else at + (2 if source[at] == "\\" else 1)
        out.append("\\z" if source[at:end] == "\\Z" else source[at:end])
        at = end
    return "".join(out)


def _end_of(source: str, at: int) -> int:
    """Just after the group ("(") or character class ("[") opening at `at`."""
    if source[at] == "[":
        return _class_end(source, at)
    depth = 0
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 2
            continue
        if char == "[":
            at = _class_end(source, at)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1
    return at


def _class_end(source: str, at: int) -> int:
    """Just after the character class opening at `at` ("[^]a-z]": a "]" first is a member)."""
    at += 1
    if at < len(source) and source[at] == "^":
        at += 1
    if at < len(source) and source[at] == "]":
        at += 1
    while at < len(source) and source[at] != "]":
        at += 2 if source[at] == "\\" else 1
    return at + 1


def _joined(patterns: Sequence[re.Pattern[str]], keep_case: bool) -> _Union | None:
    """One union finding what any of `patterns` finds (group names dropped); `keep_case`:
    compiled case-sensitive, else each keeps its own flags."""
    if not patterns:
        return None
    parts = [_GROUP_NAME.sub("(?:", pattern.pattern) for pattern in patterns]
    if keep_case:
        return _Union([f"(?:{_lowercased(part)})" for part in parts])
    return _Union([f"(?{_flags(pattern)}:{part})" for pattern, part in zip(patterns, parts)])


def _flags(pattern: re.Pattern[str]) -> str:
    return "".join(letter for flag, letter in ((re.I, "i"), (re.M, "m"), (re.S, "s")) if pattern.flags & flag)

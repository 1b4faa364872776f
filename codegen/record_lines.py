"""A record chunk reduced to its distinct line shapes, so the safety allowlist can read it
without building the syntax tree of every record.

A record chunk (codegen/templates/chunk_module.py.jinja2) is a header (docstring, `from`
imports) and `name: list[C] = [` lists of one record call per line, `    C(k=literal, ...),`,
each closed by a `]` line. `canonical_chunk` replaces, with C-speed regex substitutions
only, every string literal of the record lines by `''`, every decimal integer by `0`,
every decimal float by `0.0` and every list display of such placeholders alone by a
one-item list, then keeps each distinct line once: a chunk of 500 records becomes a
handful of shapes. The header and the list openings are kept verbatim, at the same lines.
`laid_out` then checks, on the canonical module's `ast`, that every kept line is exactly
one list item. Anything else (or any doubt) gives None and the caller reads the original.

Why the canonical module's verdict is the original's (`safety_rules` accepts a chunk by this
path only when the canonical module parses, is `laid_out`, is `records_only` and has no
problem; then the full reading accepts the original with the same report):

1. Same tokens. The header and each list opening are the same text in both, so the
   tokenizer reaches the first record line in the same state; in the canonical module that
   state is "code, inside the list's bracket" (`laid_out`: a list statement starts at the
   opening line). Each record line is scanned from there. `_STRING` is exactly the
   tokenizer's rule for a quoted string without prefix on one line (a backslash escapes
   any character but a newline), so scanning left to right it finds exactly the string
   tokens up to the first point where the two could part: a comment, a backslash outside
   a string, a prefix, a triple quote. All are refused on the blanked text: `#`, `\\` or
   `"` left outside strings (no comment, no continuation, every `"` string found), a quote
   not in a `''` placeholder (an unterminated string), a placeholder after a letter or
   digit (b'', f'', rb'', u'': a prefixed string), two placeholders in a row (implicit
   concatenation; a triple quote also reads as an empty string and a quote), non-ASCII
   text outside strings. `_FLOAT` and `_INT` replace only a whole decimal number token
   (no word character or dot on either side), float by float and int by int, never an
   int with a leading zero (which would not parse) nor one of more than `max_int_digits`
   digits (left as written, for the allowlist to measure). So an original line is the
   same token sequence as its canonical line, other literal values of the same types in
   the same places. The canonical line is `    <one record call>,` (`laid_out`: one item
   per line, from column 4 to the final comma) and leaves the tokenizer where it found
   it, so by induction every original line is read from that state and is one record call
   too: the original list is the canonical list with repeats (and `[1, 2, 3]` where the
   canonical module holds `[0]`).
2. Same parse. The grammar reads token types, names and operators, never a literal's
   value, except to decode it: an escape that could fail to decode (`\\N{...}`, a short
   `\\x`, `\\u`, an out-of-range `\\U`: any escape outside a fixed list) and a lone
   surrogate (not UTF-8) are refused.
3. Same checks. The allowlist judges a constant by its type and its size. The types are
   kept; a kept int is under the digit limit; a string's raw length bounds its character
   count (an escape is never shorter than the character it makes), so the literals of a
   list whose record text has at most `max_string` characters fit, and otherwise those of
   longer lines are measured. Every other check (names, calls, nesting, imports, the
   records-only shape that spares the libcst audit) reads the structure, which is the
   same item by item, with the same set of called names. Exports and sibling imports come
   from the header and the list names, which keep their text and line numbers. A file
   holding a character that folds to ASCII (NFKC) is refused, so the look-alike scan of
   identifiers, which tokenizes such a file, runs on neither text.

A problem found on the canonical module is never reported (its lines are not the file's):
the caller reads the original instead.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass

_OPENING = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*: list\[[A-Za-z_][A-Za-z0-9_]*\] = \[$", re.M | re.ASCII)
_OPENING_LINE = re.compile(r"\n+([A-Za-z_][A-Za-z0-9_]*: list\[[A-Za-z_][A-Za-z0-9_]*\] = \[)\n", re.ASCII)
_STRING = re.compile(r"""'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*\"""")
_ESCAPE = re.compile(r"""\\(?:[\\'"abfnrtv0-7]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}"""
                     r"|U(?:000[0-9a-fA-F]|0010)[0-9a-fA-F]{4})")
# A number token: no word character or dot before or after (tested after its first digit,
# so that the engine can skip to digits).
_FLOAT = re.compile(r"[0-9](?<![\w.][0-9])[0-9]*(?:\.[0-9]+(?:e[-+]?[0-9]+)?|e[-+]?[0-9]+)(?![\w.])")
_INT = r"[1-9](?<![\w.][1-9])[0-9]{0,%d}(?![\w.])|0(?<![\w.]0)(?![\w.])"  # longer: left for the allowlist
_REPEATS = ((re.compile(r"\[0(?:, 0)+\]"), "[0]"), (re.compile(r"\[0\.0(?:, 0\.0)+\]"), "[0.0]"),
            (re.compile(r"\[''(?:, '')+\]"), "['']"))
_MISPLACED = re.compile(r"''(?:(?<=\w'')|\s*'')")  # after a word character, or twice in a row
_SURROGATE = re.compile("[\ud800-\udfff]")
_NON_ASCII = re.compile("[^\x00-\x7f]")


@dataclass(frozen=True)
class RecordList:
    """One list of the canonical module: its opening line and its item lines (1-based)."""

    opening: int
    first: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class CanonicalChunk:
    text: str
    lists: tuple[RecordList, ...]

    def laid_out(self, tree: ast.Module) -> bool:
        """True when, in `tree` (the parse of `text`), the statements from the first list
        on are exactly the lists, each item one record call alone on its line
        (`    <call>,`)."""
        start = self.lists[0].opening
        tail = [stmt for stmt in tree.body if stmt.end_lineno is None or stmt.end_lineno >= start]
        if len(tail) != len(self.lists):
            return False
        for stmt, expected in zip(tail, self.lists):
            if not (isinstance(stmt, ast.AnnAssign) and stmt.lineno == expected.opening
                    and stmt.col_offset == 0 and isinstance(stmt.value, ast.List)
                    and len(stmt.value.elts) == len(expected.lines)):
                return False
            for number, (item, line) in enumerate(zip(stmt.value.elts, expected.lines), expected.first):
                if not (isinstance(item, ast.Call) and item.lineno == number == item.end_lineno
                        and item.col_offset == 4 and item.end_col_offset == len(line) - 1):
                    return False
        return True


def canonical_chunk(source: str, max_string: int, max_int_digits: int) -> CanonicalChunk | None:
    """The chunk's canonical module, or None when `source` is not plainly a record chunk
    whose literals fit the limits (then read the original)."""
    opening = _OPENING.search(source)
    if opening is None or not source.isascii() and (_SURROGATE.search(source) or _look_alike(source)):
        return None
    header = source[:opening.end() + 1]
    parts = [header]
    opening_line = header.count("\n")
    rest = source[opening.end() + 1:]
    lists: list[RecordList] = []
    while True:
        if rest.startswith("]"):
            records, after = "", rest[1:]
        else:
            end = rest.find("\n]")
            if end < 0:
                return None
            records, after = rest[:end], rest[end + 2:]
        if after and not after.startswith("\n"):
            return None  # `]` must be a line of its own
        shapes = _shapes(records, max_string, max_int_digits) if records else ()
        if shapes is None:
            return None
        lists.append(RecordList(opening_line, opening_line + 1, shapes))
        parts += [shape + "\n" for shape in shapes]
        parts.append("]\n")
        following = _OPENING_LINE.match(after)
        if following is None:
            if after.strip("\n"):
                return None
            return CanonicalChunk("".join(parts), tuple(lists))
        parts.append("\n" + following.group(1) + "\n")
        opening_line += len(shapes) + 3
        rest = after[following.end():]


def _shapes(records: str, max_string: int, max_int_digits: int) -> tuple[str, ...] | None:
    """The distinct canonical lines of a list's record lines (one `\\n`-joined text)."""
    if max_int_digits < 1:
        return None
    if "\\" in records and "\\" in _ESCAPE.sub("", records):
        return None  # an escape outside the list (or a backslash outside strings)
    blanked = _STRING.sub("''", records)
    if ("#" in blanked or "\\" in blanked or '"' in blanked or not blanked.isascii()
            or blanked.count("'") != 2 * blanked.count("''") or _MISPLACED.search(blanked)):
        return None
    if len(records) > max_string and not _strings_fit(records, max_string):
        return None
    canonical = re.sub(_INT % (max_int_digits - 1), "0", _FLOAT.sub("0.0", blanked))
    for repeats, single in _REPEATS:
        canonical = repeats.sub(single, canonical)
    shapes = tuple(dict.fromkeys(canonical.split("\n")))
    if not all(shape.startswith("    ") and shape.endswith(",") for shape in shapes):
        return None
    return shapes


def _strings_fit(records: str, max_string: int) -> bool:
    """No string literal of a line longer than `max_string` has more raw characters."""
    for text in records.split("\n"):
        if len(text) > max_string:
            if any(len(match) - 2 > max_string for match in _STRING.findall(text)):
                return False
    return True


def _look_alike(source: str) -> bool:
    """A character folding to ASCII (NFKC): the allowlist would tokenize the file."""
    return any(unicodedata.normalize("NFKC", ch).isascii() for ch in set(_NON_ASCII.findall(source)))

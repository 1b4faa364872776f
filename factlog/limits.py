"""The size limits on fact values: the one owner of every number the door and the compiler share.

A fact the log accepts must always compile, so `factlog.model.check_fields` refuses at the
door exactly what the generated module could not hold, and `codegen.safety_rules.Limits`
takes its defaults from here. Change a limit here and both sides move together.
"""

from __future__ import annotations

# -- one fact ---------------------------------------------------------------------------
MAX_TEXT_BYTES = 64 * 1024  # a fact's text, UTF-8 bytes
MAX_FIELD_NAME = 128  # characters in a field name
MAX_FIELDS = 256  # fields in one fact
MAX_KEY = 256  # characters in an identity key
MAX_FACT_ID = 2**63 - 1  # SQLite's largest INTEGER: no larger id can name a fact
MAX_JSON_DEPTH = 16  # nesting of a fact's fields (the fields object is level 0)
# All of one fact's fields as canonical JSON. A literal is at most ~10x its characters
# (`\U000xxxxx` escapes), so one fact always fits in a generated file of MAX_FILE_BYTES.
MAX_FIELDS_CHARS = 512 * 1024

# -- one value (what a generated literal may hold) ----------------------------------------
MAX_STRING_CHARS = 256 * 1024  # characters in one string (a field value or an object key)
MAX_INT_DIGITS = 32  # an integer must satisfy abs(n) < 10 ** MAX_INT_DIGITS

# -- one generated file / package ----------------------------------------------------------
# A file is what the parsers, mypy and import hold at once, so it has the tight limit; a
# package grows with the log (500 records per chunk file), so its caps are totals that a
# log of 1,000,000 facts fits several times over (~2,000 chunk files, a few hundred MB).
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_FILES = 10_000
MAX_PACKAGE_BYTES = 1024 * 1024 * 1024  # all files of a package, UTF-8
# Nesting of values, calls and annotations in a generated file. A field value at JSON depth
# d is rendered at depth d + 1 inside `[Kind(field=...)]`, so MAX_JSON_DEPTH + 1 must fit.
MAX_SOURCE_DEPTH = 24

assert MAX_JSON_DEPTH + 2 <= MAX_SOURCE_DEPTH
assert MAX_STRING_CHARS >= MAX_TEXT_BYTES


_INT_BOUND: int = 10 ** MAX_INT_DIGITS


def int_too_long(value: int) -> bool:
    """True when an integer has more than MAX_INT_DIGITS digits (checked without str())."""
    return abs(value) >= _INT_BOUND


def reserved_field_name(name: str) -> bool:
    """A private-looking name (`__secret`): the compiler keeps an identifier as the Python
    field name unless it is a keyword or a full dunder (`__class__` is sanitised to `class_`),
    and the safety checker refuses names starting with `__`, so such a field never compiles."""
    return name.startswith("__") and not name.endswith("__") and name.isascii() and name.isidentifier()


def package_size_problem(files: int, total_bytes: int, max_files: int = MAX_FILES,
                         max_bytes: int = MAX_PACKAGE_BYTES) -> str | None:
    """What is wrong with a package of `files` files of `total_bytes` bytes, or None. The
    one check the validator makes before any parsing and the store makes before writing."""
    if files > max_files:
        return f"{files} files; at most {max_files}"
    if total_bytes > max_bytes:
        return f"{total_bytes} bytes in all files; at most {max_bytes}"
    return None

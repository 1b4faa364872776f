"""Python names for kinds and fields: classes, attributes, module files, fields, aliases.

Kinds: a kind given in the plural names the same thing as its singular (`trips` is
`trip`), canonical kinds (and their attributes: `allergies`) take the vocabulary's names,
and every other kind gets `CamelCase` / English plural names. Names never collide inside a
package: a kind whose class or attribute is taken (e.g. a structured kind `note`, which
would clash with the free-text `Note`) gets a `Record` / `_records` suffix, then a number.

Fields: a name is kept exactly when it is an ASCII, non-keyword, non-dunder identifier.
Others are sanitized (`first name` -> `first_name`, `class` -> `class_`, `2fa` -> `f_2fa`).
Also renamed (with a trailing `_`): the provenance field `fact_ids` (the compiler adds it
to every record) and the builtin names the generated annotations use (`str`, `int`,
`float`, `bool`, `list`, `dict`), because a field of that name would shadow the builtin in
the class body. A name imported into a generated module (`date`, `field`, ...) that a field
of the class would shadow is imported under an alias (`fresh_alias`), so fields like `date`
or `time` are kept.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Sequence

from factlog.kinds import normalize_kind as normalize_kind  # inflection lives in the fact log
from factlog.kinds import plural as plural
from factlog.kinds import singular as singular
from factlog.vocabulary import CANONICAL, NOTE_ATTRIBUTE, NOTE_CLASS, PROVENANCE_FIELD

# Names the class templates use inside a class body, where a field would shadow them.
SHADOWED_BUILTINS = frozenset({"str", "int", "float", "bool", "list", "dict"})
RESERVED_FIELDS = SHADOWED_BUILTINS | {PROVENANCE_FIELD}
NOTES_STEM = "notes"

def python_name(name: str) -> str:
    """`name` itself if it is a usable identifier; else a sanitized one (may be empty-safe)."""
    if _usable(name):
        return name
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", ascii_name).strip("_") or "field"
    if cleaned[0].isdigit():
        cleaned = "f_" + cleaned
    return cleaned + "_" if keyword.iskeyword(cleaned) else cleaned


def _usable(name: str) -> bool:
    return (
        name.isascii()
        and name.isidentifier()
        and not keyword.iskeyword(name)
        and not (name.startswith("__") and name.endswith("__"))
    )


def _claim(base: str, taken: set[str]) -> str:
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}" if not base.endswith("_") else f"{base}{n}"
    taken.add(name)
    return name


def field_names(names: Sequence[str]) -> dict[str, str]:
    """Map each original field name to a distinct Python field name.

    Names that are already fine keep themselves first; the rest, in the given order, take
    their sanitized form, numbered (`first_name_2`) if another field holds it.
    """
    taken: set[str] = set()
    result: dict[str, str] = {}
    for name in names:
        if _usable(name) and name not in RESERVED_FIELDS and name not in taken:
            result[name] = name
            taken.add(name)
    for name in names:
        if name not in result:
            base = python_name(name)
            if base in RESERVED_FIELDS:
                base += "_"
            result[name] = _claim(base, taken | RESERVED_FIELDS)
            taken.add(result[name])
    return result


def fresh_alias(name: str, taken: Iterable[str]) -> str:
    """`name` itself when the module does not use it otherwise; else the first of `_name`,
    `_name_`, `_name__`, ... that it does not use. Aliasing only on collision keeps the
    common module plain (`from datetime import date`)."""
    used = set(taken)
    if name not in used:
        return name
    alias = "_" + name
    while alias in used:
        alias += "_"
    return alias


@dataclass(frozen=True)
class KindNames:
    kind: str  # normalized kind
    class_name: str
    attribute: str  # module-level name: the list, or the one value for singular kinds
    stem: str  # module file name without `.py`; record chunks are `<stem>_<nnn>.py`
    singular: bool


def class_name_for(kind: str) -> str:
    name = "".join(part[:1].upper() + part[1:] for part in kind.split("_") if part)
    return python_name(name[:1].upper() + name[1:]) if name else "Record"


def _stem_for(kind: str) -> str:
    stem = python_name(kind).lower()
    # A stem never ends in `_<digits>`, so that no class module looks like a chunk module,
    # and never shadows a builtin `__init__.py` uses (`from .list import ...` binds `list`).
    if re.search(r"_\d+$", stem) or keyword.iskeyword(stem) or stem == NOTES_STEM \
            or stem in SHADOWED_BUILTINS:
        stem += "_"
    return stem


def kind_names(kinds: Iterable[str]) -> dict[str, KindNames]:
    """Collision-free names for normalized kinds, decided in sorted kind order."""
    classes = {NOTE_CLASS}
    attributes = {NOTE_ATTRIBUTE}
    stems = {NOTES_STEM, "__init__"}
    result: dict[str, KindNames] = {}
    for kind in sorted(set(kinds)):
        domain = CANONICAL.get(kind)
        if domain is not None:
            cls, attr, is_singular = domain.class_name, domain.attribute, domain.singular
        else:
            cls, attr, is_singular = class_name_for(kind), python_name(plural(kind)), False
        if cls in classes or attr in attributes:
            cls, attr = cls + "Record", python_name(plural(kind + "_record"))
        cls, attr = _claim(cls, classes), _claim(attr, attributes)
        stem = _stem_for(kind)
        while stem in stems:
            stem += "_"
        stems.add(stem)
        result[kind] = KindNames(kind, cls, attr, stem, is_singular)
    return result

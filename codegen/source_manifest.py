"""The manifest of a compiled package read from its source text, without importing it.

A producer that asks a model about the package it is building needs the package's shape
(classes and fields, collections and sizes, date ranges) BEFORE validation, and nothing
generated may be imported before the allowlist has passed on it: this reads the
compiler's files as text (`ast`), never runs them. For a package the compiler wrote, the
result gives the same agent manifest (`codegen.agent_manifest`) as the validator's manifest
of the imported module (tested on the golden and a ten-kind package): the one summary of
"what this package holds", for agents and for the llm producer's prompt alike.

What it reads: `__init__.py`'s relative imports and list joins (`trips: list[Trip] =
[*_trips_000, ...]`), each class's fields (name and annotation text, in order), each chunk
header's record count (`Contents: _trips_000, 12 record(s)`; a list without one is
counted by its elements), a singular value (`passport: Passport | None = Passport(...)`),
the date and datetime literals of every record (`field=date(2024, 3, 10)`) for the date
ranges, and the declared quarantine. Records' values are not kept (`records` is empty):
this is a summary, not the data.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Mapping
from datetime import date, datetime

from codegen.manifest import ClassInfo, CollectionInfo, DateRange, Manifest
from codegen.quarantine import declared_quarantine

_CONTENTS = re.compile(r"Contents: (\w+), (\d+) record\(s\)")
_TEMPORAL = re.compile(r"\b(\w+)=(date|datetime)\(([\d, ]+)\)")


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _class_fields(tree: ast.Module, class_name: str) -> list[tuple[str, str]] | None:
    """The class's fields with their annotations as the imported class spells them (an
    import alias, `time as _time` beside a field named `time`, read back as `time`)."""
    aliases = {a.asname: a.name for s in tree.body if isinstance(s, ast.ImportFrom)
               for a in s.names if a.asname and a.asname != a.name}
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == class_name:
            return [(s.target.id, _unaliased(ast.unparse(s.annotation), aliases)) for s in stmt.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    return None


def _unaliased(text: str, aliases: Mapping[str, str]) -> str:
    for alias, name in aliases.items():
        text = re.sub(rf"\b{re.escape(alias)}\b", name, text)
    return text


def _size(source: str, list_name: str) -> int:
    """Records in a chunk list: its header's count, else its elements."""
    match = _CONTENTS.search(source[:2000])
    if match is not None and match.group(1) == list_name:
        return int(match.group(2))
    tree = _parse(source)
    for stmt in tree.body if tree is not None else ():
        if isinstance(stmt, (ast.AnnAssign, ast.Assign)) and isinstance(stmt.value, ast.List):
            targets = [stmt.target] if isinstance(stmt, ast.AnnAssign) else stmt.targets
            if any(isinstance(t, ast.Name) and t.id == list_name for t in targets):
                return len(stmt.value.elts)
    return 0


def _iso(kind: str, arguments: str) -> str | None:
    try:
        numbers = [int(a) for a in arguments.split(",") if a.strip()]
        if kind == "date":
            return date(*numbers[:3]).isoformat() if len(numbers) == 3 else None
        if not 3 <= len(numbers) <= 7:
            return None
        n = numbers + [0] * (7 - len(numbers))
        return datetime(n[0], n[1], n[2], n[3], n[4], n[5], n[6]).isoformat()
    except (TypeError, ValueError, OverflowError):
        return None


def _date_ranges(texts: list[str], fields: list[tuple[str, str]]) -> dict[str, DateRange]:
    """Per field whose annotation holds a date or datetime: the earliest and latest literal."""
    wanted = frozenset(name for name, annotation in fields if re.search(r"\b(date|datetime)\b", annotation)
                       and not annotation.startswith("list["))
    found: dict[str, tuple[str, str]] = {}
    for text in texts:
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).digest()
        for name, (low, high) in _text_ranges(digest, text, wanted):
            before = found.get(name)
            found[name] = (low, high) if before is None else (min(before[0], low), max(before[1], high))
    return {name: DateRange.model_construct(min=low, max=high) for name, (low, high) in sorted(found.items())}


_RANGES: dict[tuple[bytes, frozenset[str]], tuple[tuple[str, tuple[str, str]], ...]] = {}
_MAX_RANGES = 4096  # chunks remembered (a digest and a few dates each); an unchanged chunk is not read again


def _text_ranges(digest: bytes, text: str, wanted: frozenset[str]) -> tuple[tuple[str, tuple[str, str]], ...]:
    """The date ranges of one file's literals, remembered by the file's digest."""
    key = (digest, wanted)
    known = _RANGES.get(key)
    if known is not None:
        return known
    found: dict[str, tuple[str, str]] = {}
    for match in _TEMPORAL.finditer(text):
        name = match.group(1)
        if name not in wanted:
            continue
        iso = _iso(match.group(2), match.group(3))
        if iso is None:
            continue
        low, high = found.get(name, (iso, iso))
        found[name] = (min(low, iso), max(high, iso))
    result = tuple(sorted(found.items()))
    if len(_RANGES) >= _MAX_RANGES:
        _RANGES.clear()
    _RANGES[key] = result
    return result


def source_manifest(files: Mapping[str, str]) -> Manifest:
    """The manifest of a package's files as text (records left out); an empty manifest when
    its `__init__.py` cannot be read."""
    tree = _parse(files.get("__init__.py", ""))
    if tree is None:
        return Manifest()
    imported: dict[str, tuple[str, str]] = {}  # local name -> (module, name)
    names: list[str] = []
    joins: dict[str, tuple[str, list[str]]] = {}  # attribute -> (class, list names)
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module:
            for alias in stmt.names:
                local = alias.asname or alias.name
                imported[local] = (stmt.module, alias.name)
                if not local.startswith("_"):
                    names.append(local)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and isinstance(stmt.value, ast.List) and isinstance(stmt.annotation, ast.Subscript) \
                and isinstance(stmt.annotation.slice, ast.Name):
            lists = [e.value.id for e in stmt.value.elts
                     if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name)]
            joins[stmt.target.id] = (stmt.annotation.slice.id, lists)
            names.append(stmt.target.id)
    trees: dict[str, ast.Module | None] = {}

    def module_tree(module: str) -> ast.Module | None:
        if module not in trees:
            trees[module] = _parse(files.get(f"{module}.py", ""))
        return trees[module]

    classes: dict[str, ClassInfo] = {}
    collections: dict[str, CollectionInfo] = {}
    ranges: dict[str, dict[str, DateRange]] = {}
    for local in names:
        module, name = imported.get(local, ("", ""))
        found = module_tree(module) if module else None
        fields = _class_fields(found, name) if found is not None else None
        if fields is not None:
            classes[local] = ClassInfo.model_construct(fields=fields, public=True)
    for local in names:  # singular values: `passport: Passport | None = ...` in a class module
        module, name = imported.get(local, ("", ""))
        found = module_tree(module) if module else None
        for stmt in found.body if found is not None and local not in classes else ():
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
                present = not (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
                class_name = _singular_class(stmt.annotation)
                collections[local] = CollectionInfo.model_construct(
                    singular=True, record_class=class_name, size=1 if present else 0, records=[])
                if present and class_name in classes:
                    dates = _date_ranges([ast.unparse(stmt.value)] if stmt.value else [], classes[class_name].fields)
                    if dates:
                        ranges[local] = dates
    for attribute, (class_name, lists) in joins.items():
        texts = [files.get(f"{imported[n][0]}.py", "") for n in lists if n in imported]
        size = sum(_size(files.get(f"{imported[n][0]}.py", ""), imported[n][1]) for n in lists if n in imported)
        collections[attribute] = CollectionInfo.model_construct(
            singular=False, record_class=class_name, size=size, records=[],
            parts=[])
        if class_name in classes and size:
            dates = _date_ranges(texts, classes[class_name].fields)
            if dates:
                ranges[attribute] = dates
    return Manifest.model_construct(names=names, classes=classes, collections=collections, others={},
                                    date_ranges=ranges, quarantined=declared_quarantine(files))


def _singular_class(annotation: ast.expr) -> str | None:
    """`Passport | None` -> `Passport`."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        for side in (annotation.left, annotation.right):
            if isinstance(side, ast.Name) and side.id != "None":
                return side.id
    return annotation.id if isinstance(annotation, ast.Name) else None

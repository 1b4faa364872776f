"""The shape of a record chunk: what a type check of its records needs, and nothing more.

A record chunk (`codegen.safety_rules.records_only`) holds `from` imports and lists
`_trips_003: list[Trip] = [Trip(destination='Oslo', cost_usd=12.5, fact_ids=[1, 2]), ...]`.
Its shape keeps the imports, and per list its name, the class named in `list[C]` and the
DISTINCT record signatures: the called name with the sorted (keyword, value tag) pairs.
Values are reduced to tags, so ten thousand records of one kind have a handful of
signatures, and the shape depends only on which signatures occur, never on how often.

Value tags: `str`, `int`, `float`, `bool`, `None` (constants of those types; a negated
int or float constant is `int` or `float`); `call:N/k`
(a call of the plain name N with k int literal arguments: `call:date/3`); `list[t,...]`
(a list display, with the sorted distinct tags of its items; `list[]` when empty);
`other` for anything else (tuples, dicts, bytes, calls with other
arguments ...).
"""

from __future__ import annotations

import ast
from typing import NamedTuple


class Import(NamedTuple):
    """`from <level dots><module> import <name> as <asname>`; module "" for `from . import`."""

    module: str
    name: str
    asname: str | None
    level: int


class Signature(NamedTuple):
    """One record's call: the called name and its sorted (keyword, value tag) pairs."""

    called: str
    keywords: tuple[tuple[str, str], ...]


class RecordList(NamedTuple):
    """`name: list[class_name] = [...]`, with the distinct signatures of its items, sorted."""

    name: str
    class_name: str
    signatures: tuple[Signature, ...]


class RecordShape(NamedTuple):
    imports: tuple[Import, ...]  # in file order
    lists: tuple[RecordList, ...]  # in file order


def shape_of(tree: ast.Module) -> RecordShape | None:
    """The shape of a module of the records-only form (`codegen.safety_rules.records_only`:
    a docstring, `from` imports, then `name: list[C] = [C(k=v, ...), ...]` lists whose
    items are keyword-only calls of a plain name), else None."""
    imports: list[Import] = []
    lists: list[RecordList] = []
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.ImportFrom):
            imports += [Import(stmt.module or "", alias.name, alias.asname, stmt.level) for alias in stmt.names]
            continue
        if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            continue
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                and isinstance(stmt.annotation, ast.Subscript) and isinstance(stmt.annotation.value, ast.Name)
                and stmt.annotation.value.id == "list" and isinstance(stmt.annotation.slice, ast.Name)
                and isinstance(stmt.value, ast.List)):
            return None
        seen: set[tuple[str, tuple[tuple[str | None, str], ...]]] = set()  # keywords in call order
        for item in stmt.value.elts:
            if not (isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and not item.args):
                return None
            seen.add((item.func.id, tuple([(k.arg, value_tag(k.value)) for k in item.keywords])))
        signatures: set[Signature] = set()
        for called, pairs in seen:
            if any(keyword is None for keyword, _ in pairs):  # `**mapping`
                return None
            signatures.add(Signature(called, tuple(sorted((keyword or "", tag) for keyword, tag in pairs))))
        lists.append(RecordList(stmt.target.id, stmt.annotation.slice.id, tuple(sorted(signatures))))
    return RecordShape(tuple(imports), tuple(lists)) if lists else None


_CONSTANT_TAGS = {str: "str", int: "int", float: "float", bool: "bool", type(None): "None"}


def value_tag(node: ast.expr) -> str:
    if type(node) is ast.Constant:
        return _CONSTANT_TAGS.get(type(node.value), "other")
    if isinstance(node, ast.List):
        return "list[" + ",".join(sorted({value_tag(item) for item in node.elts})) + "]"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
            and all(isinstance(a, ast.Constant) and type(a.value) is int for a in node.args):
        return f"call:{node.func.id}/{len(node.args)}"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return type(node.operand.value).__name__
    return "other"


def split_top_level(text: str, separator: str) -> list[str]:
    """`text` cut at each `separator` outside brackets (`list[int | None] | None`, "|" ->
    two parts); an empty text is one empty part."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def split_tags(inner: str) -> list[str]:
    """The item tags of a `list[...]` tag's inside (`int,call:date/3` -> two tags)."""
    return split_top_level(inner, ",") if inner else []

"""The type check of a record chunk, narrower than mypy's and exact where it answers.

A record chunk (`codegen.record_shape`) calls one class with keyword arguments of
literal values. This check compares its shape with the class as declared in the
package's class module, and answers ACCEPTED only when `mypy --strict` accepts the file;
anything it does not fully understand is NOT SURE, and that file goes to mypy as before.

What it understands, and nothing else:
- the chunk: `from __future__ import annotations`, `from datetime import date|datetime|time`
  (not renamed), `from .<module> import <Class> [as <name>]` of a class of the package,
  each local name bound once, no list name shadowing an import or another list, no
  comment mypy reads (`# type:` / `# mypy:`);
- the class: `@dataclass` or `@dataclass(<flag>=True|False, ...)` (not `init=False`)
  imported from `dataclasses` under its own name, no base class, a body of a docstring and
  annotated fields, defaults a literal, `None`, or `field(default=<literal>)` /
  `field(default_factory=<name>)`, no field named like a type or helper the class uses;
  bound once at the top level of a module of `from` imports, classes and assignments;
- field annotations: `str`, `int`, `float`, `bool`, `None`, `date`, `datetime`, `time` (from
  `datetime`), `list[T]` and unions `A | B` of these (at most one `list[...]` member);
- records: every keyword a field, every field without a default given; a value tag fits
  the annotation: `str`/`bool` exactly, `int` for int or float (mypy's promotion, never
  bool for int), `float` for float, `None` for a union with None, `list[...]` for a `list[T]`
  when every item fits T (`[]` always), `call:date/3`, `call:datetime/3..7`,
  `call:time/0..4` for exactly that class (never datetime for date).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Mapping, NamedTuple

from codegen.record_shape import RecordShape, split_tags

_DIRECTIVE = re.compile(r"#\s*(?:type|mypy)\s*:", re.IGNORECASE)
_DATETIME_ARGS = {"date": range(3, 4), "datetime": range(3, 8), "time": range(0, 5)}
_BUILTINS = frozenset({"str", "int", "float", "bool", "list"})
_DATACLASS_FLAGS = frozenset({"frozen", "kw_only", "eq", "order", "unsafe_hash", "repr", "match_args",
                              "slots", "weakref_slot", "init"})


class Type(NamedTuple):
    """One member of a field's union: a scalar kind, or `list` with its item union."""

    kind: str  # str int float bool None date datetime time list
    items: tuple[Type, ...] = ()


@dataclass(frozen=True)
class DeclaredClass:
    fields: Mapping[str, tuple[Type, ...]]  # field -> union members
    required: frozenset[str]


def plain_text(text: str) -> bool:
    """No comment in `text` that mypy reads (`# type: ignore`, `# mypy: <option>`); a
    string holding such a text counts too (only time is lost then)."""
    return _DIRECTIVE.search(text) is None


class ClassTable:
    """The classes of one package, parsed on demand from its files' texts."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self._files = files
        self._modules: dict[str, dict[str, DeclaredClass] | None] = {}

    def lookup(self, module: str, name: str) -> DeclaredClass | None:
        if module not in self._modules:
            text = self._files.get(f"{module}.py")
            self._modules[module] = None if text is None or not plain_text(text) else _classes(text)
        classes = self._modules[module]
        return None if classes is None else classes.get(name)


def accepts(shape: RecordShape, classes: ClassTable, text: str, plain: bool | None = None) -> bool:
    """True only if `mypy --strict` accepts the chunk `text` of shape `shape`; `plain`, if
    given, is `plain_text(text)` (known from before)."""
    if not (plain_text(text) if plain is None else plain):
        return False
    local_classes: dict[str, DeclaredClass] = {}
    datetime_names: set[str] = set()
    bound: set[str] = set()
    for imp in shape.imports:
        local = imp.asname or imp.name
        if local in bound or local in _BUILTINS:
            return False
        bound.add(local)
        if imp.level == 0 and imp.module == "__future__" and imp.name == "annotations" and imp.asname is None:
            continue
        if imp.level == 0 and imp.module == "datetime" and imp.name in _DATETIME_ARGS and imp.asname is None:
            datetime_names.add(imp.name)
            continue
        if imp.level != 1 or not imp.module or "." in imp.module:
            return False
        declared = classes.lookup(imp.module, imp.name)
        if declared is None:
            return False
        local_classes[local] = declared
    for records in shape.lists:
        if records.name in bound or records.name.startswith("__"):
            return False
        bound.add(records.name)
        declared = local_classes.get(records.class_name)
        if declared is None:
            return False
        for signature in records.signatures:
            if signature.called != records.class_name:
                return False
            given = {keyword for keyword, _ in signature.keywords}
            if not declared.required <= given:
                return False
            for keyword, tag in signature.keywords:
                members = declared.fields.get(keyword)
                if members is None or not _fits(tag, members, datetime_names):
                    return False
    return True


def _fits(tag: str, members: tuple[Type, ...], datetime_names: set[str]) -> bool:
    kinds = {member.kind for member in members}
    if tag in ("str", "bool", "float", "None"):
        return tag in kinds
    if tag == "int":
        return "int" in kinds or "float" in kinds
    if tag.startswith("call:"):
        name, _, count = tag[5:].rpartition("/")
        return name in datetime_names and name in kinds and int(count) in _DATETIME_ARGS[name]
    if tag.startswith("list[") and tag.endswith("]"):
        lists = [member for member in members if member.kind == "list"]
        return len(lists) == 1 and all(_fits(item, lists[0].items, datetime_names)
                                       for item in split_tags(tag[5:-1]))
    return False


# ------------------------------------------------------------------ class modules
_PROPERTY = ast.dump(ast.Name("property", ast.Load()))


def _classes(text: str) -> dict[str, DeclaredClass] | None:
    """The understood dataclasses of a class module, or None if the module is not of the
    understood form at all."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    bindings: dict[str, int] = {}
    std: dict[str, tuple[str, str]] = {}  # local name -> (module, name) of a level-0 import
    class_defs: list[ast.ClassDef] = []
    for index, stmt in enumerate(tree.body):
        if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.name == "*":
                    return None
                local = alias.asname or alias.name
                bindings[local] = bindings.get(local, 0) + 1
                if stmt.level == 0 and stmt.module:
                    std[local] = (stmt.module, alias.name)
        elif isinstance(stmt, ast.ClassDef):
            bindings[stmt.name] = bindings.get(stmt.name, 0) + 1
            class_defs.append(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if not isinstance(target, ast.Name):
                    return None
                bindings[target.id] = bindings.get(target.id, 0) + 1
        else:
            return None
    found: dict[str, DeclaredClass] = {}
    for node in class_defs:
        if bindings.get(node.name) == 1:
            declared = _declared(node, bindings, std)
            if declared is not None:
                found[node.name] = declared
    return found


def _declared(node: ast.ClassDef, bindings: Mapping[str, int],
              std: Mapping[str, tuple[str, str]]) -> DeclaredClass | None:
    if node.bases or node.keywords or len(node.decorator_list) != 1 \
            or not _dataclass_decorator(node.decorator_list[0], bindings, std):
        return None
    fields: dict[str, tuple[Type, ...]] = {}
    required: set[str] = set()
    used_names: set[str] = set()
    for index, stmt in enumerate(node.body):
        if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.FunctionDef) and [ast.dump(d) for d in stmt.decorator_list] == [_PROPERTY]:
            continue  # a derived value (the allowlist: no field's name, only `self`): not in the constructor
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.simple):
            return None
        name = stmt.target.id
        members = _annotation(stmt.annotation, bindings, std, used_names)
        if name in fields or members is None:
            return None
        if stmt.value is None:
            required.add(name)
        elif not _default(stmt.value, bindings, std):
            return None
        fields[name] = members
    if (used_names | {"field", "dataclass"}) & set(fields):  # named like a type or helper the class uses
        return None
    return DeclaredClass(fields, frozenset(required))


def _dataclass_decorator(node: ast.expr, bindings: Mapping[str, int],
                         std: Mapping[str, tuple[str, str]]) -> bool:
    call = node if isinstance(node, ast.Call) else None
    func = call.func if call is not None else node
    if not (isinstance(func, ast.Name) and func.id == "dataclass" and bindings.get("dataclass") == 1
            and std.get("dataclass") == ("dataclasses", "dataclass")):
        return False
    if call is None:
        return True
    return not call.args and all(
        k.arg in _DATACLASS_FLAGS and isinstance(k.value, ast.Constant) and type(k.value.value) is bool
        and (k.arg != "init" or k.value.value) for k in call.keywords)


def _default(node: ast.expr, bindings: Mapping[str, int], std: Mapping[str, tuple[str, str]]) -> bool:
    if _constant(node):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "field" \
            and bindings.get("field") == 1 and std.get("field") == ("dataclasses", "field") \
            and not node.args and len(node.keywords) == 1:
        keyword = node.keywords[0]
        if keyword.arg == "default":
            return _constant(keyword.value)
        return keyword.arg == "default_factory" and isinstance(keyword.value, ast.Name)
    return False


def _constant(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (str, int, float, bool, type(None))


def _annotation(node: ast.expr, bindings: Mapping[str, int], std: Mapping[str, tuple[str, str]],
                used: set[str]) -> tuple[Type, ...] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left = _annotation(node.left, bindings, std, used)
        right = _annotation(node.right, bindings, std, used)
        if left is None or right is None:
            return None
        members = left + right
        return members if sum(member.kind == "list" for member in members) <= 1 else None
    if isinstance(node, ast.Constant) and node.value is None:
        return (Type("None"),)
    if isinstance(node, ast.Name):
        used.add(node.id)
        if node.id in ("str", "int", "float", "bool") and node.id not in bindings:
            return (Type(node.id),)
        origin = std.get(node.id)
        if origin is not None and origin[0] == "datetime" and origin[1] in _DATETIME_ARGS \
                and bindings.get(node.id) == 1:
            return (Type(origin[1]),)
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "list" \
            and "list" not in bindings:
        used.add("list")
        items = _annotation(node.slice, bindings, std, used)
        return None if items is None else (Type("list", items),)
    return None

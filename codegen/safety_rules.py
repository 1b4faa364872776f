"""The safety allowlist for one generated file.

The check runs on CPython's own syntax tree (`ast`), the tree that import will compile, so
no parser differential can hide code from it; it is also ~15x faster than building a
libcst tree (see benchmarks/bench_validate.py). Files that pass are then read a second
time by libcst (`codegen.cst_audit`), which must agree. Everything not explicitly allowed here is
a violation. Per file it also reports what the file exports and which sibling names it
uses as classes, so `codegen.safety` can check imports across the package.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Mapping

from codegen.cst_audit import audit, needs_audit
from codegen.problems import Problem
from codegen.record_lines import canonical_chunk
from codegen.record_shape import RecordShape, shape_of
from factlog import limits as value_limits

ALLOWED_IMPORTS: Mapping[str, frozenset[str]] = {
    "__future__": frozenset({"annotations"}),
    "dataclasses": frozenset({"dataclass", "field"}),
    "datetime": frozenset({"date", "datetime", "time", "timedelta"}),
    "typing": frozenset({"Any", "Literal", "Optional", "Union", "List", "Dict", "Set", "Tuple",
                         "FrozenSet", "Final"}),
    "enum": frozenset({"Enum", "IntEnum", "StrEnum"}),
    "decimal": frozenset({"Decimal"}),
}
CONSTRUCTORS = {"date": "datetime", "datetime": "datetime", "time": "datetime",
                "timedelta": "datetime", "Decimal": "decimal"}
FACTORIES = frozenset({"list", "dict", "set", "tuple"})
BUILTIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "list", "dict", "set",
                           "tuple", "frozenset", "object"})
DATACLASS_OPTIONS = frozenset({"init", "repr", "eq", "order", "unsafe_hash", "frozen",
                               "match_args", "kw_only", "slots", "weakref_slot"})
# What a record class's `@property` may use (`_Checker.property_method`): pure, bounded work on
# the record's own fields. No `**` (a power of two fields can take any time and memory).
PURE_BUILTINS = frozenset({"len", "min", "max", "abs", "round", "sum", "bool", "int", "float", "str"})
DERIVED_ATTRIBUTES = frozenset({"days", "seconds", "microseconds", "year", "month", "day", "hour",
                                "minute", "second", "real", "imag"})
DERIVED_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)
DERIVED_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn)
SIBLING_NAME = re.compile(r"[a-z_][a-z0-9_]*", re.ASCII)
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)


@dataclass(frozen=True)
class Limits:
    """Defaults come from `factlog.limits`, the one owner of the limits the fact log's door
    enforces too (a fact the log accepts always fits these)."""

    max_file_bytes: int = value_limits.MAX_FILE_BYTES
    max_files: int = value_limits.MAX_FILES
    max_total_bytes: int = value_limits.MAX_PACKAGE_BYTES  # all files of a package
    max_string: int = value_limits.MAX_STRING_CHARS  # characters in one string literal
    max_int_digits: int = value_limits.MAX_INT_DIGITS
    max_depth: int = value_limits.MAX_SOURCE_DEPTH  # nesting of values, calls and annotations


@dataclass(frozen=True)
class SiblingUse:
    """A name imported from a sibling module; `as_class` if called or used as `Name.MEMBER`."""

    module: str
    name: str
    line: int
    column: int
    as_class: bool


@dataclass(frozen=True)
class FileReport:
    """The verdict on one file's text. Problems carry no file name (the text is cached by
    hash, whatever it is called); `exports` maps each public name to `class`, `value` or
    `from:<sibling>` (a re-export)."""

    problems: tuple[Problem, ...]
    exports: Mapping[str, str] = field(default_factory=dict)
    sibling_uses: tuple[SiblingUse, ...] = ()
    records: RecordShape | None = None  # a records-only file without problems: its shape


def check_source(source: str, limits: Limits = Limits(), fast: bool = True) -> FileReport:
    """The verdict on one file. A record chunk is first read through its distinct line
    shapes (`codegen.record_lines`; `fast=False` skips that): accepted there, it is
    accepted here with the same report; otherwise the whole text is read."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > limits.max_file_bytes:
        return _fail("file-size", 0, 0, f"file is {size} bytes; at most {limits.max_file_bytes} are allowed")
    hygiene = _source_hygiene(source)
    if hygiene is not None:
        return FileReport((hygiene,))
    if fast:
        shortcut = fast_chunk_report(source, limits)
        if shortcut is not None:
            return shortcut
    try:
        tree = ast.parse(source, type_comments=False)
    except SyntaxError as exc:
        return _fail("syntax", exc.lineno or 0, exc.offset or 0, f"does not parse: {exc.msg}")
    except (ValueError, MemoryError, RecursionError) as exc:
        return _fail("nesting", 0, 0, f"does not parse ({type(exc).__name__}): too deep or too complex")
    report = check_tree(source, tree, limits)
    if not report.problems and needs_audit(source) and not joins_only(tree) and not records_only(tree):
        second_reading = audit(source)  # libcst must read the file the same way
        if second_reading:
            return FileReport(second_reading)
    return report


def check_tree(source: str, tree: ast.Module, limits: Limits) -> FileReport:
    """The allowlist over `tree`, the parse of `source` (no libcst audit): the one ast
    path, run on the original text or on a record chunk's canonical module, so whatever a
    report takes from the tree is filled here, the same for both readings."""
    checker = _Checker(source, limits)
    checker.module(tree)
    checker.shadowed_builtins()
    checker.look_alike_names()
    report = checker.report()
    if not report.problems and records_only(tree):  # a records-only file: its shape, for the type check
        return replace(report, records=shape_of(tree))
    return report


def fast_chunk_report(source: str, limits: Limits = Limits()) -> FileReport | None:
    """A record chunk's report read from its canonical module (one line per distinct
    record shape), or None: not plainly a record chunk, or the canonical module has a
    problem (never reported from there: its line numbers are not the file's). Accepted
    here implies accepted by the full reading with the same report (the argument is in
    `codegen.record_lines`); a text `check_source` refuses before parsing gives None."""
    if _source_hygiene(source) is not None or (len(source) * 4 > limits.max_file_bytes and len(
            source.encode("utf-8", "surrogatepass")) > limits.max_file_bytes):
        return None
    chunk = canonical_chunk(source, limits.max_string, limits.max_int_digits)
    if chunk is None:
        return None
    try:
        tree = ast.parse(chunk.text, type_comments=False)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not chunk.laid_out(tree) or not records_only(tree):
        return None  # a records-only tree is never audited by libcst on the full path either
    report = check_tree(chunk.text, tree, limits)
    return None if report.problems else report


def joins_only(tree: ast.Module) -> bool:
    """A file of nothing but a docstring, `from` imports and `name: list[C] = [*a, *b]`
    joins (a generated `__init__.py`): no call, no literal, no class, so nothing the libcst
    reading could find that the allowlist did not; like a large record chunk, `ast` alone
    reads it (it changes on every version and grows with the log)."""
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.ImportFrom) or (index == 0 and _is_docstring(stmt)):
            continue
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.value, ast.List)
                and isinstance(stmt.target, ast.Name) and _list_of_name(stmt.annotation)
                and all(isinstance(item, ast.Starred) and isinstance(item.value, ast.Name)
                        for item in stmt.value.elts)):
            return False
    return True


def records_only(tree: ast.Module) -> bool:
    """A file of nothing but a docstring, `from` imports and `name: list[C] = [C(field=...),
    ...]` lists whose items are calls of a plain name with keyword arguments of literal
    values (constants, negated numbers, lists, tuples, sets and dicts of them, and calls of
    a plain name with such arguments: `date(2024, 3, 8)`): the record chunk shape, the
    strictest the allowlist admits. No attribute, no bare name, no statement but these:
    nothing the libcst reading could find that the allowlist did not, so `ast` alone reads
    it, whatever its length (a chunk's open tail changes on most versions)."""
    lists = 0
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.ImportFrom) or (index == 0 and _is_docstring(stmt)):
            continue
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.value, ast.List)
                and isinstance(stmt.target, ast.Name) and _list_of_name(stmt.annotation)
                and all(_record_call(item) for item in stmt.value.elts)):
            return False
        lists += 1
    return lists > 0


def _record_call(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args
            and all(k.arg is not None and _literal(k.value) for k in node.keywords))


def _literal(node: ast.expr, depth: int = 0) -> bool:
    if depth > 8:
        return False
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_literal(item, depth + 1) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _literal(k, depth + 1) for k in node.keys) \
            and all(_literal(v, depth + 1) for v in node.values)
    if isinstance(node, ast.Call):  # date(2024, 3, 8), datetime(...), time(...)
        return isinstance(node.func, ast.Name) and not node.keywords \
            and all(_literal(a, depth + 1) and not isinstance(a, ast.Call) for a in node.args)
    return False


def _list_of_name(annotation: ast.expr) -> bool:
    return (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)
            and annotation.value.id == "list" and isinstance(annotation.slice, ast.Name))


def _fail(rule: str, line: int, column: int, message: str) -> FileReport:
    return FileReport((Problem(rule, "", line, column, message),))


def _source_hygiene(source: str) -> Problem | None:
    """Refuse text that another reader (import decodes bytes by the coding cookie) could see
    differently from the string we check."""
    if "\x00" in source or "\r" in source:
        return Problem("source", "", 0, 0, "source must not contain NUL or carriage-return characters")
    for number, line in enumerate(source.split("\n", 2)[:2], start=1):
        match = _CODING.match(line)
        if match and match.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            return Problem("source", "", number, 1,
                           f"coding declaration {match.group(1)!r} is not allowed; files are UTF-8")
    return None


def _decorated_property(node: ast.FunctionDef) -> bool:
    """Decorated by exactly `@property` (the builtin; `shadowed_builtins` checks the name is not rebound)."""
    return len(node.decorator_list) == 1 and isinstance(node.decorator_list[0], ast.Name) \
        and node.decorator_list[0].id == "property"


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


_DESCRIPTIONS = {
    ast.FunctionDef: "function definitions", ast.AsyncFunctionDef: "async functions",
    ast.Lambda: "lambdas", ast.ListComp: "comprehensions", ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions", ast.GeneratorExp: "generator expressions",
    ast.JoinedStr: "f-strings", ast.NamedExpr: "assignment expressions (:=)",
    ast.Import: "`import` statements", ast.Global: "global statements",
    ast.Nonlocal: "nonlocal statements", ast.Delete: "del statements",
    ast.BinOp: "operators", ast.BoolOp: "operators", ast.Compare: "comparisons",
    ast.Subscript: "subscripts", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
    ast.IfExp: "conditional expressions", ast.Expr: "expression statements (calls)",
    ast.If: "if statements", ast.For: "loops", ast.AsyncFor: "loops", ast.While: "loops",
    ast.Try: "try statements", ast.TryStar: "try statements", ast.With: "with statements",
    ast.AsyncWith: "with statements", ast.Raise: "raise statements", ast.Assert: "assert statements",
    ast.Match: "match statements", ast.AugAssign: "augmented assignments (+=)", ast.Pass: "pass statements",
    ast.Assign: "unannotated assignments", ast.Call: "calls", ast.Attribute: "attribute access",
    ast.Constant: "literals other than str, int, float, bool and None", ast.Return: "return statements",
}


def _describe(node: ast.AST) -> str:
    return _DESCRIPTIONS.get(type(node), f"{type(node).__name__} nodes")


class _Checker:
    def __init__(self, source: str, limits: Limits) -> None:
        self.source = source
        self.limits = limits
        self.lines: list[str] | None = None
        self.problems: list[Problem] = []
        self.std: dict[str, tuple[str, str]] = {}  # local name -> (standard module, its name there)
        self.siblings: dict[str, str] = {}  # local name -> sibling module
        self.dataclasses: set[str] = set()
        self.enums: set[str] = set()
        self.values: set[str] = set()
        self.class_uses: set[str] = set()
        self.import_sites: dict[str, tuple[int, int]] = {}
        self.builtin_uses: list[tuple[str, ast.AST]] = []  # builtins called by properties, checked last

    # ----------------------------------------------------------------- reporting
    def flag(self, rule: str, node: ast.AST | None, message: str) -> None:
        line = getattr(node, "lineno", 0)
        offset = getattr(node, "col_offset", -1)
        self.problems.append(Problem(rule, "", line, self._column(line, offset), message))

    def _column(self, line: int, byte_offset: int) -> int:
        """1-based character column from ast's UTF-8 byte offset."""
        if line < 1 or byte_offset < 0:
            return 0
        if self.lines is None:
            self.lines = self.source.split("\n")
        if line > len(self.lines):
            return byte_offset + 1
        prefix = self.lines[line - 1].encode("utf-8", "surrogatepass")[:byte_offset]
        return len(prefix.decode("utf-8", "replace")) + 1

    def report(self) -> FileReport:
        exports = {name: "class" for name in self.dataclasses | self.enums}
        exports.update({name: "value" for name in self.values})
        exports.update({name: f"from:{module}" for name, module in self.siblings.items()})
        uses = tuple(
            SiblingUse(module, name, *self.import_sites[name], as_class=name in self.class_uses)
            for name, module in self.siblings.items()
        )
        return FileReport(tuple(self.problems), exports, uses)

    # ------------------------------------------------------------------- names
    def name_ok(self, name: str, node: ast.AST) -> bool:
        if not name.isascii():
            self.flag("non-ascii", node, f"identifier {name!r} is not ASCII (look-alike names are refused)")
            return False
        if name.startswith("__"):
            self.flag("dunder", node, f"name {name!r} is not allowed: no dunder or private names")
            return False
        return True

    def bind(self, name: str, node: ast.AST) -> bool:
        if not self.name_ok(name, node):
            return False
        if name in self.std or name in self.siblings or name in self.dataclasses or name in self.enums \
                or name in self.values:
            self.flag("rebind", node, f"name {name!r} is already bound; names may be bound once")
            return False
        return True

    def look_alike_names(self) -> None:
        """The parser folds identifiers by NFKC (`ｄａｔｅ` becomes `date`), so the tree looks
        ASCII; when the text holds a character that folds to ASCII, read the raw tokens."""
        if self.source.isascii():
            return
        if not any(not ch.isascii() and unicodedata.normalize("NFKC", ch).isascii()
                   for ch in set(self.source)):
            return
        try:
            for token in tokenize.generate_tokens(io.StringIO(self.source).readline):
                if token.type == tokenize.NAME and not token.string.isascii():
                    self.problems.append(Problem("non-ascii", "", token.start[0], token.start[1] + 1,
                                                 f"identifier {token.string!r} is not ASCII"))
        except (tokenize.TokenError, SyntaxError):
            self.flag("non-ascii", None, "identifiers could not be read back from the text")

    # -------------------------------------------------------------- statements
    def module(self, tree: ast.Module) -> None:
        for index, stmt in enumerate(tree.body):
            if index == 0 and _is_docstring(stmt):
                continue
            if isinstance(stmt, ast.ImportFrom):
                self.import_from(stmt)
            elif isinstance(stmt, ast.ClassDef):
                self.class_def(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                self.assignment(stmt)
            elif isinstance(stmt, ast.Import):
                self.flag("import", stmt, "`import x` is not allowed; use `from <allowed module> import Name`")
            else:
                self.flag("statement", stmt, f"{_describe(stmt)} are not allowed at module level")

    def import_from(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level == 0:
            allowed = ALLOWED_IMPORTS.get(module)
            if allowed is None:
                self.flag("import", node, f"importing from {module!r} is not allowed; only from "
                                          f"{', '.join(sorted(ALLOWED_IMPORTS))}")
                return
        elif node.level != 1 or not SIBLING_NAME.fullmatch(module) or module.startswith("__"):
            self.flag("import", node, "relative imports must name a sibling module: `from .<sibling> import Name`")
            return
        for alias in node.names:
            if alias.name == "*":
                self.flag("import", node, "`import *` is not allowed; import names explicitly")
            elif not self.name_ok(alias.name, node):
                continue
            elif node.level == 1 and alias.asname not in (None, alias.name):
                self.flag("import", node, f"renaming {alias.name!r} on a sibling import is not allowed")
            elif node.level == 0 and alias.name not in ALLOWED_IMPORTS[module]:
                self.flag("import", node, f"{module}.{alias.name} is not allowed; allowed from {module}: "
                                          f"{', '.join(sorted(ALLOWED_IMPORTS[module]))}")
            elif node.level == 0:
                local = alias.asname or alias.name  # an alias keeps its meaning: checks use the original
                if self.bind(local, node):
                    self.std[local] = (module, alias.name)
            elif self.bind(alias.name, node):
                self.siblings[alias.name] = module
                self.import_sites[alias.name] = (node.lineno, node.col_offset + 1)

    def class_def(self, node: ast.ClassDef) -> None:
        if not self.bind(node.name, node):
            return
        if node.keywords:
            self.flag("class", node, "class keywords (metaclass=..., ...) are not allowed")
        if getattr(node, "type_params", None):
            self.flag("class", node, "type parameters are not allowed")
        is_enum = False
        if node.decorator_list:
            if len(node.decorator_list) != 1 or not self.dataclass_decorator(node.decorator_list[0]):
                self.flag("decorator", node.decorator_list[0],
                          "the only decorator allowed is @dataclass(...) with literal True/False options")
            if node.bases:
                self.flag("class", node.bases[0], "dataclasses may not have base classes")
        elif len(node.bases) == 1 and isinstance(node.bases[0], ast.Name) \
                and self.std.get(node.bases[0].id, ("", ""))[0] == "enum":
            is_enum = True
        else:
            self.flag("class", node, "a class must be a @dataclass(...) or subclass Enum/IntEnum/StrEnum")
        (self.enums if is_enum else self.dataclasses).add(node.name)
        fields = frozenset(stmt.target.id for stmt in node.body
                           if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name))
        for index, stmt in enumerate(node.body):
            if index == 0 and _is_docstring(stmt):
                continue
            if is_enum:
                self.enum_member(stmt)
            elif isinstance(stmt, ast.FunctionDef) and _decorated_property(stmt):
                self.property_method(stmt, fields)
            else:
                self.dataclass_field(stmt)

    def dataclass_decorator(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return self.std.get(node.id) == ("dataclasses", "dataclass")
        if not isinstance(node, ast.Call) or node.args or not self.dataclass_decorator(node.func):
            return False
        return all(kw.arg in DATACLASS_OPTIONS and isinstance(kw.value, ast.Constant)
                   and isinstance(kw.value.value, bool) for kw in node.keywords)

    def dataclass_field(self, stmt: ast.stmt) -> None:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            self.flag("statement" if not isinstance(stmt, ast.Assign) else "class", stmt,
                      "a dataclass body holds only a docstring, annotated fields and @property "
                      f"methods, not {_describe(stmt)}")
            return
        if not self.name_ok(stmt.target.id, stmt.target):
            return
        self.annotation(stmt.annotation, 0)
        if stmt.value is not None and not self.field_default(stmt.value):
            self.flag("default", stmt.value, "a field default must be a literal, an enum member or "
                                             "field(default_factory=list|dict|set|tuple)")

    def property_method(self, node: ast.FunctionDef, fields: frozenset[str]) -> None:
        """A derived value: `@property`, only `self`, an annotated return type, and a body of
        one `return` (after an optional docstring) of an expression `derived` admits."""
        self.builtin_uses.append(("property", node.decorator_list[0]))
        if not self.name_ok(node.name, node):
            return
        if node.name.startswith("_") or node.name in fields:
            self.flag("property", node, f"property {node.name!r} must not start with '_' or share a field's name")
        elif node.name in self.std or node.name in self.siblings or node.name in PURE_BUILTINS \
                or node.name in BUILTIN_TYPES or node.name == "property":
            self.flag("rebind", node, f"property {node.name!r} would hide a name the class body uses")
        args = node.args
        if (args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg or args.defaults
                or len(args.args) != 1 or args.args[0].arg != "self" or args.args[0].annotation is not None
                or getattr(node, "type_params", None) or node.type_comment is not None):
            self.flag("property", node, "a property takes only `self` (unannotated), nothing else")
        if node.returns is None:
            self.flag("property", node, "a property needs an annotated return type (`-> int | None`)")
        else:
            self.annotation(node.returns, 0)
        body = node.body[1:] if node.body and _is_docstring(node.body[0]) else node.body
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            self.flag("property", body[0] if body else node,
                      "a property's body is one `return <expression>` (an optional docstring before it)")
            for stmt in body:
                if not isinstance(stmt, ast.Return):
                    self.flag("statement", stmt, f"{_describe(stmt)} are not allowed in a property")
            return
        self.derived(body[0].value, fields, 0)

    def derived(self, node: ast.expr, fields: frozenset[str], depth: int) -> None:
        """A property's expression: literals, `self.<field>`, `.days`/`.year`... of a value,
        enum members, arithmetic, comparisons, `and`/`or`/`not`, `a if c else b`, and calls of
        PURE_BUILTINS with positional arguments. Nothing else: no other name, no subscript,
        no call of anything else, no comprehension, lambda, walrus or f-string."""
        if depth > self.limits.max_depth:
            self.flag("nesting", node, f"a property's expression nests deeper than {self.limits.max_depth} levels")
            return
        deeper = depth + 1
        if isinstance(node, ast.Attribute):
            if not self.name_ok(node.attr, node):
                return
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                if node.attr not in fields:
                    self.flag("property", node, f"`self.{node.attr}` is not a field of this class")
            elif isinstance(node.value, ast.Name) and (node.value.id in self.enums or node.value.id in self.siblings):
                if not self.member_ref(node):
                    self.flag("attribute", node, "only public enum members (`Color.RED`) may be named")
            elif node.attr in DERIVED_ATTRIBUTES:
                self.derived(node.value, fields, deeper)
            else:
                self.flag("attribute", node, f"attribute {node.attr!r} is not allowed in a property; allowed: "
                                             f"self.<field>, enum members, {', '.join(sorted(DERIVED_ATTRIBUTES))}")
        elif isinstance(node, ast.BinOp):
            if not isinstance(node.op, DERIVED_OPERATORS):
                self.flag("property", node, f"operator {type(node.op).__name__} is not allowed in a property")
            self.derived(node.left, fields, deeper)
            self.derived(node.right, fields, deeper)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
                self.flag("property", node, f"operator {type(node.op).__name__} is not allowed in a property")
            self.derived(node.operand, fields, deeper)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                self.derived(value, fields, deeper)
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if not isinstance(op, DERIVED_COMPARISONS):
                    self.flag("property", node, f"comparison {type(op).__name__} is not allowed in a property")
            for value in (node.left, *node.comparators):
                self.derived(value, fields, deeper)
        elif isinstance(node, ast.IfExp):
            for value in (node.test, node.body, node.orelse):
                self.derived(value, fields, deeper)
        elif isinstance(node, ast.Call):
            func = node.func
            if not (isinstance(func, ast.Name) and func.id in PURE_BUILTINS) or node.keywords:
                self.flag("call", node, "a property may call only " + ", ".join(sorted(PURE_BUILTINS))
                          + ", with positional arguments")
                if not isinstance(func, ast.Name):
                    self.derived(func, fields, deeper)
            else:
                self.builtin_uses.append((func.id, func))
            for argument in node.args:
                if isinstance(argument, ast.Starred):
                    self.flag("call", argument, "`*` arguments are not allowed")
                else:
                    self.derived(argument, fields, deeper)
        elif isinstance(node, ast.Name):
            if self.name_ok(node.id, node):
                self.flag("name", node, f"a property reads only `self.<field>`, not the name {node.id!r}")
        elif not self.literal(node):
            self.flag("expression", node, f"{_describe(node)} are not allowed in a property")

    def shadowed_builtins(self) -> None:
        """A builtin a property calls must be the builtin: no name of the module may rebind it."""
        bound = self.std.keys() | self.siblings.keys() | self.dataclasses | self.enums | self.values
        for name, node in self.builtin_uses:
            if name in bound:
                self.flag("rebind", node, f"{name!r} is bound in this module; a property calls only the builtin")

    def field_default(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call):
            return (isinstance(node.func, ast.Name) and self.std.get(node.func.id) == ("dataclasses", "field")
                    and not node.args
                    and len(node.keywords) == 1 and node.keywords[0].arg == "default_factory"
                    and isinstance(node.keywords[0].value, ast.Name)
                    and node.keywords[0].value.id in FACTORIES)
        if isinstance(node, ast.Tuple):
            return all(self.field_default(item) and not isinstance(item, ast.Call) for item in node.elts)
        if isinstance(node, ast.Attribute):
            return self.member_ref(node)
        return self.literal(node)

    def enum_member(self, stmt: ast.stmt) -> None:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)):
            self.flag("statement" if not isinstance(stmt, ast.AnnAssign) else "class", stmt,
                      f"an Enum body holds only a docstring and `NAME = literal` members, not {_describe(stmt)}")
            return
        target = stmt.targets[0]
        if not self.name_ok(target.id, target):
            return
        if target.id.startswith("_"):
            self.flag("class", target, f"enum member {target.id!r} must not start with '_'")
        if not self.literal(stmt.value):
            self.flag("literal", stmt.value, "an enum member's value must be a literal")

    def assignment(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            self.flag("statement", stmt, "assign to exactly one plain name (`name = value`)")
            return
        if isinstance(stmt, ast.AnnAssign):
            self.annotation(stmt.annotation, 0)
        if not self.bind(targets[0].id, targets[0]):
            return
        self.values.add(targets[0].id)
        if stmt.value is None:
            return
        if isinstance(stmt.value, ast.List) and any(isinstance(e, ast.Starred) for e in stmt.value.elts):
            self.chunk_join(stmt.value)
        else:
            self.value(stmt.value, 0)

    def chunk_join(self, node: ast.List) -> None:
        """`[*trips_000, *trips_001]`: every item a starred name imported from a sibling."""
        for item in node.elts:
            if not (isinstance(item, ast.Starred) and isinstance(item.value, ast.Name)
                    and item.value.id in self.siblings):
                self.flag("starred", item, "a list with * holds only starred names imported from sibling modules")

    # ------------------------------------------------------------- expressions
    def literal(self, node: ast.expr) -> bool:
        """A constant (str, int, float, bool, None) within the size limits, or a signed number."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = node.operand
            return (isinstance(operand, ast.Constant) and type(operand.value) in (int, float)
                    and self.literal(operand))
        if not isinstance(node, ast.Constant):
            return False
        value = node.value
        if isinstance(value, str) and len(value) > self.limits.max_string:
            self.flag("literal-size", node, f"string literal of {len(value)} characters; at most "
                                            f"{self.limits.max_string} are allowed")
        elif type(value) is int and abs(value) >= 10 ** self.limits.max_int_digits:
            self.flag("literal-size", node, f"integer literal longer than {self.limits.max_int_digits} digits")
        return value is None or type(value) in (str, int, float, bool)

    def member_ref(self, node: ast.Attribute) -> bool:
        base = node.value
        if not (isinstance(base, ast.Name) and (base.id in self.enums or base.id in self.siblings)):
            return False
        if not self.name_ok(node.attr, node) or node.attr.startswith("_"):
            return False
        if base.id in self.siblings:
            self.class_uses.add(base.id)
        return True

    def value(self, node: ast.expr, depth: int) -> None:
        if depth > self.limits.max_depth:
            self.flag("nesting", node, f"values nest deeper than {self.limits.max_depth} levels")
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            for item in node.elts:
                if isinstance(item, ast.Starred):
                    self.flag("starred", item, "starred items are allowed only in `[*chunk_000, *chunk_001]` joins")
                else:
                    self.value(item, depth + 1)
        elif isinstance(node, ast.Dict):
            for key, item in zip(node.keys, node.values):
                if key is None:
                    self.flag("expression", item, "`**` in a dict display is not allowed")
                else:
                    self.value(key, depth + 1)
                self.value(item, depth + 1)
        elif isinstance(node, ast.Attribute):
            if not self.member_ref(node):
                self.flag("attribute", node, "attribute access is allowed only for enum members (`Color.RED`)")
        elif isinstance(node, ast.Call):
            self.call(node, depth)
        elif isinstance(node, ast.Name):
            self.name_ok(node.id, node)
            self.flag("name", node, f"a bare name ({node.id!r}) is not a value; use a literal or a call")
        elif not self.literal(node):
            self.flag("expression", node, f"{_describe(node)} are not allowed in values")

    def call(self, node: ast.Call, depth: int) -> None:
        func = node.func
        if not isinstance(func, ast.Name):
            rule = "attribute" if isinstance(func, ast.Attribute) else "call"
            self.flag(rule, node, "only calls of the package's classes and date/datetime/time/timedelta/"
                                  "Decimal are allowed")
            return
        name = func.id
        module, original = self.std.get(name, ("", ""))
        literal_only = module != "" and CONSTRUCTORS.get(original) == module
        if name in self.siblings:
            self.class_uses.add(name)
        elif not literal_only and name not in self.dataclasses and name not in self.enums:
            self.name_ok(name, func)
            self.flag("call", node, f"calling {name!r} is not allowed; only the package's classes and "
                                    "date/datetime/time/timedelta/Decimal")
            return
        arguments: list[ast.expr] = list(node.args)
        for keyword in node.keywords:
            if keyword.arg is None:
                self.flag("call", keyword.value, "`**` arguments are not allowed")
            elif self.name_ok(keyword.arg, keyword.value):
                arguments.append(keyword.value)
        for argument in arguments:
            if isinstance(argument, ast.Starred):
                self.flag("call", argument, "`*` arguments are not allowed")
            elif literal_only:
                if not self.literal(argument):
                    self.flag("call", argument, f"{name}(...) takes only literal arguments")
            else:
                self.value(argument, depth + 1)

    def annotation(self, node: ast.expr, depth: int) -> None:
        """Plain names, `X[...]` subscripts, `A | B` unions and None; `Literal[...]` of constants."""
        if depth > self.limits.max_depth:
            self.flag("nesting", node, f"annotations nest deeper than {self.limits.max_depth} levels")
        elif isinstance(node, ast.Name):
            if self.name_ok(node.id, node) and not self.type_name(node.id):
                self.flag("annotation", node, f"{node.id!r} is not a known type name")
        elif isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis):
            return
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self.annotation(node.left, depth + 1)
            self.annotation(node.right, depth + 1)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            self.annotation(node.value, depth + 1)
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for item in items:
                if self.std.get(node.value.id) == ("typing", "Literal"):
                    if not self.literal(item):
                        self.flag("annotation", item, "Literal[...] holds only literals")
                else:
                    self.annotation(item, depth + 1)
        else:
            what = "quoted (string) annotations" if isinstance(node, ast.Constant) else _describe(node)
            self.flag("annotation", node, f"{what} are not allowed here; annotations use plain names, "
                                          "X[...] and A | B")

    def type_name(self, name: str) -> bool:
        return (name in BUILTIN_TYPES or name in self.std or name in self.siblings
                or name in self.dataclasses or name in self.enums)

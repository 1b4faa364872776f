"""A second, independent reading of each schema file with libcst (defence in depth).

The allowlist itself (`codegen.safety_rules`) runs on CPython's `ast`, the tree import will
compile. Here libcst must parse the same text too, and a small visitor re-checks the rules
that matter most for escapes (no dunder names but `__future__`, no functions, lambdas,
comprehensions, f-strings, walrus or decorators other than `@dataclass`, and no function but
a `@property` of `self`: what its body may hold is the allowlist's rule). A file both parsers
read the same way cannot smuggle code through a parser differential.

libcst builds a full concrete tree at roughly 0.6 ms per record line (25x `ast`; see
benchmarks/bench_validate.py), so files of the two strictest shapes the allowlist admits
are read by `ast` alone: record chunks (annotated lists of class calls with literal
keyword arguments, `safety_rules.records_only`) and files of only imports and list joins
(the generated `__init__.py`, `safety_rules.joins_only`); so is any file past
`LIBCST_MAX_LINES`. Schema files and any module an LLM writes by hand are read by both.
"""

from __future__ import annotations

import libcst as cst
import libcst.native  # type: ignore[import-not-found]  # noqa: F401  (load the parser now)
from libcst.metadata import MetadataWrapper, PositionProvider

from codegen.problems import Problem

LIBCST_MAX_LINES = 400


class _EscapeAudit(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def _flag(self, node: cst.CSTNode, rule: str, message: str) -> None:
        start = self.get_metadata(PositionProvider, node).start
        self.problems.append(Problem(f"libcst:{rule}", "", start.line, start.column + 1, message))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        module = node.module
        if isinstance(module, cst.Name) and module.value == "__future__":
            return False  # the one place a dunder name is allowed
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value.startswith("__") and node.value.endswith("__"):
            self._flag(node, "dunder", f"dunder name {node.value!r}")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        if not (len(node.decorators) == 1 and _is_name(node.decorators[0].decorator, "property")
                and len(params.params) == 1 and params.params[0].name.value == "self"
                and params.params[0].annotation is None and params.params[0].default is None
                and not params.posonly_params and not params.kwonly_params
                and isinstance(params.star_arg, cst.MaybeSentinel) and params.star_kwarg is None):
            self._flag(node, "function", "function definitions are not allowed (but a `@property` of `self`)")

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._flag(node, "lambda", "lambdas are not allowed")

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._flag(node, "f-string", "f-strings are not allowed")

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._flag(node, "walrus", "assignment expressions are not allowed")

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._flag(node, "comprehension", "comprehensions are not allowed")

    def visit_Decorator(self, node: cst.Decorator) -> None:
        if _is_name(node.decorator, "property"):
            return  # visit_FunctionDef checks where it stands
        target = node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator
        if not (isinstance(target, cst.Name) and target.value == "dataclass"):
            self._flag(node, "decorator", "only @dataclass(...) may decorate a class (and @property a method)")


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def audit(source: str) -> tuple[Problem, ...]:
    """Problems libcst finds in `source`; empty when it parses and passes the audit."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return (Problem("libcst:parse", "", exc.raw_line, exc.raw_column + 1,
                        f"libcst cannot parse it: {exc.message}"),)
    visitor = _EscapeAudit()
    MetadataWrapper(module, unsafe_skip_copy=True).visit(visitor)
    return tuple(visitor.problems)


def needs_audit(source: str) -> bool:
    return source.count("\n") <= LIBCST_MAX_LINES

"""Parse, check and rewrite a query expression into guarded code.

The check refuses anything outside `query_policy.ALLOWED_NODES`, any name or
attribute starting with `_`, non-name comprehension targets and loose f-string
format specs. The rewrite sends attribute access, calls, comprehension
iterables, unpacking and size-growing operators through guard functions
(`_q_*` globals, unreachable from the query because `_` names are refused).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from types import CodeType
from typing import Literal

from runtime import query_policy as P

FILENAME = "<query>"
_BINOP_GUARDS = {ast.Add: "_q_add", ast.Mult: "_q_mul", ast.Pow: "_q_pow",
                 ast.LShift: "_q_lshift", ast.Mod: "_q_mod"}
_NODE_WORDS = {ast.NamedExpr: "assignment expression (:=)", ast.Yield: "yield",
               ast.YieldFrom: "yield from", ast.Await: "await"}
_DIGIT_RUN = re.compile(r"\d{%d,}" % (P.MAX_FORMAT_SPEC_DIGITS + 1))


class QueryRejected(Exception):
    def __init__(self, kind: Literal["syntax", "forbidden"], message: str,
                 line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.line, self.column = kind, message, line, column


@dataclass(frozen=True)
class CompiledQuery:
    code: CodeType
    free_names: tuple[tuple[str, int, int], ...]  # (name, line, column) read, not bound
    own_codes: frozenset[CodeType]  # lambdas and comprehensions made by the query


@lru_cache(maxsize=1024)
def compile_query(expression: str) -> CompiledQuery:
    """Raises QueryRejected; the result depends only on the text, so it is cached."""
    tree, free = checked_tree(expression)
    return rewritten(tree, free, Rewriter())


def checked_tree(expression: str) -> tuple[ast.Expression, tuple[tuple[str, int, int], ...]]:
    """The parsed, checked expression and its free names; raises QueryRejected."""
    if len(expression) > P.MAX_EXPRESSION_CHARS:
        raise QueryRejected("forbidden", f"expression is {len(expression):,} characters "
                            f"(limit {P.MAX_EXPRESSION_CHARS:,})")
    try:  # parenthesised so an expression may span lines
        tree = ast.parse(f"(\n{expression}\n)", FILENAME, mode="eval")
    except SyntaxError as error:
        last = expression.count("\n") + 1
        line = None if error.lineno is None else min(max(error.lineno - 1, 1), last)
        raise QueryRejected("syntax", error.msg, line, error.offset) from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise QueryRejected("syntax", f"cannot parse: {error}") from None
    if _is_empty(tree):
        raise QueryRejected("syntax", "the expression is empty")
    ast.increment_lineno(tree, -1)
    return tree, _check(tree)


def rewritten(tree: ast.Expression, free: tuple[tuple[str, int, int], ...],
              rewriter: Rewriter) -> CompiledQuery:
    """Compile a checked tree once `rewriter` has routed it through the guards."""
    tree = ast.fix_missing_locations(rewriter.visit(tree))
    code = compile(tree, FILENAME, "eval", dont_inherit=True)
    return CompiledQuery(code, free, frozenset(_nested_codes(code)))


def _is_empty(tree: ast.Expression) -> bool:
    """Only blanks or comments: what parses is the `()` our own wrapping parentheses make."""
    body = tree.body
    return (isinstance(body, ast.Tuple) and not body.elts
            and (body.lineno, body.col_offset) == (1, 0))


def _reject(node: ast.AST, message: str) -> QueryRejected:
    line = getattr(node, "lineno", None)
    column = getattr(node, "col_offset", None)
    return QueryRejected("forbidden", message, line, None if column is None else column + 1)


def _check(tree: ast.Expression) -> tuple[tuple[str, int, int], ...]:
    """Walk iteratively (no recursion limit to hit); return the free names."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    count = 0
    loads: list[ast.Name] = []
    bound: set[str] = set()
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > P.MAX_AST_NODES:
            raise _reject(node, f"expression has over {P.MAX_AST_NODES} parts")
        if depth > P.MAX_AST_DEPTH:
            raise _reject(node, f"expression nests deeper than {P.MAX_AST_DEPTH} levels")
        if type(node) not in P.ALLOWED_NODES:
            word = _NODE_WORDS.get(type(node), type(node).__name__)
            raise _reject(node, f"{word} is not allowed in a query")
        _check_node(node, loads, bound)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return tuple((n.id, n.lineno, n.col_offset + 1) for n in loads if n.id not in bound)


def _check_node(node: ast.AST, loads: list[ast.Name], bound: set[str]) -> None:
    identifier = None
    if isinstance(node, ast.Name):
        identifier = node.id
        if isinstance(node.ctx, ast.Load):
            loads.append(node)
        else:
            bound.add(node.id)
    elif isinstance(node, ast.Attribute):
        identifier = node.attr
    elif isinstance(node, ast.arg):
        identifier = node.arg
        bound.add(node.arg)
    elif isinstance(node, ast.keyword):
        identifier = node.arg
    if identifier is not None and identifier.startswith("_") and identifier != "_":
        raise _reject(node, f"names starting with '_' are not allowed ({identifier})")
    if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
        raise _reject(node, "assignment is not allowed in a query")
    if isinstance(node, ast.comprehension):
        if node.is_async:
            raise _reject(node, "async comprehensions are not allowed")
        for part in ast.walk(node.target):
            if not isinstance(part, (ast.Name, ast.Tuple, ast.List, ast.Starred, ast.Store)):
                raise _reject(part, "loop targets must be plain names")
    if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
        _check_format_spec(node.format_spec)


def _check_format_spec(spec: ast.expr) -> None:
    pieces = spec.values if isinstance(spec, ast.JoinedStr) else [spec]
    if not all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in pieces):
        raise _reject(spec, "f-string format specs must be plain text")
    text = "".join(str(p.value) for p in pieces if isinstance(p, ast.Constant))
    if len(text) > P.MAX_FORMAT_SPEC_CHARS or _DIGIT_RUN.search(text):
        raise _reject(spec, f"f-string format spec {text!r} is too wide")


def guard_call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def attribute_chain(node: ast.Attribute) -> tuple[ast.expr, list[str]]:
    """`x.a.b` -> (x, ['a', 'b'])."""
    names: list[str] = []
    base: ast.expr = node
    while isinstance(base, ast.Attribute):
        names.append(base.attr)
        base = base.value
    return base, names[::-1]


def name_tuple(names: list[str]) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())  # folded by compile


def guarded_path(base: ast.expr, names: list[str]) -> ast.expr:
    """`base.a.b` read through the guard (`base` itself when `names` is empty)."""
    if not names:
        return base
    if len(names) == 1:
        return guard_call("_q_attr", base, ast.Constant(names[0]))
    return guard_call("_q_path", base, name_tuple(names))


def guarded_method(base: ast.expr, chain: list[str], last: str) -> ast.expr:
    """`base.a.m` about to be called, through the guard (`chain` = ["a"], `last` = "m")."""
    if not chain:
        return guard_call("_q_method", base, ast.Constant(last))
    return guard_call("_q_method_path", base, name_tuple(chain), ast.Constant(last))


def loop_guarded(iterable: ast.expr) -> ast.expr:
    return ast.copy_location(guard_call("_q_loop", iterable), iterable)


class Rewriter(ast.NodeTransformer):
    """Sends every attribute, call, loop and size-growing operator through a guard.

    `reach` and `reach_method` are where a subclass may leave out a check it has proven
    needless (runtime.query_shapes)."""

    def reach(self, base: ast.expr, names: list[str]) -> ast.expr:
        """`base.names[0].names[1]...`, `base` not yet visited."""
        return guarded_path(self.visit(base), names)

    def reach_method(self, base: ast.expr, chain: list[str], last: str) -> ast.expr:
        """`base.chain....last` about to be called, `base` not yet visited."""
        return guarded_method(self.visit(base), chain, last)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        base, names = attribute_chain(node)
        return ast.copy_location(self.reach(base, names), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        if isinstance(func, ast.Attribute):
            base, names = attribute_chain(func)
            checked = self.reach_method(base, names[:-1], names[-1])
        else:
            checked = guard_call("_q_call", self.visit(func))
        node.func = ast.copy_location(checked, func)
        node.args = [self.visit(a) for a in node.args]
        node.keywords = [self.visit(k) for k in node.keywords]
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        node.iter = loop_guarded(node.iter)
        return node

    def visit_Starred(self, node: ast.Starred) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            node.value = ast.copy_location(guard_call("_q_consume", node.value), node.value)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        guard = _BINOP_GUARDS.get(type(node.op))
        if guard is None:
            return node
        return ast.copy_location(guard_call(guard, node.left, node.right), node)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        self.generic_visit(node)
        node.value = ast.copy_location(guard_call("_q_formatted", node.value), node.value)
        return node


def _nested_codes(code: CodeType) -> list[CodeType]:
    found = []
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found.append(const)
            found.extend(_nested_codes(const))
    return found

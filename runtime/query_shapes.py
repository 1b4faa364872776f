"""Guard checks a fixed namespace makes needless, proven once and left out of the compiled query.

A query worker's child evaluates every query over the same namespace, which no query can
change (no assignment, no mutating method is reachable). Over it, `NamespaceShapes` proves,
once per child and lazily:

- that a namespace list (exactly `list`) holds items all of one exact type `C`, a record class
  or a type of the allowlist (`str`, `date`, ...);
- that a dataclass field of those items (or of a record the namespace holds) holds values all
  of one exact type `T` (computed from the data: one pass over the list per field asked for).

`ShapedRewriter` then compiles `t.f` plainly, with no `_q_attr` call, wherever `t` is proven
to be exactly of a type `K` and `f` is among the attributes `Guard.attr` reads at once for
`K` (`query_guard.attribute_table`): the guard would have called `getattr(t, "f")` and
nothing else, so the answer, the errors and the budget (attribute reads never count as work)
are the same. `t` is proven when it is the target of `for t in NAME` over such a list, NAME
being the namespace's (not a lambda's or comprehension's name shadowing it), the parameter of
the key lambda in `max(NAME, key=lambda t: ...)` (`min`, `sorted`: the builtins call it with
the list's items only), or a record the namespace holds; `t.f` is proven by the field's
proof. `s.m(...)` on a proven `s` skips `_q_method` when `m` is in the allowlist of `s`'s
type, and `s.lower()` (`STR_RESULTS`) on a proven `str` is a proven `str`. Anything not
proven keeps its guard; loops, calls and operators keep theirs.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MemberDescriptorType
from typing import Final

from runtime import query_policy as P
from runtime.query_compile import (
    CompiledQuery,
    Rewriter,
    attribute_chain,
    checked_tree,
    guarded_method,
    guarded_path,
    loop_guarded,
    rewritten,
)
from runtime.query_guard import attribute_table

MAX_COMPILED: Final = 256  # specialised queries kept per namespace
# Query builtins (runtime.query_builtins) that, given one iterable and `key=`, call the key
# with the iterable's items and nothing else, and never hand the key on.
KEYED_BUILTINS: Final = frozenset({"min", "max", "sorted"})
# `str` methods (all in the allowlist) whose result, for an exact `str`, is an exact `str`.
STR_RESULTS: Final = frozenset({
    "lower", "upper", "title", "capitalize", "casefold", "swapcase",
    "strip", "lstrip", "rstrip", "removeprefix", "removesuffix",
})
_Comprehension = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp


@dataclass(frozen=True)
class Known:
    """Every value the expression can take is exactly of type `kind`; with `domain`, it is
    moreover one of the items of the namespace's list `domain` (or the record `domain`)."""

    kind: type
    domain: str | None = None


def public_names(namespace: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in namespace.items() if not k.startswith("_")}


def record_classes(public: Mapping[str, object]) -> set[type]:
    """Dataclasses and enums the namespace exports or holds at its top level."""
    found: set[type] = set()
    for value in public.values():
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, type):
            if dataclasses.is_dataclass(value) or issubclass(value, Enum):
                found.add(value)
        elif dataclasses.is_dataclass(value) or isinstance(value, Enum):
            found.add(type(value))
    return found


class NamespaceShapes:
    """Proofs over one namespace that stays as it is (a query worker's child holds one)."""

    def __init__(self, namespace: Mapping[str, object]) -> None:
        self.namespace = namespace
        self.public = public_names(namespace)
        self.record_classes = frozenset(record_classes(self.public))
        self.table = attribute_table(self.record_classes)
        self._items: dict[str, Known | None] = {}
        self._fields: dict[tuple[str, str], type | None] = {}
        self._compiled: dict[str, CompiledQuery] = {}

    def compile(self, expression: str) -> CompiledQuery:
        """The expression checked and rewritten with the proven checks left out; raises
        `QueryRejected` exactly as `compile_query` does."""
        compiled = self._compiled.get(expression)
        if compiled is None:
            tree, free = checked_tree(expression)
            compiled = rewritten(tree, free, ShapedRewriter(self))
            if len(self._compiled) >= MAX_COMPILED:
                del self._compiled[next(iter(self._compiled))]
            self._compiled[expression] = compiled
        return compiled

    def items(self, name: str) -> Known | None:
        """What iterating the namespace's `name` yields, if proven."""
        if name not in self._items:
            value = self.public.get(name)
            known = None
            if type(value) is list and value:
                kind = type(value[0])
                if kind in self.table and all(type(item) is kind for item in value):
                    known = Known(kind, name)
            self._items[name] = known
        return self._items[name]

    def value(self, name: str) -> Known | None:
        """The namespace's `name` itself, if it is a record."""
        value = self.public.get(name)
        kind = type(value)
        return Known(kind, name) if kind in self.record_classes else None

    def field(self, owner: Known, name: str) -> Known | None:
        """`x.name` for every `x` of `owner`: the one exact type its values have, if proven."""
        domain = owner.domain
        if domain is None or not _stored_field(owner.kind, name):
            return None
        key = (domain, name)
        if key not in self._fields:
            value = self.public[domain]
            records = value if type(value) is list else [value]
            kinds = {type(getattr(record, name, _Missing())) for record in records}
            self._fields[key] = kinds.pop() if len(kinds) == 1 and _Missing not in kinds else None
        kind = self._fields[key]
        return None if kind is None else Known(kind)


def _stored_field(kind: type, name: str) -> bool:
    """A dataclass field read straight from the instance: no property or other descriptor
    of the class computes it (its value could change from one read to the next)."""
    if not dataclasses.is_dataclass(kind) or name not in {f.name for f in dataclasses.fields(kind)}:
        return False
    found = inspect.getattr_static(kind, name, None)
    return isinstance(found, MemberDescriptorType) or not hasattr(type(found), "__get__")


class _Missing:
    """Stands for an attribute a record does not have (never proven)."""


class ShapedRewriter(Rewriter):
    """`Rewriter` that tracks which names are proven (`scope`, innermost binding wins)."""

    def __init__(self, shapes: NamespaceShapes) -> None:
        self.shapes = shapes
        self.scope: dict[str, Known | None] = {}  # names bound by lambdas and comprehensions
        self.keys: dict[int, Known] = {}  # id of a key lambda -> what its parameter is

    def known(self, node: ast.expr) -> Known | None:
        """What `node` (not yet rewritten) is, if proven: a name, or `s.lower()` and the like
        on a proven exact `str`."""
        if isinstance(node, ast.Name):
            if node.id in self.scope:
                return self.scope[node.id]
            return self.shapes.value(node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base, names = attribute_chain(node.func)
            owner = self.known(base)
            for name in names[:-1]:
                if owner is None or name not in self.shapes.table.get(owner.kind, ()):
                    return None
                owner = self.shapes.field(owner, name)
            if owner is not None and owner.kind is str and names[-1] in STR_RESULTS:
                return Known(str)
        return None

    def plain(self, base: ast.expr, known: Known | None, names: list[str], then: bool
              ) -> tuple[ast.expr, Known | None, list[str]]:
        """Read the proven prefix of `base.names...` plainly; return it, what it is (proven
        only if something is read from it `then`), and the names left."""
        for index, name in enumerate(names):
            if known is None or name not in self.shapes.table.get(known.kind, ()):
                return base, None, names[index:]
            base = ast.copy_location(ast.Attribute(value=base, attr=name, ctx=ast.Load()), base)
            known = self.shapes.field(known, name) if then or index + 1 < len(names) else None
        return base, known, []

    def reach(self, base: ast.expr, names: list[str]) -> ast.expr:
        known = self.known(base)
        done, _, rest = self.plain(self.visit(base), known, names, then=False)
        return guarded_path(done, rest)

    def reach_method(self, base: ast.expr, chain: list[str], last: str) -> ast.expr:
        known = self.known(base)
        done, owner, rest = self.plain(self.visit(base), known, chain, then=True)
        if not rest and owner is not None and last in P.READ_ATTRIBUTES.get(owner.kind, ()):
            return ast.copy_location(ast.Attribute(value=done, attr=last, ctx=ast.Load()), done)
        return guarded_method(done, rest, last)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        """`max(NAME, key=lambda t: ...)` (or `min`, `sorted`) over a proven namespace list:
        the key is called with the list's items only, so `t` is proven in its body."""
        func, args = node.func, node.args
        if isinstance(func, ast.Name) and func.id in KEYED_BUILTINS and not self.bound(func.id) \
                and len(args) == 1 and isinstance(args[0], ast.Name) and not self.bound(args[0].id):
            items = self.shapes.items(args[0].id)
            for keyword in node.keywords:
                if items is not None and keyword.arg == "key" and _one_parameter(keyword.value):
                    self.keys[id(keyword.value)] = items
        return super().visit_Call(node)

    def bound(self, name: str) -> bool:
        """`name` is not the builtin or the namespace's: a lambda or comprehension binds it,
        or (for a builtin's name) the namespace holds one of that name."""
        return name in self.scope or (name in KEYED_BUILTINS and name in self.shapes.public)

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        args = node.args
        args.defaults = [self.visit(d) for d in args.defaults]  # evaluated where it stands
        args.kw_defaults = [None if d is None else self.visit(d) for d in args.kw_defaults]
        bound = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        outer = self.scope
        self.scope = {**outer, **{a.arg: None for a in bound if a is not None}}
        key = self.keys.pop(id(node), None)
        if key is not None:
            self.scope[args.args[0].arg] = key
        node.body = self.visit(node.body)
        self.scope = outer
        return node

    def visit_comprehension_owner(self, node: _Comprehension) -> ast.AST:
        """Each iterable sees the targets bound before it (none, for the first: it is
        evaluated outside), each condition and the element the targets bound so far."""
        outer = self.scope
        self.scope = inner = dict(outer)
        for generator in node.generators:
            iterable = generator.iter
            items = self.shapes.items(iterable.id) \
                if isinstance(iterable, ast.Name) and iterable.id not in self.scope else None
            generator.iter = loop_guarded(self.visit(iterable))
            target = generator.target
            if isinstance(target, ast.Name):
                inner[target.id] = items
            else:
                inner.update((n.id, None) for n in ast.walk(target) if isinstance(n, ast.Name))
            generator.ifs = [self.visit(condition) for condition in generator.ifs]
        if isinstance(node, ast.DictComp):
            node.key, node.value = self.visit(node.key), self.visit(node.value)
        else:
            node.elt = self.visit(node.elt)
        self.scope = outer
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_comprehension_owner


def _one_parameter(node: ast.expr) -> bool:
    """`lambda t: ...`, whose first positional parameter is `t` (the key is called with one
    item, which binds there, whatever other parameters or defaults the lambda has)."""
    return isinstance(node, ast.Lambda) and len(node.args.args) == 1 and not node.args.posonlyargs

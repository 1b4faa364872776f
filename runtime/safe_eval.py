"""Evaluate one untrusted Python expression over a user's typed memory.

`evaluate` never raises: it returns `QuerySuccess` or `QueryFailure`. The expression
is checked and rewritten (query_compile), then run with only the allowlisted
names (query_builtins) and with every attribute, call, loop and size-growing
operator checked at run time (query_guard). Work is bounded by a deadline and
a memory budget polled during iteration; sizes of strings, sequences, ranges
and integers are checked before they are built.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from time import perf_counter
from types import TracebackType
from typing import Literal

from factlog.results import Failure, Success
from runtime.query_builtins import query_builtins
from runtime.query_compile import FILENAME, QueryRejected, compile_query
from runtime.query_guard import Guard, QueryForbidden, QueryMemory, QueryTimeout
from runtime.query_shapes import NamespaceShapes, public_names, record_classes

ErrorKind = Literal["syntax", "forbidden", "timeout", "memory", "too_large", "runtime"]
_BUILTIN_NAMES = frozenset(dir(builtins))
_PLAIN_ARGS = (str, int, float, bool, type(None))
_MAX_MESSAGE = 300


@dataclass(frozen=True)
class QuerySuccess(Success):
    value: object
    elapsed_ms: float


@dataclass(frozen=True)
class QueryFailure(Failure):
    """`line`/`column` are 1-based and point into the expression."""

    kind: ErrorKind
    message: str
    line: int | None = None
    column: int | None = None

    def describe(self) -> str:
        """One line for people: `query syntax (column 3): ...`, or `result too large: ...`."""
        if self.kind == "too_large":
            return self.message
        where = f" (column {self.column})" if self.column else ""
        return f"query {self.kind}{where}: {self.message}"


QueryResult = QuerySuccess | QueryFailure


def evaluate(expression: str, namespace: Mapping[str, object], *,
             time_limit_s: float = 1.0, memory_limit_mb: int = 256,
             shapes: NamespaceShapes | None = None) -> QueryResult:
    """Run `expression` over the public names of `namespace`. `shapes`, built over this very
    namespace, which must not change while it is used (a query worker's child), leaves out
    the checks it proves needless (runtime.query_shapes): same answers, errors and limits."""
    started = perf_counter()
    if shapes is not None and shapes.namespace is not namespace:
        raise ValueError("shapes were built over another namespace")
    try:
        compiled = compile_query(expression) if shapes is None else shapes.compile(expression)
    except QueryRejected as rejected:
        return QueryFailure(rejected.kind, rejected.message, rejected.line, rejected.column)
    public = public_names(namespace) if shapes is None else shapes.public
    classes = record_classes(public) if shapes is None else shapes.record_classes
    guard = Guard(time_limit_s=time_limit_s, memory_limit_mb=memory_limit_mb,
                  record_classes=classes, own_codes=compiled.own_codes)
    provided = query_builtins(guard)
    for name, line, column in compiled.free_names:
        if name not in public and name not in provided and name in _BUILTIN_NAMES:
            return QueryFailure("forbidden", f"name {name!r} is not available in queries",
                              line, column)
    scope: dict[str, object] = {
        "__builtins__": provided, **public,
        "_q_attr": guard.attr, "_q_path": guard.path, "_q_method": guard.method,
        "_q_method_path": guard.method_path, "_q_call": guard.call,
        "_q_loop": guard.loop, "_q_consume": guard.consume, "_q_add": guard.add,
        "_q_mul": guard.mul, "_q_pow": guard.pow, "_q_lshift": guard.lshift,
        "_q_mod": guard.mod, "_q_formatted": guard.formatted,
    }
    try:
        value = eval(compiled.code, scope)  # noqa: S307 - checked and guarded above
        if isinstance(value, Iterator):
            value = list(guard.consume(value))
    except QueryForbidden as error:
        return _error("forbidden", str(error), error)
    except QueryTimeout as error:
        return _error("timeout", f"{error} ({time_limit_s:g} s)", error)
    except QueryMemory as error:
        return _error("memory", str(error), error)
    except MemoryError as error:
        return _error("memory", "out of memory", error)
    except RecursionError as error:
        return _error("runtime", "RecursionError: recursion too deep", error)
    except Exception as error:  # the query's own failure, reported as data
        return _error("runtime", _describe(error), error)
    return QuerySuccess(value, (perf_counter() - started) * 1000)


def _describe(error: Exception) -> str:
    name = type(error).__name__
    if not all(isinstance(a, _PLAIN_ARGS) for a in error.args):
        return name  # never repr an arbitrary (maybe huge) value
    text = str(error)
    return f"{name}: {text[:_MAX_MESSAGE]}" if text else name


def _error(kind: ErrorKind, message: str, error: BaseException) -> QueryFailure:
    line, column = _position(error.__traceback__)
    return QueryFailure(kind, message, line, column)


def _position(trace: TracebackType | None) -> tuple[int | None, int | None]:
    """Source position of the innermost query frame in `trace`."""
    line: int | None = None
    column: int | None = None
    while trace is not None:
        code = trace.tb_frame.f_code
        if code.co_filename == FILENAME:
            positions = list(code.co_positions())
            index = trace.tb_lasti // 2
            if 0 <= index < len(positions):
                line, _, start, _ = positions[index]
                column = None if start is None else start + 1
        trace = trace.tb_next
    return line, column

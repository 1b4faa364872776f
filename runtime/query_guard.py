"""Runtime checks a compiled query calls into: attributes, calls, loops, sizes.

The rewritten expression (see query_compile) routes every attribute access,
every call, every comprehension iterable and every size-growing operator
through one `Guard`, which holds the deadline and memory budget of one run.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
from collections.abc import Callable, Iterable, Iterator
from enum import Enum
from itertools import chain, islice
from time import perf_counter
from types import BuiltinMethodType, CodeType, FunctionType, GeneratorType, MethodType
from typing import Any, cast

from runtime import query_policy as P


class QueryForbidden(Exception):
    """The query reached for something outside the allowlist."""


class QueryTimeout(Exception):
    """The query ran past its deadline."""


class QueryMemory(Exception):
    """The query would grow (or grew) past its memory budget."""


SIZED_TYPES: frozenset[type] = frozenset({
    list, tuple, str, bytes, range, dict, set, frozenset,
    type({}.keys()), type({}.values()), type({}.items()),
})
SCALAR_TYPES: frozenset[type] = frozenset({
    int, float, bool, complex, type(None), str, bytes,
} | set(P.HELPER_CLASSES.values()))
_SEQUENCES = (str, bytes, list, tuple)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int:
    """Current resident set size of this process (peak size where /proc is missing)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except OSError:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def structure_cost(value: object, limit: int) -> int:
    """Rough size of `value` printed out (chars); stops counting past `limit`."""
    stack = [value]
    cost = 0
    while stack and cost <= limit:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bytes:
            cost += len(item)  # type: ignore[arg-type]
            continue
        cost += 8
        if kind in (list, tuple, set, frozenset):
            stack.extend(cast("Iterable[object]", item))
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
    return cost


def _record_attributes(cls: type) -> frozenset[str]:
    """Public fields and properties of a dataclass; `name`/`value` for enums."""
    if not dataclasses.is_dataclass(cls):  # an Enum
        return P.ENUM_MEMBER_ATTRIBUTES
    names = {f.name for f in dataclasses.fields(cls)}
    for klass in cls.__mro__:
        names.update(n for n, v in vars(klass).items() if isinstance(v, property))
    return frozenset(n for n in names if not n.startswith("_"))


def attribute_table(record_classes: Iterable[type]) -> dict[type, frozenset[str]]:
    """The attributes `Guard.attr` reads at once, by exact type of the object: the allowlist
    of `query_policy.READ_ATTRIBUTES`, and each record class's public fields and properties."""
    table = dict(P.READ_ATTRIBUTES)
    for cls in record_classes:
        table[cls] = _record_attributes(cls)
    return table


class Guard:
    """Checks and budget for one evaluation."""

    def __init__(self, *, time_limit_s: float, memory_limit_mb: int,
                 record_classes: Iterable[type], own_codes: frozenset[CodeType]) -> None:
        self.deadline = perf_counter() + time_limit_s
        self.memory_limit = memory_limit_mb * 1024 * 1024
        self.memory_base = resident_bytes()
        self.next_memory_poll = perf_counter() + P.MEMORY_POLL_S
        self.work = 0
        self.next_check = P.WORK_PER_CHECK
        self.own_codes = own_codes
        self.record_classes = set(record_classes)
        self.record_modules = {c.__module__ for c in self.record_classes}
        self.methods: dict[type, frozenset[str]] = dict(P.READ_ATTRIBUTES)
        self.fast = attribute_table(self.record_classes)
        self.allowed_ids: set[int] = set()
        self.statistics: dict[str, Callable[..., object]] = {}

    def allow(self, *callables: object) -> None:
        """Mark callables (kept alive by the caller) as callable from the query."""
        self.allowed_ids.update(id(c) for c in callables)

    # --- budget -----------------------------------------------------------
    def check(self) -> None:
        now = perf_counter()
        if now > self.deadline:
            raise QueryTimeout("the query ran past its time limit")
        if now >= self.next_memory_poll:
            self.next_memory_poll = now + P.MEMORY_POLL_S
            grown = resident_bytes() - self.memory_base
            if grown > self.memory_limit:
                raise QueryMemory(f"the query used over {self.memory_limit >> 20} MB")

    def tick(self, work: int) -> None:
        self.work += work
        if self.work >= self.next_check:
            self.next_check = self.work + P.WORK_PER_CHECK
            self.check()

    def grow(self, sample: object, size: int) -> None:
        """Refuse to build a str/bytes/list/tuple of `size` chars or items past the limits."""
        text = isinstance(sample, (str, bytes))
        limit = P.MAX_STRING_CHARS if text else P.MAX_SEQUENCE_ITEMS
        if size > limit:
            unit = "characters" if text else "items"
            raise QueryMemory(f"result would have {size:,} {unit} (limit {limit:,})")
        self.tick(size)

    # --- attributes and calls ---------------------------------------------
    def attr(self, obj: object, name: str) -> object:
        allowed = self.fast.get(type(obj))
        if allowed is not None and name in allowed:
            return getattr(obj, name)
        return self._attr_slow(obj, name)

    def path(self, obj: object, names: tuple[str, ...]) -> object:
        """`obj.a.b.c` in one call (calls are what cost; chains are common)."""
        fast = self.fast
        for name in names:
            allowed = fast.get(type(obj))
            obj = getattr(obj, name) if allowed is not None and name in allowed \
                else self._attr_slow(obj, name)
        return obj

    def method(self, obj: object, name: str) -> object:
        """`obj.name` about to be called: a record field holding a callable is checked."""
        allowed = self.methods.get(type(obj))
        if allowed is not None and name in allowed:
            return getattr(obj, name)
        value = self.attr(obj, name)
        return self.call(value) if type(obj) in self.record_classes else value

    def method_path(self, obj: object, chain: tuple[str, ...], last: str) -> object:
        """`obj.a.m` about to be called (`chain` = ("a",), `last` = "m"); `path` and `method`
        inlined, the split made at compile time (hot in loops)."""
        fast = self.fast
        for name in chain:
            allowed = fast.get(type(obj))
            obj = getattr(obj, name) if allowed is not None and name in allowed \
                else self._attr_slow(obj, name)
        allowed = self.methods.get(type(obj))
        if allowed is not None and last in allowed:
            return getattr(obj, last)
        return self.method(obj, last)

    def _attr_slow(self, obj: object, name: str) -> object:
        kind = type(obj)
        if name.startswith("_"):
            raise QueryForbidden(f"attribute {name!r} is not allowed")
        if obj is statistics and name in self.statistics:
            return self.statistics[name]
        if isinstance(obj, type):
            if name in P.CLASS_ATTRIBUTES.get(obj, ()):
                return getattr(obj, name)
            if issubclass(obj, Enum) and obj in self.record_classes and name in obj.__members__:
                return obj[name]
            raise QueryForbidden(f"attribute {name!r} of class {obj.__name__} is not allowed")
        if self._adopt_record(kind):
            return self.attr(obj, name)
        if isinstance(obj, str) and name in P.BOUNDED_STR_METHODS \
                and getattr(kind, name) is getattr(str, name):
            return BoundedStrMethod(self, obj, name)
        for base in kind.__mro__:
            if name in P.READ_ATTRIBUTES.get(base, ()) \
                    and getattr(kind, name, None) is getattr(base, name):
                return getattr(obj, name)
        raise QueryForbidden(f"attribute {name!r} of {kind.__name__} is not allowed")

    def _adopt_record(self, kind: type) -> bool:
        """Records nested in the namespace's records: same module, so same trust."""
        if kind in self.fast or kind.__module__ not in self.record_modules:
            return False
        if not (dataclasses.is_dataclass(kind) or issubclass(kind, Enum)):
            return False
        self.record_classes.add(kind)
        self.fast[kind] = _record_attributes(kind)
        return True

    def call(self, func: Any) -> Any:
        """Return `func` if the query may call it, else raise."""
        if id(func) in self.allowed_ids:
            return func
        self.tick(1)
        kind = type(func)
        if kind is FunctionType and func.__code__ in self.own_codes:
            return func
        if kind is BoundedStrMethod:
            return func
        if isinstance(func, type) and (func in self.record_classes or self._adopt_record(func)):
            return func
        if kind is MethodType or kind is BuiltinMethodType:
            owner, name = func.__self__, func.__name__
            try:
                if not name.startswith("_") and self.attr(owner, name) == func:
                    return func
            except QueryForbidden:
                pass
        what = getattr(func, "__name__", None) or f"a {kind.__name__} value"
        raise QueryForbidden(f"calling {what} is not allowed")

    # --- iteration --------------------------------------------------------
    def loop(self, iterable: Iterable[Any]) -> Iterable[Any]:
        """Comprehension iterable: checked every few items, at C speed for containers."""
        kind = type(iterable)
        if kind in SIZED_TYPES or isinstance(iterable, dict):
            size = len(iterable)  # type: ignore[arg-type]
            self.tick(size)
            if size <= P.ITERATION_CHUNK:
                return iterable
            return chain.from_iterable(self._chunks(iter(iterable), size))
        if kind is GeneratorType and iterable.gi_code in self.own_codes:  # type: ignore[attr-defined]
            return iterable
        return self._checked(iter(iterable))

    def consume(self, iterable: Iterable[Any]) -> Iterable[Any]:
        """Argument a builtin iterates in C: containers pass, other iterators are checked."""
        kind = type(iterable)
        if kind in SIZED_TYPES or isinstance(iterable, dict):
            self.tick(len(iterable))  # type: ignore[arg-type]
            return iterable
        if kind is GeneratorType and iterable.gi_code in self.own_codes:  # type: ignore[attr-defined]
            return iterable
        return self._checked(iter(iterable))

    def _chunks(self, items: Iterator[object], size: int) -> Iterator[Iterator[object]]:
        for _ in range(0, size, P.ITERATION_CHUNK):
            self.check()
            yield islice(items, P.ITERATION_CHUNK)

    def _checked(self, items: Iterator[object]) -> Iterator[object]:
        count = 0
        for item in items:
            count += 1
            if count == P.ITERATION_CHUNK:
                count = 0
                self.tick(P.ITERATION_CHUNK)
                self.check()
            yield item

    # --- size-growing operators -------------------------------------------
    def add(self, left: Any, right: Any) -> Any:
        if isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
            self.grow(left, len(left) + len(right))
        return left + right

    def mul(self, left: Any, right: Any) -> Any:
        if isinstance(left, int) and isinstance(right, int):
            if left.bit_length() + right.bit_length() > P.MAX_INT_BITS:
                raise QueryMemory(f"integer product over {P.MAX_INT_BITS:,} bits")
        elif isinstance(left, _SEQUENCES) and isinstance(right, int):
            self._repeat(left, right)
        elif isinstance(right, _SEQUENCES) and isinstance(left, int):
            self._repeat(right, left)
        return left * right

    def _repeat(self, seq: Any, times: int) -> None:
        times = max(times, 0)
        self.grow(seq, len(seq) * times)
        if not isinstance(seq, (str, bytes)) and any(type(i) not in SCALAR_TYPES for i in seq):
            cost = structure_cost(seq, P.MAX_STRING_CHARS) * times
            if cost > P.MAX_STRING_CHARS:
                raise QueryMemory("repeated nested structure is too large")

    def pow(self, base: Any, exponent: Any) -> Any:
        if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
            if exponent * (abs(base).bit_length() - 1) > P.MAX_INT_BITS:
                raise QueryMemory(f"power result over {P.MAX_INT_BITS:,} bits")
        return base ** exponent

    def lshift(self, value: Any, count: Any) -> Any:
        if isinstance(value, int) and isinstance(count, int) \
                and value and value.bit_length() + count > P.MAX_INT_BITS:
            raise QueryMemory(f"shift result over {P.MAX_INT_BITS:,} bits")
        return value << count

    def mod(self, left: Any, right: Any) -> Any:
        if isinstance(left, (str, bytes)):
            raise QueryForbidden("%-formatting is not allowed; use an f-string")
        return left % right

    def formatted(self, value: object) -> object:
        """Value placed in an f-string: its text must stay within the string limit."""
        if type(value) not in SCALAR_TYPES and \
                structure_cost(value, P.MAX_STRING_CHARS) > P.MAX_STRING_CHARS:
            raise QueryMemory("value is too large to turn into text")
        return value


class BoundedStrMethod:
    """A growing `str` method (`ljust`, `replace`, `join`, ...) with its result size checked first."""

    __slots__ = ("_guard", "_text", "_name")

    def __init__(self, guard: Guard, text: str, name: str) -> None:
        self._guard, self._text, self._name = guard, text, name

    def __call__(self, *args: Any) -> Any:
        text, name = self._text, self._name
        size = 0
        if name == "join" and len(args) == 1:
            parts = list(self._guard.consume(args[0]))
            size = sum(len(p) for p in parts if isinstance(p, str))
            size += len(text) * max(len(parts) - 1, 0)
            args = (parts,)
        elif name == "replace" and len(args) >= 2 \
                and isinstance(args[0], str) and isinstance(args[1], str):
            old, new = args[0], args[1]
            hits = text.count(old) if old else len(text) + 1
            if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
                hits = min(hits, args[2])
            size = len(text) + hits * (len(new) - len(old))
        elif args and isinstance(args[0], int):  # ljust, rjust, center, zfill
            size = args[0]
        self._guard.grow(text, size)
        return getattr(text, name)(*args)

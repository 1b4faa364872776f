"""The names a query sees besides its namespace: bounded builtins and helpers."""

from __future__ import annotations

import builtins
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import timedelta
from decimal import Decimal
from typing import Any

from runtime import query_policy as P
from runtime.query_guard import Guard, QueryMemory

_TWO_DATA_ARGS = frozenset({"correlation", "covariance"})
_C_IMPORTS = frozenset({"time"})  # `date.today()` and `strftime` import it from C


def _import(name: str, *args: Any, **kwargs: Any) -> Any:
    """`__import__` for C code that imports while a query runs; unreachable from queries."""
    if name not in _C_IMPORTS:
        raise ImportError("imports are not allowed in queries")
    return builtins.__import__(name, *args, **kwargs)


def query_builtins(guard: Guard) -> dict[str, object]:
    """Build the `__builtins__` of one evaluation and register its callables with `guard`."""
    consume, loop = guard.consume, guard.loop

    def one_iterable(args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (consume(args[0]),) if len(args) == 1 else args

    def sum_(iterable: Iterable[Any], /, start: Any = 0) -> Any:
        if not isinstance(start, (int, float, Decimal, timedelta)):
            raise TypeError("sum() start must be a number or a timedelta")
        return sum(consume(iterable), start)

    def min_(*args: Any, **kwargs: Any) -> Any:
        return min(*one_iterable(args), **kwargs)

    def max_(*args: Any, **kwargs: Any) -> Any:
        return max(*one_iterable(args), **kwargs)

    def sorted_(iterable: Iterable[Any], /, **kwargs: Any) -> list[Any]:
        return sorted(consume(iterable), **kwargs)

    def list_(iterable: Iterable[Any] = (), /) -> list[Any]:
        return list(consume(iterable))

    def tuple_(iterable: Iterable[Any] = (), /) -> tuple[Any, ...]:
        return tuple(consume(iterable))

    # Hashing containers go through `loop` so a slow (colliding) build is checked.
    def set_(iterable: Iterable[Any] = (), /) -> set[Any]:
        return set(loop(iterable))

    def frozenset_(iterable: Iterable[Any] = (), /) -> frozenset[Any]:
        return frozenset(loop(iterable))

    def dict_(*args: Any, **kwargs: Any) -> dict[Any, Any]:
        if args and not isinstance(args[0], dict):
            args = (loop(args[0]),)
        return dict(*args, **kwargs)

    def counter(*args: Any, **kwargs: Any) -> Counter[Any]:
        if args and not isinstance(args[0], dict):
            args = (loop(args[0]),)
        return Counter(*args, **kwargs)

    def any_(iterable: Iterable[Any], /) -> bool:
        return any(consume(iterable))

    def all_(iterable: Iterable[Any], /) -> bool:
        return all(consume(iterable))

    def enumerate_(iterable: Iterable[Any], start: int = 0) -> enumerate[Any]:
        return enumerate(consume(iterable), start)

    def zip_(*iterables: Iterable[Any], strict: bool = False) -> zip[Any]:
        return zip(*(consume(i) for i in iterables), strict=strict)

    def range_(*args: int) -> range:
        result = range(*args)
        try:
            size = len(result)
        except OverflowError:
            size = P.MAX_RANGE_LEN + 1
        if size > P.MAX_RANGE_LEN:
            raise QueryMemory(f"range of {size:,} numbers (limit {P.MAX_RANGE_LEN:,})")
        return result

    def round_(number: Any, ndigits: int | None = None) -> Any:
        if ndigits is None:
            return round(number)
        if isinstance(ndigits, int) and abs(ndigits) > P.MAX_ROUND_DIGITS:
            raise ValueError(f"round() digits beyond ±{P.MAX_ROUND_DIGITS}")
        return round(number, ndigits)

    def str_(*args: Any) -> str:
        if args:
            guard.formatted(args[0])
        return str(*args)

    def int_(*args: Any) -> int:
        if args and isinstance(args[0], Decimal) and args[0].is_finite() \
                and args[0].adjusted() > 4300:
            raise ValueError("int() of a Decimal over 4300 digits")
        return int(*args)

    names: dict[str, object] = {name: getattr(builtins, name) for name in P.PLAIN_BUILTINS}
    names.update(P.HELPER_CLASSES)
    names.update({
        "sum": sum_, "min": min_, "max": max_, "sorted": sorted_, "list": list_,
        "tuple": tuple_, "set": set_, "frozenset": frozenset_, "dict": dict_,
        "Counter": counter, "any": any_, "all": all_, "enumerate": enumerate_,
        "zip": zip_, "range": range_, "round": round_, "str": str_, "int": int_,
        "statistics": statistics,
    })
    guard.statistics = {name: _statistic(guard, name) for name in P.STATISTICS_FUNCTIONS}
    guard.allow(*names.values(), *guard.statistics.values())
    names["__import__"] = _import
    return names


def _statistic(guard: Guard, name: str) -> Callable[..., Any]:
    function = getattr(statistics, name)
    data_args = 2 if name in _TWO_DATA_ARGS else 1

    def call(*args: Any, **kwargs: Any) -> Any:
        n = kwargs.get("n")
        if isinstance(n, int) and n > P.MAX_QUANTILES:
            raise ValueError(f"quantiles n beyond {P.MAX_QUANTILES}")
        data = tuple(guard.consume(a) if i < data_args else a for i, a in enumerate(args))
        return function(*data, **kwargs)

    call.__name__ = name
    return call

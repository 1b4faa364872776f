"""What a query expression may contain and reach, kept as data.

Everything here is an allowlist: syntax, builtin names, methods by value type,
class attributes, `statistics` functions. Anything not listed is refused.
Limits bound the work and memory one query can cause.
"""

from __future__ import annotations

import ast
from collections import Counter
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Final

# --- limits ---------------------------------------------------------------
MAX_EXPRESSION_CHARS: Final = 2_000
MAX_AST_NODES: Final = 600
MAX_AST_DEPTH: Final = 40
MAX_RANGE_LEN: Final = 1_000_000
MAX_SEQUENCE_ITEMS: Final = 1_000_000  # list/tuple made by *, +, join, ...
MAX_STRING_CHARS: Final = 1_000_000  # also bounds text made by str()/f-strings
MAX_INT_BITS: Final = 100_000
MAX_ROUND_DIGITS: Final = 100
MAX_QUANTILES: Final = 1_000
MAX_FORMAT_SPEC_CHARS: Final = 30
MAX_FORMAT_SPEC_DIGITS: Final = 3  # widths/precisions below 1000
ITERATION_CHUNK: Final = 64  # items between deadline checks
WORK_PER_CHECK: Final = 20_000  # work units between deadline checks
MEMORY_POLL_S: Final = 0.005  # at most one RSS read per 5 ms

# --- syntax ---------------------------------------------------------------
ALLOWED_NODES: Final[frozenset[type[ast.AST]]] = frozenset({
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Store,
    ast.Attribute, ast.Subscript, ast.Slice, ast.Starred,
    ast.Tuple, ast.List, ast.Set, ast.Dict,
    ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.Call, ast.keyword, ast.Lambda, ast.arguments, ast.arg,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.comprehension,
    ast.JoinedStr, ast.FormattedValue,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.LShift, ast.RShift, ast.BitOr, ast.BitAnd, ast.BitXor,
    ast.UAdd, ast.USub, ast.Not, ast.Invert, ast.And, ast.Or,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
    ast.Is, ast.IsNot, ast.In, ast.NotIn,
})

# --- names ----------------------------------------------------------------
# Plain builtins handed over as they are (they cannot grow memory or loop). The others a
# query may call (sum, min, max, sorted, list, dict, range, Counter, ...) are bounded
# wrappers defined in query_builtins.
PLAIN_BUILTINS: Final = ("len", "abs", "bool", "float", "reversed")
HELPER_CLASSES: Final[dict[str, type]] = {
    "date": date, "datetime": datetime, "time": time, "timedelta": timedelta,
    "Decimal": Decimal,
}
STATISTICS_FUNCTIONS: Final = frozenset({
    "mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low",
    "median_high", "median_grouped", "mode", "multimode", "stdev", "pstdev",
    "variance", "pvariance", "quantiles", "correlation", "covariance",
})

# --- attributes by value type ---------------------------------------------
_STR_READ = frozenset({
    "lower", "upper", "title", "capitalize", "casefold", "swapcase",
    "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "rsplit",
    "splitlines", "partition", "rpartition", "find", "rfind", "index", "rindex",
    "count", "isdigit", "isalpha", "isalnum", "isspace", "islower", "isupper",
    "istitle", "isnumeric", "isdecimal", "removeprefix", "removesuffix",
})
_INT_READ = frozenset({
    "real", "imag", "numerator", "denominator", "bit_length", "conjugate",
})
_DATE_READ = frozenset({
    "year", "month", "day", "isoformat", "weekday", "isoweekday",
    "isocalendar", "toordinal", "strftime", "replace", "ctime",
})
_TIME_READ = frozenset({
    "hour", "minute", "second", "microsecond", "isoformat", "strftime", "replace",
})
_DICT_READ = frozenset({"items", "keys", "values", "get", "copy"})
_SET_READ = frozenset({
    "union", "intersection", "difference", "symmetric_difference",
    "issubset", "issuperset", "isdisjoint", "copy",
})

# Attributes returned as they are, keyed by the class that defines them.
# Subclasses qualify only when they inherit the very same attribute.
READ_ATTRIBUTES: Final[dict[type, frozenset[str]]] = {
    str: _STR_READ,
    int: _INT_READ,
    bool: _INT_READ,
    float: frozenset({"real", "imag", "is_integer", "as_integer_ratio", "conjugate"}),
    Decimal: frozenset({"quantize", "is_nan", "is_zero", "is_signed", "to_integral_value"}),
    list: frozenset({"index", "count", "copy"}),
    tuple: frozenset({"index", "count"}),
    range: frozenset({"start", "stop", "step", "index", "count"}),
    dict: _DICT_READ,
    Counter: _DICT_READ | {"most_common", "total"},
    set: _SET_READ,
    frozenset: _SET_READ,
    date: _DATE_READ,
    datetime: _DATE_READ | _TIME_READ | {"date", "time", "timestamp"},
    time: _TIME_READ,
    timedelta: frozenset({"days", "seconds", "microseconds", "total_seconds"}),
}
# Methods whose result can grow: served through size-checking wrappers.
BOUNDED_STR_METHODS: Final = frozenset({
    "ljust", "rjust", "center", "zfill", "replace", "join",
})
# Attributes of the helper classes themselves (constructors, constants).
CLASS_ATTRIBUTES: Final[dict[type, frozenset[str]]] = {
    date: frozenset({"today", "fromisoformat", "fromordinal", "fromisocalendar", "min", "max"}),
    datetime: frozenset({"now", "today", "fromisoformat", "combine", "min", "max"}),
    time: frozenset({"fromisoformat", "min", "max"}),
    timedelta: frozenset({"min", "max", "resolution"}),
}
ENUM_MEMBER_ATTRIBUTES: Final = frozenset({"name", "value"})

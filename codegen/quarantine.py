"""Quarantine: a stored fact the compiler cannot turn into a valid module is set aside.

The log accepts facts through `factlog.model` checks; a fact stored before those checks
matched the compiler's limits (or written around them) may still break compiling or
validating, and must not block the user's every checkpoint. `fact_problem` is the one
predicate, and it is exactly the compiler's: the limits the validator enforces on
generated source (`codegen.safety_rules.Limits`: string length, integer digits, file size),
field names the compiler would keep as dunder names, and kinds. (The door's
`factlog.model.check_fields` is stricter: it also refuses control characters and lone
surrogates, which the compiler writes as escaped data, so such an old fact still compiles
and is not quarantined.) A fact it names is left out of the package and listed, with its
reason, in the version's metadata; coverage counts it as accounted for. An entity whose
record cannot be rendered is quarantined whole (`codegen.compile`), and what safety
refuses on a record's own line is found by `culprit_facts`, after which the checkpoint
compiles again without those facts. A retraction of the fact ends its quarantine.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable, Mapping

from codegen.problems import Problem
from codegen.render import QUARANTINE_NAME
from codegen.safety_rules import Limits
from factlog.errors import InputError
from factlog.limits import reserved_field_name
from factlog.model import Fact, JsonValue, check_kind

MAX_REASON = 300  # characters of a reason kept in metadata


_VERDICTS: dict[tuple[str, Limits], str | None] = {}  # by content hash: facts never change
_MAX_VERDICTS = 200_000
_DEFAULT = Limits()
_GOOD_KINDS: set[str] = set()  # kinds and field names some fact passed with (both checks
_GOOD_NAMES: set[str] = set()  # depend on the text alone)
_MAX_GOOD = 100_000


def fact_problem(fact: Fact, limits: Limits = _DEFAULT) -> str | None:
    """Why this fact cannot be compiled, or None when it can. A fact of a known kind, with
    known field names and only scalar values well inside the limits, is passed at once;
    any other is checked in full (remembered by content hash, so a long-running process
    checks each such fact once)."""
    if limits is _DEFAULT and _plainly_fine(fact):
        return None
    key = (fact.hash, limits)
    if key in _VERDICTS:
        return _VERDICTS[key]
    verdict = _problem(fact, limits)
    if len(_VERDICTS) >= _MAX_VERDICTS:
        _VERDICTS.clear()
    _VERDICTS[key] = verdict
    if verdict is None and limits == _DEFAULT:
        if len(_GOOD_NAMES) >= _MAX_GOOD:
            _GOOD_NAMES.clear()
            _GOOD_KINDS.clear()
        if fact.kind is not None:
            _GOOD_KINDS.add(fact.kind)
        _GOOD_NAMES.update(fact.fields)
    return verdict


_INT_BOUND = 10**_DEFAULT.max_int_digits
_PLAIN_CHARS = min(_DEFAULT.max_string, _DEFAULT.max_file_bytes // 8)  # so no string can be too long


def _plainly_fine(fact: Fact) -> bool:
    """True only when `_problem(fact, Limits())` is None, decided without building anything:
    the kind and every field name passed before, the text and all strings together are
    within the string limit, and each value is None, a bool, a float, an int within the
    limit or a string (False sends the fact to the full check)."""
    kind = fact.kind
    fields = fact.fields
    if (kind is not None and kind not in _GOOD_KINDS) or not fields.keys() <= _GOOD_NAMES \
            or len(fact.text) > _PLAIN_CHARS:
        return False
    size = 0
    for value in fields.values():
        kind_of = type(value)
        if kind_of is str:
            size += len(value)  # type: ignore[arg-type]
        elif kind_of is int:
            if not -_INT_BOUND < value < _INT_BOUND:
                return False
        elif value is not None and kind_of is not float and kind_of is not bool:
            return False
    return size <= _PLAIN_CHARS


def _problem(fact: Fact, limits: Limits) -> str | None:
    if fact.kind is not None:
        try:
            check_kind(fact.kind)
        except InputError as error:
            return short_reason(str(error))
    for name in fact.fields:
        if reserved_field_name(name):  # kept as is by naming, refused by safety
            return short_reason(f"field name {name[:40]!r} starts with '__'")
    if len(fact.text) > limits.max_string:
        return f"text of {len(fact.text)} characters; at most {limits.max_string} are allowed"
    size = [0]
    for name, value in fact.fields.items():
        problem = _value_problem(value, limits, size)
        if problem is not None:
            return short_reason(f"field {name[:40]!r}: {problem}")
    if size[0] > limits.max_file_bytes // 8:  # written escaped, up to 4 bytes a character
        return f"field values of {size[0]} characters; a record may hold at most {limits.max_file_bytes // 8}"
    return None


def short_reason(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 3] + "..."


def _value_problem(value: JsonValue, limits: Limits, size: list[int]) -> str | None:
    """Integers and strings beyond what a generated literal may hold (any depth); adds the
    characters of the strings it meets to `size[0]`."""
    if isinstance(value, str):
        size[0] += len(value)
        return None if len(value) <= limits.max_string else \
            f"string of {len(value)} characters; at most {limits.max_string} are allowed"
    if value is None or isinstance(value, float):
        return None
    stack: list[JsonValue] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(item, float):
            continue
        if isinstance(item, int):
            if abs(item) >= 10**limits.max_int_digits:
                return f"integer longer than {limits.max_int_digits} digits"
        elif isinstance(item, str):
            size[0] += len(item)
            if len(item) > limits.max_string:
                return f"string of {len(item)} characters; at most {limits.max_string} are allowed"
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            for key, nested in item.items():
                size[0] += len(key)
                if len(key) > limits.max_string:
                    return f"object key of {len(key)} characters; at most {limits.max_string} are allowed"
                stack.append(nested)
    return None


_CITED = re.compile(r"fact_ids=\[([0-9, ]*)\]\)")


def culprit_facts(problems: Iterable[Problem], files: Mapping[str, str]) -> dict[int, str]:
    """The facts behind validation problems that sit on one record's line (a record is one
    line ending with its `fact_ids`), with the problem as their reason; problems elsewhere
    (a class body, an import) name no fact."""
    culprits: dict[int, str] = {}
    for problem in problems:
        source = files.get(problem.file)
        if source is None or problem.line < 1:
            continue
        lines = source.splitlines()
        if problem.line > len(lines):
            continue
        cited = _CITED.findall(lines[problem.line - 1])
        if len(cited) != 1:
            continue
        reason = short_reason(f"[{problem.rule}] {problem.message}")
        for text in cited[0].split(","):
            if text.strip().isdigit():
                culprits.setdefault(int(text), reason)
    return culprits


def declared_quarantine(files: Mapping[str, str]) -> dict[int, str]:
    """The live facts a package says it left out, and why: `_quarantined: dict[int, str]`
    in its `__init__.py` (a dict display of fact ids to reasons). Entries of any other shape
    are ignored, so coverage reports those facts as missing."""
    source = files.get("__init__.py", "")
    if QUARANTINE_NAME not in source:
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    for stmt in tree.body:
        target: ast.expr
        value: ast.expr | None
        if isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        else:
            continue
        if not (isinstance(target, ast.Name) and target.id == QUARANTINE_NAME and isinstance(value, ast.Dict)):
            continue
        declared: dict[int, str] = {}
        for key, item in zip(value.keys, value.values):
            if isinstance(key, ast.Constant) and type(key.value) is int and key.value >= 1 \
                    and isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value:
                declared[key.value] = item.value
        return declared
    return {}

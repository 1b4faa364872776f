"""The safety stage's record-chunk fast path (`codegen.record_lines`,
`safety_rules.fast_chunk_report`): whenever it accepts a chunk, the full `ast` reading
accepts it with the same report; every case here also has a verdict known in advance, so
no test passes because both readings are wrong together."""

from __future__ import annotations

import ast
import json
import unicodedata
from dataclasses import replace
from datetime import date, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import safety_rules
from codegen.literals import py_literal, str_literal
from codegen.record_lines import canonical_chunk
from codegen.safety import SafetyChecker, SafetyFailure, SafetySuccess
from codegen.safety_rules import FileReport, Limits, SiblingUse, check_source, fast_chunk_report

HEAD = ('"""Things chunk. Generated; do not edit."""\n\nfrom datetime import date, datetime\n'
        "from .thing import Thing\n\n_things_000: list[Thing] = [\n")
THING = ('"""Things."""\n\nfrom dataclasses import dataclass, field\nfrom datetime import date, datetime\n'
         "from typing import Any\n\n\n@dataclass(frozen=True, kw_only=True)\nclass Thing:\n"
         "    a: Any = None\n    b: Any = None\n    c: Any = None\n    fact_ids: list[int] = field(default_factory=list)\n")
ACCEPTED = FileReport((), {"_things_000": "value", "Thing": "from:thing"}, (SiblingUse("thing", "Thing", 4, 1, True),))


def chunk(*lines: str, head: str = HEAD) -> str:
    return head + "".join(f"    {line},\n" for line in lines) + "]\n"


def verdicts(source: str, limits: Limits = Limits()) -> tuple[FileReport, FileReport | None]:
    """(the full reading, the fast path), checking that the fast path never disagrees."""
    full = check_source(source, limits, fast=False)
    fast = fast_chunk_report(source, limits)
    if fast is not None:
        assert fast == full and full.problems == (), (source, full, fast)
    assert check_source(source, limits) == full  # what the stage really calls
    return full, fast


def rules(report: FileReport) -> set[str]:
    return {p.rule for p in report.problems}


# ------------------------------------------------------------------------- known verdicts
def test_a_plain_chunk_is_read_through_a_few_shapes() -> None:
    records = [f"Thing(a={i}, b='name {i}', c=date(2024, {i % 12 + 1}, 1), fact_ids=[{i}, {i + 1}])"
               for i in range(500)]
    source = chunk(*records)
    canonical = canonical_chunk(source, 100, 32)
    assert canonical is not None
    assert canonical.text == chunk("Thing(a=0, b='', c=date(0, 0, 0), fact_ids=[0])")
    full, fast = verdicts(source)
    assert fast == full and replace(full, records=None) == ACCEPTED
    assert full.records is not None and [len(x.signatures) for x in full.records.lists] == [1]


def test_the_whole_text_is_never_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    source = chunk(*[f"Thing(a={i}, b='n{i}', fact_ids=[{i}])" for i in range(500)])
    parsed: list[int] = []
    real_parse = ast.parse

    def parse(text: str, *args: Any, **kwargs: Any) -> Any:
        parsed.append(len(text))
        return real_parse(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse)
    assert replace(check_source(source), records=None) == ACCEPTED
    assert parsed and max(parsed) < len(source) // 20


def test_a_fast_accepted_chunk_is_never_audited_by_libcst(monkeypatch: pytest.MonkeyPatch) -> None:
    audited: list[str] = []
    def audit(text: str) -> tuple[()]:
        audited.append(text)
        return ()

    monkeypatch.setattr(safety_rules, "audit", audit)
    assert replace(check_source(chunk("Thing(a=1)", "Thing(a=2)")), records=None) == ACCEPTED
    assert audited == []
    assert check_source(THING).problems == () and audited == [THING]  # other files still are


def test_a_bad_record_is_reported_at_its_own_line() -> None:
    records = [f"Thing(a={i})" for i in range(300)]
    records[217] = "Thing(a=open('f'))"
    files = {"__init__.py": "", "thing.py": THING, "things_000.py": chunk(*records)}
    result = SafetyChecker().check(files)
    assert isinstance(result, SafetyFailure)
    [problem] = result.problems
    assert (problem.file, problem.rule, problem.line) == ("things_000.py", "call", HEAD.count("\n") + 218)


def test_the_stage_accepts_a_package_of_chunks() -> None:
    files = {"__init__.py": "", "thing.py": THING,
             "things_000.py": chunk(*[f"Thing(a={i}, b=\"it's {i}\")" for i in range(50)])}
    result = SafetyChecker().check(files)
    assert isinstance(result, SafetySuccess) and result.imports["things_000.py"] == frozenset({"thing"})


def test_several_lists_and_an_empty_one() -> None:
    second = "\n_things_001: list[Thing] = [\n    Thing(a=1.5, b=None),\n]\n\n_none: list[Thing] = [\n]\n"
    source = chunk("Thing(a=1)", "Thing(a=2)") + second
    full, fast = verdicts(source)
    assert fast is not None and set(full.exports) == {*ACCEPTED.exports, "_things_001", "_none"}


# Each: a record line, and the rules the full reading finds (empty: accepted).
HOSTILE_LINES: list[tuple[str, str, set[str]]] = [
    ("bytes", "Thing(a=b'x')", {"expression"}),
    ("f-string", "Thing(a=f'{x}')", {"expression"}),
    ("raw-bytes", "Thing(a=rb'x')", {"expression"}),
    ("u-prefix", "Thing(a=u'x')", set()),
    ("triple-quotes", "Thing(a='''x''')", set()),
    ("triple-double", 'Thing(a="""x""")', set()),
    ("concatenation", "Thing(a='x' 'y')", set()),
    ("comment", "Thing(a=1),  # note", set()),
    ("comment-after-string", "Thing(a='x'), # ' Thing(a=1)", set()),
    ("continuation", "Thing(a=1, \\\n    b=2)", set()),
    ("second-statement", "Thing(a=''), __import__('os')", {"call", "dunder"}),
    ("second-call-on-line", "Thing(a=''), open('f').read()", {"attribute"}),
    ("two-records-on-a-line", "Thing(a=1), Thing(a=2)", set()),
    ("parenthesised", "(Thing(a=1))", set()),
    ("attribute", "Thing(a=x.y)", {"attribute"}),
    ("method", "Thing(a='x'.join([]))", {"attribute"}),
    ("lambda", "Thing(a=lambda: 0)", {"expression"}),
    ("walrus", "Thing(a=(y := 1))", {"expression"}),
    ("star-args", "Thing(*x)", {"call"}),
    ("double-star", "Thing(**x)", {"call"}),
    ("starred-item", "Thing(a=[*x])", {"starred"}),
    ("duplicate-keyword", "Thing(a=1, a=2)", set()),  # ast reads it; compile() refuses it later
    ("builtin-call", "Thing(a=open('f'))", {"call"}),
    ("unknown-class", "Other(a=1)", {"call"}),
    ("bare-name", "Thing(a=print)", {"name"}),
    ("dunder", "Thing(a=__import__)", {"dunder", "name"}),
    ("conditional", "Thing(a=1 if 1 else 2)", {"expression"}),
    ("subscript", "Thing(a=1)[0]", {"expression"}),
    ("nested-record", "Thing(a=[Thing(a=1)])", set()),
    ("negated-string", "Thing(a=-'x')", {"expression"}),
    ("complex", "Thing(a=1j)", {"expression"}),
    ("leading-zero", "Thing(a=05)", {"syntax"}),
    ("unterminated", "Thing(a='x)", {"syntax"}),
    ("four-quotes", "Thing(a='''')", {"syntax"}),
    ("escaped-closing-quote", "Thing(a='x\\')", {"syntax"}),
    ("bad-name-escape", "Thing(a='\\N{NO SUCH NAME}')", {"syntax"}),
    ("good-name-escape", "Thing(a='\\N{EM DASH}')", set()),
    ("short-hex-escape", "Thing(a='\\x4')", {"syntax"}),
    ("big-unicode-escape", "Thing(a='\\UFFFFFFFF')", {"syntax"}),
    ("lone-surrogate", "Thing(a='\ud800')", {"nesting"}),
    ("nul-in-string", "Thing(a='\x00')", {"source"}),
    ("non-ascii-keyword", "Thing(\uff41=1)", {"non-ascii"}),
    ("look-alike-in-string", "Thing(a='\uff44\uff41\uff54\uff45')", set()),
    ("closing-early", "Thing(a=1))]\nimport os\nx = [(", {"syntax"}),
    ("huge-int", "Thing(a=" + "9" * 33 + ")", {"literal-size"}),
    ("huge-negative-int", "Thing(a=-" + "1" + "0" * 32 + ")", {"literal-size"}),
    ("huge-hex", "Thing(a=0x" + "F" * 40 + ")", {"literal-size"}),
    ("long-string", "Thing(a='" + "x" * 300 + "')", {"literal-size"}),
    ("long-escaped-string", "Thing(a='" + "\\'" * 257 + "')", {"literal-size"}),
    ("largest-int", "Thing(a=" + "9" * 32 + ")", set()),
    ("longest-string", "Thing(a='" + "x" * 256 + "')", set()),
    ("call-text-in-string", "Thing(a='__import__(\"os\").system(\"x\")')", set()),
    ("hash-in-string", "Thing(a='#x', b=\"it's # 'q'\")", set()),
    ("backslashes-in-string", "Thing(a='a\\\\b\\'c\\n', b=\"\\\"\")", set()),
    ("numbers", "Thing(a=1e+16, b=-5, c=-0.0)", set()),
    ("more-numbers", "Thing(a=0o17, b=1_000, c=1E5)", set()),
    ("dates", "Thing(a=date(2024, 2, 29), b=datetime(2024, 1, 2, 3, 4, 5, 6))", set()),
    ("containers", "Thing(a={'k': [1, 2]}, b=(1, 2), c={1, 2})", set()),
]


@pytest.mark.parametrize(("case", "line", "expected"), HOSTILE_LINES, ids=[c for c, _, _ in HOSTILE_LINES])
def test_hostile_record_lines(case: str, line: str, expected: set[str]) -> None:
    limits = Limits(max_string=256, max_int_digits=32)
    full, fast = verdicts(chunk("Thing(a=1, b='x')", line, "Thing(a=2)"), limits)
    assert rules(full) == expected
    if expected:
        assert fast is None


FAST_LINES = {"call-text-in-string", "hash-in-string", "backslashes-in-string", "numbers", "more-numbers",
              "dates", "containers", "largest-int", "longest-string", "duplicate-keyword"}


@pytest.mark.parametrize("case", sorted(FAST_LINES))
def test_plain_hostile_looking_lines_stay_fast(case: str) -> None:
    [line] = [line for name, line, _ in HOSTILE_LINES if name == case]
    _, fast = verdicts(chunk(line), Limits(max_string=256, max_int_digits=32))
    assert fast is not None


HOSTILE_FILES: list[tuple[str, str, set[str]]] = [
    ("statement-after-list", chunk("Thing(a=1)") + "import os\n", {"import"}),
    ("call-after-list", chunk("Thing(a=1)") + "print(1)\n", {"statement"}),
    ("bad-header-import", chunk("Thing(a=1)", head=HEAD.replace("from datetime", "from os import system\nfrom datetime")),
     {"import"}),
    ("list-inside-docstring", chunk("Thing(a=1)", head=HEAD.replace('edit."""', 'edit.\n_x: list[Thing] = [\n'
                                                                    '    Thing(a=1),\n]\n"""')), set()),
    ("unclosed-docstring", chunk("Thing(a=1)").replace('edit."""', "edit."), {"syntax"}),
    ("open-bracket-in-header", chunk("Thing(a=1)", head=HEAD.replace("\n_things", "\nx = (\n_things")), {"syntax"}),
    ("no-closing-bracket", HEAD + "    Thing(a=1),\n", {"syntax"}),
    ("closing-with-text", chunk("Thing(a=1)")[:-1] + ", 1\n", set()),  # a tuple
    ("tab-indent", HEAD + "\tThing(a=1),\n]\n", set()),
    ("blank-line-inside", HEAD + "    Thing(a=1),\n\n    Thing(a=2),\n]\n", set()),
    ("missing-comma", HEAD + "    Thing(a=1)\n    Thing(a=2),\n]\n", {"syntax"}),
    ("rebound-list", chunk("Thing(a=1)") + "\n_things_000: list[Thing] = [\n    Thing(a=2),\n]\n", {"rebind"}),
    ("carriage-return", chunk("Thing(a=1)").replace("\n]", "\r\n]"), {"source"}),
]


@pytest.mark.parametrize(("case", "source", "expected"), HOSTILE_FILES, ids=[c for c, _, _ in HOSTILE_FILES])
def test_hostile_chunk_files(case: str, source: str, expected: set[str]) -> None:
    full, fast = verdicts(source)
    assert rules(full) == expected
    if expected:
        assert fast is None


# ------------------------------------------------------------------- generated chunks
def json_literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def repr_literal(text: str) -> str:
    return repr(text)


STRING_STYLES = st.sampled_from([str_literal, repr_literal, json_literal])
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12) | st.sampled_from(
    ["'", '"', "\\", "#", "'''", "it's", 'say "hi"', "a\\'b", "x\ny", "\u2028", "\u2026", "ｄａｔｅ", "__import__('os')",
     "), __import__('os'), Thing(a=", "\\N{EM DASH}", "\t\x00\x7f", "日本語", "é" * 30, "x" * 31])
NUMBERS = (st.integers(-10 ** 7, 10 ** 7) | st.integers(-10 ** 34, 10 ** 34)
           | st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1e16, 1e-7, -0.0, 5e-324, 1.5e300]))
SCALARS = (st.none() | st.booleans() | NUMBERS | TEXT | st.dates()
           | st.datetimes(min_value=datetime(1, 1, 1, 0, 0)))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(TEXT, inner, max_size=2), max_leaves=5)
RECORDS = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", "fact_ids"]), VALUES, max_size=4),
                   min_size=1, max_size=12)
LIMITS = st.sampled_from([Limits(), Limits(max_string=8, max_int_digits=5)])


def write(value: object, style: object) -> str:
    """`py_literal`, with strings written in the given style."""
    if isinstance(value, str):
        return style(value)  # type: ignore[operator, no-any-return]
    if isinstance(value, list):
        return "[" + ", ".join(write(v, style) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{write(k, style)}: {write(v, style)}" for k, v in value.items()) + "}"
    return py_literal(value)


def fits(value: object, limits: Limits) -> bool:
    if isinstance(value, str):
        return len(value) <= limits.max_string
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return abs(value) < int(10 ** limits.max_int_digits)
    if isinstance(value, datetime):
        return all(fits(part, limits) for part in (value.year, value.month, value.day, value.hour,
                                                   value.minute, value.second, value.microsecond))
    if isinstance(value, date):
        return all(fits(part, limits) for part in (value.year, value.month, value.day))
    if isinstance(value, list):
        return all(fits(v, limits) for v in value)
    if isinstance(value, dict):
        return all(fits(k, limits) and fits(v, limits) for k, v in value.items())
    return True


def texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in texts(v)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in [*texts(k), *texts(v)]]
    return []


def look_alike(text: str) -> bool:
    return any(not ch.isascii() and unicodedata.normalize("NFKC", ch).isascii() for ch in text)


def record_source(record: dict[str, object], style: object) -> str:
    return "Thing(" + ", ".join(f"{name}={write(value, style)}" for name, value in record.items()) + ")"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORDS, STRING_STYLES, LIMITS)
def test_generated_chunks_agree(records: list[dict[str, object]], style: object, limits: Limits) -> None:
    source = chunk(*[record_source(record, style) for record in records])
    full, fast = verdicts(source, limits)
    values = [value for record in records for value in record.values()]
    expected_ok = all(fits(value, limits) for value in values)
    assert (full.problems == ()) == expected_ok, full.problems
    if full.problems:
        assert rules(full) == {"literal-size"} and fast is None
    elif limits == Limits() and not any(look_alike(text) for value in values for text in texts(value)):
        assert fast == full  # the fast path applies to every plain chunk (a raw length bounds a
        # string's, so with a tiny max_string an escaped string may be sent to the full reading)


MUTATIONS = ["#", "\\", "\\\n", "'", '"', "'''", '"""', "b", "f", "rb", "u", "), __import__('os'), Thing(", ")", "(",
             "[", "]", "]\n", "\n]\n", "\n", ",", ", ", " ", ".real", "lambda: 0", ":=", "*", "**", "0", "05", "1_0", "0x1",
             "1j", "e5", ".", "-", "x", "__", "\\N{EM DASH}", "\\x4", "\u2028", "ｄ", "\t", "'' ''", " if 1 else ",
             "Thing(a=1)", "), (", "\ud800", "\x00", "\r", "1" * 40, "'" + "x" * 20 + "'"]


@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORDS, STRING_STYLES, st.data())
def test_mutated_chunks_never_fast_accept_what_the_full_reading_refuses(
        records: list[dict[str, object]], style: object, data: st.DataObject) -> None:
    source = chunk(*[record_source(record, style) for record in records])
    start = len(HEAD) - 30
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(start, len(source)))
        cut = data.draw(st.integers(0, 3))
        source = source[:at] + data.draw(st.sampled_from(MUTATIONS)) + source[at + cut:]
    verdicts(source, data.draw(LIMITS))

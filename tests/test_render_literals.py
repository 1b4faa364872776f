"""Values become Python literals that read back as exactly the same data."""

from __future__ import annotations

import ast
import unicodedata
from dataclasses import replace
from datetime import date, datetime, time
from pathlib import Path

import pytest
from fact_helpers import import_package, make_fact
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.compile import compile_package
from codegen.literals import Aliases, py_literal, str_literal

HOSTILE = [
    "\"); import os; os.system('x') #",
    "'''; import os #", '"""', "\\", "\\'", "a\\nb", "\\N{BULLET}", "\\u0041", "\\x00",
    "line\nbreak\r\n", "\x00nul", "tab\there", "\u202eevil\u202c", "\u2028\u2029", "\ufeffbom",
    "東京 café 🎉", "\ud800", "}", "{}", "#", "'", '"', "\\\\'",
]
hostile_text = st.one_of(st.sampled_from(HOSTILE), st.text(), st.text(alphabet="'\"\\\n\r{}#N "))


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_round_trip(text: str) -> None:
    source = str_literal(text)
    assert ast.literal_eval(source) == text
    assert "\n" not in source and "\r" not in source and "\u2028" not in source


@given(st.text() | hostile_text)
def test_any_string_round_trips(text: str) -> None:
    source = py_literal(text)
    assert ast.literal_eval(source) == text
    tree = ast.parse(source, mode="eval")
    assert isinstance(tree.body, ast.Constant)  # one constant: nothing else can run


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=20)


@given(json_values)
def test_json_values_round_trip(value: object) -> None:
    assert ast.literal_eval(py_literal(value)) == value


@given(st.dates(), st.datetimes(), st.times())
def test_temporal_values_as_alias_calls(d: date, dt: datetime, t: time) -> None:
    aliases = Aliases("_d", "_dt", "_t")
    namespace = {"_d": date, "_dt": datetime, "_t": time, "__builtins__": {}}
    assert py_literal(d, aliases).startswith("_d(")
    assert eval(py_literal([d, dt, t], aliases), namespace) == [d, dt, t]  # noqa: S307


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), object(), {1: "x"}, datetime(2024, 1, 1).astimezone()])
def test_refuses_what_is_not_a_literal(bad: object) -> None:
    with pytest.raises(ValueError):
        py_literal(bad)


def test_bools_are_not_ints() -> None:
    assert py_literal(True) == "True" and py_literal(1) == "1" and py_literal(-0.0) == "-0.0"


def _storable(text: str) -> bool:
    """What the fact model accepts: no control characters but newline and tab, no surrogates."""
    return bool(text.strip()) and all(ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cs") for ch in text)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(hostile_text.filter(_storable), min_size=1, max_size=4))
def test_hostile_text_survives_a_package(tmp_path_factory: pytest.TempPathFactory, texts: list[str]) -> None:
    facts = [make_fact(i + 1, "x", kind="memo", fields={"body": t}) for i, t in enumerate(texts)]
    facts.append(make_fact(len(facts) + 1, texts[0]))
    module = import_package(compile_package("alice", facts), tmp_path_factory.mktemp("pkg") / "pkg")
    assert [m.body for m in module.memos] == texts
    assert module.notes[0].text == texts[0]


def test_unstorable_text_is_still_data(tmp_path: Path) -> None:
    """Even text the fact model would refuse (NUL, CR, bidi, surrogates) stays data."""
    texts = [t for t in HOSTILE if not _storable(t)] + ["\x00\"); import os; os.system('x') #\r"]
    facts = [replace(make_fact(i + 1, "x", kind="memo", fields={"body": "x"}), fields={"body": t}) for i, t in enumerate(texts)]
    module = import_package(compile_package("alice", facts), tmp_path / "pkg")
    assert [m.body for m in module.memos] == texts

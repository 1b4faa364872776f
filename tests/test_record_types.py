"""The record type check (`codegen.record_types`) against real `mypy --strict`: whenever it
accepts a record chunk, mypy accepts that chunk too. And the shape it reads
(`codegen.record_shape`), as the safety stage reports it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_corpus import FIELDS, GOOD, IMPORTS, THING, VALUES, cases, chunk, package, record

from codegen.record_shape import Import, RecordList, RecordShape, Signature, shape_of
from codegen.record_types import ClassTable, accepts
from codegen.safety import SafetyChecker
from codegen.safety_rules import check_source
from codegen.typecheck import TypecheckFailure, typecheck


def differential(work: Path, extra_random: int, seed: int = 9) -> tuple[int, int, int]:
    """Run the corpus through the record check and, as one package, through mypy (every
    chunk as source). Returns (cases, accepted, mypy-clean); fails on any chunk the record
    check accepts and mypy refuses."""
    corpus = cases(extra_random, seed)
    files = package([text for _, text in corpus])
    table = ClassTable(files)
    accepted = set()
    for index, (_, text) in enumerate(corpus):
        shape = shape_of(ast.parse(text))
        if shape is not None and accepts(shape, table, text):
            accepted.add(f"c{index:04d}.py")
    result = typecheck(files, "corpus", work / "work", work / "cache")  # no shapes: mypy reads every file
    assert isinstance(result, TypecheckFailure)  # the corpus holds many type errors
    refused = {problem.file for problem in result.problems}
    assert "" not in refused, result.message  # mypy ran
    wrong = sorted(accepted & refused)
    details = {file: (corpus[int(file[1:5])][0], [p.message for p in result.problems if p.file == file])
               for file in wrong}
    assert wrong == [], details
    clean = sum(1 for index in range(len(corpus)) if f"c{index:04d}.py" not in refused)
    return len(corpus), len(accepted), clean


def test_whatever_the_record_check_accepts_mypy_accepts(tmp_path: Path) -> None:
    total, accepted, clean = differential(tmp_path, extra_random=150)
    assert total > 600 and accepted > 100  # not a check that accepts nothing
    assert accepted <= clean


def refused_by_mypy(chunks: list[str], work: Path) -> set[str]:
    result = typecheck(package(chunks), "corpus", work / "work", work / "cache")
    refused = set() if not isinstance(result, TypecheckFailure) else {p.file for p in result.problems}
    assert "" not in refused, result
    return refused


VALUE = st.sampled_from(VALUES)
RECORD = st.builds(
    lambda called, values: record(values, called),
    st.sampled_from(["Thing", "Thing", "Thing", "Other"]),
    st.dictionaries(st.sampled_from([*FIELDS, "colour"]),
                    st.one_of(VALUE, st.sampled_from([v for good in GOOD.values() for v in good])), max_size=8)
    .map(lambda values: values if "name" in values else {"name": "'n'", **values}))
CHUNK = st.builds(
    lambda records, imports, annotation: chunk("_things_0", records, imports=imports, annotation=annotation),
    st.lists(RECORD, min_size=1, max_size=3),
    st.sampled_from([IMPORTS, "from .thing import Thing\n", "from datetime import date as _date\n" + IMPORTS,
                     "from datetime import datetime\nfrom .thing import Thing, Other\n"]),
    st.sampled_from(["Thing", "Thing", "Other"]))


@pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")  # mypy raises it
@settings(max_examples=2, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(st.lists(CHUNK, min_size=60, max_size=80))
def test_generated_chunks_the_record_check_accepts_pass_mypy(tmp_path_factory: pytest.TempPathFactory,
                                                              chunks: list[str]) -> None:
    """Hypothesis writes batches of chunks (one mypy run per batch): an accepted chunk is
    never one mypy refuses."""
    files = package(chunks)
    table = ClassTable(files)
    accepted = set()
    for index, text in enumerate(chunks):
        shape = shape_of(ast.parse(text))
        if shape is not None and accepts(shape, table, text):
            accepted.add(f"c{index:04d}.py")
    assert not accepted & refused_by_mypy(chunks, tmp_path_factory.mktemp("mypy"))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whatever_the_record_check_accepts_mypy_accepts_large_sweep(tmp_path: Path, seed: int) -> None:
    total, accepted, clean = differential(tmp_path, extra_random=1500, seed=seed)
    assert accepted > 300 and accepted <= clean


@pytest.mark.parametrize("description, values, called, ok", [
    ("compiler shape", {"name": "'n'", "total": "1", "fact_ids": "[1, 2]"}, "Thing", True),
    ("int for float", {"name": "'n'", "amount": "2"}, "Thing", True),
    ("None for optional", {"name": "'n'", "amount": "None", "day": "None"}, "Thing", True),
    ("empty lists", {"name": "'n'", "tags": "[]", "days": "[]", "maybe": "[]"}, "Thing", True),
    ("list of int or None", {"name": "'n'", "maybe": "[1, None]"}, "Thing", True),
    ("times", {"name": "'n'", "at": "time()", "moment": "datetime(2024, 1, 2, 3, 4, 5, 6)"}, "Thing", True),
    ("missing required", {"amount": "2.5"}, "Thing", False),
    ("None for required", {"name": "None"}, "Thing", False),
    ("unknown keyword", {"name": "'n'", "colour": "'red'"}, "Thing", False),
    ("bool for int", {"name": "'n'", "count": "True"}, "Thing", False),
    ("float for int", {"name": "'n'", "count": "1.5"}, "Thing", False),
    ("datetime for date", {"name": "'n'", "day": "datetime(2024, 1, 2)"}, "Thing", False),
    ("date for datetime", {"name": "'n'", "moment": "date(2024, 1, 2)"}, "Thing", False),
    ("date of two args", {"name": "'n'", "day": "date(2024, 1)"}, "Thing", False),
    ("datetime of eight args", {"name": "'n'", "moment": "datetime(2024, 1, 2, 3, 4, 5, 6, 7)"}, "Thing", False),
    ("str in int list", {"name": "'n'", "fact_ids": "[1, 'a']"}, "Thing", False),
    ("negative numbers", {"name": "'n'", "count": "-1", "amount": "-2", "total": "-2.5"}, "Thing", True),
    ("negated bool", {"name": "'n'", "count": "-True"}, "Thing", False),
    ("another class", {"name": "'n'"}, "Other", False),
])
def test_the_record_check_on_single_cases(description: str, values: dict[str, str], called: str,
                                          ok: bool) -> None:
    text = chunk("_things_000", [record(values, called)])
    files = {"__init__.py": "", "thing.py": THING, "c.py": text}
    shape = shape_of(ast.parse(text))
    assert shape is not None
    assert accepts(shape, ClassTable(files), text) is ok, description


def test_aliases_comments_and_shadowing_make_it_not_sure() -> None:
    files = {"thing.py": THING}
    good = chunk("_t", [record({"name": "'n'", "day": "date(2024, 1, 2)"})])
    shape = shape_of(ast.parse(good))
    assert shape is not None and accepts(shape, ClassTable(files), good)
    for text in [
        good.replace("from datetime import date,", "from datetime import date as _date,").replace("=date(", "=_date("),
        good.replace("    Thing(name='n'", "    Thing(name='n'  # type: ignore\n"),
        "# mypy: disallow-any-expr\n" + good,
        good.replace("_t: list[Thing]", "Thing: list[Thing]"),
        good + "_t: list[Thing] = []\n",
    ]:
        shape = shape_of(ast.parse(text))
        assert shape is None or not accepts(shape, ClassTable(files), text), text
    shadowed = {"thing.py": THING.replace("    day: date | None = None", "    date: date | None = None")}
    assert not accepts(shape_of(ast.parse(good.replace("day=", "date="))) or RecordShape((), ()),
                       ClassTable(shadowed), good.replace("day=", "date="))


def test_the_shape_holds_distinct_signatures_and_value_tags() -> None:
    text = chunk("_things_000", [
        record({"name": "'a'", "day": "date(2024, 1, 2)", "fact_ids": "[1, 2]"}),
        record({"fact_ids": "[3]", "name": "'b'", "day": "date(2023, 5, 6)"}),  # same signature
        record({"name": "'c'", "moment": "datetime(2024, 1, 2, 3, 4)", "maybe": "[None, 1, 2]", "tags": "[]"}),
        record({"name": "'d'", "amount": "-1.5", "flag": "True", "count": "None", "total": "(1, 2)"}),
    ])
    shape = shape_of(ast.parse(text))
    assert shape == RecordShape(
        (Import("datetime", "date", None, 0), Import("datetime", "datetime", None, 0),
         Import("datetime", "time", None, 0), Import("thing", "Thing", None, 1), Import("thing", "Other", None, 1)),
        (RecordList("_things_000", "Thing", (
            Signature("Thing", (("amount", "float"), ("count", "None"), ("flag", "bool"), ("name", "str"),
                                ("total", "other"))),
            Signature("Thing", (("day", "call:date/3"), ("fact_ids", "list[int]"), ("name", "str"))),
            Signature("Thing", (("maybe", "list[None,int]"), ("moment", "call:datetime/5"), ("name", "str"),
                                ("tags", "list[]"))),
        )),))
    # A thousand more records of the same signatures: the same shape.
    longer = text.replace("]\n", "]\n", 1).replace(
        "\n]\n", "\n" + "    " + record({"name": "'z'", "day": "date(2020, 2, 2)", "fact_ids": "[9]"}) + ",\n]\n")
    assert shape_of(ast.parse(longer)) == shape
    assert shape_of(ast.parse("x: list[int] = [1]\n")) is None
    assert shape_of(ast.parse("from .thing import Thing\n")) is None


def test_the_safety_stage_reports_shapes_and_its_disk_cache_keeps_them(tmp_path: Path) -> None:
    text = chunk("_things_000", [record({"name": "'a'", "fact_ids": "[1]"})])
    assert check_source(text).records == shape_of(ast.parse(text))
    assert check_source(THING).records is None
    assert check_source(text.replace("fact_ids=[1]", "fact_ids=[1], x=open('f')")).records is None
    files = {"__init__.py": '"""P."""\n', "thing.py": THING, "c0000.py": text}
    first = SafetyChecker(tmp_path).check(files)
    again = SafetyChecker(tmp_path).check(files)  # from the disk cache
    assert again.parsed == 0 and first.parsed == 3
    assert dict(first.records) == dict(again.records) == {"c0000.py": shape_of(ast.parse(text))}

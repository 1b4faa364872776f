"""The safety stage: hostile modules are refused, with the expected rule, before any import."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hostile_samples import HOSTILE
from validation_samples import LIVE_FACTS, valid_package

from codegen.safety import SafetyChecker, SafetyFailure, SafetySuccess
from codegen.safety_rules import Limits, check_source
from codegen.validate import ValidationFailure, Validator


@pytest.fixture(scope="module")
def validator(tmp_path_factory: pytest.TempPathFactory) -> Validator:
    return Validator(tmp_path_factory.mktemp("cache"))


def test_there_are_many_hostile_cases() -> None:
    assert len(HOSTILE) >= 30
    assert len({case for case, _, _ in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize(("case", "rule", "source"), HOSTILE, ids=[c for c, _, _ in HOSTILE])
def test_hostile_module_is_refused_before_import(case: str, rule: str, source: str, tmp_path: Path,
                                                 validator: Validator) -> None:
    marker = tmp_path / "pwned"
    files = valid_package()
    files["evil.py"] = source.replace("MARKER", str(marker))
    stage_dir = tmp_path / "stage"
    loaded_before = set(sys.modules)

    result = validator.validate(files, user="mallory", version="v1", live_fact_ids=LIVE_FACTS,
                                stage_dir=stage_dir)

    assert isinstance(result, ValidationFailure)
    assert result.stage == "safety"
    rules = {p.rule for p in result.problems}
    assert rule in rules, result.format_for_llm()
    assert all(p.file == "evil.py" for p in result.problems)
    # nothing ran and nothing was written or imported
    assert not marker.exists()
    assert not hasattr(sys, "uac_pwned")
    assert not stage_dir.exists()
    assert set(sys.modules) - loaded_before == set()


def test_hostile_problem_points_at_the_line() -> None:
    report = check_source('"""Doc."""\nfrom datetime import date\n\nx = date.today()\n')
    [problem] = report.problems
    assert (problem.rule, problem.line, problem.column) == ("attribute", 4, 5)


def test_column_counts_characters_not_bytes() -> None:
    report = check_source("x = ['Zürich', open('f')]\n")
    [problem] = report.problems
    assert problem.column == len("x = ['Zürich', ") + 1


def test_valid_package_passes() -> None:
    result = SafetyChecker().check(valid_package())
    assert isinstance(result, SafetySuccess), result
    assert result.files == 5


def test_package_needs_init_and_plain_file_names() -> None:
    files = valid_package()
    del files["__init__.py"]
    files["../escape.py"] = "x = 1\n"
    files["__main__.py"] = "x = 1\n"
    result = SafetyChecker().check(files)
    assert isinstance(result, SafetyFailure)
    assert {p.file for p in result.problems} == {"__init__.py", "../escape.py", "__main__.py"}
    assert {p.rule for p in result.problems} == {"file-name"}


def test_oversize_file_is_refused_without_parsing() -> None:
    report = check_source("x = 1\n" * 100, Limits(max_file_bytes=100))
    assert [p.rule for p in report.problems] == ["file-size"]


def test_unchanged_files_come_from_the_memory_cache() -> None:
    checker = SafetyChecker()
    files = valid_package()
    assert isinstance(checker.check(files), SafetySuccess)
    assert checker.parses == 5
    files["trips_001.py"] = files["trips_001.py"].replace("Lima", "Cusco")
    result = checker.check(files)
    assert isinstance(result, SafetySuccess) and result.parsed == 1
    assert checker.parses == 6


def test_disk_cache_serves_a_new_checker_and_survives_damage(tmp_path: Path) -> None:
    files = valid_package()
    files["evil.py"] = "x = open('f')\n"
    first = SafetyChecker(tmp_path)
    expected = first.check(files)
    assert isinstance(expected, SafetyFailure) and expected.parsed == 6

    second = SafetyChecker(tmp_path)
    again = second.check(files)
    assert again == SafetyFailure(expected.problems, 0)

    for entry in tmp_path.rglob("*.json"):
        entry.write_text("{not json", "utf-8")
    third = SafetyChecker(tmp_path)
    assert third.check(files) == expected


def test_process_pool_gives_the_same_verdicts() -> None:
    files = valid_package()
    files["evil.py"] = "x = eval('1')\n"
    serial = SafetyChecker().check(files)
    pooled_checker = SafetyChecker(workers=2, parallel_min_bytes=0)
    try:
        pooled = pooled_checker.check(files)
    finally:
        pooled_checker.close()
    assert pooled == serial

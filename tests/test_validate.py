"""The whole validation pipeline (safety → mypy → import → coverage) and the loader."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from validation_samples import LIVE_FACTS, valid_package

from codegen.loader import CODE_CACHE, PackageLoadError, load_package, module_name_for, unload_package
from codegen.validate import ValidationFailure, ValidationSuccess, Validator


@pytest.fixture(scope="module")
def validator(tmp_path_factory: pytest.TempPathFactory) -> Validator:
    return Validator(tmp_path_factory.mktemp("cache"))


def test_valid_package_passes_every_stage(validator: Validator, tmp_path: Path) -> None:
    result = validator.validate(valid_package(), user="alice", version="v1", live_fact_ids=LIVE_FACTS,
                                stage_dir=tmp_path / "v1")
    assert isinstance(result, ValidationSuccess), result
    try:
        assert list(result.timings) == ["safety", "mypy", "import", "coverage"]
        module = result.module
        assert [t.destination for t in module.trips] == ["Paris", "Zürich", "Lima"]
        assert module.trips[0].status is module.Status.DONE
        assert sum(1 for t in module.trips if t.departure_date and t.departure_date.year == 2024) == 1
        assert sorted((tmp_path / "v1").glob("*.py")) != []
    finally:
        unload_package(result.module_name)
    assert result.module_name not in sys.modules


def validate_edited(validator: Validator, stage: Path, name: str, old: str, new: str) -> ValidationSuccess | ValidationFailure:
    """The valid package with one edit in file `name`, validated as version `stage.name` in `stage`."""
    files = valid_package()
    files[name] = files[name].replace(old, new)
    return validator.validate(files, user="alice", version=stage.name, live_fact_ids=LIVE_FACTS, stage_dir=stage)


def test_type_error_fails_at_mypy_with_file_and_line(validator: Validator, tmp_path: Path) -> None:
    result = validate_edited(validator, tmp_path / "v2", "trips_001.py", 'destination="Lima"', "destination=42")
    assert isinstance(result, ValidationFailure) and result.stage == "mypy"
    [problem] = result.problems
    assert (problem.file, problem.line, problem.rule) == ("trips_001.py", 5, "mypy:arg-type")
    assert "trips_001.py:5:" in result.format_for_llm()
    assert not (tmp_path / "v2").exists()


def test_value_error_on_import_fails_at_import_and_unloads(validator: Validator, tmp_path: Path) -> None:
    result = validate_edited(validator, tmp_path / "v3", "trips_000.py", "date(2024, 5, 1)", "date(2024, 13, 1)")
    assert isinstance(result, ValidationFailure) and result.stage == "import"
    assert "month must be in 1..12" in result.problems[0].message
    assert not (tmp_path / "v3").exists()
    assert not any(name.startswith("_uac_gen_alice_v3_") for name in sys.modules)


def test_coverage_reports_missing_and_unknown_fact_ids(validator: Validator, tmp_path: Path) -> None:
    result = validator.validate(valid_package(), user="alice", version="v4",
                                live_fact_ids=(LIVE_FACTS - {3}) | {5, 6}, stage_dir=tmp_path / "v4")
    assert isinstance(result, ValidationFailure) and result.stage == "coverage"
    by_rule = {p.rule: p.message for p in result.problems}
    assert "5, 6" in by_rule["coverage-missing"]
    assert by_rule["coverage-unknown"].endswith(": 3")
    assert not (tmp_path / "v4").exists()


def test_existing_stage_dir_is_left_alone(validator: Validator, tmp_path: Path) -> None:
    stage = tmp_path / "busy"
    stage.mkdir()
    (stage / "keep.txt").write_text("mine", "utf-8")
    result = validator.validate(valid_package(), user="alice", version="v5", live_fact_ids=LIVE_FACTS,
                                stage_dir=stage)
    assert isinstance(result, ValidationFailure) and result.stage == "import"
    assert (stage / "keep.txt").read_text("utf-8") == "mine"


def _write(directory: Path, files: dict[str, str]) -> Path:
    directory.mkdir()
    for name, text in files.items():
        (directory / name).write_text(text, "utf-8")
    return directory


def test_two_users_with_the_same_class_names_do_not_collide(tmp_path: Path) -> None:
    other = valid_package()
    other["trips_001.py"] = other["trips_001.py"].replace("Lima", "Oslo")
    a_name, b_name = module_name_for("a.b", "v1"), module_name_for("a_b", "v1")
    assert a_name != b_name and a_name.isidentifier()
    a = load_package(_write(tmp_path / "a", valid_package()), a_name)
    b = load_package(_write(tmp_path / "b", other), b_name)
    try:
        assert a.trips[-1].destination == "Lima" and b.trips[-1].destination == "Oslo"
        assert a.Trip is not b.Trip
        assert a.Trip.__module__ == f"{a_name}.trip"
    finally:
        assert unload_package(a_name) == 5
        unload_package(b_name)
    assert not any(n.startswith((a_name, b_name)) for n in sys.modules)


def test_loader_refuses_missing_init_and_bad_names(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(PackageLoadError):
        load_package(tmp_path / "empty", "_uac_gen_empty")
    with pytest.raises(PackageLoadError):
        load_package(tmp_path / "empty", "os.path")


def test_a_new_version_compiles_only_the_changed_files(tmp_path: Path) -> None:
    files = valid_package()
    files["trips_001.py"] = files["trips_001.py"].replace("Lima", "Quito")  # text no other test loads
    name = module_name_for("carol", "v1")
    before = CODE_CACHE.compiles
    load_package(_write(tmp_path / "v1", files), name)
    first = CODE_CACHE.compiles - before
    files["trips_001.py"] = files["trips_001.py"].replace("Quito", "Cusco")
    module = load_package(_write(tmp_path / "v2", files), name)
    try:
        assert CODE_CACHE.compiles - before - first == 1
        assert module.trips[-1].destination == "Cusco"
        assert module.trips_001.__class__ is list and not (tmp_path / "v2" / "__pycache__").exists()
    finally:
        unload_package(name)

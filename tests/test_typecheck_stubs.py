"""The mypy stage: record chunks the record check accepts reach mypy as stubs, the rest as
source; a passed input is remembered and not checked again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fact_helpers import make_fact
from record_corpus import THING, chunk, record

from codegen.compile import compile_package
from codegen.loader import unload_package
from codegen.safety import SafetyChecker, SafetySuccess, content_hash
from codegen.typecheck import PASSED, TypecheckFailure, TypecheckSuccess, blank_docstring, typecheck
from codegen.validate import ValidationFailure, ValidationSuccess, Validator
from factlog.model import Fact

REPO = Path(__file__).resolve().parent.parent


def compiled_facts() -> list[Fact]:
    facts = []
    for i in range(1, 41):
        facts.append(make_fact(i, f"trip {i}", kind="trip", key=f"t{i}", fields={
            "destination": f"City {i}", "cost_usd": i * 10 + (0.5 if i % 2 else 0), "nights": i % 7,
            "departure": f"2024-0{i % 9 + 1}-1{i % 9}", "booked_at": f"2024-01-0{i % 9 + 1}T10:3{i % 10}:00",
            "meets_at": "10:30", "refundable": i % 3 == 0, "tags": ["a", "b"] if i % 2 else [],
            "ratings": [1, None, 2.5] if i % 4 == 0 else None}))
    facts.append(make_fact(41, "call mum on 2024-05-02"))
    facts.append(make_fact(42, "passport", kind="passport", fields={"number": "X1", "expiry_date": "2030-01-01"}))
    return facts


def checked_files(cache_root: Path) -> set[str]:
    return {path.name for path in (cache_root / "typecheck").glob("*/*") if path.suffix in (".py", ".pyi")}


def test_the_compilers_own_chunks_reach_mypy_as_stubs(tmp_path: Path) -> None:
    facts = compiled_facts()
    files = compile_package("alice", facts, chunk_records=8).files
    chunks = {name for name in files if name[:-3].rsplit("_", 1)[-1].isdigit()}
    assert len(chunks) >= 6
    validator = Validator(tmp_path / "cache")
    result = validator.validate(files, user="alice", version="v1", stage_dir=tmp_path / "v1", facts=facts)
    assert isinstance(result, ValidationSuccess), result
    unload_package(result.module_name)
    seen = checked_files(tmp_path / "cache")
    assert {name + "i" for name in chunks} <= seen and not chunks & seen  # mypy read no record chunk
    assert {name for name in files if name not in chunks} <= seen  # class modules, __init__.py


def test_a_bad_record_in_a_hand_written_chunk_fails_at_mypy_with_its_file_and_line(tmp_path: Path) -> None:
    good = chunk("_things_000", [record({"name": "'a'"}), record({"name": "'b'", "count": "2"})])
    bad = chunk("_things_001", [record({"name": "'a'"}), record({"name": "'b'", "count": "'two'"})])
    init = ('"""P."""\n\nfrom .thing import Thing as Thing\nfrom .c0 import _things_000\nfrom .c1 import _things_001\n\n'
            "things: list[Thing] = [*_things_000, *_things_001]\n")
    files = {"__init__.py": init, "thing.py": THING, "c0.py": good, "c1.py": bad}
    validator = Validator(tmp_path / "cache")
    result = validator.validate(files, user="bob", version="v1", stage_dir=tmp_path / "v1", live_fact_ids=frozenset())
    assert isinstance(result, ValidationFailure) and result.stage == "mypy", result
    [problem] = result.problems
    line = bad.splitlines().index("    Thing(name='b', count='two'),") + 1
    assert (problem.file, problem.line, problem.rule) == ("c1.py", line, "mypy:arg-type")
    assert checked_files(tmp_path / "cache") == {"__init__.py", "thing.py", "c0.pyi", "c1.py"}


def package_files(init_doc: str = "P.", count_type: str = "int | None") -> dict[str, str]:
    init = (f'"""{init_doc}"""\n\nfrom .thing import Thing as Thing\nfrom .c0 import _things_000\n\n'
            "things: list[Thing] = [*_things_000]\n")
    thing = THING.replace("    count: int | None = None", f"    count: {count_type} = None")
    return {"__init__.py": init, "thing.py": thing,
            "c0.py": chunk("_things_000", [record({"name": "'a'", "count": "3"})])}


def run(files: dict[str, str], tmp_path: Path) -> TypecheckSuccess | TypecheckFailure:
    safe = SafetyChecker().check(files)
    assert isinstance(safe, SafetySuccess), safe
    hashes = {name: content_hash(text) for name, text in files.items()}
    return typecheck(files, "pkg", tmp_path / "work", tmp_path / "mypy", hashes, safe.records)


def test_a_passed_input_is_not_checked_again_and_the_key_is_what_mypy_reads(tmp_path: Path) -> None:
    first = run(package_files(), tmp_path)
    assert first == TypecheckSuccess(stubs=1, ran=True)
    assert run(package_files(), tmp_path) == TypecheckSuccess(stubs=1, ran=False)
    # Only __init__'s docstring changed: the same verdict.
    assert run(package_files(init_doc="Log position: 12.\n\nMore."), tmp_path).ran is False
    # A record's data changed, not its types: the stub is the same, so is mypy's input.
    files = package_files()
    files["c0.py"] = files["c0.py"].replace("count=3", "count=4")
    assert run(files, tmp_path).ran is False
    # A class annotation changed: mypy runs (and now refuses the int for a str field).
    refused = run(package_files(count_type="str | None"), tmp_path)
    assert isinstance(refused, TypecheckFailure) and refused.problems[0].file == "c0.py"
    assert run(package_files(count_type="float | None"), tmp_path).ran is True
    # A damaged verdict record: mypy runs again.
    (tmp_path / "mypy" / "pkg" / PASSED).write_text("{not json")
    assert run(package_files(), tmp_path).ran is True
    (tmp_path / "mypy" / "pkg" / PASSED).write_text(json.dumps(["0" * 64]))
    assert run(package_files(), tmp_path).ran is True
    assert run(package_files(), tmp_path).ran is False


def test_a_chunk_switching_between_stub_and_source_leaves_no_twin(tmp_path: Path) -> None:
    work = tmp_path / "work" / "pkg"
    assert run(package_files(), tmp_path).stubs == 1
    assert (work / "c0.pyi").exists() and not (work / "c0.py").exists()
    files = package_files()
    files["c0.py"] = files["c0.py"].replace("count=3", "count=True")  # not sure: bool for int
    result = run(files, tmp_path)
    assert result == TypecheckSuccess(stubs=0, ran=True)  # mypy accepts a bool for an int
    assert (work / "c0.py").exists() and not (work / "c0.pyi").exists()
    assert run(package_files(), tmp_path) == TypecheckSuccess(stubs=1, ran=False)
    assert (work / "c0.pyi").exists() and not (work / "c0.py").exists()


def test_a_remembered_verdict_does_not_import_mypy(tmp_path: Path) -> None:
    files = package_files()
    assert run(files, tmp_path).ran is True
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from codegen.safety import SafetyChecker, content_hash\n"
        "from codegen.typecheck import typecheck\n"
        "files = json.loads(sys.stdin.read()); root = Path(sys.argv[1])\n"
        "safe = SafetyChecker().check(files)\n"
        "hashes = {n: content_hash(t) for n, t in files.items()}\n"
        "result = typecheck(files, 'pkg', root / 'work', root / 'mypy', hashes, safe.records)\n"
        "print(result.ran, 'mypy' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], input=json.dumps(files), cwd=REPO,
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"], done.stderr


@pytest.mark.parametrize("text, expected", [
    ('"""Doc\n\nmore."""\nx: int = 1\n', '""\nx: int = 1\n'),
    ('# mypy: strict\n"""é doc"""  \nx = 1\n', '# mypy: strict\n""  \nx = 1\n'),
    ('x = 1\n"""not a docstring"""\n', 'x = 1\n"""not a docstring"""\n'),
    ('b"""bytes"""\n', 'b"""bytes"""\n'),
    ("", ""),
])
def test_only_the_leading_docstring_is_blanked(text: str, expected: str) -> None:
    assert blank_docstring(text) == expected



def test_the_record_type_check_runs_once_per_chunk_and_class_module_content(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A +10 re-checks only the chunks whose text, or whose class module's text, changed."""
    import codegen.typecheck as typecheck_module
    calls: list[str] = []
    real = typecheck_module.accepts

    def counted(shape: object, classes: object, text: str, plain: bool | None = None) -> bool:
        calls.append(text)
        return real(shape, classes, text, plain)  # type: ignore[arg-type]
    monkeypatch.setattr(typecheck_module, "accepts", counted)
    files = package_files(count_type="int | float | None")  # a class no other test here declares
    safe = SafetyChecker().check(files)
    assert isinstance(safe, SafetySuccess)
    hashes = {name: content_hash(text) for name, text in files.items()}
    first = typecheck_module.mypy_input(files, hashes, safe.records)
    assert typecheck_module.mypy_input(files, hashes, safe.records) == first and len(calls) == 1
    assert "c0.pyi" in first[0]
    changed = package_files(count_type="str | bool | None")  # the chunk's int no longer fits
    changed_hashes = {name: content_hash(text) for name, text in changed.items()}
    again = typecheck_module.mypy_input(changed, changed_hashes, safe.records)
    assert len(calls) == 2 and "c0.py" in again[0] and "c0.pyi" not in again[0]

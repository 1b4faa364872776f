"""The README's Python examples run as written: `pycon` blocks as doctests, `python` blocks
executed, each in a fresh temporary home (`~` points there, so `~/.uac` is a new workspace)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from runtime.memory import Memory

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)


def blocks(language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(README.read_text(encoding="utf-8")) if lang == language]


@pytest.fixture
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("UAC_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path / ".uac"


def test_the_readme_has_the_api_example_and_the_error_contract() -> None:
    text = README.read_text(encoding="utf-8")
    assert blocks("pycon") and blocks("python")
    assert "--debug" in text and "## Python API" in text and "### Errors and exit codes" in text


@pytest.mark.parametrize("index", range(len(blocks("pycon"))))
def test_readme_doctests(index: int, fresh_home: Path) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(blocks("pycon")[index], {}, f"README pycon block {index + 1}", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, "a README example did not run as written (see above)"
    assert (fresh_home / "facts.db").is_file()  # it ran in the temporary home


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_readme_python_blocks_run_and_constraints_load(index: int, fresh_home: Path) -> None:
    source = blocks("python")[index]
    exec(compile(source, f"README python block {index + 1}", "exec"), {})  # noqa: S102
    if "@constraint" in source:  # a constraint example: it loads from <home>/constraints/
        (fresh_home / "constraints").mkdir(parents=True)
        (fresh_home / "constraints" / "example.py").write_text(source, encoding="utf-8")
        mem = Memory.open(fresh_home)
        try:
            loaded, failures = mem.constraints()
        finally:
            mem.close()
        assert failures == [] and any(c.name == "big_trips" for c in loaded)

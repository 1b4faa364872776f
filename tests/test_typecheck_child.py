"""mypy runs in a forked child: what a run builds never stays alive in the process that asked
(a warm worker or `uac watch` would otherwise grow with every checkpoint), and the verdicts
are the same as a run here."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from codegen import forked
from codegen.typecheck import TypecheckFailure, TypecheckSuccess, typecheck


def _package(n: int) -> dict[str, str]:
    body = "".join(f"def f{i}(x: int) -> int:\n    return x + {i}\n\n\n" for i in range(n))
    return {"__init__.py": '"""A package."""\n', "m.py": f'"""Functions."""\n\n\n{body}'}


def _mypy_objects() -> int:
    modules = (type(o).__dict__.get("__module__") for o in gc.get_objects())
    return sum(isinstance(m, str) and m.startswith("mypy.") for m in modules)


def test_a_run_leaves_nothing_of_mypy_alive_here(tmp_path: Path) -> None:
    import mypy.main  # noqa: F401  (what importing the checker leaves alive is not a run's)

    gc.collect()
    before = _mypy_objects()
    for n in (3, 5, 8):  # three inputs: each one a real run (no verdict of it remembered)
        result = typecheck(_package(n), "pkg", tmp_path / "w", tmp_path / "c")  # one cache: typeshed read once
        assert isinstance(result, TypecheckSuccess) and result.ran
    gc.collect()
    assert _mypy_objects() - before < 500  # a run here keeps ~10^5 of its nodes alive


@pytest.mark.parametrize("where", ["child", "here"])
def test_the_verdict_is_the_same_in_a_child_and_here(tmp_path: Path, where: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if where == "here":  # no child can be started: the run happens in this process
        monkeypatch.setattr(forked, "fork_call", lambda *a, **k: None)
    wrong = {"__init__.py": '"""A package."""\n', "m.py": '"""Bad."""\n\nx: int = "text"\n'}
    failed = typecheck(wrong, "pkg", tmp_path / "w", tmp_path / "c")
    assert isinstance(failed, TypecheckFailure)
    assert [(p.rule, p.file, p.line) for p in failed.problems] == [("mypy:assignment", "m.py", 3)]
    assert isinstance(typecheck(_package(2), "pkg", tmp_path / "w", tmp_path / "c"), TypecheckSuccess)

"""The libcst second reading: before/after strings, as in LibCST's own tests."""

from __future__ import annotations

import pytest

from codegen import cst_audit
from codegen.safety_rules import check_source

SCHEMA = '''"""Generated."""
from __future__ import annotations
from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True, kw_only=True)
class Trip:
    """A trip."""
    destination: str | None = None
    departure_date: date | None = None
    fact_ids: list[int] = field(default_factory=list)
'''


def test_a_schema_file_reads_the_same_with_libcst() -> None:
    assert cst_audit.audit(SCHEMA) == ()


@pytest.mark.parametrize("source, rule", [
    ("def f():\n    pass\n", "libcst:function"),
    ("x = lambda: 1\n", "libcst:lambda"),
    ("x = [a for a in b]\n", "libcst:comprehension"),
    ("x = f'{y}'\n", "libcst:f-string"),
    ("x = (y := 1)\n", "libcst:walrus"),
    ("x = ().__class__\n", "libcst:dunder"),
    ("@evil\nclass A:\n    pass\n", "libcst:decorator"),
    ("x = (\n", "libcst:parse"),
])
def test_the_audit_names_the_rule_with_a_position(source: str, rule: str) -> None:
    problems = cst_audit.audit(source)
    assert problems and problems[0].rule == rule and problems[0].line >= 1


def test_check_source_runs_the_audit_on_small_files_only(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr("codegen.safety_rules.audit", lambda text: calls.append(len(text)) or ())
    assert check_source(SCHEMA).problems == ()
    assert len(calls) == 1
    big = SCHEMA + "\n" * (cst_audit.LIBCST_MAX_LINES + 1)
    check_source(big)
    assert len(calls) == 1  # over the line limit: the ast allowlist alone


def test_a_disagreeing_libcst_reading_fails_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen.problems import Problem

    monkeypatch.setattr("codegen.safety_rules.audit",
                        lambda text: (Problem("libcst:parse", "", 1, 1, "differs"),))
    assert [p.rule for p in check_source(SCHEMA).problems] == ["libcst:parse"]

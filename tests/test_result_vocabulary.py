"""One result vocabulary: every outcome a step answers with is a `Success`, a `Failure` or
a `Skip` (factlog.results), and every failure says what went wrong."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codegen.problems import Problem
from codegen.safety import SafetyFailure, SafetySuccess
from codegen.typecheck import TypecheckFailure, TypecheckSuccess
from codegen.validate import ValidationFailure, ValidationSuccess
from constraints.model import ConstraintFailure, ConstraintSkip
from constraints.user_loader import LoadFailure
from factlog.results import Failure, Skip, Success
from runtime.safe_eval import QueryFailure, QuerySuccess
from users.checkpoint import Failed, Published, Unchanged

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("factlog", "codegen", "users", "constraints", "runtime")


@pytest.mark.parametrize("outcome, base", [
    (SafetySuccess, Success), (SafetyFailure, Failure), (TypecheckSuccess, Success),
    (TypecheckFailure, Failure), (ValidationSuccess, Success), (ValidationFailure, Failure),
    (QuerySuccess, Success), (QueryFailure, Failure), (ConstraintSkip, Skip),
    (ConstraintFailure, Failure), (LoadFailure, Failure), (Published, Success), (Unchanged, Skip),
    (Failed, Failure),
])
def test_every_outcome_is_named_by_the_one_vocabulary(outcome: type, base: type) -> None:
    assert issubclass(outcome, base)


def test_failures_say_what_went_wrong() -> None:
    problem = Problem("mypy-error", "trip.py", 3, 1, "bad type")
    failures: list[Failure] = [
        SafetyFailure((problem,), 1), TypecheckFailure((problem,)), ValidationFailure("mypy", (problem,), {}),
        ConstraintFailure("passport_valid_for_trips", "TypeError: x"), LoadFailure("mine.py", "SyntaxError: y"),
    ]
    for failure in failures:
        assert isinstance(failure.message, str) and ("bad type" in failure.message or ": " in failure.message)


def test_no_class_named_error_is_anything_but_an_exception() -> None:
    """Outcomes are Failures; a class called `...Error` is always raised, never returned."""
    offenders = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
                    bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                    if not any(b.endswith(("Error", "Exception")) for b in bases):
                        offenders.append(f"{path.relative_to(REPO)}:{node.name}")
    assert offenders == []

"""One root for user-facing errors (`factlog.errors.UacError`): the CLI reports any of them
as one line with exit 2, so a new user-facing error needs no CLI change. And one result
vocabulary (`factlog.results`): `Success`, `Failure`, `Skip`.

Before, the CLI caught `InputError` and `NotFound` by name: any other error meant for the
user (a damaged alert state file, say) came out as an "unexpected error" with exit 1."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import one_error_line
from uac_home import USER, clone_home

import runtime.memory
from constraints.state import AlertStateError
from factlog.errors import InputError, NotFound, UacError
from factlog.results import Failure, Skip, Success
from runtime.result_budget import ResultTooLarge
from users.integrity import IntegrityError
from users.store import ForgottenMeanwhile

Uac = Callable[..., Any]


def test_every_user_facing_error_derives_from_the_root() -> None:
    for error in (InputError, NotFound, IntegrityError, ResultTooLarge, ForgottenMeanwhile, AlertStateError):
        assert issubclass(error, UacError), error
    # ... and keeps its older bases, so `except ValueError` / `except LookupError` still work
    assert issubclass(InputError, ValueError) and issubclass(NotFound, LookupError)
    assert issubclass(AlertStateError, ValueError)


def test_a_new_user_facing_error_needs_no_cli_change(uac: Uac, monkeypatch: pytest.MonkeyPatch) -> None:
    class Unheard(UacError):
        """An error the CLI has never heard of."""

    def refuse(self: object) -> list[str]:
        raise Unheard("the users cannot be listed\nright now")

    monkeypatch.setattr(runtime.memory.Memory, "users", refuse)
    one_error_line(uac("users"), "the users cannot be listed right now")
    r = uac("--json", "users")
    assert r.code == 2 and '"exit": 2' in r.out


def test_a_damaged_alert_state_is_one_line_exit_2(uac: Uac, tmp_path_factory: pytest.TempPathFactory,
                                                  tmp_path: Path) -> None:
    home = clone_home(tmp_path_factory, tmp_path / "home")
    state = home / "users" / USER / "alerts.json"
    state.write_text('{"format": 1, "active": [', encoding="utf-8")
    one_error_line(uac("--home", str(home), "alerts", USER), "alerts.json")
    assert state.read_text(encoding="utf-8") == '{"format": 1, "active": ['


@dataclass(frozen=True)
class Checked(Success):
    count: int


@dataclass(frozen=True)
class Refused(Failure):
    stage: str
    problems: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"{self.stage}: {'; '.join(self.problems)}"


@dataclass(frozen=True)
class NotApplicable(Skip):
    name: str
    reason: str  # a field may give what the base declares


def test_results_share_three_bases_and_keep_their_own_fields() -> None:
    results = [Checked(3), Refused("safety", ("import os", "eval")), NotApplicable("trips", "no trips")]
    assert [type(r).__mro__[1] for r in results] == [Success, Failure, Skip]
    assert [f.name for f in fields(NotApplicable)] == ["name", "reason"]  # own order, positional
    failures = [r.message for r in results if isinstance(r, Failure)]
    skips = [r.reason for r in results if isinstance(r, Skip)]
    assert failures == ["safety: import os; eval"] and skips == ["no trips"]
    with pytest.raises(AttributeError):
        NotApplicable("x", "y").reason = "z"  # type: ignore[misc]  # frozen

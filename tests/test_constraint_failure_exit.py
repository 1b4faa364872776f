"""A user constraint that raises: `uac alerts` names it on one line and exits 1, while the
other constraints' alerts are still reported (text and JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

Uac = Callable[..., Any]
USER = "ida"

BROKEN = '''
from constraints import constraint


@constraint(name="my_budget", needs=("bills",))
def my_budget(module, now):
    raise RuntimeError("budget file\\nis missing\\n  (line two)")
    yield
'''


def _seed(uac: Uac, home: Path) -> None:
    (home / "constraints").mkdir(parents=True)
    (home / "constraints" / "budget.py").write_text(BROKEN, encoding="utf-8")
    assert uac("add", USER, "bill", "--kind", "bill", "--field", "payee=Power Co",
               "--field", "due_date=2030-01-03").code == 0
    assert uac("checkpoint", USER, "--now", "2029-01-01").code == 0


def test_a_raising_user_constraint_exits_1_with_one_line(uac: Uac, home: Path) -> None:
    _seed(uac, home)
    r = uac("alerts", USER, "--now", "2030-01-01")
    assert r.code == 1
    assert r.err.splitlines() == ["constraint my_budget failed: RuntimeError: budget file is missing (line two)"]
    assert "Power Co" in r.out and "Traceback" not in r.out + r.err  # the built-ins still report


def test_a_raising_user_constraint_exits_1_in_json_too(uac: Uac, home: Path) -> None:
    _seed(uac, home)
    r = uac("alerts", USER, "--now", "2030-01-01", "--json")
    assert r.code == 1
    data = json.loads(r.out)
    assert [e["constraint"] for e in data["errors"]] == ["my_budget"]
    assert [a["constraint"] for a in data["raised"]] == ["bills_due"]

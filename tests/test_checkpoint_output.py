"""What `uac checkpoint` prints of the alerts: the news in full, the alerts still active up
to a limit, then how many more (a user with thousands of active alerts is told the count,
not handed every line: `uac alerts USER` lists them all)."""

from __future__ import annotations

import io

from rich.console import Console

from constraints.model import Alert
from constraints.runner import AlertDiff
from runtime.cli_output import CHECKPOINT_ACTIVE, print_alerts


def _alert(n: int) -> Alert:
    return Alert(f"a{n}", "overlap", "warning", f"alert number {n}", (n,))


def _printed(diff: AlertDiff, **options: object) -> list[str]:
    console = Console(file=io.StringIO(), highlight=False, soft_wrap=True, width=200)
    print_alerts(diff, console=console, **options)  # type: ignore[arg-type]
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def test_a_checkpoint_lists_the_news_in_full_and_counts_the_rest_of_the_active_alerts() -> None:
    active = tuple(_alert(n) for n in range(CHECKPOINT_ACTIVE + 7))
    diff = AlertDiff(raised=(_alert(1000),), still_active=active, resolved=(_alert(2000),))
    lines = _printed(diff, active_limit=CHECKPOINT_ACTIVE, user="ana")
    assert sum("active" in line and "alert number" in line for line in lines) == CHECKPOINT_ACTIVE
    assert any("NEW" in line and "alert number 1000" in line for line in lines)
    assert any("resolved" in line and "alert number 2000" in line for line in lines)
    assert any(line.strip() == "7 more alerts still active (`uac alerts ana` lists them)" for line in lines)


def test_uac_alerts_still_lists_every_active_alert() -> None:
    active = tuple(_alert(n) for n in range(CHECKPOINT_ACTIVE + 7))
    lines = _printed(AlertDiff(raised=(), still_active=active, resolved=()))
    assert sum("alert number" in line for line in lines) == CHECKPOINT_ACTIVE + 7
    assert not any("more alerts" in line for line in lines)


def test_few_active_alerts_are_all_listed_with_no_count_line() -> None:
    diff = AlertDiff(raised=(), still_active=(_alert(1), _alert(2)), resolved=())
    lines = _printed(diff, active_limit=CHECKPOINT_ACTIVE)
    assert sum("alert number" in line for line in lines) == 2 and not any("more alerts" in line for line in lines)

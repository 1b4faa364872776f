"""The `uac` Typer app and what its command modules share (workspace, output helpers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from factlog.model import Fact
from runtime.memory import Memory

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="user-as-code: a user's memory as a typed, validated, versioned Python module.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

JsonOpt = typer.Option(False, "--json", help="Print exact JSON for programs.")


class State:
    home: Optional[Path] = None


@app.callback()
def _root(home: Optional[Path] = typer.Option(
        None, "--home", envvar="UAC_HOME", help="Workspace folder (default ~/.uac).")) -> None:
    State.home = home


def memory() -> Memory:
    return Memory.open(State.home)


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n")


def fact_table(facts: list[Fact], title: str | None = None) -> Table:
    table = Table(title=title, show_lines=False)
    for column in ("id", "kind", "key", "text", "source"):
        table.add_column(column, overflow="fold")
    for f in facts:
        p = f.provenance
        source = f"{p.session_id}#{p.message_index}" if p.session_id else ""
        text = escape(f.text if len(f.text) <= 160 else f.text[:157] + "...")
        if f.retracts:
            text = f"[red]{text}[/red]"
        table.add_row(str(f.id), escape(f.kind or ""), escape(f.key or ""), text, escape(source))
    return table

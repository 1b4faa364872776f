"""The `uac` Typer app and what its command modules share (workspace, output helpers).

Start-up cost is paid per command: this module and the command modules import only typer
and the fact log; each command imports what it uses inside its body (the compiler, the
validator, pydantic models, rich's tables), and the consoles load rich on first print.
`tests/test_cli_imports.py` holds `uac add` and `uac query` to their import sets.
"""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any, Optional, cast

import typer

from runtime.cli_params import TextParamsGroup

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from factlog.model import Fact
    from runtime.memory import Memory

app = typer.Typer(cls=TextParamsGroup, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="user-as-code: a user's memory as a typed, validated, versioned Python module.")


class _LazyConsole:
    """A rich `Console` made (and rich imported) on first use; attributes set on the proxy
    (a test replacing `print`) win over the console's own."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)


out = cast("Console", _LazyConsole(highlight=False, soft_wrap=True))
err = cast("Console", _LazyConsole(stderr=True, highlight=False, soft_wrap=True))

JsonOpt = typer.Option(False, "--json", help="Print exact JSON for programs.")


# Commands that only read the workspace: they open it read-only (SQLite `mode=ro`), so they
# work in a workspace this process cannot write, and never create one.
READ_ONLY_COMMANDS = frozenset({"log", "users", "verify", "export", "show", "history", "diff", "query",
                                "manifest"})


class State:
    home: Optional[str] = None
    store: Optional[str] = None
    debug: bool = False
    command: Optional[str] = None
    mem: Optional[Memory] = None

    @classmethod
    def reset(cls) -> None:
        cls.home, cls.store, cls.debug, cls.command, cls.mem = None, None, False, None, None


@app.callback()
def _root(ctx: typer.Context, home: Optional[str] = typer.Option(
        None, "--home", envvar="UAC_HOME", help="Workspace folder (default ~/.uac)."),
          store: Optional[str] = typer.Option(
        None, "--store", envvar="UAC_STORE",
        help="Where the fact log lives: postgresql://user@host/db (default: facts.db in the workspace)."),
          debug: bool = typer.Option(False, "--debug", help="On an unexpected error, show the traceback.")) -> None:
    State.home = home
    State.store = store
    State.debug = State.debug or debug
    State.command = ctx.invoked_subcommand


def memory() -> Memory:
    """The workspace's `Memory`, opened once per command: read-only for commands that only read."""
    if State.mem is None:
        from runtime.memory import Memory

        State.mem = Memory.open(State.home, read_only=State.command in READ_ONLY_COMMANDS, store=State.store)
    return State.mem


def close_memory() -> None:
    if State.mem is not None:
        mem, State.mem = State.mem, None
        mem.close()


_EMOJI_CODE = re.compile(r":\S*?:")  # what rich would replace by an emoji (`:smile:`)


def say(text: str) -> None:
    """Print `text` and a newline as plain text (no markup), as `out.print(text, markup=False)`
    does: written directly when the console would print it unchanged (printable, no
    `:emoji:` code), so a short command need not load rich; through the console otherwise."""
    if text.isprintable() and _EMOJI_CODE.search(text) is None:
        sys.stdout.write(text + "\n")
    else:
        out.print(text, markup=False)


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n")


def fact_table(facts: list[Fact], title: str | None = None) -> Table:
    from rich.markup import escape
    from rich.table import Table

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

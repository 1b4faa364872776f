"""`uac`: the command line. Readable output for people (rich), exact JSON with `--json`.

The error contract (README, "Errors and exit codes"):

- exit 0: done; exit 1: the command ran and found a problem (a failed checkpoint or verify);
- exit 2: bad input or usage (any `factlog.errors.UacError`: `InputError`, `NotFound`, ...;
  an unknown option, a missing argument): ONE line on stderr, `error: ...`, and nothing was
  written;
- exit 1 also for an unexpected error: one line `unexpected error: ...` and a hint;
  `uac --debug ...` prints the traceback as well.

With `--json`, the error is also a JSON document on stdout: `{"error": "...", "exit": 2}`.

At exit the objects still alive are frozen (`gc.freeze`): the interpreter's teardown then
does not walk them looking for cycles (a third of a short command's time), and the
operating system takes the memory back. Every file and the log are closed by then
(`close_memory`, `with` blocks); what is freed by reference counting still is.
"""

from __future__ import annotations

import atexit
import copy
import gc
import json
import sys
import traceback
from typing import NoReturn, Sequence

import typer
from typer.main import get_command_name

import runtime.cli_facts  # noqa: F401  (registers the fact commands)
import runtime.cli_modules  # noqa: F401  (registers the version, query and alert commands)
from factlog.errors import UacError
from runtime.cli_app import State, app, close_memory, err

__all__ = ["app", "main"]

atexit.register(gc.freeze)  # runs before the teardown: see the module docstring

MAX_MESSAGE = 2000
HINT = "run again with --debug for the traceback"
INTERRUPTED = 130


def one_line(message: str) -> str:
    """A message on one line (any line break becomes a space), at most MAX_MESSAGE characters."""
    text = " ".join(part.strip() for part in message.splitlines() if part.strip()) or "(no message)"
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 3] + "..."


def fail(message: str, code: int = 2, as_json: bool = False) -> NoReturn:
    """Report an error in one line (stderr; also JSON on stdout with --json) and exit."""
    message = one_line(message)
    if as_json:
        sys.stdout.write(json.dumps({"error": message, "exit": code}, ensure_ascii=False) + "\n")
    err.print(message if message.startswith("unexpected error:") else f"error: {message}", markup=False)
    sys.exit(code)


def _split_flags(args: list[str]) -> tuple[list[str], bool, bool]:
    """(args without `--debug`, debug, json): both flags are honoured anywhere before `--`."""
    end = args.index("--") if "--" in args else len(args)
    head, tail = args[:end], args[end:]
    return [a for a in head if a != "--debug"] + tail, "--debug" in head, "--json" in head


def _usage_message(exc: typer.TyperException) -> str:
    format_message = getattr(exc, "format_message", None)
    message = format_message() if callable(format_message) else str(exc)
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None) or "uac"
    return f"{message.rstrip('.')} (see `{path} --help`)"


def _command_name(args: list[str]) -> str | None:
    """The command word of `args` (after the root's `--home`), None when an option comes first."""
    at = 0
    while at < len(args):
        token = args[at]
        if token == "--home":
            at += 2
        elif token.startswith("--home="):
            at += 1
        else:
            return None if token.startswith("-") else token
    return None


def _app_for(name: str | None) -> typer.Typer:
    """The app a run calls: typer makes a click command of every registered command
    (reading its signature) before it runs any, so a run naming a command gets a copy of
    the app holding that one alone; help, or a name that is no command, gets them all
    (typer's own listing and errors)."""
    found = [c for c in app.registered_commands
             if name is not None and (c.name or get_command_name(getattr(c.callback, "__name__", ""))) == name]
    if len(found) != 1:
        return app
    single = copy.copy(app)
    single.registered_commands = found
    return single


def main(argv: Sequence[str] | None = None) -> None:
    args, debug, as_json = _split_flags(list(sys.argv[1:] if argv is None else argv))
    State.reset()
    State.debug = debug
    try:
        try:
            code = _app_for(_command_name(args))(args=args, prog_name="uac", standalone_mode=False)
        finally:
            close_memory()
    except UacError as exc:  # every user-facing error: InputError, NotFound, ...
        fail(str(exc), 2, as_json)
    except typer.TyperException as exc:  # click's usage errors: unknown option, missing argument, ...
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `uac`: the help, as usual
            getattr(exc, "show")()
            sys.exit(2)
        fail(_usage_message(exc), int(getattr(exc, "exit_code", 2)), as_json)
    except (typer.Abort, KeyboardInterrupt):  # Ctrl-C: what was committed stays, nothing half-written
        fail("interrupted", 1, as_json)
    except Exception as exc:  # a bug, or the machine (disk full, ...): one line and a hint
        if State.debug:
            traceback.print_exc()
        fail(f"unexpected error: {type(exc).__name__}: {exc}; {HINT}", 1, as_json)
    if code == INTERRUPTED:  # typer turns Ctrl-C into this exit code
        fail("interrupted", 1, as_json)
    sys.exit(code if isinstance(code, int) else 0)

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
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence

if TYPE_CHECKING:
    import typer

    from runtime.memory import Memory

__all__ = ["main", "run"]  # and `app`, made on first use (see __getattr__)

atexit.register(gc.freeze)  # runs before the teardown: see the module docstring

MAX_MESSAGE = 2000
HINT = "run again with --debug for the traceback"
INTERRUPTED = 130


def __getattr__(name: str) -> object:
    """`app` (the Typer app with every command), imported on first use: a command the warm
    worker runs never loads typer in the `uac` process."""
    if name == "app":
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _app() -> typer.Typer:
    import runtime.cli_agents  # noqa: F401  (registers `uac mcp` and `uac tools`)
    import runtime.cli_eval  # noqa: F401  (registers `uac eval`)
    import runtime.cli_facts  # noqa: F401  (registers the fact commands)
    import runtime.cli_modules  # noqa: F401  (registers the version, query and alert commands)
    import runtime.cli_serve  # noqa: F401  (registers `uac serve`, `uac tenants`, `uac keys`)
    import runtime.cli_warm  # noqa: F401  (registers `uac warm`)
    import runtime.cli_worker  # noqa: F401  (registers `uac worker`)
    from runtime.cli_app import app

    return app


_SERVED: list[Callable[..., Any]] = []


def _served() -> Callable[..., Any]:
    """For a process serving many commands (the warm worker): the app's click command, made
    once (typer makes it again on every call, ~20 ms)."""
    if not _SERVED:
        from typer.main import get_command

        _SERVED.append(get_command(_app()))
    return _SERVED[0]


def one_line(message: str) -> str:
    """A message on one line (any line break becomes a space), at most MAX_MESSAGE characters."""
    text = " ".join(part.strip() for part in message.splitlines() if part.strip()) or "(no message)"
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 3] + "..."


def fail(message: str, code: int = 2, as_json: bool = False) -> NoReturn:
    """Report an error in one line (stderr; also JSON on stdout with --json) and exit."""
    from runtime.cli_app import err

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
    """The command word of `args` (after the root's `--home`, `--store`), None when an option comes first."""
    at = 0
    while at < len(args):
        token = args[at]
        if token in ("--home", "--store"):
            at += 2
        elif token.startswith(("--home=", "--store=")):
            at += 1
        else:
            return None if token.startswith("-") else token
    return None


def _app_for(app: typer.Typer, name: str | None) -> typer.Typer:
    """The app a run calls: typer makes a click command of every registered command
    (reading its signature) before it runs any, so a run naming a command gets a copy of
    the app holding that one alone; help, or a name that is no command, gets them all
    (typer's own listing and errors)."""
    from typer.main import get_command_name

    found = [c for c in app.registered_commands
             if name is not None and (c.name or get_command_name(getattr(c.callback, "__name__", ""))) == name]
    if len(found) != 1:
        return app
    single = copy.copy(app)
    single.registered_commands = found
    single.registered_groups = []  # (`uac warm ...` is a group: a run naming it gets the whole app)
    return single


def main(argv: Sequence[str] | None = None) -> None:
    """`uac ARGS`: in the workspace's warm worker when it takes the command
    (runtime.warm_client), else here; a worker is started afterwards when the mode says so."""
    args = list(sys.argv[1:] if argv is None else argv)
    from runtime.warm_client import route

    plan = route(args)
    if plan.code is not None:
        sys.exit(plan.code)
    try:
        run(args)
    finally:
        if plan.spawn is not None:
            plan.spawn()


def run(argv: list[str], shared: Memory | None = None) -> NoReturn:
    """Run one command line in this process and exit (SystemExit) with its code. `shared`:
    the `Memory` the command uses (the warm worker's, kept open), instead of its own."""
    import traceback

    import typer

    from factlog.errors import UacError
    from runtime.cli_app import State, close_memory

    args, debug, as_json = _split_flags(argv)
    application: Callable[..., Any] = _app_for(_app(), _command_name(args)) if shared is None else _served()
    State.reset()
    State.debug = debug
    State.mem = shared
    try:
        try:
            code = application(args=args, prog_name="uac", standalone_mode=False)
        finally:
            if shared is not None:
                State.mem = None  # the worker's, not this command's to close
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

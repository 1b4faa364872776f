"""`uac`: the command line. Readable output for people (rich), exact JSON with `--json`.

Bad input exits with status 2 and a one-line message on stderr; nothing is written.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import runtime.cli_facts  # noqa: F401  (registers the fact commands)
import runtime.cli_modules  # noqa: F401  (registers the version, query and alert commands)
from factlog.errors import InputError, NotFound
from runtime.cli_app import app, err

__all__ = ["app", "main"]


def fail(message: str) -> NoReturn:
    err.print(f"error: {message}", markup=False)
    sys.exit(2)


def main() -> None:
    try:
        app()
    except (InputError, NotFound) as exc:
        fail(str(exc))

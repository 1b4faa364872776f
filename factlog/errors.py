"""The errors a user is meant to read, rooted in one class.

`UacError` is the root of every user-facing error: its message is one clear sentence,
nothing was written, and the CLI reports it as `error: ...` with exit 2 (it catches the
root, so a new user-facing error needs no CLI change: derive it from `UacError`, or from
one of the classes below). Everything else that escapes is a bug or the machine (exit 1,
"unexpected error").

`InputError` stays a `ValueError` and `NotFound` a `LookupError`, so code that catches
those keeps working.
"""


class UacError(Exception):
    """An error for the user: one line, nothing written (the CLI's exit 2)."""


class InputError(UacError, ValueError):
    """Untrusted input was refused; nothing was written. The message says why."""


class NotFound(UacError, LookupError):
    """A named user, fact or version does not exist."""

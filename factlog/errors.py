"""Errors that cross the factlog boundary."""


class InputError(ValueError):
    """Untrusted input was refused; nothing was written. The message says why."""


class NotFound(LookupError):
    """A named user, fact or version does not exist."""

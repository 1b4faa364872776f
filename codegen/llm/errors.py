"""The one-line errors of model calls (all user-facing: the CLI's exit 2, no traceback)."""

from __future__ import annotations

from factlog.errors import InputError, UacError


class ModelUnavailable(UacError):
    """The endpoint did not answer after the client's retries, or refused the request:
    `model endpoint http://…/v1 (model m): HTTP 503 after 3 attempts`."""


class NoModelConfigured(InputError):
    """No endpoint or model is configured (or one given is not valid); the message names
    the environment variable or option to set."""


class ModelRequestRefused(InputError):
    """`UAC_ALLOW_MODEL_REQUESTS=0` (the tests) and the endpoint is not on this machine:
    no request was made."""


class StructuredOutputError(UacError):
    """The model's answer did not validate, even after the one re-ask. `raw` is its last
    answer and `errors` the validation error, for storing as a failure."""

    def __init__(self, message: str, *, raw: str, errors: str) -> None:
        super().__init__(message)
        self.raw = raw
        self.errors = errors

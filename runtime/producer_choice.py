"""The producer a checkpoint uses, with the workspace's settings: one place for the CLI,
`uac watch` and the API (`Memory.checkpoint(user, "llm")`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from factlog.errors import InputError
from runtime.workspace import SETTINGS_FILE

if TYPE_CHECKING:
    from codegen.producer import Producer


def workspace_producer(home: Path, producer: Producer | str | None, *, full: bool = False) -> Producer:
    """The one place a producer meets the workspace's settings (the CLI, `uac watch`, the
    API): None is the producer `settings.json` names (the compiler without a file); a name
    is the registered producer; either is then `with_settings`. A producer OBJECT is the
    caller's, already configured, and is used as it is."""
    from codegen.producer import CompilerProducer, producer_named

    if producer is not None and not isinstance(producer, str):
        return producer
    if producer is None and not full and not (Path(home) / SETTINGS_FILE).exists():
        return CompilerProducer()  # no settings file: the compiler (pydantic not loaded)
    from runtime.settings import settings_producer

    return with_settings(home, producer_named(settings_producer(home) if producer is None else producer), full)


def with_settings(home: Path, chosen: Producer, full: bool = False) -> Producer:
    """`chosen` with `llm.*` of `settings.json` and `full`, when it has
    `configured(settings=, full=)` (the llm producer); `full` for a producer without an
    incremental mode is InputError (one line)."""
    configure = getattr(chosen, "configured", None)
    if callable(configure):
        from runtime.settings import load_settings

        configured: Producer = configure(settings=load_settings(home).llm, full=full)
        return configured
    if full:
        raise InputError(f"--full: producer {chosen.name!r} has no incremental mode to bypass; "
                         "its every checkpoint is already a full build")
    return chosen

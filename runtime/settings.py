"""Workspace settings: `<home>/settings.json`, all optional.

    {"format": 1,
     "producer": "compiler",                       # who writes a version (the default producer)
     "checkpoint": {"every_facts": 1, "every_seconds": null},   # `uac watch`'s policy
     "llm": {"base_url": "...", "model": "...", "timeout_seconds": 60, "max_repairs": 2},
     "retention": {"keep": 20},                    # `uac gc`: versions kept per user (default: all)
     "warm": {"mode": "auto", "idle_minutes": 10, "min_log_mb": 4}}   # the warm worker (runtime.warm_client)

A missing file means the defaults; a file that is not valid settings is refused with one
line naming it (exit 2). Command-line options win over the file. No secrets belong here:
an API key comes only from the environment, and an `api_key` in the file is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

from factlog.errors import InputError
from factlog.formats import Format
from runtime.warm_client import DEFAULT_MIN_LOG_MB, DEFAULT_MODE
from runtime.workspace import SETTINGS_FILE as SETTINGS_FILE
from users.checkpoint import CheckpointPolicy

MAX_SETTINGS_BYTES = 64 * 1024
_Seconds = Annotated[float, Field(strict=True, gt=0)]
_Name = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CheckpointSettings(_Section):
    """When `uac watch` checkpoints: after `every_facts` new facts, or when a new fact has
    waited `every_seconds` (users.checkpoint.CheckpointPolicy)."""

    every_facts: Annotated[StrictInt, Field(ge=1)] = 1
    every_seconds: Annotated[float, Field(strict=True, ge=0)] | None = None


class LlmSettings(_Section):
    """How an LLM producer reaches its model (read by that producer; the key: environment only)."""

    base_url: Annotated[StrictStr, Field(min_length=1, max_length=2048)] | None = None
    model: Annotated[StrictStr, Field(min_length=1, max_length=256)] | None = None
    timeout_seconds: _Seconds | None = None
    max_repairs: Annotated[StrictInt, Field(ge=0, le=100)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_secrets(cls, data: Any) -> Any:
        if isinstance(data, dict) and any("key" in str(k).lower() or "token" in str(k).lower() for k in data):
            raise ValueError("no API key or token in settings.json: give it in the environment")
        return data


class RetentionSettings(_Section):
    """What `uac gc` keeps of each user's versions: the newest `keep` (None: all), and always
    the current one (users.gc)."""

    keep: Annotated[StrictInt, Field(ge=1)] | None = None


class WarmSettings(_Section):
    """Whether `uac` runs the commands that read a user's package in the workspace's warm
    worker (`off`, `auto`, `on`; the `UAC_WARM` variable wins), when `auto` starts one (the
    fact log at least `min_log_mb`), and after how long idle it exits (runtime.warm_client).
    The client reads `mode` and `min_log_mb` from the file itself, without this model: a value
    it does not understand means `off`."""

    mode: Literal["off", "auto", "on"] = DEFAULT_MODE
    idle_minutes: Annotated[float, Field(strict=True, gt=0, le=24 * 60)] = 10.0
    min_log_mb: Annotated[float, Field(strict=True, ge=0)] = DEFAULT_MIN_LOG_MB


class Settings(Format):
    """`<home>/settings.json`, format 1."""

    FORMAT: ClassVar[int] = 1

    producer: _Name = "compiler"  # the producer `uac checkpoint` and `uac watch` use by default
    checkpoint: CheckpointSettings = CheckpointSettings()
    llm: LlmSettings = LlmSettings()
    retention: RetentionSettings = RetentionSettings()
    warm: WarmSettings = WarmSettings()

    def policy(self, every_facts: int | None = None, every_seconds: float | None = None) -> CheckpointPolicy:
        """The checkpoint policy: the options given, else these settings."""
        return CheckpointPolicy(
            self.checkpoint.every_facts if every_facts is None else every_facts,
            self.checkpoint.every_seconds if every_seconds is None else every_seconds,
        )


def load_settings(home: Path) -> Settings:
    """The workspace's settings; the defaults when it has no settings file."""
    path = Path(home) / SETTINGS_FILE
    try:
        with path.open("rb") as handle:
            text = handle.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(text) > MAX_SETTINGS_BYTES:
        raise InputError(f"{path}: larger than {MAX_SETTINGS_BYTES // 1024} KiB; is it settings?")
    return Settings.parse(text, source=str(path))


def settings_producer(home: Path) -> str:
    """The producer the settings name (the default `compiler`); InputError if unknown."""
    from codegen.producer import producer_names

    producer = load_settings(home).producer
    known = producer_names()
    if producer not in known:
        raise InputError(f"{Path(home) / SETTINGS_FILE}: unknown producer {producer!r}; known: "
                         f"{', '.join(known)}")
    return producer


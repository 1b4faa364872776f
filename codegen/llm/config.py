"""Where a model is: the endpoint's URL, key, model name, timeout and retries.

Each value comes from the first place that gives it: the explicit argument (a CLI option),
then the environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `UAC_MODEL`), then the
workspace settings (`llm.base_url`, `llm.model`, `llm.timeout_seconds`; never a key).
No base URL means OpenAI's own API, which needs a key; a local server (Ollama, vLLM,
llama.cpp) needs none. A model name is required, except that OpenAI's API with a key
defaults to `DEFAULT_OPENAI_MODEL`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

from codegen.llm.errors import NoModelConfigured

OPENAI_API_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_RETRIES = 2
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_MODEL = "UAC_MODEL"


class LlmSettingsLike(Protocol):
    """The workspace's `llm` settings section (runtime.settings.LlmSettings)."""

    @property
    def base_url(self) -> str | None: ...

    @property
    def model(self) -> str | None: ...

    @property
    def timeout_seconds(self) -> float | None: ...


def _pick(explicit: str | None, env: str, setting: str | None, option: str,
          setting_name: str) -> tuple[str | None, str]:
    """The first non-empty value of (argument, environment, settings) and where it came from."""
    if explicit:
        return explicit, option
    from_env = os.environ.get(env, "").strip()
    if from_env:
        return from_env, env
    if setting:
        return setting, f"settings.json {setting_name}"
    return None, ""


def check_base_url(url: str, source: str) -> str:
    """`url` without a trailing slash if it is an http(s) URL with a host; else one line
    naming where it came from."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        _ = parts.port  # raises ValueError on a bad port
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not host:
        raise NoModelConfigured(f"{source}: {url!r} is not an http:// or https:// URL "
                                "(e.g. http://localhost:11434/v1)")
    return url.strip().rstrip("/")


@dataclass(frozen=True)
class EndpointConfig:
    """One OpenAI-compatible endpoint and model. `base_url` None: OpenAI's API. The key is
    left out of the repr (it must never reach a log or an error)."""

    base_url: str | None
    api_key: str | None = field(repr=False)
    model: str
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES

    @property
    def url(self) -> str:
        """The URL requests go to."""
        return self.base_url or OPENAI_API_URL

    @classmethod
    def resolve(cls, *, base_url: str | None = None, api_key: str | None = None, model: str | None = None,
                timeout_s: float | None = None, settings: LlmSettingsLike | None = None,
                max_retries: int | None = None) -> "EndpointConfig":
        """The configuration from the arguments, else the environment, else `settings`;
        NoModelConfigured (one line saying what to set) if there is no model to call."""
        url, url_source = _pick(base_url, ENV_BASE_URL, settings.base_url if settings else None,
                                "--base-url", "llm.base_url")
        key, _ = _pick(api_key, ENV_API_KEY, None, "--api-key", "")
        name, _ = _pick(model, ENV_MODEL, settings.model if settings else None, "--model", "llm.model")
        if url is not None:
            url = check_base_url(url, url_source)
        if name is None:
            if url is None and key is None:
                raise NoModelConfigured(
                    f"no model configured: set {ENV_BASE_URL} and {ENV_MODEL} for a local server "
                    f"(e.g. {ENV_BASE_URL}=http://localhost:11434/v1), or {ENV_API_KEY} for OpenAI "
                    "(or give --base-url/--model, or llm.base_url/llm.model in settings.json)")
            if url is not None:
                raise NoModelConfigured(f"no model named for {url}: set {ENV_MODEL} "
                                        "(or give --model, or llm.model in settings.json)")
            name = DEFAULT_OPENAI_MODEL
        elif url is None and key is None:
            raise NoModelConfigured(f"model {name!r} but no endpoint: set {ENV_BASE_URL} for a local server "
                                    f"or {ENV_API_KEY} for OpenAI "
                                    "(or give --base-url, or llm.base_url in settings.json)")
        timeout = timeout_s if timeout_s is not None else (settings.timeout_seconds if settings else None)
        if timeout is None:
            timeout = DEFAULT_TIMEOUT_S
        if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
            raise NoModelConfigured(f"the model timeout must be a positive number of seconds, not {timeout!r}")
        retries = DEFAULT_MAX_RETRIES if max_retries is None else max_retries
        if retries < 0:
            raise NoModelConfigured(f"the number of retries must be 0 or more, not {retries}")
        return cls(base_url=url, api_key=key, model=name, timeout_s=float(timeout), max_retries=retries)

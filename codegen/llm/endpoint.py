"""The one owner of model calls: an OpenAI-compatible chat endpoint, through `openai`.

- `Endpoint.complete_text` asks for text; `Endpoint.complete_json` for an answer that
  validates against a pydantic model: sent with `response_format` (strict JSON Schema) where
  the server takes it, read tolerantly (the first JSON value in the answer that validates:
  prose and ``` fences around it are skipped),
  and re-asked ONCE with the validation error; still invalid -> `StructuredOutputError`
  carrying the raw answer. A server that refuses `response_format` (HTTP 400/422 naming it)
  is remembered per (URL, model) for the life of the process, and the schema goes into the
  prompt instead.
- Retries are the client's own (backoff on 429, 5xx, timeouts, connection errors, honouring
  `retry-after`); whatever is still failing becomes `ModelUnavailable`, one line.
- Every HTTP attempt is one `Call` in the endpoint's `Usage` (tokens, seconds, outcome).
- The test switch: with `UAC_ALLOW_MODEL_REQUESTS=0`, an endpoint not on this machine
  (127.0.0.1, localhost, ::1) is refused before any request (`ModelRequestRefused`).

`openai` and `pydantic` are imported on first use, so importing this module costs nothing.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar
from urllib.parse import urlsplit

from codegen.llm.config import EndpointConfig
from codegen.llm.errors import ModelRequestRefused, ModelUnavailable, NoModelConfigured, StructuredOutputError
from codegen.llm.json_answer import NO_JSON, json_candidates, schema_name, strict_schema
from codegen.llm.usage import Call, Usage, estimate_tokens

if TYPE_CHECKING:
    from pydantic import BaseModel

    M = TypeVar("M", bound=BaseModel)

__all__ = [
    "ALLOW_ENV", "Call", "Endpoint", "EndpointConfig", "ModelRequestRefused", "ModelUnavailable",
    "NoModelConfigured", "StructuredOutputError", "Usage", "requests_allowed",
]

ALLOW_ENV = "UAC_ALLOW_MODEL_REQUESTS"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
NO_KEY = "no-key-needed"  # what the client sends as the key to a server that needs none
MAX_DETAIL = 200
REASK = ("Your previous answer was not valid: {errors}\n"
         "Answer again with only the corrected JSON, nothing else.")
SCHEMA_IN_PROMPT = "Answer with only one JSON value that matches this JSON Schema, nothing else:\n{schema}"

_no_response_format: set[tuple[str, str]] = set()  # (url, model) of servers that refused it
_no_response_format_lock = threading.Lock()


def requests_allowed(url: str) -> bool:
    """False when the switch is off (`UAC_ALLOW_MODEL_REQUESTS=0`) and `url` is not local."""
    if os.environ.get(ALLOW_ENV, "").strip() != "0":
        return True
    host = (urlsplit(url).hostname or "").lower()
    return host in LOCAL_HOSTS


def _one_line(text: str, limit: int = MAX_DETAIL) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _plural(n: int) -> str:
    return f"{n} attempt" + ("" if n == 1 else "s")


def _server_message(exc: Any) -> str:
    """The server's own error message in an openai status error, if it gave one."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            for key in ("message", "detail"):
                if isinstance(inner.get(key), str):
                    return _one_line(inner[key])
        elif isinstance(inner, str):
            return _one_line(inner)
        if isinstance(body.get("detail"), str):
            return _one_line(body["detail"])
    elif isinstance(body, str) and body.strip():
        return _one_line(body)
    return ""


def _refuses_response_format(exc: Exception) -> bool:
    """The server refused a request that carried `response_format`, naming it, its schema,
    a grammar (llama.cpp turns the schema into one) or something unsupported."""
    status = getattr(exc, "status_code", None)
    if status not in (400, 422):
        return False
    text = (str(getattr(exc, "body", "")) + " " + str(exc)).lower()
    return any(word in text for word in ("response_format", "schema", "grammar", "structured output",
                                         "not supported", "unsupported"))


class _FormatRefused(Exception):
    """Internal: the server refused `response_format`; ask again without it."""


@dataclass
class _Attempt:
    start: float
    status: int | None = None
    end: float | None = None


_local = threading.local()  # this thread's current call: its HTTP attempts
_clients: dict[tuple[str, str, float, int], Any] = {}
_clients_lock = threading.Lock()


def _forget_clients_in_child() -> None:
    """A forked child makes its own clients: it must not share the parent's connections."""
    global _clients_lock
    _clients_lock = threading.Lock()
    _clients.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_clients_in_child)


def _attempts() -> list[_Attempt]:
    attempts: list[_Attempt] | None = getattr(_local, "attempts", None)
    if attempts is None:
        attempts = _local.attempts = []
    return attempts


def _on_request(request: Any) -> None:
    _attempts().append(_Attempt(time.monotonic()))


def _on_response(response: Any) -> None:
    attempts = _attempts()
    if attempts:
        attempts[-1].status = int(response.status_code)
        attempts[-1].end = time.monotonic()


def _shared_client(config: EndpointConfig) -> Any:
    """One `openai.OpenAI` per (URL, key, timeout, retries) in the process (making one costs
    an SSL context); its HTTP hooks record each attempt in the calling thread's list."""
    key = (config.url, config.api_key or NO_KEY, config.timeout_s, config.max_retries)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            import openai

            hooks: dict[str, list[Callable[..., Any]]] = {"request": [_on_request], "response": [_on_response]}
            client = _clients[key] = openai.OpenAI(
                base_url=config.url, api_key=config.api_key or NO_KEY, timeout=config.timeout_s,
                max_retries=config.max_retries, http_client=openai.DefaultHttpxClient(event_hooks=hooks))
        return client


_schema_cache: dict[type[Any], tuple[dict[str, Any], dict[str, Any], str]] = {}


def _schemas(schema: type[Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(JSON Schema, its strict form, name) of a pydantic model, made once per class;
    shared, never mutated."""
    found = _schema_cache.get(schema)
    if found is None:
        schema_json: dict[str, Any] = schema.model_json_schema()
        if len(_schema_cache) >= 256:  # classes made on the fly must not pile up
            _schema_cache.clear()
        found = _schema_cache[schema] = (schema_json, strict_schema(schema_json), schema_name(schema.__name__))
    return found


def _validation_errors(exc: Any) -> str:
    """A pydantic ValidationError as `loc: message` parts joined by `; ` (no links)."""
    parts = []
    for error in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in error.get("loc", ())) or "(the whole answer)"
        parts.append(f"{loc}: {error.get('msg', 'invalid')}")
    return "; ".join(parts) or str(exc)


class Endpoint:
    """Model calls to one endpoint and model; the calls made are in `usage`.

    Safe to share between threads (each call counts its own attempts)."""

    def __init__(self, config: EndpointConfig, usage: Usage | None = None) -> None:
        self.config = config
        self.usage = usage if usage is not None else Usage()
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._check_allowed()

    # -- the client ------------------------------------------------------------------
    def _where(self) -> str:
        return f"model endpoint {self.config.url} (model {self.config.model})"

    def _check_allowed(self) -> None:
        if not requests_allowed(self.config.url):
            raise ModelRequestRefused(
                f"model requests are off ({ALLOW_ENV}=0) and {self.config.url} is not on this machine: "
                "no request was made")

    def _openai(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = _shared_client(self.config)
            return self._client

    def close(self) -> None:
        """Forget the client (it is shared in-process with endpoints of the same configuration)."""
        with self._client_lock:
            self._client = None

    def __enter__(self) -> "Endpoint":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one chat call, every attempt recorded ---------------------------------------
    def _record(self, attempts: list[_Attempt], *, purpose: str, reask: bool, ok: bool, error: str,
                tokens: tuple[int, int, bool] = (0, 0, False)) -> int:
        """Record the attempts of one call (the last one `ok` or failing with `error`);
        returns how many there were."""
        now = time.monotonic()
        if not attempts:
            attempts = [_Attempt(now)]
        for i, attempt in enumerate(attempts[:-1]):
            if attempt.end is not None:
                seconds = attempt.end - attempt.start
                why = f"HTTP {attempt.status}"
            else:  # no answer: a timeout or a failed connection (the gap holds the backoff)
                seconds = min(attempts[i + 1].start - attempt.start, self.config.timeout_s)
                why = "no answer (timeout or connection error)"
            self.usage.add(Call(purpose, self.config.model, 0, 0, seconds, False, False, why, i + 1, reask))
        last = attempts[-1]
        seconds = (now if ok or last.end is None else last.end) - last.start
        prompt, completion, estimated = tokens
        self.usage.add(Call(purpose, self.config.model, prompt, completion, seconds, ok, estimated,
                            "" if ok else error, len(attempts), reask))
        return len(attempts)

    def _chat(self, messages: list[dict[str, str]], *, purpose: str, max_tokens: int | None,
              response_format: dict[str, Any] | None, reask: bool) -> str:
        self._check_allowed()
        client = self._openai()
        kwargs: dict[str, Any] = {"model": self.config.model, "messages": messages}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if response_format is not None:
            kwargs["response_format"] = response_format
        attempts = _local.attempts = []
        try:
            response = client.chat.completions.create(**kwargs)
        except Exception as exc:
            import openai

            if not isinstance(exc, openai.OpenAIError):
                raise
            refused = response_format is not None and _refuses_response_format(exc)
            why = "response_format refused" if refused else self._why(exc)
            count = self._record(attempts, purpose=purpose, reask=reask, ok=False, error=why)
            if refused:
                raise _FormatRefused() from None
            raise ModelUnavailable(f"{self._where()}: {self._failure(exc, count)}") from None
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError, KeyError, TypeError):
            count = self._record(attempts, purpose=purpose, reask=reask, ok=False, error="malformed answer")
            raise ModelUnavailable(f"{self._where()}: the answer is not a chat completion "
                                   f"(no choices[0].message) after {_plural(count)}") from None
        text = content if isinstance(content, str) else ""
        self._record(attempts, purpose=purpose, reask=reask, ok=True, error="",
                     tokens=self._tokens(response, messages, text))
        return text

    @staticmethod
    def _tokens(response: Any, messages: list[dict[str, str]], text: str) -> tuple[int, int, bool]:
        """(prompt, completion, estimated): the server's `usage`, else characters / 4."""
        usage = getattr(response, "usage", None)
        prompt = getattr(usage, "prompt_tokens", None)
        completion = getattr(usage, "completion_tokens", None)
        if isinstance(prompt, int) and isinstance(completion, int):
            return prompt, completion, False
        sent = "".join(str(m.get("content", "")) for m in messages)
        return estimate_tokens(sent), estimate_tokens(text), True

    def _why(self, exc: Exception) -> str:
        status = getattr(exc, "status_code", None)
        if isinstance(status, int):
            return f"HTTP {status}"
        return "timeout" if type(exc).__name__ == "APITimeoutError" else _one_line(type(exc).__name__)

    def _failure(self, exc: Exception, attempts: int) -> str:
        """The clause after `model endpoint … (model …): ` for a failed call."""
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return f"no answer within {self.config.timeout_s:g} s, after {_plural(attempts)}"
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = _one_line(str(cause)) if cause is not None and str(cause) else type(exc).__name__
            return f"cannot connect ({detail}) after {_plural(attempts)}"
        if isinstance(exc, openai.APIStatusError):
            message = _server_message(exc)
            return f"HTTP {exc.status_code} after {_plural(attempts)}" + (f": {message}" if message else "")
        return f"{type(exc).__name__} after {_plural(attempts)}: {_one_line(str(exc))}"

    # -- the public calls -------------------------------------------------------------
    def complete_text(self, messages: list[dict[str, str]], *, purpose: str, max_tokens: int | None = None) -> str:
        """The model's text answer to `messages` (ModelUnavailable if none came)."""
        return self._chat(messages, purpose=purpose, max_tokens=max_tokens, response_format=None, reask=False)

    def structured_output(self) -> bool:
        """Whether requests to this endpoint carry `response_format` (no refusal seen yet)."""
        with _no_response_format_lock:
            return (self.config.url, self.config.model) not in _no_response_format

    def _ask_json(self, messages: list[dict[str, str]], schema: type[Any], *,
                  purpose: str, max_tokens: int | None, reask: bool) -> str:
        schema_json, strict, name = _schemas(schema)
        if self.structured_output():
            response_format = {"type": "json_schema", "json_schema": {"name": name, "schema": strict, "strict": True}}
            try:
                return self._chat(messages, purpose=purpose, max_tokens=max_tokens,
                                  response_format=response_format, reask=reask)
            except _FormatRefused:
                with _no_response_format_lock:
                    _no_response_format.add((self.config.url, self.config.model))
        prompt = SCHEMA_IN_PROMPT.format(schema=json.dumps(schema_json, separators=(",", ":")))
        return self._chat([*messages, {"role": "system", "content": prompt}], purpose=purpose,
                          max_tokens=max_tokens, response_format=None, reask=reask)

    def complete_json(self, messages: list[dict[str, str]], schema: type[M], *, purpose: str,
                      max_tokens: int | None = None) -> M:
        """The model's answer as a valid `schema` instance (see the module's docstring)."""
        from pydantic import ValidationError

        def parse(text: str) -> tuple[M | None, str]:
            """The first candidate that validates; else the errors of the first object."""
            errors: list[tuple[bool, str]] = []
            for value in json_candidates(text):
                try:
                    return schema.model_validate(value), ""
                except ValidationError as exc:
                    errors.append((isinstance(value, dict), _validation_errors(exc)))
            if not errors:
                return None, NO_JSON
            return None, next((e for is_object, e in errors if is_object), errors[0][1])

        text = self._ask_json(messages, schema, purpose=purpose, max_tokens=max_tokens, reask=False)
        answer, errors = parse(text)
        if answer is not None:
            return answer
        again = [*messages, {"role": "assistant", "content": text},
                 {"role": "user", "content": REASK.format(errors=errors)}]
        text = self._ask_json(again, schema, purpose=purpose, max_tokens=max_tokens, reask=True)
        answer, errors = parse(text)
        if answer is not None:
            return answer
        raise StructuredOutputError(
            f"{self._where()}: the answer for {purpose} is not a valid {schema.__name__} after one re-ask: "
            f"{_one_line(errors)}", raw=text, errors=errors)

    def models(self) -> list[str]:
        """The model names the server lists (`GET /models`); ModelUnavailable if it does not answer."""
        self._check_allowed()
        client = self._openai()
        _local.attempts = []
        try:
            return [str(model.id) for model in client.models.list()]
        except Exception as exc:
            import openai

            if not isinstance(exc, openai.OpenAIError):
                raise
            raise ModelUnavailable(f"{self._where()}: {self._failure(exc, max(1, len(_attempts())))}") from None

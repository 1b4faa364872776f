"""The HTTP API's limits: request bodies at most `max_bytes` (413), and a token bucket per API
key (429 with Retry-After). Both answer with the API's error shape, `{"error": "one line"}`."""

from __future__ import annotations

import json
import math
import threading
import time
from typing import Any, Awaitable, Callable, Final, MutableMapping

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY_BYTES: Final = 1 << 20


async def send_error(send: Send, status: int, message: str, headers: dict[str, str] | None = None) -> None:
    """A complete JSON error response, written straight to the ASGI `send`."""
    body = json.dumps({"error": message}, ensure_ascii=False).encode("utf-8")
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: a request whose body is over `max_bytes` (declared by Content-Length, or
    counted as it streams in) gets 413 and never reaches the app."""

    def __init__(self, app: Asgi, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = f"request body over the limit of {self.max_bytes:,} bytes"
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await send_error(send, 400, "bad Content-Length header")
                    return
                if declared > self.max_bytes:
                    await send_error(send, 413, too_large)
                    return
        chunks: list[bytes] = []
        size = 0
        while True:  # read the whole (small) body first: a stream that grows too long is refused
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await send_error(send, 413, too_large)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


class RateLimiter:
    """A token bucket per key: `rate` requests a second on average, bursts of `burst`."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a rate limit needs rate > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when the request may go; otherwise the seconds until one token is back."""
        with self._lock:
            now = self.clock()
            tokens, when = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - when) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


def retry_after(seconds: float) -> str:
    """The Retry-After header's value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))

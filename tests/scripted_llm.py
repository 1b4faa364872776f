"""A scripted OpenAI-compatible server for tests: a real HTTP server on 127.0.0.1.

`POST /v1/chat/completions` (non-streaming) answers from a queue of `Reply`s, else from a
function `request_json -> Reply | str`; `GET /v1/models` lists its one model. Every request
is recorded (parsed JSON, headers). Tokens in the `usage` it returns are characters / 4.
`json_schema=False` makes it answer 400 to a `response_format` of type json_schema, like a
server without structured output. With nothing scripted it answers 400 ("no reply
scripted"), so a test that asks more than it scripted fails at once instead of retrying.

    with ScriptedLLM() as llm:
        llm.queue('{"facts": []}', Reply(status=500))
        ... OPENAI_BASE_URL=llm.url ...
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

MODEL = "scripted-model"


@dataclass(frozen=True)
class Reply:
    """One answer: `text` as the assistant's message (status 200), or an error `status`
    (with `text` as its message); `body` replaces the whole JSON body; `delay_s` waits
    first (a slow server); `usage=False` leaves the token counts out."""

    text: str | None = None
    status: int = 200
    delay_s: float = 0.0
    body: dict[str, Any] | None = None
    usage: bool = True


@dataclass
class Request:
    method: str
    path: str
    json: Any
    headers: dict[str, str] = field(default_factory=dict)


def _tokens(text: str) -> int:
    return -(-len(text) // 4)


class ScriptedLLM:
    def __init__(self, respond: Callable[[Any], Reply | str] | None = None, *, json_schema: bool = True,
                 model: str = MODEL, retry_after_ms: int | None = 10) -> None:
        self.respond = respond
        self.json_schema = json_schema
        self.model = model
        self.retry_after_ms = retry_after_ms  # sent with 429/5xx so the client's backoff is short
        self.requests: list[Request] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="scripted-llm", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def queue(self, *replies: Reply | str) -> None:
        with self._lock:
            self._replies.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)

    @property
    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "ScriptedLLM":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next(self, request: Any) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        if self.respond is not None:
            reply = self.respond(request)
            return Reply(text=reply) if isinstance(reply, str) else reply
        return Reply(status=400, text="scripted server: no reply scripted")

    def _answer(self, request: Any) -> tuple[int, dict[str, Any], float]:
        """(status, body, delay) for a chat request."""
        response_format = request.get("response_format") if isinstance(request, dict) else None
        if (not self.json_schema and isinstance(response_format, dict)
                and response_format.get("type") == "json_schema"):
            return 400, {"error": {"message": "response_format of type json_schema is not supported",
                                   "type": "invalid_request_error", "param": "response_format"}}, 0.0
        reply = self._next(request)
        if reply.body is not None:
            return reply.status, reply.body, reply.delay_s
        if reply.status != 200:
            return reply.status, {"error": {"message": reply.text or f"scripted HTTP {reply.status}",
                                            "type": "server_error"}}, reply.delay_s
        text = reply.text or ""
        body: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
        }
        if reply.usage:
            sent = "".join(str(m.get("content", "")) for m in request.get("messages", []) if isinstance(m, dict))
            prompt, completion = _tokens(sent), _tokens(text)
            body["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
        return 200, body, reply.delay_s

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        llm = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()  # headers and body go out as two writes: no Nagle delay between
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if (status == 429 or status >= 500) and llm.retry_after_ms is not None:
                        self.send_header("retry-after-ms", str(llm.retry_after_ms))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
                    pass

            def _record(self, body: Any) -> None:
                with llm._lock:
                    llm.requests.append(Request(self.command, self.path, body, dict(self.headers.items())))

            def do_GET(self) -> None:  # noqa: N802
                self._record(None)
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [
                        {"id": llm.model, "object": "model", "created": 0, "owned_by": "scripted"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = None
                self._record(body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if not isinstance(body, dict):
                    self._send(400, {"error": {"message": "the body is not a JSON object"}})
                    return
                status, answer, delay = llm._answer(body)
                if delay > 0 and llm._closing.wait(delay):
                    return
                self._send(status, answer)

        return Handler

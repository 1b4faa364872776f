"""The HTTP API (`uac serve`): the `Memory` operations over HTTP for many tenants, on FastAPI.

Every operation is a tool of `runtime.agent_tools` (`ALL_TOOLS`: the agent tools and
retract, forget, rollback), dispatched by a `ToolBox` scoped to exactly one stored user; this
module only authenticates, translates names and maps errors. For every request, in order:

1. the body is at most `max_body_bytes` (413, `runtime.http_limits.BodyLimit`);
2. `Authorization: Bearer <key>` names a live key (401 otherwise), within its rate (429 with
   Retry-After, a token bucket per key);
3. a write (`Tool.writes`) with a read-only key is refused (403);
4. the path's user is put in the caller's tenant namespace (`Tenant.internal_user`): a
   tenant names only its own users, so another tenant's user is, to it, a user that does not
   exist — the same status and body, byte for byte, as a name nobody uses;
5. the tool runs, one call at a time (a lock), as in the MCP server: a quick one (a query,
   the manifest, ...) in the event loop's thread, which costs no thread switch; a long one
   (`Tool.long`: a checkpoint, a model call) on a worker thread, so the loop keeps answering
   meanwhile; its JSON comes back with the internal id replaced by the tenant's name for
   the user.

Every error is `{"error": "one line"}`: 400 bad input, 401, 403, 404 no such user, fact or
version, 405, 413, 422 a body or query that does not fit the operation's schema, 429, 500
a bug (never a traceback). The OpenAPI document is at `/openapi.json`, the docs at `/docs`.

Alerts that an `alerts` run or a checkpoint finds new, escalated or resolved are recorded as
a delivery to the tenant's webhook by the run itself, with its alert state
(`runtime.webhooks.deliver_from_alert_runs`, as for checkpoint workers); the
`WebhookSender` posts them.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, Mapping, Optional

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, create_model
from starlette.exceptions import HTTPException as StarletteHTTPException

from factlog.errors import InputError
from runtime.agent_tools import ALL_TOOLS, Tool, ToolBox, ToolError, ToolNotFound, problems_line
from runtime.http_limits import MAX_BODY_BYTES, Asgi, BodyLimit, RateLimiter, retry_after
from runtime.memory import Memory
from runtime.tenants import Caller, TenantRegistry
from runtime.webhooks import WebhookSender, deliver_from_alert_runs

API_TITLE: Final = "user-as-code"
DEFAULT_RATE: Final = 20.0  # requests a second per key, on average
DEFAULT_BURST: Final = 40
SERVER_PRIVATE: Final[Mapping[str, str]] = {"history": "path"}  # a field the server keeps to itself


class ApiError(Exception):
    """An HTTP error with its one-line message."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    one_line = " ".join(message.split()) or "(no message)"
    return JSONResponse({"error": one_line[:2000]}, status_code=status, headers=dict(headers or {}))


def body_model(tool: Tool, *, without: tuple[str, ...] = ("user",)) -> type[BaseModel]:
    """The request body of `tool`: its arguments less those the path gives (the user, ...)."""
    fields: dict[str, Any] = {name: (info.annotation, info) for name, info in tool.args.model_fields.items()
                              if name not in without}
    title = "".join(part.capitalize() for part in tool.name.split("_")) + "Body"
    model: type[BaseModel] = create_model(title, __config__=ConfigDict(extra="forbid"), **fields)
    return model


class HttpApi:
    """The API over one `Memory` and one tenant registry."""

    def __init__(self, mem: Memory, registry: TenantRegistry, *, rate: float = DEFAULT_RATE,
                 burst: int = DEFAULT_BURST, max_body_bytes: int = MAX_BODY_BYTES,
                 sender: WebhookSender | None = None) -> None:
        self.mem = mem
        self.registry = registry
        deliver_from_alert_runs(mem, registry)  # alert runs record their news for the tenant's webhook
        self.limiter = RateLimiter(rate, burst)
        self.max_body_bytes = max_body_bytes
        self.sender = sender
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="uac-http")
        self.busy = asyncio.Lock()  # one `Memory` call at a time, wherever it runs

    def close(self) -> None:
        self.worker.shutdown(wait=True)

    async def caller(self, request: Request) -> Caller:
        """The caller of a request, by its API key, within its rate limit."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "missing API key: send `Authorization: Bearer <key>`", {"WWW-Authenticate": "Bearer"})
        who = self.registry.authenticate(token.strip())  # one indexed row: quicker than a thread switch
        if who is None:
            raise ApiError(401, "invalid or revoked API key", {"WWW-Authenticate": "Bearer"})
        wait = self.limiter.take(who.key_id)
        if wait > 0:
            raise ApiError(429, f"rate limit of this API key reached ({self.limiter.rate:g} requests a second, "
                           f"bursts of {self.limiter.burst}); retry after {retry_after(wait)} s",
                           {"Retry-After": retry_after(wait)})
        return who

    async def run(self, who: Caller, user: str, name: str, args: Mapping[str, Any], status: int = 200) -> Response:
        """Run tool `name` for the caller's user `user`; its JSON result, or an ApiError."""
        tool = ALL_TOOLS[name]
        if tool.writes and who.read_only:
            raise ApiError(403, f"{name}: this API key is read-only")
        try:
            internal = who.tenant.internal_user(user)
        except InputError as exc:
            raise ApiError(400, f"{name}: {exc}") from None
        box = ToolBox(self.mem, [internal], tools=ALL_TOOLS)
        loop = asyncio.get_running_loop()
        try:
            async with self.busy:
                if tool.long:
                    text = await loop.run_in_executor(self.worker, box.call_text, name, {**args, "user": internal})
                else:
                    text = box.call_text(name, {**args, "user": internal})
        except ToolNotFound as exc:
            raise ApiError(404, str(exc).replace(internal, user)) from None
        except ToolError as exc:
            raise ApiError(400, str(exc).replace(internal, user)) from None
        if name in SERVER_PRIVATE:
            hidden = SERVER_PRIVATE[name]
            data = json.loads(text)
            text = json.dumps([{k: v for k, v in entry.items() if k != hidden} for entry in data], ensure_ascii=False)
        text = text.replace(internal, user)
        if name in ("alerts", "checkpoint") and self.sender is not None:
            self.sender.wake()  # the run recorded a delivery with its alert state, if it had news
        return Response(text, status_code=status, media_type="application/json")

    async def users(self, who: Caller) -> list[str]:
        """The caller's tenant's users (with facts or versions), by the tenant's names."""
        def names() -> list[str]:
            stored = set(self.mem.users()) | set(self.mem.versions.users())
            return sorted(own for own in (who.tenant.own_user(u) for u in stored) if own is not None)

        async with self.busy:
            return names()

    def app(self) -> Asgi:
        """The ASGI application: the FastAPI app behind the body limit."""
        return BodyLimit(self.fastapi(), self.max_body_bytes)

    def fastapi(self) -> FastAPI:
        return build_app(self)


def _given(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def build_app(api: HttpApi) -> FastAPI:
    app = FastAPI(title=API_TITLE, version="1", description="A user's memory as a typed, versioned module, "
                  "over HTTP: tenants, API keys (`Authorization: Bearer <key>`), per-tenant users.")

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{**e, "loc": tuple(p for p in e.get("loc", ()) if p not in ("body", "query", "path"))}
                  for e in exc.errors()]
        return _error(422, problems_line(request.url.path.rsplit("/", 1)[-1] or "request", errors))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = str(exc.detail)
        if exc.status_code == 404:
            message = f"no such endpoint: {request.method} {request.url.path[:200]}"
        elif exc.status_code == 405:
            message = f"method {request.method} not allowed on {request.url.path[:200]}"
        return _error(exc.status_code, message, getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        return _error(500, f"unexpected error: {type(exc).__name__}: {exc}")

    Who = Depends(api.caller)

    @app.get("/v1/health", tags=["service"])
    async def health() -> dict[str, str]:
        """Whether the server answers (no key needed)."""
        return {"status": "ok"}

    @app.get("/v1/users", tags=["users"])
    async def list_users(who: Caller = Who) -> dict[str, list[str]]:
        """The users of the key's tenant."""
        return {"users": await api.users(who)}

    def post(path: str, name: str, summary: str, status: int = 200, without: tuple[str, ...] = ("user",)) -> None:
        """`POST path`: the body is the tool's arguments (less the path's)."""
        model = body_model(ALL_TOOLS[name], without=without)
        optional = not any(f.is_required() for f in model.model_fields.values())

        async def endpoint(user: str, request: Request, body: Any = None, who: Caller = Who) -> Response:
            args = body.model_dump(mode="json", exclude_unset=True) if body is not None else {}
            args.update({k: v for k, v in request.path_params.items() if k != "user"})
            return await api.run(who, user, name, args, status)

        endpoint.__annotations__["body"] = Optional[model] if optional else model
        if not optional:
            endpoint.__defaults__ = (Who,)  # the body is required
        app.post(path, status_code=status, summary=summary, description=ALL_TOOLS[name].description,
                 tags=["write" if ALL_TOOLS[name].writes else "read"], name=name)(endpoint)

    post("/v1/users/{user}/facts", "remember", "Remember one fact", 201)
    post("/v1/users/{user}/conversations", "ingest_conversation", "Ingest a conversation", 201)
    post("/v1/users/{user}/facts/{fact_id}/retract", "retract", "Retract a fact", 201, ("user", "fact_id"))
    post("/v1/users/{user}/checkpoint", "checkpoint", "Compile a new version, run the constraints")
    post("/v1/users/{user}/query", "query", "Evaluate one safe expression")
    post("/v1/users/{user}/ask", "ask", "Answer a question by code")
    post("/v1/users/{user}/recall", "recall", "Cited context for a question")
    post("/v1/users/{user}/alerts", "alerts", "Run the constraints")
    post("/v1/users/{user}/rollback", "rollback", "Make an older version current")

    @app.delete("/v1/users/{user}", tags=["write"], summary="Forget the user entirely")
    async def forget(user: str, who: Caller = Who) -> Response:
        return await api.run(who, user, "forget", {})

    @app.get("/v1/users/{user}/manifest", tags=["read"], summary="The agent manifest")
    async def manifest(user: str, version: Optional[int] = Query(None), limit: Optional[int] = Query(None),
                       who: Caller = Who) -> Response:
        return await api.run(who, user, "manifest", _given(version=version, limit=limit))

    @app.get("/v1/users/{user}/history", tags=["read"], summary="The user's versions")
    async def history(user: str, who: Caller = Who) -> Response:
        return await api.run(who, user, "history", {})

    @app.get("/v1/users/{user}/diff", tags=["read"], summary="What changed between two versions")
    async def diff(user: str, a: Optional[int] = Query(None), b: Optional[int] = Query(None),
                   who: Caller = Who) -> Response:
        return await api.run(who, user, "diff", _given(a=a, b=b))

    return app


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def serve(api: HttpApi, host: str, port: int) -> None:
    """Serve until stopped; one line on stderr when it listens. SIGTERM stops it as Ctrl-C
    does (uvicorn shuts down, then raises the signal again: here a KeyboardInterrupt, not the
    default action that would end the process before the sender and the stores close)."""
    import signal
    import sys

    import uvicorn

    config = uvicorn.Config(api.app(), host=host, port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)

    async def main() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            sys.stderr.write(f"serving the HTTP API on http://{host}:{port} (docs: /docs)\n")
            sys.stderr.flush()
        await task

    if api.sender is not None:
        api.sender.start()
    import threading

    main_thread = threading.current_thread() is threading.main_thread()  # where signals are handled
    previous = signal.signal(signal.SIGTERM, _interrupt) if main_thread else None
    try:
        asyncio.run(main())
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        if api.sender is not None:
            api.sender.stop()
        api.close()

"""The MCP server (`uac mcp`): the agent tools of `runtime.agent_tools`, served with the
official `mcp` SDK over stdio or streamable HTTP on 127.0.0.1.

The tools, their schemas and their dispatch all come from the one table (`TOOLS`) and its
`ToolBox`: this module only translates. A failed call is a tool result with `isError`
(the one-line `ToolError`), never a crashed server. Tool calls run one at a time (a lock):
a quick one (a query, the manifest, ...) in the event loop's thread, which costs no thread
switch; a long one (`Tool.long`: a checkpoint, a model call) on a worker thread, so the
loop keeps answering meanwhile, reporting progress (each stage the handler names, and every
`HEARTBEAT_S` seconds while it runs) to a client that asked for it.

Resources: `uac://users/USER/manifest` and `uac://users/USER/source` for each user in scope
with a published version.
"""

from __future__ import annotations

import asyncio
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from runtime.agent_tools import BY_NAME, RESOURCE_PREFIX, RESOURCES, TOOLS, ToolBox, ToolError

HEARTBEAT_S: Final = 2.0
SERVER_NAME: Final = "user-as-code"


def _tool_list() -> list[types.Tool]:
    return [types.Tool(name=t.name, description=t.description, input_schema=t.input_schema(),
                       annotations=types.ToolAnnotations(read_only_hint=not t.writes, destructive_hint=False))
            for t in TOOLS]


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


class McpServer:
    """An MCP server over one `ToolBox` (its `Memory` and its scope)."""

    def __init__(self, box: ToolBox) -> None:
        self.box = box
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="uac-mcp")
        self.busy = asyncio.Lock()  # one call at a time, wherever it runs
        self.tools = _tool_list()
        self.server: Server[Any] = Server(
            SERVER_NAME, instructions="A user's memory as a typed module. Read `manifest` first; `query` runs one "
            "safe expression over it; `remember` adds facts and `checkpoint` compiles them.",
            on_list_tools=self._list_tools, on_call_tool=self._call_tool,
            on_list_resources=self._list_resources, on_read_resource=self._read_resource)

    def close(self) -> None:
        self.worker.shutdown(wait=True)

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.wrap_future(self.worker.submit(fn, *args))

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                          ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                         ) -> types.CallToolResult:
        loop = asyncio.get_running_loop()
        sent = [0]
        lock = asyncio.Lock()

        async def report(message: str) -> None:
            async with lock:  # numbered in the order sent: progress only grows
                sent[0] += 1
                await ctx.session.report_progress(sent[0], None, message)

        def progress(message: str) -> None:  # on the worker thread
            asyncio.run_coroutine_threadsafe(report(message), loop).result(timeout=10)

        arguments = params.arguments or {}
        try:
            async with self.busy:
                tool = BY_NAME.get(params.name)
                if tool is None or not tool.long:  # (an unknown name: the box says so)
                    text = self.box.call_text(params.name, arguments)
                else:
                    job = asyncio.ensure_future(self._run(self.box.call_text, params.name, arguments, progress))
                    started = loop.time()
                    while not (await asyncio.wait({job}, timeout=HEARTBEAT_S))[0]:
                        await report(f"{params.name}: running for {loop.time() - started:.0f} s")
                    text = job.result()
        except ToolError as exc:
            return _error(str(exc))
        except Exception as exc:  # never a crashed server
            return _error(f"{params.name}: unexpected error: {type(exc).__name__}: {exc}")
        data = json.loads(text)
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=data if isinstance(data, dict) else None)

    async def _list_resources(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                              ) -> types.ListResourcesResult:
        async with self.busy:
            users = self.box.resource_users()
        return types.ListResourcesResult(resources=[
            types.Resource(uri=f"{RESOURCE_PREFIX}{user}/{what}", name=f"{user} {what}", description=description,
                           mime_type="text/plain" if what == "manifest" else "text/x-python")
            for user in users for what, description in RESOURCES.items()])

    async def _read_resource(self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
                             ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            async with self.busy:
                text = self.box.read_resource(uri)
        except ToolError as exc:  # an error response (resources have no isError), one line
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        mime = "text/plain" if uri.endswith("/manifest") else "text/x-python"
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    # -- transports --------------------------------------------------------------------

    async def serve_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    async def serve_http(self, port: int) -> None:
        """Streamable HTTP at http://127.0.0.1:PORT/mcp (localhost only); one line on stderr
        when it listens."""
        import uvicorn

        app = self.server.streamable_http_app(host="127.0.0.1")
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            sys.stderr.write(f"serving MCP on http://127.0.0.1:{port}/mcp\n")
            sys.stderr.flush()
        await task


def serve(box: ToolBox, http_port: int | None = None) -> None:
    """Serve until stdin closes (stdio) or the process is stopped (HTTP)."""
    server = McpServer(box)
    try:
        asyncio.run(server.serve_stdio() if http_port is None else server.serve_http(http_port))
    finally:
        server.close()

"""`uac` commands for agents: `mcp` (the MCP server) and `tools` (the tools' schemas)."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from factlog.errors import InputError
from runtime.cli_app import app, memory


def scope(user: Optional[str], users: Optional[str]) -> list[str] | None:
    """`--user U` or `--users a,b` (not both): the users a server may read and write."""
    if user is not None and users is not None:
        raise InputError("give --user or --users, not both")
    if user is not None:
        return [user]
    if users is not None:
        names = [name.strip() for name in users.split(",")]
        if not all(names):
            raise InputError(f"--users {users!r}: a comma-separated list of user ids, none empty")
        return names
    return None


@app.command("mcp")
def mcp_cmd(user: Optional[str] = typer.Option(None, "--user", help="serve this user only"),
            users: Optional[str] = typer.Option(None, "--users", help="serve these users only (a,b,c)"),
            http: Optional[int] = typer.Option(None, "--http", min=1, max=65535,
                                               help="streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio")) -> None:
    """Serve the agent tools and resources over MCP (stdio by default); a server scoped with
    --user/--users cannot read or write any other user."""
    from runtime.agent_tools import ToolBox

    try:
        from runtime.mcp_server import serve
    except ImportError as exc:
        raise InputError(f"the MCP server needs the `mcp` package (pip install 'user-as-code[mcp]'): {exc}") from None
    box = ToolBox(memory(), scope(user, users))
    try:
        serve(box, http)
    except KeyboardInterrupt:
        pass


@app.command("tools")
def tools_cmd(format: str = typer.Option("openai", "--format",
                                         help="openai (function-calling schemas) or mcp")) -> None:
    """Print the agent tools' schemas: `--format openai` for a chat completion's `tools=`,
    `--format mcp` as an MCP server lists them."""
    from runtime.agent_tools import TOOLS, openai_tools

    if format == "openai":
        data: object = openai_tools()
    elif format == "mcp":
        data = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema()} for t in TOOLS]
    else:
        raise InputError(f"--format {format!r}: expected openai or mcp")
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")

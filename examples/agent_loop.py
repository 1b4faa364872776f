"""An agent on chat completions that uses a user's memory as tools.

The glue is two lines: `tools=mem.openai_tools()` on each request, and
`mem.call_tool(name, arguments)` for each tool call the model makes (its JSON result, or
`{"error": ...}` the model can correct, goes back as the tool message).

    python examples/agent_loop.py --home ~/.uac --user alice "How much did my 2024 trips cost?"

Any OpenAI-compatible endpoint: OPENAI_BASE_URL (default api.openai.com), OPENAI_API_KEY,
and the model from --model or UAC_MODEL.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from openai import OpenAI

from runtime.memory import Memory

SYSTEM = ("You are a helpful assistant with a long-term memory of the user, reached through tools. "
          "Read facts with `query` (one Python expression over the typed module described below) or "
          "`recall`; store what the user tells you with `remember`. The user's module:\n\n{manifest}")


def run(mem: Memory, user: str, question: str, client: OpenAI, model: str, max_turns: int = 8) -> str:
    """Answer `question`, letting the model call the memory tools (scoped to `user`) until it replies."""
    messages: list[Any] = [{"role": "system", "content": SYSTEM.format(manifest=mem.agent_manifest(user).text)},
                           {"role": "user", "content": question}]
    for _ in range(max_turns):
        reply = client.chat.completions.create(model=model, messages=messages, tools=mem.openai_tools())
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content or ""
        for call in message.tool_calls:
            result = mem.call_tool(call.function.name, call.function.arguments, users=[user])
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return f"(no answer after {max_turns} turns)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question")
    parser.add_argument("--user", required=True)
    parser.add_argument("--home", default=None, help="the workspace (default: UAC_HOME, else ~/.uac)")
    parser.add_argument("--model", default=os.environ.get("UAC_MODEL", "gpt-4o-mini"))
    args = parser.parse_args()
    client = OpenAI(api_key=os.environ.get("OPENAI_API_KEY", "none"))  # OPENAI_BASE_URL: any compatible endpoint
    mem = Memory.open(args.home, read_only=False)
    try:
        print(run(mem, args.user, args.question, client, args.model))
    finally:
        mem.close()


if __name__ == "__main__":
    main()

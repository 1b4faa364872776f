"""The MCP server's stdio wire on the event loop: no thread per line.

The SDK's stdio transport reads each line, writes each response and flushes it on a worker
thread (three thread hops per call). When the wire is a pipe or a socket (how agents start
a server), `event_loop_stdio` reads and writes it through asyncio's pipe transports instead
and hands the SDK's `stdio_server` these as its streams; the SDK does the rest (parsing,
framing). As the SDK's own transport does, the wire moves to private descriptors while
serving: fd 0 reads the null device and fd 1 writes to stderr, so a handler or a child
process that reads stdin sees end of file and one that prints never corrupts the wire; both
are restored after. Anything else (a terminal, a regular file): None, and the caller uses
the SDK's transport unchanged.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

MAX_LINE: Final = 1 << 27  # one JSON-RPC message, at most (the SDK's transport has no limit)


def _pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class LineReader:
    """`async for line in reader`: the wire's lines, decoded as UTF-8 (bad bytes replaced)."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        line = await self.stream.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class LineWriter:
    """`await write(text)`, `await flush()`: the wire's other end, with flow control."""

    def __init__(self, stream: asyncio.StreamWriter) -> None:
        self.stream = stream

    async def write(self, text: str) -> None:
        self.stream.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.stream.drain()


@asynccontextmanager
async def event_loop_stdio() -> AsyncIterator[tuple[LineReader, LineWriter] | None]:
    """(reader, writer) over the process's stdin and stdout when both are pipes or sockets,
    else None (see the module docstring)."""
    if not (_pipe_or_socket(0) and _pipe_or_socket(1)):
        yield None
        return
    kept = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3) for fd in (0, 1)]  # to restore: the transports close theirs
    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    writer: asyncio.StreamWriter | None = None
    try:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_LINE)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", 0))
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(wire_out, "wb", 0))
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        yield LineReader(reader), LineWriter(writer)
    finally:
        if writer is not None:
            try:
                await writer.drain()
            except (ConnectionError, RuntimeError):
                pass
        for fd, saved in enumerate(kept):  # the wire back where it was
            os.dup2(saved, fd)
            os.close(saved)

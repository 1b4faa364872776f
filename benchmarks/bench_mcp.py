"""The MCP round trip for `query` on a 10,000-fact user (warm server) against the same query
through the in-process API, in one run.

Run: .venv/bin/python benchmarks/bench_mcp.py [--size 10000] [--runs 200] [--http] [--keep DIR]
     [--baseline-code DIR]

A user of `--size` facts (9 in 10 trips; benchmarks/bench_query.py's `build`) is published
once; `uac mcp --user bench` is started over stdio (and, with `--http`, a second one on
streamable HTTP) and warmed with a few calls. Then, per query, alternating call by call:
`Memory.query` in this process (the API: the baseline), `ToolBox.call_text` in this process
(the tool dispatcher: validation, scope, JSON, the result limit), and `tools/call` through
the MCP client of the SDK to the server process (the whole round trip; with several servers,
they take turns going first). Prints p50/p90 (ms)
of each, its CPU per call (this process, plus the server process's own for MCP; the query
workers not counted in it, a server's own query worker shown apart), and the p50 ratio and
difference MCP vs API. Target: MCP p50 <= 10 ms.

`--baseline-code DIR` also starts a stdio server from another checkout of the code (e.g. a
worktree of main: its folder goes first on the server's PYTHONPATH) and times it in the
same alternation, so a change to the server is measured paired against the code before it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from time import perf_counter
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_query import USER, build  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

QUERIES = (("count", "len(trips)"),
           ("sum 2024", "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)"))
UAC = ["-c", "from runtime.cli import main; main()"]
UAC_BASELINE = ["-c", "from runtime.cli import main; main()  # baseline"]  # told apart in /proc
TARGET_MS = 10.0


def p(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1]


def _servers() -> dict[int, str]:
    """This process's children that are MCP servers: pid -> transport."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"mcp" in cmdline:
            found[int(entry.name)] = ("mcp http" if b"--http" in cmdline else
                                      "mcp baseline" if any(b"# baseline" in arg for arg in cmdline) else "mcp stdio")
    return found


def _children_cpu_ms(pid: int) -> float:
    """The CPU time of a process's live children (an MCP server's query worker), ms."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                total += _cpu_ms(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return total


def _cpu_ms(pid: int) -> float:
    """A process's own CPU time (user + system), ms; its children not counted."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _http_session(stack: AsyncExitStack, home: Path, env: dict[str, str]) -> ClientSession:
    port = _free_port()
    process = subprocess.Popen([sys.executable, *UAC, "mcp", "--user", USER, "--http", str(port)],
                               env={**os.environ, **env}, stderr=subprocess.PIPE, text=True)
    stack.callback(lambda: (process.terminate(), process.wait(10)))
    assert process.stderr is not None
    line = ""
    deadline = time.monotonic() + 120
    while "serving MCP" not in line and time.monotonic() < deadline and process.poll() is None:
        line = process.stderr.readline()
    read, write = await stack.enter_async_context(streamable_http_client(f"http://127.0.0.1:{port}/mcp"))
    return await stack.enter_async_context(ClientSession(read, write))


async def run(home: Path, runs: int, http: bool, cpu_per_call: dict[str, dict[str, float]],
              baseline: Path | None = None) -> dict[str, dict[str, list[float]]]:
    from runtime.memory import Memory

    env = {"UAC_HOME": str(home), "UAC_WARM": "off", "PYTHONPATH": os.pathsep.join(sys.path)}
    params = StdioServerParameters(command=sys.executable, args=[*UAC, "mcp", "--user", USER], env=env)
    mem = Memory.open(home)
    box = mem.tools([USER])
    samples: dict[str, dict[str, list[float]]] = {}
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(params))
        sessions = {"mcp stdio": await stack.enter_async_context(ClientSession(read, write))}
        if baseline is not None:
            base_env = {**env, "PYTHONPATH": os.pathsep.join([str(baseline), *sys.path])}
            # In its folder: `python -c` puts the working folder first on sys.path, ahead of
            # PYTHONPATH, so started from this checkout it would run this checkout's code.
            base_params = StdioServerParameters(command=sys.executable, args=[*UAC_BASELINE, "mcp", "--user", USER],
                                                env=base_env, cwd=str(baseline.resolve()))
            read, write = await stack.enter_async_context(stdio_client(base_params))
            sessions["mcp baseline"] = await stack.enter_async_context(ClientSession(read, write))
        if http:
            sessions["mcp http"] = await _http_session(stack, home, env)
        for session in sessions.values():
            await session.initialize()
        for name, expression in QUERIES:
            for _ in range(5):  # warm: the worker forked, the module loaded, caches filled
                mem.query(USER, expression)
                for session in sessions.values():
                    await session.call_tool("query", {"expression": expression})
            rows: dict[str, list[float]] = {"api": [], "dispatcher": [], **{k: [] for k in sessions}}
            cpu = dict.fromkeys(rows, 0.0)  # this process's CPU ms per kind of call
            servers = {pid: (label, _cpu_ms(pid), _children_cpu_ms(pid)) for pid, label in _servers().items()}
            for run_index in range(runs):
                started, cpu_started = perf_counter(), time.process_time()
                mem.query(USER, expression)
                rows["api"].append((perf_counter() - started) * 1000)
                cpu["api"] += (time.process_time() - cpu_started) * 1000
                started, cpu_started = perf_counter(), time.process_time()
                box.call_text("query", {"expression": expression})
                rows["dispatcher"].append((perf_counter() - started) * 1000)
                cpu["dispatcher"] += (time.process_time() - cpu_started) * 1000
                order = list(sessions.items())  # servers take turns going first: on a loaded
                if run_index % 2:  # machine the call right after the in-process ones pays more
                    order.reverse()
                for label, session in order:
                    started, cpu_started = perf_counter(), time.process_time()
                    result = await session.call_tool("query", {"expression": expression})
                    rows[label].append((perf_counter() - started) * 1000)
                    cpu[label] += (time.process_time() - cpu_started) * 1000
                    assert not result.is_error, result
            per_call = {label: round(total / runs, 3) for label, total in cpu.items()}
            for pid, (label, before, worker_before) in servers.items():  # the server's own CPU
                per_call[f"{label} server"] = round((_cpu_ms(pid) - before) / runs, 3)
                per_call[label] = round(per_call[label] + per_call[f"{label} server"], 3)
                per_call[f"{label} worker"] = round((_children_cpu_ms(pid) - worker_before) / runs, 3)
            samples[name] = rows
            cpu_per_call[name] = per_call
    mem.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--http", action="store_true", help="also time a streamable HTTP server")
    parser.add_argument("--keep", type=Path, default=None, help="keep the built workspace here (reused)")
    parser.add_argument("--baseline-code", type=Path, default=None,
                        help="also time a stdio server running the code of this checkout (paired)")
    args = parser.parse_args()
    home = args.keep or Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    try:
        built = build(home, args.size)
        from runtime.memory import Memory

        mem = Memory.open(home, read_only=True)
        records = sum(mem.manifest(USER).record_counts().values())
        mem.close()
        print(f"user {USER}: {args.size:,} facts, {records:,} records (built in {built:.1f} s)")
        cpu: dict[str, dict[str, float]] = {}
        results = asyncio.run(run(home, args.runs, args.http, cpu, args.baseline_code))
        report: dict[str, Any] = {}
        for name, rows in results.items():
            api = statistics.median(rows["api"])
            print(f"\n{name}:")
            for label, values in rows.items():
                server = cpu[name].get(f"{label} server")
                print(f"  {label:<11} p50 {statistics.median(values):7.3f} ms   p90 {p(values, 90):7.3f} ms   "
                      f"CPU {cpu[name][label]:6.3f} ms/call" + ("" if server is None else
                      f" ({server:.3f} server; its query worker {cpu[name][f'{label} worker']:.3f})"))
            for label in (k for k in rows if k.startswith("mcp")):
                mcp = statistics.median(rows[label])
                print(f"  {label} vs api: x{mcp / api:.2f}, +{mcp - api:.3f} ms; target p50 <= {TARGET_MS} ms: "
                      f"{'met' if mcp <= TARGET_MS else 'MISSED'}")
            if "mcp baseline" in rows:
                ours, theirs = statistics.median(rows["mcp stdio"]), statistics.median(rows["mcp baseline"])
                print(f"  mcp stdio vs mcp baseline: p50 x{ours / theirs:.2f} ({ours - theirs:+.3f} ms), CPU "
                      f"{cpu[name]['mcp stdio']:.3f} vs {cpu[name]['mcp baseline']:.3f} ms/call")
            report[name] = {"p50_ms": {label: round(statistics.median(values), 3) for label, values in rows.items()},
                            "cpu_ms_per_call": cpu[name]}
        print("\n" + json.dumps(report))
    finally:
        if args.keep is None:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

"""HTTP `query` latency (`uac serve`, real uvicorn on 127.0.0.1) with 1 and with 50 concurrent
clients, against the same query through the in-process API, in one run.

Run: .venv/bin/python benchmarks/bench_http_query.py [--size 10000] [--runs 300] [--clients 50]

A tenant `bench` and its key are made; its user `bench` (stored under the tenant's
namespace) gets `--size` facts (9 in 10 trips; benchmarks/bench_query.py's `build`),
published once. First `Memory.query` in this process (the API: the baseline), `--runs`
times; then `uac serve` is started as its own process (rate limit out of the way) and
warmed; then `--runs` sequential requests from one client; then `--clients` clients at once
(asyncio, one keep-alive connection each, `--runs` / `--clients` x 2 requests each). Both use
a raw HTTP/1.1 client that costs microseconds, so the figures are the server's, not a client
library's. Prints p50/p99 (ms) of each, the ratios to the in-process p50, the requests a
second with 50 clients, and the server process's CPU per request. The server runs one call
at a time (runtime.http_api), so with 50 clients a request mostly waits its turn: p50 there
is about the queue, not the query. The clients share the machine with the server.
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
from pathlib import Path
from time import perf_counter

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_query  # noqa: E402
import httpx  # noqa: E402

EXPRESSION = "sum(t.cost_usd for t in trips if t.departure_date.year == 2024)"


def pct(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1]


def line(label: str, samples: list[float], base: float | None) -> str:
    p50, p99 = pct(samples, 50), pct(samples, 99)
    ratio = f"  p50 x{p50 / base:.1f} of in-process" if base else ""
    return f"{label:<34} p50 {p50:8.2f} ms   p99 {p99:8.2f} ms   n={len(samples)}{ratio}"


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(home: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "UAC_WARM": "off"}
    server = subprocess.Popen([sys.executable, "-c", "from runtime.cli import main; main()", "--home", str(home),
                               "serve", "--port", str(port), "--rate", "1000000", "--burst", "1000000"],
                              env=env, stderr=subprocess.PIPE)
    assert server.stderr is not None
    started = server.stderr.readline().decode()
    if "serving the HTTP API" not in started:
        server.kill()
        raise SystemExit(f"the server did not start: {started}")
    return server


class RawClient:
    """A keep-alive HTTP/1.1 connection that sends one prepared request and reads the answer:
    a client that costs microseconds, so the figures measure the server, not httpx."""

    def __init__(self, port: int, path: str, token: str, body: bytes) -> None:
        self.port = port
        self.request = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def call(self) -> tuple[int, bytes]:
        self.writer.write(self.request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def clients(port: int, path: str, token: str, count: int, runs: int) -> tuple[list[float], float]:
    """`count` clients at once, each on its own connection, `runs` requests each."""
    samples: list[float] = []
    body = json.dumps({"expression": EXPRESSION}).encode()
    connections = [RawClient(port, path, token, body) for _ in range(count)]
    for connection in connections:
        await connection.open()

    async def client(connection: RawClient) -> None:
        for _ in range(runs):
            started = perf_counter()
            status, answer = await connection.call()
            samples.append((perf_counter() - started) * 1000)
            assert status == 200, answer

    started = perf_counter()
    await asyncio.gather(*(client(c) for c in connections))
    elapsed = perf_counter() - started
    for connection in connections:
        connection.close()
    return samples, elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--clients", type=int, default=50)
    args = parser.parse_args()

    from runtime.memory import Memory
    from runtime.tenants import open_registry

    home = Path(tempfile.mkdtemp(prefix="bench-http-"))
    server: subprocess.Popen[bytes] | None = None
    try:
        keys = home.with_name(home.name + "-keys")
        registry = open_registry(keys)
        tenant = registry.add_tenant("bench")
        token = registry.add_key("bench")[1]
        headers = {"Authorization": f"Bearer {token}"}
        registry.close()
        bench_query.USER = tenant.internal_user("bench")  # the build publishes the tenant's user
        print(f"built {args.size:,} facts in {bench_query.build(home, args.size):.1f} s")
        shutil.move(keys / "tenants.db", home / "tenants.db")  # (the build starts from an empty home)
        shutil.rmtree(keys)

        mem = Memory.open(home)
        for _ in range(5):
            mem.query(bench_query.USER, EXPRESSION)
        api: list[float] = []
        cpu_started = time.process_time()
        for _ in range(args.runs):
            started = perf_counter()
            mem.query(bench_query.USER, EXPRESSION)
            api.append((perf_counter() - started) * 1000)
        api_cpu = (time.process_time() - cpu_started) / args.runs * 1000
        mem.close()

        port = free_port()
        server = start_server(home, port)
        path = "/v1/users/bench/query"
        with httpx.Client(headers=headers, timeout=120) as http:  # an ordinary client says it works
            for _ in range(5):
                warm = http.post(f"http://127.0.0.1:{port}{path}", json={"expression": EXPRESSION})
                assert warm.status_code == 200, warm.text
        server_cpu = cpu_s(server.pid)
        one, _ = asyncio.run(clients(port, path, token, 1, args.runs))
        one_cpu = (cpu_s(server.pid) - server_cpu) / args.runs * 1000
        server_cpu = cpu_s(server.pid)
        many, seconds = asyncio.run(clients(port, path, token, args.clients, max(1, args.runs // args.clients * 2)))
        many_cpu = (cpu_s(server.pid) - server_cpu) / len(many) * 1000

        base = pct(api, 50)
        print(line("in-process Memory.query", api, None))
        print(line("HTTP, 1 client", one, base))
        print(line(f"HTTP, {args.clients} concurrent clients", many, base))
        print(f"{'':<34} {len(many) / seconds:.0f} requests a second with {args.clients} clients "
              f"({seconds:.1f} s); HTTP overhead at 1 client: {pct(one, 50) - base:.2f} ms (p50 difference)")
        print(f"{'':<34} CPU per query (ms; the query worker's own, the same on both paths, not counted): "
              f"in-process {api_cpu:.2f}, server at 1 client {one_cpu:.2f}, at {args.clients} clients {many_cpu:.2f}")
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(home, ignore_errors=True)
        time.sleep(0)


if __name__ == "__main__":
    main()

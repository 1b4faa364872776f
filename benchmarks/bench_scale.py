"""Scale benchmark: checkpoints, queries, disk and the CLI at 10k .. 1M interleaved facts.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 10000 100000] [--rounds 3] [--json]
        [--skip inc-cli cli-query ...] [--timeout-min 25] [--workdir DIR] [--keep]

Each size runs in a fresh process (so its peak RSS is that size's alone) on a fresh
workspace. The user's log is `benchmarks/interleaved.py`'s stream (seed 9): facts of eleven
kinds interleaved in arrival order, with updates and retractions, appended through the
batch API. Per size, in this order, medians over `--rounds`:

- load: the N facts through `Memory.facts.append`, `--batch` facts per transaction (facts/s);
- full: `Memory.checkpoint` of the N facts (seconds, peak RSS of the process), against the
  same-run baseline `ast.parse` + `compile()` of every file of the package it produced;
- query: `Memory.query` p50 of `sum(e.amount_usd ...)` over the expenses, against the query
  worker alone (`QueryWorker` over the same namespace, as `bench_query.py` measures it) and
  a plain SQLite `SELECT sum(amount_usd)` over a table of the same records; `uac query`
  end to end;
- +10 API: 10 more facts, then `Memory.checkpoint`; ratio to the full checkpoint;
- +10 CLI: 10 more facts, then `uac checkpoint USER` end to end (subprocess wall time,
  which also runs the constraints), in a fresh process (`UAC_WARM=off`: cold);
- +10 CLI warm: the same through the workspace's warm worker (`uac warm start` before the
  rounds, then `UAC_WARM=on`; runtime.warm_server), against the cold column; it runs the
  constraints and prints the report as `uac checkpoint` does; the worker's CPU seconds per
  round are kept too (`inc_warm_cpu_s`: steadier than wall time on a busy machine);
- after the +10 CLI rounds (cold, then warm): the active alerts in the user's `alerts.json`
  and its size (what every alert run diffs and writes); the cold rounds' CPU (`inc_cli_cpu_s`);
- disk: bytes a +10 version adds to the version store (the workspace but its fact log,
  recall index and `cache/`: new files, each inode once, plus growth of files that were
  there), against what the full version added; what grew in the caches is shown apart.

Once per run, on a small user: `uac add` / `uac query` / `uac --help` cold start against
`python -c pass` (subprocess wall, medians of `--cold-runs`), and a single durable
`Memory.add` p50 against a plain SQLite insert + commit (WAL, synchronous=FULL).

`--skip` leaves out columns: inc-api, inc-cli, inc-warm, query, cli-query, cold, append.
Every other `uac` run here has `UAC_WARM=off` (a fresh process, as measured before the
warm worker existed). A size that
runs past `--timeout-min` is stopped and reported as "> N min" from the step it was in
(what it measured before is kept). The machine's load (`os.getloadavg`) is printed with
the results: on a shared machine, read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import math
import os
import resource
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator

from interleaved import InterleavedLog, load

USER = "bench"
EXPRESSION = "sum(e.amount_usd for e in expenses if e.amount_usd is not None)"
SMALL_QUERY = "len(expenses)"
SKIPPABLE = ("inc-api", "inc-cli", "inc-warm", "query", "cli-query", "cold", "append")
FACT_LOG = ("facts.db", "facts.db-wal", "facts.db-shm")


# -- measuring helpers ---------------------------------------------------------------------

def emit(**values: object) -> None:
    """One JSON line to the parent (which keeps what arrived if this process is stopped)."""
    print(json.dumps(values), flush=True)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    """CPU seconds of this process (not of its worker processes): steadier than wall time on
    a busy machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def wall(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def samples(run: Callable[[], object], count: int) -> list[float]:
    return [wall(run) for _ in range(count)]


def uac_command() -> list[str]:
    script = Path(sys.executable).with_name("uac")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from runtime.cli import main; main()"]


def run_quiet(args: list[str], warm: str = "off") -> None:
    done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, "UAC_WARM": warm})
    if done.returncode not in (0, 1):  # 1: a checkpoint's constraints found something, or alerts
        raise RuntimeError(f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-400:]}")


def warm_status(uac: list[str]) -> dict[str, object]:
    status = subprocess.run([*uac, "warm", "status", "--json"], capture_output=True, text=True,
                            env={**os.environ, "UAC_WARM": "off"})
    return dict(json.loads(status.stdout or "null") or {})


def process_cpu_s(pid: object) -> float:
    """CPU seconds (user + system) of another process so far (the warm worker's); 0 if unknown."""
    try:
        fields = Path(f"/proc/{int(pid)}/stat").read_text().rsplit(")", 1)[1].split()  # type: ignore[call-overload]
    except (OSError, TypeError, ValueError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def alert_state(home: Path, user: str) -> tuple[int, int]:
    """Active alerts in the user's `alerts.json`, and its size in bytes (0, 0 when none)."""
    path = home / "users" / user / "alerts.json"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0, 0
    return len(json.loads(data).get("active", [])), len(data)


def inodes(root: Path, skip: tuple[str, ...] = ()) -> dict[tuple[int, int], int]:
    """Size of every regular file under `root` (but the top-level entries named in `skip`)
    by (device, inode): a hard-linked file counts once."""
    found: dict[tuple[int, int], int] = {}

    def walk(folder: Path, skip: tuple[str, ...]) -> None:
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return
        for entry in entries:
            if entry.name in skip:
                continue
            if entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path), ())
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                found[(st.st_dev, st.st_ino)] = st.st_size
    walk(root, skip)
    return found


def grown(before: dict[tuple[int, int], int], after: dict[tuple[int, int], int]) -> int:
    """Bytes of files new since `before`, plus growth of files that were there."""
    return sum(max(0, size - before.get(key, 0)) for key, size in after.items())


NOT_STORE = (*FACT_LOG, "index.db", "index.db-wal", "index.db-shm", "cache", "plain.db", "plain-append.db")


class Disk:
    """What a step added on disk: in the version store (the workspace but its fact log,
    recall index and `cache/`: `users/`, and any store kept beside it), and in the caches."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def snapshot(self) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
        store = inodes(self.home, NOT_STORE)
        caches = {k: v for k, v in inodes(self.home, FACT_LOG).items() if k not in store}
        return store, caches

    def added(self, before: tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]) -> tuple[int, int]:
        after = self.snapshot()
        return grown(before[0], after[0]), grown(before[1], after[1])


def package_files(memory: object, user: str) -> dict[str, str]:
    """The current version's Python files, through the version store's public reading."""
    versions = memory.versions  # type: ignore[attr-defined]
    info = versions.current(user)
    try:
        files = versions.files(user, info.number)
        return {name: text for name, text in files.items() if name.endswith(".py")}
    except (AttributeError, TypeError):
        return {str(p.relative_to(info.path)): p.read_text("utf-8") for p in Path(info.path).rglob("*.py")}


def ast_compile_baseline(files: dict[str, str]) -> float:
    start = time.perf_counter()
    for name, text in files.items():
        compile(ast.parse(text), name, "exec")
    return time.perf_counter() - start


def checkpoint(memory: object, user: str) -> object:
    result = memory.checkpoint(user)  # type: ignore[attr-defined]
    if type(result).__name__ != "Published":
        raise RuntimeError(f"checkpoint did not publish: {result!r}"[:600])
    return result


class Collections:
    """Seconds spent in the cyclic garbage collector, by generation, while counting."""

    def __init__(self) -> None:
        self.seconds: dict[int, float] = {}
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            generation = info["generation"]
            self.seconds[generation] = self.seconds.get(generation, 0.0) + time.perf_counter() - self._started

    def take(self) -> dict[int, float]:
        taken, self.seconds = self.seconds, {}
        return taken


def stage_line(result: object, collections: dict[int, float]) -> str:
    """A checkpoint's stage seconds (`Published.timings`) and its collector seconds, short."""
    timings = getattr(result, "timings", {}) or {}
    parts = [f"{name} {seconds:.3f}" for name, seconds in timings.items() if isinstance(seconds, float)]
    parts += [f"gc{generation} {seconds:.3f}" for generation, seconds in sorted(collections.items())]
    return ", ".join(parts)


def query_value(result: object) -> object:
    if type(result).__name__ != "QuerySuccess":
        raise RuntimeError(f"query failed: {result!r}"[:600])
    return result.value


# -- one size, in its own process ------------------------------------------------------------

def one_size(size: int, home: Path, rounds: int, query_runs: int, skip: set[str], batch: int) -> None:
    from runtime.memory import Memory
    from runtime.query_worker import QueryWorker

    mem = Memory.open(home)
    disk = Disk(home)
    emit(load_avg=os.getloadavg()[0])

    # A tiny user first: the workspace's first checkpoint also fills mypy's cache of the
    # standard library stubs, a one-off cost no later checkpoint pays.
    emit(step="warmup")
    load(mem, "warmup", 200, InterleavedLog(seed=1))
    emit(warmup_s=wall(lambda: checkpoint(mem, "warmup")))

    emit(step="load")
    stream = InterleavedLog(seed=9)
    batch = batch or max(10_000, size // 10)
    shown = [0]

    def progress(n: int) -> None:
        if n // 100_000 > shown[0]:
            shown[0] = n // 100_000
            say(f"  [{size:,}] loaded {n:,}")
    took = wall(lambda: load(mem, USER, size, stream, batch=batch, progress=progress))
    emit(load_s=took, load_facts_per_s=size / took, load_batch=batch, rss_after_load_mb=peak_mb())

    emit(step="full")
    before = disk.snapshot()
    cpu = cpu_s()
    emit(full_s=wall(lambda: checkpoint(mem, USER)), full_peak_mb=peak_mb(), full_cpu_s=cpu_s() - cpu)
    store_bytes, other_bytes = disk.added(before)
    files = package_files(mem, USER)
    emit(full_version_bytes=store_bytes, full_other_bytes=other_bytes, package_files=len(files),
         package_bytes=sum(len(t.encode("utf-8")) for t in files.values()))
    emit(step="baseline")
    emit(baseline_s=statistics.median(ast_compile_baseline(files) for _ in range(3)))
    del files

    if "query" not in skip:
        emit(step="query")
        value = query_value(mem.query(USER, EXPRESSION))  # starts the worker
        api = samples(lambda: mem.query(USER, EXPRESSION), query_runs)
        namespace = mem.namespace(USER)
        with QueryWorker(namespace) as worker:
            if query_value(worker.run(EXPRESSION)) != value:
                raise RuntimeError("the worker alone disagrees with Memory.query")
            alone = samples(lambda: worker.run(EXPRESSION), query_runs)
        plain, plain_value, records = sqlite_baseline(home / "plain.db", namespace, query_runs)
        if not math.isclose(float(plain_value), float(value), rel_tol=1e-9):  # type: ignore[arg-type]
            raise RuntimeError(f"SQLite sum {plain_value} != query {value}")
        emit(query_ms=1000 * statistics.median(api), worker_ms=1000 * statistics.median(alone),
             sqlite_ms=1000 * statistics.median(plain), query_records=records)

    if "inc-api" not in skip:
        emit(step="inc-api")
        times, cpus, store_sizes, other_sizes = [], [], [], []
        collections = Collections()
        for _ in range(rounds):
            load(mem, USER, 10, stream)
            before = disk.snapshot()
            cpu = cpu_s()
            published: list[object] = []
            collections.take()
            times.append(wall(lambda: published.append(checkpoint(mem, USER))))
            cpus.append(cpu_s() - cpu)
            added = disk.added(before)
            store_sizes.append(added[0])
            other_sizes.append(added[1])
            # the stages tell a round that ran mypy (a class module changed) or a long
            # collection from the steady cost of ten facts
            say(f"  [{size:,}] +10 API checkpoint {times[-1]:.2f} s (CPU {cpus[-1]:.2f} s), {added[0]:,} bytes;"
                f" {stage_line(published[0], collections.take())}")
        emit(inc_api_s=statistics.median(times), inc_api_all=times, inc_api_cpu_s=statistics.median(cpus), inc_version_bytes=statistics.median(store_sizes),
             inc_other_bytes=statistics.median(other_sizes))

    if "inc-cli" not in skip:
        emit(step="inc-cli")
        times, cpus = [], []
        for _ in range(rounds):
            load(mem, USER, 10, stream)
            cpu = children_cpu_s()
            times.append(wall(lambda: run_quiet([*uac_command(), "--home", str(home), "checkpoint", USER])))
            cpus.append(children_cpu_s() - cpu)
            say(f"  [{size:,}] +10 CLI checkpoint {times[-1]:.2f} s (CPU {cpus[-1]:.2f} s)")
        active, state_bytes = alert_state(home, USER)
        emit(inc_cli_s=statistics.median(times), inc_cli_all=times, inc_cli_cpu_s=statistics.median(cpus),
             alerts_active=active, alerts_bytes=state_bytes)

    if "inc-warm" not in skip:
        emit(step="inc-warm")
        uac = [*uac_command(), "--home", str(home)]
        emit(warm_start_s=wall(lambda: run_quiet([*uac, "warm", "start", "--user", USER], warm="on")))
        times = []
        try:
            # The first checkpoint a worker serves also fills what a process keeps of the last
            # version validated (the coverage walk's parts): shown apart, not in the median.
            load(mem, USER, 10, stream)
            emit(inc_warm_first_s=wall(lambda: run_quiet([*uac, "checkpoint", USER], warm="on")))
            worker = warm_status(uac).get("pid")
            cpus = []
            for _ in range(rounds):
                load(mem, USER, 10, stream)
                cpu = process_cpu_s(worker)
                times.append(wall(lambda: run_quiet([*uac, "checkpoint", USER], warm="on")))
                cpus.append(process_cpu_s(worker) - cpu)
                say(f"  [{size:,}] +10 CLI checkpoint via the warm worker {times[-1]:.2f} s "
                    f"(worker CPU {cpus[-1]:.2f} s)")
            served = warm_status(uac)
            if served.get("served", 0) < rounds + 1:
                raise RuntimeError(f"the warm worker served {served.get('served')} of {rounds} checkpoints")
            active, state_bytes = alert_state(home, USER)
            emit(inc_warm_s=statistics.median(times), inc_warm_all=times, warm_rss_mb=served.get("rss_mb"),
                 inc_warm_cpu_s=statistics.median(cpus), alerts_active=active, alerts_bytes=state_bytes)
        finally:
            run_quiet([*uac, "warm", "stop"])

    if "cli-query" not in skip:
        emit(step="cli-query")
        cli = samples(lambda: run_quiet([*uac_command(), "--home", str(home), "query", USER, EXPRESSION]), rounds)
        emit(cli_query_s=statistics.median(cli))

    mem.close()  # also ends the checkpoint's worker processes, so their peak is counted below
    emit(end_peak_mb=peak_mb(), children_peak_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
         load_avg_end=os.getloadavg()[0])


def sqlite_baseline(path: Path, namespace: dict[str, object], runs: int) -> tuple[list[float], object, int]:
    """The same aggregate in plain SQLite over a table of the same expense records."""
    records = list(namespace["expenses"])  # type: ignore[call-overload]
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE expenses (payee TEXT, amount_usd REAL, category TEXT, spent_on TEXT, reimbursable INTEGER)")
    db.executemany("INSERT INTO expenses VALUES (?, ?, ?, ?, ?)", [
        (getattr(e, "payee", None), getattr(e, "amount_usd", None), getattr(e, "category", None),
         str(getattr(e, "spent_on", None)), getattr(e, "reimbursable", None)) for e in records])
    db.commit()
    value = db.execute("SELECT sum(amount_usd) FROM expenses").fetchone()[0]
    times = samples(lambda: db.execute("SELECT sum(amount_usd) FROM expenses").fetchone(), runs)
    db.close()
    return times, value, len(records)


# -- once per run: cold start and single appends ------------------------------------------------

def cold_and_append(home: Path, runs: int, skip: set[str]) -> None:
    from runtime.memory import Memory

    mem = Memory.open(home)
    if "cold" not in skip:
        emit(step="cold")
        load(mem, "small", 200, InterleavedLog(seed=2))
        checkpoint(mem, "small")
        uac = [*uac_command(), "--home", str(home)]
        commands = {
            "python_pass": [sys.executable, "-c", "pass"],
            "uac_help": [*uac, "--help"],
            "uac_add": [*uac, "add", "small", "Cold start note"],
            "uac_query": [*uac, "query", "small", SMALL_QUERY],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):  # interleaved, so a burst of load spreads over all of them
            for name, args in commands.items():
                times[name].append(wall(lambda: run_quiet(args)))
        emit(**{f"cold_{name}_ms": 1000 * statistics.median(t) for name, t in times.items()})
    if "append" not in skip:
        emit(step="append")
        ours = sorted(wall(lambda: mem.add("appender", "A single durable note")) for _ in range(200))
        db = sqlite3.connect(home / "plain-append.db", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT)")
        plain = sorted(wall(lambda: db.execute("INSERT INTO t (text) VALUES ('A single durable note')"))
                       for _ in range(200))
        db.close()
        emit(append_p50_ms=1000 * statistics.median(ours), append_p90_ms=1000 * ours[int(len(ours) * 0.9)],
             plain_append_p50_ms=1000 * statistics.median(plain))
    mem.close()


# -- the parent: one process per size, a deadline each -------------------------------------------

def child(args: list[str], timeout_s: float | None) -> tuple[dict[str, object], float]:
    """Run this script with `args` in its own process group; collect its JSON lines until it
    ends or the deadline passes (then stop the group and record the step it was in)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    found: dict[str, object] = {}
    assert proc.stdout is not None
    deadline = None if timeout_s is None else start + timeout_s
    timer = None
    if deadline is not None:
        import threading

        def stop() -> None:
            found["timed_out"] = True
            os.killpg(proc.pid, signal.SIGKILL)
        timer = threading.Timer(timeout_s, stop)  # type: ignore[arg-type]
        timer.start()
    try:
        for line in proc.stdout:
            try:
                found.update(json.loads(line))
            except ValueError:
                say(line.rstrip())
        proc.wait()
    finally:
        if timer is not None:
            timer.cancel()
    if proc.returncode != 0 and not found.get("timed_out"):
        found["failed"] = f"exit {proc.returncode} in step {found.get('step')}"
    return found, time.perf_counter() - start


def remove_tree(path: Path) -> None:
    """Remove a workspace; version folders are read-only, so make each folder writable first."""
    for folder, _, _ in os.walk(path):
        os.chmod(folder, 0o700)
    shutil.rmtree(path, ignore_errors=True)


def fmt_s(row: dict[str, object], key: str) -> str:
    value = row.get(key)
    if isinstance(value, (int, float)):
        return f"{value:.2f} s" if value < 100 else f"{value:.0f} s"
    return cut(row, key)


def fmt_ms(row: dict[str, object], key: str) -> str:
    value = row.get(key)
    if isinstance(value, (int, float)):
        return f"{value:.2f} ms" if value < 10 else f"{value:,.0f} ms"
    return cut(row, key)


def cut(row: dict[str, object], key: str) -> str:
    """Why a figure is missing: the size was stopped in (or before) its step, or skipped."""
    step = {"full_s": "full", "inc_api_s": "inc-api", "inc_cli_s": "inc-cli", "inc_warm_s": "inc-warm",
            "query_ms": "query",
            "worker_ms": "query", "sqlite_ms": "query", "cli_query_s": "cli-query"}.get(key)
    if row.get("timed_out") and row.get("step") == step:
        return f"> {row['timeout_min']:g} min"
    if row.get("failed") and row.get("step") == step:
        return "failed"
    return "-"


def ratio(row: dict[str, object], a: str, b: str) -> str:
    x, y = row.get(a), row.get(b)
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and y:
        return f"{x / y:.3g}x" if x / y >= 0.1 else f"{x / y:.4f}"
    return "-"


def mb(value: object) -> str:
    return f"{value / 1e6:,.2f} MB" if isinstance(value, (int, float)) else "-"


def table(rows: list[dict[str, object]], cold: dict[str, object]) -> Iterator[str]:
    yield ("| facts | load | full checkpoint (peak RSS) | ast+compile | full / ast | +10 API | +10 / full "
           "| +10 CLI | +10 CLI warm | warm / cold | `Memory.query` p50 | worker alone | SQLite | query / worker | query / SQLite | CLI query "
           "| full version | +10 version | +10 / full disk | run took |")
    yield "|" + "---|" * 20
    for row in rows:
        peak = row.get("full_peak_mb")
        full = fmt_s(row, "full_s") + (f" ({peak:,.0f} MB)" if isinstance(peak, (int, float)) else "")
        load_s = row.get("load_s")
        yield (f"| {row['size']:,} | {fmt_s(row, 'load_s') if load_s is not None else '-'} | {full} "
               f"| {fmt_s(row, 'baseline_s')} | {ratio(row, 'full_s', 'baseline_s')} | {fmt_s(row, 'inc_api_s')} "
               f"| {ratio(row, 'inc_api_s', 'full_s')} | {fmt_s(row, 'inc_cli_s')} | {fmt_s(row, 'inc_warm_s')} "
               f"| {ratio(row, 'inc_warm_s', 'inc_cli_s')} | {fmt_ms(row, 'query_ms')} "
               f"| {fmt_ms(row, 'worker_ms')} | {fmt_ms(row, 'sqlite_ms')} | {ratio(row, 'query_ms', 'worker_ms')} "
               f"| {ratio(row, 'query_ms', 'sqlite_ms')} | {fmt_s(row, 'cli_query_s')} "
               f"| {mb(row.get('full_version_bytes'))} | {mb(row.get('inc_version_bytes'))} "
               f"| {ratio(row, 'inc_version_bytes', 'full_version_bytes')} | {row['took_s']:.0f} s |")
    if "cold_python_pass_ms" in cold:
        base = float(cold["cold_python_pass_ms"])  # type: ignore[arg-type]
        yield ""
        yield "cold start on a small user (subprocess wall, median): " + "; ".join(
            f"{name} {float(cold[f'cold_{name}_ms']):.0f} ms ({float(cold[f'cold_{name}_ms']) / base:.1f}x)"  # type: ignore[arg-type]
            for name in ("uac_add", "uac_query", "uac_help")) + f"; python -c pass {base:.0f} ms"
    if "append_p50_ms" in cold:
        yield (f"single durable append (Memory.add): p50 {float(cold['append_p50_ms']):.2f} ms, "  # type: ignore[arg-type]
               f"p90 {float(cold['append_p90_ms']):.2f} ms; plain SQLite insert+commit (WAL, synchronous=FULL) "  # type: ignore[arg-type]
               f"p50 {float(cold['plain_append_p50_ms']):.2f} ms")  # type: ignore[arg-type]


def avg(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else "?"


def details(rows: list[dict[str, object]]) -> Iterator[str]:
    for row in rows:
        parts = [f"{row['size']:,} facts:"]
        if "load_facts_per_s" in row:
            parts.append(f"load {float(row['load_facts_per_s']):,.0f} facts/s in batches of {row.get('load_batch', 10_000):,}"
                         f" (peak RSS after loading {float(row.get('rss_after_load_mb', 0)):,.0f} MB);")  # type: ignore[arg-type]
        if "warmup_s" in row:
            parts.append(f"first checkpoint of the workspace (200 facts, fills mypy's cache) {float(row['warmup_s']):.1f} s;")  # type: ignore[arg-type]
        if "package_files" in row:
            parts.append(f"package {row['package_files']} files, {mb(row['package_bytes'])};")
        if "full_cpu_s" in row:
            parts.append(f"CPU of the checkpointing process: full {float(row['full_cpu_s']):.1f} s"  # type: ignore[arg-type]
                         + (f", +10 {float(row['inc_api_cpu_s']):.2f} s;" if "inc_api_cpu_s" in row else ";"))  # type: ignore[arg-type]
        if "inc_api_all" in row:
            parts.append("+10 API rounds " + ", ".join(f"{t:.2f}" for t in row["inc_api_all"]) + " s;")  # type: ignore[attr-defined]
        if "inc_cli_all" in row:
            parts.append("+10 CLI rounds " + ", ".join(f"{t:.2f}" for t in row["inc_cli_all"]) + " s;")  # type: ignore[attr-defined]
        if "inc_cli_cpu_s" in row:
            parts.append(f"+10 CLI CPU (median) {float(row['inc_cli_cpu_s']):.2f} s;")  # type: ignore[arg-type]
        if "alerts_active" in row:
            parts.append(f"after the +10 rounds {row['alerts_active']:,} active alerts, alerts.json {mb(row['alerts_bytes'])};")
        if "inc_warm_all" in row:
            parts.append("+10 CLI warm rounds " + ", ".join(f"{t:.2f}" for t in row["inc_warm_all"])  # type: ignore[attr-defined]
                         + f" s (`uac warm start` {float(row.get('warm_start_s', 0)):.1f} s, its first +10 "  # type: ignore[arg-type]
                         f"{float(row.get('inc_warm_first_s', 0)):.2f} s, worker RSS "  # type: ignore[arg-type]
                         f"{row.get('warm_rss_mb')} MB, worker CPU per round (median) "
                         f"{float(row.get('inc_warm_cpu_s', 0)):.2f} s);")  # type: ignore[arg-type]
        if "full_other_bytes" in row:
            parts.append(f"caches and recall index grew by {mb(row['full_other_bytes'])} on the full checkpoint"
                         f", {mb(row.get('inc_other_bytes'))} on a +10 one;")
        if "end_peak_mb" in row:
            parts.append(f"peak RSS at the end {float(row['end_peak_mb']):,.0f} MB;")  # type: ignore[arg-type]
        if "children_peak_mb" in row:
            parts.append(f"largest child process (checkpoint workers, CLI runs) {float(row['children_peak_mb']):,.0f} MB;")  # type: ignore[arg-type]
        parts.append(f"load average {avg(row.get('load_avg'))} at start, {avg(row.get('load_avg_end'))} at end")
        for key in ("timed_out", "failed"):
            if key in row:
                parts.append(f"[{key}: step {row.get('step')}{'' if key == 'timed_out' else ', ' + str(row[key])}]")
        yield " ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=3, help="+10 rounds (API and CLI) and CLI queries per size")
    parser.add_argument("--query-runs", type=int, default=21)
    parser.add_argument("--cold-runs", type=int, default=15)
    parser.add_argument("--batch", type=int, default=0,
                        help="facts per append transaction while loading (default: max(10,000, N / 10))")
    parser.add_argument("--skip", nargs="*", default=[], choices=SKIPPABLE, metavar="COLUMN",
                        help=f"leave out: {', '.join(SKIPPABLE)}")
    parser.add_argument("--timeout-min", type=float, default=25.0, help="stop a size after this long (0: never)")
    parser.add_argument("--workdir", type=Path, help="where the workspaces go (default: the temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the workspaces (their paths are printed)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--save", type=Path, help="also write the JSON document to this file")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    skip = set(args.skip)
    if args.one:
        one_size(args.one, args.home, args.rounds, args.query_runs, skip, args.batch)
        return
    if args.cold:
        cold_and_append(args.home, args.cold_runs, skip)
        return

    forwarded = ["--rounds", str(args.rounds), "--query-runs", str(args.query_runs),
                 "--cold-runs", str(args.cold_runs), "--batch", str(args.batch), *(["--skip", *args.skip] if args.skip else [])]
    timeout = args.timeout_min * 60 if args.timeout_min > 0 else None
    rows: list[dict[str, object]] = []
    say(f"bench_scale: sizes {args.sizes}, rounds {args.rounds}; load average {os.getloadavg()}")
    for size in args.sizes:
        home = Path(tempfile.mkdtemp(prefix=f"uac-scale-{size}-", dir=args.workdir))
        say(f"[{size:,}] workspace {home}")
        row, took = child(["--one", str(size), "--home", str(home), *forwarded], timeout)
        row.update(size=size, took_s=took, timeout_min=args.timeout_min)
        rows.append(row)
        say(f"[{size:,}] done in {took:.0f} s" + (" (stopped)" if row.get("timed_out") else ""))
        if not args.keep:
            remove_tree(home)
    cold: dict[str, object] = {}
    if not {"cold", "append"} <= skip:
        home = Path(tempfile.mkdtemp(prefix="uac-scale-cold-", dir=args.workdir))
        cold, took = child(["--cold", "--home", str(home), *forwarded], timeout)
        cold["took_s"] = took
        if not args.keep:
            remove_tree(home)
    document = json.dumps({"sizes": rows, "small_user": cold, "expression": EXPRESSION,
                           "load_avg_end": os.getloadavg()}, indent=2)
    if args.save:
        args.save.write_text(document + "\n", encoding="utf-8")
    if args.json:
        print(document)
        return
    print(f"interleaved facts (seed 9); medians; query: {EXPRESSION}; load average now "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for line in table(rows, cold):
        print(line)
    print()
    for line in details(rows):
        print(line)


if __name__ == "__main__":
    main()

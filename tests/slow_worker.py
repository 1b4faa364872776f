"""A checkpoint worker whose producer pauses, for the worker fault tests:
`python slow_worker.py QUEUE_URL HOME MARKER PAUSE_S LEASE_S`. The producer touches MARKER
when the checkpoint reaches it, sleeps PAUSE_S, then compiles; the worker exits when idle."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from codegen.producer import CompilerProducer, Produced, ProducerRequest
from runtime.worker import WorkerOptions, print_line, serve, stop_on_signals


class PausingProducer:
    name = "compiler"

    def __init__(self, marker: Path, pause_s: float) -> None:
        self.marker, self.pause_s, self.compiler = marker, pause_s, CompilerProducer()

    def produce(self, request: ProducerRequest) -> Produced:
        self.marker.touch()
        time.sleep(self.pause_s)
        return self.compiler.produce(request)


def main() -> None:
    url, home, marker, pause_s, lease_s = sys.argv[1], sys.argv[2], Path(sys.argv[3]), float(sys.argv[4]), \
        float(sys.argv[5])
    stop = threading.Event()
    stop_on_signals(stop)
    options = WorkerOptions(queue_url=url, home=home, lease_s=lease_s, debounce_s=0, sweep_s=None, poll_s=0.05,
                            exit_when_idle=True, name=f"slow:{os.getpid()}")
    serve(options, stop, print_line, producer=PausingProducer(marker, pause_s))


if __name__ == "__main__":
    main()

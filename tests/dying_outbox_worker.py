"""A checkpoint worker that dies inside its alert run's transaction, for the webhook fault
test: `python dying_outbox_worker.py STORE_URL HOME MARKER`. Its outbox records the delivery,
touches MARKER and sleeps, so the test can kill -9 it after the publish and before the commit
of the alert state (and the delivery with it)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

from constraints import AlertDiff
from runtime.webhooks import webhook_outbox
from runtime.worker import WorkerOptions, open_worker, print_line


def main() -> None:
    url, home, marker = sys.argv[1], sys.argv[2], Path(sys.argv[3])

    def dying(conn: Any, user: str, diff: AlertDiff, operation: str) -> None:
        webhook_outbox(conn, user, diff, operation)
        marker.touch()
        time.sleep(600)

    options = WorkerOptions(queue_url=url, home=home, lease_s=1, debounce_s=0, sweep_s=None, poll_s=0.05,
                            exit_when_idle=True, name="dying")
    worker, memory, queue = open_worker(options, print_line)
    assert memory.alert_runs.shared is not None
    memory.alert_runs.shared.outbox = dying
    worker.run_until(threading.Event(), exit_when_idle=True)


if __name__ == "__main__":
    main()

"""An HTTP API process that dies in a checkpoint's alert run, for the webhook fault tests:
`python dying_http_server.py HOME STORE KEY MARKER PHASE` (STORE `-`: the workspace's own
SQLite store and `alerts.json`). It posts a checkpoint of its tenant's user alice through
the app (`HttpApi`), touches MARKER at PHASE and sleeps, so the test can kill -9 it there:

- `before-save`: the file outbox staged the delivery; `alerts.json` is not saved yet;
- `after-save`: `alerts.json` is saved; the staged delivery is not confirmed yet;
- `in-transaction`: PostgreSQL's outbox recorded the delivery; the state is not committed;
- `before-response`: the alert run returned (its state and delivery recorded), no answer yet.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from fastapi.testclient import TestClient

from constraints import AlertDiff
from constraints.state import AlertState
from runtime.http_api import HttpApi
from runtime.memory import Memory
from runtime.tenants import open_registry


def main() -> None:
    home, store, key, marker, phase = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4]), sys.argv[5]
    url = None if store == "-" else store
    registry = open_registry(home, url)
    mem = Memory.open(home, store=url)
    api = HttpApi(mem, registry)
    runs = mem.alert_runs

    def die() -> None:
        marker.touch()
        time.sleep(600)

    if phase in ("before-save", "after-save"):
        file_outbox = runs.file_outbox
        assert file_outbox is not None

        @contextlib.contextmanager
        def staged(user: str, operation: str, state: AlertState, diff: AlertDiff) -> Iterator[None]:
            with file_outbox(user, operation, state, diff):
                if phase == "before-save":
                    die()
                yield
                die()  # saved, not confirmed

        runs.file_outbox = staged
    elif phase == "in-transaction":
        assert runs.shared is not None and runs.shared.outbox is not None
        pg_outbox = runs.shared.outbox

        def recorded(conn: Any, user: str, diff: AlertDiff, operation: str) -> None:
            pg_outbox(conn, user, diff, operation)
            die()

        runs.shared.outbox = recorded
    else:
        alerts_of = runs.alerts_of

        def answered(*args: Any, **kwargs: Any) -> AlertDiff:
            diff = alerts_of(*args, **kwargs)
            die()
            return diff

        setattr(runs, "alerts_of", answered)
    with TestClient(api.app()) as client:
        client.post("/v1/users/alice/checkpoint", json={"today": "2026-01-01"},
                    headers={"Authorization": f"Bearer {key}"})
    sys.exit("the checkpoint finished: the phase was never reached")


if __name__ == "__main__":
    main()

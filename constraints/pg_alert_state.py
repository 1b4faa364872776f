"""Alert state kept in PostgreSQL (table `alert_states`, created by the version store's
migrations, `users/pg_sql/`), so that a constraint run on any machine diffs against the
last run on every machine: an alert announced by one is not announced again by another.

A user's state is one document, exactly as `alerts.json` holds it (`kept_state.render`,
read back by `AlertState.parse`). A run holds a transaction-level advisory lock on the user
from reading the state to writing the new one (`held`), so runs on many machines are
serialised as runs of one home are by the state file's lock. A state is written only while
the user still has a version in PostgreSQL, under the same lock `forget` takes: a run that
raced a forget writes nothing.

An `outbox` (`runtime.webhooks.webhook_outbox`) is handed the run's diff on the state's own
connection when the state is written (by a worker's checkpoint and by the HTTP API's runs
alike), so what it records (a webhook delivery) commits with the state or not at all: a new
alert is recorded exactly once however many runs race; a run killed before its commit leaves
neither, and the next run raises it again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeAlias

from constraints.kept_state import state_bytes
from constraints.state import AlertState
from users.pg_versions import ALERT_LOCK, connection, lock_user

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg_pool import ConnectionPool

    from constraints.runner import AlertDiff

Held: TypeAlias = "tuple[AlertState, Callable[[AlertState, AlertDiff], None]]"
Outbox: TypeAlias = "Callable[[Connection[Any], str, AlertDiff, str], None]"  # (conn, user, diff, operation)


class PgAlertStates:
    """Each user's alert state in the database of `pool`."""

    def __init__(self, pool: ConnectionPool, outbox: Outbox | None = None) -> None:
        self.pool = pool
        self.outbox = outbox

    def load(self, user: str) -> AlertState:
        """The user's last recorded state (empty when none), without locking."""
        with connection(self.pool) as conn:
            row = conn.execute("SELECT state FROM alert_states WHERE user_id = %s", (user,)).fetchone()
        return AlertState() if row is None else self._parse(user, bytes(row[0]))

    @contextlib.contextmanager
    def held(self, user: str, operation: str = "checkpoint") -> Iterator[Held]:
        """The user's state and a function saving the next one, under the user's lock;
        committed on exit. `operation` (what ran the constraints: "checkpoint", "alerts") is
        handed to the outbox."""
        with connection(self.pool) as conn:
            lock_user(conn, ALERT_LOCK, user)
            row = conn.execute("SELECT state FROM alert_states WHERE user_id = %s", (user,)).fetchone()
            state = AlertState() if row is None else self._parse(user, bytes(row[0]))

            def save(new: AlertState, diff: AlertDiff) -> None:
                written = conn.execute(
                    "INSERT INTO alert_states (user_id, state) SELECT %s, %s "
                    "WHERE EXISTS (SELECT 1 FROM versions WHERE user_id = %s) "
                    "ON CONFLICT (user_id) DO UPDATE SET state = EXCLUDED.state",
                    (user, state_bytes(new), user)).rowcount
                if written and self.outbox is not None:
                    self.outbox(conn, user, diff, operation)

            yield state, save

    @staticmethod
    def _parse(user: str, data: bytes) -> AlertState:
        return AlertState.parse(data, source=f"the alert state of {user} in PostgreSQL")

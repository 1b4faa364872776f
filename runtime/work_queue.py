"""The checkpoint queue in PostgreSQL: one row per user (`runtime/pg_sql/worker/`).

    queue = WorkQueue.open("postgresql://...")          # migrates the `worker` component
    queue.enqueue({"alice": 42})                          # alice's log now reaches position 42
    job = queue.claim("host:pid")                         # FOR UPDATE SKIP LOCKED, with a lease
    queue.finish(job, covered=42, published=True)         # or queue.fail(job, reason)

The rules:

- A user's job is *pending* while the log position it was asked to cover (`wanted_position`,
  raised by `enqueue`) is beyond the position a finished job covered (`done_position`). New
  facts that arrive while a job runs raise `wanted_position`, so the job stays pending after
  it finishes: nothing is missed.
- Debounce: the first enqueue of a job that is not waiting makes it due `debounce_s` later;
  further enqueues never push that moment back, so a burst of appends makes one job per
  debounce window and a steady stream cannot starve it.
- A claim takes the lease (`lease_owner`, `lease_expires`) of one due job, skipping rows other
  workers hold locked; a job whose lease expired (its worker was killed) is due again for
  anyone. The holder renews the lease while it works. A finish or failure by a worker whose
  lease was taken over changes nothing.
- A failure records its reason and retries after `retry_s * 2**(attempts-1)` seconds (at most
  five minutes); after `max_attempts` failures in a row the job waits for new facts.
- `sweep(heads)` enqueues every user whose log head is beyond what the queue was asked for:
  the safety net for writers that do not enqueue, run by one worker per sweep interval.

Exactly one publish per log position is the version store's rule (`publish_if_newer`); the
lease makes it rare that two workers even try.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from factlog.errors import InputError
from factlog.model import check_user_id

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

SQL_FOLDER = Path(__file__).with_name("pg_sql") / "worker"
COMPONENT = "worker"
DEFAULT_DEBOUNCE_S = 0.5
DEFAULT_LEASE_S = 60.0
DEFAULT_RETRY_S = 2.0
DEFAULT_MAX_ATTEMPTS = 5
MAX_RETRY_S = 300.0
MAX_ERROR_CHARS = 500

_ENQUEUE = """
INSERT INTO worker_jobs AS j (user_id, wanted_position, due_at, pending_since)
VALUES (%s, %s, now() + make_interval(secs => %s), now())
ON CONFLICT (user_id) DO UPDATE SET
    wanted_position = EXCLUDED.wanted_position,
    due_at = LEAST(j.due_at, EXCLUDED.due_at),
    pending_since = CASE WHEN j.wanted_position > j.done_position THEN j.pending_since ELSE now() END
WHERE EXCLUDED.wanted_position > j.wanted_position
"""

_CLAIM = """
WITH picked AS (
    SELECT user_id FROM worker_jobs
    WHERE wanted_position > done_position
      AND ((lease_owner IS NULL AND due_at <= now()) OR (lease_owner IS NOT NULL AND lease_expires < now()))
    ORDER BY CASE WHEN lease_owner IS NULL THEN due_at ELSE lease_expires END, user_id
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
UPDATE worker_jobs j
SET lease_owner = %s, lease_expires = now() + make_interval(secs => %s), due_at = 'infinity',
    attempts = j.attempts + 1
FROM picked WHERE j.user_id = picked.user_id
RETURNING j.user_id, j.wanted_position, j.done_position, j.attempts
"""

_FINISH = """
UPDATE worker_jobs
SET done_position = GREATEST(done_position, %(covered)s),
    due_at = CASE WHEN %(wait_until)s::timestamptz IS NULL THEN due_at ELSE LEAST(due_at, %(wait_until)s) END,
    pending_since = CASE WHEN wanted_position > GREATEST(done_position, %(covered)s) THEN pending_since END,
    lease_owner = NULL, lease_expires = NULL, attempts = 0, last_error = NULL, failed_at = NULL,
    runs = runs + 1, publishes = publishes + %(published)s, finished_at = now()
WHERE user_id = %(user)s AND lease_owner = %(owner)s
"""

_FAIL = """
UPDATE worker_jobs
SET due_at = LEAST(due_at, CASE WHEN attempts < %(max_attempts)s
        THEN now() + make_interval(secs => LEAST(%(retry)s * power(2, attempts - 1), %(cap)s))
        ELSE 'infinity'::timestamptz END),
    lease_owner = NULL, lease_expires = NULL, last_error = %(error)s, failed_at = now(), runs = runs + 1
WHERE user_id = %(user)s AND lease_owner = %(owner)s
"""

_RELEASE = """
UPDATE worker_jobs SET lease_owner = NULL, lease_expires = NULL, due_at = now(), attempts = GREATEST(attempts - 1, 0)
WHERE user_id = %s AND lease_owner = %s
"""


@dataclass(frozen=True)
class Job:
    """A claimed job: the user, the log position the queue was asked to cover when it was
    claimed, the position covered before, and the attempt this is (1 for the first)."""

    user: str
    wanted: int
    done: int
    attempt: int
    owner: str


@dataclass(frozen=True)
class Lease:
    user: str
    owner: str
    expires_in_s: float


@dataclass(frozen=True)
class FailedJob:
    user: str
    attempts: int
    error: str
    failed_at: datetime
    parked: bool  # waits for new facts (too many failures in a row)


@dataclass(frozen=True)
class QueueStatus:
    users: int  # rows in the queue
    pending: int  # jobs whose log position is not covered yet
    due: int  # of those, the ones a worker may claim now
    lag_s: float  # how long the oldest due job has been due (0 when none)
    oldest_pending_s: float  # age of the oldest pending request (0 when none)
    running: list[Lease]
    expired_leases: int  # held by a worker that stopped renewing; due again
    failures: list[FailedJob]
    runs: int
    publishes: int

    def as_json(self) -> dict[str, Any]:
        return {"users": self.users, "pending": self.pending, "due": self.due, "lag_seconds": round(self.lag_s, 3),
                "oldest_pending_seconds": round(self.oldest_pending_s, 3),
                "running": [{"user": r.user, "owner": r.owner, "expires_in_seconds": round(r.expires_in_s, 3)}
                            for r in self.running],
                "expired_leases": self.expired_leases,
                "failures": [{"user": f.user, "attempts": f.attempts, "error": f.error,
                              "failed_at": f.failed_at.isoformat(), "parked": f.parked} for f in self.failures],
                "runs": self.runs, "publishes": self.publishes}


class WorkQueue:
    """The queue on a pool; `debounce_s` is the delay a new job waits for more facts."""

    def __init__(self, pool: ConnectionPool, *, debounce_s: float = DEFAULT_DEBOUNCE_S,
                 lease_s: float = DEFAULT_LEASE_S, retry_s: float = DEFAULT_RETRY_S,
                 max_attempts: int = DEFAULT_MAX_ATTEMPTS, owns_pool: bool = False) -> None:
        if debounce_s < 0 or lease_s <= 0 or retry_s < 0 or max_attempts < 1:
            raise InputError("the queue needs debounce >= 0, lease > 0, retry >= 0 and max attempts >= 1")
        self.pool = pool
        self.debounce_s, self.lease_s, self.retry_s, self.max_attempts = debounce_s, lease_s, retry_s, max_attempts
        self._owns_pool = owns_pool

    @staticmethod
    def open(url: str, *, max_size: int = 4, timeout: float = 30.0, **options: Any) -> WorkQueue:
        """A queue on its own pool at `url`, its schema migrated; `Unavailable` (one line)
        when the server does not answer within `timeout` seconds."""
        from factlog.pg import migrate, open_pool

        # the pool's own retries would log a warning per attempt: the one line is ours
        logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
        logging.getLogger("psycopg.pool").propagate = False
        pool = open_pool(url, min_size=1, max_size=max_size, timeout=timeout, name="uac-worker")
        try:
            migrate(pool, COMPONENT, SQL_FOLDER)
        except BaseException:
            pool.close()
            raise
        return WorkQueue(pool, owns_pool=True, **options)

    def close(self) -> None:
        if self._owns_pool:
            self.pool.close()

    def __enter__(self) -> WorkQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writers -------------------------------------------------------------------------

    def enqueue(self, heads: Mapping[str, int]) -> None:
        """Ask for each user's log to be covered up to the given position (its head after an
        append). A position the queue already asked for changes nothing."""
        rows = []
        for user, position in sorted(heads.items()):
            check_user_id(user)
            if position > 0:
                rows.append((user, int(position), self.debounce_s))
        if not rows:
            return
        with self.pool.connection() as conn, conn.cursor() as cur:
            cur.executemany(_ENQUEUE, rows)

    def sweep(self, heads: Mapping[str, int]) -> list[str]:
        """Enqueue every user whose head is beyond the position the queue was asked for;
        returns those users."""
        with self.pool.connection() as conn:
            asked: dict[str, int] = dict(conn.execute("SELECT user_id, wanted_position FROM worker_jobs").fetchall())
        behind = {user: head for user, head in heads.items() if head > asked.get(user, 0)}
        self.enqueue(behind)
        return sorted(behind)

    def take_sweep_turn(self, interval_s: float) -> bool:
        """True for exactly one caller per `interval_s` across every worker."""
        with self.pool.connection() as conn:
            row = conn.execute("UPDATE worker_sweeps SET last_sweep = now() WHERE id = 1 AND "
                               "last_sweep <= now() - make_interval(secs => %s) RETURNING 1",
                               (interval_s,)).fetchone()
        return row is not None

    # -- workers -------------------------------------------------------------------------

    def claim(self, owner: str) -> Job | None:
        """Lease one due job to `owner`, or None when nothing is due."""
        with self.pool.connection() as conn:
            row = conn.execute(_CLAIM, (owner, self.lease_s)).fetchone()
        if row is None:
            return None
        return Job(user=row[0], wanted=row[1], done=row[2], attempt=row[3], owner=owner)

    def renew(self, job: Job) -> bool:
        """Extend the lease; False when another worker took the job over."""
        with self.pool.connection() as conn:
            cur = conn.execute("UPDATE worker_jobs SET lease_expires = now() + make_interval(secs => %s) "
                               "WHERE user_id = %s AND lease_owner = %s", (self.lease_s, job.user, job.owner))
            return cur.rowcount == 1

    def finish(self, job: Job, covered: int, *, published: bool, wait_until: datetime | None = None) -> bool:
        """The job covered the log up to `covered`; with `wait_until`, the policy wants the
        rest checkpointed no later than then (else when new facts come). False when the
        lease had gone to another worker (nothing changed)."""
        with self.pool.connection() as conn:
            cur = conn.execute(_FINISH, {"covered": covered, "wait_until": wait_until, "published": int(published),
                                         "user": job.user, "owner": job.owner})
            return cur.rowcount == 1

    def fail(self, job: Job, error: str) -> bool:
        """Record why the job failed and when it is retried."""
        text = " ".join(error.split())[:MAX_ERROR_CHARS] or "(no message)"
        with self.pool.connection() as conn:
            cur = conn.execute(_FAIL, {"max_attempts": self.max_attempts, "retry": self.retry_s, "cap": MAX_RETRY_S,
                                       "error": text, "user": job.user, "owner": job.owner})
            return cur.rowcount == 1

    def release(self, job: Job) -> None:
        """Give the job back untouched (due at once, this attempt not counted)."""
        with self.pool.connection() as conn:
            conn.execute(_RELEASE, (job.user, job.owner))

    def next_due_in(self) -> float | None:
        """Seconds until the next pending job is due (0 if one is now), None if none waits."""
        with self.pool.connection() as conn:
            row = conn.execute("SELECT EXTRACT(EPOCH FROM min(CASE WHEN lease_owner IS NULL THEN due_at "
                               "ELSE lease_expires END) - now()) FROM worker_jobs "
                               "WHERE wanted_position > done_position "
                               "AND (lease_owner IS NOT NULL OR due_at < 'infinity')").fetchone()
        if row is None or row[0] is None:
            return None
        return max(0.0, float(row[0]))

    # -- status --------------------------------------------------------------------------

    def status(self) -> QueueStatus:
        with self.pool.connection() as conn:
            (users, pending, due, lag, oldest, expired, runs, publishes) = conn.execute("""
                SELECT count(*),
                       count(*) FILTER (WHERE wanted_position > done_position),
                       count(*) FILTER (WHERE wanted_position > done_position AND
                           ((lease_owner IS NULL AND due_at <= now()) OR lease_expires < now())),
                       EXTRACT(EPOCH FROM now() - min(CASE WHEN lease_owner IS NULL THEN due_at ELSE lease_expires END)
                           FILTER (WHERE wanted_position > done_position AND
                               ((lease_owner IS NULL AND due_at <= now()) OR lease_expires < now()))),
                       EXTRACT(EPOCH FROM now() - min(pending_since) FILTER (WHERE wanted_position > done_position)),
                       count(*) FILTER (WHERE lease_owner IS NOT NULL AND lease_expires < now()),
                       COALESCE(sum(runs), 0), COALESCE(sum(publishes), 0)
                FROM worker_jobs""").fetchone() or (0, 0, 0, None, None, 0, 0, 0)
            running = [Lease(u, o, float(s)) for u, o, s in conn.execute(
                "SELECT user_id, lease_owner, EXTRACT(EPOCH FROM lease_expires - now()) FROM worker_jobs "
                "WHERE lease_owner IS NOT NULL AND lease_expires >= now() ORDER BY user_id").fetchall()]
            failures = [FailedJob(u, a, e, t, bool(p)) for u, a, e, t, p in conn.execute(
                "SELECT user_id, attempts, last_error, failed_at, attempts >= %s FROM worker_jobs "
                "WHERE last_error IS NOT NULL ORDER BY failed_at DESC, user_id", (self.max_attempts,)).fetchall()]
        return QueueStatus(users=int(users), pending=int(pending), due=int(due), lag_s=float(lag or 0),
                           oldest_pending_s=float(oldest or 0), running=running, expired_leases=int(expired),
                           failures=failures, runs=int(runs), publishes=int(publishes))

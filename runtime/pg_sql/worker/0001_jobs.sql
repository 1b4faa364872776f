-- The checkpoint queue: one row per user. A job is pending while the log position it was
-- asked to cover (wanted_position) is beyond the one a finished job covered (done_position).
CREATE TABLE worker_jobs (
    user_id TEXT PRIMARY KEY,
    wanted_position BIGINT NOT NULL DEFAULT 0,
    done_position BIGINT NOT NULL DEFAULT 0,
    due_at TIMESTAMPTZ NOT NULL DEFAULT 'infinity',
    pending_since TIMESTAMPTZ,
    lease_owner TEXT,
    lease_expires TIMESTAMPTZ,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    failed_at TIMESTAMPTZ,
    runs BIGINT NOT NULL DEFAULT 0,
    publishes BIGINT NOT NULL DEFAULT 0,
    finished_at TIMESTAMPTZ
);

CREATE INDEX worker_jobs_due ON worker_jobs (due_at) WHERE wanted_position > done_position;

-- One row: when a worker last compared every user's log head with the queue.
CREATE TABLE worker_sweeps (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    last_sweep TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
);
INSERT INTO worker_sweeps (id) VALUES (1);

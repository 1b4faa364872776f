-- Published versions of each user's package, shared by every machine (users.pg_versions).
-- Blobs are per user (content-addressed within the user): forgetting a user deletes theirs.
CREATE TABLE version_blobs (
    user_id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (user_id, sha256)
);

-- One row per version: `meta` is its meta.json exactly as written, `files` name -> sha256,
-- `tree` the sha256 of every blob of its manifest's tree (parts and pieces of records).
CREATE TABLE versions (
    user_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    files_sha256 TEXT NOT NULL,
    log_position BIGINT NOT NULL,
    meta BYTEA NOT NULL,
    files JSONB NOT NULL,
    manifest_sha256 TEXT,
    tree TEXT[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (user_id, number)
);

-- The current version of each user; the row is locked (FOR UPDATE) by every publish,
-- rollback and forget of that user, which serialises them across machines.
CREATE TABLE version_pointers (
    user_id TEXT PRIMARY KEY,
    number INTEGER
);

CREATE TABLE version_events (
    user_id TEXT NOT NULL,
    seq BIGSERIAL,
    line TEXT NOT NULL,
    PRIMARY KEY (user_id, seq)
);

-- A token every forget replaces (`VersionStore.epoch`): a checkpoint that read the log
-- before a forget does not publish after it.
CREATE TABLE version_epoch (
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    token TEXT NOT NULL
);
INSERT INTO version_epoch (token) VALUES (md5(random()::text || clock_timestamp()::text));

-- Each user's alert state (what fired, escalated, resolved), as the document alerts.json
-- holds; the row is locked by every constraint run (constraints.pg_alert_state).
CREATE TABLE alert_states (
    user_id TEXT PRIMARY KEY,
    state BYTEA NOT NULL
);

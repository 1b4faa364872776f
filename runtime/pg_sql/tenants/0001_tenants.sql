-- Tenants of the HTTP API, their API keys (only a SHA-256 of each token) and webhook deliveries.
CREATE TABLE tenants (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL,
    webhook_url TEXT,
    webhook_secret TEXT
);

CREATE TABLE api_keys (
    key_id TEXT PRIMARY KEY,
    tenant_id BIGINT NOT NULL REFERENCES tenants (id),
    token_sha256 TEXT NOT NULL,
    read_only INTEGER NOT NULL,
    created TEXT NOT NULL,
    revoked TEXT
);

CREATE TABLE webhook_deliveries (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id BIGINT NOT NULL REFERENCES tenants (id),
    url TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);

CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (status) WHERE status = 'pending';

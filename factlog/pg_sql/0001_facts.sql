-- The fact log in PostgreSQL: the tables and guarantees of the SQLite log (factlog/migrations.py),
-- enforced by triggers. Never edit this file once shipped: add 0002_….sql.

CREATE TABLE facts (
    user_id TEXT NOT NULL,
    id BIGINT NOT NULL CHECK (id >= 1),
    recorded_at TEXT NOT NULL,
    text TEXT NOT NULL,
    kind TEXT,
    fields TEXT NOT NULL,
    key TEXT,
    valid_from TEXT,
    valid_to TEXT,
    retracts BIGINT,
    session_id TEXT,
    message_index BIGINT,
    role TEXT,
    session_ts TEXT,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (user_id, id)
);
CREATE INDEX facts_kind_key ON facts (user_id, kind, key);
CREATE INDEX facts_retracts ON facts (user_id, retracts) WHERE retracts IS NOT NULL;

-- The highest id each user was ever given: raised only by appending, never lowered, erased only
-- with its user. An append locks its user's row (SELECT ... FOR UPDATE): appends of one user are
-- serialised, different users append in parallel. 0: the row exists (to be locked), no fact yet.
CREATE TABLE id_high_water (
    user_id TEXT PRIMARY KEY,
    last_id BIGINT NOT NULL CHECK (last_id >= 0)
);

-- A row here erases its user at once and removes itself in the same statement.
CREATE TABLE forgetting (user_id TEXT PRIMARY KEY);

-- Whether the chain is keyed (the key's fingerprint); fixed once written, chosen while empty.
CREATE TABLE log_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE fact_sources (
    user_id TEXT NOT NULL,
    source TEXT NOT NULL,
    fact_id BIGINT NOT NULL,
    PRIMARY KEY (user_id, source)
);

CREATE TABLE field_types (
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    field TEXT NOT NULL,
    type TEXT NOT NULL,
    fact_ids TEXT NOT NULL,
    cited_exact INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (user_id, kind, field)
);

CREATE TABLE field_value_types (
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    field TEXT NOT NULL,
    type TEXT NOT NULL,
    live BIGINT NOT NULL CHECK (live >= 1),
    first_id BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind, field, type)
);

CREATE TABLE field_types_position (user_id TEXT PRIMARY KEY, position BIGINT NOT NULL);

CREATE TABLE extraction_failures (
    user_id TEXT NOT NULL,
    id BIGINT NOT NULL CHECK (id > 0),
    source TEXT NOT NULL,
    path TEXT NOT NULL,
    session_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    raw TEXT NOT NULL,
    failed_at TEXT NOT NULL,
    attempts INTEGER NOT NULL CHECK (attempts >= 1),
    fact_ids TEXT NOT NULL,
    resolved_at TEXT,
    resolved_by TEXT NOT NULL DEFAULT '[]',
    first_message BIGINT,
    last_message BIGINT,
    PRIMARY KEY (user_id, id),
    CHECK ((first_message IS NULL) = (last_message IS NULL)),
    CHECK (first_message IS NULL OR (0 <= first_message AND first_message <= last_message))
);
CREATE UNIQUE INDEX extraction_failures_chunk ON extraction_failures
    (user_id, source, session_id, COALESCE(first_message, -1), COALESCE(last_message, -1));

-- facts: never updated; deleted only while their user is listed in `forgetting`; an insert must
-- continue the user's ids after the high-water mark and the hash chain after the last fact, and
-- a retraction must name an existing fact.
CREATE FUNCTION facts_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'facts are append-only: a stored fact is never updated';
END $$;
CREATE TRIGGER facts_no_update BEFORE UPDATE ON facts FOR EACH ROW EXECUTE FUNCTION facts_refuse_update();

CREATE FUNCTION facts_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'facts are append-only: only forget may erase a user';
END $$;
CREATE TRIGGER facts_no_truncate BEFORE TRUNCATE ON facts EXECUTE FUNCTION facts_refuse_truncate();
CREATE TRIGGER high_water_no_truncate BEFORE TRUNCATE ON id_high_water EXECUTE FUNCTION facts_refuse_truncate();

CREATE FUNCTION facts_check_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM forgetting WHERE user_id = OLD.user_id) THEN
        RAISE EXCEPTION 'facts are append-only: only forget may erase a user';
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER facts_no_delete BEFORE DELETE ON facts FOR EACH ROW EXECUTE FUNCTION facts_check_delete();

CREATE FUNCTION facts_check_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    mark BIGINT;
    last_hash TEXT;
BEGIN
    IF EXISTS (SELECT 1 FROM forgetting WHERE user_id = NEW.user_id) THEN
        RAISE EXCEPTION 'a user being forgotten takes no new facts';
    END IF;
    SELECT last_id INTO mark FROM id_high_water WHERE user_id = NEW.user_id;
    SELECT hash INTO last_hash FROM facts WHERE user_id = NEW.user_id ORDER BY id DESC LIMIT 1;
    IF NEW.id <> COALESCE(mark, 0) + 1
       OR NEW.prev_hash <> COALESCE(last_hash, '0000000000000000000000000000000000000000000000000000000000000000') THEN
        RAISE EXCEPTION 'facts are append-only: id or hash chain does not continue (ids are never reused)';
    END IF;
    IF NEW.retracts IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM facts WHERE user_id = NEW.user_id AND id = NEW.retracts) THEN
        RAISE EXCEPTION 'a retraction must name an existing fact';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER facts_sequence BEFORE INSERT ON facts FOR EACH ROW EXECUTE FUNCTION facts_check_insert();

CREATE FUNCTION facts_raise_high_water() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO id_high_water (user_id, last_id) VALUES (NEW.user_id, NEW.id)
        ON CONFLICT (user_id) DO UPDATE SET last_id = EXCLUDED.last_id;
    RETURN NULL;
END $$;
CREATE TRIGGER facts_raise_high_water AFTER INSERT ON facts FOR EACH ROW EXECUTE FUNCTION facts_raise_high_water();

-- id_high_water follows the log: created at 0 (a row to lock) or at the user's newest id, raised
-- only to the newest id, never lowered.
CREATE FUNCTION high_water_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    newest BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM forgetting WHERE user_id = OLD.user_id) THEN
            RAISE EXCEPTION 'the id high-water mark is erased only with its user (forget)';
        END IF;
        RETURN OLD;
    END IF;
    SELECT MAX(id) INTO newest FROM facts WHERE user_id = NEW.user_id;
    IF TG_OP = 'INSERT' THEN
        IF NEW.last_id <> 0 AND NEW.last_id <> COALESCE(newest, 0) THEN
            RAISE EXCEPTION 'the id high-water mark is set only by appending a fact';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.user_id <> OLD.user_id OR NEW.last_id <= OLD.last_id OR newest IS NULL OR NEW.last_id <> newest THEN
        RAISE EXCEPTION 'the id high-water mark never goes down: ids are never reused';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER high_water_guard BEFORE INSERT OR UPDATE OR DELETE ON id_high_water
    FOR EACH ROW EXECUTE FUNCTION high_water_check();

CREATE FUNCTION forgetting_erase() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM facts WHERE user_id = NEW.user_id;
    DELETE FROM id_high_water WHERE user_id = NEW.user_id;
    DELETE FROM forgetting WHERE user_id = NEW.user_id;
    RETURN NULL;
END $$;
CREATE TRIGGER forgetting_erases_user AFTER INSERT ON forgetting FOR EACH ROW EXECUTE FUNCTION forgetting_erase();

CREATE FUNCTION forgetting_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION 'forgetting rows are never updated';
    END IF;
    IF EXISTS (SELECT 1 FROM facts WHERE user_id = OLD.user_id)
       OR EXISTS (SELECT 1 FROM id_high_water WHERE user_id = OLD.user_id) THEN
        RAISE EXCEPTION 'forget erases all of a user or nothing';
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER forgetting_all_or_nothing BEFORE UPDATE OR DELETE ON forgetting
    FOR EACH ROW EXECUTE FUNCTION forgetting_check();

CREATE FUNCTION log_meta_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'log settings are fixed once written';
    END IF;
    IF EXISTS (SELECT 1 FROM facts) OR EXISTS (SELECT 1 FROM id_high_water WHERE last_id > 0) THEN
        RAISE EXCEPTION 'log settings are chosen while the log is empty';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER log_meta_fixed BEFORE INSERT OR UPDATE OR DELETE ON log_meta
    FOR EACH ROW EXECUTE FUNCTION log_meta_check();
CREATE TRIGGER log_meta_no_truncate BEFORE TRUNCATE ON log_meta EXECUTE FUNCTION facts_refuse_truncate();

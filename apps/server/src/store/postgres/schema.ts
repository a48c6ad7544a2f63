/**
 * The database's schema, one step per version, oldest first. A step is never edited once released:
 * a change is a new step at the end.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the state of sessions, and what instances share to work as one. Payloads are json, not jsonb:
  // they are stored and read whole, and json keeps what jsonb refuses (a NUL character in tool output).
  `
  CREATE TABLE sessions (
    id text PRIMARY KEY,
    seq bigserial UNIQUE,
    worker_id text NOT NULL,
    parent_id text,
    info json NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX sessions_parent ON sessions (parent_id);
  CREATE INDEX sessions_worker ON sessions (worker_id);
  CREATE TABLE messages (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL,
    message json NOT NULL
  );
  CREATE INDEX messages_session ON messages (session_id, id);
  CREATE TABLE events (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL,
    event json NOT NULL
  );
  CREATE INDEX events_session ON events (session_id, id);
  CREATE TABLE pending_approvals (
    approval_id text PRIMARY KEY,
    session_id text NOT NULL,
    event_id bigint NOT NULL,
    event json NOT NULL
  );
  CREATE INDEX pending_approvals_session ON pending_approvals (session_id);
  CREATE TABLE runtime_rules (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL,
    tool text NOT NULL,
    pattern text NOT NULL
  );
  CREATE INDEX runtime_rules_session ON runtime_rules (session_id);
  CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL,
    session_id text NOT NULL,
    worker_id text NOT NULL,
    tool_name text NOT NULL,
    action text NOT NULL,
    by text,
    entry json NOT NULL
  );
  CREATE INDEX audit_log_at ON audit_log (at);
  CREATE INDEX audit_log_session ON audit_log (session_id, at);
  CREATE TABLE instances (
    id text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    alive_until timestamptz NOT NULL
  );
  CREATE TABLE session_leases (
    session_id text PRIMARY KEY,
    instance_id text NOT NULL
  );
  CREATE INDEX session_leases_instance ON session_leases (instance_id);
  CREATE TABLE workers (
    id text PRIMARY KEY,
    instance_id text NOT NULL,
    entry json NOT NULL
  );
  CREATE TABLE mailbox (
    id bigserial PRIMARY KEY,
    to_instance text NOT NULL,
    body json NOT NULL
  );
  CREATE INDEX mailbox_to ON mailbox (to_instance, id);
  `,
  // 2: answered approvals, kept with their answer until the turn ends, so that a turn carried on honours them.
  `
  CREATE TABLE approval_answers (
    approval_id text PRIMARY KEY,
    session_id text NOT NULL,
    event_id bigint NOT NULL,
    event json NOT NULL,
    answer json NOT NULL
  );
  CREATE INDEX approval_answers_session ON approval_answers (session_id, event_id);
  `,
];

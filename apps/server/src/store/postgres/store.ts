import type { GatehouseEvent, Message, SessionInfo } from "@gatehouse/protocol";
import pg from "pg";
import { eventText } from "../event-text.js";
import type { Resolution } from "../resolution.js";
import type { AnsweredRecord, AuditEntry, AuditQuery, Page, PendingRecord, RuntimeRuleRecord, SessionFilter, Store, StoredEvent } from "../store.js";
import { migrate } from "./migrations.js";

/** The channel that carries the id of every event stored, for the instances that did not store it. */
export const EVENTS_CHANNEL = "gatehouse_events";

/**
 * Event ids are drawn under this transaction lock, so ids commit in the order they are drawn:
 * an instance that sees event N knows every event below N is readable too.
 */
const EVENT_ORDER_LOCK = 0x6576_6e74; // "evnt"

/** bigint columns come back as numbers: ids and counts stay far below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Opens a pool on a PostgreSQL URL; the pool's errors (a connection lost while idle) are reported, not thrown. */
export function openPool(url: string, onError: (err: Error) => void, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types });
  pool.on("error", onError);
  return pool;
}

/** The store on PostgreSQL, shared by every instance that points at the same database. */
export class PostgresStore implements Store {
  constructor(readonly pool: pg.Pool) {}

  /** Connects and brings the schema up to date. */
  static async open(url: string, onError: (err: Error) => void): Promise<PostgresStore> {
    const pool = openPool(url, onError);
    try {
      await migrate(pool);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PostgresStore(pool);
  }

  /**
   * Where the database keeps its files (the data directory and every tablespace), for workers on
   * its machine to treat as the system's own secrets: they hold every session's messages. A role
   * without the right to read these settings learns nothing; the caller says so.
   */
  async dataDirectories(): Promise<string[]> {
    const { rows } = await this.pool.query<{ dir: string }>(
      `SELECT current_setting('data_directory') AS dir
       UNION SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE pg_tablespace_location(oid) <> ''`,
    );
    return rows.map((r) => r.dir);
  }

  async putSession(session: SessionInfo): Promise<void> {
    await this.pool.query(
      `INSERT INTO sessions (id, worker_id, parent_id, info) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET worker_id = EXCLUDED.worker_id, parent_id = EXCLUDED.parent_id, info = EXCLUDED.info`,
      [session.id, session.workerId, session.parentId ?? null, session],
    );
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    const { rows } = await this.pool.query<{ info: SessionInfo }>("SELECT info FROM sessions WHERE id = $1", [id]);
    return rows[0]?.info;
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const { rows } = await this.pool.query<{ info: SessionInfo }>(
      `SELECT info FROM sessions
       WHERE ($1::text IS NULL OR worker_id = $1) AND (NOT $2 OR parent_id IS NOT DISTINCT FROM $3)
       ORDER BY seq`,
      [filter.workerId ?? null, filter.parentId !== undefined, filter.parentId ?? null],
    );
    return rows.map((r) => r.info);
  }

  async appendMessage(sessionId: string, message: Message): Promise<void> {
    await this.pool.query("INSERT INTO messages (session_id, message) VALUES ($1, $2)", [sessionId, message]);
  }

  async messages(sessionId: string): Promise<Message[]> {
    const { rows } = await this.pool.query<{ message: Message }>("SELECT message FROM messages WHERE session_id = $1 ORDER BY id", [sessionId]);
    return rows.map((r) => r.message);
  }

  /**
   * Events wait here while a batch is being written; they are written together next, in the
   * order they came, so ids rise in the order of the calls and one round trip serves many.
   */
  private queued: { sessionId: string; event: GatehouseEvent; resolve: (e: StoredEvent) => void; reject: (err: Error) => void }[] = [];
  private writing = false;

  appendEvent(sessionId: string, event: GatehouseEvent): Promise<StoredEvent> {
    return new Promise((resolve, reject) => {
      this.queued.push({ sessionId, event, resolve, reject });
      if (!this.writing) void this.writeEvents();
    });
  }

  private async writeEvents(): Promise<void> {
    this.writing = true;
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, 500);
      try {
        const ids = await this.insertEvents(batch);
        batch.forEach((b, i) => b.resolve({ id: ids[i]!, sessionId: b.sessionId, event: b.event }));
      } catch (err) {
        for (const b of batch) b.reject(err as Error);
      }
    }
    this.writing = false;
  }

  /**
   * One statement: take the ordering lock, insert in order, record the approvals among the events
   * (so no instance can show one that is not yet answerable), and notify the other instances of
   * the newest id when it commits. Ids rise in the order of the insert's `ORDER BY`, which pairs
   * each stored row with its input. The approval id comes as a parameter: PostgreSQL's json
   * operators refuse a document holding a NUL character (a binary file's bytes in a result).
   */
  private async insertEvents(batch: { sessionId: string; event: GatehouseEvent }[]): Promise<number[]> {
    const { rows } = await this.pool.query<{ ids: number[] }>(
      `WITH ordered AS (SELECT pg_advisory_xact_lock($3)),
            input AS (SELECT s, e, a, n FROM unnest($1::text[], $2::json[], $4::text[]) WITH ORDINALITY AS t (s, e, a, n)),
            stored AS (INSERT INTO events (session_id, event) SELECT s, e FROM input, ordered ORDER BY n RETURNING id),
            numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM stored),
            held AS (INSERT INTO pending_approvals (approval_id, session_id, event_id, event)
                     SELECT a, s, id, e FROM numbered JOIN input USING (n) WHERE a IS NOT NULL)
       SELECT array_agg(id::float8 ORDER BY id) AS ids, pg_notify('${EVENTS_CHANNEL}', max(id)::text) FROM stored`,
      [batch.map((b) => b.sessionId), batch.map((b) => eventText(b.event)), EVENT_ORDER_LOCK, batch.map((b) => approvalIdOf(b.event))],
    );
    return rows[0]!.ids;
  }

  async eventsAfter(afterId: number, sessionId?: string | readonly string[], limit?: number): Promise<StoredEvent[]> {
    const ids = sessionId === undefined ? null : typeof sessionId === "string" ? [sessionId] : [...sessionId];
    const { rows } = await this.pool.query<{ id: number; session_id: string; event: GatehouseEvent }>(
      `SELECT id, session_id, event FROM events WHERE id > $1 AND ($2::text[] IS NULL OR session_id = ANY($2)) ORDER BY id LIMIT $3`,
      [afterId, ids, limit ?? null],
    );
    return rows.map((r) => ({ id: r.id, sessionId: r.session_id, event: r.event }));
  }

  async lastEventId(): Promise<number> {
    const { rows } = await this.pool.query<{ id: number }>("SELECT coalesce(max(id), 0) AS id FROM events");
    return rows[0]!.id;
  }

  async addRuntimeRules(sessionId: string, tool: string, patterns: readonly string[]): Promise<void> {
    await this.pool.query("INSERT INTO runtime_rules (session_id, tool, pattern) SELECT $1, $2, unnest($3::text[])", [sessionId, tool, [...patterns]]);
  }

  async runtimeRules(sessionId?: string): Promise<RuntimeRuleRecord[]> {
    const { rows } = await this.pool.query<{ session_id: string; tool: string; pattern: string }>(
      "SELECT session_id, tool, pattern FROM runtime_rules WHERE $1::text IS NULL OR session_id = $1 ORDER BY id",
      [sessionId ?? null],
    );
    return rows.map((r) => ({ sessionId: r.session_id, tool: r.tool, pattern: r.pattern }));
  }

  async forgetRuntimeRules(sessionId: string): Promise<void> {
    await this.pool.query("DELETE FROM runtime_rules WHERE session_id = $1", [sessionId]);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.pool.query("INSERT INTO audit_log (at, session_id, worker_id, tool_name, action, by, entry) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
      entry.at,
      entry.sessionId,
      entry.workerId,
      entry.toolName,
      entry.action,
      entry.by ?? null,
      entry,
    ]);
  }

  async queryAudit(q: AuditQuery): Promise<AuditEntry[]> {
    const { rows } = await this.pool.query<{ entry: AuditEntry }>(
      `SELECT entry FROM (
         SELECT id, entry FROM audit_log
         WHERE ($1::text IS NULL OR session_id = $1) AND ($2::text IS NULL OR worker_id = $2) AND ($3::text IS NULL OR tool_name = $3)
           AND ($4::text IS NULL OR action = $4) AND ($5::text IS NULL OR by = $5)
           AND ($6::timestamptz IS NULL OR at >= $6) AND ($7::timestamptz IS NULL OR at < $7)
         ORDER BY id DESC LIMIT $8
       ) newest ORDER BY id`,
      [q.sessionId ?? null, q.workerId ?? null, q.toolName ?? null, q.action ?? null, q.by ?? null, q.since ?? null, q.until ?? null, q.limit ?? null],
    );
    return rows.map((r) => r.entry);
  }

  async pruneAudit(before: string): Promise<number> {
    const { rowCount } = await this.pool.query("DELETE FROM audit_log WHERE at < $1", [before]);
    return rowCount ?? 0;
  }

  /** Records an approval whose event was not stored here (one stored here is recorded already, and may be taken since). */
  async putPending(record: PendingRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO pending_approvals (approval_id, session_id, event_id, event) SELECT $1, $2, $3, $4
       WHERE NOT EXISTS (SELECT 1 FROM events WHERE id = $3) ON CONFLICT (approval_id) DO NOTHING`,
      [record.event.approvalId, record.event.sessionId, record.eventId, record.event],
    );
  }

  /** The row is deleted, and its answer kept, by one statement: however many instances ask at once, one gets it back. */
  async takePending(approvalId: string, answer?: Resolution): Promise<PendingRecord | undefined> {
    const { rows } = await this.pool.query<{ event: PendingRecord["event"]; event_id: number }>(
      `WITH taken AS (DELETE FROM pending_approvals WHERE approval_id = $1 RETURNING approval_id, session_id, event_id, event),
       kept AS (INSERT INTO approval_answers (approval_id, session_id, event_id, event, answer)
         SELECT approval_id, session_id, event_id, event, $2::json FROM taken WHERE $2::text IS NOT NULL ON CONFLICT (approval_id) DO NOTHING)
       SELECT event, event_id FROM taken`,
      [approvalId, answer ? JSON.stringify(answer) : null],
    );
    return rows[0] && { event: rows[0].event, eventId: rows[0].event_id };
  }

  async answered(sessionId: string): Promise<AnsweredRecord[]> {
    const { rows } = await this.pool.query<{ event: PendingRecord["event"]; event_id: number; answer: Resolution }>(
      "SELECT event, event_id, answer FROM approval_answers WHERE session_id = $1 ORDER BY event_id",
      [sessionId],
    );
    return rows.map((r) => ({ event: r.event, eventId: r.event_id, answer: r.answer }));
  }

  async forgetAnswers(sessionId: string): Promise<void> {
    await this.pool.query("DELETE FROM approval_answers WHERE session_id = $1", [sessionId]);
  }

  async listPending(sessionId?: string, page?: Page): Promise<PendingRecord[]> {
    const { rows } = await this.pool.query<{ event: PendingRecord["event"]; event_id: number }>(
      "SELECT event, event_id FROM pending_approvals WHERE ($1::text IS NULL OR session_id = $1) AND event_id > $2 ORDER BY event_id LIMIT $3",
      [sessionId ?? null, page?.afterEventId ?? 0, page?.limit ?? null],
    );
    return rows.map((r) => ({ event: r.event, eventId: r.event_id }));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

const approvalIdOf = (event: GatehouseEvent): string | null => (event.type === "tool_approval_required" ? event.approvalId : null);

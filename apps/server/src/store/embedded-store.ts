import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { GatehouseEvent, Message, SessionInfo } from "@gatehouse/protocol";
import { Checkpoints } from "./checkpoints.js";
import { eventFromText, eventText } from "./event-text.js";
import { GatehouseError } from "../errors.js";
import type { Resolution } from "./resolution.js";
import type { AnsweredRecord, AuditEntry, AuditQuery, Page, PendingRecord, RuntimeRuleRecord, SessionFilter, Store, StoredEvent } from "./store.js";

/** Versioned schema changes, applied in order at start; the database's `user_version` says how many it has. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, worker_id TEXT NOT NULL, parent_id TEXT, data TEXT NOT NULL);
   CREATE INDEX sessions_worker ON sessions (worker_id);
   CREATE INDEX sessions_parent ON sessions (parent_id);
   CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, data TEXT NOT NULL);
   CREATE INDEX messages_session ON messages (session_id, id);
   CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, data TEXT NOT NULL);
   CREATE INDEX events_session ON events (session_id, id);
   CREATE TABLE runtime_rules (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, tool TEXT NOT NULL, pattern TEXT NOT NULL);
   CREATE INDEX runtime_rules_session ON runtime_rules (session_id);
   CREATE TABLE audit (id INTEGER PRIMARY KEY, at TEXT NOT NULL, session_id TEXT NOT NULL, worker_id TEXT NOT NULL, tool_name TEXT NOT NULL,
     arguments TEXT NOT NULL, action TEXT NOT NULL, reason TEXT NOT NULL, rule TEXT, by TEXT);
   CREATE INDEX audit_at ON audit (at);
   CREATE INDEX audit_session ON audit (session_id);
   CREATE TABLE pending (approval_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, event_id INTEGER NOT NULL, data TEXT NOT NULL);`,
  `CREATE TABLE answers (approval_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, event_id INTEGER NOT NULL, data TEXT NOT NULL, answer TEXT NOT NULL);
   CREATE INDEX answers_session ON answers (session_id, event_id);`,
  // A session's pending approvals are read at every carried-on turn and subscription: without it, each read scanned all of them.
  `CREATE INDEX pending_session ON pending (session_id, event_id);`,
];

/** Brings a database to the newest schema; one that a newer Gatehouse wrote is refused, not guessed at. */
function migrate(db: Database.Database, file: string): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > MIGRATIONS.length)
    throw new GatehouseError(
      "CONFIG",
      `${file}: the state has schema version ${version}, newer than this server knows (${MIGRATIONS.length}); run a newer Gatehouse`,
    );
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * When a process started (clock ticks since boot, from /proc); null where that cannot be read.
 * With its pid it names one process: a pid reused later (after a reboot, in a new container) is
 * another process with another start.
 */
function startOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the lock's owner still runs: its pid lives and, where the lock says when it started, it is that process. */
function held(owner: number, start: string | undefined): boolean {
  if (!owner || owner === process.pid || !alive(owner)) return false;
  const now = start === undefined ? null : startOf(owner);
  return now === null || now === start;
}

/**
 * One server per state file: a lock file holds the owner's pid and start. A second server is
 * refused while that process lives; the lock of one that died (kill -9) is taken over, and so is
 * one whose pid now belongs to another process. Returns the release.
 */
function lock(file: string): () => void {
  const lockFile = `${file}.lock`;
  const start = startOf(process.pid);
  for (;;) {
    try {
      fs.writeFileSync(lockFile, start === null ? String(process.pid) : `${process.pid} ${start}`, { flag: "wx" });
      return () => fs.rmSync(lockFile, { force: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOSPC")
        throw new GatehouseError("CONFIG", `${path.dirname(file)}: no space left in the data directory; the server cannot start until there is room`);
      if (code !== "EEXIST") throw err;
    }
    const [pid, ownerStart] = fs.readFileSync(lockFile, "utf8").trim().split(" ");
    const owner = Number(pid);
    if (held(owner, ownerStart))
      throw new GatehouseError("CONFIG", `${file}: in use by another Gatehouse server (process ${owner}); one server per data directory`);
    fs.rmSync(lockFile, { force: true });
  }
}

/**
 * SQLite takes an empty file for a new database, so a state file a crash or a full disk left at
 * 0 bytes would start the server with nothing (sessions, pending approvals, the audit log) and
 * no word. The server writes the header as soon as it makes the file (its first pragma): an empty
 * one was cut short, and is refused.
 */
function refuseEmpty(file: string): void {
  if (fs.statSync(file, { throwIfNoEntry: false })?.size !== 0) return;
  throw new GatehouseError(
    "CONFIG",
    `${file}: the state database is empty (0 bytes), so what it held is gone (a file cut short by a crash or a full disk); restore it from a backup, or remove it to start with an empty state`,
  );
}

interface AuditRow {
  at: string;
  session_id: string;
  worker_id: string;
  tool_name: string;
  arguments: string;
  action: string;
  reason: string;
  rule: string | null;
  by: string | null;
}

const fromAuditRow = (r: AuditRow): AuditEntry => ({
  at: r.at,
  sessionId: r.session_id,
  workerId: r.worker_id,
  toolName: r.tool_name,
  arguments: r.arguments,
  action: r.action,
  reason: r.reason,
  rule: r.rule,
  ...(r.by !== null ? { by: r.by } : {}),
});

const AUDIT_FILTERS: [keyof AuditQuery, string][] = [
  ["sessionId", "session_id = ?"],
  ["workerId", "worker_id = ?"],
  ["toolName", "tool_name = ?"],
  ["action", "action = ?"],
  ["by", "by = ?"],
  ["since", "at >= ?"],
  ["until", "at < ?"],
];

/**
 * The embedded store: SQLite in the data directory, in WAL mode. Writes run at once (so event ids
 * follow call order) inside a transaction that is committed once per turn of the event loop; a
 * write a client may see resolves when that commit is done. Reads of events and pending approvals wait
 * for an open commit, so nothing uncommitted reaches a client. No event is kept in memory: the log is read from disk.
 */
export class EmbeddedStore implements Store {
  private readonly db: Database.Database;
  private readonly statements;
  private readonly unlock: () => void;
  private readonly cache = new Map<string, Database.Statement>();
  private readonly checkpoints: Checkpoints;
  private batch: { done: Promise<void>; resolve: () => void; reject: (err: unknown) => void } | null = null;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.unlock = lock(file);
    try {
      refuseEmpty(file);
      this.db = new Database(file);
      this.db.pragma("journal_mode = WAL");
      // In WAL mode a commit survives the process being killed; only a power cut can lose the last ones.
      this.db.pragma("synchronous = NORMAL");
      this.db.pragma("busy_timeout = 5000");
      migrate(this.db, file);
      // Checkpoints run on their own thread; this connection's own, after 4,000 pages, let the log start over.
      this.db.pragma("wal_autocheckpoint = 4000");
      this.db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      this.checkpoints = new Checkpoints(file, () => this.db.open && this.db.pragma("wal_autocheckpoint = 1000"));
    } catch (err) {
      this.unlock();
      if (err instanceof GatehouseError) throw err;
      throw new GatehouseError("CONFIG", `${file}: cannot open the state database: ${(err as Error).message}`);
    }
    const db = this.db;
    this.statements = {
      putSession: db.prepare(
        `INSERT INTO sessions (id, worker_id, parent_id, data) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET worker_id = excluded.worker_id, parent_id = excluded.parent_id, data = excluded.data`,
      ),
      getSession: db.prepare(`SELECT data FROM sessions WHERE id = ?`).pluck(),
      appendMessage: db.prepare(`INSERT INTO messages (session_id, data) VALUES (?, ?)`),
      messages: db.prepare(`SELECT data FROM messages WHERE session_id = ? ORDER BY id`).pluck(),
      appendEvent: db.prepare(`INSERT INTO events (session_id, data) VALUES (?, ?)`),
      eventsAfter: db.prepare(`SELECT id, session_id, data FROM events WHERE id > ? ORDER BY id LIMIT ?`),
      eventsAfterOf: db.prepare(`SELECT id, session_id, data FROM events WHERE id > ? AND session_id IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?`),
      lastEventId: db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).pluck(),
      addRule: db.prepare(`INSERT INTO runtime_rules (session_id, tool, pattern) VALUES (?, ?, ?)`),
      rules: db.prepare(`SELECT session_id AS sessionId, tool, pattern FROM runtime_rules ORDER BY id`),
      rulesOf: db.prepare(`SELECT session_id AS sessionId, tool, pattern FROM runtime_rules WHERE session_id = ? ORDER BY id`),
      forgetRules: db.prepare(`DELETE FROM runtime_rules WHERE session_id = ?`),
      appendAudit: db.prepare(
        `INSERT INTO audit (at, session_id, worker_id, tool_name, arguments, action, reason, rule, by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      pruneAudit: db.prepare(`DELETE FROM audit WHERE at < ?`),
      putPending: db.prepare(`INSERT OR REPLACE INTO pending (approval_id, session_id, event_id, data) VALUES (?, ?, ?, ?)`),
      takePending: db.prepare(`DELETE FROM pending WHERE approval_id = ? RETURNING event_id, data`),
      pending: db.prepare(`SELECT event_id, data FROM pending WHERE event_id > ? ORDER BY event_id LIMIT ?`),
      pendingOf: db.prepare(`SELECT event_id, data FROM pending WHERE session_id = ? AND event_id > ? ORDER BY event_id LIMIT ?`),
      keepAnswer: db.prepare(`INSERT OR REPLACE INTO answers (approval_id, session_id, event_id, data, answer) VALUES (?, ?, ?, ?, ?)`),
      answered: db.prepare(`SELECT event_id, data, answer FROM answers WHERE session_id = ? ORDER BY event_id`),
      forgetAnswers: db.prepare(`DELETE FROM answers WHERE session_id = ?`),
    };
  }

  /** A statement built from parts (the filters a query uses), prepared once. */
  private prepared(sql: string): Database.Statement {
    let found = this.cache.get(sql);
    if (!found) this.cache.set(sql, (found = this.db.prepare(sql)));
    return found;
  }

  /** Runs a write now, inside this turn's transaction; resolves once that transaction is committed. */
  private write<T>(run: () => T, awaitCommit = true): Promise<T> {
    const batch = this.openBatch();
    try {
      const result = run();
      return awaitCommit ? batch.done.then(() => result) : Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /**
   * A write no client is shown (messages, audit entries): it resolves at once, inside this turn's
   * transaction. Whatever a client sees after it is an event committed in the same transaction or
   * a later one, so nothing seen can outlive it in a crash.
   */
  private writeUnseen(run: () => void): Promise<void> {
    return this.write(run, false);
  }

  private openBatch(): NonNullable<EmbeddedStore["batch"]> {
    if (this.batch) return this.batch;
    this.db.exec("BEGIN");
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    // A failed commit rejects every write that waits for it; a batch of unseen writes alone has no one waiting.
    done.catch(() => undefined);
    setImmediate(() => this.commit());
    return (this.batch = { done, resolve, reject });
  }

  private commit(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    try {
      this.db.exec("COMMIT");
      batch.resolve();
    } catch (err) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      batch.reject(err);
    }
  }

  /** Reads what a client will be shown (events, pending approvals) once no write is waiting for its commit. */
  private async read<T>(run: () => T): Promise<T> {
    while (this.batch) await this.batch.done.catch(() => undefined);
    return run();
  }

  /** Reads for the server's own work, which may see its writes before they are committed. */
  private async readOwn<T>(run: () => T): Promise<T> {
    return run();
  }

  putSession(session: SessionInfo): Promise<void> {
    return this.write(() => void this.statements.putSession.run(session.id, session.workerId, session.parentId, JSON.stringify(session)));
  }

  getSession(id: string): Promise<SessionInfo | undefined> {
    return this.readOwn(() => {
      const data = this.statements.getSession.get(id) as string | undefined;
      return data === undefined ? undefined : (JSON.parse(data) as SessionInfo);
    });
  }

  listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    return this.readOwn(() => {
      const where = [
        filter.workerId !== undefined && "worker_id = ?",
        filter.parentId === null ? "parent_id IS NULL" : filter.parentId !== undefined && "parent_id = ?",
      ];
      const args = [filter.workerId, filter.parentId ?? undefined].filter((a) => a !== undefined);
      const used = where.filter((w) => w !== false);
      const sql = `SELECT data FROM sessions ${used.length ? `WHERE ${used.join(" AND ")}` : ""} ORDER BY seq`;
      return (this.prepared(sql).all(...args) as { data: string }[]).map((r) => JSON.parse(r.data) as SessionInfo);
    });
  }

  appendMessage(sessionId: string, message: Message): Promise<void> {
    return this.writeUnseen(() => void this.statements.appendMessage.run(sessionId, JSON.stringify(message)));
  }

  messages(sessionId: string): Promise<Message[]> {
    return this.readOwn(() => (this.statements.messages.all(sessionId) as string[]).map((d) => JSON.parse(d) as Message));
  }

  appendEvent(sessionId: string, event: GatehouseEvent): Promise<StoredEvent> {
    return this.write(() => {
      const id = Number(this.statements.appendEvent.run(sessionId, eventText(event)).lastInsertRowid);
      return { id, sessionId, event };
    });
  }

  eventsAfter(afterId: number, sessionId?: string | readonly string[], limit = -1): Promise<StoredEvent[]> {
    return this.read(() => {
      const rows = (
        sessionId === undefined
          ? this.statements.eventsAfter.all(afterId, limit)
          : this.statements.eventsAfterOf.all(afterId, JSON.stringify(typeof sessionId === "string" ? [sessionId] : sessionId), limit)
      ) as { id: number; session_id: string; data: string }[];
      return rows.map((r) => ({ id: r.id, sessionId: r.session_id, event: eventFromText<GatehouseEvent>(r.data) }));
    });
  }

  lastEventId(): Promise<number> {
    return this.read(() => Number(this.statements.lastEventId.get() ?? 0));
  }

  addRuntimeRules(sessionId: string, tool: string, patterns: readonly string[]): Promise<void> {
    return this.write(() => {
      for (const pattern of patterns) this.statements.addRule.run(sessionId, tool, pattern);
    });
  }

  runtimeRules(sessionId?: string): Promise<RuntimeRuleRecord[]> {
    return this.readOwn(() => (sessionId === undefined ? this.statements.rules.all() : this.statements.rulesOf.all(sessionId)) as RuntimeRuleRecord[]);
  }

  forgetRuntimeRules(sessionId: string): Promise<void> {
    return this.write(() => void this.statements.forgetRules.run(sessionId));
  }

  appendAudit(e: AuditEntry): Promise<void> {
    return this.writeUnseen(
      () => void this.statements.appendAudit.run(e.at, e.sessionId, e.workerId, e.toolName, e.arguments, e.action, e.reason, e.rule, e.by ?? null),
    );
  }

  queryAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return this.read(() => {
      const used = AUDIT_FILTERS.filter(([key]) => query[key] !== undefined);
      const where = used.length ? `WHERE ${used.map(([, sql]) => sql).join(" AND ")}` : "";
      const sql = `SELECT * FROM audit ${where} ORDER BY id DESC LIMIT ?`;
      const rows = this.prepared(sql).all(...used.map(([key]) => query[key]), query.limit ?? -1) as AuditRow[];
      return rows.reverse().map(fromAuditRow);
    });
  }

  pruneAudit(before: string): Promise<number> {
    return this.write(() => this.statements.pruneAudit.run(before).changes);
  }

  putPending(record: PendingRecord): Promise<void> {
    return this.write(() => void this.statements.putPending.run(record.event.approvalId, record.event.sessionId, record.eventId, JSON.stringify(record.event)));
  }

  takePending(approvalId: string, answer?: Resolution): Promise<PendingRecord | undefined> {
    return this.write(() => {
      const row = this.statements.takePending.get(approvalId) as { event_id: number; data: string } | undefined;
      if (!row) return undefined;
      const event = JSON.parse(row.data) as PendingRecord["event"];
      if (answer) this.statements.keepAnswer.run(approvalId, event.sessionId, row.event_id, row.data, JSON.stringify(answer));
      return { eventId: row.event_id, event };
    });
  }

  answered(sessionId: string): Promise<AnsweredRecord[]> {
    return this.readOwn(() =>
      (this.statements.answered.all(sessionId) as { event_id: number; data: string; answer: string }[]).map((r) => ({
        eventId: r.event_id,
        event: JSON.parse(r.data) as PendingRecord["event"],
        answer: JSON.parse(r.answer) as Resolution,
      })),
    );
  }

  forgetAnswers(sessionId: string): Promise<void> {
    return this.write(() => void this.statements.forgetAnswers.run(sessionId));
  }

  listPending(sessionId?: string, page?: Page): Promise<PendingRecord[]> {
    return this.read(() => {
      const [after, limit] = [page?.afterEventId ?? 0, page?.limit ?? -1];
      const rows = (sessionId === undefined ? this.statements.pending.all(after, limit) : this.statements.pendingOf.all(sessionId, after, limit)) as {
        event_id: number;
        data: string;
      }[];
      return rows.map((r) => ({ eventId: r.event_id, event: eventFromText<PendingRecord["event"]>(r.data) }));
    });
  }

  async close(): Promise<void> {
    this.commit();
    await this.checkpoints.stop();
    if (this.db.open) this.db.close();
    this.unlock();
  }
}

import type { ApprovalRequired, GatehouseEvent, Message, SessionInfo } from "@gatehouse/protocol";
import type { Resolution } from "./resolution.js";

export interface StoredEvent {
  id: number;
  sessionId: string;
  event: GatehouseEvent;
}

export interface AuditEntry {
  /** ISO 8601 time of the decision or answer. */
  at: string;
  sessionId: string;
  workerId: string;
  toolName: string;
  arguments: string;
  action: string;
  reason: string;
  rule: string | null;
  /** Who answered or typed the command; absent for the gate's own decisions. */
  by?: string;
}

export interface SessionFilter {
  workerId?: string;
  parentId?: string | null;
}

/** Which audit entries to return; every field narrows, none given means all (up to `limit`). */
export interface AuditQuery {
  sessionId?: string;
  workerId?: string;
  toolName?: string;
  action?: string;
  by?: string;
  /** Entries at or after this ISO 8601 time. */
  since?: string;
  /** Entries strictly before this ISO 8601 time. */
  until?: string;
  /** At most this many, the newest ones; returned oldest first. */
  limit?: number;
}

/** A part of a long list, in id order: the entries after an id, at most `limit` of them. */
export interface Page {
  afterEventId: number;
  limit: number;
}

/** A call held for a person's answer: the event that raised it and that event's id in the log. */
export interface PendingRecord {
  event: ApprovalRequired;
  eventId: number;
}

/** An approval that was answered, kept with its answer until the session's turn has ended: a turn carried on honours it. */
export interface AnsweredRecord extends PendingRecord {
  answer: Resolution;
}

/** An allow rule added to a session by a "session" or "always" answer. */
export interface RuntimeRuleRecord {
  sessionId: string;
  tool: string;
  pattern: string;
}

/**
 * Everything the server keeps, behind one interface that the embedded store, PostgreSQL and the
 * in-memory store for tests implement alike. Every operation is asynchronous; a returned promise
 * resolves only once the write is durable (for a durable store), so whatever a client has been
 * shown survives a crash of the server.
 *
 * The contract:
 * - Sessions are upserted whole by id (`putSession`); parent/child links live in `parentId`.
 * - Messages of a session come back in the order they were appended.
 * - Event ids are positive integers that rise in the order `appendEvent` calls were made by this
 *   process, and keep rising across restarts: an id is never issued twice. `lastEventId` is the
 *   highest id issued (0 for an empty log). `eventsAfter` returns events with an id above
 *   `afterId`, oldest first, optionally of some sessions only and at most `limit` of them.
 * - Pending approvals: `putPending` records one; `takePending` removes it and returns it to
 *   exactly one caller, however many call at once (in this process or, for a shared store, in
 *   any); every other caller gets undefined. It is the one arbiter of "answered exactly once".
 *   `listPending` reads them in pages (by event id) for a replay of any number.
 *   Given an answer, the approval is kept with it in the same write (`answered`), until
 *   `forgetAnswers`: a turn carried on after a restart honours the answer instead of asking again.
 * - Runtime rules are added per session and dropped together (`forgetRuntimeRules`).
 * - The audit log is append-only apart from `pruneAudit`, which drops entries older than a time.
 * - `close` finishes pending writes and releases files or connections.
 */
export interface Store {
  putSession(session: SessionInfo): Promise<void>;
  getSession(id: string): Promise<SessionInfo | undefined>;
  /** Sessions, oldest first: every one, or those of a worker and/or a parent (`parentId: null` for top-level ones). */
  listSessions(filter?: SessionFilter): Promise<SessionInfo[]>;

  appendMessage(sessionId: string, message: Message): Promise<void>;
  messages(sessionId: string): Promise<Message[]>;

  /** Stores an event under the next id. */
  appendEvent(sessionId: string, event: GatehouseEvent): Promise<StoredEvent>;
  /** Events with an id above `afterId`, oldest first: of every session, or of the sessions given; at most `limit`. */
  eventsAfter(afterId: number, sessionId?: string | readonly string[], limit?: number): Promise<StoredEvent[]>;
  lastEventId(): Promise<number>;

  addRuntimeRules(sessionId: string, tool: string, patterns: readonly string[]): Promise<void>;
  /** The runtime rules of one session, or of every session, in the order they were added. */
  runtimeRules(sessionId?: string): Promise<RuntimeRuleRecord[]>;
  forgetRuntimeRules(sessionId: string): Promise<void>;

  appendAudit(entry: AuditEntry): Promise<void>;
  queryAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** Drops entries older than `before` (ISO 8601); resolves with how many were dropped. */
  pruneAudit(before: string): Promise<number>;

  putPending(record: PendingRecord): Promise<void>;
  /** Removes the pending approval and returns it to the one caller that took it; undefined to everyone else. The answer, given, is kept with it in the same write. */
  takePending(approvalId: string, answer?: Resolution): Promise<PendingRecord | undefined>;
  /** Pending approvals of one session or of all, oldest first; given a page, those after its event id, at most its limit. */
  listPending(sessionId?: string, page?: Page): Promise<PendingRecord[]>;
  /** The answered approvals of a session kept by `takePending`, oldest first. */
  answered(sessionId: string): Promise<AnsweredRecord[]>;
  /** Drops a session's kept answers (its turn has ended). */
  forgetAnswers(sessionId: string): Promise<void>;

  close(): Promise<void>;
}

import type { GatehouseEvent, Message, SessionInfo } from "@gatehouse/protocol";
import type { Resolution } from "./resolution.js";
import type { AnsweredRecord, AuditEntry, AuditQuery, Page, PendingRecord, RuntimeRuleRecord, SessionFilter, Store, StoredEvent } from "./store.js";

/** Whether an audit entry passes a query's filters (not its limit). */
export function auditMatches(e: AuditEntry, q: AuditQuery): boolean {
  return (
    (q.sessionId === undefined || e.sessionId === q.sessionId) &&
    (q.workerId === undefined || e.workerId === q.workerId) &&
    (q.toolName === undefined || e.toolName === q.toolName) &&
    (q.action === undefined || e.action === q.action) &&
    (q.by === undefined || e.by === q.by) &&
    (q.since === undefined || e.at >= q.since) &&
    (q.until === undefined || e.at < q.until)
  );
}

/** Index of the first event with an id above `afterId` in a list sorted by id. */
function firstAfter(list: readonly StoredEvent[], afterId: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.id <= afterId) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The in-memory store: fast, and gone when the process ends. For tests and `store: { kind: "memory" }`. */
export class MemoryStore implements Store {
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly history = new Map<string, Message[]>();
  private readonly events: StoredEvent[] = [];
  private readonly bySession = new Map<string, StoredEvent[]>();
  private readonly pendings = new Map<string, PendingRecord>();
  private readonly answers = new Map<string, AnsweredRecord>();
  private readonly rules: RuntimeRuleRecord[] = [];
  private audits: AuditEntry[] = [];
  private nextId = 1;

  async putSession(session: SessionInfo): Promise<void> {
    this.sessions.set(session.id, session);
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    return this.sessions.get(id);
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    return [...this.sessions.values()].filter(
      (s) => (filter.workerId === undefined || s.workerId === filter.workerId) && (filter.parentId === undefined || s.parentId === filter.parentId),
    );
  }

  async appendMessage(sessionId: string, message: Message): Promise<void> {
    let list = this.history.get(sessionId);
    if (!list) this.history.set(sessionId, (list = []));
    list.push(message);
  }

  async messages(sessionId: string): Promise<Message[]> {
    return [...(this.history.get(sessionId) ?? [])];
  }

  async appendEvent(sessionId: string, event: GatehouseEvent): Promise<StoredEvent> {
    const stored = { id: this.nextId++, sessionId, event };
    this.events.push(stored);
    let list = this.bySession.get(sessionId);
    if (!list) this.bySession.set(sessionId, (list = []));
    list.push(stored);
    return stored;
  }

  async eventsAfter(afterId: number, sessionId?: string | readonly string[], limit = Infinity): Promise<StoredEvent[]> {
    if (sessionId === undefined) {
      const start = firstAfter(this.events, afterId);
      return this.events.slice(start, start + limit);
    }
    const ids = typeof sessionId === "string" ? [sessionId] : sessionId;
    const merged = ids.flatMap((id) => {
      const list = this.bySession.get(id) ?? [];
      return list.slice(firstAfter(list, afterId));
    });
    return merged.sort((a, b) => a.id - b.id).slice(0, limit);
  }

  async lastEventId(): Promise<number> {
    return this.nextId - 1;
  }

  async addRuntimeRules(sessionId: string, tool: string, patterns: readonly string[]): Promise<void> {
    for (const pattern of patterns) this.rules.push({ sessionId, tool, pattern });
  }

  async runtimeRules(sessionId?: string): Promise<RuntimeRuleRecord[]> {
    return this.rules.filter((r) => sessionId === undefined || r.sessionId === sessionId);
  }

  async forgetRuntimeRules(sessionId: string): Promise<void> {
    const kept = this.rules.filter((r) => r.sessionId !== sessionId);
    this.rules.splice(0, this.rules.length, ...kept);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    this.audits.push(entry);
  }

  async queryAudit(query: AuditQuery): Promise<AuditEntry[]> {
    const found = this.audits.filter((e) => auditMatches(e, query));
    return query.limit === undefined ? found : found.slice(Math.max(0, found.length - query.limit));
  }

  async pruneAudit(before: string): Promise<number> {
    const kept = this.audits.filter((e) => e.at >= before);
    const dropped = this.audits.length - kept.length;
    this.audits = kept;
    return dropped;
  }

  async putPending(record: PendingRecord): Promise<void> {
    this.pendings.set(record.event.approvalId, record);
  }

  async takePending(approvalId: string, answer?: Resolution): Promise<PendingRecord | undefined> {
    const found = this.pendings.get(approvalId);
    this.pendings.delete(approvalId);
    if (found && answer) this.answers.set(approvalId, { ...found, answer });
    return found;
  }

  async answered(sessionId: string): Promise<AnsweredRecord[]> {
    return [...this.answers.values()].filter((a) => a.event.sessionId === sessionId).sort((a, b) => a.eventId - b.eventId);
  }

  async forgetAnswers(sessionId: string): Promise<void> {
    for (const [id, a] of this.answers) if (a.event.sessionId === sessionId) this.answers.delete(id);
  }

  async listPending(sessionId?: string, page?: Page): Promise<PendingRecord[]> {
    const all = [...this.pendings.values()]
      .filter((p) => (sessionId === undefined || p.event.sessionId === sessionId) && p.eventId > (page?.afterEventId ?? 0))
      .sort((a, b) => a.eventId - b.eventId);
    return page ? all.slice(0, page.limit) : all;
  }

  async close(): Promise<void> {}
}

import type { ApprovalRequired, GatehouseEvent, Message, SessionInfo } from "@gatehouse/protocol";
import type { AuditEntry, Store, StoredEvent } from "./store.js";

/** The in-memory store: fast, and gone when the process ends. */
export class MemoryStore implements Store {
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly history = new Map<string, Message[]>();
  private readonly events: StoredEvent[] = [];
  private readonly bySession = new Map<string, StoredEvent[]>();
  private readonly pendings = new Map<string, { event: ApprovalRequired; eventId: number }>();
  private readonly audits: AuditEntry[] = [];
  private nextId = 1;

  putSession(session: SessionInfo): void {
    this.sessions.set(session.id, session);
  }

  getSession(id: string): SessionInfo | undefined {
    return this.sessions.get(id);
  }

  listSessions(): SessionInfo[] {
    return [...this.sessions.values()];
  }

  appendMessage(sessionId: string, message: Message): void {
    let list = this.history.get(sessionId);
    if (!list) this.history.set(sessionId, (list = []));
    list.push(message);
  }

  messages(sessionId: string): Message[] {
    return [...(this.history.get(sessionId) ?? [])];
  }

  appendEvent(sessionId: string, event: GatehouseEvent): StoredEvent {
    const stored = { id: this.nextId++, sessionId, event };
    this.events.push(stored);
    let list = this.bySession.get(sessionId);
    if (!list) this.bySession.set(sessionId, (list = []));
    list.push(stored);
    return stored;
  }

  eventsAfter(afterId: number, sessionId?: string): StoredEvent[] {
    const list = sessionId === undefined ? this.events : (this.bySession.get(sessionId) ?? []);
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return list.slice(lo);
  }

  lastEventId(): number {
    return this.nextId - 1;
  }

  putPending(event: ApprovalRequired, eventId: number): void {
    this.pendings.set(event.approvalId, { event, eventId });
  }

  deletePending(approvalId: string): void {
    this.pendings.delete(approvalId);
  }

  pending(sessionId?: string): { event: ApprovalRequired; eventId: number }[] {
    const all = [...this.pendings.values()];
    return sessionId === undefined ? all : all.filter((p) => p.event.sessionId === sessionId);
  }

  audit(entry: AuditEntry): void {
    this.audits.push(entry);
  }

  auditLog(): AuditEntry[] {
    return [...this.audits];
  }
}

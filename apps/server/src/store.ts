import type { ApprovalRequired, GatehouseEvent, Message, SessionInfo } from "@gatehouse/protocol";

export interface StoredEvent {
  id: number;
  sessionId: string;
  event: GatehouseEvent;
}

export interface AuditEntry {
  at: string;
  sessionId: string;
  workerId: string;
  toolName: string;
  arguments: string;
  action: string;
  reason: string;
  rule: string | null;
  by?: string;
}

/** Everything the server keeps: sessions, messages, events, pending approvals, the audit log. */
export interface Store {
  putSession(session: SessionInfo): void;
  getSession(id: string): SessionInfo | undefined;
  listSessions(): SessionInfo[];
  appendMessage(sessionId: string, message: Message): void;
  messages(sessionId: string): Message[];
  /** Assigns the next event id. */
  appendEvent(sessionId: string, event: GatehouseEvent): StoredEvent;
  /** Events with an id above `afterId`, oldest first, of one session or of all. */
  eventsAfter(afterId: number, sessionId?: string): StoredEvent[];
  lastEventId(): number;
  putPending(event: ApprovalRequired, eventId: number): void;
  deletePending(approvalId: string): void;
  pending(sessionId?: string): { event: ApprovalRequired; eventId: number }[];
  audit(entry: AuditEntry): void;
  auditLog(): AuditEntry[];
}

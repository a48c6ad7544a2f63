import type { Handlers, Principal, TrackedEvent } from "@gatehouse/protocol";
import { coversWorker } from "../auth.js";
import { GatehouseError } from "../errors.js";
import type { Log } from "../log.js";
import type { Store } from "../store.js";

/** What a client wants to do with a worker's sessions. */
export type Need = "watch" | "use" | "shell";

/** Whether a client token may do `need` on sessions of `workerId` (admin: all; approver: its workers; viewer: watch). */
export function allows(p: Principal, workerId: string, need: Need): boolean {
  if (p.kind !== "client") return false;
  if (p.role === "admin") return true;
  if (!coversWorker(p.workers, workerId)) return false;
  if (p.role === "viewer") return need === "watch";
  return p.role === "approver" && (need !== "shell" || p.shell === true);
}

/**
 * The handlers behind a check of the caller's role on every procedure and subscription: each
 * one names what it needs, and a subscription to all sessions only carries the events of
 * sessions the token may watch.
 */
export function withAccess(handlers: Handlers, store: Store, log: Log): Handlers {
  const refuse = (p: Principal, what: string): never => {
    log.warn("access refused", { token: p.name, role: p.role ?? p.kind, what });
    throw new GatehouseError("ACCESS_DENIED", `the token "${p.name}"${p.role ? ` (${p.role})` : ""} may not ${what}`).toTRPC();
  };
  const onWorker = (p: Principal, workerId: string, need: Need, what: string) => {
    if (!allows(p, workerId, need)) refuse(p, `${what} on worker ${workerId}`);
  };
  /** A session that does not exist passes: the handler answers NOT_FOUND as it would to anyone. */
  const onSession = async (p: Principal, sessionId: string, need: Need, what: string) => {
    const s = await store.getSession(sessionId);
    if (s) onWorker(p, s.workerId, need, what);
  };
  const admin = (p: Principal, what: string) => {
    if (p.role !== "admin") refuse(p, what);
  };
  const ownWorker = (p: Principal, workerId: string) => {
    if (!coversWorker(p.workers, workerId)) refuse(p, `act as worker ${workerId}`);
  };

  return {
    session: {
      create: async (p, i) => (onWorker(p, i.workerId, "use", "create sessions"), handlers.session.create(p, i)),
      list: async (p) => (await handlers.session.list(p)).filter((s) => allows(p, s.workerId, "watch")),
      get: async (p, i) => (await onSession(p, i.sessionId, "watch", "watch sessions"), handlers.session.get(p, i)),
      setMode: async (p, i) => (await onSession(p, i.sessionId, "use", "change modes of sessions"), handlers.session.setMode(p, i)),
      shell: async (p, i) => (await onSession(p, i.sessionId, "shell", "run commands (session.shell)"), handlers.session.shell(p, i)),
    },
    agent: {
      prompt: async (p, i) => (await onSession(p, i.sessionId, "use", "prompt sessions"), handlers.agent.prompt(p, i)),
      abort: async (p, i) => (await onSession(p, i.sessionId, "use", "abort sessions"), handlers.agent.abort(p, i)),
      events: async function* (p, i, signal) {
        if (i.sessionId !== undefined) {
          await onSession(p, i.sessionId, "watch", "watch sessions");
          yield* handlers.agent.events(p, i, signal);
        } else if (p.role === "admin") yield* handlers.agent.events(p, i, signal);
        else yield* onlyVisible(handlers.agent.events(p, i, signal), (workerId) => allows(p, workerId, "watch"), store);
      },
    },
    tool: {
      approve: async (p, i) => (await onSession(p, i.sessionId, "use", "answer approvals"), handlers.tool.approve(p, i)),
      deny: async (p, i) => (await onSession(p, i.sessionId, "use", "answer approvals"), handlers.tool.deny(p, i)),
      view: async (p, i) => (await onSession(p, i.sessionId, "watch", "view approvals"), handlers.tool.view(p, i)),
      checkEdit: async (p, i) => (await onSession(p, i.sessionId, "use", "answer approvals"), handlers.tool.checkEdit(p, i)),
    },
    worker: {
      register: async (p, i) => (ownWorker(p, i.workerId), handlers.worker.register(p, i)),
      requests: (p, i, signal) => (ownWorker(p, i.workerId), handlers.worker.requests(p, i, signal)),
      result: async (p, i) => (ownWorker(p, i.workerId), handlers.worker.result(p, i)),
      heartbeat: async (p, i) => (ownWorker(p, i.workerId), handlers.worker.heartbeat(p, i)),
    },
    workers: {
      list: async (p) => (await handlers.workers.list(p)).filter((w) => allows(p, w.id, "watch")),
    },
    audit: {
      query: async (p, i) => (admin(p, "read the audit log"), handlers.audit.query(p, i)),
    },
    permissions: {
      get: async (p, i) => (admin(p, "read permissions files"), handlers.permissions.get(p, i)),
      explain: async (p, i) => (admin(p, "explain permissions"), handlers.permissions.explain(p, i)),
    },
  };
}

/** The events of sessions on workers the token may watch; each session's worker is looked up once. */
async function* onlyVisible(events: AsyncIterable<TrackedEvent>, watches: (workerId: string) => boolean, store: Store): AsyncGenerator<TrackedEvent> {
  const workerOf = new Map<string, string | undefined>();
  for await (const e of events) {
    const id = e.event.sessionId;
    if (!workerOf.has(id)) workerOf.set(id, (await store.getSession(id))?.workerId);
    const workerId = workerOf.get(id);
    if (workerId !== undefined && watches(workerId)) yield e;
  }
}

import type { GatehouseEvent, Principal, SessionInfo, WorkerInfo } from "@gatehouse/protocol";
import { callerOf, procedureMiddleware } from "@gatehouse/protocol/router";
import { coversWorker } from "../auth.js";
import { GatehouseError } from "../../errors.js";
import { trackedData } from "../../store/index.js";
import type { Log } from "../../log.js";
import type { Store } from "../../store/index.js";

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

type Input = Record<string, unknown>;
type Check = (p: Principal, input: Input) => unknown;
type Filter = (p: Principal, data: unknown, input: Input) => unknown;

/**
 * The check of the caller's role on every procedure and subscription: each one names what it
 * needs, a procedure this table does not name is refused, lists carry only what the token may
 * watch, and a subscription to all sessions only the events of sessions it may watch. Ids are
 * checked as sent, before validation (the schemas take them as they are): one that is not a
 * string is left to validation, which refuses it.
 */
export function accessChecks(store: Store, log: Log) {
  const refuse = (p: Principal, what: string): never => {
    log.warn("access refused", { token: p.name, role: p.role ?? p.kind, what });
    throw new GatehouseError("ACCESS_DENIED", `the token "${p.name}"${p.role ? ` (${p.role})` : ""} may not ${what}`).toTRPC();
  };
  const onWorker =
    (need: Need, what: string): Check =>
    (p, i) => {
      if (typeof i.workerId === "string" && !allows(p, i.workerId, need)) refuse(p, `${what} on worker ${i.workerId}`);
    };
  /** A session that does not exist passes: the handler answers NOT_FOUND as it would to anyone. */
  const onSession =
    (need: Need, what: string): Check =>
    async (p, i) => {
      const s = typeof i.sessionId === "string" ? await store.getSession(i.sessionId) : undefined;
      if (s && !allows(p, s.workerId, need)) refuse(p, `${what} on worker ${s.workerId}`);
    };
  const admin =
    (what: string): Check =>
    (p) =>
      p.role !== "admin" && refuse(p, what);
  const ownWorker: Check = (p, i) => typeof i.workerId === "string" && !coversWorker(p.workers, i.workerId) && refuse(p, `act as worker ${i.workerId}`);
  const anyone: Check = () => undefined;
  const checks: Record<string, Check> = {
    "session.create": onWorker("use", "create sessions"),
    "session.list": anyone,
    "session.get": onSession("watch", "watch sessions"),
    "session.setMode": onSession("use", "change modes of sessions"),
    "session.shell": onSession("shell", "run commands (session.shell)"),
    "agent.prompt": onSession("use", "prompt sessions"),
    "agent.abort": onSession("use", "abort sessions"),
    "agent.onEvents": onSession("watch", "watch sessions"),
    "tool.approve": onSession("use", "answer approvals"),
    "tool.deny": onSession("use", "answer approvals"),
    "tool.view": onSession("watch", "view approvals"),
    "tool.checkEdit": onSession("use", "answer approvals"),
    "worker.register": ownWorker,
    "worker.onToolRequests": ownWorker,
    "worker.result": ownWorker,
    "worker.heartbeat": ownWorker,
    "workers.list": anyone,
    "auth.whoami": anyone,
    "audit.query": admin("read the audit log"),
    "permissions.get": admin("read permissions files"),
    "permissions.explain": admin("explain permissions"),
  };
  const watched = (p: Principal, workerId: string) => allows(p, workerId, "watch");
  const filters: Record<string, Filter> = {
    "session.list": (p, data) => (data as SessionInfo[]).filter((s) => watched(p, s.workerId)),
    "workers.list": (p, data) => (data as WorkerInfo[]).filter((w) => watched(p, w.id)),
    "agent.onEvents": (p, data, i) =>
      i.sessionId !== undefined || p.role === "admin" ? data : onlyVisible(data as AsyncIterable<unknown>, (workerId) => watched(p, workerId), store),
  };
  return procedureMiddleware(async ({ ctx, path, getRawInput, next }) => {
    const p = callerOf(ctx);
    const raw = await getRawInput();
    const input: Input = typeof raw === "object" && raw !== null ? (raw as Input) : {};
    await (checks[path] ?? (() => refuse(p, `call ${path}`)))(p, input);
    const result = await next();
    const filter = filters[path];
    return result.ok && filter ? { ...result, data: filter(p, result.data, input) } : result;
  });
}

/** The events (tracked, as the subscription yields them) of sessions on workers the token may watch; each session's worker is looked up once. */
async function* onlyVisible(events: AsyncIterable<unknown>, watches: (workerId: string) => boolean, store: Store): AsyncGenerator<unknown> {
  const workerOf = new Map<string, string | undefined>();
  for await (const e of events) {
    const id = (trackedData(e) as GatehouseEvent).sessionId;
    if (!workerOf.has(id)) workerOf.set(id, (await store.getSession(id))?.workerId);
    const workerId = workerOf.get(id);
    if (workerId !== undefined && watches(workerId)) yield e;
  }
}

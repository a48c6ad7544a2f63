import type { IncomingMessage } from "node:http";
import { describeIssues, LinkFromWorker, type LinkToWorker, type Principal, type WorkerRegisterInput } from "@gatehouse/protocol";
import type { WebSocket } from "ws";
import { coversWorker, type Tokens } from "./auth.js";
import type { Log } from "./log.js";
import type { WorkerRegistry } from "./worker-registry.js";

/** The worker behind an upgrade to the worker link, or why it is refused as an HTTP status. */
export function admitWorkerLink(tokens: Tokens, req: IncomingMessage): Principal | { status: number; message: string } {
  const principal = tokens.fromAuthorization(req.headers.authorization);
  if (!principal) return { status: 401, message: "missing or unknown token" };
  if (principal.kind !== "worker") return { status: 403, message: "the worker link is for workers" };
  return principal;
}

function parse(data: string): LinkFromWorker | string {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return "a message is not valid JSON";
  }
  const parsed = LinkFromWorker.safeParse(json);
  return parsed.success ? parsed.data : describeIssues(parsed.error);
}

/** Serves one worker's link: registration, then its results and heartbeats, until it closes. */
export function serveWorkerLink(socket: WebSocket, registry: WorkerRegistry, principal: Principal, log: Log): void {
  const send = (message: LinkToWorker) => socket.send(JSON.stringify(message));
  let workerId: string | null = null;
  let detach = () => undefined as void;
  const refuse = (message: string, code: number) => {
    log.warn("worker refused", { token: principal.name, message });
    send({ type: "error", message });
    socket.close(code, message.slice(0, 120));
  };
  const register = (registration: WorkerRegisterInput) => {
    const id = registration.workerId;
    if (!coversWorker(principal.workers, id)) return refuse(`the token "${principal.name}" may not register worker ${id}`, 4003);
    try {
      registry.register(registration);
      detach = registry.attach(id, send, () => socket.close(4000, "replaced by a new connection"));
    } catch (err) {
      return refuse((err as Error).message, 4009);
    }
    workerId = id;
    log.info("worker registered", { worker: id, token: principal.name, tools: registration.tools.length });
    send({ type: "registered" });
  };
  socket.on("message", (data) => {
    try {
      receive(String(data));
    } catch (err) {
      log.error("a worker link message failed", { workerId, err });
      send({ type: "error", message: "the server could not handle that message" });
    }
  });
  const receive = (data: string): void => {
    const message = parse(data);
    if (typeof message === "string") {
      log.warn("refused a worker link message", { workerId, problem: message });
      return send({ type: "error", message });
    }
    if (message.type === "register") {
      if (workerId !== null) return send({ type: "error", message: "this link is already registered" });
      return register(message.registration);
    }
    if (workerId === null) return send({ type: "error", message: "register first" });
    if (message.type === "heartbeat") return registry.heartbeat(workerId);
    if (message.type === "tools") return registry.setTools(workerId, message.tools);
    const { type: _type, requestId, ...output } = message;
    registry.result(workerId, requestId, output);
  };
  socket.on("close", () => {
    if (workerId !== null) log.info("worker lost", { worker: workerId });
    detach();
  });
}

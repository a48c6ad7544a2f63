import type { IncomingMessage } from "node:http";
import { describeIssues, LinkFromWorker, type LinkToWorker } from "@gatehouse/protocol";
import type { WebSocket } from "ws";
import type { Tokens } from "./auth.js";
import type { WorkerRegistry } from "./worker-registry.js";

/** Why an upgrade to the worker link is refused, as an HTTP status; null when it may proceed. */
export function refuseWorkerLink(tokens: Tokens, req: IncomingMessage): { status: number; message: string } | null {
  const principal = tokens.fromAuthorization(req.headers.authorization);
  if (!principal) return { status: 401, message: "missing or unknown token" };
  if (principal.kind !== "worker") return { status: 403, message: "the worker link is for workers" };
  return null;
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
export function serveWorkerLink(socket: WebSocket, registry: WorkerRegistry): void {
  const send = (message: LinkToWorker) => socket.send(JSON.stringify(message));
  let workerId: string | null = null;
  let detach = () => undefined as void;
  socket.on("message", (data) => {
    const message = parse(String(data));
    if (typeof message === "string") return send({ type: "error", message });
    if (message.type === "register") {
      if (workerId !== null) return send({ type: "error", message: "this link is already registered" });
      workerId = message.registration.workerId;
      registry.register(message.registration);
      detach = registry.attach(workerId, send, () => socket.close(4000, "replaced by a new connection"));
      return send({ type: "registered" });
    }
    if (workerId === null) return send({ type: "error", message: "register first" });
    if (message.type === "heartbeat") return registry.heartbeat(workerId);
    if (message.type === "tools") return registry.setTools(workerId, message.tools);
    const { type: _type, requestId, ...output } = message;
    registry.result(workerId, requestId, output);
  });
  socket.on("close", () => detach());
}

import type { IncomingMessage } from "node:http";
import { describeIssues, LinkFromWorker, SentGuards, type LinkToWorker, type Principal, type WorkerRegisterInput } from "@gatehouse/protocol";
import type { WebSocket } from "ws";
import { coversWorker, type Tokens } from "./auth.js";
import { closeReason } from "./connections.js";
import type { TokenLimits } from "./limits.js";
import type { Log } from "../log.js";
import type { NetworkAsks } from "../gate/index.js";
import type { WorkerRegistry } from "../workers/index.js";

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

export interface WorkerLinkOptions {
  registry: WorkerRegistry;
  principal: Principal;
  /** The token's request rate, which the link's messages draw on like procedure calls. */
  limits: TokenLimits;
  /** Bytes queued for the worker past which its link is cut off as too slow. */
  backlogBytes: () => number;
  /** Where the connections that the worker's commands make are asked about; refused when absent. */
  networkAsks?: NetworkAsks | undefined;
  /** How long the registry waits for a heartbeat before it gives the worker up; the worker is told, to give up first. */
  heartbeatTimeoutMs: number;
  log: Log;
}

/**
 * Serves one worker's link: registration, then its results, output and heartbeats, until it closes.
 * Every message but a result that answers a request still waiting for it counts against the
 * token's requests per second (results are paced by the server's own requests, and a busy worker
 * sends thousands a second). Past the rate the link is throttled: the server stops reading it
 * until the token's bucket has refilled, so a flood waits in the worker's own buffers and
 * nothing it sent is dropped.
 */
export function serveWorkerLink(socket: WebSocket, options: WorkerLinkOptions): void {
  const { registry, principal, limits, backlogBytes, networkAsks, heartbeatTimeoutMs, log } = options;
  let workerId: string | null = null;
  let detach = () => undefined as void;
  const send = (message: LinkToWorker) => {
    if (socket.bufferedAmount > backlogBytes()) {
      log.warn("limit hit: subscriber backlog", { token: principal.name, workerId, queuedBytes: socket.bufferedAmount, limit: backlogBytes() });
      return socket.terminate();
    }
    socket.send(JSON.stringify(message));
  };
  const refuse = (message: string, code: number) => {
    log.warn("worker refused", { token: principal.name, message });
    send({ type: "error", message });
    socket.close(code, closeReason(message));
  };
  const register = (registration: WorkerRegisterInput) => {
    const id = registration.workerId;
    if (!coversWorker(principal.workers, id)) return refuse(`the token "${principal.name}" may not register worker ${id}`, 4003);
    try {
      registry.register(registration);
      const guards = new SentGuards();
      detach = registry.attach(
        id,
        (m) => send(m.type === "run" ? guards.refer(m) : m),
        (why) => socket.close(4000, closeReason(why)),
      );
    } catch (err) {
      return refuse((err as Error).message, 4009);
    }
    workerId = id;
    log.info("worker registered", { worker: id, token: principal.name, tools: registration.tools.length });
    send({ type: "registered", heartbeatTimeoutMs });
  };
  /** Handles one message; true when it costs nothing against the token's rate: a result a request was waiting for, a heartbeat on time. */
  const receive = (data: string): boolean => {
    const message = parse(data);
    if (typeof message === "string") {
      log.warn("refused a worker link message", { workerId, problem: message });
      send({ type: "error", message });
      return false;
    }
    if (message.type === "register") {
      if (workerId !== null) send({ type: "error", message: "this link is already registered" });
      else register(message.registration);
      return false;
    }
    if (workerId === null) {
      send({ type: "error", message: "register first" });
      return false;
    }
    if (message.type === "heartbeat") {
      registry.heartbeat(workerId);
      // A link the registry has given up on is closing: it acknowledges nothing more.
      if (message.beat !== undefined && socket.readyState === socket.OPEN) send({ type: "heartbeat_ack", beat: message.beat });
      return beats.onTime();
    }
    if (message.type === "tools") registry.setTools(workerId, message.tools, message.mcpServers);
    else if (message.type === "output") registry.output(workerId, message.requestId, message.text);
    else if (message.type === "network_ask") {
      const { askId } = message;
      const answer = networkAsks ? networkAsks.ask(workerId, message) : Promise.resolve({ allow: false, reason: "this server does not take network asks" });
      void answer.then((a) => socket.readyState === socket.OPEN && send({ type: "network_answer", askId, ...a }));
    } else if (message.type === "network_decided") void networkAsks?.decided(workerId, message);
    else if (message.type === "network_ask_cancel") void networkAsks?.cancel(workerId, message.askId);
    else {
      const { type: _type, requestId, ...output } = message;
      return registry.result(workerId, requestId, output);
    }
    return false;
  };
  const beats = new HeartbeatPace();
  const held: string[] = [];
  let throttled: NodeJS.Timeout | null = null;
  const drain = () => {
    while (held.length > 0 && throttled === null) {
      const wait = limits.waitMs(principal);
      if (wait > 0) {
        log.warn("limit hit: worker link messages per second", { token: principal.name, workerId, limit: limits.rate(), heldMessages: held.length });
        socket.pause();
        throttled = setTimeout(() => {
          throttled = null;
          socket.resume();
          drain();
        }, wait);
        return;
      }
      const data = held.shift()!;
      let answered = false;
      try {
        answered = receive(data);
      } catch (err) {
        log.error("a worker link message failed", { workerId, err });
        send({ type: "error", message: "the server could not handle that message" });
      }
      if (!answered) limits.spend(principal);
    }
  };
  socket.on("message", (data) => {
    held.push(String(data));
    drain();
  });
  socket.on("close", () => {
    if (throttled) clearTimeout(throttled);
    held.length = 0;
    if (workerId !== null) log.info("worker lost", { worker: workerId });
    detach();
  });
}

/**
 * A worker's heartbeats, at most one every half second, are free: a fleet of workers sharing one
 * token would otherwise spend the token's rate on heartbeats alone and be cut off for silence.
 */
class HeartbeatPace {
  private last = 0;

  onTime(): boolean {
    const now = performance.now();
    if (now - this.last < 500) return false;
    this.last = now;
    return true;
  }
}

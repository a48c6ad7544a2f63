import type { Log } from "@gatehouse/log";
import {
  backoffMs,
  describeIssues,
  LinkRequest,
  ReceivedGuards,
  WORKER_LINK_PATH,
  type LinkFromWorker,
  type LinkToWorker,
  type NetworkAnswerMessage,
  type WorkerMessage,
  type WorkerRegisterInput,
} from "@gatehouse/protocol";
import { trustServer, type TlsClientOptions, type TrustOptions } from "@gatehouse/protocol/node";
import WebSocket from "ws";
import { LinkLiveness } from "./link-liveness.js";

export interface ServerLinkOptions {
  /** ws:// or wss:// address of the server. */
  server: string;
  token: string;
  /** How to trust a wss:// server; see trustServer. */
  trust?: TrustOptions;
  registration: WorkerRegisterInput;
  onMessage(message: WorkerMessage): void;
  /** The server's answer to a network ask. */
  onNetworkAnswer?(message: NetworkAnswerMessage): void;
  /** The connection is gone; calls in flight cannot report back on it. */
  onLost(): void;
  log: Log;
  heartbeatMs: number;
}

function linkUrl(server: string): string {
  const url = new URL(server);
  url.pathname = WORKER_LINK_PATH;
  return url.toString();
}

/** The worker's end of the worker link: connects, registers, reconnects with backoff until closed. */
export class ServerLink {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private closed = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private registered: (() => void) | null = null;
  private guards = new ReceivedGuards();
  private liveness: LinkLiveness | undefined;
  /** When the current link's registration was sent, on the liveness clock. */
  private registerSentAt = 0;

  constructor(private readonly opts: ServerLinkOptions) {}

  /** Connects; resolves once registered (or at once if the first attempt fails: retries go on). */
  start(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.registered = resolve;
      this.connect();
    });
  }

  /** Sends a message if the link is up; false when it is not. */
  send(message: LinkFromWorker): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retry);
    this.liveness?.stop();
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      socket.close(1000, "worker stopping");
    });
  }

  /** Decides whether to trust the server before the token is sent; a refusal is logged and retried like a lost link. */
  private connect(): void {
    if (this.closed) return;
    trustServer(this.opts.server, {
      ...this.opts.trust,
      onFirstUse: (server, fp, file) => this.opts.log.warn(`trusting ${server} on first use: certificate ${fp}, remembered in ${file}`),
    }).then(
      (tls) => this.open(tls),
      (err: Error) => {
        this.opts.log.warn(`not connecting to ${this.opts.server}: ${err.message}`);
        this.lost();
      },
    );
  }

  private open(tls: TlsClientOptions): void {
    if (this.closed) return;
    const socket = new WebSocket(linkUrl(this.opts.server), { headers: { authorization: `Bearer ${this.opts.token}` }, ...(tls as WebSocket.ClientOptions) });
    this.socket = socket;
    this.guards = new ReceivedGuards();
    socket.on("open", () => {
      this.registerSentAt = LinkLiveness.now();
      this.send({ type: "register", registration: this.opts.registration });
    });
    // A link given up on is no longer read: what waited in it is never acted on.
    socket.on("message", (data) => this.socket === socket && this.receive(String(data), socket));
    let refused = false;
    socket.on("unexpected-response", (_req, res) => {
      refused = true;
      this.opts.log.warn(`the server refused the worker link: ${res.statusCode} ${res.statusMessage ?? ""}`.trimEnd(), {
        status: res.statusCode,
        server: this.opts.server,
      });
      socket.terminate();
    });
    // After a refusal, the error is only the terminate above, already told.
    socket.on("error", (err) => refused || this.opts.log.warn("worker link error", { server: this.opts.server, error: err.message }));
    socket.on("close", (code, reason) => {
      // A refusal by a limit or a rule is the operator's to fix: the worker says what the server said.
      if (code === 1008 || (code >= 4000 && code < 5000))
        this.opts.log.warn(`the server closed the worker link (${code}): ${reason.toString() || "no reason given"}`, { server: this.opts.server });
      if (this.socket === socket) this.lost();
    });
  }

  /** Gives the link up at once: its calls are killed, nothing more it carries is read, and the worker reconnects. */
  private drop(socket: WebSocket, why: string): void {
    if (this.socket !== socket) return;
    this.opts.log.warn(`giving up the link to the server: ${why}; reconnecting`, { server: this.opts.server });
    this.lost();
    socket.terminate();
  }

  private receive(data: string, socket: WebSocket): void {
    let message: LinkToWorker | null = null;
    try {
      message = JSON.parse(data) as LinkToWorker | null;
    } catch {
      // not JSON: reported below with anything else that is not an object
    }
    if (typeof message !== "object" || message === null)
      return this.opts.log.warn("ignored a message from the server that is not a JSON object", { characters: data.length });
    if (message.type === "registered") return this.onRegistered(socket, message.heartbeatTimeoutMs);
    if (message.type === "heartbeat_ack") return typeof message.beat === "number" ? this.liveness?.acknowledged(message.beat) : undefined;
    if (message.type === "error") return this.opts.log.warn(`the server says: ${message.message}`);
    // The server may have given this worker up and failed the call already: it must not run now.
    if (this.liveness && !this.liveness.fresh()) return this.drop(socket, "a request came after the server may have given this worker up");
    const parsed = LinkRequest.safeParse(message);
    if (!parsed.success) return this.opts.log.warn("ignored a malformed request from the server", { issues: describeIssues(parsed.error) });
    if (parsed.data.type === "cancel") return this.opts.onMessage(parsed.data);
    if (parsed.data.type === "network_answer") return this.opts.onNetworkAnswer?.(parsed.data);
    const run = this.guards.resolve(parsed.data);
    if (run) return this.opts.onMessage(run);
    // Never run without the rules: the call fails, and says why.
    const { requestId, guardId } = parsed.data;
    this.send({ type: "result", requestId, ok: false, output: `this worker does not have the rules of this call (guard ${guardId})` });
  }

  private onRegistered(socket: WebSocket, timeoutMs: unknown): void {
    this.attempt = 0;
    this.opts.log.info(`connected to ${this.opts.server}`);
    clearInterval(this.heartbeat);
    this.liveness?.stop();
    this.liveness = undefined;
    let beatMs = this.opts.heartbeatMs;
    if (typeof timeoutMs === "number" && timeoutMs > 0) {
      this.liveness = new LinkLiveness(timeoutMs, this.registerSentAt, (silent) =>
        this.drop(socket, `the server acknowledged no heartbeat for ${Math.round(silent)} ms`),
      );
      beatMs = LinkLiveness.beatMs(beatMs, timeoutMs);
    } else
      this.opts.log.warn("the server does not acknowledge heartbeats: a silent server is only noticed when the connection closes", {
        server: this.opts.server,
      });
    this.heartbeat = setInterval(() => this.send({ type: "heartbeat", beat: LinkLiveness.now() }), beatMs);
    this.registered?.();
    this.registered = null;
  }

  private lost(): void {
    clearInterval(this.heartbeat);
    this.liveness?.stop();
    this.liveness = undefined;
    this.socket = null;
    this.opts.onLost();
    this.registered?.();
    this.registered = null;
    if (this.closed) return;
    const delay = backoffMs(this.attempt++, 200, 5000);
    this.retry = setTimeout(() => this.connect(), delay);
  }
}

import type { McpServerStatus, RunMessage, ToolDescriptor, ToolOutput, WorkerMessage, WorkerRegisterInput } from "@gatehouse/protocol";
import type { Log } from "@gatehouse/log";
import { homeDirectory } from "@gatehouse/policy/node";
import { nanoid } from "nanoid";
import { GatehouseError } from "../errors.js";

/** A tool call as it is handed to a worker: the registry adds the request id, and whether output streams. */
export type ToolCall = Omit<RunMessage, "type" | "requestId" | "streamOutput">;

interface InFlight {
  sessionId: string;
  /** Output as it comes, for a call sent with `streamOutput`. */
  onOutput?: ((text: string) => void) | undefined;
  resolve: (output: ToolOutput) => void;
  reject: (err: Error) => void;
}

export interface WorkerEntry {
  id: string;
  workDir: string;
  /** What `~` means on the worker's machine. */
  home: string;
  tools: ToolDescriptor[];
  agents: WorkerRegisterInput["agents"];
  skills: WorkerRegisterInput["skills"];
  sandbox: WorkerRegisterInput["sandbox"];
  /** Absent from entries written by servers that predate MCP server statuses. */
  mcpServers?: McpServerStatus[];
  /** The worker checks the paths a run message assumed before the call runs (see real-paths.ts in the protocol). */
  checksAssumedPaths?: boolean;
  connected: boolean;
  /** When its last heartbeat came, by this process's monotonic clock (performance.now). */
  lastSeen: number;
}

/** One live connection of a worker: how to send it a message, and how to end it. */
class Connection {
  readonly inflight = new Map<string, InFlight>();

  constructor(
    readonly send: (message: WorkerMessage) => void,
    /** Ends the connection, saying why. */
    readonly end: (why: string) => void,
  ) {}
}

/** The workers connected to other server instances on the same database, and how this instance tells them of its own. */
export interface OtherInstances {
  get(workerId: string): WorkerEntry | undefined;
  list(): WorkerEntry[];
  /** Runs a call on a worker of another instance, its output streamed to `onOutput` when given; undefined when no instance has it. */
  dispatch(workerId: string, message: ToolCall, signal?: AbortSignal, onOutput?: (text: string) => void): Promise<ToolOutput> | undefined;
  /** This instance holds the worker's connection (or its tools changed). */
  announce(entry: WorkerEntry): void;
  /** This instance lost the worker's connection. */
  withdraw(workerId: string): void;
}

export interface RegistryEvents {
  connected(workerId: string): void;
  disconnected(workerId: string, lostSessions: string[]): void;
  /** The worker's MCP servers as they are now, and as they were (none for a new registration). */
  mcpServersChanged?(workerId: string, now: readonly McpServerStatus[], before: readonly McpServerStatus[]): void;
}

/** Registered workers, their tool-request streams and the calls in flight on each. */
export class WorkerRegistry {
  private readonly entries = new Map<string, WorkerEntry>();
  private readonly connections = new Map<string, Connection>();
  private readonly timer: NodeJS.Timeout;
  private others: OtherInstances | undefined;

  constructor(
    private readonly events: RegistryEvents,
    private readonly log: Log,
    private readonly heartbeatTimeoutMs = 5000,
    /** A second connection for an online worker id replaces the first instead of being refused. */
    private readonly replaceOnline = false,
  ) {
    this.timer = setInterval(() => this.reapSilent(), Math.max(250, heartbeatTimeoutMs / 4));
    this.timer.unref();
  }

  /** Shares this instance's workers with other instances, and theirs with it. */
  shareWith(others: OtherInstances): void {
    this.others = others;
  }

  /** Refuses a worker id that is online, unless replacing is allowed: one id, one connection. */
  private refuseIfOnline(workerId: string): void {
    if (this.connections.has(workerId) && !this.replaceOnline) {
      throw new GatehouseError(
        "REFUSED",
        `worker ${workerId} is already connected; a second connection for it is refused (the server's replaceOnlineWorkers setting lets it replace the first)`,
      );
    }
  }

  register(input: Omit<WorkerRegisterInput, "mcpServers"> & { mcpServers?: McpServerStatus[] }): WorkerEntry {
    this.refuseIfOnline(input.workerId);
    const before = this.entries.get(input.workerId)?.mcpServers ?? [];
    const entry: WorkerEntry = {
      id: input.workerId,
      workDir: input.workDir,
      home: input.home ?? homeDirectory(),
      tools: input.tools,
      agents: input.agents,
      skills: input.skills,
      sandbox: input.sandbox,
      mcpServers: input.mcpServers ?? [],
      ...(input.checksAssumedPaths ? { checksAssumedPaths: true } : {}),
      connected: this.entries.get(input.workerId)?.connected ?? false,
      lastSeen: performance.now(),
    };
    this.entries.set(input.workerId, entry);
    this.log.debug("worker registered", { workerId: entry.id, workDir: entry.workDir, tools: entry.tools.length, agents: entry.agents.length });
    this.events.mcpServersChanged?.(entry.id, entry.mcpServers ?? [], before);
    return entry;
  }

  /** A worker registered here, or connected to another instance when it is not connected here. */
  get(workerId: string): WorkerEntry | undefined {
    const here = this.entries.get(workerId);
    return here?.connected ? here : (this.others?.get(workerId) ?? here);
  }

  list(): WorkerEntry[] {
    const ids = new Set([...this.entries.keys(), ...(this.others?.list() ?? []).map((w) => w.id)]);
    return [...ids].map((id) => this.get(id)!);
  }

  /** A registered worker's tools changed (an MCP server came, went or failed): later steps see the new list. */
  setTools(workerId: string, tools: ToolDescriptor[], mcpServers: McpServerStatus[] = []): void {
    const entry = this.entries.get(workerId);
    if (!entry) return;
    const before = entry.mcpServers ?? [];
    entry.tools = tools;
    entry.mcpServers = mcpServers;
    if (this.connections.has(workerId)) this.others?.announce(entry);
    this.events.mcpServersChanged?.(workerId, mcpServers, before);
  }

  heartbeat(workerId: string): void {
    const entry = this.entries.get(workerId);
    if (entry) entry.lastSeen = performance.now();
  }

  /**
   * Makes `send` the worker's connection, replacing (and ending) an earlier one when allowed. The returned
   * function detaches it again; its calls in flight then fail.
   */
  attach(workerId: string, send: (message: WorkerMessage) => void, end: (why: string) => void = () => undefined): () => void {
    const entry = this.entries.get(workerId);
    if (!entry) throw new GatehouseError("NOT_FOUND", `worker ${workerId} has not registered`);
    this.refuseIfOnline(workerId);
    if (this.connections.has(workerId)) this.disconnect(workerId, "replaced by a new connection");
    const conn = new Connection(send, end);
    this.connections.set(workerId, conn);
    entry.connected = true;
    entry.lastSeen = performance.now();
    this.log.info("worker connected", { workerId });
    this.others?.announce(entry);
    this.events.connected(workerId);
    return () => {
      if (this.connections.get(workerId) === conn) this.disconnect(workerId, "its connection closed");
    };
  }

  /** The worker's requests as a stream (the tRPC subscription); it stays connected while this runs. */
  async *requests(workerId: string, signal?: AbortSignal): AsyncGenerator<WorkerMessage> {
    const queue: WorkerMessage[] = [];
    let wake: (() => void) | null = null;
    let ended = false;
    const detach = this.attach(
      workerId,
      (m) => (queue.push(m), wake?.()),
      () => ((ended = true), wake?.()),
    );
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (ended || signal?.aborted) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      detach();
    }
  }

  /**
   * Sends a tool call to the worker, here or on the instance it is connected to, and waits for its
   * result; with `onOutput`, the worker streams its output there as it comes.
   */
  dispatch(workerId: string, message: ToolCall, signal?: AbortSignal, onOutput?: (text: string) => void): Promise<ToolOutput> {
    if (this.connections.has(workerId)) return this.dispatchHere(workerId, message, signal, onOutput);
    return this.others?.dispatch(workerId, message, signal, onOutput) ?? this.dispatchHere(workerId, message, signal, onOutput);
  }

  /** Sends a tool call to the worker when it is connected to this instance. */
  dispatchHere(workerId: string, message: ToolCall, signal?: AbortSignal, onOutput?: (text: string) => void): Promise<ToolOutput> {
    const conn = this.connections.get(workerId);
    if (!conn) return Promise.reject(new GatehouseError("WORKER_OFFLINE", `worker ${workerId} is offline`));
    const requestId = nanoid();
    return new Promise<ToolOutput>((resolve, reject) => {
      const done = () => signal?.removeEventListener("abort", onAbort);
      const onAbort = () => {
        if (!conn.inflight.delete(requestId)) return;
        conn.send({ type: "cancel", requestId });
        done();
        reject(new GatehouseError("ABORTED", "the call was aborted"));
      };
      if (signal?.aborted) return reject(new GatehouseError("ABORTED", "the call was aborted"));
      signal?.addEventListener("abort", onAbort);
      conn.inflight.set(requestId, {
        sessionId: message.sessionId,
        onOutput,
        resolve: (o) => (done(), resolve(o)),
        reject: (e) => (done(), reject(e)),
      });
      conn.send({ type: "run", requestId, ...message, ...(onOutput ? { streamOutput: true } : {}) });
    });
  }

  /** The session of a call in flight on a worker connected here; undefined when it is not running. */
  sessionOf(workerId: string, requestId: string): string | undefined {
    return this.connections.get(workerId)?.inflight.get(requestId)?.sessionId;
  }

  /** Output of a call in flight, as the worker streams it; dropped when nobody waits for the call. */
  output(workerId: string, requestId: string, text: string): void {
    this.connections.get(workerId)?.inflight.get(requestId)?.onOutput?.(text);
  }

  /** A worker's answer to a request; false when nobody waits for it any more. */
  result(workerId: string, requestId: string, output: ToolOutput): boolean {
    const conn = this.connections.get(workerId);
    const call = conn?.inflight.get(requestId);
    if (!conn || !call) return false;
    conn.inflight.delete(requestId);
    call.resolve(output);
    return true;
  }

  private disconnect(workerId: string, why: string): void {
    const conn = this.connections.get(workerId);
    if (!conn) return;
    this.connections.delete(workerId);
    const entry = this.entries.get(workerId);
    if (entry) entry.connected = false;
    const sessions = new Set<string>();
    const failedCalls = conn.inflight.size;
    for (const call of conn.inflight.values()) {
      sessions.add(call.sessionId);
      call.reject(new GatehouseError("WORKER_LOST", `worker ${workerId} disconnected while the tool was running (${why})`));
    }
    conn.inflight.clear();
    conn.end(why);
    this.others?.withdraw(workerId);
    this.log.info("worker disconnected", { workerId, why, failedCalls });
    this.events.disconnected(workerId, [...sessions]);
  }

  /** Counts a worker gone after `heartbeatTimeoutMs` without a heartbeat, timed by the monotonic clock: a step of the wall clock moves nothing. */
  private reapSilent(): void {
    const now = performance.now();
    for (const [id] of this.connections) {
      const entry = this.entries.get(id);
      if (entry && now - entry.lastSeen > this.heartbeatTimeoutMs) this.disconnect(id, "no heartbeat");
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const id of [...this.connections.keys()]) this.disconnect(id, "the server is stopping");
  }
}

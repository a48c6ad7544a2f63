import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { closeClient, type GatehouseClient, type GatehouseEvent } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { waitUntil } from "./wait.js";

export { waitUntil };

const BIN = path.resolve(import.meta.dirname, "../../apps/cli/bin/gatehouse.js");
export const WORKER_TOKEN = "worker-token-for-tests-0001";
export const CLIENT_TOKEN = "client-token-for-tests-0001";

export interface ClusterOptions {
  approvalTimeoutMs?: number;
  rules?: string;
  files?: Record<string, string>;
  /** Server config fields beyond the ports, tokens and data directory the cluster sets. */
  config?: Record<string, unknown>;
  /** Extra environment for the server process (an API key, say). */
  env?: Record<string, string>;
  /** The worker's MCP servers (the `mcpServers` object of its --mcp file). */
  mcpServers?: (workDir: string) => Record<string, unknown>;
  /** Extra environment for the worker process. */
  workerEnv?: Record<string, string>;
  /** The folder the cluster's own folder is made in; the system's temporary folder by default. */
  under?: string;
  /** Extra flags for the worker process. */
  workerFlags?: string[];
}

/** A server and a worker as real processes on loopback, in a temporary folder. */
export class Cluster {
  readonly clients: GatehouseClient[] = [];
  /** What the server logged; read as it comes, so a chatty server never blocks on a full pipe. */
  serverLog: string[] = [];
  worker: ChildProcess | undefined;
  /** What the worker wrote to stderr: one JSON object a line. */
  workerLog = "";

  private constructor(
    readonly root: string,
    public server: ChildProcess,
    readonly port: number,
    private readonly env: Record<string, string> | undefined,
  ) {}

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  get workDir(): string {
    return path.join(this.root, "work");
  }

  get rulesFile(): string {
    return path.join(this.root, "data", "workers", "w1", "permissions.jsonc");
  }

  static async start(opts: ClusterOptions = {}): Promise<Cluster> {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(opts.under ?? os.tmpdir(), "gh-e2e-")));
    fs.mkdirSync(path.join(root, "work"));
    for (const [name, text] of Object.entries(opts.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(root, "work", name)), { recursive: true });
      fs.writeFileSync(path.join(root, "work", name), text);
    }
    if (opts.rules) {
      fs.mkdirSync(path.join(root, "data", "workers", "w1"), { recursive: true });
      fs.writeFileSync(path.join(root, "data", "workers", "w1", "permissions.jsonc"), opts.rules);
    }
    const config = {
      port: 0,
      dataDir: path.join(root, "data"),
      workerTokens: [{ token: WORKER_TOKEN, name: "worker", workers: ["w1", "w2", "w3"] }],
      clientTokens: [{ token: CLIENT_TOKEN, name: "ada", role: "admin" }],
      heartbeatTimeoutMs: 3000,
      ...(opts.approvalTimeoutMs ? { approvalTimeoutMs: opts.approvalTimeoutMs } : {}),
      ...opts.config,
    };
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify(config));
    const serverLog: string[] = [];
    const { server, port } = await spawnServer(root, [], opts.env, serverLog);
    const cluster = new Cluster(root, server, port, opts.env);
    cluster.serverLog = serverLog;
    const extra: string[] = [...(opts.workerFlags ?? [])];
    if (opts.mcpServers) {
      fs.writeFileSync(path.join(root, "mcp.json"), JSON.stringify({ mcpServers: opts.mcpServers(path.join(root, "work")) }));
      extra.push("--mcp", path.join(root, "mcp.json"));
    }
    await cluster.startWorker(extra, opts.workerEnv);
    return cluster;
  }

  /** Kills the server (SIGKILL) and starts it again on the same port, with the same config. */
  async restartServer(): Promise<void> {
    const exited = new Promise((resolve) => this.server.once("exit", resolve));
    this.server.kill("SIGKILL");
    await exited;
    this.server = (await spawnServer(this.root, ["--port", String(this.port)], this.env, this.serverLog)).server;
  }

  /**
   * Starts the worker; with GATEHOUSE_WORKER_TOKEN in `env` or --token-file in `extra` the token comes from there instead of --token.
   * `server`: where it connects, when not to the server itself (a relay between them).
   */
  async startWorker(extra: string[] = [], env: Record<string, string> = {}, server = this.url): Promise<void> {
    const token = env.GATEHOUSE_WORKER_TOKEN || extra.includes("--token-file") ? [] : ["--token", WORKER_TOKEN];
    const args = [BIN, "worker", "--server", server, ...token, "--id", "w1", "--dir", this.workDir, ...extra];
    // MCP servers' caches in the cluster's folder, not the home directory's.
    const cache = { XDG_CACHE_HOME: path.join(this.root, "cache") };
    this.worker = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...cache, ...env } });
    this.worker.stderr!.on("data", (chunk: Buffer) => (this.workerLog += chunk.toString()));
    const probe = this.client();
    // Ready once the worker has registered (a loaded machine can take seconds to start a process).
    await waitUntil(
      async () => {
        const workers = await probe.workers.list.query().catch(() => []);
        return workers.some((w) => w.id === "w1" && w.connected);
      },
      20_000,
      "the worker to register",
    );
    // A first evaluation writes the default rules file for a new worker, as tests expect.
    await probe.permissions.explain.query({ workerId: "w1", tool: "glob", args: {} }).catch(() => undefined);
  }

  /** Kills the worker with SIGKILL and waits until the server counts it gone. */
  async killWorker(): Promise<void> {
    this.worker?.kill("SIGKILL");
    const probe = this.client();
    await waitUntil(async () => !(await probe.workers.list.query()).some((w) => w.connected), 10_000, "the server to see the worker gone");
  }

  client(token = CLIENT_TOKEN): GatehouseClient {
    const c = createNodeClient({ url: this.url, token, retryDelayMs: () => 100 });
    this.clients.push(c);
    return c;
  }

  /** Writes a scenario for the scripted model; `agents` holds the steps its subagents play, by agent type. */
  scenario(name: string, steps: unknown[], agents: Record<string, unknown[]> = {}): string {
    const file = path.join(this.root, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify({ name, steps, agents: Object.fromEntries(Object.entries(agents).map(([k, v]) => [k, { steps: v }])) }));
    return file;
  }

  /** A session on w1 whose scripted model plays `steps`, its events recorded, and its first prompt sent once it is followed. */
  async promptedSession(client: GatehouseClient, steps: unknown[]): Promise<{ id: string; events: Events }> {
    const info = await client.session.create.mutate({ workerId: "w1", scenario: this.scenario(`s-${Date.now()}`, steps) });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    return { id: info.id, events };
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((c) => closeClient(c)));
    this.worker?.kill("SIGKILL");
    this.server.kill("SIGKILL");
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

async function spawnServer(
  root: string,
  flags: string[],
  env: Record<string, string> | undefined,
  log: string[],
): Promise<{ server: ChildProcess; port: number }> {
  const server = spawn(process.execPath, [BIN, "server", "--config", path.join(root, "config.json"), ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  readline.createInterface({ input: server.stderr! }).on("line", (l) => log.push(l));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = readline.createInterface({ input: server.stdout! });
    lines.once("line", (line) => resolve(JSON.parse(line).port));
    server.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  // The log is read as it comes (and dropped), so that a full pipe never stalls the server.
  server.stderr!.resume();
  return { server, port };
}

export type EventOf<T extends GatehouseEvent["type"]> = Extract<GatehouseEvent, { type: T }>;

/** Records a subscription's events; waits for the ones a test expects. */
export class Events {
  readonly list: { id: string; event: GatehouseEvent }[] = [];
  private readonly sub: { unsubscribe(): void };
  /** Settles when the server has taken the subscription (as `gatehouse run` waits before it prompts). */
  readonly started: Promise<void>;

  constructor(client: GatehouseClient, input: { sessionId?: string; lastEventId?: string | null }) {
    let started!: () => void;
    this.started = new Promise((resolve) => (started = resolve));
    this.sub = client.agent.onEvents.subscribe(input, {
      onStarted: () => started(),
      onData: (d) => this.list.push({ id: d.id, event: d.data as GatehouseEvent }),
    });
  }

  of<T extends GatehouseEvent["type"]>(type: T): EventOf<T>[] {
    return this.list.map((e) => e.event).filter((e): e is EventOf<T> => e.type === type);
  }

  async next<T extends GatehouseEvent["type"]>(type: T, where: (e: EventOf<T>) => boolean = () => true, timeoutMs = 5000): Promise<EventOf<T>> {
    let found: EventOf<T> | undefined;
    await waitUntil(() => (found = this.of(type).find(where)) !== undefined, timeoutMs, `event ${type}`);
    return found!;
  }

  lastId(): string | undefined {
    return this.list.at(-1)?.id;
  }

  close(): void {
    this.sub.unsubscribe();
  }
}

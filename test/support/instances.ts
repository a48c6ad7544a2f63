import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { closeClient, type GatehouseClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { BIN } from "./server-process.js";
import { waitUntil } from "./wait.js";

export const WORKER_TOKEN = "worker-token-for-tests-0001";
export const CLIENT_TOKEN = "client-token-for-tests-0001";

/** One server process of several sharing a database. */
export interface Instance {
  name: string;
  process: ChildProcess;
  url: string;
  log: string[];
}

/**
 * Several server processes on one PostgreSQL database, each on its own port, sharing one data
 * folder (so one set of rules files), with workers and clients connected to whichever a test says.
 */
export class Instances {
  readonly instances: Instance[] = [];
  readonly workers: ChildProcess[] = [];
  readonly clients: GatehouseClient[] = [];

  private constructor(
    readonly root: string,
    private readonly config: Record<string, unknown>,
  ) {}

  get workDir(): string {
    return path.join(this.root, "work");
  }

  static async start(
    databaseUrl: string,
    names: string[],
    opts: { rules?: string; config?: Record<string, unknown>; files?: Record<string, string> } = {},
  ): Promise<Instances> {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-instances-")));
    fs.mkdirSync(path.join(root, "work"));
    for (const [name, text] of Object.entries(opts.files ?? {})) fs.writeFileSync(path.join(root, "work", name), text);
    const config = {
      port: 0,
      store: { kind: "postgres", url: databaseUrl },
      workerTokens: [{ token: WORKER_TOKEN, name: "worker", workers: ["*"] }],
      clientTokens: [{ token: CLIENT_TOKEN, name: "ada", role: "admin" }],
      heartbeatTimeoutMs: 3000,
      ...opts.config,
    };
    const set = new Instances(root, config);
    for (const w of opts.rules ? ["w1", "w2"] : []) {
      fs.mkdirSync(path.join(root, "data", "workers", w), { recursive: true });
      fs.writeFileSync(path.join(root, "data", "workers", w, "permissions.jsonc"), opts.rules!);
    }
    await Promise.all(names.map((name) => set.launch(name)));
    return set;
  }

  /** Starts a server process; all at once is how instances start in production too. */
  async launch(name: string): Promise<Instance> {
    const file = path.join(this.root, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...this.config, dataDir: path.join(this.root, "data") }));
    const child = spawn(process.execPath, [BIN, "server", "--config", file], { stdio: ["ignore", "pipe", "pipe"] });
    const log: string[] = [];
    readline.createInterface({ input: child.stderr! }).on("line", (l) => log.push(l));
    const port = await new Promise<number>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line).port));
      child.once("exit", (code) => reject(new Error(`server ${name} exited with ${code}: ${log.join("\n")}`)));
    });
    const instance = { name, process: child, url: `ws://127.0.0.1:${port}`, log };
    this.instances.push(instance);
    return instance;
  }

  get(name: string): Instance {
    const found = this.instances.find((i) => i.name === name);
    if (!found) throw new Error(`no instance ${name}`);
    return found;
  }

  client(name: string): GatehouseClient {
    const c = createNodeClient({ url: this.get(name).url, token: CLIENT_TOKEN, retryDelayMs: () => 100 });
    this.clients.push(c);
    return c;
  }

  /** Starts a worker process connected to one instance; resolves once every instance lists it connected. */
  async worker(id: string, on: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, [BIN, "worker", "--server", this.get(on).url, "--token", WORKER_TOKEN, "--id", id, "--dir", this.workDir], {
      stdio: ["ignore", "ignore", "ignore"],
    });
    this.workers.push(child);
    for (const instance of this.instances.filter((i) => i.process.exitCode === null && i.process.signalCode === null)) {
      const probe = this.client(instance.name);
      await waitUntil(
        async () => (await probe.workers.list.query().catch(() => [])).some((w) => w.id === id && w.connected),
        20_000,
        `worker ${id} to be listed on ${instance.name}`,
      );
    }
    return child;
  }

  /** Kills an instance with SIGKILL: no goodbye to the database or anyone. */
  async kill(name: string): Promise<void> {
    const instance = this.get(name);
    const exited = new Promise((resolve) => instance.process.once("exit", resolve));
    instance.process.kill("SIGKILL");
    await exited;
  }

  scenario(name: string, steps: unknown[]): string {
    const file = path.join(this.root, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify({ name, steps }));
    return file;
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((c) => closeClient(c)));
    for (const w of this.workers) w.kill("SIGKILL");
    for (const i of this.instances) i.process.kill("SIGKILL");
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

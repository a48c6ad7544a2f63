import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { closeClient, type GatehouseClient } from "@gatehouse/protocol";
import { connectNodeClient } from "@gatehouse/protocol/node";
import { waitUntil } from "./wait.js";

export const BIN = path.resolve(import.meta.dirname, "../../apps/cli/bin/gatehouse.js");

/** A process's output lines as they come, for waiting on one. */
export class Output {
  readonly lines: string[] = [];

  constructor(stream: NodeJS.ReadableStream) {
    readline.createInterface({ input: stream }).on("line", (l) => this.lines.push(l));
  }

  async next(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    let found: string | undefined;
    await waitUntil(() => (found = this.lines.find((l) => pattern.test(l))) !== undefined, timeoutMs, `a line matching ${pattern}`);
    return found!;
  }
}

/**
 * A server process with a config file it watches, in a temporary folder; workers and clients
 * started against it as real processes or in-test clients that trust it like any other.
 */
export class ServerProcess {
  readonly children: ChildProcess[] = [];
  readonly clients: GatehouseClient[] = [];
  server!: ChildProcess;
  log!: Output;
  url = "";
  fingerprint: string | null = null;

  private constructor(readonly root: string) {}

  get configFile(): string {
    return path.join(this.root, "config.json");
  }

  get knownServers(): string {
    return path.join(this.root, "known_servers");
  }

  get dataDir(): string {
    return path.join(this.root, "data");
  }

  static async start(config: Record<string, unknown>, files: Record<string, string> = {}): Promise<ServerProcess> {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-trust-")));
    fs.mkdirSync(path.join(root, "work"));
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
      fs.writeFileSync(path.join(root, name), text);
    }
    const s = new ServerProcess(root);
    s.writeConfig({ port: 0, dataDir: s.dataDir, heartbeatTimeoutMs: 3000, ...config });
    await s.launch();
    return s;
  }

  writeConfig(config: Record<string, unknown>): void {
    fs.writeFileSync(this.configFile, JSON.stringify(config, null, 2));
  }

  /** Starts (or starts again) the server process on the config file. */
  async launch(): Promise<void> {
    this.server = spawn(process.execPath, [BIN, "server", "--config", this.configFile], { stdio: ["ignore", "pipe", "pipe"] });
    this.log = new Output(this.server.stderr!);
    const first = await new Promise<{ url: string; fingerprint?: string }>((resolve, reject) => {
      readline.createInterface({ input: this.server.stdout! }).once("line", (line) => resolve(JSON.parse(line)));
      this.server.once("exit", (code) => reject(new Error(`server exited with ${code}: ${this.log.lines.join("\n")}`)));
    });
    this.url = first.url;
    this.fingerprint = first.fingerprint ?? null;
  }

  async stopServer(): Promise<void> {
    const exited = new Promise((r) => this.server.once("exit", r));
    this.server.kill("SIGKILL");
    await exited;
  }

  /** A `gatehouse` command against this server, trusting it through this folder's known-servers file. */
  spawnCli(args: string[]): { child: ChildProcess; out: Output; err: Output; exit: Promise<number | null> } {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GATEHOUSE_KNOWN_SERVERS: this.knownServers },
    });
    this.children.push(child);
    return { child, out: new Output(child.stdout!), err: new Output(child.stderr!), exit: new Promise((r) => child.once("exit", (code) => r(code))) };
  }

  worker(token: string, id: string): ReturnType<ServerProcess["spawnCli"]> {
    return this.spawnCli(["worker", "--server", this.url, "--token", token, "--id", id, "--dir", path.join(this.root, "work")]);
  }

  async client(token: string, onClose?: (cause?: { code?: number }) => void): Promise<GatehouseClient> {
    const c = await connectNodeClient({
      url: this.url,
      token,
      retryDelayMs: () => 200,
      trust: { knownServers: this.knownServers },
      ...(onClose ? { onClose } : {}),
    });
    this.clients.push(c);
    return c;
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((c) => closeClient(c)));
    for (const c of this.children) c.kill("SIGKILL");
    this.server.kill("SIGKILL");
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

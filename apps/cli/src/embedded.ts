import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLog } from "@gatehouse/log";
import { guardProcess, loadScenario, loadServerConfig, startServer, workerRulesFile } from "@gatehouse/server";
import type { SandboxInfo } from "@gatehouse/protocol";
import { startWorker, type McpServerConfig } from "@gatehouse/worker";
import type { SandboxSettings } from "@gatehouse/worker/sandbox";
import { CliError } from "./cli-error.js";
import { existingDir, type ModelChoice } from "./flags.js";
import { mcpServersFlag } from "./mcp-flag.js";
import { sandboxRefusal } from "./sandbox-flags.js";

/** The demo's own files: its scenario, its rules and the project it plays in. */
export const DEMO_DIR = path.resolve(import.meta.dirname, "../demo");

export interface EmbeddedOptions {
  /** The worker's work directory. */
  dir: string;
  dataDir?: string | undefined;
  workerId: string;
  /** The scenario the scripted model plays. */
  scenario: string;
  /** Written as the worker's rules file at every start, over what it holds (the demo's tour plays the same each time). */
  resetRules?: string;
  model?: ModelChoice;
  mcpServers?: McpServerConfig[];
  /** How the worker confines shell commands (default: auto, with network). */
  sandbox?: SandboxSettings | undefined;
}

export interface Embedded {
  url: string;
  clientToken: string;
  workerId: string;
  dataDir: string;
  /** The worker's permissions file. */
  rulesFile: string;
  /** The model sessions use unless they name one. */
  model: string;
  /** How the worker confines shell commands. */
  sandbox: SandboxInfo;
  close(): Promise<void>;
}

const token = () => crypto.randomBytes(24).toString("base64url");

/** A server and a worker in this process, on loopback, with tokens that live as long as they do. */
export async function startEmbedded(opts: EmbeddedOptions): Promise<Embedded> {
  const workerToken = token();
  const clientToken = token();
  const config = loadServerConfig(undefined, {
    port: 0,
    host: "127.0.0.1",
    dataDir: opts.dataDir,
    scenario: opts.scenario,
    ...opts.model,
    // Tokens and sessions live as long as this process: nothing to keep, and two of them may share a data directory.
    store: { kind: "memory" },
    workerTokens: [{ token: workerToken, name: "local-worker", workers: [opts.workerId] }],
    clientTokens: [{ token: clientToken, name: os.userInfo().username, role: "admin" }],
  });
  const rulesFile = workerRulesFile(config.dataDir, opts.workerId);
  if (opts.resetRules) {
    fs.mkdirSync(path.dirname(rulesFile), { recursive: true });
    fs.writeFileSync(rulesFile, opts.resetRules);
  }
  const log = createLog({ destination: path.join(config.dataDir, "gatehouse.log"), format: "json" });
  const serverLog = log.child({ component: "server" });
  guardProcess(serverLog);
  const server = await startServer(config, { log: serverLog });
  const worker = await startWorker({
    server: server.url,
    token: workerToken,
    id: opts.workerId,
    dir: opts.dir,
    mcpServers: opts.mcpServers ?? [],
    log: log.child({ component: "worker" }),
    ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
  }).catch(async (err: unknown) => {
    await server.close();
    throw sandboxRefusal(err);
  });
  return {
    url: server.url,
    clientToken,
    workerId: opts.workerId,
    dataDir: config.dataDir,
    rulesFile,
    model: config.model,
    sandbox: worker.sandbox,
    close: async () => {
      await worker.close();
      await server.close();
    },
  };
}

/** The Gatehouse checkout this CLI runs from, when it is one. */
const CHECKOUT = path.resolve(import.meta.dirname, "../../..");

/** Whether `dir` is in the Gatehouse checkout this CLI runs from (someone trying it where they cloned it). */
export function inThisCheckout(dir: string): boolean {
  const relative = path.relative(CHECKOUT, dir);
  const inside = relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  return inside && fs.existsSync(path.join(CHECKOUT, "pnpm-workspace.yaml")) && fs.existsSync(path.join(CHECKOUT, "apps", "cli", "demo"));
}

/**
 * The demo's data directory: its own folder under the one given, so that "always" answers given
 * in the demo never reach a real worker's rules, or a real worker's sessions the demo's.
 */
export function demoDataDir(dataDir: string | undefined): string {
  return path.join(loadServerConfig(undefined, { dataDir }).dataDir, "demo");
}

/** A fresh copy of the demo project in a temporary folder. */
export function createDemoProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-demo-"));
  fs.cpSync(path.join(DEMO_DIR, "project"), dir, { recursive: true });
  return fs.realpathSync(dir);
}

export interface LocalOptions {
  demo?: boolean | undefined;
  dir?: string | undefined;
  dataDir?: string | undefined;
  scenario?: string | undefined;
  model?: ModelChoice;
  /** A file of MCP servers for the worker (`--mcp`). */
  mcp?: string | undefined;
  sandbox?: SandboxSettings | undefined;
  /** False where nobody watches (`gatehouse run`): with no model and no scenario, refuse rather than play the tour. */
  tour?: boolean;
}

export interface Local extends Embedded {
  dir: string;
  /** Whether the scripted model plays the demo tour (no model configured and no scenario given). */
  playsDemo: boolean;
  scenario: string;
}

/**
 * The embedded server and worker of `gatehouse` and `gatehouse run`. With no scenario given the
 * scripted model plays the demo tour, on a worker named `demo` whose rules make writes ask.
 */
export async function startLocal(opts: LocalOptions): Promise<Local> {
  const scenario = opts.scenario ? path.resolve(opts.scenario) : path.join(DEMO_DIR, "scenario.yaml");
  // Read now, so that a missing and a malformed file are both a bad argument (exit 2), said before anything starts.
  if (opts.scenario) loadScenario(scenario);
  const project = opts.demo ? createDemoProject() : null;
  const dir = project ?? existingDir("dir", opts.dir ?? process.cwd());
  const scripted = loadServerConfig(undefined, { model: opts.model?.model }).model === "scripted";
  const playsDemo = scripted && !opts.scenario;
  const demoRules = playsDemo || opts.demo === true;
  const removeProject = () => project && fs.rmSync(project, { recursive: true, force: true });
  if (playsDemo && opts.tour === false) {
    removeProject();
    throw new CliError("no model is configured: give --model PROVIDER:MODEL (or GATEHOUSE_MODEL; docs/models.md), or --scenario FILE for the scripted model");
  }
  let mcpServers: McpServerConfig[];
  try {
    mcpServers = mcpServersFlag(opts.mcp, dir);
  } catch (err) {
    removeProject();
    throw err;
  }
  const embedded = await startEmbedded({
    dir,
    dataDir: demoRules ? demoDataDir(opts.dataDir) : opts.dataDir,
    workerId: demoRules ? "demo" : "local",
    scenario,
    mcpServers,
    sandbox: opts.sandbox,
    ...(opts.model ? { model: opts.model } : {}),
    ...(demoRules ? { resetRules: fs.readFileSync(path.join(DEMO_DIR, "permissions.jsonc"), "utf8") } : {}),
  }).catch((err: unknown) => {
    removeProject();
    throw err;
  });
  return {
    ...embedded,
    dir,
    playsDemo,
    scenario,
    close: async () => {
      await embedded.close();
      removeProject();
    },
  };
}

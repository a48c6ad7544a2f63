import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { OwnPlaces } from "../sandbox/bwrap-args.js";
import type { WrappedProcess } from "../sandbox/shell-runner.js";
import type { McpServerConfig, StdioServerConfig } from "./config.js";
import { WatchedStdioTransport } from "./watched-transport.js";

/** The worker's sandbox as a way to start a process in it with places of its own; null when it has none. */
export type ProcessWrapper = (argv: readonly string[], cwd: string, places: OwnPlaces) => Promise<WrappedProcess | null>;

/**
 * A sandboxed server's own writable folder on the host, kept across its restarts: package runners
 * (npx, uvx, pip) keep their downloads there, since the home directory is read-only in the
 * sandbox. It is not the person's own cache, which a server could otherwise fill with packages
 * that the person's next `npx` would run.
 */
export function serverCache(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(serverCachesRoot(env), name);
}

/**
 * The folder that holds every server's cache: one of the worker's own secrets, since code left
 * there runs at a server's next start with the secrets of its `env`.
 */
export function serverCachesRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), ".cache");
  return path.join(base, "gatehouse", "mcp");
}

/** What the runners are told of the cache: npm's own setting, and the folder uv, pip and most others use. */
function cacheEnvironment(cache: string): Record<string, string> {
  return { npm_config_cache: path.join(cache, "npm"), XDG_CACHE_HOME: cache };
}

/** The program as the launcher will find it: a name is looked up on the PATH the server gets. */
function programPath(command: string): string | null {
  if (command.includes("/")) return path.resolve(command);
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = path.join(dir || ".", command);
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** The program and the absolute paths of its command line that lie under /tmp, which the sandbox's private /tmp would hide. */
function namedUnderTmp(config: StdioServerConfig): string[] {
  const named = [programPath(config.command), ...config.args.filter((a) => path.isAbsolute(a))];
  const found = named.filter((p): p is string => p !== null && p.startsWith("/tmp/") && fs.existsSync(p)).map((p) => path.normalize(p));
  return [...new Set(found)];
}

/**
 * npx (`npm exec`) runs a package of the project its working directory is in before it fetches
 * one, so a server started in the work directory would run the project's copy, which the agent
 * writes: npm is given the server's own cache as its project (`--prefix`), and still runs the
 * server in its directory.
 */
function ownPackages(config: StdioServerConfig, cache: string): string[] {
  const program = path.basename(config.command);
  const exec = program === "npx" || (program === "npm" && ["exec", "x"].includes(config.args[0] ?? ""));
  if (!exec) return config.args;
  fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
  return ["--prefix", cache, ...config.args];
}

/** How a stdio server starts, and its sandbox when it has one (for what the sandbox refused it). */
export interface StdioLaunch {
  params: StdioServerParameters;
  sandbox: WrappedProcess | null;
}

/**
 * How a stdio server's process is started: the one place that decides it. In the worker's
 * sandbox when it has one, with a cache of its own; the SDK adds the safe environment it starts
 * every server with (HOME, LOGNAME, PATH, SHELL, TERM, USER) under the configured variables, and
 * nothing else of the worker's environment, its token included, is passed.
 */
export async function stdioLaunch(config: StdioServerConfig, wrap?: ProcessWrapper): Promise<StdioLaunch> {
  const cache = serverCache(config.name);
  const args = ownPackages(config, cache);
  const plain: StdioServerParameters = { command: config.command, args, env: config.env, cwd: config.cwd, stderr: "pipe" };
  if (!wrap) return { params: plain, sandbox: null };
  const wrapped = await wrap([config.command, ...args], config.cwd, { writable: [cache], visible: namedUnderTmp(config) });
  if (!wrapped) return { params: plain, sandbox: null };
  fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
  const env = { ...cacheEnvironment(cache), ...config.env, ...wrapped.env };
  return { params: { command: wrapped.command, args: wrapped.args, env, cwd: config.cwd, stderr: "pipe" }, sandbox: wrapped };
}

/** One connection's transport, and the sandbox its process runs in. */
export interface Opened {
  transport: Transport;
  sandbox: WrappedProcess | null;
}

/** A fresh transport for one connection to the server; stdio ones report their stderr lines. */
export async function openTransport(config: McpServerConfig, onStderr: (line: string) => void, wrap?: ProcessWrapper): Promise<Opened> {
  if (config.kind === "http") return { transport: new StreamableHTTPClientTransport(config.url, { requestInit: { headers: config.headers } }), sandbox: null };
  const launch = await stdioLaunch(config, wrap);
  const transport = new WatchedStdioTransport(launch.params);
  let partial = "";
  transport.stderr.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop()!.slice(-4000);
    for (const line of lines) if (line.trim() !== "") onStderr(line.slice(0, 1000));
  });
  return { transport, sandbox: launch.sandbox };
}

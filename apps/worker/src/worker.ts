import fs from "node:fs";
import { silentLog, type Log } from "@gatehouse/log";
import { FileRefusedError } from "@gatehouse/fs-guard";
import { homeDirectory } from "@gatehouse/policy/node";
import path from "node:path";
import { MAX_WORKER_TOOLS, type RunMessage, type SandboxInfo, type ToolDescriptor, type WorkerMessage, type WorkerRegisterInput } from "@gatehouse/protocol";
import { loadShellParser, type Layers } from "@gatehouse/policy";
import { z } from "zod";
import type { FileGuard } from "./file-guard.js";
import { GuardCache } from "./guard-cache.js";
import { movedPaths, movedResult, realPaths } from "./real-paths.js";
import type { TrustOptions } from "@gatehouse/protocol/node";
import { OutputStream } from "./output-stream.js";
import { ownSecretPaths } from "./own-secrets.js";
import { ServerLink } from "./server-link.js";
import type { Tool, ToolResult } from "./tool.js";
import { BUILTIN_TOOLS } from "./tools/index.js";
import { listSkills } from "./tools/skill.js";
import { workerAgents } from "./agents.js";
import type { McpServerConfig } from "./mcp/config.js";
import { McpServers } from "./mcp/servers.js";
import { resolveSandbox, type SandboxSettings } from "./sandbox/detect.js";
import { ShellRunner } from "./sandbox/shell-runner.js";
import { NetworkAskLink } from "./network/ask-link.js";
import { serverFloors } from "./network/server-floors.js";
import { PathsMovedError, SandboxRefusedError, ToolRefusedError } from "./errors.js";

export interface WorkerOptions {
  server: string;
  token: string;
  /** How to trust a wss:// server: a CA, a fingerprint, or the known-servers file (trust on first use). */
  trust?: TrustOptions;
  id: string;
  dir: string;
  tools?: readonly Tool[];
  /** A folder of agent files outside the work directory: its agents' rules may allow what the worker's rules do not. */
  agentsDir?: string;
  /** MCP servers whose tools the worker offers as `{server}_{tool}`. */
  mcpServers?: readonly McpServerConfig[];
  heartbeatMs?: number;
  log?: Log;
  /** How shell_exec is confined (docs/design.md, "Worker and sandbox"); `auto` with network on when absent. */
  sandbox?: SandboxSettings;
  /** Paths of the worker's own that no tool may read or write (its token file, its MCP config); ~/.gatehouse and the known-servers file always are. */
  ownSecrets?: readonly string[];
}

export interface RunningWorker {
  sandbox: SandboxInfo;
  close(): Promise<void>;
}

function descriptor(tool: Tool): ToolDescriptor {
  const inputSchema = tool.inputSchema ?? (z.toJSONSchema(tool.input) as Record<string, unknown>);
  return { name: tool.name, description: tool.description, tier: tool.tier, inputSchema, ...(tool.mcp ? { mcp: tool.mcp } : {}) };
}

const unsandboxed = new Map<string, ShellRunner>();

/** Plain bash with the safe environment, for callers that bring no runner of their own. */
function plainRunner(workDir: string): ShellRunner {
  let runner = unsandboxed.get(workDir);
  if (!runner) unsandboxed.set(workDir, (runner = new ShellRunner(workDir, { mode: "off", active: false, network: true, detail: "off" })));
  return runner;
}

/** Runs one tool call: arguments checked, files guarded, output limited, time bounded. */
export async function runTool(
  tools: readonly Tool[],
  msg: RunMessage,
  guard: FileGuard,
  signal: AbortSignal,
  log: Log = silentLog,
  shell: ShellRunner = plainRunner(guard.workDir),
  onOutput?: (text: string) => void,
): Promise<ToolResult> {
  const tool = tools.find((t) => t.name === msg.toolName);
  if (!tool) return { ok: false, output: `this worker has no tool named ${msg.toolName}` };
  // Checked before anything is opened, unless the tool checks them on what it opens before any effect (and a name swapped in between is caught there).
  const moved = msg.assumed && !tool.opensChecked && movedPaths(msg.assumed);
  if (moved) return movedResult(moved);
  const parsed = tool.input.safeParse(msg.args);
  if (!parsed.success)
    return {
      ok: false,
      output: `invalid arguments for ${tool.name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ")}`,
    };
  // One controller for both ways a call stops; AbortSignal.any costs more than the call itself.
  const stop = new AbortController();
  let stopped!: (result: ToolResult) => void;
  const halted = new Promise<ToolResult>((resolve) => (stopped = resolve));
  const halt = (result: ToolResult) => {
    stop.abort();
    stopped(result);
  };
  const onAbort = () => halt({ ok: false, output: "the call was aborted" });
  const timer = setTimeout(() => halt({ ok: false, output: `${tool.name} timed out after ${msg.timeoutMs} ms`, timedOut: true }), msg.timeoutMs);
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await Promise.race([
      tool.run(parsed.data, {
        workDir: guard.workDir,
        guard,
        granted: msg.granted ?? "rules",
        assumed: msg.assumed,
        signal: stop.signal,
        timeoutMs: msg.timeoutMs,
        spawnShell: (command) => shell.spawn(command, guard, msg.origin === "person" ? "person" : "model", msg.granted, msg.requestId),
        steeringLinks: () => shell.steeringLinks(),
        onOutput,
      }),
      halted,
    ]);
  } catch (err) {
    if (err instanceof PathsMovedError) return movedResult(err.moved);
    if (err instanceof ToolRefusedError || err instanceof SandboxRefusedError) return { ok: false, output: err.message };
    if (err instanceof FileRefusedError) return { ok: false, output: `refused ${tool.name}: ${err.message}` };
    log.warn("a tool call failed", { err, tool: tool.name, requestId: msg.requestId });
    return { ok: false, output: `${tool.name} failed: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

/** Connects to a server, registers, and runs the tool calls it sends until closed. */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const workDir = fs.realpathSync(path.resolve(opts.dir));
  const log = (opts.log ?? silentLog).child({ workerId: opts.id });
  const agents = workerAgents(workDir, opts.agentsDir, (problem) => log.warn(problem));
  const sandbox = resolveSandbox(opts.sandbox ?? { mode: "auto", network: true });
  if (!sandbox.active && sandbox.mode !== "off") log.warn(`no OS sandbox: ${sandbox.detail}`);
  if (sandbox.active && sandbox.egress === "host")
    log.warn(
      "--network host: sandboxed commands reach the host's whole network, its loopback services and the server included; the network rules are not applied",
    );
  const offered = opts.tools ?? BUILTIN_TOOLS;
  const builtins = sandbox.mode === "required" && !sandbox.active ? offered.filter((t) => t.name !== "shell_exec") : offered;
  const ownSecrets = ownSecretPaths(opts.ownSecrets ?? [], opts.trust);
  const server = await serverFloors(opts.server);
  if (server.problem) log.warn(server.problem);
  let link: ServerLink | undefined;
  const asks = new NetworkAskLink((message) => link?.send(message) ?? false);
  let standing: Layers | undefined;
  const shell = new ShellRunner(workDir, sandbox, {
    log,
    ownSecrets,
    egress: {
      floors: server.floors,
      ask: (request, signal) => asks.ask(request, signal),
      decided: (request, allowed, reason) => asks.decided(request, allowed, reason),
      standingRules: () => standing,
    },
  });
  await loadShellParser();
  const mcp = new McpServers(opts.mcpServers ?? [], {
    reserved: new Set([...offered.map((t) => t.name), "task"]),
    maxTools: MAX_WORKER_TOOLS - builtins.length,
    wrap: (argv, cwd, places) => shell.wrapProcess(argv, cwd, places),
    log,
    onToolsChanged: () => {
      if (!link) return;
      registration.tools = tools().map(descriptor);
      registration.mcpServers = mcp.statuses();
      link.send({ type: "tools", tools: registration.tools, mcpServers: registration.mcpServers });
    },
  });
  const tools = () => [...builtins, ...mcp.tools()];
  const running = new Map<string, AbortController>();
  const guards = new GuardCache(workDir, ownSecrets);
  const abortAll = () => {
    for (const c of running.values()) c.abort();
    running.clear();
  };
  const handle = (msg: WorkerMessage) => {
    if (msg.type === "cancel") return running.get(msg.requestId)?.abort();
    if (msg.origin === "gate") return link?.send({ type: "result", requestId: msg.requestId, ...realPaths(msg.args) });
    const controller = new AbortController();
    running.set(msg.requestId, controller);
    log.debug("running a tool call", { requestId: msg.requestId, sessionId: msg.sessionId, tool: msg.toolName });
    const output = msg.streamOutput ? new OutputStream((text) => link?.send({ type: "output", requestId: msg.requestId, text })) : undefined;
    const guard = guards.get(msg.guard);
    const first = standing === undefined;
    standing = { static: guard.context.layers.static };
    // MCP servers refused the network for want of rules before this call try again under them.
    if (first) mcp.retryFailed();
    void runTool(tools(), msg, guard, controller.signal, log, shell, output && ((text) => output.write(text))).then((result) => {
      output?.flush();
      if (!running.delete(msg.requestId) && controller.signal.aborted) return;
      if (!link?.send({ type: "result", requestId: msg.requestId, ...result }))
        log.warn("could not send a result: not connected", { requestId: msg.requestId });
    });
  };
  await mcp.start();
  const registration: WorkerRegisterInput = {
    workerId: opts.id,
    workDir,
    home: homeDirectory(),
    tools: tools().map(descriptor),
    agents,
    skills: listSkills(workDir, (problem) => log.warn(problem)),
    sandbox,
    mcpServers: mcp.statuses(),
    checksAssumedPaths: true,
  };
  link = new ServerLink({
    server: opts.server,
    token: opts.token,
    ...(opts.trust ? { trust: opts.trust } : {}),
    registration,
    heartbeatMs: opts.heartbeatMs ?? 1000,
    log,
    onMessage: handle,
    onNetworkAnswer: (message) => asks.answer(message),
    onLost: () => {
      asks.lost();
      if (running.size > 0) log.warn("connection lost: killing the running calls", { calls: running.size });
      abortAll();
    },
  });
  await link.start();
  return {
    sandbox,
    close: async () => {
      abortAll();
      await mcp.close();
      await link?.close();
      shell.close();
    },
  };
}

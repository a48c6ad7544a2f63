import type { Log } from "@gatehouse/log";
import { backoffMs, cutText, MCP_PROBLEM_MAX } from "@gatehouse/protocol";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError, ToolListChangedNotificationSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../tool.js";
import type { McpServerConfig } from "./config.js";
import type { WrappedProcess } from "../sandbox/shell-runner.js";
import { openTransport, type Opened, type ProcessWrapper } from "./launch.js";
import { nameTools } from "./names.js";
import { mcpResult } from "./results.js";

export interface ConnectionOptions {
  /** Names a server's tool may not take: the built-in tools'. */
  reserved: ReadonlySet<string>;
  /** The worker's log; each server's lines carry `mcpServer`. */
  log: Log;
  /** The server's tools came, went or changed, or it failed: its tools and its problem. */
  onToolsChanged(): void;
  /** Starts stdio servers in the worker's sandbox. */
  wrap?: ProcessWrapper;
  /** The wait before restart number `attempt` (0 first). */
  restartDelayMs?(attempt: number): number;
}

const CONNECT_TIMEOUT_MS = 20_000;
/** A server that stayed up this long starts its backoff from the beginning when it next dies. */
const STABLE_MS = 10_000;
const MAX_TOOLS = 500;
const MAX_PAGES = 50;
const ARGS = z.record(z.string(), z.unknown());
/** The last lines a server wrote on stderr, kept to say why it failed. */
const STDERR_TAIL = 8;

export const defaultRestartDelay = (attempt: number): number => backoffMs(attempt, 500, 30_000);

/** One MCP server: connected with the worker, restarted with backoff when it dies, its tools kept current. */
export class McpConnection {
  tools: Tool[] = [];
  /** Why the server is not running (its error and its last stderr lines); null while it runs or before its first try ends. */
  problem: string | null = null;
  private stderr: string[] = [];
  private starting = false;
  private client: Client | null = null;
  /** The sandbox the running server's process is in. */
  private sandbox: WrappedProcess | null = null;
  private closed = false;
  private attempt = 0;
  private upSince = 0;
  private retry: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> = Promise.resolve();
  private readonly log: Log;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.log = options.log.child({ mcpServer: config.name });
  }

  get running(): boolean {
    return this.client !== null;
  }

  /** Connects once; resolves whether it worked or not (a failure schedules a restart). */
  async start(): Promise<void> {
    if (this.closed) return;
    this.starting = true;
    await this.attemptStart().finally(() => (this.starting = false));
  }

  private async attemptStart(): Promise<void> {
    const client = new Client({ name: "gatehouse-worker", version: "0.1.0" }, { capabilities: {} });
    this.stderr = [];
    let opened: Opened;
    try {
      opened = await openTransport(this.config, (line) => this.heard(line), this.options.wrap);
    } catch (err) {
      return this.failed(`could not start: ${(err as Error).message}`, () => []);
    }
    const refused = refusalsFrom(opened.sandbox);
    client.onclose = () => this.lost(client, "its connection closed", refused);
    client.onerror = (err) => this.log.warn("MCP connection error", { err });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client === client) this.refreshing = this.refreshing.then(() => this.refresh(client));
    });
    try {
      await client.connect(opened.transport, { timeout: CONNECT_TIMEOUT_MS });
      if (this.closed) return void (await client.close());
      this.client = client;
      this.sandbox = opened.sandbox;
      this.upSince = Date.now();
      this.problem = null;
      this.refreshing = this.refresh(client);
      await this.refreshing;
      this.log.info("MCP server connected", { tools: this.tools.length });
    } catch (err) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      if (this.client === client) this.client = null;
      this.failed(`could not start: ${(err as Error).message}`, refused);
    }
  }

  private heard(line: string): void {
    this.log.info("MCP server stderr", { stderr: line });
    this.stderr.push(line);
    if (this.stderr.length > STDERR_TAIL) this.stderr.shift();
  }

  /** Says why the server is down, where the operator and the clients look, and tries again later. */
  private failed(what: string, refused: () => string[]): void {
    if (this.closed) return;
    const delay = (this.options.restartDelayMs ?? defaultRestartDelay)(this.attempt++);
    this.problem = describeProblem(what, this.stderr, refused());
    this.log.warn(`MCP server ${this.config.name} ${this.problem}\n(trying again in ${formatDelay(delay)})`);
    this.options.onToolsChanged();
    this.retry = setTimeout(() => void this.start(), delay);
  }

  /** A server waiting to restart is tried at once, its backoff from the beginning (the worker's rules came: its connections may be allowed now). */
  retryNow(): void {
    if (this.closed || this.client || this.starting || this.problem === null) return;
    clearTimeout(this.retry);
    this.attempt = 0;
    void this.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.tools = [];
    await client?.close().catch(() => undefined);
  }

  private lost(client: Client, why: string, refused: () => string[] = () => []): void {
    if (this.client !== client) return;
    this.client = null;
    this.tools = [];
    if (this.closed) return this.options.onToolsChanged();
    if (Date.now() - this.upSince > STABLE_MS) this.attempt = 0;
    this.failed(`stopped (${why}); its tools are withdrawn until it is back`, refused);
  }

  /** Lists the server's tools again and offers the new list. */
  private async refresh(client: Client): Promise<void> {
    const listed: McpTool[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_PAGES && listed.length < MAX_TOOLS; page++) {
        const got = await client.listTools(cursor ? { cursor } : undefined, { timeout: CONNECT_TIMEOUT_MS });
        listed.push(...got.tools);
        cursor = got.nextCursor;
        if (!cursor) break;
      }
    } catch (err) {
      this.log.warn(`MCP server ${this.config.name}: could not list its tools: ${(err as Error).message}`);
      return;
    }
    if (this.client !== client) return;
    const { named, refused } = nameTools(
      this.config.name,
      listed.slice(0, MAX_TOOLS).map((t) => ({ name: t.name, item: t })),
      this.options.reserved,
    );
    for (const why of refused) this.log.warn(why);
    this.tools = named.map(({ name, item }) => this.tool(name, item));
    this.options.onToolsChanged();
  }

  private tool(name: string, t: McpTool): Tool {
    const annotations: Record<string, unknown> = { ...(t.annotations ?? {}) };
    return {
      name,
      description: (t.description ?? t.annotations?.title ?? `${t.name}, a tool of MCP server ${this.config.name}`).slice(0, 4000),
      tier: t.annotations?.readOnlyHint === true ? "read" : "exec",
      input: ARGS,
      inputSchema: t.inputSchema as Record<string, unknown>,
      mcp: { server: this.config.name, tool: t.name, annotations },
      run: (args, ctx) => this.call(t.name, args as Record<string, unknown>, ctx),
    };
  }

  private async call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const client = this.client;
    const where = `MCP server ${this.config.name}`;
    if (!client) return { ok: false, output: `${where} is not running (it is being restarted); ${tool} was not called` };
    try {
      // The signal sends the server a cancellation notification when the call is aborted or times out.
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal: ctx.signal, timeout: ctx.timeoutMs });
      // A list change the server announced during the call reaches the gate before this result does.
      await this.refreshing;
      return mcpResult(result);
    } catch (err) {
      if (ctx.signal.aborted) return { ok: false, output: "the call was aborted" };
      if (this.client !== client) return { ok: false, output: `${where} stopped while ${tool} was running; it is being restarted` };
      if (!(err instanceof McpError) && this.config.kind === "http") {
        this.lost(client, `a request failed: ${(err as Error).message}`);
        void client.close().catch(() => undefined);
        return { ok: false, output: `${where} could not be reached while calling ${tool}: ${(err as Error).message}` };
      }
      return { ok: false, output: `${where} failed to run ${tool}: ${(err as Error).message}` };
    } finally {
      // What a call made the server write in a git directory is undone before the agent's next step.
      await this.sandbox?.undoGitParts?.();
    }
  }
}

/** The connections the sandbox refused a process since now, each once with its reason. */
function refusalsFrom(sandbox: WrappedProcess | null): () => string[] {
  const from = sandbox?.connections?.() ?? 0;
  return () => [...new Set((sandbox?.refusedSince?.(from) ?? []).map((r) => `${r.label}: ${r.reason ?? "refused"}`))];
}

/** A server's problem as one text: what happened, the connections refused it, its last words. */
export function describeProblem(what: string, stderr: readonly string[], refused: readonly string[]): string {
  const parts = [what];
  if (refused.length > 0) parts.push(`the sandbox refused its connections to ${refused.slice(0, 3).join("; ")}`);
  if (stderr.length > 0) parts.push(`its last words on stderr:\n${stderr.map((l) => `  ${l}`).join("\n")}`);
  return cutText(parts.join("\n"), MCP_PROBLEM_MAX - 100, (total) => ` … (${total} characters in all)`).text;
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

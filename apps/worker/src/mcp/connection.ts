import type { Log } from "@gatehouse/log";
import { backoffMs } from "@gatehouse/protocol";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError, ToolListChangedNotificationSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Tool, ToolContext, ToolResult } from "../tool.js";
import type { McpServerConfig } from "./config.js";
import { openTransport, type ProcessWrapper } from "./launch.js";
import { nameTools } from "./names.js";
import { mcpResult } from "./results.js";

export interface ConnectionOptions {
  /** Names a server's tool may not take: the built-in tools'. */
  reserved: ReadonlySet<string>;
  /** The worker's log; each server's lines carry `mcpServer`. */
  log: Log;
  /** The server's tools came, went or changed. */
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

export const defaultRestartDelay = (attempt: number): number => backoffMs(attempt, 500, 30_000);

/** One MCP server: connected with the worker, restarted with backoff when it dies, its tools kept current. */
export class McpConnection {
  tools: Tool[] = [];
  private client: Client | null = null;
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
    const client = new Client({ name: "gatehouse-worker", version: "0.1.0" }, { capabilities: {} });
    const transport = openTransport(this.config, (line) => this.log.info("MCP server stderr", { stderr: line }), this.options.wrap);
    client.onclose = () => this.lost(client, "its connection closed");
    client.onerror = (err) => this.log.warn("MCP connection error", { err });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client === client) this.refreshing = this.refreshing.then(() => this.refresh(client));
    });
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      if (this.closed) return void (await client.close());
      this.client = client;
      this.upSince = Date.now();
      this.refreshing = this.refresh(client);
      await this.refreshing;
      this.log.info("MCP server connected", { tools: this.tools.length });
    } catch (err) {
      this.log.warn(`MCP server ${this.config.name} could not start: ${(err as Error).message}`);
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      if (this.client === client) this.client = null;
      this.scheduleRestart();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.tools = [];
    await client?.close().catch(() => undefined);
  }

  private lost(client: Client, why: string): void {
    if (this.client !== client) return;
    this.client = null;
    this.tools = [];
    this.options.onToolsChanged();
    if (this.closed) return;
    this.log.warn(`MCP server ${this.config.name} stopped (${why}); its tools are withdrawn until it is back`);
    if (Date.now() - this.upSince > STABLE_MS) this.attempt = 0;
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.closed) return;
    const delay = (this.options.restartDelayMs ?? defaultRestartDelay)(this.attempt++);
    this.retry = setTimeout(() => void this.start(), delay);
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
    }
  }
}

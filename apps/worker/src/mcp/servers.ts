import type { McpServerStatus } from "@gatehouse/protocol";
import type { Tool } from "../tool.js";
import type { McpServerConfig } from "./config.js";
import type { ConnectionOptions, McpConnection } from "./connection.js";

export interface McpServersOptions extends Omit<ConnectionOptions, "onToolsChanged"> {
  /** The worker's tool list changed: tell the server. */
  onToolsChanged(): void;
  /** The most MCP tools offered in all (a registration holds at most 1000 tools). */
  maxTools: number;
}

/** The worker's MCP servers: started together, each restarting on its own; their tools as one list. */
export class McpServers {
  private connections: McpConnection[] = [];
  private overflowNoted = 0;

  constructor(
    private readonly configs: readonly McpServerConfig[],
    private readonly options: McpServersOptions,
  ) {}

  /**
   * Starts every server; resolves when each has connected or failed its first attempt. The MCP
   * SDK loads only here, and only when there are servers: most workers have none.
   */
  async start(): Promise<void> {
    if (this.configs.length === 0) return;
    const { McpConnection } = await import("./connection.js");
    this.connections = this.configs.map((c) => new McpConnection(c, this.options));
    await Promise.all(this.connections.map((c) => c.start()));
  }

  /** Every running server's tools, in the order the servers are configured, up to the limit. */
  tools(): Tool[] {
    const all = this.connections.flatMap((c) => c.tools);
    if (all.length > this.options.maxTools && all.length !== this.overflowNoted) {
      this.overflowNoted = all.length;
      this.options.log.warn(`the MCP servers offer ${all.length} tools; only the first ${this.options.maxTools} are offered`);
    }
    return all.slice(0, this.options.maxTools);
  }

  /** Servers waiting to restart are tried at once. */
  retryFailed(): void {
    for (const c of this.connections) c.retryNow();
  }

  /** Each server: running, or why not. */
  statuses(): McpServerStatus[] {
    return this.connections.map((c) => ({ name: c.config.name, running: c.running, problem: c.problem }));
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

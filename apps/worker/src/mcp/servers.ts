import type { Tool } from "../tool.js";
import type { McpServerConfig } from "./config.js";
import { McpConnection, type ConnectionOptions } from "./connection.js";

export interface McpServersOptions extends Omit<ConnectionOptions, "onToolsChanged"> {
  /** The worker's tool list changed: tell the server. */
  onToolsChanged(): void;
}

/** The worker's MCP servers: started together, each restarting on its own; their tools as one list. */
export class McpServers {
  private readonly connections: McpConnection[];

  constructor(configs: readonly McpServerConfig[], o: McpServersOptions) {
    this.connections = configs.map((c) => new McpConnection(c, o));
  }

  /** Starts every server; resolves when each has connected or failed its first attempt. */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.start()));
  }

  tools(): Tool[] {
    return this.connections.flatMap((c) => c.tools);
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

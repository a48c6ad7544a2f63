import path from "node:path";
import { loadMcpConfig, McpConfigError, type McpServerConfig } from "@gatehouse/worker";
import { CliError } from "./cli-error.js";

/** The MCP servers an `--mcp` file lists for a worker on `dir`; none without the flag. */
export function mcpServersFlag(file: string | undefined, dir: string): McpServerConfig[] {
  if (file === undefined) return [];
  try {
    return loadMcpConfig(path.resolve(file), dir);
  } catch (err) {
    if (err instanceof McpConfigError) throw new CliError(`--mcp: ${err.message}`);
    throw err;
  }
}

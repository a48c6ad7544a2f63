import { StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig, StdioServerConfig } from "./config.js";

/** The worker's sandbox as a way to start a process in it, and the variables it adds (its proxy's); null when it has none. */
export type ProcessWrapper = (argv: readonly string[], cwd: string) => { command: string; args: string[]; env?: Record<string, string> } | null;

/**
 * How a stdio server's process is started: the one place that decides it. In the worker's
 * sandbox when it has one; the SDK adds the safe environment it starts every server with (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER) under the configured variables, and nothing else of the
 * worker's environment, its token included, is passed.
 */
export function stdioLaunch(config: StdioServerConfig, wrap?: ProcessWrapper): StdioServerParameters {
  const wrapped = wrap?.([config.command, ...config.args], config.cwd);
  if (!wrapped) return { command: config.command, args: config.args, env: config.env, cwd: config.cwd, stderr: "pipe" };
  return { command: wrapped.command, args: wrapped.args, env: { ...config.env, ...wrapped.env }, cwd: config.cwd, stderr: "pipe" };
}

/** A fresh transport for one connection to the server; stdio ones report their stderr lines. */
export function openTransport(config: McpServerConfig, onStderr: (line: string) => void, wrap?: ProcessWrapper): Transport {
  if (config.kind === "http") return new StreamableHTTPClientTransport(config.url, { requestInit: { headers: config.headers } });
  const transport = new StdioClientTransport(stdioLaunch(config, wrap));
  let partial = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop()!.slice(-4000);
    for (const line of lines) if (line.trim() !== "") onStderr(line.slice(0, 1000));
  });
  return transport;
}

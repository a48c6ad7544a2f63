import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Log } from "@gatehouse/log";
import { afterEach, expect, it } from "vitest";
import type { StdioServerConfig } from "../src/mcp/config.js";
import { McpServers } from "../src/mcp/servers.js";
import { describeProblem } from "../src/mcp/connection.js";
import { MCP_PROBLEM_MAX, McpServerStatus } from "@gatehouse/protocol";

const TEST_SERVER = path.resolve(import.meta.dirname, "../../../test/support/mcp-test-server.mjs");
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "gh-mcp-")));
const stdio = (name: string, command: string, args: string[]): StdioServerConfig => ({ name, kind: "stdio", command, args, env: {}, cwd: dir });
let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("a server that cannot start neither stops the others nor the worker, and is tried again with backoff", async () => {
  const log: string[] = [];
  const record: Log = { debug: () => undefined, info: (m) => log.push(m), warn: (m) => log.push(m), error: (m) => log.push(m), child: () => record };
  const delays: number[] = [];
  let changes = 0;
  servers = new McpServers([stdio("broken", path.join(dir, "no-such-program"), []), stdio("demo", process.execPath, [TEST_SERVER])], {
    reserved: new Set(["read_file"]),
    maxTools: 3,
    log: record,
    onToolsChanged: () => changes++,
    restartDelayMs: (attempt) => (delays.push(attempt), 50),
  });
  await servers.start();
  expect(servers.tools().map((t) => [t.name, t.tier])).toEqual([
    ["demo_echo", "read"],
    ["demo_write_note", "exec"],
    ["demo_crash", "exec"],
  ]);
  expect(log).toContainEqual(expect.stringMatching(/^MCP server broken could not start: .*ENOENT/));
  expect(log).toContainEqual("the MCP servers offer 8 tools; only the first 3 are offered");
  expect(changes).toBeGreaterThan(0);
  await new Promise((r) => setTimeout(r, 400));
  expect(delays.slice(0, 3)).toEqual([0, 1, 2]);
  const echo = servers.tools()[0]!;
  expect(echo.mcp).toEqual({ server: "demo", tool: "echo", annotations: { title: "Echo", readOnlyHint: true } });
  expect(echo.inputSchema).toMatchObject({ type: "object", required: ["text"] });
});

it("a failure's message always fits what the protocol takes, however long the server's words", () => {
  const problem = describeProblem(`could not start: ${"x".repeat(20_000)}`, Array(8).fill("y".repeat(1000)), ["a:1: refused"]);
  expect(problem.length).toBeLessThanOrEqual(MCP_PROBLEM_MAX);
  expect(problem).toMatch(/… \(\d+ characters in all\)$/);
  expect(McpServerStatus.safeParse({ name: "long", running: false, problem }).success).toBe(true);
});

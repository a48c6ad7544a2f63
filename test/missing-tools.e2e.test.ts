import fs from "node:fs";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster } from "./support/cluster.js";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });

describe("a call of a tool the worker does not have", { timeout: 60_000 }, () => {
  it("is denied at once with the reason, never asked, even where the rules ask for everything; the worker's own tools still ask", async () => {
    cluster = await Cluster.start({ rules: `{ "*": "ask" }` });
    const client = cluster.client();
    const s = await cluster.promptedSession(client, [
      { toolCalls: [call("delete_everything", { path: "/" }), call("demo_echo", { text: "hi" }), call("write_file", { path: "kept.txt", content: "x" })] },
      { text: "done" },
    ]);
    const ask = await s.events.next("tool_approval_required", undefined, 20_000);
    expect(ask.toolName).toBe("write_file");
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    await s.events.next("turn_ended", undefined, 20_000);
    expect(s.events.of("tool_approval_required").map((e) => e.toolName)).toEqual(["write_file"]);
    const results = s.events.of("tool_result").map((r) => [r.toolName, r.outcome, r.output]);
    expect(results).toEqual([
      [
        "delete_everything",
        "denied",
        "ToolDeniedError: this delete_everything call was denied: worker w1 has no tool named delete_everything: only the tools offered to the model can run (an MCP server's tools are offered once the server has started)",
      ],
      ["demo_echo", "denied", expect.stringContaining("worker w1 has no tool named demo_echo:")],
      ["write_file", "ok", expect.any(String)],
    ]);
    expect(fs.readFileSync(path.join(cluster.workDir, "kept.txt"), "utf8")).toBe("x");
    const audit = await client.audit.query.query({ sessionId: s.id });
    expect(audit.filter((e) => e.toolName !== "write_file").map((e) => [e.toolName, e.action, e.rule])).toEqual([
      ["delete_everything", "deny", null],
      ["demo_echo", "deny", null],
    ]);
  });

  it("an MCP server's tool before its server has started is denied at once, and the same call asks once the server is up", async () => {
    const marker = path.join(process.cwd(), `.mcp-start-${process.pid}`);
    // The server fails to start until the test lets it (the worker restarts it meanwhile): until then no demo_* tool is offered.
    const server = JSON.stringify(path.resolve(import.meta.dirname, "support/mcp-test-server.mjs"));
    const gated = `if (!require("node:fs").existsSync(${JSON.stringify(marker)})) process.exit(1); import(${server});`;
    cluster = await Cluster.start({ rules: `{ "*": "ask" }`, mcpServers: () => ({ demo: { command: process.execPath, args: ["-e", gated] } }) });
    try {
      const client = cluster.client();
      const s = await cluster.promptedSession(client, [
        { toolCalls: [call("demo_echo", { text: "early" })] },
        { text: "too early" },
        { toolCalls: [call("demo_echo", { text: "later" })] },
        { text: "done" },
      ]);
      await s.events.next("turn_ended", undefined, 20_000);
      expect(s.events.of("tool_approval_required")).toEqual([]);
      expect(s.events.of("tool_result").map((r) => [r.outcome, r.output])).toEqual([
        ["denied", expect.stringContaining("worker w1 has no tool named demo_echo")],
      ]);
      fs.writeFileSync(marker, "");
      await waitForTool(client, "demo_echo");
      await client.agent.prompt.mutate({ sessionId: s.id, text: "again" });
      const ask = await s.events.next("tool_approval_required", undefined, 20_000);
      expect(ask).toMatchObject({ toolName: "demo_echo", arguments: JSON.stringify({ text: "later" }) });
    } finally {
      fs.rmSync(marker, { force: true });
    }
  });
});

/** Waits until the worker offers `tool` (its tier is then read from the worker, not the default). */
async function waitForTool(client: GatehouseClient, tool: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const [worker] = await client.workers.list.query();
    if (worker?.tools.some((t) => t.name === tool)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the worker never offered ${tool}`);
}

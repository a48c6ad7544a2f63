import http from "node:http";
import type net from "node:net";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Cluster, Events } from "./support/cluster.js";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

/** A host stood for by a server on a 127.0.0.1 port: rules name it exactly, as the loopback floor needs. */
let web: http.Server;
let port = 0;
beforeAll(async () => {
  web = http.createServer((req, res) => res.end(`web says hello to ${req.url}\n`));
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", () => resolve()));
  port = (web.address() as net.AddressInfo).port;
});
afterAll(() => web.close());

const RULES = () => `{"*": "ask", "shell_exec": "allow", "network": {"127.0.0.1:${port}": "ask"}}`;
/** NO_PROXY names loopback for a command's own servers; the host here stands on the host's 127.0.0.1, so curl clears it. */
const CURL = "curl --noproxy '' -sS --max-time 30";
const fetchWeb = (path: string) => ({ tool: "shell_exec", args: { command: `${CURL} http://127.0.0.1:${port}${path}` } });

async function session(c: Cluster, client: GatehouseClient, steps: unknown[], mode: "default" | "yolo" | "strict" = "default") {
  const info = await client.session.create.mutate({ workerId: "w1", mode, scenario: c.scenario("s", steps) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  return { id: info.id, events };
}

/** The session's audit entries for network connections, once there are `count` of them (or after 10 s). */
async function auditOf(client: GatehouseClient, sessionId: string, count: number) {
  for (let waited = 0; ; waited += 100) {
    const entries = await client.audit.query.query({ sessionId, toolName: "network" });
    if (entries.length >= count || waited >= 10_000) return entries;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("connections the rules decide without asking are audited", () => {
  it("an allowed and a denied connection each leave an entry with the rule's reason", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow", "network": {"127.0.0.1:${port}": "allow", "127.0.0.2:${port}": "deny"}}` });
    const denied = { tool: "shell_exec", args: { command: `${CURL} http://127.0.0.2:${port}/no; true` } };
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "x", toolCalls: [fetchWeb("/yes"), denied] }, { text: "done" }]);
    await s.events.next("turn_ended", () => true, 20_000);
    const audit = await auditOf(client, s.id, 2);
    expect(audit.map((a) => [a.action, JSON.parse(a.arguments).host])).toEqual([
      ["allow", "127.0.0.1"],
      ["deny", "127.0.0.2"],
    ]);
    expect(audit[1]!.reason).toMatch(/network "127\.0\.0\.2:\d+": deny/);
  });
});

describe("a connection the rules ask about reaches a person while it waits", () => {
  it("an answer from a second client lets the waiting connection through; session scope covers the next command", async () => {
    cluster = await Cluster.start({ rules: RULES() });
    const s = await session(cluster, cluster.client(), [{ text: "x", toolCalls: [fetchWeb("/one"), fetchWeb("/two")] }, { text: "done" }]);
    const ask = await s.events.next("tool_approval_required", (e) => e.toolName === "network", 20_000);
    expect(JSON.parse(ask.arguments)).toEqual({ host: "127.0.0.1", port, command: fetchWeb("/one").args.command });
    expect(ask).toMatchObject({
      sessionId: s.id,
      suggestedPatterns: ["127.0.0.1"],
      decision: { action: "ask", tool: "network", subject: `127.0.0.1:${port}` },
    });
    const answerer = cluster.client();
    expect(await answerer.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId, scope: "session", pattern: `127.0.0.1:${port}` })).toEqual({
      applied: true,
    });
    await s.events.next("turn_ended", () => true, 20_000);
    const results = s.events.of("tool_result");
    expect(results.map((r) => r.output)).toEqual(["web says hello to /one\n", "web says hello to /two\n"]);
    expect(s.events.of("tool_approval_required").filter((e) => e.toolName === "network")).toHaveLength(1);
    // The second connection is allowed by the session's rule on the worker, and audited as such.
    const audit = await auditOf(answerer, s.id, 3);
    expect(audit.map((a) => a.action)).toEqual(["ask", "approved", "allow"]);
  });

  it("a denial refuses the connection with the reason; strict mode refuses without asking", async () => {
    cluster = await Cluster.start({ rules: RULES() });
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "x", toolCalls: [fetchWeb("/no")] }, { text: "done" }]);
    const ask = await s.events.next("tool_approval_required", (e) => e.toolName === "network", 20_000);
    await cluster.client().tool.deny.mutate({ sessionId: s.id, approvalId: ask.approvalId, feedback: "not that host" });
    await s.events.next("turn_ended", () => true, 20_000);
    expect(s.events.of("tool_result")[0]!.output).toMatch(/gatehouse refused 127\.0\.0\.1:\d+: 127\.0\.0\.1:\d+ was denied by .*: not that host/);
    const strict = await session(cluster, client, [{ text: "x", toolCalls: [fetchWeb("/strict")] }, { text: "done" }], "strict");
    await strict.events.next("turn_ended", () => true, 20_000);
    expect(strict.events.of("tool_result")[0]!.output).toMatch(/gatehouse refused .*strict mode denies what would ask/);
    expect(strict.events.of("tool_approval_required")).toHaveLength(0);
  });

  it("an ask still waiting when the command ends is withdrawn", async () => {
    cluster = await Cluster.start({ rules: RULES() });
    const command = `(${CURL} http://127.0.0.1:${port}/late &) ; sleep 1; echo left`;
    const s = await session(cluster, cluster.client(), [{ text: "x", toolCalls: [{ tool: "shell_exec", args: { command } }] }, { text: "done" }]);
    const ask = await s.events.next("tool_approval_required", (e) => e.toolName === "network", 20_000);
    const resolved = await s.events.next("tool_approval_resolved", (e) => e.approvalId === ask.approvalId, 20_000);
    expect(resolved).toMatchObject({ outcome: "cancelled", by: "the command ended" });
  });
});

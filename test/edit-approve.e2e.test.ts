import fs from "node:fs";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";

const BEA_TOKEN = "client-token-for-tests-bea-0002";
const people = {
  clientTokens: [
    { token: CLIENT_TOKEN, name: "ada", role: "admin" },
    { token: BEA_TOKEN, name: "bea", role: "admin" },
  ],
};

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

async function asked(c: Cluster, client: GatehouseClient, call: { tool: string; args: Record<string, unknown> }) {
  const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario("s", [{ text: "Running.", toolCalls: [call] }, { text: "done" }]) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  const ask = await events.next("tool_approval_required");
  return { id: info.id, events, ask };
}

async function start(rules = `{"shell_exec": "ask", "write_file": "ask"}`) {
  cluster = await Cluster.start({ rules, files: { "build/a.o": "a", "dist/app.js": "app", "notes.txt": "notes\n" }, config: people });
  return cluster;
}

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: { message: string; data?: { code?: string } }) => ({ message: err.message, code: err.data?.code }),
  );

describe("approving a call with edited arguments", () => {
  it("an edit that narrows runs instead of the original: only dist is removed, the model and the audit log are told both", async () => {
    const c = await start();
    const client = c.client();
    const s = await asked(c, client, shell("rm -rf build dist"));
    expect(s.ask.editable).toBe(true);
    const applied = await client.tool.approve.mutate({
      sessionId: s.id,
      approvalId: s.ask.approvalId,
      digest: s.ask.digest,
      editedArguments: { command: "rm -rf dist" },
    });
    expect(applied).toEqual({ applied: true });
    await s.events.next("turn_ended");
    expect(fs.existsSync(path.join(c.workDir, "dist"))).toBe(false);
    expect(fs.readFileSync(path.join(c.workDir, "build/a.o"), "utf8")).toBe("a");
    const resolved = await s.events.next("tool_approval_resolved");
    expect(resolved).toMatchObject({ outcome: "approved", by: "ada", editedArguments: JSON.stringify({ command: "rm -rf dist" }) });
    expect(await s.events.next("tool_call_started")).toMatchObject({ arguments: JSON.stringify({ command: "rm -rf dist" }) });
    const result = await s.events.next("tool_result");
    expect(result.outcome).toBe("ok");
    const history = await client.session.get.query({ sessionId: s.id });
    const told = history.history.find((m) => m.role === "tool");
    expect(told).toMatchObject({ role: "tool", isError: false });
    expect(told?.role === "tool" && told.content).toMatch(
      /^The user changed this shell_exec call before approving it\. Your arguments: \{"command":"rm -rf build dist"\}\. The arguments it ran with instead: \{"command":"rm -rf dist"\}\./,
    );
    const audit = await client.audit.query.query({ sessionId: s.id });
    expect(audit.filter((e) => e.by === "ada").map((e) => [e.action, e.arguments])).toEqual([
      ["approved", JSON.stringify({ command: "rm -rf build dist" })],
      ["edited", JSON.stringify({ command: "rm -rf dist" })],
    ]);
    expect(audit.find((e) => e.action === "edited")?.reason).toMatch(
      /^edited by ada before approving; the original arguments: \{"command":"rm -rf build dist"\}; the edited call decided ask/,
    );
  });

  it("an edit the gate denies is refused with the reason; the call stays pending and can be answered otherwise", async () => {
    const c = await start(`{"shell_exec": {"*": "ask", "curl *": "deny"}}`);
    const client = c.client();
    const s = await asked(c, client, shell("ls dist"));
    const refused = await errorOf(
      client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: { command: "curl http://127.0.0.1:9/x" } }),
    );
    expect(refused).toEqual({
      code: "PRECONDITION_FAILED",
      message: expect.stringMatching(/^the edited shell_exec call is denied: .*curl.*; the call is still pending$/),
    });
    expect(s.events.of("tool_approval_resolved")).toEqual([]);
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId })).toEqual({ applied: true });
    expect((await s.events.next("tool_result")).output).toContain("app.js");
  });

  it("a write_file edited in its content writes the person's content; edited to a path the rules deny, it is refused", async () => {
    const c = await start(`{"write_file": {"*": "ask", "*.env": "deny"}}`);
    const client = c.client();
    const s = await asked(c, client, { tool: "write_file", args: { path: "out.txt", content: "from the model\n" } });
    const denied = await errorOf(
      client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: { path: "prod.env", content: "from the model\n" } }),
    );
    expect(denied?.message).toMatch(/^the edited write_file call is denied: static rule write_file "\*\.env": deny at .*; the call is still pending$/);
    const edited = { path: "out.txt", content: "from the person\n" };
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: edited })).toEqual({ applied: true });
    expect(await s.events.next("tool_result")).toMatchObject({ outcome: "ok" });
    expect(fs.readFileSync(path.join(c.workDir, "out.txt"), "utf8")).toBe("from the person\n");
    expect(fs.existsSync(path.join(c.workDir, "prod.env"))).toBe(false);
  });

  it("an edited path is decided again on the worker's real paths just before it runs: through a link into a denied folder, it is denied", async () => {
    const c = await start(`{"write_file": {"*": "ask", "secret/**": "deny"}}`);
    fs.mkdirSync(path.join(c.workDir, "secret"));
    fs.writeFileSync(path.join(c.workDir, "secret/key.txt"), "kept\n");
    fs.symlinkSync("secret/key.txt", path.join(c.workDir, "innocent.txt"));
    const client = c.client();
    const s = await asked(c, client, { tool: "write_file", args: { path: "out.txt", content: "x\n" } });
    const edited = { path: "innocent.txt", content: "overwritten\n" };
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: edited })).toEqual({ applied: true });
    const result = await s.events.next("tool_result");
    expect(result.outcome).toBe("denied");
    expect(result.output).toMatch(/^The user changed this write_file call before approving it\. [^\n]*\nToolDeniedError: .*secret\/key\.txt/);
    expect(fs.readFileSync(path.join(c.workDir, "secret/key.txt"), "utf8")).toBe("kept\n");
    expect(s.events.of("tool_call_started")).toEqual([]);
  });

  it("an MCP tool's call edited as JSON runs with the edited arguments; a missing field is named", async () => {
    const server = path.resolve(import.meta.dirname, "support/mcp-test-server.mjs");
    cluster = await Cluster.start({ mcpServers: () => ({ demo: { command: process.execPath, args: [server] } }), rules: `{"*": "ask"}`, config: people });
    const c = cluster;
    const client = c.client();
    await waitUntil(async () => (await client.workers.list.query())[0]?.tools.some((t) => t.name === "demo_write_note") ?? false, 20_000, "the MCP tools");
    const s = await asked(c, client, { tool: "demo_write_note", args: { name: "a", text: "from the model" } });
    const missing = await errorOf(client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: { name: "b" } }));
    expect(missing).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^the edited arguments do not fit the demo_write_note tool: text: /) });
    const edited = { name: "b", text: "from the person" };
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: edited })).toEqual({ applied: true });
    expect(await s.events.next("tool_result", undefined, 20_000)).toMatchObject({ outcome: "ok" });
    expect(fs.readFileSync(path.join(c.workDir, "note-b.txt"), "utf8")).toBe("from the person");
    expect(fs.existsSync(path.join(c.workDir, "note-a.txt"))).toBe(false);
  });

  it("arguments that do not fit the tool's schema are refused naming the field", async () => {
    const c = await start();
    const client = c.client();
    const s = await asked(c, client, shell("ls dist"));
    const refused = await errorOf(client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: { command: 7 } }));
    expect(refused).toEqual({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^the edited arguments do not fit the shell_exec tool: command: .*string.*; the call is still pending$/),
    });
    expect(s.events.of("tool_approval_resolved")).toEqual([]);
  });

  it("an edit that hits a critical pattern needs its own confirmation, and then runs once only", async () => {
    const c = await start();
    const client = c.client();
    const s = await asked(c, client, shell("echo hi"));
    const critical = { command: "dd if=/dev/zero of=/dev/null count=1" };
    const refused = await errorOf(client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: critical }));
    expect(refused).toEqual({
      code: "PRECONDITION_FAILED",
      message: expect.stringMatching(
        /^the edited shell_exec call matches a critical pattern \(dd writes to a device\): approve it again with confirmCritical to run it once; the call is still pending$/,
      ),
    });
    const session = await errorOf(
      client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: critical, confirmCritical: true, scope: "session" }),
    );
    expect(session?.message).toMatch(/^this call matched a critical pattern \(dd writes to a device\); it can only be approved once$/);
    expect(s.events.of("tool_approval_resolved")).toEqual([]);
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: critical, confirmCritical: true })).toEqual({
      applied: true,
    });
    expect(await s.events.next("tool_call_started")).toMatchObject({ arguments: JSON.stringify(critical) });
    expect(await s.events.next("tool_result")).toMatchObject({ outcome: "ok" });
  });

  it("an edit approved for the session saves the edited call's pattern, not the original's, which tool.checkEdit shows first", async () => {
    const c = await start();
    const client = c.client();
    const s = await asked(c, client, shell("rm -rf build dist"));
    const checked = await client.tool.checkEdit.query({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: { command: "ls dist" } });
    expect(checked).toMatchObject({ decision: { action: "ask", critical: null }, suggestedPatterns: ["ls *"] });
    const critical = await client.tool.checkEdit.query({
      sessionId: s.id,
      approvalId: s.ask.approvalId,
      editedArguments: { command: "dd if=/dev/zero of=/dev/null" },
    });
    expect(critical).toMatchObject({ decision: { critical: "dd writes to a device" }, suggestedPatterns: [] });
    expect(await errorOf(client.tool.checkEdit.query({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: { cmd: "ls" } }))).toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^the edited arguments do not fit the shell_exec tool: /),
    });
    expect(s.events.of("tool_approval_resolved")).toEqual([]);
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: s.ask.approvalId, editedArguments: { command: "ls dist" }, scope: "session" });
    expect(await s.events.next("tool_approval_resolved")).toMatchObject({ scope: "session", pattern: "ls *" });
    await s.events.next("turn_ended");
    expect(fs.existsSync(path.join(c.workDir, "build"))).toBe(true);
  });

  it("an edit raced against a plain approval of the original: exactly one applies, the other is a conflict", async () => {
    const c = await start();
    const ada = c.client();
    const bea = c.client(BEA_TOKEN);
    for (let round = 0; round < 6; round++) {
      fs.mkdirSync(path.join(c.workDir, "build"), { recursive: true });
      fs.mkdirSync(path.join(c.workDir, "dist"), { recursive: true });
      const s = await asked(c, ada, shell("rm -rf build dist"));
      const answer = { sessionId: s.id, approvalId: s.ask.approvalId, digest: s.ask.digest };
      const [edited, plain] = await Promise.allSettled([
        ada.tool.approve.mutate({ ...answer, editedArguments: { command: "rm -rf dist" } }),
        bea.tool.approve.mutate(answer),
      ]);
      const won = [edited, plain].filter((r) => r.status === "fulfilled" && r.value.applied);
      const lost = [edited, plain].find((r) => r.status === "rejected");
      expect(won).toHaveLength(1);
      expect((lost as PromiseRejectedResult | undefined)?.reason).toMatchObject({
        data: { code: "CONFLICT" },
        message: expect.stringMatching(/^approval \S+ was already answered \(approved by (ada|bea)(, with edited arguments)?\): this answer was not applied$/),
      });
      await s.events.next("turn_ended");
      const resolved = s.events.of("tool_approval_resolved");
      expect(resolved).toHaveLength(1);
      const editWon = edited.status === "fulfilled";
      expect(resolved[0]).toMatchObject({ by: editWon ? "ada" : "bea" });
      expect(s.events.of("tool_call_started")).toHaveLength(1);
      expect(fs.existsSync(path.join(c.workDir, "build"))).toBe(editWon);
      expect(fs.existsSync(path.join(c.workDir, "dist"))).toBe(false);
      await waitUntil(async () => (await ada.session.get.query({ sessionId: s.id })).session.status === "idle", 5000, "the session idle");
    }
  });
});

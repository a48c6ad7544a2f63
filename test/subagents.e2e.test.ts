import fs from "node:fs";
import path from "node:path";
import type { GatehouseClient } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { Cluster, Events } from "./support/cluster.js";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

const task = (agent: string, prompt: string) => ({ tool: "task", args: { agent, prompt } });

/** A scripted parent session that starts one subagent, subscribed to the parent's stream only. */
async function parentSession(c: Cluster, client: GatehouseClient, childSteps: unknown[], agent: string) {
  const scenario = c.scenario("parent", [{ text: "Delegating.", toolCalls: [task(agent, "do the thing")] }, { text: "The subagent said: {{lastResult}}" }], {
    [agent]: childSteps,
  });
  const info = await client.session.create.mutate({ workerId: "w1", scenario });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
  const created = await events.next("session_created", (e) => e.session.parentId === info.id);
  return { id: info.id, childId: created.session.id, child: created.session, events };
}

describe("subagents: their permissions", () => {
  it("an explore child is denied a write by the agent veto although the static rules allow it", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow"}`, files: { "a.txt": "alpha" } });
    const client = cluster.client();
    const s = await parentSession(
      cluster,
      client,
      [
        {
          text: "Reading, then writing.",
          toolCalls: [
            { tool: "read_file", args: { path: "a.txt" } },
            { tool: "write_file", args: { path: "notes.md", content: "x" } },
          ],
        },
        { text: "I read alpha; the write came back: {{lastResult}}" },
      ],
      "explore",
    );
    expect(s.child).toMatchObject({ agent: "explore", parentId: s.id, model: "scripted", workerId: "w1" });
    await s.events.next("turn_ended", (e) => e.sessionId === s.id, 10_000);
    const childResults = s.events.of("tool_result").filter((r) => r.sessionId === s.childId);
    expect(childResults.map((r) => [r.toolName, r.ok])).toEqual([
      ["read_file", true],
      ["write_file", false],
    ]);
    expect(childResults[1]!.output).toMatch(/^ToolDeniedError: .*the agent's veto/);
    expect(fs.existsSync(path.join(cluster.workDir, "notes.md"))).toBe(false);
    const parentResult = s.events.of("tool_result").find((r) => r.sessionId === s.id)!;
    expect(parentResult).toMatchObject({ toolName: "task", ok: true, output: expect.stringContaining("the agent's veto") });
    expect(s.events.of("turn_ended").map((e) => [e.sessionId === s.id ? "parent" : "child", e.reason])).toEqual([
      ["child", "completed"],
      ["parent", "completed"],
    ]);
    const explained = await client.permissions.explain.query({ workerId: "w1", sessionId: s.childId, tool: "write_file", args: { path: "notes.md" } });
    expect(explained.decision).toMatchObject({ action: "deny", layer: "agent", rule: { layer: "agent", tool: "*", pattern: "*" } });
  });

  it("the veto holds while the permissions file is invalid, when every other call asks", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow",, }` });
    const client = cluster.client();
    const scenario = cluster.scenario("parent", [{ toolCalls: [task("explore", "write notes")] }, { text: "{{lastResult}}" }], {
      explore: [{ toolCalls: [{ tool: "write_file", args: { path: "notes.md", content: "x" } }] }, { text: "the write: {{lastResult}}" }],
    });
    const info = await client.session.create.mutate({ workerId: "w1", scenario });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    const ask = await events.next("tool_approval_required");
    expect(ask).toMatchObject({ toolName: "task", reason: expect.stringContaining("the permissions file is invalid") });
    await client.tool.approve.mutate({ sessionId: info.id, approvalId: ask.approvalId });
    await events.next("turn_ended", (e) => e.sessionId === info.id, 10_000);
    expect(events.of("tool_approval_required")).toHaveLength(1);
    const write = events.of("tool_result").find((r) => r.toolName === "write_file")!;
    expect(write).toMatchObject({ ok: false, output: expect.stringMatching(/^ToolDeniedError: .*the agent's veto/) });
    expect(fs.existsSync(path.join(cluster.workDir, "notes.md"))).toBe(false);
  });

  it("a child's ask reaches the parent's stream with the child's session id and is answered there", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow", "write_file": "ask"}` });
    const client = cluster.client();
    const s = await parentSession(
      cluster,
      client,
      [{ text: "Writing.", toolCalls: [{ tool: "write_file", args: { path: "out.txt", content: "from the child" } }] }, { text: "Wrote out.txt." }],
      "general",
    );
    const ask = await s.events.next("tool_approval_required");
    expect(ask).toMatchObject({ sessionId: s.childId, toolName: "write_file" });
    expect(await client.tool.approve.mutate({ sessionId: ask.sessionId, approvalId: ask.approvalId })).toEqual({ applied: true });
    await s.events.next("turn_ended", (e) => e.sessionId === s.id, 10_000);
    expect(fs.readFileSync(path.join(cluster.workDir, "out.txt"), "utf8")).toBe("from the child");
    expect(s.events.of("assistant_message").at(-1)).toMatchObject({ sessionId: s.id, message: { text: "The subagent said: Wrote out.txt." } });
    const late = new Events(cluster.client(), { sessionId: s.id, lastEventId: "0" });
    await late.next("turn_ended", (e) => e.sessionId === s.id);
    expect(late.of("tool_approval_required").map((e) => e.sessionId)).toEqual([s.childId]);
  });

  it("a client that connects while a child waits gets the child's pending approval with the parent's", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow", "write_file": "ask"}` });
    const client = cluster.client();
    const s = await parentSession(cluster, client, [{ toolCalls: [{ tool: "write_file", args: { path: "o.txt", content: "1" } }] }], "general");
    const ask = await s.events.next("tool_approval_required");
    const other = new Events(cluster.client(), { sessionId: s.id });
    expect((await other.next("tool_approval_required")).approvalId).toBe(ask.approvalId);
  });

  it("aborting the parent aborts its running child: the pending ask is cancelled and the child's command killed", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow", "write_file": "ask"}` });
    const client = cluster.client();
    const s = await parentSession(
      cluster,
      client,
      [
        {
          toolCalls: [
            { tool: "write_file", args: { path: "never.txt", content: "no" } },
            { tool: "shell_exec", args: { command: "sleep 30" } },
          ],
        },
      ],
      "general",
    );
    const ask = await s.events.next("tool_approval_required");
    const started = Date.now();
    expect(await client.agent.abort.mutate({ sessionId: s.id })).toEqual({ aborted: true });
    await s.events.next("turn_ended", (e) => e.sessionId === s.id);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.events.of("tool_approval_resolved")).toMatchObject([{ approvalId: ask.approvalId, sessionId: s.childId, outcome: "cancelled" }]);
    expect(s.events.of("turn_ended").map((e) => [e.sessionId === s.id ? "parent" : "child", e.reason])).toEqual([
      ["child", "aborted"],
      ["parent", "aborted"],
    ]);
    expect(fs.existsSync(path.join(cluster.workDir, "never.txt"))).toBe(false);
  });

  it("aborting the parent kills a command its child is running", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow"}` });
    const client = cluster.client();
    const s = await parentSession(cluster, client, [{ toolCalls: [{ tool: "shell_exec", args: { command: "sleep 30" } }] }], "general");
    await s.events.next("tool_call_started", (e) => e.sessionId === s.childId && e.toolName === "shell_exec");
    const started = Date.now();
    await client.agent.abort.mutate({ sessionId: s.id });
    await s.events.next("turn_ended", (e) => e.sessionId === s.id);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.events.of("tool_result").find((r) => r.sessionId === s.childId)).toMatchObject({ ok: false });
  });

  it("a subagent may not start subagents unless its agent type, from the worker's agents folder, says it may", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow"}` });
    const configured = path.join(cluster.root, "agents-conf");
    fs.mkdirSync(configured);
    fs.writeFileSync(
      path.join(configured, "planner.md"),
      "---\ndescription: Plans work and hands parts to explore agents.\nmay-spawn: true\n---\nPlan, then delegate.\n",
    );
    await cluster.killWorker();
    await cluster.startWorker(["--agents", configured]);
    const client = cluster.client();
    const s = await parentSession(cluster, client, [{ toolCalls: [task("explore", "look around")] }, { text: "general child: {{lastResult}}" }], "general");
    await s.events.next("turn_ended", (e) => e.sessionId === s.id, 10_000);
    const refused = s.events.of("tool_result").find((r) => r.sessionId === s.childId)!;
    expect(refused).toMatchObject({ toolName: "task", ok: false, output: expect.stringMatching(/the agent's veto/) });
    expect(s.events.of("session_created").filter((e) => e.session.parentId === s.childId)).toEqual([]);

    const planner = await parentSession(cluster, client, [{ toolCalls: [task("explore", "look around")] }, { text: "planner: {{lastResult}}" }], "planner");
    await planner.events.next("turn_ended", (e) => e.sessionId === planner.id, 10_000);
    const grandchild = planner.events.of("session_created").find((e) => e.session.parentId === planner.childId);
    expect(grandchild?.session).toMatchObject({ agent: "explore" });
    expect(planner.events.of("tool_result").find((r) => r.sessionId === planner.childId)).toMatchObject({ toolName: "task", ok: true });
  });

  it("a task naming an unknown agent type is answered with the types there are", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow"}` });
    const client = cluster.client();
    const scenario = cluster.scenario("p", [{ toolCalls: [task("wizard", "x")] }, { text: "{{lastResult}}" }]);
    const info = await client.session.create.mutate({ workerId: "w1", scenario });
    const events = new Events(client, { sessionId: info.id });
    await new Promise((r) => setTimeout(r, 100));
    await client.agent.prompt.mutate({ sessionId: info.id, text: "go" });
    await events.next("turn_ended");
    expect(events.of("tool_result")[0]!.output).toBe('ToolError: task failed: no agent type named "wizard"; the agents are explore, general');
  });

  it("a subagent session takes no prompts of its own", async () => {
    cluster = await Cluster.start({ rules: `{"*": "allow", "write_file": "ask"}` });
    const client = cluster.client();
    const s = await parentSession(cluster, client, [{ toolCalls: [{ tool: "write_file", args: { path: "o.txt", content: "1" } }] }], "general");
    await expect(client.agent.prompt.mutate({ sessionId: s.childId, text: "hi" })).rejects.toThrow(`session ${s.childId} is a subagent of session ${s.id}`);
  });
});

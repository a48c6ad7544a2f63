import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GatehouseEvent } from "@gatehouse/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, Cluster, Events, waitUntil } from "./support/cluster.js";

const BIN = path.resolve(import.meta.dirname, "../apps/cli/bin/gatehouse.js");

let cluster: Cluster | undefined;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gh-restart-"));
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.log(cluster?.serverLog.slice(-30).join("\n"));
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

/** A cluster whose server plays `steps` for every session, from the config, so a restarted server plays them on. */
async function clusterPlaying(name: string, steps: unknown[], rules: string) {
  const scenario = path.join(scratch, `${name}.json`);
  fs.writeFileSync(scenario, JSON.stringify({ name, steps }));
  cluster = await Cluster.start({ rules, config: { scenario } });
  return cluster;
}

const ids = (list: { id: string }[]) => list.map((e) => Number(e.id));

describe("the server restarted with kill -9 (embedded store)", { timeout: 60_000 }, () => {
  it("keeps a pending approval answerable; approved, the call runs and the turn completes; a client resumes by lastEventId with nothing missed or twice", async () => {
    const c = await clusterPlaying(
      "pending",
      [
        { text: "First.", toolCalls: [shell("sleep 0")] },
        { text: "Working.", toolCalls: [shell("echo one"), shell("touch approved.txt"), shell("echo three")] },
        { text: "Done: {{lastResult}}" },
      ],
      `{ "*": "ask", "shell_exec": { "echo *": "allow" } }`,
    );
    const before = c.client();
    const s = await before.session.create.mutate({ workerId: "w1", agent: "general" });
    const seen = new Events(before, { sessionId: s.id });
    await before.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const first = await seen.next("tool_approval_required");
    await before.tool.approve.mutate({ sessionId: s.id, approvalId: first.approvalId, scope: "session", pattern: "sleep *" });
    const ask = await seen.next("tool_approval_required", (e) => e.approvalId !== first.approvalId);
    await seen.next("tool_result", (e) => e.output.startsWith("one"));
    const lastSeen = seen.lastId()!;
    seen.close();

    await c.restartServer();
    const after = c.client();
    const resumed = new Events(after, { sessionId: s.id, lastEventId: lastSeen });
    const again = await resumed.next("tool_approval_required", () => true, 15_000);
    expect(again).toEqual(ask);
    // The session's rule from before the restart still holds.
    await waitUntil(async () => (await after.workers.list.query()).some((w) => w.connected), 15_000, "the worker to come back");
    const explained = await after.permissions.explain.query({ workerId: "w1", sessionId: s.id, tool: "shell_exec", args: { command: "sleep 1" } });
    expect(explained.decision, JSON.stringify(explained.decision)).toMatchObject({ action: "allow", layer: "runtime" });
    expect(await after.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    await resumed.next("turn_ended", (e) => e.reason === "completed", 15_000);
    expect(fs.existsSync(path.join(c.workDir, "approved.txt"))).toBe(true);
    expect(resumed.of("tool_result").map((r) => [r.toolName, r.outcome])).toEqual([
      ["shell_exec", "ok"],
      ["shell_exec", "ok"],
    ]);
    expect((resumed.of("assistant_message").at(-1)!.message as { text: string }).text).toBe("Done: three\n\nexit code: 0");

    // The pending approval is shown again under its own id; every other event comes once, in order, after what was seen.
    const later = resumed.list.slice(1);
    expect(resumed.list[0]!.id).toBe(seen.list.find((e) => e.event.type === "tool_approval_required" && e.event.approvalId === ask.approvalId)!.id);
    expect(ids(later)).toEqual([...new Set(ids(later))].sort((a, b) => a - b));
    expect(Math.min(...ids(later))).toBeGreaterThan(Number(lastSeen));
    const whole = new Events(after, { sessionId: s.id, lastEventId: "0" });
    await waitUntil(() => whole.of("turn_ended").length === 1, 5000, "the whole log");
    expect(ids(whole.list).filter((id) => id > Number(lastSeen))).toEqual(ids(later));
    expect(ids(whole.list)).toEqual(expect.arrayContaining(ids(seen.list)));

    const history = await after.session.get.query({ sessionId: s.id });
    expect(history.session.status).toBe("idle");
    expect(history.history.filter((m) => m.role === "tool")).toHaveLength(4);

    // The audit log, from before and after the restart, by `gatehouse audit`.
    const audit = (...flags: string[]) =>
      execFileSync(process.execPath, [BIN, "audit", "--server", c.url, "--token", CLIENT_TOKEN, "--session", s.id, "--json", ...flags], { encoding: "utf8" })
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { action: string; toolName: string; arguments: string; by?: string });
    expect(
      audit().map((e) => [e.action, JSON.parse(e.arguments).command]),
      JSON.stringify(audit()),
    ).toEqual([
      ["ask", "sleep 0"],
      ["approved", "sleep 0"],
      ["ask", "touch approved.txt"],
      ["allow", "echo one"],
      ["approved", "touch approved.txt"],
      ["allow", "echo three"],
    ]);
    expect(audit("--action", "approved", "--limit", "1")).toMatchObject([{ by: "ada", arguments: JSON.stringify({ command: "touch approved.txt" }) }]);
  });

  it("fails a call that was running when the server died, tells the model, and ends the turn", async () => {
    const c = await clusterPlaying(
      "running",
      [{ text: "Sleeping.", toolCalls: [shell("sleep 30")] }, { text: "Told: {{lastResult}}" }],
      `{ "shell_exec": "allow" }`,
    );
    const client = c.client();
    const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    const seen = new Events(client, { sessionId: s.id });
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await seen.next("tool_call_started");
    await new Promise((r) => setTimeout(r, 200));

    await c.restartServer();
    const ended = await seen.next("turn_ended", () => true, 20_000);
    expect(ended.reason).toBe("completed");
    const result = seen.of("tool_result")[0]!;
    expect(result).toMatchObject({ outcome: "failed", ok: false });
    expect(result.output).toContain("the server running it stopped before the tool finished");
    const told = (seen.of("assistant_message").at(-1)!.message as { text: string }).text;
    expect(told).toContain("Told: ToolError: shell_exec failed: the server running it stopped before the tool finished");
    expect(seen.of("tool_call_started")).toHaveLength(1);
    const types = seen.list.map((e) => e.event.type as GatehouseEvent["type"]);
    expect(types.filter((t) => t === "turn_ended")).toHaveLength(1);
    expect((await client.session.list.query()).find((x) => x.id === s.id)?.status).toBe("idle");
  });

  it("ends a subagent that was running when the server died: its task call fails, it is closed and the parent's turn goes on", async () => {
    const c = await clusterPlaying(
      "subagent",
      [{ text: "Delegating.", toolCalls: [{ tool: "task", args: { agent: "general", prompt: "sleep" } }] }, { text: "Told: {{lastResult}}" }],
      `{ "*": "allow" }`,
    );
    const scenario = JSON.parse(fs.readFileSync(path.join(scratch, "subagent.json"), "utf8"));
    scenario.agents = { general: { steps: [{ toolCalls: [shell("sleep 30")] }, { text: "slept" }] } };
    fs.writeFileSync(path.join(scratch, "subagent.json"), JSON.stringify(scenario));
    const client = c.client();
    const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    const seen = new Events(client, { sessionId: s.id });
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const child = (await seen.next("session_created", (e) => e.session.parentId === s.id)).session;
    await seen.next("tool_call_started", (e) => e.sessionId === child.id);

    await c.restartServer();
    const ended = await seen.next("turn_ended", (e) => e.sessionId === s.id, 20_000);
    expect(ended.reason).toBe("completed");
    expect(seen.of("tool_result").find((r) => r.sessionId === s.id)).toMatchObject({ toolName: "task", outcome: "failed" });
    expect(seen.of("turn_ended").filter((e) => e.sessionId === child.id)).toMatchObject([{ reason: "aborted" }]);
    expect(seen.of("session_error").find((e) => e.sessionId === child.id)?.message).toMatch(/the server running this subagent stopped/);
    expect((await client.session.get.query({ sessionId: child.id })).session.status).toBe("closed");
  });
});

import fs from "node:fs";
import path from "node:path";
import { parseRulesOrThrow } from "@gatehouse/policy";
import type { GatehouseClient } from "@gatehouse/protocol";
import { createNodeClient } from "@gatehouse/protocol/node";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, Cluster, Events, waitUntil, WORKER_TOKEN } from "./support/cluster.js";
import { Proxy } from "./support/proxy.js";
import { processesWith, processGone } from "./support/process.js";

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

async function session(c: Cluster, client: GatehouseClient, steps: unknown[], name = "s") {
  const info = await client.session.create.mutate({ workerId: "w1", scenario: c.scenario(name, steps) });
  const events = new Events(client, { sessionId: info.id });
  await new Promise((r) => setTimeout(r, 100));
  return { id: info.id, events };
}

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

/**
 * A cluster whose session is running `sleep 30` under bash; the host pids of every process of the
 * call (the sandbox's, the bash and the sleep), found by a marker in their command lines since
 * pids inside the sandbox are its own.
 */
async function runningSleep() {
  const c = (cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow", "write_file": "allow"}` }));
  const client = c.client();
  const marker = `30.${Date.now() % 100000}1`;
  const s = await session(c, client, [{ text: "x", toolCalls: [shell(`sleep ${marker} & echo started > sleep.pid; wait`)] }]);
  await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
  const pidFile = path.join(c.workDir, "sleep.pid");
  await waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim() !== "", 5000, "the sleep to start");
  const pids = processesWith(`sleep ${marker}`);
  expect(pids.length).toBeGreaterThanOrEqual(2);
  return { client, s, pids };
}

describe("the approval lifecycle", () => {
  it("allows, denies and asks; an approval once runs the call and the model sees its result", async () => {
    cluster = await Cluster.start({ files: { "a.txt": "hello from a", ".env": "KEY=secret" } });
    const client = cluster.client();
    const s = await session(cluster, client, [
      {
        text: "Working.",
        toolCalls: [{ tool: "read_file", args: { path: "a.txt" } }, { tool: "read_file", args: { path: ".env" } }, shell("echo approved-$((1+1))")],
      },
      { text: "Result: {{lastResult}}" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    expect(ask).toMatchObject({
      toolName: "shell_exec",
      arguments: JSON.stringify({ command: "echo approved-$((1+1))" }),
      tier: "exec",
      suggestedPattern: "echo *",
      batch: { index: 2, total: 3, remaining: [] },
    });
    expect(ask.presentation).toMatchObject({ kind: "command", content: "echo approved-$((1+1))", cwd: cluster.workDir });
    expect(ask.decision.rule).toMatchObject({ tool: "shell_exec", pattern: "*", file: cluster.rulesFile });
    await waitUntil(() => s.events.of("tool_result").length === 2, 5000, "the two reads");
    const results = s.events.of("tool_result");
    expect(results[0]).toMatchObject({ toolName: "read_file", ok: true, output: "hello from a" });
    expect(results[1]!.output).toMatch(/^ToolDeniedError: .*\*\.env/);
    expect(results.map((r) => r.outcome)).toEqual(["ok", "denied"]);
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    await s.events.next("turn_ended", (e) => e.reason === "completed");
    expect(s.events.of("tool_result")[2]).toMatchObject({ ok: true, output: expect.stringContaining("approved-2") });
    expect(s.events.of("tool_result")[2]).toMatchObject({ outcome: "ok", output: "approved-2\n", exitCode: 0 });
    expect(s.events.of("assistant_message").at(-1)!.message).toMatchObject({ text: expect.stringContaining("Result: approved-2") });
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId })).toEqual({ applied: false });
  });

  it("approve always: the rule is appended with comments kept, later calls run, and a second pending call resolves by cascade", async () => {
    cluster = await Cluster.start();
    const client = cluster.client();
    const s = await session(cluster, client, [
      { text: "Two.", toolCalls: [shell("echo one"), shell("echo two")] },
      { text: "Three.", toolCalls: [shell("echo three")] },
      { text: "done" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await waitUntil(() => s.events.of("tool_approval_required").length === 2, 5000, "two approvals");
    const first = s.events.of("tool_approval_required")[0]!;
    // A pattern that would match every command is never saved, whoever types it; the approval stays pending.
    for (const pattern of ["*", "**", "sudo *", "bash *"]) {
      await expect(client.tool.approve.mutate({ sessionId: s.id, approvalId: first.approvalId, scope: "always", pattern })).rejects.toThrow(/never saved/);
    }
    expect(fs.readFileSync(cluster.rulesFile, "utf8")).not.toMatch(/approved by/);
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: first.approvalId, scope: "always" })).toEqual({ applied: true });
    await s.events.next("turn_ended");
    const resolved = s.events.of("tool_approval_resolved");
    expect(resolved.map((r) => [r.outcome, r.by])).toEqual([
      ["approved", "ada"],
      ["approved", "cascade"],
    ]);
    expect(s.events.of("tool_approval_required")).toHaveLength(2);
    expect(s.events.of("tool_result").map((r) => r.output.split("\n")[0])).toEqual(["one", "two", "three"]);
    const text = fs.readFileSync(cluster.rulesFile, "utf8");
    expect(text).toContain("// Gatehouse tool permissions for this worker.");
    expect(text).toMatch(/"echo \*": "allow" \/\/ approved by ada/);
    const rules = parseRulesOrThrow(text, { file: "p", home: "/" });
    // The last rule of its tool: the default rules' network entry may follow it.
    expect(rules.filter((r) => r.tool === "shell_exec").at(-1)).toMatchObject({ tool: "shell_exec", pattern: "echo *", origin: "approval" });
  });

  it("deny soft: the feedback reaches the model as the tool result, and the turn goes on", async () => {
    cluster = await Cluster.start();
    const client = cluster.client();
    const s = await session(cluster, client, [
      { text: "Touching.", toolCalls: [shell("touch forbidden.txt")] },
      { when: { resultContains: "Feedback" }, text: "Understood, I was told: {{lastResult}}" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    expect(await client.tool.deny.mutate({ sessionId: s.id, approvalId: ask.approvalId, feedback: "use notes.txt instead" })).toEqual({ applied: true });
    await s.events.next("turn_ended", (e) => e.reason === "completed");
    expect(s.events.of("assistant_message").at(-1)!.message).toMatchObject({ text: expect.stringContaining("Feedback: use notes.txt instead") });
    expect(fs.existsSync(path.join(cluster.workDir, "forbidden.txt"))).toBe(false);
  });

  it("deny hard: the rest of the batch is rejected, its pending asks cancelled, and the turn ends", async () => {
    cluster = await Cluster.start({ files: { "a.txt": "A" } });
    const client = cluster.client();
    const s = await session(cluster, client, [
      { text: "Batch.", toolCalls: [shell("echo first"), { tool: "read_file", args: { path: "a.txt" } }, shell("echo third")] },
      { text: "this step must not be played" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    expect(ask.batch).toEqual({
      index: 0,
      total: 3,
      remaining: [
        { toolName: "read_file", arguments: JSON.stringify({ path: "a.txt" }) },
        { toolName: "shell_exec", arguments: JSON.stringify({ command: "echo third" }) },
      ],
    });
    const third = await s.events.next("tool_approval_required", (e) => e.batch.index === 2);
    await client.tool.deny.mutate({ sessionId: s.id, approvalId: ask.approvalId, mode: "hard", feedback: "stop" });
    await s.events.next("turn_ended", (e) => e.reason === "rejected");
    const results = s.events.of("tool_result");
    expect(results[0]!.output).toContain("Feedback: stop");
    expect(results[1]!.output).toMatch(/rejected an earlier call of this batch/);
    expect(results.map((r) => r.outcome)).toEqual(["rejected", "rejected", "rejected"]);
    expect(s.events.of("tool_approval_resolved").find((e) => e.approvalId === third.approvalId)).toMatchObject({ outcome: "cancelled" });
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: third.approvalId })).toEqual({ applied: false });
    expect(s.events.of("assistant_message")).toHaveLength(1);
  });

  it("a second client sees the resolution made by the first", async () => {
    cluster = await Cluster.start();
    const a = cluster.client();
    const b = cluster.client();
    const s = await session(cluster, a, [{ text: "x", toolCalls: [shell("echo hi")] }]);
    const seenByB = new Events(b, { sessionId: s.id });
    await a.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await seenByB.next("tool_approval_required");
    await a.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    expect(await seenByB.next("tool_approval_resolved")).toMatchObject({ approvalId: ask.approvalId, outcome: "approved", by: "ada", scope: "once" });
    seenByB.close();
  });

  it("a client that comes back gets the pending approval again and what it missed since lastEventId", async () => {
    cluster = await Cluster.start();
    const a = cluster.client();
    const s = await session(cluster, a, [{ text: "x", toolCalls: [shell("echo hi")] }, { text: "after" }]);
    await a.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    const userMessageId = s.events.list.find((e) => e.event.type === "user_message")!.id;
    const fresh = new Events(cluster.client(), { sessionId: s.id });
    expect(await fresh.next("tool_approval_required")).toMatchObject({ approvalId: ask.approvalId });
    const resumed = new Events(cluster.client(), { sessionId: s.id, lastEventId: userMessageId });
    await resumed.next("tool_approval_required");
    const types = resumed.list.map((e) => e.event.type);
    expect(types.filter((t) => t === "tool_approval_required")).toHaveLength(1);
    expect(types).toContain("assistant_message");
    expect(types).not.toContain("user_message");
    expect(resumed.list.map((e) => Number(e.id))).toEqual([...resumed.list.map((e) => Number(e.id))].sort((x, y) => x - y));
    fresh.close();
    resumed.close();
  });
});

describe("a client whose connection drops", () => {
  it("reconnects by itself and resumes from its last event: nothing missed, nothing twice", async () => {
    cluster = await Cluster.start();
    const proxy = await Proxy.start(cluster.port);
    let drops = 0;
    const dropped = createNodeClient({ url: proxy.url, token: CLIENT_TOKEN, retryDelayMs: () => 100, onClose: () => drops++ });
    cluster.clients.push(dropped);
    const direct = cluster.client();
    const s = await session(cluster, direct, [{ text: "x", toolCalls: [shell("echo one")] }, { text: "y", toolCalls: [shell("echo two")] }, { text: "done" }]);
    const seen = new Events(dropped, { sessionId: s.id });
    await direct.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const first = await seen.next("tool_approval_required");
    proxy.cut();
    expect(await direct.tool.approve.mutate({ sessionId: s.id, approvalId: first.approvalId })).toEqual({ applied: true });
    const second = await s.events.next("tool_approval_required", (e) => e.approvalId !== first.approvalId);
    expect(await seen.next("tool_approval_required", (e) => e.approvalId === second.approvalId)).toBeTruthy();
    expect(drops).toBeGreaterThan(0);
    await direct.tool.approve.mutate({ sessionId: s.id, approvalId: second.approvalId });
    await s.events.next("turn_ended");
    await seen.next("turn_ended");
    const ids = seen.list.map((e) => e.id);
    const all = s.events.list.map((e) => e.id);
    expect(ids).toEqual(all.slice(all.indexOf(ids[0]!)));
    seen.close();
    await proxy.close();
  });
});

describe("abort and failures", () => {
  it("abort during a pending approval cancels it and ends the turn", async () => {
    cluster = await Cluster.start();
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "x", toolCalls: [shell("echo hi")] }]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    expect(await client.agent.abort.mutate({ sessionId: s.id })).toEqual({ aborted: true });
    expect(await s.events.next("tool_approval_resolved")).toMatchObject({ approvalId: ask.approvalId, outcome: "cancelled" });
    await s.events.next("turn_ended", (e) => e.reason === "aborted");
    expect(await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId })).toEqual({ applied: false });
  });

  it("abort during a running sleep kills its whole process group", async () => {
    const { client, s, pids } = await runningSleep();
    await client.agent.abort.mutate({ sessionId: s.id });
    await s.events.next("turn_ended", (e) => e.reason === "aborted");
    await waitUntil(() => pids.every(processGone), 3000, "the shell and the sleep to be gone");
  });

  it("a worker killed with SIGKILL mid-call: the call fails within 2 s and pending approvals are cancelled", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": {"*": "ask", "sleep *": "allow"}}` });
    const client = cluster.client();
    const running = await session(cluster, client, [{ text: "x", toolCalls: [shell("sleep 30")] }], "running");
    const waiting = await session(cluster, client, [{ text: "y", toolCalls: [shell("echo held")] }], "waiting");
    await client.agent.prompt.mutate({ sessionId: waiting.id, text: "go" });
    const ask = await waiting.events.next("tool_approval_required");
    await client.agent.prompt.mutate({ sessionId: running.id, text: "go" });
    await running.events.next("tool_call_started");
    const killedAt = Date.now();
    cluster.worker!.kill("SIGKILL");
    const failed = await running.events.next("tool_result", () => true, 2000);
    expect(Date.now() - killedAt).toBeLessThan(2000);
    expect(failed).toMatchObject({ ok: false, output: expect.stringMatching(/worker w1 disconnected/) });
    expect(failed.outcome).toBe("failed");
    await running.events.next("worker_disconnected");
    expect(await waiting.events.next("tool_approval_resolved", () => true, 2000)).toMatchObject({ approvalId: ask.approvalId, outcome: "cancelled" });
  });
});

describe("a lost connection", () => {
  it("makes the worker kill the call it was running, not orphan it", async () => {
    const { pids } = await runningSleep();
    cluster!.server.kill("SIGKILL");
    await waitUntil(() => pids.every(processGone), 5000, "the worker to kill the shell and the sleep");
  });
});

describe("tokens", () => {
  it("refuses clients and workers with a missing or wrong token", async () => {
    cluster = await Cluster.start();
    for (const token of ["", "wrong-token-0000000000"]) {
      const bad = cluster.client(token);
      await expect(bad.session.list.query()).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
      await expect(bad.worker.heartbeat.mutate({ workerId: "w1" })).rejects.toMatchObject({ data: { code: "UNAUTHORIZED" } });
    }
    await expect(cluster.client(WORKER_TOKEN).session.list.query()).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
    await expect(cluster.client().worker.heartbeat.mutate({ workerId: "w1" })).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
  });
});

describe("answers under races", () => {
  it("of 100 concurrent approve and deny calls on one approval, exactly one applies", async () => {
    cluster = await Cluster.start();
    const clients = [cluster.client(), cluster.client(), cluster.client(), cluster.client()];
    const s = await session(cluster, clients[0]!, [{ text: "x", toolCalls: [shell("echo race")] }]);
    await clients[0]!.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await s.events.next("tool_approval_required");
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const c = clients[i % clients.length]!;
        const input = { sessionId: s.id, approvalId: ask.approvalId };
        return i % 2 === 0 ? c.tool.approve.mutate(input) : c.tool.deny.mutate(input);
      }),
    );
    expect(answers.filter((a) => a.applied)).toHaveLength(1);
    await s.events.next("turn_ended");
    expect(s.events.of("tool_approval_resolved")).toHaveLength(1);
  });
});

describe("malformed input", () => {
  it("is answered BAD_REQUEST naming the field, for every procedure", async () => {
    cluster = await Cluster.start();
    const c = cluster.client() as any;
    const w = createNodeClient({ url: cluster.url, token: WORKER_TOKEN }) as any;
    cluster.clients.push(w);
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => c.session.create.mutate({ workerId: 5 }), /workerId/],
      [() => c.session.create.mutate({ workerId: "w1", mode: "fast" }), /mode/],
      [() => c.session.get.query({}), /sessionId/],
      [() => c.session.setMode.mutate({ sessionId: "s", mode: "turbo" }), /mode/],
      [() => c.session.shell.mutate({ sessionId: "s" }), /command/],
      [() => c.agent.prompt.mutate({ sessionId: "s", text: 3 }), /text/],
      [() => c.agent.abort.mutate({}), /sessionId/],
      [() => c.tool.approve.mutate({ sessionId: "s" }), /approvalId/],
      [() => c.tool.approve.mutate({ sessionId: "s", approvalId: "a", scope: "forever" }), /scope/],
      [() => c.tool.deny.mutate({ sessionId: "s", approvalId: "a", mode: "gentle" }), /mode/],
      [() => c.tool.view.query({ sessionId: "s" }), /approvalId/],
      [() => c.permissions.get.query({}), /workerId/],
      [() => c.permissions.explain.query({ workerId: "w1" }), /tool/],
      [() => w.worker.register.mutate({ workerId: "w1", workDir: "relative", tools: [] }), /workDir/],
      [() => w.worker.result.mutate({ workerId: "w1", ok: true, output: "" }), /requestId/],
      [() => w.worker.heartbeat.mutate({}), /workerId/],
    ];
    for (const [call, field] of cases) {
      const err = await call().then(
        () => null,
        (e: { message: string; data?: { code?: string } }) => e,
      );
      expect(err, String(field)).not.toBeNull();
      expect(err!.data?.code, `${field}: ${err!.message}`).toBe("BAD_REQUEST");
      expect(err!.message).toMatch(field);
    }
    const sub = await new Promise<{ message: string; data?: { code?: string } }>((resolve) => {
      c.agent.onEvents.subscribe({ sessionId: 7 }, { onError: resolve, onData: () => undefined });
    });
    expect(sub.data?.code).toBe("BAD_REQUEST");
    expect(sub.message).toMatch(/sessionId/);
  });

  it("says NOT_FOUND for unknown sessions and workers, in its own words", async () => {
    cluster = await Cluster.start();
    const c = cluster.client();
    await expect(c.session.get.query({ sessionId: "nope" })).rejects.toMatchObject({ message: "session nope does not exist", data: { code: "NOT_FOUND" } });
    await expect(c.session.create.mutate({ workerId: "ghost" })).rejects.toMatchObject({ message: "worker ghost has not registered" });
  });
});

describe("sessions, modes and the permissions file", () => {
  it("session.shell runs the person's own command without the gate, and records it", async () => {
    cluster = await Cluster.start();
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "idle" }]);
    const out = await client.session.shell.mutate({ sessionId: s.id, command: "echo typed > typed.txt; cat typed.txt; exit 4" });
    expect(out).toEqual({ exitCode: 4, stdout: "typed\n", stderr: "" });
    expect(await s.events.next("shell_command")).toMatchObject({
      command: "echo typed > typed.txt; cat typed.txt; exit 4",
      exitCode: 4,
      output: "typed\n",
      stderr: "",
      by: "ada",
    });
    expect(s.events.of("tool_approval_required")).toHaveLength(0);
    const started = s.events.of("shell_started")[0]!;
    expect(started).toMatchObject({ command: "echo typed > typed.txt; cat typed.txt; exit 4", by: "ada" });
    expect(s.events.of("shell_output").map((e) => [e.commandId, e.text])).toEqual([[started.commandId, "typed\n"]]);
    expect(s.events.of("shell_command")[0]!.commandId).toBe(started.commandId);

    // Abort stops the person's running command too; what it printed is recorded with how it ended.
    const running = client.session.shell.mutate({ sessionId: s.id, command: "echo before-abort; sleep 30" });
    await s.events.next("shell_output", (e) => e.text.includes("before-abort"));
    expect(await client.agent.abort.mutate({ sessionId: s.id })).toEqual({ aborted: true });
    expect(await running).toEqual({ exitCode: null, stdout: "before-abort\n", stderr: "" });
    expect(await s.events.next("shell_command", (e) => e.command.includes("before-abort"))).toMatchObject({
      exitCode: null,
      output: "before-abort\n[aborted by ada; the process group was killed]",
    });
  });

  it("setMode applies to pending approvals and later calls", async () => {
    cluster = await Cluster.start();
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "x", toolCalls: [shell("echo one")] }, { text: "y", toolCalls: [shell("echo two")] }, { text: "done" }]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await s.events.next("tool_approval_required");
    expect(await client.session.setMode.mutate({ sessionId: s.id, mode: "yolo" })).toEqual({ applied: true });
    await s.events.next("turn_ended", (e) => e.reason === "completed");
    expect(s.events.of("tool_approval_resolved")[0]).toMatchObject({ outcome: "approved", by: "cascade" });
    expect(s.events.of("tool_approval_required")).toHaveLength(1);
    expect((await client.session.get.query({ sessionId: s.id })).session.mode).toBe("yolo");
  });

  it("an invalid permissions file makes every call ask and says where; a fix takes effect without a restart", async () => {
    cluster = await Cluster.start({ files: { "a.txt": "A" } });
    const client = cluster.client();
    fs.mkdirSync(path.dirname(cluster.rulesFile), { recursive: true });
    fs.writeFileSync(cluster.rulesFile, `{\n  "read_file": "alow"\n}\n`);
    const s = await session(cluster, client, [
      { text: "x", toolCalls: [{ tool: "read_file", args: { path: "a.txt" } }] },
      { text: "y", toolCalls: [{ tool: "read_file", args: { path: "a.txt" } }] },
      { text: "done" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const invalid = await s.events.next("permissions_invalid");
    expect(invalid).toMatchObject({ workerId: "w1", file: cluster.rulesFile, line: 2, column: 16, message: expect.stringContaining('unknown action "alow"') });
    const ask = await s.events.next("tool_approval_required");
    expect(ask.reason).toMatch(/permissions file is invalid/);
    fs.writeFileSync(cluster.rulesFile, `{\n  "read_file": "allow"\n}\n`);
    await client.tool.approve.mutate({ sessionId: s.id, approvalId: ask.approvalId });
    await s.events.next("turn_ended");
    expect(s.events.of("tool_approval_required")).toHaveLength(1);
    expect(s.events.of("tool_result").map((r) => r.output)).toEqual(["A", "A"]);
  });

  it("a pending approval times out when the server says so, and the model is told", async () => {
    cluster = await Cluster.start({ approvalTimeoutMs: 300 });
    const client = cluster.client();
    const s = await session(cluster, client, [{ text: "x", toolCalls: [shell("echo late")] }, { text: "told: {{lastResult}}" }]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    expect(await s.events.next("tool_approval_resolved")).toMatchObject({ outcome: "timed_out" });
    await s.events.next("turn_ended");
    expect(s.events.of("tool_result")[0]!.outcome).toBe("timed_out");
    expect(s.events.of("assistant_message").at(-1)!.message).toMatchObject({ text: expect.stringContaining("nobody answered the approval request") });
  });

  it("shows a unified diff of the worker's current file for writes and edits, cut to a readable size; tool.view gives it whole", async () => {
    const long = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n");
    cluster = await Cluster.start({ rules: `{"*": "ask", "read_file": "allow"}`, files: { "notes.md": "alpha\nbeta\ngamma\n" } });
    const client = cluster.client();
    const s = await session(cluster, client, [
      {
        text: "x",
        toolCalls: [
          { tool: "edit_file", args: { path: "notes.md", old_string: "beta", new_string: "BETA" } },
          { tool: "write_file", args: { path: "big.txt", content: long } },
          { tool: "edit_file", args: { path: "notes.md", old_string: "delta", new_string: "D" } },
        ],
      },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await waitUntil(() => s.events.of("tool_approval_required").length === 3, 5000, "three approvals");
    const [edit, write, missing] = s.events.of("tool_approval_required");
    expect(missing!.presentation).toMatchObject({
      kind: "text",
      content: expect.stringContaining("edit_file notes.md: old_string is not in the file as it is now"),
    });
    const whole = await client.tool.view.query({ sessionId: s.id, approvalId: write!.approvalId });
    expect(whole).toMatchObject({ kind: "diff", truncated: false, fullSize: whole!.content.length });
    expect(whole!.content).toContain("+line 999");
    await expect(client.tool.view.query({ sessionId: s.id, approvalId: "no-such-approval" })).rejects.toMatchObject({ data: { code: "NOT_FOUND" } });
    expect(edit!.presentation).toMatchObject({ kind: "diff", truncated: false });
    expect(edit!.presentation!.content).toContain("--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma");
    expect(write!.presentation).toMatchObject({ kind: "diff", truncated: true });
    expect(write!.presentation!.content).toMatch(/… \(cut: \d+ characters, \d+ lines in all\)$/);
    expect(write!.presentation!.fullSize).toBeGreaterThan(write!.presentation!.content.length);
  });

  it("a worker that comes back under the same id serves its sessions again", async () => {
    cluster = await Cluster.start({ rules: `{"*": "ask", "shell_exec": "allow"}` });
    const client = cluster.client();
    const s = await session(cluster, client, [
      { text: "x", toolCalls: [shell("echo before")] },
      { text: "a" },
      { text: "y", toolCalls: [shell("echo after")] },
      { text: "b" },
    ]);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await s.events.next("turn_ended");
    cluster.worker!.kill("SIGKILL");
    await s.events.next("worker_disconnected");
    await cluster.startWorker();
    await s.events.next("worker_connected", () => true);
    await client.agent.prompt.mutate({ sessionId: s.id, text: "again" });
    await waitUntil(() => s.events.of("turn_ended").length === 2, 5000, "the second turn");
    expect(s.events.of("tool_result").map((r) => r.output.split("\n")[0])).toEqual(["before", "after"]);
  });
});

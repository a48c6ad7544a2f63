import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Events, waitUntil } from "./support/cluster.js";
import { Instances } from "./support/instances.js";
import { TestPostgres } from "./support/postgres.js";

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await TestPostgres.start();
}, 60_000);
afterAll(() => postgres?.stop());

const RULES = `{"*": "ask", "read_file": "allow"}`;
const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const lastAnswer = (events: Events) => JSON.stringify(events.of("assistant_message").at(-1)?.message);

describe("several server instances on one PostgreSQL database", () => {
  let set: Instances;
  beforeAll(async () => {
    set = await Instances.start(await postgres.database(), ["a", "b"], { rules: RULES });
    await set.worker("w1", "a");
    await set.worker("w2", "b");
  }, 60_000);
  afterAll(() => set?.stop());

  it("share sessions, events, workers and answers: a session on A runs its calls on B's worker and is approved from B", async () => {
    const onA = set.client("a");
    const onB = set.client("b");
    expect((await onA.workers.list.query()).map((w) => [w.id, w.connected]).sort()).toEqual([
      ["w1", true],
      ["w2", true],
    ]);
    const file = set.scenario("spread", [
      { toolCalls: [{ tool: "read_file", args: { path: "note.txt" } }, shell("echo ran-on-w2")] },
      { text: "saw {{lastResult}}" },
    ]);
    const session = await onA.session.create.mutate({ workerId: "w2", scenario: file });
    expect((await onB.session.list.query()).map((s) => s.id)).toContain(session.id);
    const watchB = new Events(onB, { sessionId: session.id });
    const watchA = new Events(onA, { sessionId: session.id });
    await Promise.all([watchA.started, watchB.started]);
    await onB.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    const ask = await watchB.next("tool_approval_required");
    expect(await watchB.next("tool_result", (e) => e.toolName === "read_file")).toMatchObject({ ok: false });
    expect(await onB.tool.approve.mutate({ sessionId: session.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    expect(await watchA.next("tool_result", (e) => e.toolName === "shell_exec")).toMatchObject({ ok: true, output: "ran-on-w2\n" });
    await watchB.next("turn_ended");
    expect(lastAnswer(watchB)).toMatch(/"text":"saw ran-on-w2\\n/);
    // Both instances saw the same events in the same order, each once.
    await watchA.next("turn_ended");
    expect(watchA.list.map((e) => e.id)).toEqual(watchB.list.map((e) => e.id));
    expect(new Set(watchA.list.map((e) => e.id)).size).toBe(watchA.list.length);
  });

  it("stream a person's !command on another instance's worker as it runs, and stop it from any instance", async () => {
    const onA = set.client("a");
    const onB = set.client("b");
    const session = await onA.session.create.mutate({ workerId: "w2", scenario: set.scenario("person", [{ text: "idle" }]) });
    const watchA = new Events(onA, { sessionId: session.id });
    await watchA.started;
    // Typed on A, run by w2 on B: each line is shown on A while the command still runs.
    const typed = onA.session.shell.mutate({ sessionId: session.id, command: "echo first; sleep 1.5; echo second" });
    expect(await watchA.next("shell_output", (e) => e.text.includes("first"))).toBeTruthy();
    expect(watchA.of("shell_command")).toHaveLength(0);
    expect(await typed).toMatchObject({ exitCode: 0, stdout: "first\nsecond\n" });
    // Typed on B, where the worker is, and stopped by an abort that reaches A, which owns the session.
    const running = onB.session.shell.mutate({ sessionId: session.id, command: "echo before-abort; sleep 30" });
    await watchA.next("shell_output", (e) => e.text.includes("before-abort"));
    const stopped = Date.now();
    await onA.agent.abort.mutate({ sessionId: session.id });
    expect(await running).toMatchObject({ exitCode: null, stdout: "before-abort\n" });
    expect(Date.now() - stopped).toBeLessThan(5000);
  });

  it("apply exactly one of 100 answers racing on two instances", async () => {
    const onA = set.client("a");
    const onB = set.client("b");
    const session = await onA.session.create.mutate({ workerId: "w2", scenario: set.scenario("race", [{ toolCalls: [shell("echo once >> ran.txt")] }]) });
    const watch = new Events(onB, { sessionId: session.id });
    await watch.started;
    await onA.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    const ask = await watch.next("tool_approval_required");
    const answers = Array.from({ length: 100 }, (_, i) => {
      const client = i % 2 ? onA : onB;
      const input = { sessionId: session.id, approvalId: ask.approvalId };
      return i % 3 ? client.tool.approve.mutate(input) : client.tool.deny.mutate(input);
    });
    const applied = (await Promise.all(answers)).filter((r) => r.applied);
    expect(applied).toHaveLength(1);
    await watch.next("turn_ended");
    expect(watch.of("tool_approval_resolved")).toHaveLength(1);
    expect(watch.of("tool_result")).toHaveLength(1);
  });
});

describe("a database on the worker's machine", () => {
  // Outside the system's temporary folder, which file tools refuse for reasons of their own.
  let local: TestPostgres;
  let set: Instances | undefined;
  beforeAll(async () => {
    local = await TestPostgres.start({ parent: "/var/tmp" });
  }, 60_000);
  afterAll(async () => {
    await set?.stop();
    local?.stop();
  });

  it("keeps its files from every tool, as the store's own: read_file, grep and a shell command", async () => {
    set = await Instances.start(await local.database(), ["a"], { rules: `{"*": "allow"}` });
    await set.worker("w1", "a");
    const client = set.client("a");
    const version = path.join(local.dir, "data", "PG_VERSION");
    const session = await client.session.create.mutate({
      workerId: "w1",
      scenario: set.scenario("store-files", [
        {
          toolCalls: [
            { tool: "read_file", args: { path: version } },
            { tool: "grep", args: { pattern: ".", path: path.join(local.dir, "data") } },
            shell(`cat ${version}`),
          ],
        },
        { text: "done" },
      ]),
    });
    const watch = new Events(client, { sessionId: session.id });
    await watch.started;
    await client.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    await watch.next("turn_ended", () => true, 30_000);
    const major = fs.readFileSync(version, "utf8").trim();
    const results = watch.of("tool_result");
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect(r.output).not.toContain(major);
      expect(r).toMatchObject({ ok: false, output: expect.stringMatching(/inside the protected path .*data, which no tool reads or writes/) });
    }
  });
});

describe("an instance killed with kill -9", () => {
  let set: Instances | undefined;
  afterEach(() => set?.stop());

  it("has its sessions taken over within seconds: the pending approval is answered on another instance and the turn completes", async () => {
    set = await Instances.start(await postgres.database(), ["a", "b"], { rules: RULES });
    await set.worker("w1", "b");
    const onA = set.client("a");
    const session = await onA.session.create.mutate({
      workerId: "w1",
      scenario: set.scenario("takeover", [{ toolCalls: [shell("echo after-takeover")] }, { text: "then {{lastResult}}" }]),
    });
    const watchA = new Events(onA, { sessionId: session.id });
    await watchA.started;
    await onA.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    const ask = await watchA.next("tool_approval_required");
    await set.kill("a");
    const killed = Date.now();
    const onB = set.client("b");
    const watchB = new Events(onB, { sessionId: session.id, lastEventId: watchA.lastId() ?? null });
    const shown = await watchB.next("tool_approval_required", () => true, 10_000);
    expect(shown.approvalId).toBe(ask.approvalId);
    // The answer waits for B to take the session over (A's lease runs out within five seconds), then applies.
    expect(await onB.tool.approve.mutate({ sessionId: session.id, approvalId: ask.approvalId })).toEqual({ applied: true });
    expect(Date.now() - killed).toBeLessThan(12_000);
    expect(await watchB.next("tool_result", () => true, 15_000)).toMatchObject({ ok: true, output: "after-takeover\n" });
    expect(await watchB.next("turn_ended")).toMatchObject({ reason: "completed" });
    expect(watchB.of("tool_approval_resolved")).toMatchObject([{ approvalId: ask.approvalId, outcome: "approved" }]);
    expect(lastAnswer(watchB)).toMatch(/"text":"then after-takeover\\n/);
  });

  it("an instance paused past its lease leaves the turn another took over: no call runs twice, no event is said twice", async () => {
    const database = await postgres.database();
    set = await Instances.start(database, ["a", "b"], { rules: `{"*": "allow"}` });
    await set.worker("w1", "b");
    const log = path.join(set.workDir, "calls.log");
    const steps = Array.from({ length: 8 }, (_, i) => ({ toolCalls: [shell(`sleep 0.3; echo ${i} >> calls.log`)] }));
    const onA = set.client("a");
    const session = await onA.session.create.mutate({ workerId: "w1", scenario: set.scenario("paused", [...steps, { text: "done" }]) });
    const onB = set.client("b");
    const watchB = new Events(onB, { sessionId: session.id });
    await watchB.started;
    await onA.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    await watchB.next("tool_result");
    const a = set.get("a").process;
    a.kill("SIGSTOP");
    try {
      // B takes the session over once A's lease has run out (five seconds), and carries the turn on to its end.
      expect(await watchB.next("turn_ended", () => true, 30_000)).toMatchObject({ reason: "completed" });
    } finally {
      a.kill("SIGCONT");
    }
    // A wakes with a call's result in hand and the rest of the turn before it: it must not go on.
    // A leaves it at its next step's check, or at once when its lease renewal finds the session taken.
    const left = /a turn is left to the server instance|paused past its lease: sessions another instance took over are left to it/;
    await waitUntil(() => set!.get("a").log.some((l) => left.test(l)), 10_000, "A to leave the turn");
    const ran = fs.readFileSync(log, "utf8").trim().split("\n");
    expect(new Set(ran).size).toBe(ran.length);
    const all = new Events(onB, { sessionId: session.id, lastEventId: "0" });
    const db = new pg.Client({ connectionString: database });
    await db.connect();
    try {
      const stored = async () => Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE session_id = $1", [session.id])).rows[0]!.n);
      await waitUntil(async () => all.list.length >= (await stored()), 10_000, "every stored event of the session, replayed");
    } finally {
      await db.end();
    }
    const results = all.of("tool_result").map((e) => e.callId);
    expect(new Set(results).size).toBe(results.length);
    expect(all.of("turn_ended")).toHaveLength(1);
  }, 60_000);
});

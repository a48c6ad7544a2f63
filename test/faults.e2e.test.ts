import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Cluster, Events, waitUntil } from "./support/cluster.js";

/**
 * Faults injected into real processes: the server killed with kill -9 at chosen points. Each
 * asserts facts: no call runs twice, no answer is forgotten, every turn ends, every client is told.
 */
let cluster: Cluster | undefined;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gh-faults-"));
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.log(cluster?.serverLog.slice(-30).join("\n"));
  await cluster?.stop();
  cluster = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });

/** The approvals a client was shown, each once (a subscription shows a pending one again after a restart, under its own id). */
const asked = (seen: Events) => [...new Set(seen.of("tool_approval_required").map((e) => e.approvalId))];

async function clusterPlaying(
  name: string,
  steps: unknown[],
  rules: string,
  approvalTimeoutMs?: number,
  config: Record<string, unknown> = {},
): Promise<Cluster> {
  const scenario = path.join(scratch, `${name}.json`);
  fs.writeFileSync(scenario, JSON.stringify({ name, steps }));
  cluster = await Cluster.start({ rules, config: { scenario, ...config }, ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}) });
  return cluster;
}

/**
 * A batch of an allowed `sleep 5` and `second`, which asks: the ask is answered while the sleep
 * runs, then the server is killed (kill -9) and started again. Resolves once the turn has ended.
 */
async function answerThenKill(name: string, second: string, answer: (c: Cluster, sessionId: string, approvalId: string) => Promise<unknown>) {
  const c = await clusterPlaying(
    name,
    [{ text: "Working.", toolCalls: [shell("sleep 5"), shell(second)] }, { text: "Told: {{lastResult}}" }],
    `{ "*": "ask", "shell_exec": { "sleep *": "allow" } }`,
  );
  const client = c.client();
  const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
  const seen = new Events(client, { sessionId: s.id });
  await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
  const ask = await seen.next("tool_approval_required");
  await seen.next("tool_call_started");
  expect(await answer(c, s.id, ask.approvalId)).toEqual({ applied: true });
  await seen.next("tool_approval_resolved");

  await c.restartServer();
  const ended = await seen.next("turn_ended", () => true, 30_000);
  return { c, seen, ask, ended };
}

describe("an answer survives kill -9 of the server (embedded store)", { timeout: 60_000 }, () => {
  it("honours a deny given while an earlier call of the batch ran: never asked again, never run", async () => {
    const { c, seen, ask, ended } = await answerThenKill("deny-kept", "touch denied.txt", (c, sessionId, approvalId) =>
      c.client().tool.deny.mutate({ sessionId, approvalId, feedback: "no files" }),
    );
    expect(ended.reason).toBe("completed");
    expect(asked(seen)).toEqual([ask.approvalId]);
    expect(seen.of("tool_result").map((r) => [r.callId, r.outcome])).toEqual([
      [seen.of("tool_call_started")[0]!.callId, "failed"],
      [ask.callId, "rejected"],
    ]);
    expect(fs.existsSync(path.join(c.workDir, "denied.txt"))).toBe(false);
    expect(seen.of("tool_call_started")).toHaveLength(1);
  });

  it("honours an approval given while an earlier call ran: the call runs once, without a second ask", async () => {
    const { c, seen, ask } = await answerThenKill("approve-kept", "echo ran >> approved.txt", (c, sessionId, approvalId) =>
      c.client().tool.approve.mutate({ sessionId, approvalId }),
    );
    expect(asked(seen)).toEqual([ask.approvalId]);
    expect(seen.of("tool_result").find((r) => r.callId === ask.callId)?.outcome).toBe("ok");
    expect(fs.readFileSync(path.join(c.workDir, "approved.txt"), "utf8")).toBe("ran\n");
  });

  it("never runs again a call that had started: its effect happens once, the turn ends, and the client is told the call failed", async () => {
    const c = await clusterPlaying(
      "started-kept",
      [{ text: "Working.", toolCalls: [shell("echo ran >> effects.txt; sleep 3")] }, { text: "Told: {{lastResult}}" }],
      `{ "*": "allow" }`,
    );
    const client = c.client();
    const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    const seen = new Events(client, { sessionId: s.id });
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const started = await seen.next("tool_call_started");
    await waitUntil(() => fs.existsSync(path.join(c.workDir, "effects.txt")), 10_000, "the call's effect");

    await c.restartServer();
    const ended = await seen.next("turn_ended", () => true, 30_000);
    expect(ended.reason).toBe("completed");
    expect(seen.of("tool_result").map((r) => [r.callId, r.outcome])).toEqual([[started.callId, "failed"]]);
    expect(seen.of("tool_call_started")).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 4000));
    expect(fs.readFileSync(path.join(c.workDir, "effects.txt"), "utf8")).toBe("ran\n");
    expect((await client.session.get.query({ sessionId: s.id })).session.status).toBe("idle");
  });

  it("times an approval out from when it was raised, not from the restart, and keeps the time-out", async () => {
    const timeout = 8000;
    const c = await clusterPlaying("timeout-kept", [{ text: "Asking.", toolCalls: [shell("touch late.txt")] }, { text: "Done." }], `{ "*": "ask" }`, timeout);
    const client = c.client();
    const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    const seen = new Events(client, { sessionId: s.id });
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const ask = await seen.next("tool_approval_required");
    await new Promise((r) => setTimeout(r, 2000));

    // Counted from the restart, the time-out would come a whole `timeout` after it; counted from the ask, 2 s sooner.
    const restarted = Date.now();
    await c.restartServer();
    const resolved = await seen.next("tool_approval_resolved", () => true, 20_000);
    expect(resolved.outcome).toBe("timed_out");
    expect(Date.parse(resolved.at) - restarted).toBeLessThan(timeout - 500);
    await seen.next("turn_ended", () => true, 10_000);
    expect(asked(seen)).toEqual([ask.approvalId]);
    expect(fs.existsSync(path.join(c.workDir, "late.txt"))).toBe(false);
  });
});

describe("a query never writes", { timeout: 60_000 }, () => {
  it("permissions.explain on a torn rules file stores no event, with or without a session; a turn still tells its session", async () => {
    const c = await clusterPlaying("torn", [{ text: "Asking.", toolCalls: [shell("echo hi")] }, { text: "Done." }], `{ "shell_exec": "allow" }`);
    const client = c.client();
    const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    const all = new Events(client, {});
    fs.writeFileSync(c.rulesFile, `{ "shell_exec": { "echo *": "allow" `);
    for (let i = 0; i < 25; i++) {
      for (const sessionId of [undefined, s.id]) {
        const explained = await client.permissions.explain.query({
          workerId: "w1",
          tool: "shell_exec",
          args: { command: "echo hi" },
          ...(sessionId ? { sessionId } : {}),
        });
        expect(explained.decision).toMatchObject({ action: "ask", reason: expect.stringContaining("the permissions file is invalid") });
      }
    }
    const marker = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    await all.next("session_created", (e) => e.session.id === marker.id);
    expect(all.of("permissions_invalid")).toEqual([]);

    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    const told = await all.next("permissions_invalid");
    expect(told.sessionId).toBe(s.id);
  });
});

describe("a worker killed with kill -9", { timeout: 60_000 }, () => {
  it("takes what it started with it, with the sandbox off: the command and what it put in the background", async () => {
    const command = "touch begun; (sleep 2; echo background > background.txt) & sleep 2; echo late > late.txt";
    const c = await clusterPlaying("orphans", [{ text: "Working.", toolCalls: [shell(command)] }, { text: "Done." }], `{ "*": "allow" }`);
    await c.killWorker();
    await c.startWorker(["--sandbox", "off"]);
    const client = c.client();
    const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    const seen = new Events(client, { sessionId: s.id });
    await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
    await waitUntil(() => fs.existsSync(path.join(c.workDir, "begun")), 10_000, "the command to begin");
    c.worker!.kill("SIGKILL");

    expect((await seen.next("tool_result", () => true, 15_000)).outcome).toBe("failed");
    await new Promise((r) => setTimeout(r, 3000));
    expect(fs.readdirSync(c.workDir).filter((f) => f.endsWith(".txt"))).toEqual([]);
  });
});

describe("a replay of many pending approvals to a client that watches every session", { timeout: 90_000 }, () => {
  /** Subscribes to every session as the browser console does: from `lastEventId`, again from the last id it saw when the stream ends. */
  function watchEverything(client: ReturnType<Cluster["client"]>, lastEventId: string) {
    const watched = { approvals: [] as string[], errors: [] as string[], subscriptions: 0, lastEventId };
    const subscribe = () => {
      watched.subscriptions++;
      client.agent.onEvents.subscribe(
        { lastEventId: watched.lastEventId },
        {
          onData: (d) => {
            watched.lastEventId = d.id;
            if (d.data.type === "tool_approval_required") watched.approvals.push(d.data.approvalId);
          },
          onError: (err) => {
            watched.errors.push(err.message);
            setTimeout(subscribe, 200);
          },
        },
      );
    };
    subscribe();
    return watched;
  }

  it("sends them all, each once, paced to the client, with no cut-off however far the replay passes the subscriber's backlog", async () => {
    const sessions = 24;
    // Each approval carries a 60 KB command (in its arguments and what it shows): the replay is several times the 1 MiB backlog.
    const steps = [{ text: "Asking.", toolCalls: [shell(`echo ${"x".repeat(60_000)}`)] }];
    const c = await clusterPlaying("big-asks", steps, `{ "*": "ask" }`, undefined, { limits: { subscriberBacklogBytes: 1024 * 1024 } });
    const client = c.client();
    const live = new Events(client, {});
    for (let i = 0; i < sessions; i++) {
      const s = await client.session.create.mutate({ workerId: "w1", agent: "general" });
      await client.agent.prompt.mutate({ sessionId: s.id, text: "go" });
      await live.next("tool_approval_required", (e) => e.sessionId === s.id, 10_000);
    }
    const raised = live.of("tool_approval_required").map((e) => e.approvalId);
    const position = live.lastId()!;
    live.close();

    // From the start of the log (the console's first subscription), and from the newest id (a client coming back): every pending approval is in the replay.
    for (const from of ["0", position]) {
      const watched = watchEverything(c.client(), from);
      await waitUntil(() => watched.approvals.length >= sessions, 30_000, `the replay from ${from}`);
      await new Promise((r) => setTimeout(r, 500));
      expect(watched.errors).toEqual([]);
      expect(watched.subscriptions).toBe(1);
      expect(watched.approvals.sort()).toEqual([...raised].sort());
    }
    expect(c.serverLog.filter((l) => l.includes("subscriber backlog"))).toEqual([]);
  });
});

/** A tmpfs of its own for the data directory, where the machine lets this process mount one. */
function smallDisk(): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    return null;
  }
}

// Whether this process may mount one, tried and undone at once: the disk itself is mounted only when its tests run.
const probe = smallDisk();
if (probe) execFileSync("umount", ["-l", probe]);
let disk: string | null = null;
describe.skipIf(!probe)("a full data directory (a tmpfs of 8 MiB; skipped where this process may not mount one)", { timeout: 60_000 }, () => {
  beforeAll(() => {
    disk = smallDisk();
  });
  afterAll(() => disk && execFileSync("umount", ["-l", disk]));

  it("refuses what it cannot record with the cause named, and goes on once there is room", async () => {
    const dataDir = path.join(disk!, "data");
    cluster = await Cluster.start({ config: { dataDir } });
    const client = cluster.client();
    const before = await client.session.create.mutate({ workerId: "w1", agent: "general" });
    const all = new Events(client, {});
    const filler = path.join(disk!, "filler");
    const free = fs.statfsSync(disk!);
    fs.writeFileSync(filler, Buffer.alloc(Number(free.bavail * free.bsize)));
    await expect(client.session.create.mutate({ workerId: "w1", agent: "general" })).rejects.toThrow(
      /no space left in the server's data directory \(.*gh-full-/,
    );
    await expect(client.session.create.mutate({ workerId: "w1", agent: "general" })).rejects.toThrow(/no space left/);
    // A prompt whose start cannot be recorded is refused with the cause; one that could (SQLite reuses its log's room) ends its turn, told to every client.
    const prompted = await client.agent.prompt.mutate({ sessionId: before.id, text: "go" }).then(
      () => "accepted",
      (err: Error) => err.message,
    );
    if (prompted !== "accepted") expect(prompted).toMatch(/no space left in the server's data directory/);
    await waitUntil(() => cluster!.serverLog.some((l) => l.includes("no space left in the data directory")), 5000, "the log to say so");
    expect(cluster.serverLog.filter((l) => l.includes("no space left in the data directory"))).toHaveLength(1);

    fs.rmSync(filler);
    expect((await client.session.create.mutate({ workerId: "w1", agent: "general" })).id).not.toBe(before.id);
    if (prompted === "accepted") await all.next("turn_ended", (e) => e.sessionId === before.id, 20_000);
    await waitUntil(
      async () => (await client.agent.prompt.mutate({ sessionId: before.id, text: "go" }).catch(() => ({ accepted: false }))).accepted,
      10_000,
      "a prompt to be taken",
    );
    await all.next("turn_ended", (e) => e.sessionId === before.id && all.of("turn_ended").length >= (prompted === "accepted" ? 2 : 1), 20_000);

    // Started while the disk is full, the server says so at once.
    fs.writeFileSync(filler, Buffer.alloc(Number(fs.statfsSync(disk!).bavail * fs.statfsSync(disk!).bsize)));
    const logged = cluster.serverLog.length;
    await cluster.restartServer();
    await waitUntil(() => cluster!.serverLog.slice(logged).some((l) => l.includes("no space left in the data directory")), 5000, "the server to say so");
    expect(cluster.serverLog.slice(logged).filter((l) => /^\s+at /.test(l))).toEqual([]);
    fs.rmSync(filler);
  });
});

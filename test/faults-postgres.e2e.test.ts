import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Events, waitUntil } from "./support/cluster.js";
import { Instances } from "./support/instances.js";
import { TestPostgres } from "./support/postgres.js";

/**
 * PostgreSQL stopped for five seconds under a running server: whatever a turn could not record
 * is recorded when the database returns, every turn ends where every client sees it, and no
 * approval's time-out is lost.
 */
let postgres: TestPostgres;
let set: Instances | undefined;
// Durable, as in production: a database stopped at once keeps every commit it acknowledged.
beforeAll(async () => {
  postgres = await TestPostgres.start({ durable: true });
}, 60_000);
afterAll(() => postgres?.stop());
afterEach(async (ctx) => {
  if (ctx.task.result?.state === "fail") console.log(set?.instances.flatMap((i) => i.log.slice(-20)).join("\n"));
  await set?.stop();
  set = undefined;
});

const shell = (command: string) => ({ tool: "shell_exec", args: { command } });
const OUTAGE_MS = 5000;

async function outage(): Promise<void> {
  postgres.pause();
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  postgres.resume();
}

async function oneInstance(rules: string, config: Record<string, unknown> = {}) {
  set = await Instances.start(await postgres.database(), ["a"], { rules, config });
  await set.worker("w1", "a");
  return set;
}

describe("PostgreSQL stopped for five seconds", { timeout: 90_000 }, () => {
  it("a turn whose writes failed ends when the database returns, seen by every client; no second prompt meanwhile", async () => {
    const s = await oneInstance(`{ "*": "allow" }`);
    const client = s.client("a");
    const other = s.client("a");
    const session = await client.session.create.mutate({
      workerId: "w1",
      scenario: s.scenario("outage", [{ toolCalls: [shell("sleep 1")] }, { text: "done" }]),
    });
    const idle = await client.session.create.mutate({ workerId: "w1", scenario: s.scenario("idle", [{ text: "done" }]) });
    const seen = new Events(client, { sessionId: session.id });
    const everything = new Events(other, {});
    await client.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    await seen.next("tool_call_started");
    const paused = Date.now();
    postgres.pause();
    const log = s.get("a").log;
    await waitUntil(() => log.some((l) => l.includes("could not be recorded")), OUTAGE_MS, "a write the outage refused");
    const meanwhile = await client.agent.prompt.mutate({ sessionId: session.id, text: "again" }).catch((err: Error) => err);
    expect(meanwhile).not.toEqual({ accepted: true });
    // A prompt that cannot be recorded is refused with the cause, not accepted and lost.
    await expect(client.agent.prompt.mutate({ sessionId: idle.id, text: "now" })).rejects.toThrow(/the server's store is unavailable/);
    // The outage lasts its five seconds whatever the waits above took.
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - paused))));
    postgres.resume();

    const ended = await seen.next("turn_ended", () => true, 30_000);
    await everything.next("turn_ended", (e) => e.sessionId === session.id, 10_000);
    if (ended.reason !== "completed") expect(seen.of("session_error")[0]?.message).toBeTruthy();
    expect(seen.of("turn_ended")).toHaveLength(1);
    // The call ran: its result is recorded when the database returns, never dropped.
    expect(seen.of("tool_result").map((r) => [r.callId, r.outcome])).toEqual(seen.of("tool_call_started").map((s) => [s.callId, "ok"]));
    await waitUntil(async () => (await client.session.get.query({ sessionId: session.id })).session.status === "idle", 10_000, "the session to be idle");
    expect(await client.agent.prompt.mutate({ sessionId: session.id, text: "again" })).toEqual({ accepted: true });
    // The outage is logged once, not every second it lasts.
    for (const line of ["could not renew this instance's leases", "could not listen to PostgreSQL again"])
      expect(log.filter((l) => l.includes(line)).length, line).toBeLessThanOrEqual(1);
    await seen.next("turn_ended", (e) => e !== ended, 20_000);
  });

  it("an approval's time-out that falls in the outage is applied when the database returns, and its turn ends", async () => {
    const s = await oneInstance(`{ "*": "ask" }`, { approvalTimeoutMs: 1500 });
    const client = s.client("a");
    const session = await client.session.create.mutate({
      workerId: "w1",
      scenario: s.scenario("timer", [{ toolCalls: [shell("touch never")] }, { text: "done" }]),
    });
    const seen = new Events(client, { sessionId: session.id });
    await client.agent.prompt.mutate({ sessionId: session.id, text: "go" });
    await seen.next("tool_approval_required");
    await outage();

    expect((await seen.next("tool_approval_resolved", () => true, 30_000)).outcome).toBe("timed_out");
    expect((await seen.next("turn_ended", () => true, 15_000)).reason).toBe("completed");
    expect(new Set(seen.of("tool_approval_required").map((e) => e.approvalId)).size).toBe(1);
  });
});

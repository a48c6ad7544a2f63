import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequired } from "@gatehouse/protocol";
import { GatehouseError } from "../apps/server/src/errors.js";
import { silentLog } from "../apps/server/src/log.js";
import { EventFeed } from "../apps/server/src/cluster/event-feed.js";
import { Instances } from "../apps/server/src/cluster/instances.js";
import { Listener } from "../apps/server/src/cluster/listener.js";
import { MAILBOX_CHANNEL, Mailbox } from "../apps/server/src/cluster/mailbox.js";
import { migrate } from "../apps/server/src/store/postgres/migrations.js";
import { EVENTS_CHANNEL, PostgresStore } from "../apps/server/src/store/postgres/store.js";
import { databaseFiles } from "../apps/server/src/store/database-files.js";
import { MIGRATIONS } from "../apps/server/src/store/postgres/schema.js";
import { describeStoreContract } from "../apps/server/test/store-contract.js";
import { TestPostgres } from "./support/postgres.js";
import { waitUntil } from "./support/wait.js";

let server: TestPostgres;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  server = await TestPostgres.start();
}, 60_000);
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  server?.stop();
});

async function pool(): Promise<pg.Pool> {
  const p = new pg.Pool({ connectionString: await server.database(), max: 4 });
  pools.push(p);
  return p;
}

describeStoreContract("PostgreSQL", async () => PostgresStore.open(await server.database(), (err) => console.error(err)));

describe("schema migrations", () => {
  it("run once when several instances start at the same moment", async () => {
    const url = await server.database();
    const instances = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: url, max: 2 }));
    pools.push(...instances);
    const applied = await Promise.all(instances.map((p) => migrate(p)));
    expect(applied.flat()).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const { rows } = await instances[0]!.query("SELECT version FROM schema_migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it("apply only the steps a database lacks, and refuse a database newer than the server", async () => {
    const p = await pool();
    expect(await migrate(p, ["CREATE TABLE a (x int)"])).toEqual([1]);
    expect(await migrate(p, ["CREATE TABLE a (x int)", "ALTER TABLE a ADD COLUMN y int"])).toEqual([2]);
    await expect(migrate(p, ["CREATE TABLE a (x int)"])).rejects.toThrow(/schema is at version 2, newer than this server knows \(1\)/);
  });

  it("leave nothing behind when a step fails", async () => {
    const p = await pool();
    await expect(migrate(p, ["CREATE TABLE b (x int)", "CREATE TABLE c (x int); SELECT nonsense"])).rejects.toThrow(
      /schema migration 2 failed: column "nonsense"/,
    );
    const { rows } = await p.query("SELECT to_regclass('c') AS c, (SELECT max(version) FROM schema_migrations) AS v");
    expect(rows[0]).toEqual({ c: null, v: 1 });
  });
});

const session = (id: string, parentId: string | null = null, workerId = "w1") => ({
  id,
  workerId,
  agent: "build",
  model: "scripted",
  mode: "default" as const,
  parentId,
  createdAt: new Date().toISOString(),
  status: "idle" as const,
});

const ask = (approvalId: string, sessionId: string) =>
  ({ type: "tool_approval_required", approvalId, sessionId, toolName: "shell_exec", arguments: "{}" }) as unknown as ApprovalRequired;

describe("the PostgreSQL store", () => {
  let store: PostgresStore;
  beforeAll(async () => {
    store = await PostgresStore.open(await server.database(), (err) => console.error(err));
  });
  afterAll(() => store?.close());

  it("keeps sessions, messages and events, with NUL characters and ids that rise", async () => {
    await store.putSession(session("p"));
    await store.putSession(session("c", "p", "w2"));
    await store.putSession({ ...session("p"), mode: "strict" });
    expect((await store.getSession("p"))?.mode).toBe("strict");
    expect((await store.listSessions()).map((s) => s.id)).toEqual(["p", "c"]);
    expect((await store.listSessions({ parentId: null })).map((s) => s.id)).toEqual(["p"]);
    expect((await store.listSessions({ workerId: "w2" })).map((s) => s.id)).toEqual(["c"]);
    await store.appendMessage("p", { role: "user", text: "a\u0000b" });
    await store.appendMessage("p", { role: "user", text: "second" });
    expect(await store.messages("p")).toEqual([
      { role: "user", text: "a\u0000b" },
      { role: "user", text: "second" },
    ]);
    const stored = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.appendEvent(i % 2 ? "p" : "c", { type: "user_message", sessionId: "p", at: "", text: String(i) })),
    );
    const ids = stored.map((s) => s.id).sort((a, b) => a - b);
    expect(new Set(ids).size).toBe(20);
    expect(await store.lastEventId()).toBe(ids.at(-1));
    expect((await store.eventsAfter(ids[9]!)).map((e) => e.id)).toEqual(ids.slice(10));
    expect((await store.eventsAfter(0, "c")).length).toBe(10);
    expect((await store.eventsAfter(0, ["c", "p"], 3)).map((e) => e.id)).toEqual(ids.slice(0, 3));
  });

  it("gives a pending approval to exactly one of 100 takers on two connections pools", async () => {
    const other = await PostgresStore.open(store.pool.options.connectionString!, () => undefined);
    try {
      await store.putPending({ event: ask("a1", "p"), eventId: 100_007 });
      await store.putPending({ event: ask("a2", "q"), eventId: 100_005 });
      expect((await other.listPending()).map((p) => p.event.approvalId)).toEqual(["a2", "a1"]);
      const takers = Array.from({ length: 100 }, (_, i) => (i % 2 ? store : other).takePending("a1"));
      const got = (await Promise.all(takers)).filter((t) => t !== undefined);
      expect(got).toEqual([{ event: ask("a1", "p"), eventId: 100_007 }]);
      expect((await store.listPending("q")).length).toBe(1);
      // An approval stored as an event is pending as soon as any instance can see the event; recording it again after it was taken does not revive it.
      const stored = await store.appendEvent("p", ask("a3", "p"));
      expect((await other.listPending("p")).map((p) => [p.event.approvalId, p.eventId])).toEqual([["a3", stored.id]]);
      expect(await other.takePending("a3")).toEqual({ event: ask("a3", "p"), eventId: stored.id });
      await store.putPending({ event: ask("a3", "p"), eventId: stored.id });
      expect(await store.listPending("p")).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("queries, limits and prunes the audit log; keeps runtime rules per session", async () => {
    const entry = (at: string, action: string, by?: string) => ({
      at,
      sessionId: "p",
      workerId: "w1",
      toolName: "shell_exec",
      arguments: "{}",
      action,
      reason: "r",
      rule: null,
      ...(by ? { by } : {}),
    });
    await store.appendAudit(entry("2026-01-01T00:00:00.000Z", "ask"));
    await store.appendAudit(entry("2026-01-02T00:00:00.000Z", "approved", "ada"));
    await store.appendAudit(entry("2026-01-03T00:00:00.000Z", "allow"));
    expect((await store.queryAudit({ by: "ada" })).map((e) => e.action)).toEqual(["approved"]);
    expect((await store.queryAudit({ limit: 2 })).map((e) => e.action)).toEqual(["approved", "allow"]);
    expect((await store.queryAudit({ since: "2026-01-02T00:00:00.000Z", until: "2026-01-03T00:00:00.000Z" })).length).toBe(1);
    expect(await store.pruneAudit("2026-01-02T00:00:00.000Z")).toBe(1);
    await store.addRuntimeRules("p", "shell_exec", ["git *", "ls *"]);
    await store.addRuntimeRules("q", "read_file", ["*.md"]);
    expect((await store.runtimeRules("p")).map((r) => r.pattern)).toEqual(["git *", "ls *"]);
    await store.forgetRuntimeRules("p");
    expect((await store.runtimeRules()).map((r) => r.sessionId)).toEqual(["q"]);
  });
});

/** When an instance's liveness, and with it its leases, runs out. */
const aliveUntil = async (pool: pg.Pool, id: string): Promise<Date> =>
  (await pool.query<{ alive_until: Date }>("SELECT alive_until FROM instances WHERE id = $1", [id])).rows[0]!.alive_until;
/** Milliseconds from the database's now to a time (negative once it has passed). */
const msLeft = async (pool: pg.Pool, until: Date): Promise<number> =>
  Number((await pool.query<{ ms: string }>("SELECT extract(epoch FROM $1::timestamptz - now()) * 1000 AS ms", [until])).rows[0]!.ms);

describe("where the database keeps its files", () => {
  it("is learnt by a role that may read the settings, and said to be unknown, with what to do, by one that may not", async () => {
    const url = await server.database();
    const owner = new PostgresStore(await pool());
    const warnings: string[] = [];
    const log = { ...silentLog, warn: (msg: string) => void warnings.push(msg) };
    expect(await databaseFiles(owner, log)).toEqual([fs.realpathSync(path.join(server.dir, "data"))]);
    await owner.pool.query("CREATE ROLE plain LOGIN");
    const plain = new pg.Pool({ connectionString: url.replace("postgres@", "plain@"), max: 1 });
    pools.push(plain);
    expect(await databaseFiles(new PostgresStore(plain), log)).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/could not learn where PostgreSQL keeps the store's files.*protectedPaths/)]);
  });
});

describe("leases of sessions", () => {
  it("hold while their instance renews, and pass to another once it stops", async () => {
    const store = await PostgresStore.open(await server.database(), () => undefined);
    const timing = { ttlMs: 300, renewMs: 100 };
    const [x, y] = [new Instances(store.pool, "x", timing), new Instances(store.pool, "y", timing)];
    try {
      await x.renew();
      await y.renew();
      expect(await x.claim("s1")).toMatchObject({ holder: "x", ours: true });
      expect(await y.claim("s1")).toMatchObject({ holder: "x", ours: false });
      expect(await y.takeExpired()).toEqual([]);
      // The database's clock decides leases, so the waits read it: x renews halfway through its
      // lease, and still holds once the first lease would have run out.
      const first = await aliveUntil(store.pool, "x");
      await waitUntil(async () => (await msLeft(store.pool, first)) < timing.ttlMs / 2, 5000, "half of x's lease to pass");
      await x.renew();
      await waitUntil(async () => (await msLeft(store.pool, first)) < 0, 5000, "x's first lease to run out");
      expect(await y.claim("s1")).toMatchObject({ holder: "x", ours: false });
      await y.renew();
      await waitUntil(async () => !(await y.alive()).has("x"), 5000, "x's renewed lease to run out");
      await y.renew();
      expect(await y.takeExpired()).toEqual(["s1"]);
      expect(await x.claim("s1")).toMatchObject({ holder: "y", ours: false });
      await y.leave();
      await x.renew();
      expect(await x.claim("s1")).toMatchObject({ holder: "x", ours: true });
    } finally {
      await store.close();
    }
  });
});

describe("events and letters between instances", () => {
  it("reach every instance in id order, once each, whoever stored them", async () => {
    const url = await server.database();
    const a = await PostgresStore.open(url, () => undefined);
    const b = await PostgresStore.open(url, () => undefined);
    const seen: Record<string, number[]> = { a: [], b: [] };
    const feeds = { a: new EventFeed(a, (e) => seen.a!.push(e.id), silentLog), b: new EventFeed(b, (e) => seen.b!.push(e.id), silentLog) };
    const listeners = Object.entries(feeds).map(([, feed]) => {
      const l = new Listener(url, silentLog, () => feed.resync());
      l.on(EVENTS_CHANNEL, (p) => feed.notified(p));
      return l;
    });
    try {
      await Promise.all(listeners.map((l) => l.start()));
      await Promise.all(Object.values(feeds).map((f) => f.start()));
      const publish = async (store: PostgresStore, feed: EventFeed, n: number) => {
        for (let i = 0; i < n; i++) await feed.stored(await store.appendEvent("s", { type: "user_message", sessionId: "s", at: "", text: String(i) }));
      };
      await Promise.all([publish(a, feeds.a, 150), publish(b, feeds.b, 150), publish(a, feeds.a, 50)]);
      const all = (await a.eventsAfter(0)).map((e) => e.id);
      expect(all.length).toBe(350);
      await waitUntil(() => seen.a!.length === 350 && seen.b!.length === 350, 10_000, "every event on both instances");
      expect(seen.a).toEqual(all);
      expect(seen.b).toEqual(all);
    } finally {
      await Promise.all(listeners.map((l) => l.close()));
      await a.close();
      await b.close();
    }
  });

  it("carry requests and their replies, errors with their codes, and time out when nobody answers", async () => {
    const url = await server.database();
    const store = await PostgresStore.open(url, () => undefined);
    const serve = async (r: { kind: string }) => {
      if (r.kind === "fail") throw new GatehouseError("NOT_FOUND", "no such thing");
      return { echoed: r };
    };
    const boxes = [new Mailbox(store.pool, "one", serve, silentLog), new Mailbox(store.pool, "two", serve, silentLog)];
    const listener = new Listener(url, silentLog, () => undefined);
    listener.on(MAILBOX_CHANNEL, (p) => boxes.forEach((b) => b.notified(p)));
    try {
      await listener.start();
      expect(await boxes[0]!.request("two", { kind: "echo", n: 1 }, 5000)).toEqual({ echoed: { kind: "echo", n: 1 } });
      await expect(boxes[1]!.request("one", { kind: "fail" }, 5000)).rejects.toMatchObject({ code: "NOT_FOUND", message: "no such thing" });
      await expect(boxes[0]!.request("nobody", { kind: "echo" }, 300)).rejects.toThrow(/server instance nobody did not answer a echo request within 300 ms/);
    } finally {
      await listener.close();
      boxes.forEach((b) => b.close());
      await store.close();
    }
  });
});

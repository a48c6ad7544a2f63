import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequired } from "@gatehouse/protocol";
import { migrate } from "../apps/server/src/postgres/migrations.js";
import { PostgresStore } from "../apps/server/src/postgres/store.js";
import { MIGRATIONS } from "../apps/server/src/postgres/schema.js";
import { TestPostgres } from "./support/postgres.js";

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
    await store.putSession({ ...session("p"), mode: "plan" });
    expect((await store.getSession("p"))?.mode).toBe("plan");
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
      await store.putPending({ event: ask("a1", "p"), eventId: 7 });
      await store.putPending({ event: ask("a2", "q"), eventId: 5 });
      expect((await other.listPending()).map((p) => p.event.approvalId)).toEqual(["a2", "a1"]);
      const takers = Array.from({ length: 100 }, (_, i) => (i % 2 ? store : other).takePending("a1"));
      const got = (await Promise.all(takers)).filter((t) => t !== undefined);
      expect(got).toEqual([{ event: ask("a1", "p"), eventId: 7 }]);
      expect((await store.listPending("q")).length).toBe(1);
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

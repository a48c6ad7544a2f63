import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../apps/server/src/postgres/migrations.js";
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

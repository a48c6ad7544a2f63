import type pg from "pg";
import { GatehouseError } from "../../errors.js";
import { MIGRATIONS } from "./schema.js";

/** The advisory lock every instance takes to migrate: one at a time, the others wait and find the work done. */
const MIGRATION_LOCK = 0x6761_7465; // "gate"

/**
 * Brings the schema to this version, each step in its own transaction and recorded, under an
 * advisory lock so instances starting at once are safe. A database newer than this server is refused.
 * Returns the versions applied now.
 */
export async function migrate(pool: pg.Pool, steps: readonly string[] = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
      const { rows } = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations");
      const current = rows[0]?.v ?? 0;
      if (current > steps.length)
        throw new GatehouseError(
          "CONFIG",
          `the database's schema is at version ${current}, newer than this server knows (${steps.length}): run a server ` +
            `version at least as new as the newest one that used it`,
        );
      const applied: number[] = [];
      for (let version = current + 1; version <= steps.length; version++) {
        await client.query("BEGIN");
        try {
          await client.query(steps[version - 1]!);
          await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version]);
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK");
          throw new GatehouseError("CONFIG", `schema migration ${version} failed: ${(err as Error).message}`);
        }
        applied.push(version);
      }
      return applied;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

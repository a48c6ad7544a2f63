import type { Log } from "../log.js";
import { PostgresStore } from "./postgres/store.js";
import type { Store } from "./store.js";

/**
 * The folders where a PostgreSQL store's database keeps its files, when the server may ask. A
 * worker on the database's machine must never read them; a server that cannot learn them says so,
 * naming the setting that protects them by hand.
 */
export async function databaseFiles(store: Store, log: Log): Promise<string[]> {
  if (!(store instanceof PostgresStore)) return [];
  try {
    return await store.dataDirectories();
  } catch (err) {
    log.warn(
      "could not learn where PostgreSQL keeps the store's files: a worker on the database's machine could read them. " +
        "Add its data directory to protectedPaths in the server's config, or grant this role pg_read_all_settings",
      { err },
    );
    return [];
  }
}

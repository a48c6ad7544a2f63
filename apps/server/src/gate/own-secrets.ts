import fs from "node:fs";
import path from "node:path";
import type { ServerConfig } from "../config/index.js";
import { stateFile } from "../store/index.js";

/** A path as written and, when it leads elsewhere through a symlink, where it really is. */
function bothSpellings(p: string): string[] {
  const absolute = path.resolve(p);
  try {
    const real = fs.realpathSync(absolute);
    return real === absolute ? [absolute] : [absolute, real];
  } catch {
    return [absolute];
  }
}

/** The embedded store's files: the database and SQLite's journal files beside it. */
function storeFiles(config: ServerConfig): string[] {
  if (config.store.kind !== "embedded") return [];
  const db = config.store.path ? path.resolve(config.dataDir, config.store.path) : stateFile(config.dataDir);
  return [db, `${db}-wal`, `${db}-shm`, `${db}-journal`];
}

/**
 * What no tool reads or writes, whatever the rules say (docs/design.md, "Floors"): the data directory (rules,
 * store, audit, TLS), the store wherever it is kept (`database`: a PostgreSQL store's folders), the
 * TLS private key, the config file (every token) and the operator's own protected paths.
 */
export function ownSecrets(config: ServerConfig, database: readonly string[] = []): string[] {
  const key = typeof config.tls === "object" ? [path.resolve(config.tls.key)] : [];
  const paths = [config.dataDir, ...storeFiles(config), ...database, ...key, ...config.protectedPaths];
  return [...new Set(paths.flatMap(bothSpellings))];
}

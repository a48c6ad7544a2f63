import fs from "node:fs";
import type { TRPCError } from "@trpc/server";
import { GatehouseError } from "../errors.js";
import type { Log } from "../log.js";
import { explainFailures } from "./procedure-failures.js";
import { isStoreFailure } from "../store/index.js";

const isFull = (err: unknown) => /^(ENOSPC|SQLITE_FULL)$/.test(String((err as { code?: unknown } | null)?.code ?? ""));

const refusal = (code: "STORE_FULL" | "STORE_UNAVAILABLE", message: string, cause: unknown): TRPCError => new GatehouseError(code, message, { cause }).toTRPC();

/**
 * What a client is told when its request could not be recorded: the cause in plain words (no
 * space in the data directory, the database away) instead of "internal server error". A full
 * data directory is said in the log once a minute at most.
 */
export function storeErrors(dataDir: string, log: Log) {
  let toldFullAt = -Infinity;
  return explainFailures((err) => {
    if (!isStoreFailure(err)) return err;
    if (!isFull(err)) return refusal("STORE_UNAVAILABLE", `the server's store is unavailable (${(err as Error).message}); try again once it is back`, err);
    if (Date.now() - toldFullAt > 60_000)
      log.error(`no space left in the data directory ${dataDir}: requests that must be recorded are refused until there is room`);
    toldFullAt = Date.now();
    return refusal("STORE_FULL", `no space left in the server's data directory (${dataDir}): this could not be recorded; try again once there is room`, err);
  });
}

/** At start: a data directory with no room left is said in the log at once, not at the first request that fails. */
export function sayIfFull(dataDir: string, log: Log): void {
  try {
    const { bavail, bsize } = fs.statfsSync(dataDir);
    if (bavail * bsize < 1024 * 1024)
      log.error(`no space left in the data directory ${dataDir}: requests that must be recorded are refused until there is room`);
  } catch {
    // A data directory that cannot be looked at is reported by the store that opens it.
  }
}

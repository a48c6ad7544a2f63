import type { Log } from "./log.js";

let guarded = false;

/**
 * Keeps the server process up whatever a connection sends: an error that escapes every handler
 * is logged with its stack instead of ending the process and every session in it.
 */
export function guardProcess(log: Log): void {
  if (guarded) return;
  guarded = true;
  process.on("unhandledRejection", (reason) => log.error("unhandled error", { kind: "rejection", error: String((reason as Error)?.stack ?? reason) }));
  process.on("uncaughtException", (err) => log.error("unhandled error", { kind: "exception", error: String(err.stack ?? err) }));
}

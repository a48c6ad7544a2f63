import type { Log } from "@gatehouse/log";

const FIRST_DELAY_MS = 100;
const LONGEST_DELAY_MS = 5000;

/** Whether an error is the store's (its database unreachable, its disk full or failing), not the caller's. */
export function isStoreFailure(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  if (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOSPC|EIO|EROFS|57P0\d|08\d\d\d|SQLITE_(IOERR|FULL|BUSY|CANTOPEN|READONLY)\w*)$/.test(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test((err as Error)?.message ?? "");
}

/** What a client is told when a turn ends because the store failed: the cause, and that nothing after it was done. */
export function storeFailureMessage(err: unknown): string {
  return `the server could not record this turn (${(err as Error).message}); it was ended there, and what it had recorded is kept`;
}

/**
 * Runs a write that must happen (a turn's end, an approval's time-out) until it succeeds: while the
 * store is away it is tried again with a growing pause, up to five seconds. The log hears once
 * when it starts failing and once when it went through.
 */
export async function untilStored<T>(write: () => Promise<T>, log: Log, what: string, onFailing?: () => void): Promise<T> {
  let delay = FIRST_DELAY_MS;
  let failing = false;
  for (;;) {
    try {
      const result = await write();
      if (failing) log.info(`${what}: recorded now that the store is back`);
      return result;
    } catch (err) {
      if (!failing) {
        log.error(`${what} could not be recorded; trying again until the store is back`, { err });
        failing = true;
        onFailing?.();
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, LONGEST_DELAY_MS);
    }
  }
}

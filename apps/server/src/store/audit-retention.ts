import type { Log } from "../log.js";
import type { Store } from "./store.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Drops audit entries older than the retention, at start and every hour; returns the stop. */
export function keepAuditFor(store: Store, days: number | undefined, log: Log): () => void {
  if (days === undefined) return () => undefined;
  const prune = () =>
    store
      .pruneAudit(new Date(Date.now() - days * DAY).toISOString())
      .then((dropped) => dropped > 0 && log.info("audit entries past their retention dropped", { dropped, days }))
      .catch((err: unknown) => log.error("the audit log could not be pruned", { err }));
  void prune();
  const timer = setInterval(() => void prune(), HOUR);
  timer.unref();
  return () => clearInterval(timer);
}

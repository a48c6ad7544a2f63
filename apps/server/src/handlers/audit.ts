import type { Handlers } from "@gatehouse/protocol";
import { type Services, guarded } from "./services.js";

/** The `audit` router: the log of every decision and answer, filtered. */
export function auditHandlers(services: Services): Handlers["audit"] {
  return guarded({
    async query(_p, input) {
      return services.store.queryAudit(input);
    },
  });
}

import type { Handlers } from "@gatehouse/protocol";
import { type Services } from "./services.js";

/** The `audit` router: the log of every decision and answer, filtered. */
export function auditHandlers(services: Services): Handlers["audit"] {
  return {
    async query(_p, input) {
      return services.store.queryAudit(input);
    },
  };
}

import type { Handlers } from "@gatehouse/protocol";
import { GatehouseError } from "../errors.js";
import { type Services, guarded, sessionOf } from "./services.js";

/** The `agent` router: prompts, aborts and the event stream. */
export function agentHandlers(services: Services): Handlers["agent"] {
  return guarded({
    async prompt(_p, input) {
      const target = sessionOf(services, input.sessionId);
      if (target.parentId)
        throw new GatehouseError("REFUSED", `session ${target.id} is a subagent of session ${target.parentId}; it takes its work from its parent`);
      return { accepted: services.runner.prompt(target, input.text) };
    },
    async abort(p, input) {
      sessionOf(services, input.sessionId);
      return { aborted: services.runner.abort(input.sessionId, p.name) };
    },
    events(_p, input, signal) {
      if (input.sessionId !== undefined) sessionOf(services, input.sessionId);
      return services.hub.subscribe(input, signal);
    },
  });
}

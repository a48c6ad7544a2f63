import type { Handlers } from "@gatehouse/protocol";
import { GatehouseError } from "../errors.js";
import { type Services, guarded, sessionOf } from "./services.js";

/** The `agent` router: prompts, aborts and the event stream. */
export function agentHandlers(s: Services): Handlers["agent"] {
  return guarded({
    async prompt(_p, input) {
      const target = sessionOf(s, input.sessionId);
      if (target.parentId) throw new GatehouseError("REFUSED", `session ${target.id} is a subagent of session ${target.parentId}; it takes its work from its parent`);
      return { accepted: s.runner.prompt(target, input.text) };
    },
    async abort(p, input) {
      sessionOf(s, input.sessionId);
      return { aborted: s.runner.abort(input.sessionId, p.name) };
    },
    events(_p, input, signal) {
      if (input.sessionId !== undefined) sessionOf(s, input.sessionId);
      return s.hub.subscribe(input, signal);
    },
  });
}

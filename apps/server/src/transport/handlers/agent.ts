import type { Handlers } from "@gatehouse/protocol";
import { GatehouseError } from "../../errors.js";
import { type Services, sessionOf } from "./services.js";

/** The `agent` router: prompts, aborts and the event stream. */
export function agentHandlers(services: Services): Handlers["agent"] {
  return {
    async prompt(_p, input) {
      const target = await sessionOf(services, input.sessionId);
      if (target.parentId)
        throw new GatehouseError("REFUSED", `session ${target.id} is a subagent of session ${target.parentId}; it takes its work from its parent`);
      return { accepted: await services.runner.prompt(target, input.text) };
    },
    async abort(p, input) {
      await sessionOf(services, input.sessionId);
      const commands = services.shell.abort(input.sessionId, p.name);
      return { aborted: (await services.runner.abort(input.sessionId, p.name)) || commands };
    },
    async *events(_p, input, signal) {
      if (input.sessionId !== undefined) await sessionOf(services, input.sessionId);
      yield* services.hub.subscribe(input, signal);
    },
  };
}

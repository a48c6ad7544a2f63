import { suggestPatterns } from "@gatehouse/policy";
import type { Handlers } from "@gatehouse/protocol";
import { GatehouseError } from "../../errors.js";
import { type Services } from "./services.js";

/** The `tool` router: a person's answers to pending approvals, and what they look at first. */
export function toolHandlers(services: Services): Handlers["tool"] {
  return {
    async approve(p, input) {
      return { applied: await services.gate.approve(p.name, input) };
    },
    async deny(p, input) {
      return { applied: await services.gate.deny(p.name, input) };
    },
    async checkEdit(_p, input) {
      const edited = await services.gate.checkEdit(input);
      if (edited === undefined) throw new GatehouseError("NOT_FOUND", `approval ${input.approvalId} is not pending in session ${input.sessionId}`);
      return { decision: edited.decision, suggestedPatterns: suggestPatterns(edited.decision) };
    },
    async view(_p, input) {
      const found = await services.gate.view(input.sessionId, input.approvalId);
      if (found === undefined) throw new GatehouseError("NOT_FOUND", `approval ${input.approvalId} is not pending in session ${input.sessionId}`);
      return found;
    },
  };
}

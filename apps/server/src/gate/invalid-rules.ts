import type { Decision, RulesFileError } from "@gatehouse/policy";
import type { SessionInfo } from "@gatehouse/protocol";
import type { EventHub } from "../store/index.js";
import { now } from "../clock.js";

/**
 * A worker's rules file that does not load: every call asks (strict mode: is denied) with the
 * problem as its reason, and each session is told once per problem by `permissions_invalid`.
 */
export class InvalidRules {
  private readonly told = new Map<string, string>();

  constructor(private readonly hub: EventHub) {}

  /**
   * The decision for a call while the file does not load: the call as the gate understands it
   * without the file (`base`: its tier, subject, sub-commands, critical pattern), asking with the
   * problem as the reason. What stays a denial without the file (an agent's veto, a floor, a
   * mode) stays one. `tell` false (a query) tells nobody.
   */
  decision(session: SessionInfo, base: Decision, error: RulesFileError, tell = true): Decision {
    if (tell) this.tell(session, error);
    if (base.action === "deny" && (base.ruleAction === "deny" || session.mode !== "strict")) return base;
    return {
      ...base,
      action: session.mode === "strict" ? "deny" : "ask",
      layer: null,
      rule: null,
      pattern: null,
      reason: `the permissions file is invalid (${error.message}); every call asks until it is fixed`,
      ruleAction: "ask",
    };
  }

  private tell(session: SessionInfo, error: RulesFileError): void {
    if (this.told.get(session.id) === error.message) return;
    this.told.set(session.id, error.message);
    this.hub.notify({
      type: "permissions_invalid",
      sessionId: session.id,
      at: now(),
      workerId: session.workerId,
      file: error.file,
      line: error.line,
      column: error.column,
      message: error.detail,
    });
  }

  /** The file loads again: a later problem is told anew. */
  fixed(sessionId: string): void {
    this.told.delete(sessionId);
  }
}

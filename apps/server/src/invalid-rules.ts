import type { Decision, RulesFileError } from "@gatehouse/policy";
import type { SessionInfo } from "@gatehouse/protocol";
import type { EventHub } from "./event-hub.js";

/**
 * A worker's rules file that does not load: every call asks (strict mode: is denied) with the
 * problem as its reason, and each session is told once per problem by `permissions_invalid`.
 */
export class InvalidRules {
  private readonly told = new Map<string, string>();

  constructor(private readonly hub: EventHub) {}

  decision(session: SessionInfo, tool: string, error: RulesFileError): Decision {
    if (this.told.get(session.id) !== error.message) {
      this.told.set(session.id, error.message);
      this.hub.notify({
        type: "permissions_invalid",
        sessionId: session.id,
        at: new Date().toISOString(),
        workerId: session.workerId,
        file: error.file,
        line: error.line,
        column: error.column,
        message: error.detail,
      });
    }
    const action = session.mode === "strict" ? "deny" : "ask";
    return {
      action,
      tool,
      layer: null,
      rule: null,
      pattern: null,
      subject: tool,
      reason: `the permissions file is invalid (${error.message}); every call asks until it is fixed`,
      tier: "exec",
      mode: session.mode,
      ruleAction: "ask",
      critical: null,
      subcommands: [],
    };
  }

  /** The file loads again: a later problem is told anew. */
  fixed(sessionId: string): void {
    this.told.delete(sessionId);
  }
}

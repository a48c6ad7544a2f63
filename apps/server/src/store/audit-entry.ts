import type { Decision } from "@gatehouse/policy";
import type { SessionInfo } from "@gatehouse/protocol";
import { now } from "../clock.js";
import type { AuditEntry } from "./store.js";

/** The deciding rule as the audit log names it (`static shell_exec "git *"`), or null. */
export function ruleLabel(decision: Decision): string | null {
  return decision.rule ? `${decision.rule.layer} ${decision.rule.tool} "${decision.rule.pattern}"` : null;
}

/** One audit entry of a session's call, stamped now. */
export function auditEntry(
  session: SessionInfo,
  call: { tool: string; args: unknown },
  action: string,
  reason: string,
  rule: string | null,
  by?: string,
): AuditEntry {
  return {
    at: now(),
    sessionId: session.id,
    workerId: session.workerId,
    toolName: call.tool,
    arguments: JSON.stringify(call.args),
    action,
    reason,
    rule,
    ...(by ? { by } : {}),
  };
}

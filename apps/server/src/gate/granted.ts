import type { Decision, Granted } from "@gatehouse/protocol";

/**
 * Why a call may run, for the worker's own check: a person's answer (no decision let it through),
 * the rules themselves, or the session's mode turning an ask into an allow (yolo lets a critical
 * call through too). The worker lets an ask through only when the rules alone did not decide.
 */
export function grantedBy(decision: Decision | null): Granted {
  if (decision === null) return "person";
  return decision.ruleAction === "allow" && decision.critical === null ? "rules" : "mode";
}

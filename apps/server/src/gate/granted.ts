import type { Decision, Granted } from "@gatehouse/protocol";

/**
 * Why a call may run, for the worker's own check: a person's answer (no decision let it through),
 * the rules themselves, or the session's mode turning an ask into an allow (accept-edits never for
 * an exec-tier act; yolo for anything, a critical call too). The worker lets an ask through only
 * when the rules alone did not decide, and under accept-edits only one it does not find exec-tier.
 */
export function grantedBy(decision: Decision | null): Granted {
  if (decision === null) return "person";
  if (decision.ruleAction === "allow" && decision.critical === null) return "rules";
  return decision.mode === "accept-edits" ? "edits" : "mode";
}

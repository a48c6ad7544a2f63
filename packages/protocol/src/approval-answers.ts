import type { ApprovalRequired } from "./events.js";

/**
 * Why the server takes nothing but a one-time approval for this call, in a few words a prompt can
 * show beside its keys; null when it may also be approved for the session or always. A critical
 * call is never remembered, and neither is a call with no pattern narrow enough to save.
 */
export function onceOnly(a: Pick<ApprovalRequired, "decision" | "suggestedPatterns">): string | null {
  if (a.decision.critical) return "critical: approve once only";
  if (a.suggestedPatterns.length === 0) return "no narrow pattern: approve once only";
  return null;
}

/**
 * How long an approval must have been the one a person's keys (or, in the browser, the pointer)
 * answer before an answer reaches it. A key pressed twice, or a double click, meant for the call
 * before would otherwise answer one the person has not seen.
 */
export const ANSWER_PAUSE_MS = 400;

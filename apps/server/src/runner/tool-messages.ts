import type { ToolOutput, ToolResultOutcome } from "@gatehouse/protocol";
import type { Resolution } from "../gate/index.js";

/** How one call of a batch ended: what the tool gave back, or the message for a call that did not run. */
export interface CallResult extends ToolOutput {
  outcome: ToolResultOutcome;
  /** A hard deny: the rest of the batch is rejected and the turn ends. */
  hard?: boolean;
}

/** A result from the worker, with the outcome its fields say. */
export function ran(output: ToolOutput): CallResult {
  return { ...output, outcome: output.ok ? "ok" : output.timedOut ? "timed_out" : "failed" };
}

/** A call that did not run (or did not finish): the message is what the model receives. */
export function notRun(outcome: Exclude<ToolResultOutcome, "ok">, message: string, hard?: boolean): CallResult {
  return { ok: false, output: message, outcome, ...(hard ? { hard } : {}) };
}

const REJECTION_OUTCOME = { denied: "rejected", cancelled: "cancelled", timed_out: "timed_out" } as const;

/** What the model receives as the result of a call that did not run. */
export const toolMessages = {
  denied: (tool: string, reason: string) => `ToolDeniedError: the permission rules deny this ${tool} call: ${reason}`,
  missing: (tool: string, reason: string) => `ToolDeniedError: this ${tool} call was denied: ${reason}`,
  rejected: (tool: string, r: Resolution) => {
    if (r.outcome === "timed_out") return `ToolRejectedError: nobody answered the approval request for this ${tool} call in time; it was not run.`;
    if (r.outcome === "cancelled") return `ToolRejectedError: the approval request for this ${tool} call was cancelled; it was not run.`;
    const feedback = r.feedback ? ` Feedback: ${r.feedback}` : "";
    return `ToolRejectedError: the user rejected this ${tool} call.${feedback}`;
  },
  batchRejected: (tool: string) => `ToolRejectedError: the user rejected an earlier call of this batch and stopped the turn; this ${tool} call was not run.`,
  edited: (tool: string, original: unknown, edited: unknown) =>
    `The user changed this ${tool} call before approving it. Your arguments: ${JSON.stringify(original)}. The arguments it ran with instead: ${JSON.stringify(edited)}. Its result follows.`,
  failed: (tool: string, message: string) => `ToolError: ${tool} failed: ${message}`,
  invalid: (tool: string, why: string) => `ToolError: this ${tool} call was not run: ${why}`,
  subagentEnded: (agent: string, sessionId: string, end: string, answer: string) =>
    `ToolError: the ${agent} subagent (session ${sessionId}) stopped before it finished: its turn ended ${end}.${answer ? ` Its last words: ${answer}` : ""}`,
};

/** The result of a call whose approval was not granted. */
export function rejection(tool: string, r: Resolution): CallResult {
  const outcome = r.outcome === "approved" ? "rejected" : REJECTION_OUTCOME[r.outcome];
  return notRun(outcome, toolMessages.rejected(tool, r), r.hard);
}

import type { Resolution } from "./approval-gate.js";

/** What the model receives as the result of a call that did not run. */
export const toolMessages = {
  denied: (tool: string, reason: string) => `ToolDeniedError: the permission rules deny this ${tool} call: ${reason}`,
  rejected: (tool: string, r: Resolution) => {
    if (r.outcome === "timed_out") return `ToolRejectedError: nobody answered the approval request for this ${tool} call in time; it was not run.`;
    if (r.outcome === "cancelled") return `ToolRejectedError: the approval request for this ${tool} call was cancelled; it was not run.`;
    const feedback = r.feedback ? ` Feedback: ${r.feedback}` : "";
    return `ToolRejectedError: the user rejected this ${tool} call.${feedback}`;
  },
  batchRejected: (tool: string) => `ToolRejectedError: the user rejected an earlier call of this batch and stopped the turn; this ${tool} call was not run.`,
  failed: (tool: string, message: string) => `ToolError: ${tool} failed: ${message}`,
  invalid: (tool: string, why: string) => `ToolError: this ${tool} call was not run: ${why}`,
  subagentEnded: (agent: string, sessionId: string, end: string, answer: string) =>
    `ToolError: the ${agent} subagent (session ${sessionId}) stopped before it finished: its turn ended ${end}.${answer ? ` Its last words: ${answer}` : ""}`,
};
